"""The schemes of the pFabric paper against what is known independently:
pFabric's ports and a lone pFabric flow, the Ideal scheduler against an
SRPT schedule computed another way, DCTCP's queue and link utilization,
and TCP-family details (connection pools, probes)."""

import json
import math
import random

import numpy as np
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
        r = dcsim.run_all(spec_of(trace, {"name": name, "fast_retransmit": False}, queue_sample_us=20,
                                  queue_sample_ports="to_hosts"))
        q = r.queues[(r.queues.peer == 0)]
        done = r.flows.finish_s.max()
        steady = q[(q.time_s > 0.2 * done) & (q.time_s < 0.8 * done)]
        res[name] = (steady.bytes.mean(), steady.bytes.max(), n * size * 1500 / 1460 * 8 / 10e9 / done)
    mean, peak, busy = res["dctcp"]
    assert 0.5 * 21_900 < mean < 2.5 * 21_900, res
    assert peak < 21_900 + 2 * n * 1500 + 40_000, res
    assert busy > 0.95, res
    assert res["tcp"][0] > 4 * mean  # drop-tail fills its buffer


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
