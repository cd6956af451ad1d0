"""The schemes of the pFabric paper against what is known independently:
pFabric's ports and a lone pFabric flow, the Ideal scheduler against an
SRPT schedule computed another way, DCTCP's queue and link utilization,
and TCP-family details (connection pools, probes)."""

import json
import math
import random

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim.simulate import build
from dcsim.spec import Spec
from conftest import run_checked


def spec_of(trace, scheme, topology="star", **run):
    return Spec.model_validate({
        "topology": {"kind": topology},
        "scheme": scheme if isinstance(scheme, dict) else {"name": scheme},
        "workload": {"matrix": "trace", "trace": trace},
        "run": run,
    })


def ports_after(spec):
    """Run a spec to the end through the engine; its port statistics."""
    sim = build(spec)
    while sim.run(1 << 20) == "running":
        pass
    return json.loads(sim.summary_json())["ports"]


@pytest.mark.parametrize("size", [1460, 20_000, 300_000, 3_000_000])
@pytest.mark.parametrize("fct_at", ["sender", "receiver"])
def test_a_pfabric_flow_alone_has_slowdown_one(write_trace, size, fct_at):
    # initial window 12 = one BDP (§4.2): a lone flow is never held back
    df = run_checked(spec_of(write_trace([(0, 3, 140, size)]), "pfabric", "leaf_spine", fct_at=fct_at))
    assert df.slowdown[0] == pytest.approx(1.0, rel=0.02)
    assert df.timeouts[0] == 0 and df.retransmits[0] == 0


def test_pfabric_ports_never_exceed_their_buffer(write_trace):
    # an incast of 30 flows into one host: the last hop overflows all along
    rows = [(0.0001 * (i % 3), i + 1, 0, 200_000 + 1000 * i) for i in range(30)]
    spec = spec_of(write_trace(rows), "pfabric", "leaf_spine")
    ports = ports_after(spec)
    assert max(p["max_queue_bytes"] for p in ports) <= 36_000
    assert sum(p["drops"] for p in ports) > 100  # it did overflow
    df = run_checked(spec)
    assert len(df) == 30 and df.finish_s.notna().all()


def test_pfabric_losses_by_priority_account_for_every_packet(write_trace):
    # Fig. 13's counts: every packet offered to a pFabric port is an
    # arrival; it leaves by its link (a packet-hop) or is dropped there
    rows = [(0.0001 * (i % 3), i + 1, 0, 200_000 + 1000 * i) for i in range(30)]
    sim = build(spec_of(write_trace(rows), "pfabric", "leaf_spine"))
    while sim.run(1 << 20) == "running":
        pass
    s = json.loads(sim.summary_json())
    pl, c = s["prio_losses"], s["counters"]
    assert pl["places"] == ["host_nic", "last_hop", "fabric"] and not pl["by_class"]
    arrivals, drops = sum(map(sum, pl["arrivals"])), sum(map(sum, pl["drops"]))
    assert drops == c["dropped_pkts"] > 100
    assert arrivals == c["packet_hops"] + drops
    # ACKs (priority 0) are in bucket 0, and only a full last hop drops data here
    assert pl["arrivals"][1][0] > 0 and sum(pl["drops"][1][1:]) == sum(pl["drops"][1]) > 0


def test_pfabric_serves_the_shortest_flow_first(write_trace):
    # A 5 MB flow from host 1 to host 0, then, once its window fills the
    # sender's NIC queue, a 20 KB flow between the same hosts: pFabric lets
    # the short one through at once (slowdown near 1); behind TCP-DropTail's
    # FIFO it waits.
    trace = write_trace([(0, 1, 0, 5_000_000), (0.001, 1, 0, 20_000)])
    pf = run_checked(spec_of(trace, "pfabric")).set_index("flow_id")
    tcp = run_checked(spec_of(trace, "tcp")).set_index("flow_id")
    assert pf.slowdown[1] < 1.3
    assert tcp.slowdown[1] > 2 * pf.slowdown[1]
    # five equal flows to one host are served one after another (Fig. 5a):
    # each finishes about one transfer time after the one before
    rows = [(0, s, 0, 2_000_000) for s in range(1, 6)]
    df = run_checked(spec_of(write_trace(rows, "five.txt"), "pfabric")).sort_values("finish_s")
    one = 2_000_000 * 1500 / 1460 * 8 / 10e9
    gaps = np.diff(np.concatenate([[0.0], df.finish_s.to_numpy()]))
    assert gaps == pytest.approx([one] * 5, rel=0.08)


def algorithm1(flows, service):
    """pFabric's Algorithm 1, written again independently: event by event,
    in exact integer picoseconds. flows: (id, start, src, dst); service:
    id -> service time. Returns id -> the time its service ends."""
    left = dict(service)
    active, end, now = [], {}, 0
    pending = sorted(flows, key=lambda f: (f[1], f[0]))
    while pending or active:
        # schedule: increasing remaining size, both ends free
        active.sort(key=lambda f: (left[f[0]], f[0]))
        busy_src, busy_dst, on = set(), set(), []
        for f in active:
            if f[2] not in busy_src and f[3] not in busy_dst:
                on.append(f)
                busy_src.add(f[2])
                busy_dst.add(f[3])
        t_dep = now + min(left[f[0]] for f in on) if on else math.inf
        t_arr = pending[0][1] if pending else math.inf
        t = min(t_dep, t_arr)
        for f in on:
            left[f[0]] -= t - now
        now = t
        for f in [f for f in active if left[f[0]] == 0]:
            end[f[0]] = now
            active.remove(f)
        while pending and pending[0][1] <= now:
            active.append(pending.pop(0))
    return end


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ideal_matches_algorithm_1_computed_another_way(write_trace, seed):
    rnd = random.Random(seed)
    rows = []
    for _ in range(120):
        src, dst = rnd.sample(range(6), 2)
        rows.append((round(rnd.uniform(0, 0.002), 9), src, dst, rnd.choice([1460, 5000, 40_000, 300_000, 1_000_000])))
    spec = spec_of(write_trace(rows), "ideal", fct_at="receiver")
    df = dcsim.run(spec).sort_values("flow_id")
    # service at 10 Gb/s: 800 ps per byte on the wire (payload + 40 B per packet)
    wire = df.size_bytes + np.ceil(df.size_bytes / 1460) * 40
    service = dict(zip(df.flow_id, (wire * 800).astype(np.int64)))
    start = dict(zip(df.flow_id, np.round(df.start_s * 1e12).astype(np.int64)))
    flows = [(i, start[i], s, d) for i, s, d in zip(df.flow_id, df.src, df.dst)]
    end = algorithm1(flows, service)
    # the engine's FCT: the end of service, plus what the idle network adds
    extra = np.round(df.ideal_fct_s * 1e12).astype(np.int64) - wire.astype(np.int64) * 800
    expect = np.array([end[i] - start[i] for i in df.flow_id]) + extra
    got = np.round(df.fct_s * 1e12).astype(np.int64)
    assert np.abs(got - expect).max() <= 2
    assert (df.slowdown >= 1 - 1e-9).all()


def test_ideal_on_one_link_is_srpt(write_trace):
    # many-to-one: Algorithm 1 is preemptive SRPT on the receiver's link;
    # with all flows there at once, the k-th shortest ends after the k
    # shortest have been served
    sizes = [300_000, 10_000, 80_000, 1_000_000, 40_000]
    rows = [(0, s + 1, 0, size) for s, size in enumerate(sizes)]
    df = dcsim.run(spec_of(write_trace(rows), "ideal", fct_at="receiver")).sort_values("size_bytes")
    wire = df.size_bytes + np.ceil(df.size_bytes / 1460) * 40
    ends = np.cumsum(wire * 8 / 10e9)
    extra = df.ideal_fct_s - wire * 8 / 10e9
    assert df.fct_s.to_numpy() == pytest.approx((ends + extra).to_numpy(), abs=1e-12)


def test_dctcp_holds_the_queue_near_k_and_the_link_busy(write_trace):
    # N long flows into one host (DCTCP §3.3): the bottleneck queue hovers
    # around K = 21,900 B, far below TCP-DropTail's full buffer, while the
    # link stays busy
    n, size = 8, 6_000_000
    rows = [(0, s, 0, size) for s in range(1, n + 1)]
    trace = write_trace(rows)
    res = {}
    for name in ("dctcp", "tcp"):
        r = dcsim.run_all(spec_of(trace, {"name": name, "fast_retransmit": False}, sample_us=20,
                                  sample_queues="to_hosts"))
        q = r.queues[(r.queues.peer == 0)]
        done = r.flows.finish_s.max()
        steady = q[(q.time_s > 0.2 * done) & (q.time_s < 0.8 * done)]
        res[name] = (steady.bytes.mean(), steady.bytes.max(), n * size * 1500 / 1460 * 8 / 10e9 / done)
    mean, peak, busy = res["dctcp"]
    assert 0.5 * 21_900 < mean < 2.5 * 21_900, res
    assert peak < 21_900 + 2 * n * 1500 + 40_000, res
    assert busy > 0.95, res
    assert res["tcp"][0] > 4 * mean  # drop-tail fills its buffer


def test_cubic_keeps_more_of_its_window_than_newreno_and_the_link_busier(write_trace):
    # Two 20 MB flows into one host over a 100 us RTT (BDP 125 KB) with ECN
    # marking at 20 KB and no losses: NewReno halves the window at an echo,
    # CUBIC keeps 0.7 of it. With the total window swinging from its cut to
    # BDP + K, the link idles while the window is below the BDP: the
    # sawtooth model gives utilizations of about 0.85 and 0.95, a ratio of
    # 1.12 (slow start at the start and the tail after one flow ends lower
    # both alike).
    trace = write_trace([(0, 1, 0, 20_000_000), (0, 2, 0, 20_000_000)])
    util = {}
    for cc in ("newreno", "cubic"):
        scheme = {"name": "tcp", "cc": cc, "queue_bytes": 1_000_000, "ecn": True, "ecn_threshold_bytes": 20_000,
                  "max_cwnd_pkts": "unlimited", "host_queue_bytes": "unlimited", "fast_retransmit": True}
        spec = Spec.model_validate({"topology": {"kind": "star", "link_delay_us": 25}, "scheme": scheme,
                                    "workload": {"matrix": "trace", "trace": trace}})
        df = run_checked(spec)
        assert df.retransmits.sum() == 0
        util[cc] = 2 * 20e6 * 1500 / 1460 * 8 / 10e9 / (df.finish_s.max() - df.start_s.min())
    assert 0.65 < util["newreno"] < 0.85 and 0.75 < util["cubic"] < 0.95, util
    assert 1.06 < util["cubic"] / util["newreno"] < 1.2, util


def test_cubic_constants_need_cubic():
    with pytest.raises(ValueError, match="cubic_beta applies only with cc = \"cubic\""):
        Spec.model_validate({"scheme": {"name": "tcp", "cubic_beta": 0.5}})
    Spec.model_validate({"scheme": {"name": "tcp", "cc": "cubic", "cubic_beta": 0.5}})


def test_a_coalescing_receiver_sends_one_ack_per_k_segments_and_keeps_the_fct(write_trace):
    # One 100-segment flow alone on the star: every segment arrives in
    # order, so a receiver that acknowledges every 4th sends 25 ACKs, not
    # 100 (each ACK lets at least 4 segments out, so no hold waits for its
    # timer); slow start grows by the segments acked, so the flow is not
    # slower than with an ACK per segment (the initial window of 12 is
    # below the star's BDP, so it is window-limited at first either way).
    trace = write_trace([(0, 1, 0, 100 * 1460)])
    out = {}
    for every in (1, 4):
        df = run_checked(spec_of(trace, {"name": "tcp", "ack_every": every, "ack_delay_us": 50}))
        out[every] = (df.attrs["summary"]["counters"]["ack_pkts"], df.fct_s[0])
    assert out[1][0] == 100 and out[4][0] == 25, out
    assert abs(out[4][1] / out[1][1] - 1) < 0.05, out


def test_a_held_ack_leaves_at_its_delay(write_trace):
    # A 2-segment flow with an initial window of 1 and ack_every = 4: the
    # first segment's ACK is held for the delay (1 ms; the timeout is set
    # above it, as Linux's 200 ms minimum is above its delayed ACKs'), the
    # second, the last, is acknowledged at once: 1 ms later than with an
    # ACK per segment, to the picosecond.
    trace = write_trace([(0, 1, 0, 2 * 1460)])
    fct = {}
    for every in (1, 4):
        scheme = {"name": "tcp", "ack_every": every, "init_cwnd_pkts": 1, "min_rto_us": 5000}
        if every > 1:
            scheme["ack_delay_us"] = 1000
        fct[every] = run_checked(spec_of(trace, scheme)).fct_s[0]
    assert abs(fct[4] - fct[1] - 1e-3) < 1e-12, fct


def test_an_ack_delay_needs_coalescing():
    for name in ("tcp", "dctcp", "pias"):
        with pytest.raises(ValueError, match="ack_delay_us applies only with ack_every > 1"):
            Spec.model_validate({"scheme": {"name": name, "ack_delay_us": 20}})
        Spec.model_validate({"scheme": {"name": name, "ack_every": 2, "ack_delay_us": 20}})


def test_connection_pool_carries_ssthresh_to_the_next_flow(write_trace):
    # Two flows on one pair, one after the other: with a pool of one
    # connection, the second inherits what the first learned; with a new
    # connection per flow it starts afresh. A 40 KB buffer makes the first
    # (big) flow overshoot in slow start and time out, which halves
    # ssthresh. A fresh second flow overshoots the same way; the pooled one
    # leaves slow start at the inherited ssthresh and loses nothing.
    rows = [(0, 1, 0, 3_000_000), (0.02, 1, 0, 600_000)]
    trace = write_trace(rows)
    common = {"name": "tcp", "queue_bytes": 40_000, "max_cwnd_pkts": "unlimited"}
    fresh = run_checked(spec_of(trace, {**common, "connections": "per_flow"})).set_index("flow_id")
    pool = run_checked(spec_of(trace, {**common, "connections": "pool", "connections_per_pair": 1})
                       ).set_index("flow_id")
    assert fresh.timeouts[0] > 0 and fresh.fct_s[0] == pool.fct_s[0]
    assert fresh.timeouts[1] > 0 and pool.timeouts[1] == 0
    assert pool.fct_s[1] < 0.8 * fresh.fct_s[1]


def test_a_connection_opened_on_the_fly_costs_one_handshake(write_trace):
    # pFabric's pool of one connection per pair (its ns-2 scripts): a flow
    # that arrives while its pair's connection is busy gets a new one, and
    # ns-2's FullTcp opens it with a SYN and waits for the SYN-ACK. On the
    # star (two 2.7 us links each way at 10 Gb/s) that round trip of two
    # 40-byte packets is 2 x 2 x (32 ns + 2.7 us) = 10.928 us; the SYN may
    # wait behind one data packet on the wire (1.2 us) at each hop.
    trace = write_trace([(0, 1, 0, 1_000_000), (0.0001, 1, 0, 20_000), (0.002, 1, 0, 20_000)])
    out = {}
    for hs in (True, False):
        scheme = {"name": "pfabric", "connections": "pool", "connections_per_pair": 1, "handshake": hs}
        df = run_checked(spec_of(trace, scheme))
        assert df.attrs["summary"]["counters"]["connections_opened"] == 1
        out[hs] = df.set_index("flow_id").fct_s
    extra = out[True] - out[False]
    assert 10.928e-6 <= extra[1] <= 10.928e-6 + 2 * 1.2e-6, extra
    # the first flow uses the pool's open connection, the third the idle one
    assert abs(extra[0]) < 1e-3 * out[False][0] and extra[2] == 0, extra


def test_a_span_window_sends_less_past_a_hole_than_a_pipe(write_trace):
    # Eight flows into one 30 KB port, no fast retransmit: every flow loses
    # packets and waits for a timeout. Under "pipe" (RFC 6675) each SACK
    # frees room for new data, which mostly meets the same full queue;
    # under "span" (ns-2 FullTcp) a sender stops a window past its hole, so
    # fewer bytes are sent and dropped before the timeout repairs it.
    trace = write_trace([(0, s, 0, 500_000) for s in range(1, 9)])
    out = {}
    for window in ("pipe", "span"):
        scheme = {"name": "tcp", "queue_bytes": 30_000, "fast_retransmit": False, "window": window}
        df = run_checked(spec_of(trace, scheme))
        c = df.attrs["summary"]["counters"]
        out[window] = (c["dropped_bytes"], c["host_tx_bytes"], int(df.timeouts.sum()))
    assert out["span"][0] < 0.9 * out["pipe"][0], out
    assert out["span"][1] < out["pipe"][1], out
    assert out["span"][2] < out["pipe"][2], out


def test_probe_mode_sends_small_probes_and_keeps_losses_down(write_trace):
    # Many long flows into one pFabric port (Fig. 5b): without probe mode
    # the starved flows keep resending full packets that are dropped; with
    # it they send 41-byte probes, and far fewer bytes are lost
    rows = [(0, s, 0, 1_000_000) for s in range(1, 13)]
    trace = write_trace(rows)
    drops = {}
    for probe in (True, False):
        df = dcsim.run(spec_of(trace, {"name": "pfabric", "probe_mode": probe}))
        c = df.attrs["summary"]["counters"]
        drops[probe] = c["dropped_bytes"] / c["host_tx_bytes"]
        assert df.finish_s.notna().all()
    assert drops[True] < 0.6 * drops[False], drops


def incast_spec(scheme, senders, requests, **workload):
    return Spec.model_validate({
        "topology": {"kind": "leaf_spine"},
        "scheme": scheme if isinstance(scheme, dict) else {"name": scheme},
        "workload": {"matrix": "incast", "dst": 0, "senders": senders, "requests": requests, **workload},
    })


def test_incast_requests_run_one_after_another():
    # 3 requests of 3 MB striped over 6 senders: each request's 6 flows
    # start together, when the previous request's last flow ended
    df = run_checked(incast_spec("dctcp", 6, 3, request_bytes=3_000_000)).sort_values("flow_id")
    assert len(df) == 18 and (df.dst == 0).all() and (df.size_bytes == 500_000).all()
    req = df.flow_id // 6
    starts = df.groupby(req).start_s
    assert (starts.nunique() == 1).all()  # a request's flows start together
    ends = df.groupby(req).finish_s.max()
    assert starts.min()[1:].to_numpy() == pytest.approx(ends[:-1].to_numpy(), abs=1e-12)
    # the senders are distinct hosts other than the receiver, the same for every request
    assert df.src.nunique() == 6 and 0 not in set(df.src)
    assert all(sorted(g.src) == sorted(df.src.unique()) for _, g in df.groupby(req))
    # a request takes at least its bytes on the receiver's link
    from dcsim.figures.core import STATS
    ms = STATS["request_ms"](df, df.attrs["summary"])
    assert ms >= 3_000_000 * 1500 / 1460 * 8 / 10e9 * 1e3


def test_incast_specs_are_checked():
    from dcsim.spec import spec_from_dict

    with pytest.raises(dcsim.SpecError, match="exactly one of request_bytes and flow_bytes"):
        spec_from_dict({"workload": {"matrix": "incast", "senders": 4}})
    with pytest.raises(dcsim.SpecError, match="senders"):
        dcsim.run(incast_spec("tcp", 144, 1, flow_bytes=1000))


def test_deadlines_go_to_small_flows_and_edf_meets_more(write_trace):
    spec = Spec.model_validate({
        "topology": {"kind": "leaf_spine"},
        "scheme": {"name": "pfabric", "priority": "deadline"},
        "workload": {"flows": 1500, "load": 0.6, "deadline_mean_us": 300, "size_quantum_bytes": 1460},
    })
    edf = run_checked(spec)
    has = edf.deadline_s.notna()
    assert (edf[has].size_bytes < 200_000).all() and (edf[~has].size_bytes >= 200_000).all()
    # a deadline is at least 1.25 idle-network FCTs after the start
    assert ((edf[has].deadline_s - edf[has].start_s) >= 1.25 * edf[has].ideal_fct_s - 1e-12).all()
    from dcsim.figures.core import STATS
    met = {"edf": STATS["deadlines_met"](edf, edf.attrs["summary"])}
    # the same flows and deadlines without EDF: fewer met, but the deadlines are the same
    plain = run_checked(spec.with_overrides(**{"scheme.priority": "remaining_size"}))
    by_id = [d.sort_values("flow_id").deadline_s.fillna(0).to_numpy() for d in (plain, edf)]
    assert (by_id[0] == by_id[1]).all()
    met["plain"] = STATS["deadlines_met"](plain, plain.attrs["summary"])
    tcp = run_checked(spec.with_overrides(**{"scheme.name": "tcp"}))
    met["tcp"] = STATS["deadlines_met"](tcp, tcp.attrs["summary"])
    assert met["edf"] >= met["plain"] > met["tcp"], met
    assert met["edf"] > 95, met


def test_deadline_blind_runs_are_measured_against_any_mean():
    # pFabric by remaining size never reads a deadline: runs at two deadline
    # means are the same run, and the deadlines of one mean computed from
    # the other's flow table are exactly the engine's (Figs. 10-11 run such
    # schemes once and measure them against every mean)
    from dcsim.simulate import deadlines_for

    spec = Spec.model_validate({
        "topology": {"kind": "leaf_spine"}, "scheme": {"name": "pfabric"},
        "workload": {"flows": 600, "load": 0.6, "deadline_mean_us": 100, "size_quantum_bytes": 1460},
    })
    other = spec.with_overrides(**{"workload.deadline_mean_us": 5000})
    a, b = run_checked(spec), run_checked(other)
    cols = [c for c in a.columns if c != "deadline_s"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert not np.array_equal(a.deadline_s, b.deadline_s, equal_nan=True)
    for flows in (a, b):
        for s, ref in ((spec, a), (other, b)):
            np.testing.assert_array_equal(deadlines_for(s, flows), ref.deadline_s.to_numpy())
    with pytest.raises(dcsim.SpecError, match="not from the spec's workload"):
        deadlines_for(spec.with_overrides(**{"seed": 2}), a)


def test_flow_sampler_shows_pfabric_serving_flows_one_by_one():
    # Fig. 5(a): five flows to one host, sampled every 100 us: at any time
    # one flow takes (nearly) the whole link
    spec = incast_spec("pfabric", 5, 1, flow_bytes=2_000_000).with_overrides(
        **{"run.sample_us": 100, "run.sample_flows": True, "run.sample_queues": "none"})
    r = dcsim.run_all(spec)
    fs = r.flow_samples.sort_values(["flow_id", "time_s"])
    assert len(r.queues) == 0 and set(fs.flow_id) == set(r.flows.flow_id)
    rate = fs.groupby("flow_id").delivered_bytes.diff() / 100e-6 * 8 / 1e9  # Gb/s per interval
    busy = fs.assign(rate=rate).dropna().groupby("time_s").rate.apply(lambda x: (x > 1).sum())
    # one at a time (two around a hand-over), once the first windows (12
    # packets from each flow at the start) have drained
    assert (busy[busy.index > 0.00025] <= 2).all() and busy.max() >= 1
    served = fs.assign(rate=rate).dropna().groupby("time_s").rate.sum()
    assert served.median() > 9.0  # and the link stays full


@pytest.mark.parametrize("size", [1460, 300_000, 3_000_000])
def test_pfabric_at_line_rate_sends_a_lone_flow_as_fast_as_minimal_rate_control(write_trace, size):
    # the initial window is one BDP: alone, no rate control is needed
    df = run_checked(spec_of(write_trace([(0, 3, 140, size)]), {"name": "pfabric", "rate_control": "line_rate"},
                             "leaf_spine", fct_at="sender"))
    assert df.slowdown[0] == pytest.approx(1.0, rel=0.02)


def test_pfabric_at_line_rate_never_backs_off(write_trace):
    # 12 long flows into one port: at line rate every flow keeps its window
    # through its timeouts and resends full packets, so far more is lost
    # than with the minimal rate control (slow start after a timeout,
    # probes), and every flow still finishes
    trace = write_trace([(0, s, 0, 1_000_000) for s in range(1, 13)])
    lost = {}
    for rc in ("minimal", "line_rate"):
        df = run_checked(spec_of(trace, {"name": "pfabric", "rate_control": rc}))
        c = df.attrs["summary"]["counters"]
        lost[rc] = c["dropped_bytes"] / c["host_tx_bytes"]
        assert df.finish_s.notna().all()
    assert lost["line_rate"] > 1.5 * lost["minimal"], lost


def test_sixteen_log_bands_by_remaining_size_and_unlimited_priorities(write_trace):
    # the CS244 reproduction's switch: 16 PRIO bands, a packet's band its
    # flow's remaining size on a log scale; and a priority per value
    from dcsim.spec import engine_config

    base = {"topology": {"kind": "star", "hosts": 15, "rate_gbps": 0.1, "link_delay_us": 0},
            "workload": {"cdf": "web_search", "flows": 50, "load": 0.5}}
    prio16 = {"name": "prio_queues", "queues": 16, "thresholds": "log", "priority": "remaining_size",
              "reserved_bytes": 0}
    c = engine_config(Spec.model_validate({**base, "scheme": prio16}))
    ts = c["transport"]["prio_thresholds"]
    assert c["transport"]["prio"] == "remaining_size" and len(ts) == 15
    ratios = [b / a for a, b in zip(ts, ts[1:])]
    assert max(ratios) / min(ratios) < 1.01, "geometric"
    assert ts[0] > 1460 and ts[-1] < 30_000_000  # one packet .. web search's largest flow
    u = engine_config(Spec.model_validate({**base, "scheme": {**prio16, "queues": "unlimited"}}))
    assert u["port"]["switch"]["discipline"]["kind"] == "pfabric" and "prio_thresholds" not in u["transport"]
    # two flows into one host: the one with less left goes first either way
    rows = [(0, 1, 0, 3_000_000), (0.01, 2, 0, 300_000)]
    for sch in (prio16, {**prio16, "queues": "unlimited"}):
        df = run_checked(Spec.model_validate({**base, "scheme": sch,
                                              "workload": {"matrix": "trace", "trace": write_trace(rows)}}))
        by = df.set_index("size_bytes")
        assert by.finish_s[300_000] < by.finish_s[3_000_000]
        assert by.fct_s[300_000] < 1.15 * 300_000 / 1460 * 1500 * 8 / 1e8
