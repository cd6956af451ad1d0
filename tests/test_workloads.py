"""Flow-size CDFs: parsing, the shipped tables, and the engine's sampler."""

import json
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import dcsim
from dcsim.errors import SpecError
from dcsim.spec import Spec
from dcsim.workloads import SHIPPED, load_cdf, parse_cdf


def test_shipped_means_match_published_tables():
    # Linear-interpolation means of the pFabric/PIAS tables (pFabric §5.1
    # quotes 1.6 MB and 7.4 MB; PIAS's scripts use 1138 x 1460 and 5117 x 1460 B).
    assert load_cdf("web_search").mean() == pytest.approx(1_665_831, rel=1e-3)
    assert load_cdf("data_mining").mean() == pytest.approx(7_470_236, rel=2e-3)
    assert set(SHIPPED) >= {"web_search", "data_mining"}


def test_percent_cdf_and_header_row():
    c = parse_cdf("size cdf\n0 0\n1000 50\n2000 100\n", "t")
    assert c.probs == (0.0, 0.5, 1.0)


def test_engine_samples_the_cdf_it_was_given():
    # The engine's sizes follow the table: compare empirical quantiles.
    spec = Spec.model_validate({"workload": {"cdf": "web_search", "flows": 100_000}, "seed": 4})
    sizes = dcsim.generated_flows(spec).size_bytes.to_numpy()
    cdf = load_cdf("web_search")
    for s, p in zip(cdf.sizes, cdf.probs):
        if 0 < p < 1:
            assert (sizes <= s).mean() == pytest.approx(p, abs=0.005)
    assert sizes.min() == 8760 and sizes.max() <= 29_200_000


def test_python_and_engine_quantiles_agree():
    # The Python inverse CDF (used for the load's mean size) and the
    # engine's sampler are the same function: the engine's empirical
    # quantiles sit between Python's quantiles at p - 0.01 and p + 0.01.
    spec = Spec.model_validate({"workload": {"cdf": "data_mining", "flows": 20_000}, "seed": 9})
    sizes = np.sort(dcsim.generated_flows(spec).size_bytes.to_numpy())
    cdf = load_cdf("data_mining")
    for p in (0.1, 0.55, 0.65, 0.75, 0.85, 0.92, 0.97):
        emp = sizes[int(p * len(sizes))]
        lo, hi = cdf.quantile(np.array([p - 0.01, p + 0.01]))
        assert lo <= emp <= hi, (p, lo, emp, hi)
    assert np.median(sizes) == 1460


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 10**7), st.floats(0, 1)), min_size=1, max_size=12))
def test_valid_tables_parse_and_quantiles_stay_in_range(rows):
    sizes = sorted(r[0] for r in rows)
    probs = sorted(r[1] for r in rows)
    probs[-1] = 1.0
    text = "\n".join(f"{s} {p}" for s, p in zip(sizes, probs))
    c = parse_cdf(text, "h")
    q = c.quantile(np.linspace(0, 0.999999, 101))
    assert (np.diff(q) >= 0).all()
    assert q.min() >= max(1, min(sizes) - 1) and q.max() <= max(sizes)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 10**7), st.floats(0, 1)), min_size=1, max_size=12),
       st.sampled_from([1, 7, 1460]))
def test_the_mean_sizes_are_the_quantiles_to_the_bit(rows, quantum):
    # The means behind every arrival rate take the grid's sizes a CDF
    # segment at a time (workloads._grid_sizes): the same bits as the
    # vectorized inverse CDF, or the arrival times of every run move.
    from dcsim.workloads import _grid, _grid_sizes

    sizes = sorted(r[0] for r in rows)
    probs = sorted(r[1] for r in rows)
    probs[-1] = 1.0
    c = parse_cdf("\n".join(f"{s} {p}" for s, p in zip(sizes, probs)), "h")
    assert _grid_sizes(c, quantum).tobytes() == c.quantile(_grid(), quantum).tobytes()


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_mean_wire_bytes_is_the_exactly_rounded_mean(name):
    # computed another way: the grid's sizes by the vectorized inverse
    # CDF, headers added out of place, and math.fsum's exactly rounded sum
    import math

    from dcsim.workloads import _grid

    cdf = load_cdf(name)
    for mss, header, quantum in ((1460, 40, 1), (1000, 48, 1), (1460, 40, 1460)):
        s = cdf.quantile(_grid(), quantum)
        expected = math.fsum((s + np.ceil(s / mss) * header).tolist()) / len(s)
        assert cdf.mean_wire_bytes(mss, header, quantum) == expected
    assert cdf.mean() == math.fsum(cdf.quantile(_grid()).tolist()) / len(_grid())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1000), st.floats(0, 1)), min_size=2, max_size=8))
def test_non_monotone_tables_are_rejected(rows):
    sizes = [r[0] for r in rows]
    probs = [r[1] for r in rows]
    monotone = all(b >= a for a, b in zip(sizes, sizes[1:])) and all(b >= a for a, b in zip(probs, probs[1:]))
    text = "\n".join(f"{s} {p}" for s, p in rows)
    if monotone and abs(probs[-1] - 1) < 1e-6 and sizes[-1] > 0:
        parse_cdf(text, "h")
    else:
        with pytest.raises(SpecError):
            parse_cdf(text, "h")


def test_ns2_three_column_packet_tables_read_as_they_are(tmp_path):
    # pFabric/PIAS ship web search as ns-2 'value weight cdf' rows in packets
    rows = [(6, 0), (6, 0.15), (13, 0.2), (19, 0.3), (33, 0.4), (53, 0.53), (133, 0.6), (667, 0.7),
            (1333, 0.8), (3333, 0.9), (6667, 0.97), (20000, 1)]
    f = tmp_path / "CDF_dctcp.tcl"
    f.write_text("".join(f"{v} 1 {p}\n" for v, p in rows))
    mine = load_cdf(str(f), unit=1460)
    assert mine.sizes == load_cdf("web_search").sizes
    assert mine.probs == load_cdf("web_search").probs
    spec = Spec.model_validate({"workload": {"cdf": str(f), "cdf_unit_bytes": 1460, "flows": 2000}, "seed": 3})
    ours = dcsim.generated_flows(spec)
    ref = dcsim.generated_flows(spec.with_overrides(**{"workload.cdf": "web_search", "workload.cdf_unit_bytes": 1}))
    assert ours.equals(ref)


def test_hpcc_flow_files_read_as_they_are(tmp_path):
    f = tmp_path / "flow.txt"
    f.write_text("3\n2 5 3 100 20000 2.000001\n1 0 3 100 1000 2.0\n4 6 3 100 500000 2.0005\n")
    spec = Spec.model_validate({"topology": {"kind": "star", "hosts": 8},
                                "workload": {"matrix": "trace", "trace": str(f), "trace_format": "hpcc"}})
    df = dcsim.run(spec)
    assert sorted(zip(df.src, df.dst, df.size_bytes)) == [(1, 0, 1000), (2, 5, 20000), (4, 6, 500000)]
    assert df.start_s.min() == pytest.approx(2.0)
    f.write_text("4\n2 5 3 100 20000 2.000001\n")
    with pytest.raises(SpecError, match="declares 4 flows but the file has 1"):
        dcsim.run(spec)
    f.write_text("2 5 3 100 20000 2.000001\n")
    with pytest.raises(SpecError, match="starts with the number of flows"):
        dcsim.run(spec)


def test_heterogeneous_matrix_pias_fig19():
    # PIAS Fig. 19: web search sizes from host i to j when i < j, data
    # mining when i > j, every ordered pair carrying the same bytes, so the
    # load of every host is the spec's
    from dcsim.simulate import generated_flows

    spec = Spec.model_validate({"workload": {"matrix": "heterogeneous", "cdf": "web_search",
                                             "reverse_cdf": "data_mining", "load": 0.5, "flows": 200_000}})
    f = generated_flows(spec)
    fwd, rev = f[f.src < f.dst], f[f.src > f.dst]
    assert len(fwd) + len(rev) == len(f)
    # the sizes follow the direction (means 1.67 MB and 7.47 MB)
    assert fwd.size_bytes.mean() == pytest.approx(1.67e6, rel=0.05)
    assert rev.size_bytes.mean() == pytest.approx(7.47e6, rel=0.15)
    # equal bytes both ways: about 4.5 times as many forward flows
    assert fwd.size_bytes.sum() == pytest.approx(rev.size_bytes.sum(), rel=0.15)
    # and the offered load is the spec's
    span = f.start_s.max() - f.start_s.min()
    wire = (f.size_bytes + np.ceil(f.size_bytes / 1460) * 40).sum() * 8
    assert wire / span / (144 * 10e9) == pytest.approx(0.5, rel=0.1)
    with pytest.raises(ValueError, match="needs workload.reverse_cdf"):
        Spec.model_validate({"workload": {"matrix": "heterogeneous"}})


def _query_spec(flows=300, load=0.5, **queries):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": 16, "rate_gbps": 1.0, "link_delay_us": 33.75},
        "scheme": {"name": "dctcp", "init_cwnd_pkts": 10},
        "workload": {"matrix": "many_to_one", "dst": 0, "load": load, "flows": flows,
                     "queries": {"per_s": 20, **queries}},
        "run": {"fct_at": "receiver"}})


def test_queries_on_top_of_the_background_pias_figs_8_9():
    # PIAS §V-B: every query asks the 15 other hosts for 1 KB at once, at a
    # fixed 20 per second; the background flows are the ones the spec
    # would start without queries, in the same order
    from dcsim.metrics import query_times
    from dcsim.simulate import generated_flows
    from dcsim.spec.experiment import query_ids

    spec = _query_spec()
    plain = spec.model_copy(update={"workload": spec.workload.model_copy(update={"queries": None})})
    bg, flows = generated_flows(plain), generated_flows(spec)
    ids = query_ids(spec)
    assert len(ids) == len(flows) and (ids == -1).sum() == len(bg)
    assert flows[ids == -1].reset_index(drop=True).equals(bg)
    q = flows[ids >= 0].assign(query=ids[ids >= 0])
    n = q["query"].max() + 1
    assert n == int(bg.start_s.max() * 20)  # as many as fit before the last background flow
    assert (q.groupby("query").size() == 15).all() and (q.dst == 0).all() and (q.size_bytes == 1024).all()
    assert q.groupby("query").start_s.first().to_numpy() == pytest.approx(np.arange(1, n + 1) / 20)
    assert sorted(q[q["query"] == 0].src) == list(range(1, 16))
    # merged by time
    assert flows.start_s.is_monotonic_increasing
    # an answer set on an idle network: 15 answers of 1,064 B on the wire
    # queue at the client's link: 2 link delays and 16 serializations
    idle = _query_spec(flows=1, load=0.01, count=1, per_s=1e4)
    df = dcsim.run(idle)
    qt = query_times(df, idle)
    assert len(qt) == 1 and qt.answers.iloc[0] == 15
    assert qt.qct_s.iloc[0] == pytest.approx(2 * 33.75e-6 + 16 * 1064 * 8 / 1e9, rel=1e-6)
    # the run's summary has them too (`dcsim run` prints them)
    q = df.attrs["summary"]["stats"]["queries"]
    assert q["count"] == 1 and q["unfinished"] == 0 and q["mean_us"] == pytest.approx(qt.qct_s.iloc[0] * 1e6)


def test_poisson_queries_are_deterministic_and_checked():
    from dcsim.spec.experiment import query_ids

    a, b = _query_spec(spacing="poisson"), _query_spec(spacing="poisson")
    assert (query_ids(a) == query_ids(b)).all()
    with pytest.raises(ValueError, match="on top of a generated workload"):
        Spec.model_validate({"workload": {"matrix": "trace", "trace": "x.txt", "queries": {}}})
    with pytest.raises(SpecError, match="workload.dst"):
        dcsim.run(Spec.model_validate({"topology": {"kind": "star", "hosts": 4},
                                       "workload": {"dst": 9, "queries": {}}}))


def _bulk_spec(flows=2, **pings):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": 3, "rate_gbps": 10.0, "link_delay_us": 33.75},
        "scheme": {"name": "pias", "queues": 2, "thresholds": [100_000], "ecn": False, "max_cwnd_pkts": 100,
                   "host_queue_bytes": "unlimited"},
        "workload": {"matrix": "bulk", "src": 1, "dst": 2, "flows": flows, "flow_bytes": 10**10,
                     "pings": {"src": 1, "dst": 0, "per_s": 1000, **pings}},
        "run": {"stop_time_s": 0.02, "fct_at": "sender"}})


def test_bulk_flows_and_pings_pias_fig10():
    # PIAS Fig. 10: long-lived flows from host 1 to 2, a ping from host 1
    # to 0 every ms until the stop time; a ping's RTT is its FCT
    from dcsim.metrics import ping_times
    from dcsim.simulate import generated_flows
    from dcsim.spec.experiment import ping_ids

    spec = _bulk_spec()
    flows, ids = generated_flows(spec), ping_ids(spec)
    bulk, pings = flows[ids == -1], flows[ids >= 0]
    assert len(bulk) == 2 and (bulk.src == 1).all() and (bulk.dst == 2).all() and (bulk.start_s == 0).all()
    assert len(pings) == 19 and (pings.dst == 0).all() and (pings.size_bytes == 64).all()
    assert pings.start_s.to_numpy() == pytest.approx(np.arange(1, 20) / 1000)  # before the stop
    df = dcsim.run(spec)
    rtt = ping_times(df, spec).rtt_s
    # in the top queue at the sender's NIC a ping waits at most for the one
    # packet in service: 4 link delays, the ping's and its ACK's two
    # serializations each, plus less than one 1,500 B packet time
    idle = 4 * 33.75e-6 + 2 * (104 + 40) * 8 / 10e9
    assert len(rtt) == 19 and (rtt >= idle - 1e-12).all() and (rtt < idle + 1500 * 8 / 10e9).all()
    p = df.attrs["summary"]["stats"]["pings"]
    assert p["count"] == 19 and p["unfinished"] == 0 and p["p99_us"] == pytest.approx(np.percentile(rtt, 99) * 1e6)
    # with one queue the pings wait behind the flows' windows in the NIC
    one = spec.model_copy(update={"scheme": spec.scheme.model_copy(update={"queues": 1, "thresholds": []})})
    slow = ping_times(dcsim.run(one), one).rtt_s
    assert slow.iloc[-5:].mean() > idle + 100e-6


def test_bulk_and_pings_are_checked():
    with pytest.raises(ValueError, match="needs workload.flow_bytes"):
        Spec.model_validate({"workload": {"matrix": "bulk"}})
    with pytest.raises(ValueError, match="src and dst are the same host"):
        Spec.model_validate({"workload": {"pings": {"src": 2, "dst": 2}}})
    with pytest.raises(SpecError, match="workload.pings.dst: 7"):
        dcsim.run(_bulk_spec(dst=7))


def test_query_statistics_when_results_stream_to_disk(tmp_path):
    # `dcsim run` streams flows to Parquet and keeps only what the
    # statistics need: with queries, their times too
    import json

    from dcsim.simulate import run_to_dir

    spec = _query_spec(flows=50, count=5)
    run_to_dir(spec, tmp_path / "out", quiet=True)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    q = summary["stats"]["queries"]
    assert q["count"] == 5 and q["unfinished"] == 0 and q["mean_us"] >= 2 * 33.75 + 16 * 1064 * 8 / 1e3 - 1e-6
    # `dcsim show --bins` rebins the slowdown and keeps them
    from dcsim.show import stats_of

    rebinned = stats_of(tmp_path / "out", summary, [0, 10_000, float("inf")])
    assert rebinned["queries"] == q and len(rebinned["by_size"]) == 3


def test_extra_flows_are_checked_and_bounded(tmp_path):
    from dcsim.simulate import generated_flows
    from dcsim.spec.experiment import ping_ids, query_ids

    # queries end at the client, pings at the sender; no deadlines with them
    with pytest.raises(SpecError, match='run.fct_at = "receiver"'):
        dcsim.run(_query_spec().model_copy(update={"run": Spec().run.model_copy(update={"fct_at": "sender"})}))
    with pytest.raises(SpecError, match='run.fct_at = "sender"'):
        dcsim.run(_bulk_spec().model_copy(update={"run": Spec().run.model_copy(update={"fct_at": "receiver"})}))
    with pytest.raises(ValueError, match="do not combine with deadlines"):
        Spec.model_validate({"workload": {"queries": {}, "deadline_mean_us": 100}})
    # bulk starts one flow unless told otherwise; a ping count is a count
    one = Spec.model_validate({"workload": {"matrix": "bulk", "flow_bytes": 10**6}})
    assert len(generated_flows(one)) == 1
    assert (ping_ids(_bulk_spec(count=7)) >= 0).sum() == 7
    # by default queries stop with the run as well as with the workload
    stopped = _query_spec().model_copy(update={"run": _query_spec().run.model_copy(update={"stop_time_s": 1.0})})
    assert query_ids(stopped).max() + 1 == 19  # at 50 ms, 100 ms, ..., 950 ms
    # dynamic thresholds too small for a fraction of at most 1000 in the denominator
    bad = _bulk_spec().model_copy(update={"scheme": _bulk_spec().scheme.model_copy(update={"buffer_alpha": 1e-4})})
    with pytest.raises(SpecError, match="buffer_alpha"):
        dcsim.run(bad)


def test_threshold_cdf_file_beside_the_spec(tmp_path):
    # a scheme.threshold_cdf file is read relative to the spec file, and its
    # content is part of a sweep point's identity
    from dcsim.spec.experiment import load_spec
    from dcsim.spec.experiment import engine_config
    from dcsim.sweep import point_key

    (tmp_path / "sizes.txt").write_text("1000 0\n1000 0.5\n2000000 1\n")
    (tmp_path / "s.toml").write_text('[scheme]\nname = "pias"\nqueues = 2\nthresholds = "pias"\n'
                                     'threshold_cdf = "sizes.txt"\n')
    spec = load_spec(tmp_path / "s.toml")
    assert spec.scheme.threshold_cdf == str(tmp_path / "sizes.txt")
    assert engine_config(spec)["transport"]["prio_thresholds"][0] <= 2_000_000
    key = point_key(spec)
    (tmp_path / "sizes.txt").write_text("1000 0\n1000 0.9\n2000000 1\n")
    assert point_key(spec) != key


def test_lognormal_arrivals_bfc():
    # BFC §6.2.1: lognormal inter-arrivals (sigma 2) at the same load as
    # Poisson; Poisson stays bit-identical when the field is left alone
    from dcsim.simulate import generated_flows

    base = {"workload": {"load": 0.5, "flows": 50_000}}
    poisson = generated_flows(Spec.model_validate(base))
    same = generated_flows(Spec.model_validate({"workload": {**base["workload"], "arrivals": "poisson"}}))
    assert poisson.equals(same)
    logn = generated_flows(Spec.model_validate({"workload": {**base["workload"], "arrivals": "lognormal"}}))
    gp, gl = np.diff(poisson.start_s), np.diff(logn.start_s)
    assert gl.mean() == pytest.approx(gp.mean(), rel=0.15)  # the same offered load (a heavy-tailed estimate)
    assert np.std(np.log(gl[gl > 0])) == pytest.approx(2.0, abs=0.05)
    assert (logn.size_bytes == poisson.size_bytes).all()  # sizes from their own stream
    with pytest.raises(ValueError, match="applies to generated flows"):
        Spec.model_validate({"workload": {"matrix": "trace", "trace": "t.txt", "arrivals": "lognormal"}})


def test_incast_mix_on_top_of_the_background_bfc():
    # BFC §6.2.1: every 500 us (5% of 8 x 8 x 100 Gb/s in 20 MB incasts) a
    # random host receives 200 KB from each of 100 random others; the
    # background flows are those of the spec without incasts
    from dcsim._core import sample_flows
    from dcsim.spec.experiment import engine_config, incast_ids

    base = {"topology": {"kind": "leaf_spine", "leaves": 8, "spines": 8, "hosts_per_leaf": 16,
                         "host_rate_gbps": 100.0, "spine_rate_gbps": 100.0, "host_link_delay_us": 1.0,
                         "spine_link_delay_us": 1.0},
            "routing": {"load_balancing": "ecmp"}, "scheme": {"name": "bfc"},
            "workload": {"cdf": "fb_hadoop", "load": 0.55, "load_basis": "core", "flows": 3000, "incasts": {}}}
    spec = Spec.model_validate(base)
    flows = engine_config(spec)["workload"]["flows"]
    ids = incast_ids(spec)
    assert len(ids) == len(flows)
    inc = [f for f, i in zip(flows, ids) if i >= 0]
    plain = Spec.model_validate({**base, "workload": {**base["workload"], "incasts": None}})
    bg = sample_flows(json.dumps(engine_config(plain)))
    assert [f for f, i in zip(flows, ids) if i < 0] == [list(x) for x in zip(bg["start_ps"], bg["src"], bg["dst"],
                                                                           bg["size_bytes"])]
    n = max(ids) + 1
    assert len(inc) == 100 * n and n >= 1
    for k in range(n):
        fk = [f for f, i in zip(flows, ids) if i == k]
        starts, srcs, dsts, sizes = zip(*fk)
        assert len(set(starts)) == 1 and starts[0] == 500_000_000 * (k + 1)
        assert len(set(dsts)) == 1 and len(set(srcs)) == 100 and dsts[0] not in srcs
        assert sum(sizes) == 20_000_000
    # a degree beyond the other hosts (BFC Fig. 13: up to 2,000 on 128):
    # every other host sends, in turn, some one flow more than others
    deep = Spec.model_validate({**base, "workload": {**base["workload"], "incasts": {"senders": 300}}})
    flows, ids = engine_config(deep)["workload"]["flows"], incast_ids(deep)
    first = [f for f, i in zip(flows, ids) if i == 0]
    srcs = [f[1] for f in first]
    per_src = {h: srcs.count(h) for h in set(srcs)}
    assert len(first) == 300 and len(per_src) == 127 and first[0][2] not in per_src
    assert sorted(set(per_src.values())) == [2, 3] and sum(f[3] for f in first) == 300 * (20_000_000 // 300)
    with pytest.raises((SpecError, ValueError), match="incasts"):
        Spec.model_validate({**base, "workload": {**base["workload"], "matrix": "bulk"}})


def ns2_scripts_spec(**workload):
    return Spec.model_validate({
        "topology": {"kind": "leaf_spine"},
        "scheme": {"name": "tcp"},
        "workload": {"cdf": "web_search", "load": 0.8, "size_quantum_bytes": 1460, "arrivals": "ns2_scripts",
                     "rate_mean_bytes": 1_661_480, **workload},
    })


def test_ns2_script_arrivals_reproduce_an_ns2_run_flow_for_flow():
    # The scripts' generator, draw for draw: flow starts logged by ns-2
    # itself, the first 200 and every 25th up to the 9,550th (a pair's
    # fifth arrival and later), to the last bit of ns-2's clock
    from pathlib import Path
    from dcsim.spec.experiment import engine_config

    ref = np.loadtxt(Path(__file__).parent / "data" / "ns2_starts_web_search_0.8.txt", comments="#")
    idx = ref[:, 0].astype(int)
    flows = np.array(engine_config(ns2_scripts_spec(flows=idx[-1] + 1))["workload"]["flows"], dtype=float)[idx]
    assert np.abs(flows[:, 0] * 1e-12 - (ref[:, 1] - 1.0)).max() < 1e-12  # the engine counts picoseconds
    assert (flows[:, 1:] == ref[:, 2:]).all()


def test_ns2_script_arrivals_keep_the_load_and_spread_sources_evenly():
    # Over 20,000 flows the scripts' generator offers the load it is asked
    # for, but its pairs' draws are not independent: each source starts
    # nearly the same number of flows, where independent Poisson arrivals
    # give counts with a standard deviation of about sqrt(mean)
    from dcsim.spec.experiment import engine_config

    n = 20_000
    f = np.array(engine_config(ns2_scripts_spec(flows=n))["workload"]["flows"], dtype=float)
    assert (np.diff(f[:, 0]) >= 0).all()
    span_s = f[-1, 0] * 1e-12
    offered = (f[:, 3] * 1500 / 1460).sum() * 8 / span_s / (144 * 10e9)
    assert 0.7 < offered < 0.9, offered
    per_src = np.bincount(f[:, 1].astype(int), minlength=144)
    assert per_src.std() < 0.5 * np.sqrt(per_src.mean()), per_src.std()
    g = dcsim.run(Spec.model_validate({"topology": {"kind": "leaf_spine"}, "scheme": {"name": "ideal"},
                                       "workload": {"cdf": "web_search", "load": 0.8, "flows": n}}))
    poisson_src = np.bincount(g.src, minlength=144)
    assert poisson_src.std() > 0.8 * np.sqrt(poisson_src.mean()), poisson_src.std()


def test_ns2_script_arrivals_are_checked():
    with pytest.raises(ValueError, match="all_to_all"):
        ns2_scripts_spec(matrix="many_to_one")
    with pytest.raises(ValueError, match="deadlines"):
        ns2_scripts_spec(deadline_mean_us=1000)
    with pytest.raises(ValueError, match="rate_mean_bytes"):
        ns2_scripts_spec(arrivals="poisson", matrix="heterogeneous", reverse_cdf="data_mining")
    from dcsim.spec.experiment import engine_config
    with pytest.raises(SpecError, match="size_quantum_bytes"):
        engine_config(ns2_scripts_spec(size_quantum_bytes=1))
    with pytest.raises(SpecError, match="whole packets"):
        engine_config(ns2_scripts_spec(cdf="google_rpc"))


def test_rack_local_keeps_its_share_of_flows_in_the_rack():
    # BFC App. A.5 (Fig. 22): half the flows stay in their source's rack
    # (a leaf's 16 hosts), the rest leave it; a topology without racks is refused
    from dcsim.errors import SpecError
    from dcsim.simulate import build, generated_flows

    spec = Spec.model_validate({"topology": {"kind": "leaf_spine", "leaves": 8, "spines": 8, "hosts_per_leaf": 16},
                                "workload": {"matrix": "rack_local", "flows": 20_000}})
    f = generated_flows(spec)
    local = (f.src // 16 == f.dst // 16).mean()
    assert abs(local - 0.5) < 0.015 and (f.src != f.dst).all()
    with pytest.raises(SpecError, match="rack_local"):
        build(Spec.model_validate({"topology": {"kind": "star", "hosts": 8}, "workload": {"matrix": "rack_local"}}))
