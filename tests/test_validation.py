"""End-to-end validation of the engine against what is known exactly:
analytic single-flow times, fair sharing, M/D/1 queueing, conservation,
offered load and determinism."""

import math

import numpy as np
import pytest

import dcsim
from dcsim.spec import Spec
from conftest import run_checked

MSS, HDR = 1460, 40


def trace_spec(trace, topology="leaf_spine", fct_at="sender", **scheme):
    return Spec.model_validate(
        {
            "topology": {"kind": topology},
            "scheme": {"name": "tcp", **scheme},
            "workload": {"matrix": "trace", "trace": trace},
            "run": {"fct_at": fct_at},
        }
    )


def analytic_fct(size, hops, host_delay=0.0, fct_at="receiver"):
    """Store-and-forward of a back-to-back packet train: the bottleneck
    serializes all bytes, every other hop adds one full packet, every hop
    adds its propagation delay. `hops` = [(rate_bps, delay_s)]. Ending at
    the sender adds the last ACK's way back: each hop's 40-byte
    serialization and propagation, and the sender's host delay."""
    n = math.ceil(size / MSS)
    wire = size + n * HDR
    pkt = min(size, MSS) + HDR
    b = min(range(len(hops)), key=lambda i: hops[i][0])
    t = wire * 8 / hops[b][0] + sum(d for _, d in hops) + host_delay
    t += sum(pkt * 8 / r for i, (r, _) in enumerate(hops) if i != b)
    if fct_at == "sender":
        t += sum(40 * 8 / r + d for r, d in hops) + host_delay
    return t


STAR = [(10e9, 2.7e-6)] * 2
ACROSS_SPINE = [(10e9, 2.7e-6), (40e9, 0.2e-6), (40e9, 0.2e-6), (10e9, 2.7e-6)]
UNDER_LEAF = [(10e9, 2.7e-6)] * 2


@pytest.mark.parametrize("size", [1, 1460, 5000, 17520, 100_000, 1_000_000, 3_333_333])
@pytest.mark.parametrize(
    "topology,src,dst,hops", [("star", 0, 5, STAR), ("leaf_spine", 0, 143, ACROSS_SPINE), ("leaf_spine", 0, 15, UNDER_LEAF)]
)
@pytest.mark.parametrize("fct_at", ["receiver", "sender"])
def test_single_flow_matches_analytic_time(write_trace, size, topology, src, dst, hops, fct_at):
    # An unlimited window makes the sender a back-to-back packet train.
    spec = trace_spec(
        write_trace([(0.001, src, dst, size)]), topology, fct_at,
        init_cwnd_pkts=1e6, max_cwnd_pkts="unlimited", host_queue_bytes="unlimited",
    )
    df = run_checked(spec)
    fct = df.fct_s[0]
    expect = analytic_fct(size, hops, fct_at=fct_at)
    one_pkt = (MSS + HDR) * 8 / 10e9
    assert abs(fct - expect) <= one_pkt, (fct, expect)
    # the engine's ideal FCT is the same quantity
    assert df.ideal_fct_s[0] == pytest.approx(expect, abs=1e-12)
    assert df.start_s[0] == pytest.approx(0.001)


def test_rtts_match_the_pfabric_paper():
    # pFabric §5.1: ~14.6 us across the spine, ~13.3 us under one leaf
    # (1500 B data out, 40 B ACK back).
    def rtt(hops):
        return sum(2 * d + (1500 + 40) * 8 / r for r, d in hops)

    assert rtt(ACROSS_SPINE) == pytest.approx(14.68e-6, abs=0.1e-6)
    assert rtt(UNDER_LEAF) == pytest.approx(13.26e-6, abs=0.1e-6)


@pytest.mark.parametrize("fct_at,deliveries", [("receiver", 1), ("sender", 2)])
def test_host_delay_adds_once_per_delivery(write_trace, fct_at, deliveries):
    # the data packet at the receiver; with the sender's view, its ACK too
    trace = write_trace([(0, 0, 5, 1460)])
    base = trace_spec(trace, "star", fct_at)
    slow = base.with_overrides(**{"run.host_delay_us": 3.0})
    a, b = run_checked(base), run_checked(slow)
    assert b.fct_s[0] - a.fct_s[0] == pytest.approx(deliveries * 3e-6, abs=1e-12)
    assert b.slowdown[0] == pytest.approx(1.0)


@pytest.mark.parametrize("size", [1460, 12 * 1460, 500_000, 2_000_000, 10_000_000])
def test_bdp_initial_window_gives_slowdown_one(write_trace, size):
    # BDP across the spine: 10 Gb/s x 14.68 us = 18.35 KB = 13 packets.
    spec = trace_spec(write_trace([(0, 3, 140, size)]), init_cwnd_pkts=13)
    df = run_checked(spec)
    assert df.slowdown[0] == pytest.approx(1.0, rel=0.02)


@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("threshold", [22_500, 60_000])
def test_long_flows_share_a_bottleneck_fairly(write_trace, n, threshold):
    # n equal flows into one host through an ECN-marking switch (TCP with
    # RFC 3168 ECN): if each gets 1/n of the link, even the first to finish
    # needs n x size / rate, and the last finishes at that time too.
    size = 4_000_000
    rows = [(0, s, 0, size) for s in range(1, n + 1)]
    spec = trace_spec(write_trace(rows), "star", ecn=True, ecn_threshold_bytes=threshold)
    df = run_checked(spec)
    fair = n * (size + math.ceil(size / MSS) * HDR) * 8 / 10e9
    assert df.fct_s.min() >= 0.9 * fair, (df.fct_s.min(), fair)
    assert df.fct_s.max() == pytest.approx(fair, rel=0.02)
    assert df.attrs["summary"]["counters"]["marked_pkts"] > 0


@pytest.mark.parametrize("n", [2, 4, 8])
def test_drop_tail_keeps_the_bottleneck_busy(write_trace, n):
    # Drop-tail TCP is not fair among synchronized flows (lock-out, RFC 2309
    # §2; see docs/schemes.md) but the link must stay busy: the last flow
    # ends within 10% of n x size / rate.
    size = 4_000_000
    rows = [(0, s, 0, size) for s in range(1, n + 1)]
    df = run_checked(trace_spec(write_trace(rows), "star", fast_retransmit=True))
    fair = n * (size + math.ceil(size / MSS) * HDR) * 8 / 10e9
    assert fair * 0.999 <= df.fct_s.max() <= 1.1 * fair
    assert df.attrs["summary"]["counters"]["dropped_pkts"] > 0


def single_packet_wait(tmp_path, cdf_rows, rho, seed):
    """Mean queueing delay of one-packet flows with Poisson arrivals, all to
    host 0 of a 65-host star: the destination's access link is a single
    FIFO server. (The senders' NICs each carry rho/64 and add a little
    queueing of their own.)"""
    cdf = tmp_path / "sizes.txt"
    cdf.write_text(cdf_rows)
    spec = Spec.model_validate(
        {
            "topology": {"kind": "star", "hosts": 65},
            "scheme": {"name": "tcp", "queue_bytes": 10_000_000},
            "workload": {"cdf": str(cdf), "load": rho, "matrix": "many_to_one", "dst": 0, "flows": 60_000},
            "seed": seed,
        }
    )
    df = run_checked(spec)
    return (df.fct_s - df.ideal_fct_s).mean()


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.8])
def test_single_packet_flows_see_md1_waiting_time(tmp_path, rho):
    # Equal sizes: M/D/1, Pollaczek-Khinchine W = rho S / (2 (1 - rho)).
    wait = single_packet_wait(tmp_path, "1460 0\n1460 1\n", rho, seed=3)
    service = 1500 * 8 / 10e9
    expect = rho * service / (2 * (1 - rho))
    assert wait == pytest.approx(expect, rel=0.06, abs=0.02 * service), (wait, expect)


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_variable_single_packet_flows_see_mg1_waiting_time(tmp_path, rho):
    # Sizes uniform on 100..1460 B payload: M/G/1 FIFO,
    # Pollaczek-Khinchine W = lambda E[S^2] / (2 (1 - rho)).
    wait = single_packet_wait(tmp_path, "100 0\n1460 1\n", rho, seed=4)
    lo, hi = (100 + 40) * 8 / 10e9, (1460 + 40) * 8 / 10e9
    es = (lo + hi) / 2
    es2 = (lo * lo + lo * hi + hi * hi) / 3
    expect = (rho / es) * es2 / (2 * (1 - rho))
    assert wait == pytest.approx(expect, rel=0.06, abs=0.02 * es), (wait, expect)


@pytest.mark.parametrize("cdf,load,flows", [("web_search", 0.6, 300_000), ("web_search", 0.2, 300_000)])
def test_offered_load_matches_target(cdf, load, flows):
    spec = Spec.model_validate({"workload": {"cdf": cdf, "load": load, "flows": flows}, "seed": 11})
    f = dcsim.generated_flows(spec)
    wire = f.size_bytes + np.ceil(f.size_bytes / MSS) * HDR
    duration = f.start_s.iloc[-1] - f.start_s.iloc[0]
    offered = wire.sum() * 8 / duration / (144 * 10e9)
    assert offered == pytest.approx(load, rel=0.02)
    # every host sends about 1/144 of the flows
    per_src = np.bincount(f.src, minlength=144) / len(f)
    assert per_src.max() < 1.2 / 144


def test_core_load_basis_scales_with_uplink_capacity():
    base = {"workload": {"load": 0.5, "flows": 200_000}, "seed": 5}
    host = dcsim.generated_flows(Spec.model_validate(base))
    base["workload"]["load_basis"] = "core"
    core = dcsim.generated_flows(Spec.model_validate(base))
    # 9 leaves x 4 spines x 40 Gb/s = 1440 Gb/s, the same as 144 x 10 Gb/s
    ratio = host.start_s.iloc[-1] / core.start_s.iloc[-1]
    assert ratio == pytest.approx(1.0, rel=1e-9)


def test_losses_are_counted_and_conserved(write_trace):
    # 8 senders into one host with a 20-packet buffer: drops must happen,
    # every flow must still finish, and every packet must be accounted for.
    rows = [(0, s, 0, 300_000) for s in range(1, 9)]
    df = run_checked(trace_spec(write_trace(rows), "star", queue_bytes=30_000))
    s = df.attrs["summary"]
    assert len(df) == 8
    assert s["counters"]["dropped_pkts"] > 0
    # only data packets go towards host 0, and every dropped one is sent again
    assert s["counters"]["retransmitted_pkts"] >= s["counters"]["dropped_pkts"]
    assert s["drops_by_tier"].get("leaf_or_edge", 0) == s["counters"]["dropped_pkts"]
    assert s["conservation"]["dropped_bytes"] > 0


def test_stop_time_reports_unfinished_flows(write_trace):
    spec = trace_spec(write_trace([(0, 0, 5, 10_000_000), (0, 1, 6, 1460)]), "star")
    spec = spec.with_overrides(**{"run.stop_time_s": 0.001})
    # a warning Python can filter (the command line prints it as its own line)
    with pytest.warns(dcsim.DcsimWarning) as said:
        df = dcsim.run(spec)
    s = df.attrs["summary"]
    assert s["status"] == "stopped"
    assert s["unfinished_flows"] == 1 and len(df) == 2
    assert s["conservation_holds"]
    (w,) = [str(w.message) for w in said]
    assert "1 of 2 flows did not finish" in w and "the returned table lists the 1" in w
    assert "flows.parquet" not in w  # the API writes no file
    # the unfinished flow is kept: its start, size and what arrived, no finish
    big = df.set_index("flow_id").loc[0]
    assert math.isnan(big.finish_s) and math.isnan(big.slowdown) and big.start_s == 0
    # in 1 ms at 10 Gb/s at most 1.25 MB can arrive; TCP gets most of it
    assert 300_000 < big.delivered_bytes <= 1_250_000 and big.delivered_bytes % 1460 == 0
    # the statistics are over finished flows; the unfinished one is counted
    table = dcsim.slowdown_by_size(df)
    assert table.loc["all", "flows"] == 1 and table.loc["all", "unfinished"] == 1
    assert table.loc["(10MB, inf]", "unfinished"] == 0 and table.loc["(100KB, 10MB]", "unfinished"] == 1


def test_same_seed_same_flows_different_seed_different():
    spec = Spec.model_validate({"workload": {"flows": 400, "load": 0.5}, "seed": 7})
    a, b = dcsim.run(spec), dcsim.run(spec)
    assert a.equals(b)
    c = dcsim.run(spec.with_overrides(seed=8))
    assert not a.equals(c)


@pytest.mark.parametrize(
    "topology,queue,ecn", [("leaf_spine", 225_000, None), ("star", 30_000, None), ("star", 60_000, 15_000)]
)
def test_fifo_fast_path_matches_the_general_path(topology, queue, ecn):
    # FIFO ports compute departures at arrival and keep their buffer count
    # only as an upper bound until admission depends on it; the general
    # path decides each departure lazily (at the next arrival at the port or
    # at the far end of its link). The results must be identical: flows,
    # drops, ECN marks and every port's statistics (including its maximum
    # queue); neither path needs events beyond the packets' arrivals.
    import json

    from dcsim._core import Sim
    from dcsim.spec import engine_config_json

    scheme = {"name": "tcp", "queue_bytes": queue}
    if ecn is not None:
        scheme.update(ecn=True, ecn_threshold_bytes=ecn)
    spec = Spec.model_validate(
        {"topology": {"kind": topology}, "scheme": scheme, "workload": {"flows": 800, "load": 0.7}, "seed": 5}
    )
    config = json.loads(engine_config_json(spec))
    out = []
    for fast in (True, False):
        config["port"]["fifo_fast_path"] = fast
        sim = Sim(json.dumps(config))
        while sim.run(1 << 20) == "running":
            pass
        summary = json.loads(sim.summary_json())
        assert summary["conservation_holds"]
        out.append((sim.drain(), summary["counters"], summary["ports"]))
    (fast, cf, pf), (general, cg, pg) = out
    assert fast == general
    assert cf["dropped_pkts"] == cg["dropped_pkts"] and cf["packet_hops"] == cg["packet_hops"]
    assert cf["marked_pkts"] == cg["marked_pkts"]
    assert pf == pg
    assert cf["events"] == cg["events"]
    if queue < 100_000:
        assert cf["dropped_pkts"] > 0
    if ecn is not None:
        assert cf["marked_pkts"] > 0



def _one_bottleneck(tmp_path, sizes: str, rho: float, hosts: int, flows: int, seed: int, scheme: dict,
                    fct_at: str = "sender", **workload):
    """Every flow into host 0 of a star at load `rho`, sizes from the CDF
    text `sizes`: one bottleneck, for queueing theory's single-server
    results."""
    cdf = tmp_path / "sizes.txt"
    cdf.write_text(sizes)
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": hosts}, "scheme": scheme,
        "workload": {"cdf": str(cdf), "load": rho, "matrix": "many_to_one", "dst": 0, "flows": flows, **workload},
        "run": {"fct_at": fct_at}, "seed": seed})

@pytest.mark.parametrize("rho", [0.4, 0.7])
def test_las_on_one_link_is_foreground_background(tmp_path, rho):
    # Least attained service (`las`: pFabric's queue ordered by the bytes a
    # flow has sent) at one bottleneck, host 0's link of a 65-host star,
    # against M/G/1 under foreground-background (processor sharing among
    # the jobs that have received least service):
    #   E[T(x)] = x / (1 - rho_x) + lambda m2(x) / (2 (1 - rho_x)^2),
    #   rho_x = lambda E[min(S, x)], m2(x) = E[min(S, x)^2].
    # Sizes of 11-60 whole packets; senders dump a flow at once (a window
    # larger than any flow, no timeouts) into a buffer that never fills.
    # A flow's delay beyond its time alone, fct - ideal, is T(x) - x.
    df = run_checked(_one_bottleneck(
        tmp_path, "14600 0\n87600 1\n", rho, 65, 30_000, 5,
        {"name": "las", "queue_bytes": 100_000_000, "init_cwnd_pkts": 1000, "max_cwnd_pkts": "unlimited",
         "rto_us": 1e6, "probe_mode": False}, size_quantum_bytes=MSS))
    assert df.retransmits.sum() == 0
    tau = (MSS + HDR) * 8 / 10e9
    k = np.arange(11, 61)  # ceil of uniform(10, 60) packets: each equally likely
    s = k * tau
    lam = rho / s.mean()

    def delay(x):
        m = np.minimum(s, x)
        rx = lam * m.mean()
        return x / (1 - rx) + lam * (m * m).mean() / (2 * (1 - rx) ** 2) - x

    pkts = (df.size_bytes / MSS).round().astype(int)
    got = df.fct_s - df.ideal_fct_s
    for lo in range(11, 61, 10):
        sel = (pkts >= lo) & (pkts < lo + 10)
        want = np.mean([delay(n * tau) for n in range(lo, lo + 10)])
        assert got[sel].mean() == pytest.approx(want, rel=0.12), (lo, got[sel].mean(), want)
    assert got.mean() == pytest.approx(np.mean([delay(x) for x in s]), rel=0.05)


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_ideal_fq_on_one_link_is_processor_sharing(tmp_path, rho):
    # `ideal_fq` (max-min fair sharing, BFC's Ideal-FQ) with every flow into
    # host 0 of a star: the only bottleneck is host 0's link, shared equally
    # by the flows in progress, so it is M/G/1 under processor sharing:
    #   E[T(x)] = x / (1 - rho)  for a flow of service time x,
    # whatever the size distribution. A flow's service time x is its wire
    # bytes at 10 Gb/s; its FCT adds what the idle network adds (fct - ideal
    # + x is its time in the shared link).
    df = run_checked(_one_bottleneck(tmp_path, "10000 0\n1000000 1\n", rho, 33, 40_000, 3, {"name": "ideal_fq"},
                                     fct_at="receiver"))
    wire = df.size_bytes + np.ceil(df.size_bytes / MSS) * HDR
    x = wire * 8 / 10e9
    t = df.fct_s - df.ideal_fct_s + x
    assert (t / x).mean() == pytest.approx(1 / (1 - rho), rel=0.06)
    # the same slowdown for small and large flows (PS favours none)
    small, large = x < x.median(), x >= x.median()
    assert (t[small] / x[small]).mean() == pytest.approx((t[large] / x[large]).mean(), rel=0.08)
    assert t.mean() == pytest.approx(x.mean() / (1 - rho), rel=0.06)


def test_ideal_fq_max_min_over_a_fabric(write_trace):
    # two flows from one host to two hosts under other leaves share the
    # sender's uplink; a third into one of those receivers from a third
    # leaf gets half that receiver's link: at 10 Gb/s everywhere every flow
    # gets 5 Gb/s and the three finish together
    from dcsim.errors import SpecError

    trace = write_trace([(0.0, 0, 16, 1_000_000), (0.0, 0, 32, 1_000_000), (0.0, 48, 32, 1_000_000)])
    spec = Spec.model_validate({
        "topology": {"kind": "leaf_spine", "spine_rate_gbps": 10.0, "host_link_delay_us": 0.0,
                     "spine_link_delay_us": 0.0},
        "routing": {"load_balancing": "ecmp"}, "scheme": {"name": "ideal_fq"},
        "workload": {"matrix": "trace", "trace": trace}, "run": {"fct_at": "receiver"}})
    df = run_checked(spec).set_index("flow_id")
    x = (1_000_000 + np.ceil(1_000_000 / MSS) * HDR) * 8 / 10e9
    service = df.fct_s - df.ideal_fct_s + x
    assert service.to_numpy() == pytest.approx([2 * x] * 3, rel=1e-6)
    with pytest.raises(SpecError, match="ecmp"):
        run_checked(spec.model_copy(update={"routing": spec.routing.model_copy(update={"load_balancing": "spray"})}))
