"""BFC (`queue/bfc.rs`, `backpressure.rs`), end to end."""

import json

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


def _bottleneck_peak(r):
    return r.queues[(r.queues.peer == 0) & (r.queues.time_s > 20e-6)].bytes.max()


def test_nics_that_ignore_pauses_get_none_and_cap_their_flows_at_a_bdp(write_trace):
    # BFC - NIC (App. A.8): the first switch counts nothing against a NIC,
    # so on a star no frame is sent at all; each flow's packets in flight
    # are capped at the network's BDP (4 us x 100 Gb/s = 50 KB here), and
    # the bottleneck holds what the window lets through, more than the
    # paused NICs leave there
    rows = [(0.0, h, 0, 3_000_000) for h in range(1, 5)]
    paused = run_all(_star(write_trace, rows, 5))
    capped = run_all(_star(write_trace, rows, 5, nic_pauses=False))
    cfg = json.loads(engine_config_json(_star(write_trace, rows, 5, nic_pauses=False)))
    assert cfg["transport"]["window_bdp"] and cfg["bfc"]["nic_pauses"] is False
    s = capped.summary["counters"]
    assert s["pfc_frames"] == 0 and s["dropped_pkts"] == 0 and capped.summary["flows_finished"] == 4
    bdp = 100e9 / 8 * 4.16e-6  # the longest base RTT: two hops each way, and a packet per hop
    assert _bottleneck_peak(paused) < _bottleneck_peak(capped) <= 4 * bdp
    # the four flows still share the link equally (FIFO within no queue: one each)
    finish = capped.flows.start_s + capped.flows.fct_s
    assert finish.min() / finish.max() > 0.97


def test_sampling_counts_only_recirculated_packets(write_trace):
    # App. A.8: half the packets are drawn for recirculation; only they
    # count in the flow table and against the upstream. Backpressure still
    # holds the bottleneck near its threshold and the flows share it; the
    # draws are the port's own seeded stream (deterministic)
    rows = [(0.0, h, 0, 3_000_000) for h in range(1, 5)]
    full = run_all(_star(write_trace, rows, 5))
    half = run_all(_star(write_trace, rows, 5, sample=0.5))
    again = run_all(_star(write_trace, rows, 5, sample=0.5))
    pd.testing.assert_frame_equal(half.flows, again.flows)
    assert not half.flows.fct_s.equals(full.flows.fct_s)
    assert half.summary["counters"]["dropped_pkts"] == 0 and half.summary["counters"]["pfc_frames"] > 0
    assert _bottleneck_peak(half) < 4 * 3 * 25_000
    finish = half.flows.start_s + half.flows.fct_s
    assert finish.min() / finish.max() > 0.95


def test_labelled_flows_share_one_queue(write_trace, monkeypatch):
    # App. A.7's IncastLabel at the engine: 8 labelled flows share one
    # flow-table entry, so one queue at the receiver's port; the one other
    # flow into that host gets half the link while they last, not a ninth
    import dcsim.simulate as simulate

    rows = [(0.0, h, 0, 1_000_000) for h in range(1, 9)] + [(0.0, 9, 0, 2_000_000)]
    spec = _star(write_trace, rows, 10)
    plain = run_all(spec)
    resolve = simulate.engine_config_json

    def labelled(s):
        cfg = json.loads(resolve(s))
        cfg["bfc"]["labelled_flows"] = list(range(8))
        return json.dumps(cfg)

    monkeypatch.setattr(simulate, "engine_config_json", labelled)
    label = run_all(spec)
    other = lambda r: r.flows[r.flows.size_bytes == 2_000_000].fct_s.iloc[0]
    ideal = plain.flows[plain.flows.size_bytes == 2_000_000].ideal_fct_s.iloc[0]
    # without the label about 5x the flow alone (a ninth of the link while
    # the 8 MB last, then alone); with it about 2x (half the link until it
    # is done), a little more as its one upstream queue, paused and resumed,
    # runs dry now and then (2 flows keep a link 78% busy in the test above)
    assert other(plain) / ideal == pytest.approx(5.0, rel=0.1)
    assert 1.9 < other(label) / ideal < 2.6
    assert label.summary["flows_finished"] == 9 and label.summary["counters"]["dropped_pkts"] == 0


def test_incast_label_labels_the_incast_flows():
    from dcsim.spec.experiment import incast_ids

    spec = Spec.model_validate({**BFC_SMALL, "scheme": {"name": "bfc", "incast_label": True}})
    cfg = json.loads(engine_config_json(spec))
    ids = incast_ids(spec)
    assert cfg["bfc"]["labelled_flows"] == [int(i) for i in (ids >= 0).nonzero()[0]]
    assert len(cfg["bfc"]["labelled_flows"]) == 2 * 8
    plain = json.loads(engine_config_json(Spec.model_validate({**BFC_SMALL, "scheme": {"name": "bfc"}})))
    assert plain["bfc"]["labelled_flows"] == [] and plain["workload"] == cfg["workload"]


#: A small generated workload with two 8-to-1 incasts on top.
BFC_SMALL = {
    "topology": {"kind": "star", "hosts": 10, "rate_gbps": 100.0, "link_delay_us": 1.0},
    "workload": {"cdf": "fb_hadoop", "flows": 50, "load": 0.3,
                 "incasts": {"senders": 8, "total_bytes": 800_000, "load_share": 0.05, "count": 2}}}


def test_incast_label_needs_incasts(write_trace):
    with pytest.raises(ValueError, match="incast_label"):
        _star(write_trace, [(0.0, 1, 0, 1000)], 2, incast_label=True)


def test_delay_control_on_top_keeps_many_flows_from_filling_the_queues(write_trace):
    # BFC + CC (App. A.1): 32 long flows into one host through 4 queues.
    # BFC alone lets each flow hold about a hop's BDP at the bottleneck
    # (collisions: flows share queues); the delay-based window steers the
    # RTT to 2.5 base RTTs: once the first windows (a BDP each) have
    # drained, the queue holds the other 1.5 base RTTs, 1.5 BDPs, and the
    # link stays busy
    rows = [(0.0, h, 0, 1_000_000) for h in range(1, 33)]
    plain = run_all(_star(write_trace, rows, 33, queues=4))
    cc = run_all(_star(write_trace, rows, 33, queues=4, cc="delay"))
    bdp = 100e9 / 8 * 4.16e-6
    assert _bottleneck_peak(plain) > 8 * bdp
    late = cc.queues[(cc.queues.peer == 0) & (cc.queues.time_s > 400e-6) & (cc.queues.time_s < 2e-3)].bytes
    assert late.mean() == pytest.approx(1.5 * bdp, rel=0.2) and late.max() < 2.5 * bdp
    finish = (cc.flows.start_s + cc.flows.fct_s).max()
    assert 32 * cc.flows.ideal_fct_s.iloc[0] / finish > 0.9
    assert cc.summary["counters"]["dropped_pkts"] == 0


def test_queueing_delay_is_each_packets_wait_at_the_switch(write_trace):
    # two one-packet messages reach the switch together: one leaves at
    # once, the other waits exactly one packet's serialization (1048 B at
    # 100 Gb/s); a flow alone at line rate never waits
    spec = _star(write_trace, [(0.0, 1, 0, 1000), (0.0, 2, 0, 1000), (1e-3, 3, 4, 200_000)], 5)
    spec = spec.model_copy(update={"run": spec.run.model_copy(update={"queueing_delay": True})})
    d = run_all(spec).summary["queueing_delay"]
    one = d["leaf_or_edge_single"]
    assert one["packets"] == 2 and one["max_us"] == pytest.approx(1048 * 8 / 100e9 * 1e6, abs=1e-9)
    assert one["mean_us"] == pytest.approx(one["max_us"] / 2, abs=1e-9)
    allp = d["leaf_or_edge"]
    assert allp["packets"] == 2 + 200 and allp["max_us"] == one["max_us"] and allp["p95_us"] == 0


def test_queueing_delay_needs_shared_buffers_or_ports_that_choose(write_trace):
    from dcsim.errors import SpecError
    from dcsim.simulate import build

    # FIFO ports decide departures at arrival (the fast path): no waits kept
    with pytest.raises(SpecError, match="queueing_delay"):
        build(Spec.model_validate({"scheme": {"name": "tcp"}, "run": {"queueing_delay": True}}))
    # a priority port (Homa's, pFabric's) keeps them, by direction: two
    # one-packet messages into one host, the second waits one packet's time
    # at the switch's port to it (downwards)
    spec = Spec.model_validate({
        "topology": {"kind": "star", "hosts": 4, "rate_gbps": 100.0, "link_delay_us": 1.0},
        "scheme": {"name": "homa", "size_cdf": "fb_hadoop"},
        "workload": {"matrix": "trace", "trace": write_trace([(0.0, 1, 0, 1000), (0.0, 2, 0, 1000)])},
        "run": {"queueing_delay": True}})
    d = run_all(spec).summary["queueing_delay"]
    assert set(d) == {"leaf_or_edge", "leaf_or_edge_single"}
    assert d["leaf_or_edge"]["packets"] == 2
    assert d["leaf_or_edge"]["max_us"] == pytest.approx(1048 * 8 / 100e9 * 1e6, abs=1e-9)


def test_a_long_flow_lasts_the_run_on_top_of_the_workload():
    from dcsim.errors import SpecError
    from dcsim.spec.experiment import long_flow_ids

    base = {"topology": {"kind": "star", "hosts": 5, "rate_gbps": 100.0, "link_delay_us": 1.0},
            "scheme": {"name": "bfc"},
            "workload": {"cdf": "fb_hadoop", "matrix": "many_to_one", "dst": 0, "load": 0.3, "flows": 200,
                         "long_flows": {"src": 1, "dst": 0}}}
    with pytest.raises(SpecError, match="stop_time_s"):
        run_all(Spec.model_validate(base))
    spec = Spec.model_validate({**base, "run": {"stop_time_s": 0.001}})
    r = run_all(spec)
    ids = long_flow_ids(spec)
    assert (ids >= 0).sum() == 1 and ids[0] == 0  # it starts with the workload, before its first flow
    lf = r.flows[r.flows.flow_id == 0].iloc[0]
    assert lf.size_bytes == 10**12 and lf.src == 1 and lf.dst == 0 and lf.slowdown != lf.slowdown
    # it gets what the cross traffic leaves of the link (30% load), less its headers
    share = lf.delivered_bytes * 8 / 1e-3 / 100e9
    assert 0.5 < share < 1000 / 1048
    with pytest.raises(ValueError, match="same host"):
        Spec.model_validate({**base, "workload": {**base["workload"], "long_flows": {"src": 0, "dst": 0}}})


def test_the_sampler_counts_a_ports_active_flows(write_trace):
    # BFC Fig. 10(c): flows with packets at a port (its flow-table entries
    # holding packets): four long flows into one host, never more than
    # four and mostly four (their queues drain together now and then after
    # a synchronized pause, the 16% the link idles in the test above), none
    # once they are done; ports that keep no flow table report 0
    rows = [(0.0, h, 0, 2_000_000) for h in range(1, 5)]
    r = run_all(_star(write_trace, rows, 5))
    q = r.queues[r.queues.peer == 0]
    mid = q[(q.time_s > 50e-6) & (q.time_s < 500e-6)].flows
    assert mid.max() == 4 and (mid == 4).mean() > 0.6
    assert q.flows.iloc[-1] == 0
    nic = run_all(_star(write_trace, rows, 5).model_copy(
        update={"run": Spec.model_validate({}).run.model_copy(update={"sample_us": 1.0, "sample_queues": "host_nics"})}))
    assert (nic.queues.flows == 0).all()


def test_a_nics_labelled_flows_share_one_nic_queue(write_trace, monkeypatch):
    # IncastLabel at the sender's NIC too (App. A.7: all incast flows at an
    # egress port in one queue): host 1's two labelled flows are one
    # upstream queue, paused and resumed together; at the receiver's port
    # they are one queue of three (host 1's other flow, host 2's flow), so
    # together they get a third of the link while all three last, and all
    # finish, with nothing lost
    import dcsim.simulate as simulate

    rows = [(0.0, 1, 0, 1_000_000), (0.0, 1, 0, 1_000_000), (0.0, 1, 0, 2_000_000), (0.0, 2, 0, 2_000_000)]
    spec = _star(write_trace, rows, 3)
    resolve = simulate.engine_config_json

    def labelled(s):
        cfg = json.loads(resolve(s))
        cfg["bfc"]["labelled_flows"] = [0, 1]
        return json.dumps(cfg)

    monkeypatch.setattr(simulate, "engine_config_json", labelled)
    r = run_all(spec)
    s = r.summary
    assert s["flows_finished"] == 4 and s["counters"]["dropped_pkts"] == 0 and s["counters"]["pfc_frames"] > 0
    f = r.flows.set_index("flow_id")
    # the labelled pair (2 MB together) and each 2 MB flow: about equal
    # shares, so all finish close together
    finish = f.start_s + f.fct_s
    assert abs(finish[0] - finish[1]) / finish[1] < 0.02
    assert max(finish) / min(finish) < 1.25


def test_packet_level_ideal_fq_shares_equally_and_buffers_without_bound(write_trace):
    # 16 long flows into one host: a queue each at the bottleneck, served in
    # turn, so they finish together with the link busy throughout; each
    # keeps one BDP in flight (the NIC's cap), all of it queued at the
    # bottleneck, so the queue holds about 16 BDPs: no limit, no loss
    n, size = 16, 2_000_000
    spec = Spec.model_validate({
        "topology": {"kind": "star", "hosts": n + 1, "rate_gbps": 100.0, "link_delay_us": 1.0},
        "scheme": {"name": "ideal_fq_packet"},
        "workload": {"matrix": "trace", "trace": write_trace([(0.0, h, 0, size) for h in range(1, n + 1)])},
        "run": {"sample_us": 1.0, "sample_queues": "to_hosts"}})
    r = run_all(spec)
    s = r.summary
    assert s["counters"]["dropped_pkts"] == 0 and s["counters"]["pfc_frames"] == 0
    finish = r.flows.start_s + r.flows.fct_s
    assert finish.min() / finish.max() > 0.99
    one = r.flows.ideal_fct_s.iloc[0]
    assert n * one / finish.max() > 0.98
    bdp = 100e9 * 4e-6 / 8  # the star's base RTT: two links each way
    q = r.queues[(r.queues.peer == 0) & (r.queues.time_s > 20e-6) & (r.queues.time_s < 0.9 * finish.max())].bytes
    assert n * bdp * 0.7 < q.median() < n * bdp * 1.3
    # the port keeps a queue per flow: the sampler counts them
    assert r.queues[(r.queues.peer == 0) & (r.queues.time_s > 20e-6) & (r.queues.time_s < 0.5 * finish.max())].flows.min() == n


def test_packet_level_ideal_fq_refuses_a_buffer_size():
    from dcsim.errors import SpecError
    from dcsim.simulate import build

    with pytest.raises(SpecError, match="unbounded"):
        build(Spec.model_validate({"scheme": {"name": "ideal_fq_packet"}, "buffer": {"size_mb": 4.0},
                                   "topology": {"kind": "star", "hosts": 4, "rate_gbps": 100.0}}))
    with pytest.raises(SpecError, match="never pause"):
        build(Spec.model_validate({"scheme": {"name": "ideal_fq_packet"}, "buffer": {"pfc": True},
                                   "topology": {"kind": "star", "hosts": 4, "rate_gbps": 100.0}}))
