"""Congestion collapse (docs/faults.md, "Congestion collapse"): a run
whose senders resend their packets many times over stops with status
"collapse" instead of running far past its cost estimate; below the
bound it runs on."""

import json
import warnings
from pathlib import Path

import pytest

import dcsim
from dcsim.cost import estimate
from dcsim.spec import spec_from_dict

# fuzz case 7078 of seed 1: 100 Tb/s hosts spray 28 web search flows over
# two 40 Gb/s spines; the packet-level Ideal-FQ goes back N at each gap,
# so every reordering resends a flow's whole window (63 s, 1,344 resends
# a packet, where the estimate says a tenth of a second)
CASE = json.loads((Path(__file__).parent / "fuzz_cases" / "seed1-case7078.json").read_text())["spec"]


def run(**run_opts):
    spec = spec_from_dict({**CASE, "run": run_opts})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = dcsim.run_all(spec)
    return r.summary, [str(w.message) for w in caught]


def resends(s):
    c = s["counters"]
    return c["retransmitted_pkts"], c["data_pkts"] - c["retransmitted_pkts"]


def test_a_run_resending_each_packet_a_hundred_times_stops_and_says_so():
    s, said = run()
    again, once = resends(s)
    assert s["status"] == "collapse" and s["conservation_holds"]
    assert 100 * once < again < 110 * once, "stopped at the first check past the bound"
    assert again >= 100_000
    assert 0 < s["unfinished_flows"] < 28 and s["sim_time_s"] < 5e-3
    assert s["packet_hops"] < 100 * estimate(spec_from_dict(CASE)).packet_hops
    assert any(m.startswith(f"congestion collapse: the senders resent {again:,} packets for {once:,}") for m in said)


def test_a_lower_bound_stops_it_sooner_and_a_higher_one_not_at_all():
    low, _ = run(max_resends_per_packet=10)
    again, once = resends(low)
    assert low["status"] == "collapse" and 10 * once < again < 100_000 + 20 * once
    assert low["sim_time_s"] < run()[0]["sim_time_s"]
    # 2,000 resends a packet are not reached by 2.5 ms (the default stops at
    # 2.7 ms with about 103), nor is anything with the check off
    for bound in (2000, None):
        s, said = run(max_resends_per_packet=bound, stop_time_s=0.0025)
        assert s["status"] == "stopped" and resends(s)[0] > 100_000
        assert not any("collapse" in m for m in said)


def test_the_bound_must_be_at_least_one():
    with pytest.raises(dcsim.SpecError, match="run.max_resends_per_packet"):
        spec_from_dict({**CASE, "run": {"max_resends_per_packet": 0.5}})
