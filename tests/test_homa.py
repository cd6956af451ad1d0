"""Homa (`homa`) end to end: one-way times of lone messages, grants that
keep the receiver's link busy, shortest remaining first at receivers and
senders, and bad specs."""

import pytest

import dcsim
from dcsim.errors import SpecError
from dcsim.spec import Spec, engine_config
from conftest import run_checked

# 1000 B payload + 48 B headers at 100 Gb/s, 1 us links
PKT = 1048 * 8 / 100e9
RATE = 100e9 / 8 * 1000 / 1048  # payload bytes per second at line rate


def star_spec(trace, **scheme):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": 4, "rate_gbps": 100, "link_delay_us": 1.0},
        "scheme": {"name": "homa", "size_cdf": "fb_hadoop", **scheme},
        "workload": {"matrix": "trace", "trace": trace},
    })


def test_a_one_packet_message_takes_one_way_and_no_grant(write_trace):
    # host -> switch -> host, store and forward; Homa sends nothing back
    df = run_checked(star_spec(write_trace([(0, 1, 0, 1000)])))
    assert df.fct_s[0] == pytest.approx(2 * (PKT + 1e-6), abs=1e-12)
    assert df.slowdown[0] == pytest.approx(1.0, abs=1e-9)
    c = df.attrs["summary"]["counters"]
    assert c["credit_pkts"] == 0 and c["ack_pkts"] == 0 and c["data_pkts"] == 1


def test_grants_keep_a_lone_message_at_line_rate(write_trace):
    # RTT bytes (a BDP: 2 hops x (2 us + 80 ns) at 100 Gb/s, 52,000 B) go
    # unscheduled; the first grant is back before they run out, so a 2 MB
    # message is as fast as on an idle link, within 0.5%
    size = 2_000_000
    df = run_checked(star_spec(write_trace([(0, 1, 0, size)])))
    assert 1.0 <= df.slowdown[0] < 1.005
    ideal = size / RATE + PKT + 2e-6
    assert df.fct_s[0] == pytest.approx(ideal, rel=0.005)
    h = df.attrs["summary"]["homa"]
    assert h["rtt_bytes"] == 52_000 and h["unscheduled_levels"] + h["scheduled_levels"] == 32
    assert h["overcommit"] == h["scheduled_levels"] and len(h["cutoffs"]) == h["unscheduled_levels"] - 1
    c = df.attrs["summary"]["counters"]
    # a grant for nearly every scheduled packet (one per data packet after the first)
    assert 2000 - 52 - 5 <= c["credit_pkts"] <= 2000 - 52
    assert c["dropped_pkts"] == 0


def test_the_receiver_grants_the_shortest_message_first(write_trace):
    # Two senders, one receiver: a 3 MB message, then 20 us later a 300 KB
    # one. The receiver grants the shorter at once and at the higher level
    # (its unscheduled bytes already went at a top level): it finishes
    # within 10% of alone; the long one waits for it.
    big, small = 3_000_000, 300_000
    df = run_checked(star_spec(write_trace([(0, 1, 0, big), (20e-6, 2, 0, small)])))
    a, b = df.set_index("size_bytes").fct_s[big], df.set_index("size_bytes").fct_s[small]
    alone_small = small / RATE + PKT + 2e-6
    assert b < 1.10 * alone_small, b / alone_small
    # the receiver's link stays busy: the long one ends about when both
    # messages' bytes have crossed it
    both = (big + small) / RATE + PKT + 2e-6
    assert both <= a < 1.02 * both


def test_the_sender_sends_the_shortest_message_first(write_trace):
    # One sender, two receivers: a 3 MB message, then a 100 KB one: the
    # sender's NIC switches to the shorter, which is as fast as alone
    big, small = 3_000_000, 100_000
    df = run_checked(star_spec(write_trace([(0, 0, 1, big), (10e-6, 0, 2, small)])))
    by = df.set_index("size_bytes").fct_s
    assert by[small] < 1.03 * (small / RATE + PKT + 2e-6)
    assert by[big] < 1.02 * ((big + small) / RATE + PKT + 2e-6)


def test_many_senders_to_one_receiver_overcommit_and_lose_nothing(write_trace):
    # eight senders into one host at once: unbounded buffers take the
    # unscheduled burst, the receiver grants a few at a time, shortest
    # first; the link stays busy and every byte arrives
    rows = [(0, s, 0, 200_000 * (s + 1)) for s in range(1, 4)] * 1
    spec = Spec.model_validate({
        "topology": {"kind": "star", "hosts": 9, "rate_gbps": 100, "link_delay_us": 1.0},
        "scheme": {"name": "homa", "size_cdf": "fb_hadoop", "levels": 8},
        "workload": {"matrix": "trace", "trace": write_trace(rows + [(0, s, 0, 150_000) for s in range(4, 9)])},
    })
    df = run_checked(spec)
    total = df.size_bytes.sum()
    assert df.fct_s.max() < 1.03 * (total / RATE + PKT + 2e-6)
    # shortest remaining first: finishing order follows size (ties by arrival)
    order = df.sort_values("finish_s").size_bytes.tolist()
    assert order == sorted(order)
    assert df.attrs["summary"]["counters"]["dropped_pkts"] == 0
    again = dcsim.run(spec)
    assert again.equals(df)


def test_homa_specs_fail_early():
    base = {"topology": {"kind": "leaf_spine"}, "scheme": {"name": "homa"}, "workload": {"flows": 10}}
    cfg = engine_config(Spec.model_validate(base))
    t = cfg["transport"]
    assert t["kind"] == "homa" and t["levels"] == 32 and t["size_cdf"][-1][1] == 1.0
    assert cfg["port"]["switch"]["discipline"] == {"kind": "prio", "queues": 32, "reserved_bytes": 0,
                                                   "ecn_per_port": False, "dt_alpha": None}
    assert cfg["port"]["switch"]["limit_bytes"] is None
    with pytest.raises(SpecError, match="per_port"):
        engine_config(Spec.model_validate({**base, "buffer": {"model": "shared"}}))
    with pytest.raises(SpecError, match="scheduled level"):
        engine_config(Spec.model_validate({**base, "scheme": {"name": "homa", "levels": 8, "unscheduled_levels": 8}}))
    with pytest.raises(SpecError, match="overcommit"):
        engine_config(Spec.model_validate({**base, "scheme": {"name": "homa", "levels": 8, "unscheduled_levels": 6,
                                                              "overcommit": 3}}))
    trace = {**base, "workload": {"matrix": "trace", "trace": "x.txt"}}
    with pytest.raises(SpecError, match="size_cdf"):
        engine_config(Spec.model_validate(trace))


def test_the_engine_refuses_homa_on_buffers_that_can_drop():
    # Homa has no timeouts: a lost grant or packet would stall its receiver
    import json

    from dcsim._core import Sim
    from dcsim.spec import engine_config_json

    base = Spec.model_validate({"topology": {"kind": "leaf_spine"}, "scheme": {"name": "homa"},
                                "workload": {"flows": 10}})
    cfg = json.loads(engine_config_json(base))
    Sim(json.dumps(cfg))
    for where, limit in (("switch", 100_000), ("host", 100_000)):
        bad = json.loads(json.dumps(cfg))
        bad["port"][where]["limit_bytes"] = limit
        with pytest.raises(ValueError, match="unbounded buffers"):
            Sim(json.dumps(bad))
    bad = json.loads(json.dumps(cfg))
    bad["port"]["switch"]["discipline"] = {"kind": "fifo"}
    with pytest.raises(ValueError, match="unbounded buffers"):
        Sim(json.dumps(bad))


def test_dcsim_run_prints_homa_s_levels(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "dcsim", "run", "examples/bfc_clos_fb_hadoop.toml", "--set",
                        "scheme.name=homa", "--flows", "200", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, cwd=str(__import__("pathlib").Path(__file__).parents[1]))
    assert r.returncode == 0, r.stderr
    assert "homa: 6 unscheduled and 26 scheduled levels, 104,000 B unscheduled (RTT bytes), 26 messages" in r.stdout
