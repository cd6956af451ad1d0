"""Every scheme's results, pinned: a digest of the per-flow records, the
counters and each scheme's own reports on a fixed small spec per scheme
(and per code path a scheme has: window laws, connection pools, deadlines,
sampling, traffic classes, ...).

A change that only reshapes the code must leave every digest as it is. A
change that moves results on purpose regenerates them and says so in its
commit:

    DCSIM_UPDATE_DIGESTS=1 .venv/bin/python -m pytest tests/test_digests.py

(which rewrites tests/data/digests.json; the diff names the cases that
moved). The events counter is left out: how many events a run takes is the
engine's business, not a result."""

from __future__ import annotations

import hashlib
import json
import math
import os
import warnings
from pathlib import Path

import pytest

import dcsim
from dcsim.errors import DcsimWarning

DIGESTS = Path(__file__).parent / "data" / "digests.json"
UPDATE = os.environ.get("DCSIM_UPDATE_DIGESTS") == "1"

# 16 hosts on 4 leaves: small enough for 19 schemes in seconds, loaded
# enough (70%) that every scheme queues, marks, drops or pauses.
TOPO = {"kind": "leaf_spine", "leaves": 4, "spines": 2, "hosts_per_leaf": 4}
ECMP = {"load_balancing": "ecmp"}


def case(scheme: dict | str, flows: int = 200, load: float = 0.7, routing: dict | None = None,
         workload: dict | None = None, run: dict | None = None, **sections) -> dict:
    spec = {"seed": 3, "topology": TOPO,
            "scheme": scheme if isinstance(scheme, dict) else {"name": scheme},
            "workload": {k: v for k, v in {"flows": flows, "load": load, **(workload or {})}.items()
                         if v is not None},
            "run": run or {}, **sections}
    if routing is not None:
        spec["routing"] = routing
    return spec


CASES = {
    # the TCP family: every window law, timer and connection option
    "tcp": case("tcp"),
    "tcp-cubic-ecn-ecmp": case({"name": "tcp", "cc": "cubic", "ecn": True, "ecn_threshold_bytes": 30_000},
                               routing=ECMP),
    "tcp-pool-handshake": case({"name": "tcp", "connections": "pool", "connections_per_pair": 1,
                                "rtt_samples": "per_window", "window": "span"}),
    "tcp-ack-every-2": case({"name": "tcp", "ack_every": 2}, run={"fct_at": "receiver"}),
    "dctcp": case("dctcp"),
    "dctcp-delayed-acks": case({"name": "dctcp", "ack_every": 4, "connections": "pool"}),
    "l2dct": case("l2dct"),
    "pfabric": case("pfabric"),
    "pfabric-edf": case({"name": "pfabric", "priority": "deadline"}, workload={"deadline_mean_us": 2000}),
    "pfabric-bytes-sent-no-starvation": case({"name": "pfabric", "priority": "bytes_sent",
                                              "starvation_prevention": False}),
    "pfabric-leaves-only": case({"name": "pfabric", "deployment": "leaves"}),
    "pfabric-line-rate": case({"name": "pfabric", "rate_control": "line_rate"}),
    "pias": case("pias"),
    "las": case("las"),
    "pias-queries": case("pias", workload={"queries": {"per_s": 4000}}, run={"fct_at": "receiver"}),
    "prio_queues": case("prio_queues"),
    "prio_queues-16-log-remaining": case({"name": "prio_queues", "queues": 16, "thresholds": "log",
                                          "priority": "remaining_size", "reserved_bytes": 0}),
    "prio_queues-unlimited": case({"name": "prio_queues", "queues": "unlimited", "priority": "remaining_size"}),
    "ideal": case("ideal"),
    "ideal_fq": case("ideal_fq", routing=ECMP),
    # RDMA queue pairs and their laws, on shared buffers with PFC
    "dcqcn": case("dcqcn", routing=ECMP),
    "dcqcn-classes-sampled": case("dcqcn", routing=ECMP,
                                  workload={"traffic_classes": 2, "class_scheduling": "round_robin"},
                                  run={"sample_us": 50, "sample_queues": "switches", "sample_flows": True,
                                       "queueing_delay": True}),
    "dcqcn_ns3rdma": case("dcqcn_ns3rdma", routing=ECMP),
    "hpcc": case("hpcc", routing=ECMP),
    "hpcc-pair-rtt-sfq": case({"name": "hpcc", "global_rtt": False, "queues": 8, "rto_us": 1000}, routing=ECMP,
                              buffer={"pfc": False}),
    "dctcp_rdma": case("dctcp_rdma", routing=ECMP),
    "bfc": case("bfc", routing=ECMP, run={"queueing_delay": True}),
    "bfc-delay-cc-sampled": case({"name": "bfc", "cc": "delay", "sample": 0.5, "nic_pauses": False},
                                 routing=ECMP),
    "bfc-incast-label": case({"name": "bfc", "incast_label": True}, routing=ECMP,
                             workload={"incasts": {"senders": 6, "total_bytes": 600_000, "load_share": 0.1}}),
    "bfc-srf-classes": case({"name": "bfc", "scheduling": "srf"}, routing=ECMP, workload={"traffic_classes": 2}),
    "ideal_fq_packet": case("ideal_fq_packet", routing=ECMP),
    "ideal_srf_packet": case("ideal_srf_packet", routing=ECMP),
    "rdma-perfect-retransmit": case({"name": "dcqcn", "perfect_retransmit": True}, routing=ECMP),
    # receiver-driven
    "expresspass": case("expresspass", routing=ECMP),
    "homa": case("homa", run={"queueing_delay": True}),
    # flow state at every link
    "pdq": case("pdq", routing=ECMP),
    "pdq-deadlines-no-early-start": case({"name": "pdq", "early_start_k": 0}, routing=ECMP,
                                         workload={"deadline_mean_us": 200}),
    # workloads and run options the engine treats apart
    "tcp-incast": case("tcp", workload={"matrix": "incast", "senders": 8, "flow_bytes": 100_000,
                                        "requests": 5, "flows": None, "load": None}),
    "dctcp-stopped": case("dctcp", run={"stop_time_s": 0.004}),
}


def _canonical(x):
    """JSON-able, with floats as their exact repr (NaN included)."""
    if isinstance(x, float):
        return "nan" if math.isnan(x) else repr(x)
    if isinstance(x, dict):
        return {k: _canonical(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canonical(v) for v in x]
    return x


# summary entries that are not results: the spec itself, timings, and
# statistics derived from the flow table
# (below_ideal restates the flows table, which is hashed; fct_bound_holds is
# a check, true on every pinned case)
NOT_RESULTS = {"name", "version", "spec", "overrides", "wall_time_s", "events", "events_per_s",
               "packet_hops_per_s", "stats", "fct_bound_holds", "below_ideal"}


def digest(spec: dict) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DcsimWarning)
        r = dcsim.run_all(spec)
    assert r.summary["fct_bound_holds"] and r.summary["conservation_holds"]
    return run_digest(r)


def run_digest(r) -> str:
    s = {k: v for k, v in r.summary.items() if k not in NOT_RESULTS}
    s["counters"] = {k: v for k, v in s["counters"].items() if k != "events"}
    tables = {name: getattr(r, name) for name in ("flows", "queues", "flow_samples", "buffers")}
    # the flows' incast numbers come from the spec, not from the run
    tables["flows"] = tables["flows"].drop(columns=["incast"], errors="ignore")
    content = {"summary": s, **{name: df.to_dict("list") for name, df in tables.items() if df is not None}}
    text = json.dumps(_canonical(content), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _stored() -> dict:
    return json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}


@pytest.fixture(scope="module")
def stored():
    held = _stored()
    yield held
    if UPDATE:
        DIGESTS.write_text(json.dumps(dict(sorted(held.items())), indent=1) + "\n")


def test_every_scheme_has_a_case():
    from dcsim.spec.schemes import SCHEMES

    named = {c["scheme"]["name"] for c in CASES.values()}
    assert named == set(SCHEMES), f"schemes without a digest case: {set(SCHEMES) - named}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_results_are_as_pinned(name, stored):
    got = digest(CASES[name])
    if UPDATE:
        stored[name] = got
        return
    assert name in stored, f"no digest for {name}: run with DCSIM_UPDATE_DIGESTS=1"
    assert got == stored[name], (f"{name}: results moved (digest {got}, pinned {stored[name]}); if on purpose, "
                                 "regenerate with DCSIM_UPDATE_DIGESTS=1 and say so in the commit")


def test_a_digest_sees_one_flow_finish_a_picosecond_later():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DcsimWarning)
        r = dcsim.run_all(case("dctcp", flows=40))
    before = run_digest(r)
    assert run_digest(r) == before
    finish = r.flows.loc[17, "finish_s"]
    r.flows.loc[17, "finish_s"] = finish + 1e-12
    assert run_digest(r) != before
    r.flows.loc[17, "finish_s"] = finish
    assert run_digest(r) == before
    r.summary["counters"]["marked_pkts"] += 1
    assert run_digest(r) != before
