"""What a run will cost, estimated before it runs (issue 52: a spec whose
size would run for days is warned about first, with an estimate).

The engine's work is its packet-hops: every data packet crosses its path,
every acknowledgement the path back. A run's are about its bytes over the
packet size times twice the hops of a typical path; at the slowest
schemes' rate in docs/performance.md (about 3 M packet-hops a second on
one core: HPCC, BFC and PDQ on this project's VM; TCP runs 10-23 M) that
gives an upper estimate of the wall time."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: packet-hops a second, the slowest packet-level schemes on one core
#: (docs/performance.md, "The targets at a glance")
SLOW_RATE = 3e6
#: warn past this estimated wall time, seconds
WARN_AFTER_S = 3600.0
#: hops of a typical host-to-host path, by topology (one way)
HOPS = {"star": 2, "leaf_spine": 4, "oversubscribed_leaf_spine": 4, "fat_tree": 6, "clos": 6, "file": 6}


@dataclass(frozen=True)
class Cost:
    bytes: float  # payload the workload moves
    packet_hops: float
    seconds: float  # at SLOW_RATE

    def describe(self) -> str:
        return (f"about {self.bytes / 1e9:,.3g} GB in {self.packet_hops:,.3g} packet-hops: up to "
                f"{_duration(self.seconds)} on one core at the slowest schemes' 3 M packet-hops/s")


def _duration(s: float) -> str:
    for unit, n in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if s >= 2 * n:
            return f"{s / n:,.0f} {unit}"
    return f"{s:.0f} s"


def workload_bytes(spec) -> float:
    """The payload bytes the spec's workload asks to move (before a stop
    time cuts it short)."""
    from .workloads import load_cdf

    w = spec.workload
    if w.matrix == "trace":
        return math.nan  # a trace's sizes are known once it is read; it was written by hand or by a tool
    if w.matrix == "bulk":
        total = float(w.generated_flows()) * w.flow_bytes
    elif w.matrix == "incast":
        total = float(w.senders) * w.incast_flow_bytes() * w.requests
    else:
        cdf = load_cdf(w.cdf, unit=w.cdf_unit_bytes)
        total = w.generated_flows() * cdf.mean(w.size_quantum_bytes)
    if w.long_flows is not None:
        total += len(w.long_flows.endpoints()) * float(w.long_flows.bytes)
    if w.incasts is not None and w.incasts.count is not None:
        total += w.incasts.count * float(w.incasts.total_bytes)
    return total


def estimate(spec) -> Cost:
    """The run's cost: its bytes, packet-hops and an upper estimate of the
    wall time. A stop time caps the bytes at what the hosts' links carry
    in it."""
    total = workload_bytes(spec)
    if math.isnan(total):
        return Cost(math.nan, math.nan, math.nan)
    topo = spec.topology
    if spec.run.stop_time_s is not None:
        line = getattr(topo, "host_rate_gbps", None) or getattr(topo, "rate_gbps", None) or 10.0
        total = min(total, spec.run.stop_time_s * topo.host_count() * line * 1e9 / 8)
    packets = total / spec.scheme.mss_bytes
    hops = 2 * HOPS.get(topo.kind, 6)  # the data's path, and the acknowledgements' back
    return Cost(total, packets * hops, packets * hops / SLOW_RATE)


def cost_caveat(spec) -> list[str]:
    """A warning when the run would take more than an hour of one core."""
    if spec.scheme.engine_model != "packets":
        return []
    c = estimate(spec)
    if not c.seconds > WARN_AFTER_S:
        return []
    return [f"this run is large: {c.describe()}; fewer flows (workload.flows) or a stop time (run.stop_time_s) "
            "would shorten it"]


#: bytes a queue sample takes in memory (time, port, packets, bytes, flows)
SAMPLE_BYTES = 32


def arrival_span_s(workload: dict) -> float:
    """How long an engine workload's generated arrivals take (flows over
    the arrival rate, from its start); 0 for the others."""
    rate = workload.get("arrival_rate_per_s")
    if workload.get("kind") != "generated" or not rate:
        return 0.0
    return workload["start_ps"] / 1e12 + workload["flows"] / rate


def sample_rows(spec, span_s: float = 0.0) -> float:
    """At least how many queue samples a run records: every sampled port
    once an interval, over at least the time its bytes take on all the
    hosts' links at once, or its arrivals' span (`arrival_span_s`)."""
    r = spec.run
    if r.sample_us is None or r.sample_queues == "none" or spec.scheme.engine_model != "packets":
        return 0.0
    topo = spec.topology
    hosts = topo.host_count()
    line = getattr(topo, "host_rate_gbps", None) or getattr(topo, "rate_gbps", None) or 10.0
    total = workload_bytes(spec)
    seconds = max(span_s, 0.0 if math.isnan(total) else total * 8 / (hosts * line * 1e9))
    if r.stop_time_s is not None:
        seconds = min(seconds, r.stop_time_s)
    ports = hosts if r.sample_queues in ("to_hosts", "host_nics") else 2 * hosts
    return seconds / (r.sample_us * 1e-6) * ports
