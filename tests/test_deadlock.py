"""PFC deadlock (docs/faults.md, "PFC deadlock"): a ring of switches whose
shortest paths chain buffer dependencies deadlocks under PFC, and the run
stops naming the cycle; heavy pausing without a cycle is not flagged."""

import warnings
from pathlib import Path

import pytest

import dcsim
from dcsim.spec import load_spec, spec_from_dict

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pfc_deadlock.toml"
RING = [[5, 6], [6, 7], [7, 8], [8, 9], [9, 5]]


def run(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dcsim.run_all(spec)


@pytest.mark.parametrize("scheme", ["dcqcn", "hpcc"])
def test_the_ring_deadlocks_and_the_run_says_where_and_when(scheme):
    spec = load_spec(EXAMPLE, {"scheme.name": scheme})
    r = run(spec)
    s = r.summary
    assert s["status"] == "deadlock"
    assert s["deadlock"]["ports"] == RING, "the ring's clockwise ports, in cycle order"
    # stuck within 30 us, nothing else left to happen: a deadlock at the
    # first check
    assert s["deadlock"]["since_s"] == pytest.approx(1e-3) and s["sim_time_s"] == pytest.approx(1e-3)
    assert s["unfinished_flows"] == 20 and s["conservation_holds"]


@pytest.mark.parametrize("overrides", [{"scheme.name": "tcp", "buffer.model": "shared"}, {"scheme.rto_us": 1000}])
def test_a_deadlock_with_timers_still_firing_is_confirmed_at_the_next_check(overrides):
    """TCP over PFC, or DCQCN with a retransmission timeout: the senders'
    timers still fire after the ring is stuck, so at the first check the
    run has more to do; the cycle is still there at the next, its ports
    having sent nothing since, and the run stops then, dating the deadlock
    from the first."""
    s = run(load_spec(EXAMPLE, overrides)).summary
    assert s["status"] == "deadlock" and s["deadlock"] == {"since_s": pytest.approx(1e-3), "ports": RING}
    assert s["sim_time_s"] == pytest.approx(2e-3) and s["counters"]["timeouts"] > 0


def test_without_the_detector_the_ring_never_moves_again():
    """The same ring with the checks off: with no timer left to fire, the
    run stalls within 30 us, the flows far from done; with a
    retransmission timeout, each sender times out once and can send
    nothing (its NIC is paused), and the run stalls all the same. With
    the checks, the stall is named a deadlock at once."""
    stalled = run(load_spec(EXAMPLE, {"run.deadlock_check_us": None}))
    assert stalled.summary["status"] == "stalled" and stalled.summary["sim_time_s"] < 30e-6
    assert stalled.flows.delivered_bytes.sum() < 0.01 * 20 * 20_000_000
    timed = run(load_spec(EXAMPLE, {"run.deadlock_check_us": None, "scheme.rto_us": 1000, "run.stop_time_s": 0.01}))
    assert timed.summary["status"] == "stalled" and timed.summary["unfinished_flows"] == 20
    assert timed.summary["counters"]["timeouts"] >= 5
    assert timed.flows.delivered_bytes.sum() < 0.01 * 20 * 20_000_000
    assert "deadlock" not in timed.summary
    # checks every 10 ms: at the first, nothing else is left to happen, and
    # the cycle is a deadlock at once
    slow = run(load_spec(EXAMPLE, {"run.deadlock_check_us": 10_000}))
    assert slow.summary["status"] == "deadlock" and slow.summary["sim_time_s"] == pytest.approx(0.01)
    assert slow.summary["deadlock"] == {"since_s": pytest.approx(0.01), "ports": RING}


def test_one_hop_flows_on_the_ring_do_not_deadlock(tmp_path):
    """Each host sending to the next switch's host: every flow crosses one
    ring link and leaves the ring at once, so no buffer waits for the next
    ring link: pauses, if any, never close a cycle."""
    flows = tmp_path / "flows.txt"
    flows.write_text("".join(f"{k * 1e-6:.9f} {i} {(i + 1) % 5} 2000000\n" for k in range(4) for i in range(5)))
    r = run(load_spec(EXAMPLE, {"workload.trace": str(flows)}))
    assert r.summary["status"] == "done" and "deadlock" not in r.summary


@pytest.mark.parametrize("scheme", ["dcqcn", "hpcc"])
def test_heavy_pausing_without_a_cycle_is_not_a_deadlock(scheme):
    """A 100-to-1 incast on the leaf-spine with PFC, checked every 20 us:
    pauses spread from the receiver's leaf to the spines and to the
    senders' leaves and NICs (over a hundred ports paused), a tree of
    dependencies, not a cycle; the run finishes."""
    spec = spec_from_dict({
        "scheme": {"name": scheme}, "routing": {"load_balancing": "ecmp"},
        "topology": {"kind": "leaf_spine", "host_rate_gbps": 100, "spine_rate_gbps": 100},
        "buffer": {"size_mb": 2},
        "workload": {"matrix": "incast", "senders": 100, "dst": 0, "flow_bytes": 1_000_000, "requests": 3},
        "run": {"deadlock_check_us": 20}})
    s = run(spec).summary
    assert s["status"] == "done" and "deadlock" not in s
    assert s["pfc"]["paused_ports"] > 100 and s["pfc"]["paused_s_by_tier"].get("spine_or_aggregation", 0) > 0
