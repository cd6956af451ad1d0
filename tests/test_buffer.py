"""Shared switch buffers and PFC (`buffer.model = "shared"`; the engine's
buffer.rs and queue/pfc.rs), end to end."""

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim.errors import SpecError
from dcsim.simulate import run_all, run_to_dir
from dcsim.spec import Spec
from conftest import run_checked


def _incast(pfc: bool, size_mb: float = 2.0, senders: int = 24, **buffer) -> Spec:
    # 24 senders dump 200 KB each (a window larger than the flow) into one
    # receiver through one 100 Gb/s switch: 4.8 MB at once, far more than
    # the switch holds
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": senders + 1, "rate_gbps": 100.0, "link_delay_us": 1.0},
        "scheme": {"name": "tcp", "init_cwnd_pkts": 200, "max_cwnd_pkts": 200, "host_queue_bytes": "unlimited"},
        "buffer": {"model": "shared", "size_mb": size_mb, "pfc": pfc, **buffer},
        "workload": {"matrix": "incast", "senders": senders, "flow_bytes": 200_000, "requests": 2, "dst": 0},
        "run": {"fct_at": "receiver", "sample_us": 1.0, "sample_queues": "none"}})


def test_pfc_makes_the_incast_lossless_and_pauses_the_senders():
    with_pfc = run_all(_incast(True))
    s = with_pfc.summary
    assert s["conservation_holds"]
    assert s["counters"]["dropped_pkts"] == 0 and s["counters"]["retransmitted_pkts"] == 0
    assert s["counters"]["pfc_frames"] > 0 and s["counters"]["pfc_frames"] % 2 == 0  # every pause resumed
    # the switch pauses the senders' NICs (its only upstreams)
    assert set(s["pfc"]["paused_s_by_tier"]) == {"host_nic"}
    assert s["pfc"]["paused_ports"] >= 12
    # the buffer never holds more than the switch has
    assert with_pfc.buffers.bytes.max() <= 2 * 2**20
    assert with_pfc.buffers.bytes.max() > 2**20
    # the same incast without PFC loses packets at the full buffer
    without = run_all(_incast(False)).summary
    assert without["counters"]["dropped_pkts"] > 0 and without["counters"]["pfc_frames"] == 0
    assert without["pfc"]["paused_ports"] == 0


def test_two_senders_into_one_link_are_held_to_its_rate_without_loss():
    # two 100 Gb/s senders into one 100 Gb/s receiver: the switch fills at
    # 100 Gb/s until both ingresses are paused, and from then on the
    # senders share the receiver's link; the two flows finish in about
    # twice the time of one, with no loss
    spec = _incast(True, size_mb=1.0, senders=2).with_overrides(**{
        "workload.flow_bytes": 5_000_000, "workload.requests": 1, "scheme.init_cwnd_pkts": 10_000,
        "scheme.max_cwnd_pkts": 10_000})
    r = run_all(spec)
    s = r.summary
    assert s["counters"]["dropped_pkts"] == 0 and s["counters"]["pfc_frames"] > 0
    one = r.flows.ideal_fct_s.max()
    assert r.flows.fct_s.max() == pytest.approx(2 * one, rel=0.03)
    # the buffer stays within what PFC allows: the two ingresses' reserves,
    # their shares of the pool (1/9 of the free pool each at most) and headroom
    pool = 2**20 - 3 * (37_500 + 4096)
    assert r.buffers.bytes.max() <= 2 * (4096 + pool / 8 + 37_500)


def test_shared_buffers_are_deterministic():
    a, b = run_all(_incast(True)), run_all(_incast(True))
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.buffers, b.buffers)


def test_dctcp_marks_over_a_shared_buffer():
    spec = Spec.model_validate({
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 8, "host_rate_gbps": 100.0,
                     "spine_rate_gbps": 100.0, "host_link_delay_us": 1.0, "spine_link_delay_us": 1.0},
        "routing": {"load_balancing": "ecmp"}, "scheme": {"name": "dctcp"}, "buffer": {"model": "shared"},
        "workload": {"cdf": "fb_hadoop", "load": 0.6, "flows": 1500, "arrivals": "lognormal"},
        "run": {"fct_at": "receiver"}})
    df = run_checked(spec)
    c = df.attrs["summary"]["counters"]
    assert c["marked_pkts"] > 0 and c["dropped_pkts"] == 0
    assert df.fct_s.notna().all()


def test_shared_buffer_specs_are_checked():
    with pytest.raises(SpecError, match="FIFO ports"):
        dcsim.simulate.build(Spec.model_validate({"scheme": {"name": "pfabric"}, "buffer": {"model": "shared"}}))
    with pytest.raises(SpecError, match="flow-level"):
        dcsim.simulate.build(Spec.model_validate({"scheme": {"name": "ideal"}, "buffer": {"model": "shared"}}))
    with pytest.raises(SpecError, match="smaller than its ports' reserves"):
        dcsim.simulate.build(_incast(True, size_mb=0.01))


def test_buffer_samples_are_written(tmp_path):
    run_to_dir(_incast(True), tmp_path / "out", quiet=True)
    b = pd.read_parquet(tmp_path / "out" / "buffers.parquet")
    assert list(b.columns) == ["time_s", "node", "bytes"]
    assert (b.node == 25).all() and np.diff(b.time_s.to_numpy()).min() > 0
