"""RDMA queue pairs pulled by the NIC (`transport/rdma.rs`, `nic.rs`) and
DCQCN over shared buffers with PFC, end to end."""

import numpy as np
import pandas as pd
import pytest

from dcsim.errors import SpecError
from dcsim.simulate import build, run_all
from dcsim.spec import Spec
from conftest import run_checked


def _star(write_trace, rows, hosts=5, scheme=None, **buffer):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": hosts, "rate_gbps": 100.0, "link_delay_us": 1.0},
        "scheme": scheme or {"name": "dcqcn"}, "buffer": buffer,
        "workload": {"matrix": "trace", "trace": write_trace(rows)},
        "run": {"sample_us": 2.0, "sample_queues": "to_hosts", "sample_flows": True}})


@pytest.mark.parametrize("scheme", ["dcqcn", "dcqcn_ns3rdma"])
@pytest.mark.parametrize("size", [1000, 1060, 64_000, 3_000_000])
def test_a_flow_alone_runs_at_line_rate(write_trace, size, scheme):
    # paced at the NIC's rate, no marks: exactly the ideal FCT (its wire
    # bytes at 100 Gb/s, one packet's store-and-forward, the propagation,
    # and the last ACK's way back). (A last packet shorter than an ACK,
    # 1001 B say, arrives before the previous ACK has left, and its ACK
    # waits for it: 0.88 ns more than the ideal, as on a real NIC.)
    df = run_checked(_star(write_trace, [(0.0, 1, 0, size)], scheme={"name": scheme}))
    assert df.slowdown.iloc[0] == pytest.approx(1.0, abs=1e-9)
    c = df.attrs["summary"]["counters"]
    assert c["data_pkts"] == -(-size // 1000) and c["marked_pkts"] == 0


def test_dcqcn_shares_a_bottleneck_fairly_and_keeps_it_busy(write_trace):
    # four 10 MB flows into one host: DCQCN cuts each on the marks of the
    # bottleneck's queue; they finish close together, and once past the
    # start (four flows at line rate, cut by half every 4 us until the
    # queue drains, then back up only at the 300 us increase timer) the
    # link is kept busy
    n, size = 4, 10_000_000
    r = run_all(_star(write_trace, [(0.0, h, 0, size) for h in range(1, n + 1)]))
    s = r.summary
    assert s["conservation_holds"] and s["counters"]["dropped_pkts"] == 0
    assert s["counters"]["marked_pkts"] > 0
    f = r.flows
    finish = f.start_s + f.fct_s
    wire = n * (size + size // 1000 * 48)
    assert wire * 8 / 100e9 / finish.max() > 0.8, "the bottleneck stays busy"
    assert finish.min() / finish.max() > 0.85, "the flows share fairly"
    # in the middle of the run each flow gets about a quarter of the link
    fs = r.flow_samples.pivot(index="time_s", columns="flow_id", values="delivered_bytes").dropna()
    mid = fs[(fs.index > 0.2 * finish.max()) & (fs.index < 0.8 * finish.max())]
    rates = (mid.iloc[-1] - mid.iloc[0]) * 8 / (mid.index[-1] - mid.index[0])
    assert rates.min() / rates.max() > 0.85
    assert rates.sum() == pytest.approx(100e9 * 1000 / 1048, rel=0.05)


def test_dcqcn_ns3rdma_sends_a_cnp_per_interval_at_most_and_cuts_on_it(write_trace):
    # ns3-rdma's DCQCN: two 2 MB flows into one host over 100 Gb/s; the
    # queue they build is marked, and each receiver sends at most one CNP
    # per 50 us of its flow (a tick at the first packet, then every 50 us),
    # carrying no mark on its ACKs: a dozen CNPs for some 3,500 marks
    # (the HPCC simulator's DCQCN echoes each). With a CNP every 5 us
    # the senders hear sooner and more often: the queue is cut before it
    # grows (fewer marks), and the cuts, slow to win back, make the flows
    # slower (measured: 12 CNPs, 3,520 marks, 339 us; 19, 212, 1,893 us).
    rows = [(0.0, 1, 0, 2_000_000), (0.0, 2, 0, 2_000_000)]

    def run(interval):
        r = run_all(_star(write_trace, rows, scheme={"name": "dcqcn_ns3rdma", "cnp_interval_us": interval}))
        c = r.summary["counters"]
        assert r.summary["conservation_holds"] and c["dropped_pkts"] == 0
        f = r.flows
        # one ACK per data packet (lossless): the rest are CNPs
        cnps = c["ack_pkts"] - c["data_pkts"]
        ticks = sum(int(fct / (interval * 1e-6)) + 1 for fct in f.fct_s)
        return c, cnps, ticks, f.fct_s.max()

    c, cnps, ticks, slowest = run(50.0)
    assert 0 < cnps <= ticks and cnps < c["marked_pkts"] / 100
    c5, cnps5, ticks5, slowest5 = run(5.0)
    assert cnps < cnps5 <= ticks5
    assert c5["marked_pkts"] < c["marked_pkts"] / 4 and slowest5 > 2 * slowest


def test_dcqcn_ns3rdma_shares_a_bottleneck_fairly(write_trace):
    # four 10 MB flows into one host: the flows are cut alike and finish
    # together. (How busy the link stays is the configuration's: with the
    # shipped byte counter of 300 MB the target climbs 40 Mb/s per 60 us
    # after a cut, so four flows cut deep at the start fill 100 Gb/s only
    # slowly; docs/schemes.md.)
    n, size = 4, 10_000_000
    r = run_all(_star(write_trace, [(0.0, h, 0, size) for h in range(1, n + 1)], scheme={"name": "dcqcn_ns3rdma"}))
    assert r.summary["conservation_holds"]
    finish = r.flows.start_s + r.flows.fct_s
    assert finish.min() / finish.max() > 0.95
    # with a byte counter small enough to count (150 KB, the device's attribute
    # default), hyper increase wins the link back sooner (measured: the
    # flows end after 5.3-11.8 ms on average 8.3, against 12.9 ms)
    r2 = run_all(_star(write_trace, [(0.0, h, 0, size) for h in range(1, n + 1)],
                       scheme={"name": "dcqcn_ns3rdma", "byte_counter_bytes": 150_000}))
    finish2 = r2.flows.start_s + r2.flows.fct_s
    assert finish2.mean() < 0.8 * finish.mean()


@pytest.mark.parametrize("window", ["fixed", "rate"])
def test_dcqcn_window_bounds_what_a_flow_has_in_flight(write_trace, window):
    # the HPCC simulator's HAS_WIN (and VAR_WIN, which only lowers it): a
    # flow sends while it has less than W in flight, W the BDP of the
    # network's longest base RTT (4 us of propagation and two payloads'
    # serialization here: 4.16 us x 100 Gb/s = 52 KB), so eight flows into
    # one host hold at most 8 x (W + a packet) at its port; without a
    # window (the default) the queue grows until the marks' cuts act, past
    # 1 MB
    rows = [(0.0, h, 0, 300_000) for h in range(1, 9)]

    def peak(w):
        r = run_all(Spec.model_validate({
            "topology": {"kind": "star", "hosts": 9, "rate_gbps": 100.0, "link_delay_us": 1.0},
            "scheme": {"name": "dcqcn", "window": w}, "workload": {"matrix": "trace", "trace": write_trace(rows)},
            "run": {"sample_us": 0.5, "sample_queues": "to_hosts"}}))
        assert r.summary["conservation_holds"] and r.summary["flows_finished"] == 8
        return r.queues.bytes.max()

    bound = 8 * (52 + 1) * 1048
    assert 0.8 * bound < peak(window) <= bound
    assert peak("none") > 2.5 * bound


def test_go_back_n_recovers_losses_without_pfc(write_trace):
    # no PFC and a small buffer: an incast loses packets; NACKs (and the
    # safety timeout for lost last packets) bring every flow home
    rows = [(0.0, h, 0, 300_000) for h in range(1, 9)]
    spec = _star(write_trace, rows, hosts=9, scheme={"name": "dcqcn", "rto_us": 100.0}, pfc=False, size_mb=0.5)
    r = run_all(spec)
    s = r.summary
    assert s["conservation_holds"]
    assert s["counters"]["dropped_pkts"] > 0 and s["counters"]["retransmitted_pkts"] > 0
    assert s["flows_finished"] == 8
    # and with PFC the same incast loses nothing
    r = run_all(_star(write_trace, rows, hosts=9, size_mb=0.5))
    assert r.summary["counters"]["dropped_pkts"] == 0 and r.summary["counters"]["pfc_frames"] > 0
    assert r.summary["counters"]["retransmitted_pkts"] == 0


def test_rdma_runs_are_deterministic(write_trace):
    rows = [(i * 1e-6, 1 + i % 4, 0, 200_000 + 1000 * i) for i in range(12)]
    a, b = run_all(_star(write_trace, rows)), run_all(_star(write_trace, rows))
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert a.summary["counters"] == b.summary["counters"]


def test_rdma_specs_are_checked(write_trace):
    rows = [(0.0, 1, 0, 1000)]
    with pytest.raises(SpecError, match="shared-buffer switches"):
        build(_star(write_trace, rows, model="per_port"))
    with pytest.raises(SpecError, match="rto_us"):
        build(_star(write_trace, rows, pfc=False))
    for name in ("dcqcn", "dcqcn_ns3rdma"):
        with pytest.raises(SpecError, match="kmin_kb"):
            build(_star(write_trace, rows, scheme={"name": name, "kmin_kb": 500}))


def test_hpcc_alone_converges_to_eta_of_the_link(write_trace):
    # a flow alone: its telemetry shows the link at its rate with no queue,
    # so HPCC settles at eta x line rate + R_AI (then one multiplicative
    # step per maxStage + 1 additive ones): about 95% of the link
    r = run_all(_star(write_trace, [(0.0, 1, 0, 20_000_000)], scheme={"name": "hpcc"}))
    fs = r.flow_samples.set_index("time_s").delivered_bytes
    end = r.flows.fct_s.iloc[0]
    mid = fs[(fs.index > 0.3 * end) & (fs.index < 0.9 * end)]
    rate = (mid.iloc[-1] - mid.iloc[0]) * 8 / (mid.index[-1] - mid.index[0])
    # payload at line rate: 1000 B of 1128 with the 80 B telemetry header
    goodput = 100e9 * 1000 / (1000 + 48 + 80)
    assert rate / goodput == pytest.approx(0.95, abs=0.015)
    assert r.summary["counters"]["dropped_pkts"] == 0


def test_hpcc_shares_fairly_with_a_near_empty_queue(write_trace):
    # four flows into one host: HPCC keeps the bottleneck just under eta
    # with almost no queue, where DCQCN lets it build to its marking range.
    # Its shares converge slowly (equal additive steps against cuts in
    # proportion, as AIMD): within 30% of each other over a few ms
    rows = [(0.0, h, 0, 10_000_000) for h in range(1, 5)]
    hp = run_all(_star(write_trace, rows, scheme={"name": "hpcc"}))
    f = hp.flows
    finish = f.start_s + f.fct_s
    assert finish.min() / finish.max() > 0.75
    assert 4 * 10_000_000 * 1048 / 1000 * 8 / 100e9 / finish.max() > 0.85
    q = hp.queues[hp.queues.peer == 0].bytes
    dq = run_all(_star(write_trace, rows)).queues
    dq = dq[dq.peer == 0].bytes
    # after the first RTTs (the four start at line rate together)
    late = hp.queues[hp.queues.peer == 0].time_s > 50e-6
    assert q[late].mean() < 10_000 and q[late].mean() < dq.mean() / 3


def test_dctcp_rdma_holds_the_queue_in_its_marking_range(write_trace):
    # four 10 MB flows into one host: the rate-based DCTCP of the HPCC
    # simulator keeps the bottleneck busy with its queue between Kmin
    # (100 KB) and Kmax (400 KB), where the marks are, and no PFC
    rows = [(0.0, h, 0, 10_000_000) for h in range(1, 5)]
    r = run_all(_star(write_trace, rows, scheme={"name": "dctcp_rdma"}))
    c = r.summary["counters"]
    assert c["marked_pkts"] > 0 and c["pfc_frames"] == 0 and c["dropped_pkts"] == 0
    finish = r.flows.start_s + r.flows.fct_s
    assert 4 * 10_000_000 * 1048 / 1000 * 8 / 100e9 / finish.max() > 0.97
    assert finish.min() / finish.max() > 0.8
    q = r.queues[(r.queues.peer == 0) & (r.queues.time_s > 50e-6) & (r.queues.time_s < 0.9 * finish.min())].bytes
    assert 100_000 < q.mean() < 200_000 and q.max() < 400_000


def test_dctcp_rdma_slow_start_costs_round_trips(write_trace):
    # a 100-packet flow alone: at line rate it takes its ideal FCT; in slow
    # start from 10 packets (paced at the window's rate: 10 packets per
    # round trip) its window doubles each round trip: about 10, 20 and 40
    # packets in the first three, then the last 30 at line rate, where the
    # line-rate flow sends all 100 in two round trips: some two round
    # trips more
    rows = [(0.0, 1, 0, 100_000)]
    line = run_checked(_star(write_trace, rows, scheme={"name": "dctcp_rdma"}))
    assert line.slowdown.iloc[0] == pytest.approx(1.0, abs=1e-9)
    ss = run_checked(_star(write_trace, rows, scheme={"name": "dctcp_rdma", "slow_start_pkts": 10}))
    rtt = 4e-6 + 1048 * 8 / 100e9 * 2 + 60 * 8 / 100e9 * 2  # two hops each way, a packet and an ACK
    extra = ss.fct_s.iloc[0] - line.fct_s.iloc[0]
    assert 1.8 * rtt < extra < 2.6 * rtt


def test_perfect_retransmission_resends_exactly_the_lost_packets(write_trace):
    # BFC §6.4's HPCC-PFC: no PFC, a small buffer, an incast that loses
    # packets; each dropped data packet is sent again once it is known lost
    # (at once) and only it: retransmissions equal the packets dropped,
    # with no timeout
    rows = [(0.0, h, 0, 300_000) for h in range(1, 9)]
    spec = lambda **s: _star(write_trace, rows, hosts=9, scheme={"name": "dcqcn", "rto_us": 100.0, **s}, pfc=False,
                             size_mb=0.3)
    r = run_all(spec(perfect_retransmit=True))
    c = r.summary["counters"]
    assert r.summary["conservation_holds"] and r.summary["flows_finished"] == 8
    # (every drop here is a data packet's: the ACKs' way is not congested)
    assert c["dropped_pkts"] > 50 and c["retransmitted_pkts"] == c["dropped_pkts"]
    assert r.flows.timeouts.sum() == 0
    # go-back-N resends packets that were not lost too
    gbn = run_all(spec()).summary["counters"]
    assert gbn["retransmitted_pkts"] > 1.2 * gbn["dropped_pkts"]


def test_hpcc_over_a_few_queues_per_port(write_trace):
    # BFC §6.4's HPCC + SFQ / + DQA: BFC's queues (round robin, a flow
    # table) without its backpressure, PFC off; 8 flows into one host
    # through 8 queues share it, dynamic assignment evenly; with PFC on
    # the spec is refused (the queues ignore PFC's pauses)
    rows = [(0.0, h, 0, 2_000_000) for h in range(1, 9)]
    scheme = {"name": "hpcc", "queues": 8, "assign": "dynamic", "perfect_retransmit": True, "rto_us": 1000.0}
    r = run_all(_star(write_trace, rows, hosts=9, scheme=scheme, pfc=False))
    assert r.summary["flows_finished"] == 8 and r.summary["bfc"]["collisions"] == 0
    finish = r.flows.start_s + r.flows.fct_s
    # HPCC's rates (each flow's own, from the port's shared telemetry)
    # spread the finishes (measured: 0.78 with the 100 Mb/s floor, 0.8 and
    # more with the HPCC simulator's 1 Gb/s); the link stays busy
    assert finish.min() / finish.max() > 0.75
    assert 8 * r.flows.ideal_fct_s.iloc[0] / finish.max() > 0.85
    with pytest.raises(SpecError, match="buffer.pfc"):
        build(_star(write_trace, rows, hosts=9, scheme=scheme))


def test_a_stalled_run_with_a_sampler_ends(write_trace):
    # DCQCN without a timeout on a sprayed 2x2 leaf-spine with small
    # buffers leaves one flow waiting for ever (its last packets lost, no
    # NACK to come): the run must end as stalled, even with the sampler,
    # which would otherwise reschedule itself with nothing else to happen
    import random

    rng = random.Random(1)
    rows = [(0.0, h, 0, 300_000) for h in range(1, 12)]
    rows += [(rng.random() * 50e-6, rng.randrange(16), rng.randrange(16), rng.choice([2000, 50_000, 400_000]))
             for _ in range(60)]
    rows = sorted(r for r in rows if r[1] != r[2])
    spec = Spec.model_validate({
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 8, "host_rate_gbps": 100.0,
                     "spine_rate_gbps": 100.0, "host_link_delay_us": 1.0, "spine_link_delay_us": 1.0},
        "scheme": {"name": "dcqcn"}, "buffer": {"size_mb": 0.5},
        "workload": {"matrix": "trace", "trace": write_trace(rows)}, "run": {"sample_us": 5.0}})
    r = run_all(spec)
    assert r.summary["status"] == "stalled" and r.summary["flows_finished"] == len(rows) - 1
    assert r.queues.time_s.max() < 0.01  # the sampler stopped with the rest
