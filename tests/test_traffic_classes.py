"""Strict-priority traffic classes (BFC App. A.3, Fig. 20): PFC ports with a
data queue and a PFC priority per class, BFC ports with their queues split
among the classes; flows in classes by a hash of their id."""

import numpy as np
import pandas as pd
import pytest

from dcsim import _core
from dcsim.errors import SpecError
from dcsim.metrics import traffic_classes
from dcsim.simulate import run_all
from dcsim.spec import Spec, engine_config_json
from tests.conftest import run_checked


def _star(write_trace, rows, hosts, scheme, classes, **buffer):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": hosts, "rate_gbps": 100.0, "link_delay_us": 1.0},
        "scheme": scheme, "buffer": buffer,
        "workload": {"matrix": "trace", "trace": write_trace(rows), "traffic_classes": classes}})


def test_flows_split_evenly_by_a_hash_of_their_id():
    c = np.frombuffer(_core.traffic_classes(list(range(40_000)), 4), dtype=np.uint8)
    assert np.abs(np.bincount(c, minlength=4) - 10_000).max() < 300
    assert set(_core.traffic_classes(list(range(100)), 1)) == {0}


@pytest.mark.parametrize("scheme", [{"name": "bfc"}, {"name": "dctcp_rdma"}])
def test_the_higher_class_goes_first_through_a_shared_bottleneck(write_trace, scheme):
    # 8 equal flows into one host, all at once, two classes: the switch
    # serves class 0 first, so its flows finish about as if alone among
    # themselves, and class 1's after them. (Not HPCC: its telemetry
    # reports the port's aggregate queue, and a class-0 packet, dequeued
    # ahead of class 1's backlog, always reports more of it than a class-1
    # packet does: class 0 backs off more, and here class 1 finishes first,
    # docs/schemes.md.)
    size, n = 1_000_000, 8
    spec = _star(write_trace, [(0.0, h, 0, size) for h in range(1, n + 1)], n + 1, scheme, 2)
    run_checked(spec)
    r = run_all(spec)
    f = r.flows.assign(cls=traffic_classes(r.flows, spec))
    assert f.cls.value_counts().to_list() == [4, 4]  # flows 0-7, by the hash
    finish = f.start_s + f.fct_s
    hi, lo = finish[f.cls == 0], finish[f.cls == 1]
    assert hi.max() < lo.min() * 1.02
    one = f.ideal_fct_s.iloc[0]  # a flow alone at line rate
    # class 0's flows share the link among themselves
    assert hi.max() < 1.2 * (f.cls == 0).sum() * one
    assert lo.max() < 1.3 * n * one


def test_pfc_pauses_each_class_on_its_own(write_trace):
    # an incast large enough for PFC, in two classes: pauses happen, every
    # byte arrives, the counts close, and the run is deterministic
    rows = [(0.0, h, 0, 400_000) for h in range(1, 17)]
    spec = _star(write_trace, rows, 17, {"name": "dcqcn"}, 2, size_mb=1.0)
    run_checked(spec)
    a, b = run_all(spec), run_all(spec)
    assert a.summary["counters"]["pfc_frames"] > 0 and a.summary["counters"]["dropped_pkts"] == 0
    assert a.summary["flows_finished"] == 16
    pd.testing.assert_frame_equal(a.flows, b.flows)
    f = a.flows.assign(cls=traffic_classes(a.flows, spec))
    assert f[f.cls == 0].fct_s.mean() < f[f.cls == 1].fct_s.mean()


def test_one_class_gives_the_results_of_the_engine_before_classes(write_trace):
    # the flows' FCTs of a small star run with BFC, HPCC, and DCQCN under
    # PFC pauses, hashed: the digests are those of the engine before
    # traffic classes (90de96a), so one class (the default) changes no bit
    import hashlib

    rows = [(i * 1e-6, 1 + i % 4, 0, 50_000 + 1000 * i) for i in range(12)]
    trace = write_trace(rows)
    # HPCC with the parameters it had then (the HPCC simulator's header,
    # floor and AI; its defaults are BFC's set-up since 690b252)
    hpcc_then = {"name": "hpcc", "int_header_bytes": 42, "min_rate_mbps": 1000.0, "rai_mbps": 40.0}
    for scheme, buffer, digest, pfc_frames in (({"name": "bfc"}, {}, "11ecfe8165f1b93a", 46),
                                               (hpcc_then, {}, "076e26a12e28affa", 0),
                                               ({"name": "dcqcn"}, {"size_mb": 0.3}, "9cd26cbbf09018c4", 34)):
        r = run_all(Spec.model_validate({
            "topology": {"kind": "star", "hosts": 5, "rate_gbps": 100.0, "link_delay_us": 1.0},
            "scheme": scheme, "buffer": buffer, "workload": {"matrix": "trace", "trace": trace}}))
        got = hashlib.sha256(r.flows[["flow_id", "fct_s"]].to_numpy().tobytes()).hexdigest()[:16]
        assert (got, r.summary["counters"]["pfc_frames"]) == (digest, pfc_frames), scheme["name"]


def test_classes_need_ports_that_serve_them(write_trace):
    from dcsim.simulate import build

    rows = [(0.0, 1, 0, 1000)]
    with pytest.raises(SpecError, match="traffic_classes"):
        build(_star(write_trace, rows, 2, {"name": "dctcp"}, 2))
    with pytest.raises(Exception, match="4 traffic classes need at least 4 BFC queues"):
        build(_star(write_trace, rows, 2, {"name": "bfc", "queues": 2}, 4))
    with pytest.raises(Exception, match="less than or equal to 8"):
        _star(write_trace, rows, 2, {"name": "bfc"}, 9)


def test_round_robin_classes_share_the_bottleneck(write_trace):
    # the same 8-flow incast with the classes served round robin (the HPCC
    # simulator's DoDequeueRR): a packet per class in turn, so both classes
    # finish together, each flow near 8 flows' time, none near 4
    size, n = 1_000_000, 8
    rows = [(0.0, h, 0, size) for h in range(1, n + 1)]
    spec = _star(write_trace, rows, n + 1, {"name": "dctcp_rdma"}, 2)
    rr = spec.model_copy(update={"workload": spec.workload.model_copy(update={"class_scheduling": "round_robin"})})
    run_checked(rr)
    r = run_all(rr)
    f = r.flows.assign(cls=traffic_classes(r.flows, rr))
    finish = f.start_s + f.fct_s
    one = f.ideal_fct_s.iloc[0]
    hi, lo = finish[f.cls == 0], finish[f.cls == 1]
    assert abs(hi.mean() - lo.mean()) < 0.1 * hi.mean()
    assert finish.min() > 0.8 * n * one and finish.max() < 1.3 * n * one


def test_round_robin_needs_pfc_ports_with_classes(write_trace):
    rows = [(0.0, 1, 0, 1000)]
    for scheme, classes in (({"name": "hpcc"}, 1), ({"name": "bfc"}, 2)):
        spec = _star(write_trace, rows, 2, scheme, classes).model_dump()
        spec["workload"]["class_scheduling"] = "round_robin"
        with pytest.raises(SpecError, match="class_scheduling"):
            engine_config_json(Spec.model_validate(spec))
