"""ExpressPass (`expresspass`) end to end: the handshake of credits, a
lone flow at the credit-limited rate, fair shares, and bad specs."""

import pytest

import dcsim
from dcsim.errors import SpecError
from dcsim.spec import Spec
from conftest import run_checked


def star_spec(trace, **scheme):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": 4, "rate_gbps": 100, "link_delay_us": 1.0},
        "scheme": {"name": "expresspass", **scheme},
        "workload": {"matrix": "trace", "trace": trace},
    })


def test_a_one_packet_flow_costs_a_request_and_a_credit(write_trace):
    # Star, 100 Gb/s, 1 us per link, idle: the request (84 B) crosses two
    # links, the credit (84 B) comes back, the packet (1000 + 78 B) goes,
    # and the CREDIT_STOP (84 B) right behind it closes the flow:
    # 2 x (2 x (6.72 ns + 1 us)) + (2 x 86.24 + 6.72) ns + 2 us.
    df = run_checked(star_spec(write_trace([(0, 1, 0, 1000)]), credit_size_spread=0))
    assert df.fct_s[0] == pytest.approx(4 * (6.72e-9 + 1e-6) + 2 * 86.24e-9 + 6.72e-9 + 2e-6, abs=1e-12)
    c = df.attrs["summary"]["counters"]
    # a request, the packet and the stop; one credit at least (the receiver
    # credits until the stop reaches it)
    assert c["data_pkts"] == 3 and c["credit_pkts"] >= 1 and c["dropped_pkts"] == 0


def test_a_lone_flow_runs_at_the_credit_limited_rate(write_trace):
    # Credits take 84 / (84 + 1538) of the reverse link, so data can take
    # 1538 / 1622 of the forward one: 1460 B of payload per 1622 B of line,
    # 90.0% of 100 Gb/s. A 10 MB flow starts at half of it (alpha) and
    # climbs within some RTTs.
    df = run_checked(star_spec(write_trace([(0, 1, 0, 10_000_000)]), credit_size_spread=0))
    best = 10_000_000 * 8 / (100e9 * 1460 / 1622)
    assert best < df.fct_s[0] < 1.06 * best, df.fct_s[0] / best
    c = df.attrs["summary"]["counters"]
    assert c["dropped_pkts"] <= 0.01 * c["credit_pkts"]
    assert df.retransmits[0] == 0


def test_flows_to_one_receiver_share_it(write_trace):
    # three long flows into one host: its link's credits are shared, the
    # link stays busy (the last flow ends within 3% of three flows' worth
    # at the credit-limited rate) and no flow gets much more than its third
    # (the feedback converges under jittered, randomly dropped credits: over
    # a millisecond the first finishes 15% before the last)
    rows = [(0, s, 0, 5_000_000) for s in (1, 2, 3)]
    df = run_checked(star_spec(write_trace(rows)))
    alone = 5_000_000 * 8 / (100e9 * 1460 / 1622)
    assert 3 * alone < df.fct_s.max() < 3.1 * alone
    assert df.fct_s.min() > 2.5 * alone
    c = df.attrs["summary"]["counters"]
    assert c["dropped_pkts"] > 0  # credits beyond the receiver's share are dropped: the feedback
    again = dcsim.run(star_spec(write_trace(rows)))
    assert again.equals(df)


def test_expresspass_needs_symmetric_flow_paths():
    from dcsim.spec import engine_config

    base = {"topology": {"kind": "leaf_spine"}, "scheme": {"name": "expresspass"}, "workload": {"flows": 10}}
    with pytest.raises(SpecError, match="ecmp"):
        engine_config(Spec.model_validate(base))
    with pytest.raises(SpecError, match="ecmp"):
        engine_config(Spec.model_validate({**base, "routing": {"load_balancing": "ecmp", "symmetric": False}}))
    cfg = engine_config(Spec.model_validate({**base, "routing": {"load_balancing": "ecmp"}}))
    assert cfg["routing"] == {"load_balancing": "ecmp", "symmetric": True}
    with pytest.raises(SpecError, match="per-port"):
        engine_config(Spec.model_validate({**base, "routing": {"load_balancing": "ecmp"}, "buffer": {"model": "shared"}}))


def test_two_flows_share_the_link_evenly_over_time(write_trace):
    # ExpressPass's point: credit feedback converges to fair shares with
    # the link busy. Two 20 MB flows into one host, delivered bytes every
    # 100 us: together within 3% of the credit-limited 90% of 100 Gb/s, each within
    # 35-65% of it in every interval and 48-52% on average.
    spec = Spec.model_validate({
        "topology": {"kind": "star", "hosts": 4, "rate_gbps": 100, "link_delay_us": 1.0},
        "scheme": {"name": "expresspass"},
        "workload": {"matrix": "trace", "trace": write_trace([(0, 1, 0, 20_000_000), (0, 2, 0, 20_000_000)])},
        "run": {"sample_us": 100, "sample_flows": True},
    })
    r = dcsim.run_all(spec)
    got = r.flow_samples.pivot(index="time_s", columns="flow_id", values="delivered_bytes").diff().iloc[2:-2]
    both = got[0] + got[1]
    assert ((both * 8 / 100e-6) > 0.97 * 100e9 * 1460 / 1622).all()
    share = got[0] / both
    assert share.between(0.35, 0.65).all(), share.describe()
    assert 0.48 < share.mean() < 0.52
