"""Which flows arrive (`[workload]`) and how a run ends (`[run]`)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import model_validator

from .base import Model, field

#: Flows a generated workload starts when `workload.flows` is not given.
DEFAULT_FLOWS = 10_000


class Workload(Model):
    """Which flows arrive. Generated workloads draw sizes from a CDF and
    arrivals from a Poisson process whose rate gives the offered `load`, as
    a fraction of host-link capacity (`load_basis = "host"`, pFabric and
    PIAS) or of the leaves' aggregate uplink capacity (`"core"`, BFC),
    counting headers. A trace gives every flow explicitly."""

    cdf: str = field("web_search", "flow sizes: a shipped workload (`dcsim list workloads`) or a 'size cdf' file",
                     source="pFabric §5.2 (web search, data mining)")
    cdf_unit_bytes: int = field(1, "bytes per size unit of a CDF file (1460 for ns-2 tables in packets)", ge=1)
    size_quantum_bytes: int = field(1, "round sizes up to a multiple of this many bytes (1460: whole packets)",
                                    ge=1)
    load: float = field(0.6, "offered load, a fraction of the capacity named by load_basis, headers included",
                        source="pFabric §5.2 (loads 0.1-0.8)", gt=0, lt=1)
    load_basis: Literal["host", "core"] = field(
        "host", "host: of all host links (pFabric, PIAS); core: of the leaves' uplinks (BFC §6.2)")
    matrix: Literal["all_to_all", "many_to_one", "trace"] = field(
        "all_to_all", "all_to_all: uniform random source and destination; many_to_one: every flow to `dst`; "
        "trace: the flows of `trace`", source="pFabric §5.2")
    dst: int = field(0, "destination host of many_to_one", ge=0)
    trace: Optional[str] = field(None, "trace file (matrix = 'trace'); relative to the spec file")
    trace_format: Literal["dcsim", "hpcc"] = field(
        "dcsim", "dcsim: lines 'time_s src dst size_bytes'; hpcc: the HPCC simulator's flow file")
    flows: Optional[int] = field(
        None, f"flows to generate (default {DEFAULT_FLOWS:,}); with a trace, run at most its first N flows "
        "(default: all); summary.json's flows_total says how many ran",
        source="pFabric ns-2 scripts: 100,000 flows per point", gt=0)
    start_us: float = field(0.0, "time of the first possible arrival, us", ge=0)

    @model_validator(mode="after")
    def _trace_needs_file(self):
        if self.matrix == "trace" and not self.trace:
            raise ValueError("matrix = 'trace' needs workload.trace = PATH")
        return self

    def generated_flows(self) -> int:
        return DEFAULT_FLOWS if self.flows is None else self.flows


class RunOptions(Model):
    """How the run is carried out and when it stops."""

    host_delay_us: float = field(0.0, "host processing delay added when a packet reaches a host, us", ge=0)
    stop_time_s: Optional[float] = field(
        None, "stop at this simulated time, finished or not (unfinished flows are kept, with no finish time)",
        gt=0)
    queue_sample_us: Optional[float] = field(
        None, "record queues every this many us (queues.parquet; off by default)", gt=0)
    queue_sample_ports: Literal["to_hosts", "host_nics", "switches", "all"] = field(
        "to_hosts", "the ports the queue sampler records: the last hop to each host, the host NICs, every switch "
        "port, or all")
    fct_at: Literal["sender", "receiver"] = field(
        "sender", "when a flow is finished: sender, when the ACK of its last byte reaches the sender (its ideal "
        "FCT then includes that ACK's way back); receiver, when the receiver holds every byte (one-way ideal)",
        source="pFabric and PIAS ns-2 scripts (the FCT they log ends at the sender)")
