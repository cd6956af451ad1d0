"""No input that crashes, no number that lies (issue 52, part 3): the
fuzzer's short form, and each class of mistake it found, as a test."""

import json
import warnings
from pathlib import Path

import pytest

from dcsim import fuzz, simulate
from dcsim.errors import SpecError
from dcsim.spec import spec_from_dict


@pytest.mark.parametrize("section, field, value, named", [
    ("run", "stop_time_s", 9007199254740992.0, "run.stop_time_s"),      # past u64 picoseconds
    ("scheme", "min_rto_us", 1e15, "scheme.min_rto_us"),
    ("workload", "flows", 2**40, "workload.flows"),
    ("topology", "host_rate_gbps", 1e9, "topology.host_rate_gbps"),
    ("run", "host_delay_us", 2147483648.0, "run.host_delay_us"),  # fuzz case 345 (seed 1): filled memory
])
def test_a_quantity_past_what_the_engine_holds_is_refused_by_name(section, field, value, named):
    with pytest.raises(SpecError, match=f"^{named}: .*less than or equal"):
        spec_from_dict({section: {field: value}})


@pytest.mark.parametrize("section, field, value", [
    ("scheme", "mss_bytes", True),        # not 1
    ("buffer", "pfc", "yes"),             # not True
    ("workload", "load", "0.5"),          # a string is not a number
    ("workload", "flows", 12.5),          # nor is a fraction a count
])
def test_values_of_the_wrong_kind_are_refused_not_coerced(section, field, value):
    with pytest.raises(SpecError, match=f"^{section}.{field}: "):
        spec_from_dict({section: {field: value}})


def test_a_flow_with_more_packets_than_the_engine_numbers_is_refused_before_the_run():
    from dcsim.spec import engine_config

    spec = spec_from_dict({"topology": {"kind": "star", "hosts": 2}, "scheme": {"mss_bytes": 100},
                           "workload": {"matrix": "bulk", "src": 1, "dst": 0, "flow_bytes": 2**40, "flows": 1}})
    with pytest.raises(SpecError, match=r"largest flow, 1,099,511,627,776 bytes, is 10,995,116,278 packets of "
                                        r"scheme.mss_bytes = 100"):
        engine_config(spec)
    ok = spec.with_overrides(**{"workload.flow_bytes": 2**31 * 50})  # 1.07e9 packets of 100 B: fine
    assert engine_config(ok)["workload"]["flows"][0][3] == 2**31 * 50


def test_cases_are_drawn_from_the_seed_alone():
    a = [fuzz.draw_case(7, i) for i in range(20)]
    assert a == [fuzz.draw_case(7, i) for i in range(20)]
    assert a != [fuzz.draw_case(8, i) for i in range(20)]
    assert any(changed for _, changed in a) and any(not changed for _, changed in a)


def test_a_timer_below_a_nanosecond_is_refused_not_run_forever():
    # 1e-12 us rounds to 0 ps: a timer that fires at once, forever
    with pytest.raises(SpecError, match=r"^scheme.init_rto_us: .* \(allowed: >= 0.001, <= 1e\+12\)"):
        spec_from_dict({"scheme": {"init_rto_us": 1e-12}})
    assert spec_from_dict({"scheme": {"init_rto_us": 0.001}}).scheme.init_rto_us == 0.001


def test_a_run_that_would_take_hours_is_warned_about_with_its_estimate():
    from dcsim.cost import estimate
    from dcsim.spec.experiment import caveats

    spec = spec_from_dict({"workload": {"flows": 10**7, "cdf": "data_mining"}})
    c = estimate(spec)
    # 10^7 flows of data mining's mean (7.47 MB) in 1460-byte packets over 8 hops
    assert c.bytes == pytest.approx(7.47e13, rel=0.01) and c.packet_hops == pytest.approx(c.bytes / 1460 * 8)
    [warning] = [w for w in caveats(spec) if "large" in w]
    assert "38 hours" in warning and "workload.flows" in warning
    assert not [w for w in caveats(spec_from_dict({})) if "large" in w]  # 10,000 flows: about 30 s
    # a stop time caps the bytes at what the hosts' links carry in it
    stopped = spec_from_dict({"workload": {"flows": 10**7, "cdf": "data_mining"}, "run": {"stop_time_s": 0.01}})
    assert estimate(stopped).bytes == pytest.approx(0.01 * 144 * 10e9 / 8)


def test_strictness_is_for_plain_values_only():
    # TOML gives lists for pairs and strings for table keys: those still convert
    spec = spec_from_dict({"run": {"report_links": [[0, 144]]}, "buffer": {"size_mb_at": {"150": 1.0}},
                           "topology": {"host_rate_gbps": 10}})
    assert spec.run.report_links == [(0, 144)] and spec.buffer.size_mb_at == {150: 1.0}
    assert spec.topology.host_rate_gbps == 10.0  # an integer is a number
    with pytest.raises(SpecError, match=r"^buffer.pfc: Input should be true or false, got 'yes' \(str\)$"):
        spec_from_dict({"buffer": {"pfc": "yes"}})
    import numpy as np

    assert spec_from_dict({"workload": {"flows": np.int64(12), "load": np.float64(0.5)}}).workload.flows == 12


@pytest.mark.parametrize("data, message", [
    ({"buffer": {"size_mb_at": {"abc": 1.0}}}, "buffer.size_mb_at: a key 'abc': Input should be a valid integer"),
    ({"scheme": {"name": "tcp", "host_queue_bytes": "x"}},
     "scheme.host_queue_bytes: should be a valid integer or 'same' or 'unlimited', got 'x'"),
    ({"scheme": {"name": "pias", "thresholds": "bogus"}}, "scheme.thresholds: should be a valid list or 'paper', got 'bogus'"),
])
def test_errors_name_fields_not_the_validation_librarys_branches(data, message):
    with pytest.raises(SpecError) as e:
        spec_from_dict(data)
    assert str(e.value).startswith(message) and not any(w in str(e.value) for w in fuzz.INTERNALS)


def test_mistakes_the_engine_used_to_panic_on_are_refused_by_name():
    from dcsim.spec import engine_config

    with pytest.raises(SpecError, match=r"^scheme: min_rto_us \(1000\) is above max_rto_us \(10\)$"):
        spec_from_dict({"scheme": {"name": "tcp", "min_rto_us": 1000, "max_rto_us": 10}})
    spec = spec_from_dict({"scheme": {"name": "prio_queues", "host_queue_bytes": 0}})
    with pytest.raises(SpecError, match=r"^scheme.host_queue_bytes: 0 B is less than the 4 queues' reserves"):
        engine_config(spec)


def test_the_fuzzers_short_form_finds_no_crash_hang_or_unclear_refusal():
    """A seeded sample of the fuzzer's cases (python -m dcsim.fuzz runs
    more). Every case runs or is refused in one clean line."""
    outcomes = list(fuzz.run_cases(seed=1, cases=range(40), jobs=2, timeout=120))
    assert len(outcomes) == 40 and {o.case for o in outcomes} == set(range(40))
    kinds = {o.kind for o in outcomes}
    assert {"ran", "refused"} <= kinds
    bad = [o for o in outcomes if o.failed]
    assert bad == [], [(o.case, o.kind, o.detail, o.changed) for o in bad]


def _lone(topology, balancing, size, dst):
    spec = spec_from_dict({"topology": topology, "routing": {"load_balancing": balancing}, "scheme": {"name": "pfabric"},
                           "workload": {"matrix": "bulk", "src": 0, "dst": dst, "flow_bytes": size, "flows": 1}})
    run = simulate.run_all(spec)
    return float(run.flows.slowdown.iloc[0]), run.summary


SLOW_SPINES = {"kind": "leaf_spine", "spines": 4, "spine_rate_gbps": 1.0}
FAT_TREE = {"kind": "fat_tree", "k": 4}


@pytest.mark.parametrize("topology, size, dst, sprayed", [
    (SLOW_SPINES, 1_000_000, 143, 0.292),  # four 1 Gb/s spines at once: near W / 4 Gb/s
    (SLOW_SPINES, 2003, 143, 0.908),       # the 583 B last packet, not behind a full one, on faster last hop
    (FAT_TREE, 2003, 15, 0.977),           # the last packet overtakes the first on another path
])
def test_a_lone_flow_on_one_path_has_slowdown_1_and_a_sprayed_one_that_beats_it_is_flagged(topology, size, dst,
                                                                                          sprayed):
    """The fuzzer's "slowdown below 1" class (issue 52): the ideal FCT is
    exact on the flow's own path (idle.rs), so ECMP's lone flow has
    slowdown 1, also where a faster link follows the bottleneck; sprayed
    packets can beat it, and the run says so, and never beats the
    multipath bound."""
    one, summary = _lone(topology, "ecmp", size, dst)
    assert one == pytest.approx(1.0, abs=1e-9) and "below_ideal" not in summary and summary["fct_bound_holds"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        many, summary = _lone(topology, "spray", size, dst)
    assert many == pytest.approx(sprayed, abs=1e-3)
    assert summary["below_ideal"] == {"flows": 1, "min_slowdown": pytest.approx(many)} and summary["fct_bound_holds"]
    assert any("faster than their ideal FCT" in str(w.message) for w in caught) == (many < 0.95)


def test_on_the_papers_fabric_sprayed_flows_beat_the_ideal_by_under_2_percent():
    # docs/design.md, "Normalized FCT": pFabric, data mining at 10%, 3,000 flows
    spec = spec_from_dict({"routing": {"load_balancing": "round_robin"}, "scheme": {"name": "pfabric"},
                           "workload": {"cdf": "data_mining", "load": 0.1, "flows": 3000}})
    summary = simulate.run_all(spec).summary
    assert summary["below_ideal"]["flows"] == 63 and 0.984 < summary["below_ideal"]["min_slowdown"] < 0.985
    assert summary["fct_bound_holds"]


@pytest.mark.parametrize("topology, message", [
    # fuzz case 1037 (seed 1): 6.4 billion hosts ran the engine out of memory before its own check
    ({"kind": "leaf_spine", "leaves": 3, "spines": 2, "hosts_per_leaf": 2147483646},
     r"^topology: 6,442,450,938 hosts; at most 65,535 are supported$"),
    ({"kind": "clos", "pods": 100}, r"^topology: 76,800 hosts; at most 65,535"),
    # fuzz case 99 (seed 1): a 10^6 s link delay filled the packet pool (BFC has no window)
    ({"kind": "clos", "pods": 2, "racks_per_pod": 2, "hosts_per_rack": 3, "aggs_per_pod": 2,
      "tor_link_delay_us": 1e12},
     r"^topology: its links hold up to 2e\+15 packets on the wire \(rate x delay both ways, 40 B packets\), "
     r"about 96,000,000.0 GB of packet state; this machine has [\d,.]+ GB$"),
    ({"kind": "leaf_spine", "leaves": 3, "spines": 2**30},
     r"^topology: 3,221,225,520 links would need about 6,597.1 GB of memory \(about 2,048 B a link\); "
     r"this machine has [\d,.]+ GB$"),
])
def test_a_fabric_too_large_to_hold_is_refused_before_it_is_built(topology, message):
    with pytest.raises(SpecError, match=message):
        spec_from_dict({"topology": topology})


@pytest.mark.parametrize("case, message", [
    # fuzz case 313 (seed 1): 1 b/s host links, arrivals so slow that a start time overflowed
    ({"topology": {"kind": "leaf_spine", "leaves": 3, "spines": 4, "hosts_per_leaf": 7, "host_rate_gbps": 1e-09},
      "scheme": {"name": "ideal_fq_packet"}, "workload": {"cdf": "web_search", "load": 0.1, "flows": 8}},
     r"^workload: 8 flows at 1.5e-07 a second arrive over about 616 days of simulated time; the engine's clock "
     r"holds 107 days"),
    # fuzz case 130 (seed 1): a 1 ns sampler ran out of memory
    ({"seed": 995, "topology": {"kind": "fat_tree", "k": 4}, "scheme": {"name": "homa"},
      "workload": {"cdf": "data_mining", "load": 0.1, "flows": 20}, "packets": {"header_bytes": 999},
      "run": {"sample_us": 0.001}},
     r"^run.sample_us: 0.001 us records at least 2.39e\+09 queue samples \(about 76 GB; this machine has"),
    # fuzz case 7293 (seed 1, on 3ad1429's schema): BFC's flow tables at 2^20 entries a queue (9.6 GB on its
    # 18 switch ports) aborted a worker held to 4 GiB; on the papers' fabric with 256 queues they pass any machine
    ({"scheme": {"name": "bfc", "queues": 256, "table_per_queue": 2**20}, "workload": {"flows": 10}},
     r"^scheme bfc: its ports' tables need about 1,546.2 GB \(this machine has"),
])
def test_a_run_that_would_overrun_the_clock_or_memory_is_refused_before_it_starts(case, message):
    from dcsim.spec import engine_config

    with pytest.raises(SpecError, match=message):
        engine_config(spec_from_dict(case))


CASES = Path(__file__).parent / "fuzz_cases"


def test_every_spec_the_fuzzer_found_failing_now_runs_or_is_refused():
    """The specs `python -m dcsim.fuzz --keep` wrote for each failure it
    found (tests/fuzz_cases/: what each did then is in its `found`), run
    again as the fuzzer runs them: each now runs to its end with its
    invariants, or is refused in one line (seed 1's case 889: flows
    starting at 10^6 s, with PFC's deadlock check looking every
    millisecond until then)."""
    found = {p.stem: (json.loads(p.read_text())["spec"], []) for p in sorted(CASES.glob("*.json"))}
    assert len(found) >= 18
    outcomes = list(fuzz.run_specs(found, jobs=2, timeout=60))
    bad = [(o.case, o.kind, o.detail) for o in outcomes if o.failed]
    assert bad == []
    assert next(o for o in outcomes if o.case == "seed1-case889").kind == "ran"
