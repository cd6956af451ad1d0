"""The command line: runs, outputs, and clear errors on bad input."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

import pytest

import dcsim
from dcsim.simulate import COLUMNS

ROOT = Path(__file__).resolve().parents[1]
#: examples that stop on purpose before their flows finish
STOPPING = {"pfc_deadlock.toml"}
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.toml") if not p.name.startswith("sweep_")
                  and p.name not in STOPPING)
SWEEP_EXAMPLES = sorted((ROOT / "examples").glob("sweep_*.toml"))


def dcsim_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "dcsim", *map(str, args)], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_runs(example, tmp_path):
    out = tmp_path / "out"
    r = dcsim_cli("run", example, "--out", out, "--flows", 150, "--quiet")
    assert r.returncode == 0, r.stderr
    flows = pd.read_parquet(out / "flows.parquet")
    summary = json.loads((out / "summary.json").read_text())
    assert list(flows.columns) == COLUMNS
    assert summary["conservation_holds"]
    assert summary["unfinished_flows"] == 0
    assert len(flows) == summary["flows_total"] > 0
    assert (flows.slowdown >= 0.999).all()
    for key in ("spec", "seed", "version", "counters", "sim_time_s", "events", "wall_time_s"):
        assert key in summary


def test_the_deadlock_example_stops_naming_the_cycle(tmp_path):
    r = dcsim_cli("run", ROOT / "examples" / "pfc_deadlock.toml", "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "PFC deadlock: switch ports paused in a cycle" in r.stderr and "5>6 -> 6>7" in r.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["status"] == "deadlock" and summary["unfinished_flows"] == 20


@pytest.mark.parametrize("example", SWEEP_EXAMPLES, ids=lambda p: p.stem)
def test_every_sweep_example_runs(example, tmp_path):
    r = dcsim_cli("sweep", example, "--out", tmp_path / "o", "-q", "--set", "workload.flows=40")
    assert r.returncode == 0, r.stderr
    info = json.loads((tmp_path / "o" / "sweep.json").read_text())
    assert len(info["points"]) > 1
    assert all((tmp_path / "o" / "points" / p["key"] / "summary.json").is_file() for p in info["points"])


def test_run_writes_bit_identical_output_for_the_same_seed(tmp_path):
    spec = ROOT / "examples" / "leaf_spine_web_search.toml"
    for d in ("a", "b", "c"):
        seed = 2 if d == "c" else 1
        r = dcsim_cli("run", spec, "--out", tmp_path / d, "--flows", 300, "--seed", seed, "-q")
        assert r.returncode == 0, r.stderr
    a, b, c = ((tmp_path / d / "flows.parquet").read_bytes() for d in "abc")
    assert a == b
    assert a != c


def test_set_overrides_and_summary_records_them(tmp_path):
    spec = ROOT / "examples" / "star_many_to_one.toml"
    r = dcsim_cli("run", spec, "--out", tmp_path / "o", "--flows", 50, "-q",
                  "--set", "workload.load=0.2", "--set", "scheme.min_rto_us=300")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["spec"]["workload"]["load"] == 0.2
    assert s["spec"]["scheme"]["min_rto_us"] == 300
    assert s["spec"]["workload"]["flows"] == 50


def test_existing_output_is_kept_without_force(tmp_path):
    spec = ROOT / "examples" / "star_trace.toml"
    out = tmp_path / "o"
    assert dcsim_cli("run", spec, "--out", out, "-q").returncode == 0
    r = dcsim_cli("run", spec, "--out", out, "-q")
    assert r.returncode == 2 and "already exists" in r.stderr
    assert dcsim_cli("run", spec, "--out", out, "-q", "--force").returncode == 0


def test_version():
    r = dcsim_cli("--version")
    assert r.returncode == 0 and r.stdout.startswith(f"dcsim {dcsim.__version__} (engine ")


def test_list_names_everything():
    r = dcsim_cli("list")
    assert r.returncode == 0
    for name in ("leaf_spine", "fat_tree", "star", "oversubscribed_leaf_spine", "tcp", "web_search", "data_mining",
                 "pfabric", "pias", "bfc"):
        assert name in r.stdout
    r = dcsim_cli("list", "gizmos")
    assert r.returncode == 2 and "allowed: topologies, schemes, profiles, workloads" in r.stderr


def test_list_one_item():
    r = dcsim_cli("list", "schemes", "hpcc")
    assert r.returncode == 0 and r.stdout.splitlines()[1].split()[0] == "hpcc"
    assert "eta = 0.95" in r.stdout and "\n  dcqcn " not in r.stdout
    r = dcsim_cli("list", "schemes", "hpc")
    assert r.returncode == 2 and "no scheme named 'hpc' (did you mean 'hpcc'?)" in r.stderr
    r = dcsim_cli("list", "topologies", "fat_tre")
    assert r.returncode == 2 and "no topology named 'fat_tre'" in r.stderr
    # a figure drawn with others: its group, as reproduce runs it
    r = dcsim_cli("list", "figures", "pias-fig6")
    assert r.returncode == 0 and r.stdout.splitlines()[1].split()[0] == "pias-fig5-7", r.stdout
    assert "pias-fig6 is drawn with Figs. 5-7: listing pias-fig5-7" in r.stderr
    # a paper: its figures, in the paper's order
    r = dcsim_cli("list", "figures", "pfabric")
    names = [line.split()[0] for line in r.stdout.splitlines() if line.startswith("  pfabric-")]
    assert r.returncode == 0 and names[:3] == ["pfabric-fig4", "pfabric-fig5a", "pfabric-fig5b"], r.stdout
    assert names.index("pfabric-fig6") < names.index("pfabric-fig20") and "  pias-" not in r.stdout


BASE = """
[topology]
kind = "star"
hosts = 4
[scheme]
name = "tcp"
[workload]
flows = 10
"""


def _spec(tmp_path, text):
    p = tmp_path / "spec.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    "text,needle",
    [
        (BASE.replace('name = "tcp"', 'name = "xcp"'), "scheme.name: unknown scheme 'xcp' (did you mean 'tcp'?)"),
        (BASE.replace('kind = "star"', 'kind = "torus"'), "unknown topology 'torus'"),
        (BASE + "cdf = \"web_serch\"\n", "workload.cdf: 'web_serch' is neither a shipped workload"),
        (BASE + "load = 1.5\n", "workload.load: Input should be less than 1"),
        (BASE + "load = 0\n", "workload.load: Input should be greater than 0, got 0 (allowed: > 0, < 1)"),
        (BASE + "matrix = \"one_to_all\"\n", "workload.matrix: Input should be 'all_to_all', 'many_to_one', 'trace', 'incast', 'heterogeneous', 'bulk' or 'rack_local'"),
        (BASE + "lod = 0.5\n", "workload.lod: unknown field"),
        (BASE + "matrix = \"trace\"\n", "needs workload.trace"),
        (BASE + "matrix = \"many_to_one\"\ndst = 9\n", "workload.dst: 9 is not a host"),
        (BASE.replace("hosts = 4", "hosts = 1"), "topology.hosts: Input should be greater than or equal to 2"),
        ("[topology\n", "not valid TOML"),
        # a part of a name; a field of a nested table is looked up there
        (BASE.replace('[scheme]', '[scheme]\nrto = 3'), "scheme.rto: unknown field (did you mean 'max_rto_us' or"),
        (BASE + "[workload.queries]\ndst = 3\n", "workload.queries.dst: unknown field (fields of workload.queries: per_s, response_bytes, spacing, count)\n"),
        (BASE + "[routing]\nsymmetric = true\n", "routing: routing.symmetric = true makes ECMP's hash retrace"),
    ],
)
def test_bad_spec_exits_2_with_one_clear_line(tmp_path, text, needle):
    out = tmp_path / "out"
    r = dcsim_cli("run", _spec(tmp_path, text), "--out", out)
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()
    assert not any(p.name.startswith(".out") for p in tmp_path.iterdir())


@pytest.mark.parametrize(
    "cdf,needle",
    [
        ("100 0\n50 0.5\n200 1\n", "c.txt:2: the size column decreases (100 then 50)"),
        # errors name the file's line, past comments and a header
        ("# sizes\nsize cdf\n\n100 0\n200 0.7 # mid\n250 0.6\n", "c.txt:6: the cdf column decreases (0.7 then 0.6)"),
        ("100 0\n200 0.9\n", "c.txt:2: the cdf column must end at 1 (or 100 in percent), ends at 0.9"),
        ("100 0\n150 50\n200 99.5\n", "c.txt:3: the cdf column ends at 99.5: it must end at 1 (or at 100"),
        ("100 0\n200 1.5\n", "c.txt:2: the cdf column ends at 1.5: it must end at 1"),
        ("100 -10\n200 100\n", "c.txt:1: cdf must be in [0, 1] (in percent: 0 to 100), got -10"),
        ("100 0\n200 x\n", "expected two numbers"),
        ("-5 0\n200 1\n", "size must be >= 0"),
        ("# nothing\n", "no rows"),
    ],
)
def test_bad_cdf_file_exits_2(tmp_path, cdf, needle):
    (tmp_path / "c.txt").write_text(cdf)
    spec = _spec(tmp_path, BASE + 'cdf = "c.txt"\n')
    r = dcsim_cli("run", spec, "--out", tmp_path / "out")
    assert r.returncode == 2 and needle in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "row,needle",
    [
        ("0.1 2 2 1000", "src and dst are the same host (2)"),
        ("0.1 0 7 1000", "dst 7 is not a host of this topology (0..3)"),
        ("0.1 -1 2 1000", "src -1 is not a host"),
        ("0.1 0 1 -20", "size must be a positive number of bytes"),
        ("0.1 0 1 1000.7", "size must be a whole number of bytes, got 1000.7"),
        ("0.1 0 1", "expected 4 fields"),
        ("-1 0 1 100", "time must be >= 0"),
    ],
)
def test_bad_trace_exits_2_naming_the_line(tmp_path, row, needle):
    (tmp_path / "t.txt").write_text("0 0 1 1000\n" + row + "\n")
    spec = _spec(tmp_path, BASE + 'matrix = "trace"\ntrace = "t.txt"\n')
    r = dcsim_cli("run", spec, "--out", tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr and "t.txt:2" in r.stderr
    assert not (tmp_path / "out").exists()


def test_missing_spec_and_bad_set(tmp_path):
    r = dcsim_cli("run", tmp_path / "nope.toml", "--out", tmp_path / "o")
    assert r.returncode == 2 and "spec file not found" in r.stderr
    r = dcsim_cli("run", _spec(tmp_path, BASE), "--out", tmp_path / "o", "--set", "workload.load")
    assert r.returncode == 2 and "--set expects key=value" in r.stderr
    r = dcsim_cli("run", _spec(tmp_path, BASE), "--out", tmp_path / "o", "--set", "scheme.bogus=1")
    assert r.returncode == 2 and "scheme.bogus: unknown field" in r.stderr
    # a section's field given at the top: its section named
    r = dcsim_cli("run", _spec(tmp_path, BASE), "--out", tmp_path / "o", "--set", "matrix=all_to_all")
    assert r.returncode == 2 and "matrix: unknown field (did you mean 'workload.matrix'?)" in r.stderr
    # an output path under a file
    r = dcsim_cli("run", _spec(tmp_path, BASE), "--out", tmp_path / "spec.toml" / "o")
    assert r.returncode == 2 and "spec.toml is a file, not a directory" in r.stderr


def test_an_option_given_twice_is_refused(tmp_path):
    r = dcsim_cli("run", _spec(tmp_path, BASE), "--out", tmp_path / "o", "--flows", "20", "--set", "workload.flows=abc")
    assert r.returncode == 2 and "--flows and --set workload.flows both set workload.flows" in r.stderr
    r = dcsim_cli("run", _spec(tmp_path, BASE), "--out", tmp_path / "o", "--seed", "2", "--set", "seed=3")
    assert r.returncode == 2 and "--seed and --set seed both set seed" in r.stderr
    assert not (tmp_path / "o").exists()


def test_runs_that_work_against_their_scheme_warn(tmp_path):
    # HPCC over per-packet spraying runs, but reordering costs it resends:
    # warned; with ECMP (as BFC runs it) not
    spec = _spec(tmp_path, '[scheme]\nname = "hpcc"\n')
    r = dcsim_cli("run", spec, "--out", tmp_path / "o", "--flows", "20", "-q")
    assert r.returncode == 0, r.stderr
    assert "dcsim: warning: scheme hpcc recovers from reordering as from loss" in r.stderr
    assert "routing.load_balancing = 'round_robin'" in r.stderr
    r = dcsim_cli("run", spec, "--out", tmp_path / "o2", "--flows", "20", "-q", "--set", "routing.load_balancing=ecmp")
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    # a flow-level model has nothing to sample
    r = dcsim_cli("run", _spec(tmp_path, BASE.replace('"tcp"', '"ideal"')), "--out", tmp_path / "o3", "-q",
                  "--set", "run.sample_us=10")
    assert r.returncode == 0 and "warning: scheme ideal is a flow-level model" in r.stderr, r.stderr
    assert "run.sample_us record nothing" in r.stderr


def test_python_api_returns_dataframe_with_summary():
    spec = dcsim.Spec.model_validate({"topology": {"kind": "star"}, "workload": {"flows": 100}})
    df = dcsim.run(spec)
    assert list(df.columns) == COLUMNS and len(df) == 100
    s = df.attrs["summary"]
    assert s["counters"]["flows_finished"] == 100
    assert s["events"] > 0 and s["packet_hops"] > 0
    # dicts are accepted too
    assert len(dcsim.run({"topology": {"kind": "star"}, "workload": {"flows": 20}})) == 20


def test_bench_reports_the_fastest_of_identical_runs(capsys):
    from dcsim.bench import main as bench_main

    r = bench_main(flows=200, repeat=2)
    out = capsys.readouterr().out
    rates = r["runs_packet_hops_per_s"]
    assert len(rates) == 2 and r["packet_hops_per_s"] == max(rates)
    assert r["conservation_holds"] and r["packet_hops"] > 0
    # every packet-hop is one event except flow arrivals and timers
    assert r["packet_hops"] <= r["events"] < 1.05 * r["packet_hops"]
    assert "runs             2" in out and "packet-hops" in out
    # the header says which slot sort this CPU uses (speed differs by it)
    assert re.search(r"calendar slot sort: (AVX-512 \+ AVX2|AVX2|AVX-512|scalar)\)", out)
    with pytest.raises(ValueError, match="repeat"):
        bench_main(flows=10, repeat=0)
    # the paper's pFabric point, as its figure runs it, and Ideal on it
    capsys.readouterr()
    p = bench_main(flows=150, scheme="pfabric")
    assert p["scheme"] == "pfabric" and p["packet_hops"] > 0 and "pfabric  flows 150" in capsys.readouterr().out
    i = bench_main(flows=150, scheme="ideal")
    assert i["packet_hops"] == 0 and i["events"] >= 150
    with pytest.raises(ValueError, match="scheme"):
        bench_main(flows=10, scheme="homa")


def test_bench_targets_judge_each_issues_point(tmp_path, capsys):
    from dcsim import bench_targets as bt
    from dcsim.bench import main as bench_main

    # `dcsim bench --json` writes the reported run where the judge reads it
    r = bench_main(flows=100, json_path=str(tmp_path / "b" / "tcp.json"))
    assert json.loads((tmp_path / "b" / "tcp.json").read_text())["packet_hops"] == r["packet_hops"]
    assert bt.targets(bt.load(tmp_path / "b"))[0] == \
        "tcp: measured at 100 flows and load 0.6, not the target's 20,000 and 0.6"

    def res(scheme, flows, **kw):
        return {"scheme": scheme, "flows": flows, "load": 0.6, **kw}

    got = bt.targets({
        "tcp": res("tcp", 20_000, packet_hops_per_s=21e6),
        "pfabric": res("pfabric", 100_000, wall_s=59.0, peak_rss_mib=301.0),
        "ideal": res("ideal", 100_000, wall_s=0.8),
        "hpcc": res("hpcc", 20_000, packet_hops_per_s=10.5e6),
        "bfc": res("bfc", 20_000, packet_hops_per_s=10.4e6),
        "dcqcn": res("dcqcn", 20_000, packet_hops_per_s=7e6),
    })
    assert got[0] == "tcp, 20,000 flows: 21.00 M packet-hops/s (target >= 20 M): met"
    assert got[1].startswith("pfabric, 100,000 flows: 59.0 s") and got[1].endswith("NOT met")  # the memory
    assert got[2].endswith(": met")
    assert "2.00x it (target <= 2x): met" in got[3] and "2.02x it (target <= 2x): NOT met" in got[4]
    assert got[5].endswith("3.00x it (no target)")
    # a missing run is said, not judged, and so is another load; without
    # TCP's run the others' rates are shown unjudged
    assert bt.targets({})[0] == "tcp: not measured"
    assert bt.targets({"tcp": dict(res("tcp", 20_000), load=0.3)})[0].startswith("tcp: measured at 20,000 flows and load 0.3")
    assert bt.targets({"hpcc": res("hpcc", 20_000, packet_hops_per_s=9e6)})[3] == \
        "hpcc, 20,000 flows: 9.00 M packet-hops/s; no TCP run at 20,000 flows to compare with"
    # files that are not results, or a scheme twice, are errors naming the file
    for name, text, message in [("x.json", "[1]", "it needs scheme"), ("y.json", "not json", "Expecting value"),
                                ("z.json", json.dumps(dict(r, packet_hops_per_s=0)), "no packet-hops"),
                                ("tcp2.json", json.dumps(r), "a second tcp result")]:
        (tmp_path / "b" / name).write_text(text)
        with pytest.raises(ValueError, match=f"{name}: .*{message}"):
            bt.load(tmp_path / "b")
        (tmp_path / "b" / name).unlink()
    with pytest.raises(SystemExit) as e:
        bt.main([str(tmp_path / "none")])
    assert e.value.code == 2 and "no such directory" in capsys.readouterr().err


def test_bench_configs_write_the_pages_configurations(tmp_path):
    # docs/performance.md's CONFIGS/NAME.json: each name, its spec
    import json as _json

    from dcsim.bench import scenario
    from dcsim.bench_configs import main as write, spec_of
    from dcsim.spec import engine_config_json

    assert write([str(tmp_path), "pf1500", "tcp20k", "bfc1k5", "pf1500_nosp", "s10k"]) == 0
    assert (tmp_path / "pf1500.json").read_text() == engine_config_json(scenario(1500, scheme="pfabric"))
    assert (tmp_path / "tcp20k.json").read_text() == engine_config_json(scenario(20_000))
    bfc = spec_of("bfc1k5")
    assert (bfc.scheme.name, bfc.workload.flows, bfc.workload.incasts.senders) == ("bfc", 1500, 100)
    assert spec_of("dctcppf1500") == spec_of("dctcp1500")
    assert spec_of("dctcp1500").scheme.connections_per_pair == 8
    assert _json.loads((tmp_path / "pf1500_nosp.json").read_text())["routing"] != \
        _json.loads((tmp_path / "pf1500.json").read_text())["routing"]
    assert spec_of("s10k").topology.leaves == 384
    assert write([str(tmp_path), "pf1500_zz"]) == 2 and write([str(tmp_path), "nothing"]) == 2


def test_bench_scale_measures_points_and_judges_the_targets(tmp_path, capsys):
    from dcsim import bench_scale as bs

    # the points' fabrics: 144 and 6,144 hosts, Parsimon's cluster 6,144
    assert [bs.hosts(t) for t in (bs.REFERENCE, bs.BIG, bs.PARSIMON)] == [144, 6144, 6144]
    s = bs.spec(bs.BIG, "web_search", 30_000)
    assert (s.routing.load_balancing, s.scheme.name, s.workload.load) == ("ecmp", "tcp", 0.5)
    # a point runs in its own process and reports speed and memory
    small = {"kind": "star", "hosts": 8}
    r = bs.run_points([("star", small, "web_search", 40)])
    assert r[0]["packet_hops"] > 0 and r[0]["hosts"] == 8 and r[0]["conservation_holds"]
    assert "star" in capsys.readouterr().out
    bs.plot(r + [dict(r[0], label="again")], str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").stat().st_size > 0
    # the targets: 0.6x the reference's rate; 100 s and 1 GB
    ref = {"hosts": 144, "flows": 10_000, "packet_hops_per_s": 10e6}
    big = {"hosts": 6144, "flows": 30_000, "packet_hops_per_s": 5.9e6}
    fast = {"hosts": 6144, "flows": 100_000, "wall_s": 99.0, "peak_rss_mib": 900.0}
    out = bs.targets(ref, big, fast)
    assert "0.59x" in out[0] and out[0].endswith("NOT met") and out[1].endswith(": met")
    out = bs.targets(ref, dict(big, packet_hops_per_s=6e6), dict(fast, peak_rss_mib=1100.0))
    assert out[0].endswith(": met") and out[1].endswith("NOT met")


def _one_clean_line(r, needle):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert needle in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_bad_options_and_outputs_fail_before_simulating(tmp_path):
    spec = ROOT / "examples" / "leaf_spine_web_search.toml"
    sweep = ROOT / "examples" / "sweep_tcp_load.toml"
    a_file = tmp_path / "file"
    a_file.write_text("keep me")
    # 10^6 flows would take minutes: each error must come first
    big = ["--flows", 1_000_000]
    _one_clean_line(dcsim_cli("run", spec, "--out", a_file, "--force", *big), "exists and is not a directory")
    assert a_file.read_text() == "keep me"
    _one_clean_line(dcsim_cli("run", spec, "--out", "/proc/dcsim-test/x", *big), "cannot create it")
    _one_clean_line(dcsim_cli("sweep", sweep, "--out", "/proc/dcsim-test", "--set", "workload.flows=1000000"),
                    "cannot create it")
    _one_clean_line(dcsim_cli("sweep", sweep, "--out", tmp_path / "o", "--jobs", -3), "--jobs: needs at least 1")
    _one_clean_line(dcsim_cli("reproduce", "pfabric-fig7-9", "--out", tmp_path / "o", "-j", 0), "--jobs")
    _one_clean_line(dcsim_cli("sweep", sweep, "--out", tmp_path / "o", "--jobs", "many"), "'many' is not a valid")
    _one_clean_line(dcsim_cli("run", spec), "Missing option '--out'")
    _one_clean_line(dcsim_cli("run", spec, "--out", tmp_path / "o", "--flows", 0), "--flows: must be at least 1")
    _one_clean_line(dcsim_cli("run", sweep, "--out", tmp_path / "o"), "is a sweep file")
    _one_clean_line(dcsim_cli("sweep", spec, "--out", tmp_path / "o"), "is a spec file, not a sweep file")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "sets,needle",
    [
        (["workload.lod=0.5"], "workload.lod: unknown field (did you mean 'load'?)"),
        (["wrkload.load=0.5"], "wrkload: unknown field (did you mean 'workload'?)"),
        (["topology.kind=fat-tree"], "unknown topology 'fat-tree' (did you mean 'fat_tree'?)"),
        (["routing.load_balancing=ecpm"], "got 'ecpm' (did you mean 'ecmp'?)"),
        (["topology.levaes=3"], "topology.levaes: unknown field (did you mean 'leaves'?)"),
    ],
)
def test_unknown_names_suggest_the_closest(tmp_path, sets, needle):
    args = [a for s in sets for a in ("--set", s)]
    _one_clean_line(dcsim_cli("run", ROOT / "examples" / "leaf_spine_web_search.toml", "--out", tmp_path / "o", *args),
                    needle)


def test_a_kind_change_applies_first_and_says_what_it_dropped(tmp_path):
    spec = ROOT / "examples" / "leaf_spine_web_search.toml"
    for order in (["topology.k=4", "topology.kind=fat_tree"], ["topology.kind=fat_tree", "topology.k=4"]):
        out = tmp_path / "-".join(order)
        r = dcsim_cli("run", spec, "--out", out, "--flows", 20, "-q", *[a for s in order for a in ("--set", s)])
        assert r.returncode == 0, r.stderr
        s = json.loads((out / "summary.json").read_text())
        assert s["spec"]["topology"] == {"kind": "fat_tree", "k": 4, "host_rate_gbps": 10.0, "fabric_rate_gbps": 10.0,
                                         "host_link_delay_us": 2.7, "fabric_link_delay_us": 0.2}
        assert "topology.kind = 'fat_tree' replaces 'leaf_spine': dropped topology.leaves, topology.spines" in r.stderr
    # a scheme section without `name` is the default scheme: naming it drops nothing
    r = dcsim_cli("run", spec, "--out", tmp_path / "same", "--flows", 20, "-q", "--set", "scheme.name=tcp")
    assert r.returncode == 0 and "dropped" not in r.stderr


def test_flows_takes_the_first_flows_of_a_trace_and_the_summary_says_so(tmp_path):
    spec = ROOT / "examples" / "star_trace.toml"
    r = dcsim_cli("run", spec, "--out", tmp_path / "three", "--flows", 3, "-q")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "three" / "summary.json").read_text())
    flows = pd.read_parquet(tmp_path / "three" / "flows.parquet")
    assert s["flows_total"] == 3 == len(flows) and s["spec"]["workload"]["flows"] == 3
    assert sorted(flows.flow_id) == [0, 1, 2]
    r = dcsim_cli("run", spec, "--out", tmp_path / "all", "-q")
    s = json.loads((tmp_path / "all" / "summary.json").read_text())
    assert s["flows_total"] == 9 and s["spec"]["workload"]["flows"] is None
    # more than the trace holds: all of it, and the summary says how many ran
    r = dcsim_cli("run", spec, "--out", tmp_path / "more", "--flows", 100, "-q")
    assert json.loads((tmp_path / "more" / "summary.json").read_text())["flows_total"] == 9


def test_unfinished_flows_are_rows_of_flows_parquet(tmp_path):
    spec = ROOT / "examples" / "leaf_spine_web_search.toml"
    r = dcsim_cli("run", spec, "--out", tmp_path / "o", "--flows", 300, "--set", "run.stop_time_s=0.003")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    left = flows[flows.finish_s.isna()]
    assert s["status"] == "stopped" and len(left) == s["counters"]["flows_started"] - s["flows_finished"] > 0
    # (a flow whose last ACK is on its way back holds all its bytes at the receiver)
    assert (left.delivered_bytes <= left.size_bytes).all() and (left.start_s < 0.003).all()
    never = s["flows_total"] - s["counters"]["flows_started"]
    assert never > 0
    assert f"flows.parquet lists the {len(left)} that started with a NaN slowdown ({never} never started)" in r.stderr
    started = s["counters"]["flows_started"]
    assert f"{s['flows_finished']:,} of 300 flows finished ({started:,} started)" in r.stdout.splitlines()[0]
    # bins that leave sizes out say so
    r = dcsim_cli("show", tmp_path / "o", "--bins", "0,10kb,1mb")
    assert r.returncode == 0 and "--bins covers the sizes (0B, 1MB] only" in r.stderr, r.stderr
    assert "unfinished" in r.stdout.splitlines()[1]  # the table's column
    assert s["stats"]["by_size"][-1]["unfinished"] == len(left)


def test_sampling_writes_the_tables_asked_for(tmp_path):
    # run.sample_us alone samples the queues to the hosts; flows' progress
    # only with run.sample_flows, switch buffers only with shared buffers
    spec = _spec(tmp_path, BASE)
    r = dcsim_cli("run", spec, "--out", tmp_path / "q", "--flows", "50", "-q", "--set", "run.sample_us=20")
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    assert sorted(p.name for p in (tmp_path / "q").glob("*.parquet")) == ["flows.parquet", "queues.parquet"]
    assert len(pd.read_parquet(tmp_path / "q" / "queues.parquet")) > 0
    r = dcsim_cli("run", spec, "--out", tmp_path / "f", "--flows", "50", "-q", "--set", "run.sample_us=20",
                  "--set", "run.sample_flows=true", "--set", "run.sample_queues=none")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "f").glob("*.parquet")) == ["flow_samples.parquet", "flows.parquet"]
    assert len(pd.read_parquet(tmp_path / "f" / "flow_samples.parquet")) > 0
    # nothing to sample: said, and no empty tables
    r = dcsim_cli("run", spec, "--out", tmp_path / "n", "--flows", "50", "-q", "--set", "run.sample_us=20",
                  "--set", "run.sample_queues=none")
    assert r.returncode == 0 and "run.sample_us records nothing here" in r.stderr, r.stderr
    assert [p.name for p in (tmp_path / "n").glob("*.parquet")] == ["flows.parquet"]


def test_python_api_takes_specs_as_dicts_or_files_and_warns(tmp_path):
    import warnings

    from dcsim.runner import run_sweep
    from dcsim.sweep import Sweep

    # submodules the docs name resolve on a plain import
    r = subprocess.run([sys.executable, "-c", "import dcsim; print(dcsim.metrics.settling.__name__)"],
                       capture_output=True, text=True)
    assert r.stdout.strip() == "settling", r.stderr
    # the user's own warning filters win over dcsim's "always"
    stopped = ("import dcsim; dcsim.run({'topology': {'kind': 'star'}, 'workload': {'flows': 3}, "
               "'run': {'stop_time_s': 1e-6}})")
    r = subprocess.run([sys.executable, "-c", "import warnings; warnings.simplefilter('ignore'); " + stopped],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "did not finish" not in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", stopped], capture_output=True, text=True)
    assert r.returncode == 1 and "DcsimWarning: 3 of 3 flows did not finish" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-c", stopped], capture_output=True, text=True)
    assert "did not finish" in r.stderr
    # a whole section given to with_overrides changes only what it names
    s = dcsim.spec_from_dict({"topology": {"kind": "star"}, "workload": {"cdf": "data_mining", "flows": 100}})
    s2 = s.with_overrides(workload={"load": 0.3})
    assert (s2.workload.cdf, s2.workload.flows, s2.workload.load) == ("data_mining", 100, 0.3)
    # ... down through sub-tables
    q = dcsim.spec_from_dict({"workload": {"queries": {"per_s": 3, "count": 7, "response_bytes": 2000}}})
    q2 = q.with_overrides(workload={"queries": {"per_s": 5}}).workload.queries
    assert (q2.per_s, q2.count, q2.response_bytes) == (5, 7, 2000)
    # model_validate stays pydantic's (its structured errors), and refuses
    # a string for a number in any mode (base.Model)
    with pytest.raises(Exception, match="Input should be an integer, got '3'"):
        dcsim.Spec.model_validate({"seed": "3"}, strict=True)
    # a new scheme drops the old one's settings: said, naming them
    dctcp = dcsim.spec_from_dict({"scheme": {"name": "dctcp", "ecn_threshold_bytes": 50_000}})
    with pytest.warns(dcsim.DcsimWarning, match=r"^scheme.name = 'pias' replaces 'dctcp': dropped "
                                                r"scheme.ecn_threshold_bytes \(the new scheme starts"):
        dctcp.with_overrides(**{"workload.load": 0.3}).with_overrides(**{"scheme.name": "pias"})
    # Spec(**sections) fails as spec_from_dict does
    with pytest.raises(dcsim.SpecError, match=r"^workload.lod: unknown field \(did you mean 'load'\?\)$"):
        dcsim.Spec(workload={"lod": 0.3})
    with pytest.raises(TypeError, match="a spec is a dcsim.Spec, a dict of sections or a TOML file's path"):
        dcsim.run(42)
    # a setting against the scheme warns, as the command line does
    with pytest.warns(dcsim.DcsimWarning, match="scheme hpcc recovers from reordering"):
        dcsim.run({"topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2},
                   "scheme": {"name": "hpcc"}, "routing": {"load_balancing": "round_robin"},
                   "workload": {"flows": 20}})
    # a TOML file's path; run_to_dir takes a dict
    path = _spec(tmp_path, BASE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn about
        df = dcsim.run(path)
        dcsim.run_to_dir({"topology": {"kind": "star", "hosts": 4}, "workload": {"flows": 10}}, tmp_path / "d")
    # the summary rides along with derived frames, shared, not copied
    assert df[df.size_bytes > 0].attrs["summary"] is df.attrs["summary"]
    back = dcsim.read_flows(tmp_path / "d")
    assert back.attrs["summary"]["flows_finished"] == 10 and len(back) == 10
    # a sweep: a Spec as its base; points that leave flows unfinished are
    # named in one warning
    sw = Sweep("u", s.with_overrides(**{"run.stop_time_s": 0.0002}), {"workload.load": [0.3, 0.5]})
    with pytest.warns(dcsim.DcsimWarning, match=r"sweep u: 2 point\(s\) left flows unfinished"):
        result = run_sweep(sw, tmp_path / "sw", jobs=1, quiet=True)
    assert sorted(result.unfinished) == sorted(p.key for p in result.points) and "2 points, 2 run" in repr(result)
    # ... not once per point: a point's run (in a worker) says nothing itself
    from dcsim.runner import simulate_point

    with warnings.catch_warnings():
        warnings.simplefilter("error", dcsim.DcsimWarning)
        _, summary = simulate_point(result.points[0].spec.model_dump_json())
    assert json.loads(summary)["unfinished_flows"] > 0
    with pytest.raises(dcsim.SpecError, match="a sweep's directory: read_sweep"):
        dcsim.read_flows(tmp_path / "sw")


@pytest.mark.parametrize("args, heavy", [
    (["--help"], ("numpy", "pandas", "pyarrow", "pydantic", "dcsim._core")),
    (["list"], ("numpy", "pandas", "pyarrow", "pydantic", "dcsim._core")),
    (["run", "SPEC", "--out", "OUT"], ("pandas", "matplotlib")),
])
def test_commands_import_only_what_they_use(args, heavy, tmp_path):
    # Start-up time is mostly imports (docs/performance.md, "Command-line
    # start-up"; `python -m dcsim.bench_cli` times it): pandas alone takes
    # about 0.3 s, and a run writes its tables and statistics without it.
    spec = tmp_path / "tiny.toml"
    spec.write_text("[workload]\nflows = 20\n")
    args = [{"SPEC": str(spec), "OUT": str(tmp_path / "out")}.get(a, a) for a in args]
    code = ("import sys\nsys.argv = ['dcsim', *sys.argv[1:]]\nfrom dcsim.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('IMPORTED', ' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"{heavy!r} or m in {heavy!r})))")
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    imported = r.stdout.rsplit("IMPORTED", 1)[1].split()
    assert [m for m in imported if m in heavy] == []
    if args[0] == "run":
        assert (tmp_path / "out" / "summary.json").is_file()


def test_spec_models_keep_their_annotations_evaluated():
    # (string annotations cost every spec-loading command 40 ms: dcsim/spec/__init__.py)
    spec_dir = ROOT / "python" / "dcsim" / "spec"
    lazy = [str(p.relative_to(spec_dir)) for p in sorted(spec_dir.rglob("*.py"))
            if "from __future__ import annotations" in p.read_text()]
    assert lazy == []


def test_a_run_written_without_pandas_reads_back_as_the_dataframe_run(tmp_path):
    # `dcsim run` (run_to_dir) keeps its tables as numpy columns and writes
    # them through pyarrow's buffers; `dcsim.run_all` returns DataFrames.
    # Same spec, same tables and statistics: a stopped run (NaN for the
    # unfinished flows, stored as null), with incasts (their own column)
    # and samples.
    import pyarrow.parquet as pq

    from dcsim.metrics import summarize
    from dcsim.simulate import run_to_dir

    spec = {"workload": {"flows": 400, "incasts": {"senders": 6, "total_bytes": 600_000, "load_share": 0.1}},
            "run": {"stop_time_s": 0.004, "sample_us": 50.0}}
    mem = dcsim.run_all(spec)
    summary = run_to_dir(spec, tmp_path / "o", quiet=True, warn_unfinished=False)
    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    assert mem.flows.slowdown.isna().sum() > 0 and "incast" in flows
    pd.testing.assert_frame_equal(flows, mem.flows)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "o" / "queues.parquet"), mem.queues)
    assert pq.read_table(tmp_path / "o" / "flows.parquet").column("slowdown").null_count == \
        int(mem.flows.slowdown.isna().sum())
    assert summary["stats"] == mem.summary["stats"]
    # and the summary of the DataFrame is the summary of the columns
    assert summarize(flows, summary) == summary["stats"]
