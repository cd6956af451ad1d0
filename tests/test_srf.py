"""Shortest remaining first over BFC's hardware (BFC App. A.2): BFC-SRF
(`bfc` with `scheduling = "srf"`) and IdealSRF (`ideal_srf_packet`), end
to end: the switch and the NIC serve the flow with the least left."""

import pytest

from dcsim.spec import Spec, engine_config
from conftest import run_checked

RATE = 100e9 / 8 * 1000 / 1048  # payload bytes per second at 100 Gb/s
PKT = 1048 * 8 / 100e9


def star(trace, **scheme):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": 4, "rate_gbps": 100, "link_delay_us": 1.0},
        "scheme": scheme,
        "workload": {"matrix": "trace", "trace": trace},
    })


def alone(size):
    # one-way at line rate, plus the last ACK's way back (2 x (1 us + 60 B))
    return size / RATE + PKT + 2e-6 + 2 * (1e-6 + 60 * 8 / 100e9)


@pytest.mark.parametrize("scheme", [{"name": "bfc", "scheduling": "srf"}, {"name": "ideal_srf_packet"}])
def test_the_switch_serves_the_shorter_flow_first(write_trace, scheme):
    # two senders into one host: a 3 MB flow, then 20 us later a 300 KB
    # one; the receiver's port sends the shorter's packets first
    big, small = 3_000_000, 300_000
    trace = write_trace([(0, 1, 0, big), (20e-6, 2, 0, small)])
    srf = run_checked(star(trace, **scheme)).set_index("size_bytes").fct_s
    assert srf[small] < 1.15 * alone(small), srf[small] / alone(small)
    assert srf[big] < 1.05 * alone(big + small)
    # fair queueing shares the port: the short flow takes about twice as long
    fair = run_checked(star(trace, name="bfc" if scheme["name"] == "bfc" else "ideal_fq_packet"))
    assert fair.set_index("size_bytes").fct_s[small] > 1.6 * srf[small]


@pytest.mark.parametrize("scheme", [{"name": "bfc", "scheduling": "srf"}, {"name": "ideal_srf_packet"}])
def test_the_nic_sends_the_shorter_flow_first(write_trace, scheme):
    # one sender, two receivers: the NIC switches to the 100 KB flow
    big, small = 3_000_000, 100_000
    trace = write_trace([(0, 0, 1, big), (10e-6, 0, 2, small)])
    srf = run_checked(star(trace, **scheme)).set_index("size_bytes").fct_s
    assert srf[small] < 1.1 * alone(small)
    fair = run_checked(star(trace, name="bfc" if scheme["name"] == "bfc" else "ideal_fq_packet"))
    assert fair.set_index("size_bytes").fct_s[small] > 1.6 * srf[small]


def test_srf_specs_reach_the_engine():
    base = {"topology": {"kind": "leaf_spine"}, "workload": {"flows": 10}}
    cfg = engine_config(Spec.model_validate({**base, "scheme": {"name": "bfc", "scheduling": "srf"}}))
    assert cfg["port"]["switch"]["discipline"]["srf"] is True and cfg["transport"]["srf"] is True
    cfg = engine_config(Spec.model_validate({**base, "scheme": {"name": "bfc"}}))
    assert cfg["port"]["switch"]["discipline"]["srf"] is False and cfg["transport"]["srf"] is False
    cfg = engine_config(Spec.model_validate({**base, "scheme": {"name": "ideal_srf_packet"}}))
    d = cfg["port"]["switch"]["discipline"]
    assert d["kind"] == "fq" and d["srf"] is True and cfg["transport"]["srf"] is True
    assert cfg["shared_buffer"]["bytes"] == 1 << 50  # unbounded, as IdealFQ's


def test_srf_ports_and_hosts_go_together():
    # ports that order by the remaining-size header need hosts that write it
    import json

    from dcsim._core import Sim
    from dcsim.spec import engine_config_json

    for scheme in ({"name": "bfc", "scheduling": "srf"}, {"name": "ideal_srf_packet"}):
        cfg = json.loads(engine_config_json(Spec.model_validate(
            {"topology": {"kind": "leaf_spine"}, "scheme": scheme, "workload": {"flows": 10}})))
        Sim(json.dumps(cfg))
        unwritten = json.loads(json.dumps(cfg))
        unwritten["transport"]["srf"] = False
        with pytest.raises(ValueError, match="remaining size"):
            Sim(json.dumps(unwritten))
        unread = json.loads(json.dumps(cfg))
        unread["port"]["switch"]["discipline"]["srf"] = False
        with pytest.raises(ValueError, match="remaining size"):
            Sim(json.dumps(unread))
