"""Experiment specs: ``topology + scheme + workload + run options``.

Specs are TOML files or Python objects validated by pydantic. Every model
forbids unknown fields, so a typo fails before any simulation starts with a
message naming the field. Defaults are the pFabric paper's (§5.1): its
144-host leaf-spine, per-packet spraying, web search at 60% load, and
TCP-DropTail's parameters.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import SpecError
from .workloads import load_cdf, load_trace

GBPS = 1_000_000_000
PS_PER_US = 1_000_000


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


# ---- topologies ---------------------------------------------------------


class StarTopology(Model):
    """N hosts on one switch."""

    kind: Literal["star"] = "star"
    hosts: int = Field(16, ge=2, le=65535)
    rate_gbps: float = Field(10.0, gt=0)
    link_delay_us: float = Field(2.7, ge=0)

    def engine(self) -> dict:
        return {"kind": "star", "hosts": self.hosts, "rate_bps": bps(self.rate_gbps), "delay_ps": ps(self.link_delay_us)}

    def host_count(self) -> int:
        return self.hosts

    def host_rate_bps(self) -> int:
        return bps(self.rate_gbps)

    def core_capacity_bps(self) -> Optional[int]:
        return None


class LeafSpineTopology(Model):
    """Two-tier leaf-spine. Defaults: pFabric §5.1 (9 leaves x 16 hosts at
    10 Gbps, 4 spines, 40 Gbps uplinks). Host links carry 2.5 us of host
    delay on top of 0.2 us propagation, as the pFabric ns-2 setup does, which
    gives its ~14.6 us RTT across the spine and ~13.3 us under one leaf."""

    kind: Literal["leaf_spine"] = "leaf_spine"
    leaves: int = Field(9, ge=1)
    spines: int = Field(4, ge=1)
    hosts_per_leaf: int = Field(16, ge=1)
    host_rate_gbps: float = Field(10.0, gt=0)
    spine_rate_gbps: float = Field(40.0, gt=0)
    host_link_delay_us: float = Field(2.7, ge=0)
    spine_link_delay_us: float = Field(0.2, ge=0)

    def spine_rate(self) -> float:
        return self.spine_rate_gbps

    def engine(self) -> dict:
        return {
            "kind": "leaf_spine",
            "leaves": self.leaves,
            "spines": self.spines,
            "hosts_per_leaf": self.hosts_per_leaf,
            "host_rate_bps": bps(self.host_rate_gbps),
            "spine_rate_bps": bps(self.spine_rate()),
            "host_delay_ps": ps(self.host_link_delay_us),
            "spine_delay_ps": ps(self.spine_link_delay_us),
        }

    def host_count(self) -> int:
        return self.leaves * self.hosts_per_leaf

    def host_rate_bps(self) -> int:
        return bps(self.host_rate_gbps)

    def core_capacity_bps(self) -> Optional[int]:
        # BFC §6.2 load: a fraction of the leaves' aggregate uplink capacity.
        return self.leaves * self.spines * bps(self.spine_rate())


class OversubscribedLeafSpineTopology(LeafSpineTopology):
    """Leaf-spine whose uplinks carry 1/oversubscription of the host
    capacity. Defaults: pFabric §5.4 Fig. 20 (3 leaves x 48 hosts at 10 Gbps,
    4 x 40 Gbps uplinks = 3:1)."""

    kind: Literal["oversubscribed_leaf_spine"] = "oversubscribed_leaf_spine"  # type: ignore[assignment]
    leaves: int = Field(3, ge=1)
    hosts_per_leaf: int = Field(48, ge=1)
    oversubscription: float = Field(3.0, ge=1.0)
    spine_rate_gbps: Optional[float] = Field(None, gt=0)  # type: ignore[assignment]

    @model_validator(mode="after")
    def _derived_rate(self):
        if self.spine_rate_gbps is not None:
            raise ValueError("spine_rate_gbps is derived from oversubscription; set oversubscription instead")
        return self

    def spine_rate(self) -> float:
        return self.hosts_per_leaf * self.host_rate_gbps / (self.spines * self.oversubscription)


class FatTreeTopology(Model):
    """k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k^3/4 hosts."""

    kind: Literal["fat_tree"] = "fat_tree"
    k: int = Field(8, ge=2, le=40)
    host_rate_gbps: float = Field(10.0, gt=0)
    fabric_rate_gbps: float = Field(10.0, gt=0)
    host_link_delay_us: float = Field(2.7, ge=0)
    fabric_link_delay_us: float = Field(0.2, ge=0)

    @model_validator(mode="after")
    def _even(self):
        if self.k % 2:
            raise ValueError(f"k must be even, got {self.k}")
        return self

    def engine(self) -> dict:
        return {
            "kind": "fat_tree",
            "k": self.k,
            "host_rate_bps": bps(self.host_rate_gbps),
            "fabric_rate_bps": bps(self.fabric_rate_gbps),
            "host_delay_ps": ps(self.host_link_delay_us),
            "fabric_delay_ps": ps(self.fabric_link_delay_us),
        }

    def host_count(self) -> int:
        return self.k**3 // 4

    def host_rate_bps(self) -> int:
        return bps(self.host_rate_gbps)

    def core_capacity_bps(self) -> Optional[int]:
        # edge-switch uplinks: k pods x k/2 edges x k/2 uplinks
        return self.k * (self.k // 2) ** 2 * bps(self.fabric_rate_gbps)


Topology = Annotated[
    Union[StarTopology, LeafSpineTopology, OversubscribedLeafSpineTopology, FatTreeTopology],
    Field(discriminator="kind"),
]
TOPOLOGIES = {
    "star": StarTopology,
    "leaf_spine": LeafSpineTopology,
    "oversubscribed_leaf_spine": OversubscribedLeafSpineTopology,
    "fat_tree": FatTreeTopology,
}


# ---- routing ------------------------------------------------------------


class Routing(Model):
    """Load balancing over equal-cost paths. pFabric §5.1 sprays packets;
    PIAS's oversubscribed runs and BFC hash flows (ECMP)."""

    load_balancing: Literal["ecmp", "spray"] = "spray"


# ---- schemes ------------------------------------------------------------


class TcpScheme(Model):
    """TCP NewReno + SACK over drop-tail FIFO switches: pFabric's
    TCP-DropTail baseline (§5.1: qSize 225 KB, initCwnd 12 packets, minRTO
    200 us)."""

    name: Literal["tcp"] = "tcp"
    queue_bytes: int = Field(225_000, gt=0, description="drop-tail limit per switch port")
    host_queue_bytes: Union[int, Literal["same", "unlimited"]] = Field(
        "same", description="NIC queue limit: bytes, 'same' as switches (as pFabric's ns-2 setup), or 'unlimited'"
    )
    ecn_threshold_bytes: Optional[int] = Field(None, ge=0, description="mark CE above this queue (ECT packets only)")
    init_cwnd_pkts: float = Field(12, ge=1)
    max_cwnd_pkts: Union[float, Literal["auto", "unlimited"]] = Field(
        "auto", description="auto: one packet less than the switch buffer, at least 12 (pFabric's ns-2 scripts)"
    )
    min_rto_us: float = Field(200, gt=0)
    init_rto_us: Optional[float] = Field(None, gt=0, description="RTO before the first RTT sample (default: min_rto_us)")
    max_rto_us: float = Field(2_000_000, gt=0)
    mss_bytes: int = Field(1460, gt=0, le=9000)
    header_bytes: int = Field(40, ge=0, le=1000)
    ack_bytes: int = Field(40, gt=0, le=1500)
    fast_retransmit: Union[bool, Literal["auto"]] = Field(
        "auto", description="auto: on with ECMP, off with packet spraying (as pFabric §5.1)"
    )
    dupack_threshold: int = Field(3, ge=1)
    ecn: bool = Field(False, description="RFC 3168 ECN: ECT data, halve the window on ECN echo")

    @model_validator(mode="after")
    def _ecn_needs_marking(self):
        if self.ecn and self.ecn_threshold_bytes is None:
            raise ValueError("ecn = true needs ecn_threshold_bytes (switches mark above it)")
        return self

    def resolved_max_cwnd(self) -> Optional[float]:
        if self.max_cwnd_pkts == "unlimited":
            return None
        if self.max_cwnd_pkts == "auto":
            # pFabric's ns-2 scripts: maxcwnd_ = queue - 1 packets if the
            # queue holds more than 12 packets, else 12.
            q = self.queue_bytes // (self.mss_bytes + self.header_bytes)
            return float(q - 1 if q > 12 else 12)
        return float(self.max_cwnd_pkts)

    def resolved_host_queue(self) -> Optional[int]:
        if self.host_queue_bytes == "unlimited":
            return None
        return self.queue_bytes if self.host_queue_bytes == "same" else self.host_queue_bytes

    def engine(self, routing: Routing) -> tuple[dict, dict]:
        fr = self.fast_retransmit
        if fr == "auto":
            fr = routing.load_balancing != "spray"
        transport = {
            "mss_bytes": self.mss_bytes,
            "header_bytes": self.header_bytes,
            "ack_bytes": self.ack_bytes,
            "init_cwnd_pkts": float(self.init_cwnd_pkts),
            "max_cwnd_pkts": self.resolved_max_cwnd(),
            "min_rto_ps": ps(self.min_rto_us),
            "init_rto_ps": ps(self.init_rto_us if self.init_rto_us is not None else self.min_rto_us),
            "max_rto_ps": ps(self.max_rto_us),
            "fast_retransmit": bool(fr),
            "dupack_threshold": self.dupack_threshold,
            "ecn": self.ecn,
        }
        port = {
            "switch_queue_bytes": self.queue_bytes,
            "host_queue_bytes": self.resolved_host_queue(),
            "ecn_threshold_bytes": self.ecn_threshold_bytes,
        }
        return transport, port


Scheme = TcpScheme
SCHEMES = {"tcp": TcpScheme}


# ---- workload -----------------------------------------------------------


class Workload(Model):
    """Which flows arrive. ``load`` is the mean offered load as a fraction
    of host-link capacity (``load_basis = "host"``, pFabric/PIAS) or of the
    leaves' aggregate uplink capacity (``"core"``, BFC), counting headers."""

    cdf: str = Field("web_search", description="shipped workload name or path to a 'size cdf' file")
    cdf_unit_bytes: int = Field(1, ge=1, description="bytes per size unit of a CDF file (1460 for ns-2 packet tables)")
    size_quantum_bytes: int = Field(1, ge=1, description="round sizes up to a multiple of this")
    load: float = Field(0.6, gt=0, lt=1)
    load_basis: Literal["host", "core"] = "host"
    matrix: Literal["all_to_all", "many_to_one", "trace"] = "all_to_all"
    dst: int = Field(0, ge=0, description="destination host of many_to_one")
    trace: Optional[str] = Field(None, description="trace file (matrix = 'trace')")
    trace_format: Literal["dcsim", "hpcc"] = Field(
        "dcsim", description="dcsim: time_s src dst size_bytes; hpcc: the HPCC simulator's flow file"
    )
    flows: int = Field(10_000, gt=0, description="number of flows to generate")
    start_us: float = Field(0.0, ge=0, description="time of the first possible arrival")

    @model_validator(mode="after")
    def _trace_needs_file(self):
        if self.matrix == "trace" and not self.trace:
            raise ValueError("matrix = 'trace' needs workload.trace = PATH")
        return self


class RunOptions(Model):
    host_delay_us: float = Field(0.0, ge=0, description="host processing delay added on delivery")
    stop_time_s: Optional[float] = Field(None, gt=0, description="stop at this simulated time")


class Spec(Model):
    name: str = "experiment"
    seed: int = Field(1, ge=0, lt=2**63)
    topology: Topology = Field(default_factory=LeafSpineTopology)
    routing: Routing = Field(default_factory=Routing)
    scheme: Scheme = Field(default_factory=TcpScheme)
    workload: Workload = Field(default_factory=Workload)
    run: RunOptions = Field(default_factory=RunOptions)

    def with_overrides(self, **dotted: Any) -> "Spec":
        """A copy with ``{"workload.load": 0.3, ...}`` applied."""
        return spec_from_dict(apply_overrides(self.model_dump(mode="json"), dotted))


# ---- loading ------------------------------------------------------------


def bps(gbps: float) -> int:
    return round(gbps * GBPS)


def ps(us: float) -> int:
    return round(us * PS_PER_US)


def _format_error(err: ValidationError) -> str:
    e = err.errors()[0]
    loc = ".".join(str(p) for p in e["loc"] if not (isinstance(p, str) and p in TOPOLOGIES))
    msg = e["msg"]
    if e["type"] == "union_tag_invalid":
        ctx = e.get("ctx", {})
        msg = f"unknown {loc or 'kind'} {ctx.get('tag')!r} (allowed: {ctx.get('expected_tags')})"
        loc = f"{loc}.kind" if loc else "kind"
    elif e["type"] == "union_tag_not_found":
        msg = f"missing 'kind' (allowed: {', '.join(TOPOLOGIES)})"
    elif e["type"] == "literal_error" and "input" in e:
        msg = f"{msg}, got {e['input']!r}"
    elif e["type"] == "extra_forbidden":
        msg = "unknown field"
    more = f" (and {len(err.errors()) - 1} more problem(s))" if len(err.errors()) > 1 else ""
    return f"{loc or 'spec'}: {msg}{more}"


def spec_from_dict(data: dict) -> Spec:
    try:
        return Spec.model_validate(data)
    except ValidationError as err:
        raise SpecError(_format_error(err)) from None


def parse_value(text: str) -> Any:
    """``--set`` values: TOML literals (numbers, booleans, strings, arrays),
    or a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(data: dict, overrides: dict[str, Any]) -> dict:
    for key, value in overrides.items():
        parts = key.split(".")
        node = data
        for p in parts[:-1]:
            child = node.setdefault(p, {})
            if not isinstance(child, dict):
                raise SpecError(f"--set {key}: {p!r} is not a table")
            node = child
        if parts[-1] == "kind" and node.get("kind") != value:
            # a new kind starts from that kind's defaults
            node.clear()
        node[parts[-1]] = value
    return data


def read_toml(path: Path, what: str = "spec") -> dict:
    """A TOML file as a dict, or a SpecError naming the file."""
    if not path.is_file():
        raise SpecError(f"{what} file not found: {path}")
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}") from None


def load_spec(path: str | Path, overrides: Optional[dict[str, Any]] = None) -> Spec:
    """Read a TOML spec, apply ``--set`` style overrides, validate."""
    path = Path(path)
    data = apply_overrides(read_toml(path), overrides or {})
    spec = spec_from_dict(data)
    # Relative CDF and trace paths are relative to the spec file.
    base = path.resolve().parent
    w = spec.workload
    if w.cdf not in _shipped() and not Path(w.cdf).is_absolute() and (base / w.cdf).is_file():
        spec.workload.cdf = str(base / w.cdf)
    if w.trace and not Path(w.trace).is_absolute() and (base / w.trace).is_file():
        spec.workload.trace = str(base / w.trace)
    return spec


def _shipped():
    from .workloads import SHIPPED

    return SHIPPED


def engine_config(spec: Spec) -> dict:
    """Resolve a spec into the engine's configuration (config.rs): units
    converted, workload files read, arrival rate derived from the load."""
    topo = spec.topology
    hosts = topo.host_count()
    transport, port = spec.scheme.engine(spec.routing)
    w = spec.workload
    if w.matrix == "trace":
        workload = {"kind": "trace", "flows": load_trace(w.trace, hosts, fmt=w.trace_format)}
    else:
        if w.matrix == "many_to_one" and w.dst >= hosts:
            raise SpecError(f"workload.dst: {w.dst} is not a host of this topology (0..{hosts - 1})")
        cdf = load_cdf(w.cdf, unit=w.cdf_unit_bytes)
        mean_wire = cdf.mean_wire_bytes(spec.scheme.mss_bytes, spec.scheme.header_bytes, w.size_quantum_bytes)
        if w.load_basis == "core":
            capacity = topo.core_capacity_bps()
            if capacity is None:
                raise SpecError(f"workload.load_basis: 'core' needs a topology with a core; {topo.kind} has none")
        elif w.matrix == "many_to_one":
            capacity = topo.host_rate_bps()  # the destination's link
        else:
            capacity = hosts * topo.host_rate_bps()
        rate = w.load * capacity / (8 * mean_wire)
        matrix = {"kind": "all_to_all"} if w.matrix == "all_to_all" else {"kind": "many_to_one", "dst": w.dst}
        workload = {
            "kind": "generated",
            "cdf": cdf.rows(),
            "size_quantum_bytes": w.size_quantum_bytes,
            "arrival_rate_per_s": rate,
            "matrix": matrix,
            "flows": w.flows,
            "start_ps": ps(w.start_us),
        }
    return {
        "seed": spec.seed,
        "topology": topo.engine(),
        "routing": {"load_balancing": spec.routing.load_balancing},
        "port": port,
        "transport": transport,
        "workload": workload,
        "host_delay_ps": ps(spec.run.host_delay_us),
        "stop_time_ps": None if spec.run.stop_time_s is None else round(spec.run.stop_time_s * 1e12),
    }


def engine_config_json(spec: Spec) -> str:
    return json.dumps(engine_config(spec))
