"""PDQ (`pdq`) end to end, by what is known independently of it: a lone
flow's set-up round trip then the line rate, preemption at a shared
bottleneck with the link kept busy across the switch-over (Early Start),
Early Termination of a flow whose deadline cannot be met, the bound on the
links' state, determinism, and specs it refuses."""

import math

import pytest

import dcsim
from dcsim.errors import SpecError
from dcsim.spec import Spec
from conftest import run_checked

RATE = 10e9
DELAY = 5e-6  # per link: host -> switch -> host


def one_way(wire_bytes: int) -> float:
    """A packet's time across the star: two store-and-forward hops."""
    return 2 * (DELAY + wire_bytes * 8 / RATE)


def star(trace, workload=None, **scheme):
    return Spec.model_validate({
        "topology": {"kind": "star", "hosts": 4, "rate_gbps": 10, "link_delay_us": DELAY * 1e6},
        "scheme": {"name": "pdq", **scheme},
        "workload": {"matrix": "trace", "trace": trace, **(workload or {})},
        "run": {"fct_at": "sender"},
    })



def test_a_lone_one_packet_flow_needs_two_round_trips(write_trace):
    # SYN and SYN-ACK (headers alone), then the packet and its ACK: the
    # paper's "at least two" normalized FCT for flows that fit in one RTT
    df = run_checked(star(write_trace([(0, 1, 0, 1460)])))
    assert df.fct_s[0] == pytest.approx(3 * one_way(40) + one_way(1500), abs=1e-12)
    assert df.ideal_fct_s[0] == pytest.approx(one_way(40) + one_way(1500), abs=1e-12)
    assert 1.85 < df.slowdown[0] < 2.0


def test_a_lone_flow_runs_at_the_line_rate_after_its_set_up(write_trace):
    size = 1_460_000
    df = run_checked(star(write_trace([(0, 1, 0, size)])))
    syn_rtt = 2 * one_way(40)
    # everything after the SYN-ACK is the idle network's FCT, to a pacing
    # rounding per packet
    assert df.fct_s[0] - df.ideal_fct_s[0] == pytest.approx(syn_rtt, abs=2e-8)
    c = df.attrs["summary"]["counters"]
    assert c["dropped_pkts"] == 0 and c["timeouts"] == 0 and c["data_pkts"] == 1001  # the SYN and 1,000 packets


def test_the_shorter_flow_preempts_and_the_link_stays_busy(write_trace):
    # a 3 MB flow, then 200 us later a 300 KB one, both into host 0: the
    # short one runs nearly as if alone (the long one's packets in flight
    # when it heard of its pause, about an RTT's, queue ahead of it, and
    # the rate controller drains them over its next 2 RTTs: section 3.3.3);
    # the long one pauses and resumes, and the bottleneck does not idle
    # across the two switch-overs
    big, small = 3_000_000, 300_000
    df = run_checked(star(write_trace([(0, 1, 0, big), (200e-6, 2, 0, small)])))
    by = df.set_index("size_bytes")
    alone_small = small / 1460 * 1500 * 8 / RATE + 2 * one_way(40) + one_way(1500) + one_way(40)
    rtt = 2 * one_way(1500)
    assert alone_small < by.fct_s[small] < alone_small + 2 * rtt
    assert by.finish_s[small] < by.finish_s[big]
    # the long flow: its own time alone, plus the short one's bytes, plus
    # less than an RTT lost at each switch-over (the rate controller's
    # capacity, held below the line rate for 2 RTTs while the overlap
    # drains: 36 us in all here; without Early Start, an RTT more)
    wire = (big + small) / 1460 * 1500 * 8 / RATE
    busy = by.finish_s[big] - 2 * one_way(40) - one_way(40)
    assert wire < busy < wire + 2 * rtt


def test_without_early_start_the_switch_over_costs_a_round_trip(write_trace):
    big, small = 3_000_000, 300_000
    rows = [(0, 1, 0, big), (200e-6, 2, 0, small)]
    with_es = run_checked(star(write_trace(rows))).set_index("size_bytes")
    without = run_checked(star(write_trace(rows), early_start_k=0)).set_index("size_bytes")
    # the long flow resumes only once the short one's end has been heard
    # of: about an RTT (22.4 us) later
    rtt = 2 * one_way(1500)
    assert 0.75 * rtt < without.finish_s[big] - with_es.finish_s[big] < 1.5 * rtt


def test_flows_that_cannot_meet_their_deadlines_are_terminated(tmp_path):
    # 100 KB flows into host 0 at 90% of its link, each due at 1.25 x its
    # idle FCT: the earliest deadline runs, a flow paused until it can no
    # longer make it gives up (Early Termination: a TERM, and no finish
    # time); without it, every flow runs to its end, late or not
    cdf = tmp_path / "100kb.txt"
    cdf.write_text("100000 1\n")
    workload = {"matrix": "many_to_one", "cdf": str(cdf), "flows": 60, "load": 0.9 / 3,
                "deadline_mean_us": 0.001, "deadline_min_factor": 1.25}
    spec = {"topology": {"kind": "star", "hosts": 4, "rate_gbps": 10, "link_delay_us": 5},
            "scheme": {"name": "pdq"}, "workload": workload, "run": {"fct_at": "sender"}}
    df = run_checked(Spec.model_validate(spec))
    gave_up = df.finish_s.isna()
    assert 5 <= gave_up.sum() < 55
    assert (df.delivered_bytes[gave_up] < 100_000).all()
    assert (df.finish_s[~gave_up] <= df.deadline_s[~gave_up]).mean() > 0.9
    spec["scheme"]["early_termination"] = False
    late = run_checked(Spec.model_validate(spec))
    assert late.finish_s.notna().all()
    # the terminated flows' bandwidth went to the others: more make it
    met, met_late = ((d.finish_s <= d.deadline_s).sum() for d in (df, late))
    assert met > met_late


def test_the_links_lists_stay_within_their_bound():
    spec = {"seed": 2, "topology": {"kind": "leaf_spine", "leaves": 4, "spines": 2, "hosts_per_leaf": 4},
            "routing": {"load_balancing": "ecmp"}, "scheme": {"name": "pdq", "max_flows": 4},
            "workload": {"flows": 400, "load": 0.8, "cdf": "web_search"}}
    df = run_checked(Spec.model_validate(spec))
    pdq = df.attrs["summary"]["pdq"]
    assert pdq["list_bound"] == 4 and 2 <= pdq["peak_listed_flows"] <= 4
    assert df.fct_s.notna().all()


def test_pdq_is_deterministic():
    spec = {"seed": 5, "topology": {"kind": "leaf_spine", "leaves": 4, "spines": 2, "hosts_per_leaf": 4},
            "routing": {"load_balancing": "ecmp"}, "scheme": {"name": "pdq"},
            "workload": {"flows": 300, "load": 0.6, "cdf": "data_mining"}}
    a, b = (dcsim.run(Spec.model_validate(spec)) for _ in range(2))
    assert a.fct_s.tolist() == b.fct_s.tolist()


def test_pdq_specs_fail_early():
    base = {"topology": {"kind": "leaf_spine"}, "scheme": {"name": "pdq"}, "workload": {"flows": 10}}
    with pytest.raises(SpecError, match="one path both ways"):
        dcsim.run(Spec.model_validate({**base, "routing": {"load_balancing": "round_robin"}}))
    with pytest.raises(SpecError, match="per-port"):
        dcsim.run(Spec.model_validate({**base, "routing": {"load_balancing": "ecmp"}, "buffer": {"model": "shared"}}))
    with pytest.raises(Exception, match="early_start_k"):
        Spec.model_validate({**base, "scheme": {"name": "pdq", "early_start_k": -1}})
