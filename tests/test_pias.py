"""PIAS, LAS and pFabric §6's priority queues at the scheme level: the
sender's tags and the switches' strict priority seen in flow times; and
the settings the PIAS and pFabric §6 figures hand the engine."""

import json

import pytest

from conftest import run_checked
from test_schemes import ports_after, spec_of
from dcsim import figures
from dcsim.errors import SpecError
from dcsim.simulate import build
from dcsim.spec import Spec
from dcsim.spec.experiment import engine_config as build_config
from dcsim.thresholds import optimize, paper
from dcsim.workloads import load_cdf


def test_pias_demotes_a_long_flow_below_a_new_short_one(write_trace):
    # A 5 MB flow from host 1 to host 0 has sent past the first threshold
    # (100 KB) when a 50 KB flow from host 2 to host 0 starts: with two
    # queues the short flow's packets go first at the last hop and it
    # finishes close to its time alone; with one queue (DCTCP alone) it
    # waits behind the long flow's backlog.
    trace = write_trace([(0, 1, 0, 5_000_000), (0.001, 2, 0, 50_000)])
    two = {"name": "pias", "queues": 2, "thresholds": [100_000]}
    one = {"name": "pias", "queues": 1, "thresholds": []}
    fast = run_checked(spec_of(trace, two)).set_index("flow_id")
    slow = run_checked(spec_of(trace, one)).set_index("flow_id")
    assert fast.slowdown[1] < 1.5
    assert slow.slowdown[1] > 1.5 * fast.slowdown[1]
    # the long flow is not starved: it finishes within 2% of its time
    # alone plus the short flow's
    assert fast.slowdown[0] == pytest.approx(slow.slowdown[0], rel=0.02)


def test_pias_tags_by_bytes_sent_where_prio_queues_use_the_size(write_trace):
    # A 5 MB flow has sent about 1.2 MB when a 2 MB flow joins it at the
    # same last hop; one threshold at 3 MB. PIAS knows no sizes: both have
    # sent less than 3 MB, share the top queue and the newcomer takes
    # about half the link. pFabric §6's queues know the sizes: the 2 MB
    # flow goes above the 5 MB one and finishes as if alone.
    trace = write_trace([(0, 1, 0, 5_000_000), (0.001, 2, 0, 2_000_000)])
    def newcomer(**scheme):
        return run_checked(spec_of(trace, scheme)).set_index("flow_id").loc[1]

    assert newcomer(name="pias", queues=2, thresholds=[3_000_000]).slowdown > 1.4
    assert newcomer(name="prio_queues", queues=2, thresholds=[3_000_000], transport="dctcp").slowdown < 1.01
    # With TCP the old flow fills the shared buffer; the newcomer's queue
    # still has its reserve (§6.2: 15 KB per queue), without which it
    # loses packets again and again
    kept = newcomer(name="prio_queues", queues=2, thresholds=[3_000_000])
    none = newcomer(name="prio_queues", queues=2, thresholds=[3_000_000], reserved_bytes=0)
    assert kept.slowdown < 1.3 and none.slowdown > 2 * kept.slowdown
    assert none.timeouts > 3 * max(kept.timeouts, 1)


def test_pias_marks_per_port_and_keeps_the_buffer(write_trace):
    # an incast into host 0 from 8 senders: the shared buffer never holds
    # more than its 360,000 B and the per-port threshold marks packets
    rows = [(0, s, 0, 1_000_000) for s in range(1, 9)]
    ports = ports_after(spec_of(write_trace(rows), {"name": "pias", "queues": 8, "thresholds": [10_000 * (i + 1)
                                                                                                 for i in range(7)]}))
    assert max(p["max_queue_bytes"] for p in ports) <= 360_000
    assert sum(p["marks"] for p in ports) > 0
    # strict-priority ports count arrivals and drops by class: 8 senders'
    # first 10 KB go to class 0, their last packets to class 7
    df = run_checked(spec_of(write_trace(rows, "again.txt"), {"name": "pias", "queues": 8, "thresholds": [
        10_000 * (i + 1) for i in range(7)]}))
    pl = df.attrs["summary"]["prio_losses"]
    assert pl["by_class"]
    last_hop = pl["arrivals"][pl["places"].index("last_hop")]
    assert all(n > 0 for n in last_hop[:8]) and not any(last_hop[8:])


def test_prio_queues_send_small_flows_first_by_size(write_trace):
    # pFabric §6: a flow's queue is fixed by its size: a 20 KB flow behind
    # a 5 MB one through the same NIC gets the high queue at once
    trace = write_trace([(0, 1, 0, 5_000_000), (0.001, 1, 0, 20_000)])
    pq = run_checked(spec_of(trace, {"name": "prio_queues", "queues": 2, "thresholds": [100_000]})).set_index(
        "flow_id")
    tcp = run_checked(spec_of(trace, "tcp")).set_index("flow_id")
    assert pq.slowdown[1] < 1.5
    assert tcp.slowdown[1] > 2 * pq.slowdown[1]


def test_las_is_pfabric_with_bytes_sent(write_trace):
    trace = write_trace([(0, 1, 0, 3_000_000), (0.0005, 2, 0, 3_000_000)])
    las = run_checked(spec_of(trace, "las")).set_index("flow_id")
    pf = run_checked(spec_of(trace, {"name": "pfabric", "priority": "bytes_sent"})).set_index("flow_id")
    assert las.finish_s.tolist() == pf.finish_s.tolist()
    # least attained service: the newcomer gets ahead until it has sent as
    # much as the first; they then share and finish close together
    assert abs(las.finish_s[0] - las.finish_s[1]) < 0.1 * las.finish_s.max()


def test_l2dct_lets_a_young_flow_take_more_than_dctcp_does(write_trace):
    # a 20 MB flow has sent past size_max when a 1 MB flow joins at the
    # same last hop: L2DCT cuts the old flow by alpha^0.125 / 2 and the
    # young one by alpha^2.5 / 2, so the young one finishes sooner than
    # under DCTCP, where both cut by alpha / 2
    trace = write_trace([(0, 1, 0, 20_000_000), (0.003, 2, 0, 1_000_000)])
    young = {}
    for name in ("l2dct", "dctcp"):
        df = run_checked(spec_of(trace, {"name": name})).set_index("flow_id")
        young[name] = df.fct_s[1]
    assert young["l2dct"] < 0.9 * young["dctcp"]


def test_dynamic_thresholds_keep_room_for_the_top_queue(write_trace):
    # PIAS without ECN, 2 queues, 100 KB ports: two 5 MB flows fill the
    # port to host 0 from the low queue; a 50 KB flow joining later finds
    # the shared buffer full and times out again and again (first come,
    # first served, ns-2's prio.cc). With dynamic thresholds (alpha = 1,
    # the testbed switch's dynamic buffer management) the low queue stops
    # at half the buffer and the short flow runs as if alone.
    trace = write_trace([(0, 1, 0, 5_000_000), (0, 3, 0, 5_000_000), (0.002, 2, 0, 50_000)])
    scheme = {"name": "pias", "queues": 2, "thresholds": [100_000], "ecn": False, "queue_bytes": 100_000}
    fcfs = run_checked(spec_of(trace, scheme)).set_index("flow_id").loc[2]
    dt = run_checked(spec_of(trace, {**scheme, "buffer_alpha": 1.0})).set_index("flow_id").loc[2]
    assert fcfs.timeouts >= 2 and fcfs.slowdown > 20
    assert dt.timeouts == 0 and dt.retransmits == 0 and dt.slowdown < 1.02
    # alpha goes to the engine as an exact fraction
    port = build_config(spec_of(trace, {**scheme, "buffer_alpha": 1 / 3}))["port"]["switch"]["discipline"]
    assert port["dt_alpha"] == [1, 3]


def test_pias_thresholds_of_another_workload(write_trace):
    # Fig. 12: web search traffic with the thresholds of data mining
    trace = write_trace([(0, 1, 0, 10_000)])
    spec = spec_of(trace, {"name": "pias", "threshold_cdf": "data_mining", "thresholds": "paper"})
    spec.workload.cdf, spec.workload.load = "web_search", 0.8
    assert build_config(spec)["transport"]["prio_thresholds"] == list(paper("data_mining", 0.8).thresholds)
    # the testbed's timers: RFC 6298 above a 10 ms floor, no probe mode
    t = build_config(spec_of(trace, {"name": "pias", "thresholds": [], "queues": 1, "rto_us": 10_000,
                                     "fixed_rto": False, "probe_after": None}))["transport"]
    assert t["fixed_rto"] is False and t["probe_after"] is None and t["min_rto_ps"] == 10_000_000_000


def test_pias_ecn_per_queue_on_request(write_trace):
    # §IV-A2: per-port marking by default; per-queue on request
    trace = write_trace([(0, 1, 0, 10_000)])
    port = lambda **kw: build_config(spec_of(trace, {"name": "pias", **kw}))["port"]["switch"]["discipline"]
    assert port()["ecn_per_port"] is True and port(ecn_scope="queue")["ecn_per_port"] is False


# ---- The figures' settings as the engine gets them (docs/sources.md §2) ----------

PS_PER_US = 1_000_000


def figure_configs(name, mode="full"):
    """(facet, series, x) -> the engine configuration of each point of a
    registered figure, as `dcsim reproduce` would run it."""
    fig = figures.get(name)
    return {(p.params[fig.facet], p.params[fig.series], p.params[fig.x]): build_config(p.spec)
            for p in fig.sweep(mode).points()}


def figure_spec(name, series, **workload):
    """The spec of a figure's first point of `series`, with its workload
    replaced (e.g. by a trace)."""
    fig = figures.get(name)
    p = next(p for p in fig.sweep("quick").points() if p.params[fig.series] == series)
    data = p.spec.model_dump(mode="json")
    data["workload"] = workload
    return Spec.model_validate(data)


def base_rtt_us(sim, src, dst, data=1500, ack=40):
    """One data packet there and its ACK back on the idle network:
    propagation and store-and-forward at every hop, both ways."""
    hops = sim.path(src, dst)
    return sum(2 * d + (data + ack) * 8 * 1e12 / r for r, d in hops) / PS_PER_US


@pytest.mark.parametrize("name", ["pias-fig14-16", "pias-fig17"])
def test_pias_simulation_figures_run_each_scheme_as_the_scripts(name):
    # run_pias_dctcp.py, run_lldct_dctcp.py and run_pfabric_dctcp.py, all
    # on spine_empirical.tcl's FullTcp/Sack/MinTCP agent: window 70, a fixed
    # timeout with no backoff, probe mode after 5 (prob_cap_), no duplicate
    # ACKs, ns-2's window rule (span), one connection per host pair
    configs = figure_configs(name)
    assert len(configs) == 2 * 5 * len(figures.get(name).series_values)  # workloads x loads 0.5-0.9
    for (cdf, variant, load), c in configs.items():
        t, port = c["transport"], c["port"]
        assert port["host"] == port["switch"], variant  # NICs as the switches
        sw = port["switch"]
        assert (t["init_cwnd_pkts"], t["fixed_rto"], t["probe_after"], t["fast_retransmit"]) == (70, True, 5, False)
        assert (t["window_span"], t["connections_per_pair"], t["handshake"]) == (True, 1, True), variant
        assert c["routing"]["load_balancing"] == "round_robin" and c["fct_at"] == "sender"
        if variant in ("pfabric", "las"):
            # queueSize = 140 packets of 1500 B, min_rto = 250 us, maxcwnd_ = queue - 1
            assert sw["discipline"]["kind"] == "pfabric" and sw["limit_bytes"] == 140 * 1500 == 210_000
            assert (t["min_rto_ps"], t["max_cwnd_pkts"], t["ecn"]) == (250 * PS_PER_US, 139, False)
            assert t["prio"] == {"pfabric": "remaining_size", "las": "bytes_sent"}[variant]
            continue
        # queueSize = 240 packets, DCTCP_K = 65 packets marked per port, min_rto = 2 ms
        assert sw["limit_bytes"] == 240 * 1500 == 360_000 and sw["ecn_threshold_bytes"] == 65 * 1500 == 97_500
        assert (t["min_rto_ps"], t["max_cwnd_pkts"], t["ecn"]) == (2000 * PS_PER_US, 239, True)
        assert t["cc"]["g"] == 0.0625
        if variant == "l2dct":
            assert sw["discipline"] == {"kind": "fifo"}
            assert t["cc"] == {"kind": "l2dct", "g": 0.0625, "w_min": 0.125, "w_max": 2.5, "size_min": 204_800,
                               "size_max": 1_048_576, "ns2_double_count": True}
            continue
        # PIAS and DCTCP: the scripts' Priority queue with 8 queues or 1
        assert sw["discipline"] == {"kind": "prio", "queues": 8 if variant == "pias" else 1, "reserved_bytes": 0,
                                    "ecn_per_port": True, "dt_alpha": None}
        assert t["cc"]["kind"] == "dctcp"
        want = list(paper(cdf, load).thresholds) if variant == "pias" else []
        assert t["prio_thresholds"] == want
    # e.g. web search at 0.8: 909 ... 2484 packets of 1460 B (docs/sources.md §2)
    pias_ws = configs[("web_search", "pias", 0.8)]["transport"]["prio_thresholds"]
    assert (pias_ws[0], pias_ws[-1]) == (1_327_140, 3_626_640)


def test_pias_leaf_spine_base_rtt(write_trace):
    # 20 us of host delay on each host link plus 0.2 us of propagation per
    # link (host_delay, mean_link_delay): across the spine a 1500 B packet
    # and its 40 B ACK take 4 x 2 x 20.2 ... = 84.68 us on the idle network
    # (docs/sources.md's 84.7 us; the paper states 85.2 us and the scripts give no
    # other 0.5 us). Under one leaf: 83.26 us.
    spec = figure_spec("pias-fig14-16", "pias", matrix="trace",
                       trace=write_trace([(0, 0, 16, 1460), (0.01, 0, 1, 1460)]))
    sim = build(spec)
    assert sim.path(0, 16) == [(10**10, 20_200_000), (4 * 10**10, 200_000), (4 * 10**10, 200_000),
                               (10**10, 20_200_000)]
    assert base_rtt_us(sim, 0, 16) == pytest.approx(84.68, abs=1e-9)
    assert base_rtt_us(sim, 0, 1) == pytest.approx(83.264, abs=1e-9)
    assert 85.2 - base_rtt_us(sim, 0, 16) == pytest.approx(0.52, abs=1e-9)
    # the engine's ideal FCT of a lone one-packet flow, ending at the sender,
    # is that round trip, and the flow takes exactly that
    df = run_checked(spec).set_index("flow_id")
    assert df.ideal_fct_s.tolist() == pytest.approx([84.68e-6, 83.264e-6], abs=1e-12)
    assert df.fct_s.tolist() == pytest.approx(df.ideal_fct_s.tolist(), abs=1e-12)


def test_pias_testbed_star_base_rtt():
    # §V-A: 16 servers on one 1 Gb/s switch, base RTT about 135 us: four
    # link traversals of 33.75 us between any two servers
    fig = figures.get("pias-fig5-7")
    sim = build(fig.sweep("quick").points()[0].spec)
    hops = sim.path(1, 0)
    assert hops == [(10**9, 33_750_000), (10**9, 33_750_000)]
    assert 2 * sum(d for _, d in hops) == 135 * PS_PER_US
    # with a 1500 B packet and its ACK serialized at each hop: 159.64 us
    assert base_rtt_us(sim, 1, 0) == pytest.approx(135 + 2 * (1540 * 8 / 1e3), abs=1e-9)
    assert len(json.loads(sim.summary_json())["ports"]) == 2 * 16


def test_pias_oversubscribed_fabric_fig18():
    # run_pias_dctcp_oversub.py: 12 ToRs x 12 hosts, 4 spines, x = 3: the
    # uplinks run at 12 x 10 / (4 x 3) = 10 Gb/s; per-flow ECMP; edge load =
    # core load / 2.75 with the thresholds of the core load
    configs = figure_configs("pias-fig18")
    assert {(s, round(x * 2.75, 9)) for _, s, x in configs} == {(s, x) for s in ("pias", "dctcp")
                                                               for x in (0.5, 0.6, 0.7, 0.8, 0.9)}
    for (_, variant, load), c in configs.items():
        assert c["topology"] == {"kind": "leaf_spine", "leaves": 12, "spines": 4, "hosts_per_leaf": 12,
                                 "host_rate_bps": 10**10, "spine_rate_bps": 10**10, "host_delay_ps": 20_200_000,
                                 "spine_delay_ps": 200_000}
        assert c["routing"]["load_balancing"] == "ecmp" and c["transport"]["fast_retransmit"] is True
        want = list(paper("web_search", round(load * 2.75, 2)).thresholds) if variant == "pias" else []
        assert c["transport"]["prio_thresholds"] == want
    fig = figures.get("pias-fig18")
    sim = build(fig.sweep("quick").points()[0].spec)
    # 144 hosts; 144 host links and 12 x 4 uplinks, a port at each end
    assert len(json.loads(sim.summary_json())["ports"]) == 2 * (144 + 12 * 4)
    assert [r for r, _ in sim.path(0, 143)] == [10**10] * 4
    assert len(sim.path(0, 11)) == 2  # hosts 0-11 share a leaf


def test_pias_threshold_load_given_or_scaled(write_trace):
    trace = write_trace([(0, 1, 0, 10_000)])

    def thresholds(**scheme):
        spec = spec_of(trace, {"name": "pias", **scheme})
        spec.workload.cdf, spec.workload.load = "web_search", 0.5
        return build_config(spec)["transport"]["prio_thresholds"]

    assert thresholds() == list(paper("web_search", 0.5).thresholds)
    # an explicit load, and the workload's load scaled (the oversubscribed
    # runs' core load): both pick the 0.8 table
    assert thresholds(threshold_load=0.8) == list(paper("web_search", 0.8).thresholds) == [
        x * 1460 for x in (909, 1329, 1648, 1960, 2143, 2337, 2484)]
    assert thresholds(threshold_load_factor=1.6) == thresholds(threshold_load=0.8)
    assert thresholds(threshold_load=0.4, threshold_load_factor=2.0) == thresholds(threshold_load=0.8)
    # Eq. 1 at a given load: 1,333 packets for two queues at 0.8
    assert thresholds(queues=2, thresholds="pias", threshold_load=0.8) == [1333 * 1460]
    with pytest.raises(SpecError, match="not 0.75"):
        thresholds(threshold_load=0.75)


def test_prio_queues_take_eq8_thresholds_for_the_load():
    # pFabric Fig. 23's ports get Appendix A's Eq. 8 thresholds for the
    # workload (sizes in whole packets) and the point's load
    configs = figure_configs("pfabric-fig23")
    web = load_cdf("web_search")
    for (_, variant, load), c in configs.items():
        if variant in ("q2", "q4", "q8"):
            k = int(variant[1])
            want = optimize("pfabric-eq8", web, load, k, 1460).thresholds
            assert c["transport"]["prio_thresholds"] == list(want) and c["transport"]["prio"] == "flow_size"
            assert c["port"]["switch"]["discipline"] == {"kind": "prio", "queues": k, "reserved_bytes": 15_000,
                                                         "ecn_per_port": False, "dt_alpha": None}
            assert c["port"]["switch"]["limit_bytes"] == 225_000
    # 4 queues at 80% load: about 192, 2,197 and 7,719 packets
    q4 = configs[("web_search", "q4", 0.8)]["transport"]["prio_thresholds"]
    assert [x / 1460 for x in q4] == pytest.approx([192.0, 2196.6, 7718.7], rel=1e-3)
    # and an explicit load for them
    spec = Spec.model_validate({"scheme": {"name": "prio_queues", "queues": 2, "threshold_load": 0.1},
                                "workload": {"cdf": "web_search", "load": 0.8, "size_quantum_bytes": 1460}})
    assert build_config(spec)["transport"]["prio_thresholds"] == list(
        optimize("pfabric-eq8", web, 0.1, 2, 1460).thresholds)
