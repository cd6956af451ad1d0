"""A researcher's comparisons (issue 50): `dcsim.compare` and `dcsim
compare` (the table against numbers computed from each run's flows
directly, the labels, the cautions), `[packets]`, one packet size for
every scheme, a report of several runs; incasts with a fixed receiver and
their completion times; the warnings that protect a conclusion (an
overloaded tier, a sweep not settled, a run shorter than its largest
flow)."""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim.spec import spec_from_dict

BASE = {"seed": 3, "workload": {"cdf": "web_search", "load": 0.5, "flows": 300}}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "dcsim", *map(str, args)], capture_output=True, text=True)


def spec(**sections):
    d = {k: dict(v) if isinstance(v, dict) else v for k, v in BASE.items()}
    for k, v in sections.items():
        d[k] = {**d.get(k, {}), **v} if isinstance(v, dict) else v
    return spec_from_dict(d)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """dctcp, pfabric and homa on the same flows (homa on its own 1000 +
    48 B packets), and dctcp again at another load."""
    root = tmp_path_factory.mktemp("cmp")
    out = {}
    for name, s in {
        "dctcp": spec(scheme={"name": "dctcp"}),
        "pfabric": spec(scheme={"name": "pfabric"}),
        "homa": spec(scheme={"name": "homa"}),
        "dctcp-0.7": spec(scheme={"name": "dctcp"}, workload={"load": 0.7}),
    }.items():
        dcsim.run_to_dir(s, root / name, quiet=True)
        out[name] = root / name
    return out


def test_the_table_is_each_runs_statistics_computed_from_its_flows(runs):
    t = dcsim.compare(runs["dctcp"], runs["pfabric"], percentiles=(50, 99))
    assert list(dict.fromkeys(t.columns.get_level_values("run"))) == ["dctcp", "pfabric"]
    assert list(t.index) == ["(0B, 100KB]", "(100KB, 10MB]", "(10MB, inf]", "all"]
    for name in ("dctcp", "pfabric"):
        f = pd.read_parquet(runs[name] / "flows.parquet")
        small = f.slowdown[f.size_bytes <= 100_000].dropna().to_numpy()
        assert t.loc["(0B, 100KB]", (name, "flows")] == len(small)
        assert t.loc["(0B, 100KB]", (name, "mean")] == pytest.approx(small.mean(), rel=1e-12)
        assert t.loc["(0B, 100KB]", (name, "p99")] == pytest.approx(np.percentile(small, 99), rel=1e-12)
        assert t.loc["all", (name, "p50")] == pytest.approx(f.slowdown.dropna().median(), rel=1e-12)
    # pFabric's small flows beat DCTCP's here, as everywhere in its paper
    assert t.loc["(0B, 100KB]", ("pfabric", "mean")] < t.loc["(0B, 100KB]", ("dctcp", "mean")] - 0.2


def test_labels_name_what_differs_and_bins_can_be_chosen(runs):
    t = dcsim.compare(runs["dctcp"], runs["dctcp-0.7"], bins=[0, 10_000, float("inf")])
    assert list(dict.fromkeys(t.columns.get_level_values("run"))) == ["load=0.5", "load=0.7"]
    assert list(t.index) == ["(0B, 10KB]", "(10KB, inf]", "all"]
    f = pd.read_parquet(runs["dctcp-0.7"] / "flows.parquet")
    assert t.loc["(0B, 10KB]", ("load=0.7", "flows")] == int((f.size_bytes <= 10_000).sum())
    # the same flows, same packets: nothing to warn of
    assert t.attrs["cautions"] == []


def test_cautions_name_packets_and_buffers_that_differ(runs):
    t = dcsim.compare(runs["dctcp"], runs["homa"], runs["pfabric"])
    d = t.attrs["differences"]
    assert d["packet bytes"] == {"mss_bytes": [1460, 1000, 1460], "header_bytes": [40, 48, 40]}
    # homa has no per-port queue_bytes: only dctcp's and pfabric's differ
    assert d["buffers"]["scheme.queue_bytes"][0] != d["buffers"]["scheme.queue_bytes"][2]
    assert "flows drawn" not in d and "seed" not in d
    assert t.attrs["cautions"][0].startswith("packet bytes differ: mss_bytes 1,460 (dctcp) / 1,000 (homa)")


def test_a_folder_of_links_to_runs_compares_them_all(runs, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in ("pfabric", "dctcp"):
        (folder / name).symlink_to(runs[name], target_is_directory=True)
    t = dcsim.compare(folder)
    assert list(dict.fromkeys(t.columns.get_level_values("run"))) == ["dctcp", "pfabric"]
    with pytest.raises(dcsim.SpecError, match="is the same run as"):
        dcsim.compare(folder, runs["dctcp"])
    with pytest.raises(dcsim.SpecError, match="holds no results"):
        dcsim.compare(_empty(tmp_path))
    with pytest.raises(dcsim.SpecError, match="no such directory"):
        dcsim.compare(tmp_path / "nothing")


def _empty(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    return d


def test_the_command_prints_the_table_legend_and_cautions_and_writes_csv(runs, tmp_path):
    csv = tmp_path / "t.csv"
    r = cli("compare", runs["dctcp"], runs["homa"], "--percentiles", "99,99.9", "--csv", csv)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].split() == ["size", "bin", "A", "mean", "A", "p99", "A", "p99.9", "B", "mean", "B", "p99",
                                "B", "p99.9"]
    assert any(ln.startswith("A: dctcp (") for ln in lines) and any(ln.startswith("B: homa (") for ln in lines)
    assert any(ln.startswith("caution: packet bytes differ: mss_bytes 1,460 (A) / 1,000 (B)") for ln in lines)
    back = pd.read_csv(csv, header=[0, 1], index_col=0)
    assert back.loc["all", ("homa", "flows")] == 300
    bad = cli("compare", runs["dctcp"], "--percentiles", "99,x")
    assert bad.returncode != 0 and "--percentiles: 'x' is not a number" in bad.stderr


def test_a_sweep_over_schemes_can_hold_one_packet_size(tmp_path):
    sweep = tmp_path / "sw.toml"
    sweep.write_text(
        '[spec]\nseed = 3\nworkload.cdf = "web_search"\nworkload.load = 0.5\nworkload.flows = 100\n'
        "packets.mss_bytes = 1000\npackets.header_bytes = 48\n"
        '[grid]\n"scheme.name" = ["dctcp", "homa", "pfabric"]\n')
    r = cli("sweep", sweep, "--out", tmp_path / "out", "-q")
    assert r.returncode == 0, r.stderr
    t = dcsim.compare(tmp_path / "out")
    assert sorted(dict.fromkeys(t.columns.get_level_values("run"))) == ["dctcp", "homa", "pfabric"]
    assert "packet bytes" not in t.attrs["differences"]


def test_packets_sets_every_schemes_packet_size():
    s = spec(scheme={"name": "homa"}, packets={"mss_bytes": 1460, "header_bytes": 40})
    assert (s.scheme.mss_bytes, s.scheme.header_bytes) == (1460, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing dropped: packets.* comes back with the new scheme
        d = s.with_overrides(**{"scheme.name": "dctcp"})
    assert (d.scheme.name, d.scheme.mss_bytes, d.scheme.header_bytes) == ("dctcp", 1460, 40)
    assert s.with_overrides(**{"packets.mss_bytes": 1000}).scheme.mss_bytes == 1000
    # unset again: the scheme's own
    assert s.with_overrides(**{"packets.mss_bytes": None}).scheme.mss_bytes == 1000
    with pytest.raises(dcsim.SpecError, match="scheme.mss_bytes = 1000 and packets.mss_bytes = 1460 disagree"):
        spec(scheme={"name": "homa", "mss_bytes": 1000}, packets={"mss_bytes": 1460})
    # the same flows drawn whatever the scheme once the packets agree (the
    # load counts bytes on the wire, so the arrivals depend on packets)
    def drawn(name, **packets):
        return dcsim.generated_flows(spec(scheme={"name": name}, packets=packets))

    assert not drawn("dctcp").start_s.equals(drawn("homa").start_s)
    same = {"mss_bytes": 1000, "header_bytes": 48}
    pd.testing.assert_frame_equal(drawn("dctcp", **same), drawn("homa", **same))


def test_a_report_of_several_runs_puts_them_side_by_side(runs, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in ("dctcp", "homa"):
        (folder / name).symlink_to(runs[name], target_is_directory=True)
    r = cli("report", folder, "--bins", "0,10KB,inf")
    assert r.returncode == 0, r.stderr
    page = (folder / "report.html").read_text()
    assert "2 runs side by side" in page and "A: dctcp" in page and "B: homa" in page
    assert "caution: packet bytes differ: mss_bytes 1,460 (A) / 1,000 (B)" in page
    # the bins asked for, in the side-by-side table and each run's
    assert page.count("(10KB, inf]") == 3 and "(100KB, 10MB]" not in page
    # one plot for the comparison (a panel per statistic), one per run
    assert page.count("data:image/png;base64,") == 3


def test_a_report_that_cannot_be_written_names_the_page_not_a_temporary_file(runs, tmp_path):
    page = tmp_path / "no such folder" / "page.html"
    r = cli("report", runs["dctcp"], "--out", page)
    assert r.returncode != 0
    assert f"cannot write {page}" in r.stderr and ".tmp" not in r.stderr


# ---- incasts as people run them ------------------------------------------

INCAST = {"seed": 2, "workload": {"cdf": "web_search", "load": 0.4, "flows": 600,
                                  "incasts": {"receiver": 5, "senders": 20, "total_bytes": 2_000_000,
                                              "interval_us": 3000}}}


@pytest.fixture(scope="module")
def incast_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("inc") / "run"
    r = cli("run", _toml(out.parent / "inc.toml", INCAST), "--out", out)
    assert r.returncode == 0, r.stderr
    return out, r


def _toml(path, d):
    lines = [f"seed = {d['seed']}", "[workload]"]
    lines += [f"{k} = {v!r}".replace("'", '"') for k, v in d["workload"].items() if not isinstance(v, dict)]
    lines += ["[workload.incasts]", *(f"{k} = {v}" for k, v in d["workload"]["incasts"].items())]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_fixed_receiver_incast_on_top_of_background_traffic(incast_run):
    out, _ = incast_run
    f = pd.read_parquet(out / "flows.parquet")
    inc = f[f.incast >= 0]
    bg = f[f.incast < 0]
    assert len(bg) == 600 and (inc.dst == 5).all() and (inc.src != 5).all()
    # one every 3 ms while the background arrives, 20 senders x 100 KB each
    n = inc.incast.max() + 1
    assert len(inc) == 20 * n and n == int(bg.start_s.max() / 3e-3 - 1e-9)
    starts = inc.groupby("incast").start_s.agg(["min", "max"])
    assert (starts["min"] == starts["max"]).all()
    assert np.allclose(starts["min"], 3e-3 * (np.arange(n) + 1))
    assert (inc.groupby("incast").size_bytes.sum() == 2_000_000).all()
    # the column is incast_ids' own
    from dcsim.spec import spec_from_dict
    from dcsim.spec.experiment import incast_ids

    assert (f.incast.to_numpy() == incast_ids(spec_from_dict(INCAST))[f.flow_id.to_numpy()]).all()
    with pytest.raises(dcsim.SpecError, match="receiver: host 144 is not in the topology"):
        dcsim.generated_flows(spec_from_dict({**INCAST, "workload": {**INCAST["workload"],
                                                                     "incasts": {"receiver": 144}}}))


def test_incast_completion_times_apart_from_the_background_table(incast_run):
    out, r = incast_run
    f = pd.read_parquet(out / "flows.parquet")
    s = __import__("json").loads((out / "summary.json").read_text())["stats"]
    # the slowdown table is the background's alone
    assert sum(b["flows"] + b["unfinished"] for b in s["by_size"] if b["bin"] != "all") == 600
    bg = f[f.incast < 0]
    assert s["by_size"][-1]["mean"] == pytest.approx(bg.slowdown.mean(), rel=1e-12)
    # incast completion: first start to last finish, per incast
    inc = f[f.incast >= 0].groupby("incast")
    ict = (inc.finish_s.max() - inc.start_s.min()).to_numpy() * 1e6
    assert s["incasts"]["count"] == len(ict) and s["incasts"]["unfinished"] == 0
    assert s["incasts"]["mean_us"] == pytest.approx(ict.mean(), rel=1e-12)
    assert s["incasts"]["p99_us"] == pytest.approx(np.percentile(ict, 99), rel=1e-12)
    # an incast of 2 MB into one 10 Gb/s link takes at least 1.6 ms
    assert ict.min() > 1.6e3
    for text in (r.stdout, cli("show", out).stdout):
        assert "the table: background flows only; incast flows below" in text
        assert f"incasts {len(ict)} · incast completion time, first start to last finish (us): mean" in text
    from dcsim.metrics import incast_times
    from dcsim.spec import spec_from_dict

    t = incast_times(f.drop(columns="incast"), spec_from_dict(INCAST))  # from the spec alone, the same
    assert np.allclose(t.ict_s.to_numpy() * 1e6, ict) and (t.receiver == 5).all()


# ---- warnings that protect a conclusion ------------------------------------


def test_an_overloaded_tier_is_named_before_the_run():
    from dcsim.offered import overload_caveats

    # pFabric Fig. 20's 3:1 fabric at 60% of the hosts' rate: the uplinks
    # carry 3 x 0.6 x 96/143 of theirs (the traffic that leaves the rack)
    over = spec(topology={"kind": "oversubscribed_leaf_spine"}, workload={"load": 0.6})
    said = overload_caveats(over)
    uplinks = 100 * 3 * 0.6 * 96 / 143  # 3:1, 60%, the share of 143 destinations off the rack
    assert len(said) == 1 and f"leaf/edge -> spine/aggregation up to {uplinks:.0f}% (12 of 12 links)" in said[0]
    # the 1:1 fabric at 90%, and the 3:1 one by its core: no warning
    assert overload_caveats(spec(workload={"load": 0.9})) == []
    assert overload_caveats(spec(topology={"kind": "oversubscribed_leaf_spine"},
                                 workload={"load": 0.6, "load_basis": "core"})) == []
    # rack-local traffic keeps the uplinks free: 10% leaving the rack
    assert overload_caveats(spec(topology={"kind": "oversubscribed_leaf_spine"},
                                 workload={"load": 0.9, "matrix": "rack_local", "local_share": 0.9})) == []
    # many to one: 0.9 of the receiver's link
    assert overload_caveats(spec(workload={"matrix": "many_to_one", "load": 0.9, "dst": 3})) == []


def test_offered_loads_add_up_to_what_the_hosts_send():
    import json

    from dcsim.offered import link_loads
    from dcsim.simulate import build

    s = spec(topology={"kind": "oversubscribed_leaf_spine"}, workload={"load": 0.6})
    ports = json.loads(build(s).summary_json())["ports"]
    load = link_loads(s, ports)
    host_up = [x for p, x in zip(ports, load) if p["tier"] == 0]
    down = [x for p, x in zip(ports, load) if p["tier"] == 1 and p["peer"] < 144]
    assert np.allclose(host_up, 0.6 * 10e9) and np.allclose(down, 0.6 * 10e9)
    # what crosses the spines is what leaves the racks
    up = sum(x for p, x in zip(ports, load) if p["tier"] == 1 and p["peer"] >= 144)
    assert up == pytest.approx(144 * 0.6 * 10e9 * 96 / 143, rel=1e-9)


def test_a_sweep_says_which_points_had_not_settled(tmp_path):
    # 400 flows from an empty fabric at 70% load have not settled (as
    # test_show's run): the sweep names the point, show has a column
    sweep = tmp_path / "sw.toml"
    example = Path(__file__).resolve().parents[1] / "examples" / "leaf_spine_web_search.toml"
    sweep.write_text(f'name = "settle"\nbase = "{example}"\n[spec]\nworkload.flows = 400\n'
                     '[grid]\n"workload.load" = [0.7]\n')
    r = cli("sweep", sweep, "--out", tmp_path / "out", "-q")
    assert r.returncode == 0, r.stderr
    assert "sweep settle: 1 point(s) not settled" in r.stderr and "workload.load=0.7: (0B, 100KB] +" in r.stderr
    show = cli("show", tmp_path / "out").stdout.splitlines()
    assert show[1].split()[-2:] == ["not", "settled"] and "(0B, 100KB] +" in show[2]


def test_a_run_shorter_than_its_largest_flow_says_so():
    from dcsim.show import footer

    short = dcsim.run(spec(workload={"flows": 60}))
    s = short.attrs["summary"]["stats"]["short_span"]
    assert s["arrivals_s"] == pytest.approx(short.start_s.max() - short.start_s.min())
    assert s["largest_ideal_fct_s"] == pytest.approx(short.ideal_fct_s.max()) and s["arrivals_s"] < s[
        "largest_ideal_fct_s"]
    assert "less than the largest flow's ideal FCT" in footer(short.attrs["summary"]["stats"])
    long = dcsim.run(spec(workload={"flows": 3000}))
    assert "short_span" not in long.attrs["summary"]["stats"]


def test_thresholds_that_leave_queues_empty_are_warned_of_at_run(tmp_path):
    from dcsim.spec.experiment import caveats
    from dcsim.thresholds import empty_queues

    assert empty_queues([10, 20, 20, 99], 50) == ("threshold 3 equals its predecessor: queue 3 gets no flows; "
                                                  "threshold 4 is at or past the largest flow (50 B): queue 5 gets "
                                                  "no flows")
    assert empty_queues([10, 20, 30], 50) == ""
    cdf = tmp_path / "deg.cdf"
    cdf.write_text("100 0\n1000 0.5\n10000 0.8\n1000000 0.95\n30000000 1\n")
    pias = spec(scheme={"name": "pias", "thresholds": "pias"}, workload={"cdf": str(cdf), "load": 0.6})
    said = [w for w in caveats(pias) if w.startswith("scheme.thresholds")]
    assert len(said) == 1 and "thresholds 2-7 are at or past the largest flow (30,000,000 B): queues 3-8" in said[0]
    even = spec(scheme={"name": "pias", "thresholds": "equal_split"}, workload={"cdf": str(cdf), "load": 0.6})
    assert not [w for w in caveats(even) if w.startswith("scheme.thresholds")]
    prio = spec(scheme={"name": "prio_queues", "queues": 4, "thresholds": [1000, 1000, 5000]})
    assert any("threshold 2 equals its predecessor: queue 2 gets no flows" in w for w in caveats(prio))


# ---- small things found on the way ------------------------------------------


def test_small_things_a_new_user_ran_into(tmp_path):
    tiny = tmp_path / "tiny.toml"
    tiny.write_text("[workload]\nflows = 10\n")
    # the command line's spelling of a thresholds method, and the spec's
    r = cli("run", tiny, "--set", "scheme.name=pias", "--set", "scheme.thresholds=equal-split", "--out",
            tmp_path / "a", "-q")
    assert r.returncode == 0, r.stderr
    # NaN and infinity: "a finite number", not a bound's message
    for bad in ("workload.load=nan", "workload.load=inf", "topology.host_link_delay_us=inf"):
        r = cli("run", tiny, "--set", bad, "--out", tmp_path / "b")
        assert r.returncode == 2 and f"{bad.split('=')[0]}: Input should be a finite number" in r.stderr, r.stderr
    # a scheme field on a spec with no [scheme]: the default scheme's
    r = cli("run", tiny, "--set", "scheme.min_rto_us=300", "--out", tmp_path / "c", "-q")
    assert r.returncode == 0, r.stderr
    # a CDF whose first row gives flows of no bytes
    cdf = tmp_path / "zero.cdf"
    cdf.write_text("# size cdf\n0 0.1\n1000 0.5\n10000 1\n")
    r = cli("thresholds", "--cdf", cdf)
    assert r.returncode != 0 and f"{cdf}:2: 10% of flows would be 0 bytes" in r.stderr
    cdf.write_text("0 0\n1000 0.5\n10000 1\n")
    assert cli("thresholds", "--cdf", cdf).returncode == 0
    # the commands' one-line help whole, and the default bins named
    top = cli("--help").stdout
    commands = top[top.index("Commands:"):].splitlines()[1:]
    assert len(commands) >= 10 and not any(line.rstrip().endswith("...") for line in commands)
    assert "0,100KB,10MB,inf" in cli("show", "--help").stdout


def test_the_reports_notes_are_lines_of_their_own(tmp_path):
    # a run with several notes (not settled, too short, drops): each its
    # own paragraph, not run together into one
    import html

    from dcsim.report import build
    from dcsim.show import footer

    example = Path(__file__).resolve().parents[1] / "examples" / "leaf_spine_web_search.toml"
    out = tmp_path / "run"
    r = cli("run", example, "--out", out, "--flows", 400, "--set", "workload.load=0.7", "-q")
    assert r.returncode == 0, r.stderr
    lines = footer(__import__("json").loads((out / "summary.json").read_text())["stats"]).splitlines()
    assert len(lines) >= 3 and lines[0].startswith("not settled")
    page = build(out)
    for line in lines:
        assert f"<p>{html.escape(line)}</p>" in page


def test_retransmissions_without_losses_are_reordering_counted_apart():
    # issue 50: DCTCP on a sprayed 3:1 fabric resends packets it never
    # lost. The cause: an ECN cut with SACK holes behind it starts
    # recovery (as ns-2's agents do), and the holes of a sprayed path are
    # reordered packets still on their way. Their receivers held them
    # already: every such retransmission is counted as spurious.
    base = {"topology": {"kind": "oversubscribed_leaf_spine"}, "workload": {"load": 0.3, "flows": 1500},
            "scheme": {"name": "dctcp"}}
    summary = dcsim.run(spec(**base, routing={"load_balancing": "round_robin"})).attrs["summary"]
    sprayed = summary["stats"]
    assert sprayed["drops"]["packets"] == 0 and sprayed["timeouts"] == 0
    assert sprayed["retransmitted_packets"] > 100
    # every copy arrived twice; the few whose second copy came after its
    # flow had ended are counted as stale instead
    stale = summary["counters"]["stale_pkts"]
    assert sprayed["spurious_retransmissions"] + stale >= sprayed["retransmitted_packets"]
    assert sprayed["spurious_retransmissions"] >= 0.95 * sprayed["retransmitted_packets"]
    # one path per flow: nothing arrives out of order, nothing is resent
    ecmp = dcsim.run(spec(**base, routing={"load_balancing": "ecmp"})).attrs["summary"]["stats"]
    assert ecmp["retransmitted_packets"] == 0 and ecmp["spurious_retransmissions"] == 0
