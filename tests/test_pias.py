"""PIAS, LAS and pFabric §6's priority queues at the scheme level: the
sender's tags and the switches' strict priority seen in flow times."""

import pytest

from conftest import run_checked
from test_schemes import ports_after, spec_of
from dcsim.spec.experiment import engine_config as build_config


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
    from dcsim.thresholds import paper

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
