"""BFC (`queue/bfc.rs`, `backpressure.rs`), end to end."""

import pandas as pd
import pytest

from dcsim.simulate import engine_config_json, run_all
from dcsim.spec import Spec


def _star(write_trace, rows, hosts, **scheme):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": hosts, "rate_gbps": 100.0, "link_delay_us": 1.0},
        "scheme": {"name": "bfc", **scheme},
        "workload": {"matrix": "trace", "trace": write_trace(rows)},
        "run": {"sample_us": 1.0, "sample_queues": "to_hosts"}})


@pytest.mark.parametrize("n, busy", [(2, 0.78), (4, 0.84), (16, 0.97)])
def test_long_flows_share_a_bottleneck_equally(write_trace, n, busy):
    # n senders at line rate into one host, no end-to-end control: the
    # bottleneck's BFC queues pause each sender's NIC queue past Th = HRTT
    # x rate / n and resume it when its counted packets have left. Shares
    # are equal; a resumed flow's packets take an HRTT to arrive, so a few
    # synchronized flows leave the link idle now and then (App. C bounds
    # the loss at 20%), more flows keep it busy
    size = 5_000_000
    r = run_all(_star(write_trace, [(0.0, h, 0, size) for h in range(1, n + 1)], n + 1))
    s = r.summary
    assert s["counters"]["dropped_pkts"] == 0 and s["counters"]["pfc_frames"] > 0
    finish = r.flows.start_s + r.flows.fct_s
    assert finish.min() / finish.max() > 0.97
    one = r.flows.ideal_fct_s.iloc[0]  # a flow alone at line rate
    assert n * one / finish.max() > busy
    # the bottleneck's queue stays within a few one-hop BDPs (25 KB) per
    # flow: the threshold plus what is in flight while a pause travels
    q = r.queues[(r.queues.peer == 0) & (r.queues.time_s > 20e-6)].bytes
    assert q.max() < n * 3 * 25_000


def test_a_flow_alone_is_never_paused(write_trace):
    r = run_all(_star(write_trace, [(0.0, 1, 0, 3_000_000)], 2))
    assert r.summary["counters"]["pfc_frames"] == 0
    assert r.flows.slowdown.iloc[0] == pytest.approx(1.0, abs=1e-9)


def test_dynamic_assignment_separates_flows_that_a_hash_mixes(write_trace):
    # 8 flows into one host through 8 queues: dynamic assignment gives each
    # its own queue (equal shares); a static hash puts some together, and
    # flows sharing a queue share its share
    rows = [(0.0, h, 0, 2_000_000) for h in range(1, 9)]
    fair = run_all(_star(write_trace, rows, 9, queues=8)).flows
    hashed = run_all(_star(write_trace, rows, 9, queues=8, assign="stochastic")).flows
    spread = lambda f: (f.start_s + f.fct_s).max() / (f.start_s + f.fct_s).min()
    assert spread(fair) < 1.05
    assert spread(hashed) > 1.3
    # and the summary counts it (Fig. 27(b)): every flow is a new
    # assignment at the switch port; dynamic assignment finds each an empty
    # queue, the hash puts some on busy ones
    s = run_all(_star(write_trace, rows, 9, queues=8)).summary["bfc"]
    assert s["assignments"] >= 8 and s["collisions"] == 0
    s = run_all(_star(write_trace, rows, 9, queues=8, assign="stochastic")).summary["bfc"]
    assert s["collisions"] > 0 and s["collision_fraction"] == s["collisions"] / s["assignments"]


def test_an_incast_through_a_fabric_is_held_back_to_the_senders(write_trace):
    # 31 senders on other leaves into one host: the last hop pauses the
    # spines' queues, which pause the leaves', which pause the NICs; the
    # buffers stay small and nothing is lost, without PFC
    spec = Spec.model_validate({
        "topology": {"kind": "leaf_spine", "leaves": 3, "spines": 2, "hosts_per_leaf": 16, "host_rate_gbps": 100.0,
                     "spine_rate_gbps": 100.0, "host_link_delay_us": 1.0, "spine_link_delay_us": 1.0},
        "routing": {"load_balancing": "ecmp"}, "scheme": {"name": "bfc"},
        "workload": {"matrix": "trace", "trace": write_trace([(0.0, h, 0, 500_000) for h in range(16, 47)])},
        "run": {"sample_us": 1.0, "sample_queues": "none"}})
    r = run_all(spec)
    s = r.summary
    assert s["counters"]["dropped_pkts"] == 0 and s["flows_finished"] == 31
    assert s["counters"]["pfc_frames"] > 100
    # far below what 31 line-rate senders would pile up (15.5 MB)
    assert r.buffers.bytes.max() < 2_000_000
    finish = (r.flows.start_s + r.flows.fct_s).max()
    assert 31 * r.flows.ideal_fct_s.iloc[0] / finish > 0.9


def test_bfc_runs_without_pfc_and_deterministically(write_trace):
    rows = [(i * 1e-6, 1 + i % 4, 0, 100_000 + 1000 * i) for i in range(12)]
    spec = _star(write_trace, rows, 5)
    cfg = engine_config_json(spec)
    assert '"pfc": false' in cfg and '"kind": "bfc"' in cfg
    a, b = run_all(spec), run_all(spec)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert a.summary["counters"] == b.summary["counters"]


def test_bfc_refuses_a_setting_its_ports_ignore(write_trace):
    from dcsim.errors import SpecError
    from dcsim.simulate import build

    spec = _star(write_trace, [(0.0, 1, 0, 1000)], 2)
    spec = spec.model_copy(update={"buffer": spec.buffer.model_copy(update={"acks_high_priority": False})})
    with pytest.raises(SpecError, match="acks_high_priority"):
        build(spec)
