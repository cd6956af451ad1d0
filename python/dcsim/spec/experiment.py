"""The experiment: `topology + routing + scheme + workload + run`, how a
spec file and command-line overrides become one, and how a spec resolves
into the engine's configuration (config.rs)."""

import json
import tomllib
from pathlib import Path
from typing import Any, Optional

from pydantic import Field, ValidationError, model_validator

from ..errors import SpecError, warn
from .base import Model, field, ps
from .messages import did_you_mean, format_error, inner_model
from .buffer import SwitchBuffer
from .faults import Fault, check as check_faults
from .packets import Packets
from ..profiles import PROFILES, apply_profile, get_profile, rename_note
from .schemes import SCHEMES, Scheme, TcpScheme
from .topology import TOPOLOGIES, LeafSpineTopology, Routing, Topology
from .workload import RunOptions, Workload


class Spec(Model):
    """One experiment. Defaults are the pFabric paper's (§5.1): its 144-host
    leaf-spine, per-packet spraying, web search at 60% load, and
    TCP-DropTail's parameters.

    Build one from a dict of sections (`dcsim.spec_from_dict`, or
    ``Spec(**sections)``) or a TOML file (`dcsim.load_spec`); change it with
    `with_overrides`. Every field, its default and the default's source:
    docs/spec.md, or ``dcsim list schemes`` for the schemes. Bad input
    raises `dcsim.SpecError` naming the field."""

    def __init__(self, **data: Any) -> None:
        # the same one-line error as spec_from_dict, not pydantic's report
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise SpecError(format_error(err)) from None

    # model_validate and friends keep pydantic's own path (strict mode,
    # structured errors): only a direct Spec(...) comes through __init__
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    name: str = field("experiment", "a label for the run; overridden runs append their overrides")
    profile: Optional[str] = field(
        None, "run the fabric and the scheme as one paper's scripts did, beneath the spec's own fields: \"pfabric\", "
        "\"pias\", \"bfc\", or a profile file (NAME.toml); `dcsim list profiles` says what each sets")
    seed: int = field(1, "seed of every random stream (arrivals, sizes, endpoints, paths)", ge=0, lt=2**63)
    topology: Topology = Field(default_factory=LeafSpineTopology, description="the network")
    routing: Routing = Field(default_factory=Routing, description="load balancing over equal-cost paths")
    scheme: Scheme = Field(default_factory=TcpScheme, description="the transport and switch discipline")
    buffer: SwitchBuffer = Field(default_factory=SwitchBuffer,
                                 description="switch buffers: per port (the scheme's) or shared per switch, with PFC")
    workload: Workload = Field(default_factory=Workload, description="the flows")
    run: RunOptions = Field(default_factory=RunOptions, description="run options")
    packets: Packets = Field(default_factory=Packets,
                             description="one packet size for every scheme (unset: each scheme's own)")
    faults: list[Fault] = Field(default_factory=list, description="links and switches that fail or degrade during "
                                "the run (`[[faults]]`, docs/faults.md)")

    @model_validator(mode="before")
    @classmethod
    def _default_kinds(cls, data: Any) -> Any:
        """A scheme or topology section that does not name its kind is the
        default one's (`--set scheme.min_rto_us=300` on a spec with no
        [scheme] changes TCP's). A profile's fields go beneath the spec's
        first (`profiles.apply_profile`)."""
        if isinstance(data, dict):
            data = apply_profile(data)
            for section, (key, default) in DISCRIMINATORS.items():
                if isinstance(data.get(section), dict) and key not in data[section]:
                    data = {**data, section: {key: default, **data[section]}}
        return data

    @model_validator(mode="after")
    def _one_packet_size(self) -> "Spec":
        """`packets.*` sets the scheme's packet sizes; a scheme that sets
        its own to another value in the same spec is refused."""
        want = self.packets.fields()
        have = self.scheme.model_dump(include=set(want))  # every scheme has both (SchemeModel)
        change = {k: v for k, v in want.items() if have[k] != v}
        for k, v in change.items():
            if k in self.scheme.model_fields_set:
                raise ValueError(f"scheme.{k} = {have[k]} and packets.{k} = {v} disagree "
                                 f"(packets.{k} sets every scheme's): drop one")
        if change:
            # re-validated, as if the scheme had been given these sizes
            self.scheme = type(self.scheme).model_validate({**self.scheme.model_dump(exclude_unset=True), **change})
        return self

    @model_validator(mode="after")
    def _labels_need_incasts(self) -> "Spec":
        if self.scheme.labels_incasts() and self.workload.incasts is None:
            raise ValueError("scheme.incast_label labels the flows of workload.incasts, and the workload has none")
        return self

    def with_overrides(self, **dotted: Any) -> "Spec":
        """A copy with ``{"workload.load": 0.3, ...}`` applied; its name
        records them (see `derived_name`). A whole section given as a dict
        (``workload={"load": 0.3}``) changes the fields it names and keeps
        the others, as the dotted names would."""
        flat: dict[str, Any] = {}
        for k, v in dotted.items():
            if k in SECTIONS and isinstance(v, dict):
                _flatten(flat, k, v, type(getattr(self, k)))
            else:
                flat[k] = v
        dotted = flat
        if "profile" in dotted and dotted["profile"] != self.profile:
            # the copy holds every field the old profile set as its own,
            # which would bury the new profile's
            raise SpecError("with_overrides cannot change a spec's profile: build the spec again from its own "
                            "fields with the profile (spec_from_dict({..., \"profile\": ...}), or --set profile=... "
                            "on the spec file)")
        data = apply_overrides(self.model_dump(mode="json"), dotted)
        for k in self.packets.fields():
            # the scheme holds packets.* as its own: a new packets.* (or
            # its removal) replaces it
            if f"packets.{k}" in dotted and f"scheme.{k}" not in dotted:
                data["scheme"].pop(k, None)
        said = []
        for section, (key, _) in DISCRIMINATORS.items():
            # a new scheme or topology starts from its defaults: the fields
            # set on the old one, and not set again here, are dropped (said)
            old = getattr(self, section)
            new = dotted.get(f"{section}.{key}", getattr(old, key))
            fields = type(old).model_fields
            dropped = sorted(f"{section}.{f}" for f in fields if f != key and f"{section}.{f}" not in dotted
                             and getattr(old, f) != fields[f].get_default(call_default_factory=True)
                             and not (section == "scheme" and f in self.packets.fields()))
            if self.profile is not None and section == "scheme":
                # what the profile sets for the new scheme comes back
                again = get_profile(self.profile).entry(new).get("scheme", {})
                dropped = [f for f in dropped if f.partition(".")[2] not in again]
            if new != getattr(old, key) and dropped:
                said.append(f"{section}.{key} = {new!r} replaces {getattr(old, key)!r}: dropped "
                            f"{', '.join(dropped)} (the new {section} starts from its defaults)")
        if dotted and "name" not in dotted:
            data["name"] = derived_name(self.name, dotted)
        spec = spec_from_dict(data)  # (a bad new value fails before anything is said)
        for w in said:
            warn(w)
        return spec


#: Sections whose model is chosen by one field, and that field's default.
#: Changing it starts the section afresh from the new model's defaults.
DISCRIMINATORS = {"topology": ("kind", "leaf_spine"), "scheme": ("name", "tcp")}
#: Section -> {tag: model} for discriminated sections, or the one model.
SECTIONS: dict[str, Any] = {
    "topology": TOPOLOGIES,
    "routing": Routing,
    "scheme": SCHEMES,
    "buffer": SwitchBuffer,
    "workload": Workload,
    "run": RunOptions,
    "packets": Packets,
}


def _flatten(out: dict, prefix: str, table: dict, model) -> None:
    """`table` (a section's or a sub-table's fields, below `prefix`) as
    dotted keys into `out`, down through sub-models (workload.queries), not
    into fields whose value is a dict of their own (buffer.size_mb_at)."""
    for k, v in table.items():
        inner = inner_model(model, (k,)) if isinstance(v, dict) else None
        if inner is not None:
            _flatten(out, f"{prefix}.{k}", v, inner)
        else:
            out[f"{prefix}.{k}"] = v


def spec_from_dict(data: dict) -> Spec:
    """A spec from a dict of sections (``{"topology": {"kind": "star"},
    "workload": {"flows": 100}}``; missing fields take their defaults),
    or a `SpecError` naming what is wrong (with the closest valid name)."""
    try:
        return Spec.model_validate(data)
    except ValidationError as err:
        raise SpecError(format_error(err)) from None


def as_spec(spec: "Spec | dict | str | Path") -> Spec:
    """What the Python API takes for a spec: a `Spec`, a dict of sections
    (`spec_from_dict`) or the path of a TOML spec file (`load_spec`)."""
    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, dict):
        return spec_from_dict(spec)
    if isinstance(spec, (str, Path)):
        return load_spec(spec)
    raise TypeError(f"a spec is a dcsim.Spec, a dict of sections or a TOML file's path, not {type(spec).__name__}")


# ---- overrides ----------------------------------------------------------


def parse_value(text: str) -> Any:
    """``--set`` values: TOML literals (numbers, booleans, strings, arrays),
    or a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _is_discriminator(key: str) -> bool:
    section, _, rest = key.partition(".")
    return section in DISCRIMINATORS and rest == DISCRIMINATORS[section][0]


def apply_overrides(data: dict, overrides: dict[str, Any], notes: Optional[list[str]] = None) -> dict:
    """Set dotted fields (``{"workload.load": 0.3}``) in a spec dict.

    A change of a section's kind (``topology.kind``, ``scheme.name``) is
    applied first, whatever the order given, and starts that section from
    the new kind's defaults: the fields the old kind had are dropped (and
    named in `notes`), the fields set alongside the change are kept."""
    ordered = sorted(overrides.items(), key=lambda kv: not _is_discriminator(kv[0]))
    for key, value in ordered:
        parts = key.split(".")
        node = data
        for p in parts[:-1]:
            child = node.setdefault(p, {})
            if not isinstance(child, dict):
                raise SpecError(f"{key}: {p!r} is not a table")
            node = child
        if _is_discriminator(key):
            section = parts[0]
            old = node.get(parts[-1], DISCRIMINATORS[section][1])
            if old != value:
                # (sizes that packets.* sets come back with the new scheme)
                kept = set(data.get("packets") or {}) if section == "scheme" else set()
                dropped = [f"{section}.{k}" for k in node if k != parts[-1] and k not in kept]
                node.clear()
                if dropped and notes is not None:
                    notes.append(f"{key} = {value!r} replaces {old!r}: dropped {', '.join(dropped)} "
                                 f"(the new {section} starts from its defaults)")
        node[parts[-1]] = value
    return data


def _profile_beside(data: dict, path: Path) -> None:
    """A profile file named relative to the spec file is taken from the
    spec's folder (as CDF and trace files are)."""
    ref = data.get("profile")
    if isinstance(ref, str) and ref not in PROFILES and not Path(ref).is_absolute() \
            and (path.resolve().parent / ref).is_file():
        data["profile"] = str(path.resolve().parent / ref)


def derived_name(name: str, overrides: dict[str, Any]) -> str:
    """The name of an overridden run: the spec's, then what was changed."""
    return f"{name} ({', '.join(f'{k}={v}' for k, v in overrides.items())})"


# ---- files --------------------------------------------------------------


def read_toml(path: Path, what: str = "spec") -> dict:
    """A TOML file as a dict, or a SpecError naming the file."""
    if not path.is_file():
        raise SpecError(f"{what} file not found: {path}")
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError:
        raise SpecError(f"{path}: not a text file") from None


def load_spec(path: str | Path, overrides: Optional[dict[str, Any]] = None,
              notes: Optional[list[str]] = None) -> Spec:
    """Read a TOML spec, apply ``--set`` style overrides, validate. The
    name of an overridden spec records the overrides; notes on what an
    override dropped are appended to `notes`."""
    from ..workloads import SHIPPED

    path = Path(path)
    data = read_toml(path)
    _profile_beside(data, path)
    if "grid" in data:
        raise SpecError(f"{path} is a sweep file (it has a [grid]); run it with: dcsim sweep {path} --out DIR")
    overrides = overrides or {}
    data = apply_overrides(data, overrides, notes)
    renamed = rename_note(data)
    if renamed and notes is not None:
        notes.append(renamed)
    if overrides and "name" not in overrides:
        data["name"] = derived_name(data.get("name", Spec.model_fields["name"].default), overrides)
    spec = spec_from_dict(data)
    # Relative CDF and trace paths are relative to the spec file.
    base = path.resolve().parent
    w = spec.workload
    if w.cdf not in SHIPPED and not Path(w.cdf).is_absolute() and (base / w.cdf).is_file():
        spec.workload.cdf = str(base / w.cdf)
    if w.trace and not Path(w.trace).is_absolute() and (base / w.trace).is_file():
        spec.workload.trace = str(base / w.trace)
    if w.reverse_cdf and w.reverse_cdf not in SHIPPED and not Path(w.reverse_cdf).is_absolute() \
            and (base / w.reverse_cdf).is_file():
        spec.workload.reverse_cdf = str(base / w.reverse_cdf)
    if spec.topology.kind == "file" and not Path(spec.topology.path).is_absolute() \
            and (base / spec.topology.path).is_file():
        spec.topology.path = str(base / spec.topology.path)
    spec.scheme.with_base(base)
    return spec


# ---- the engine's configuration ----------------------------------------


def _hosts_and_ports(spec: Spec) -> tuple[dict, dict, Optional[dict], str]:
    """The scheme's host transport and port discipline, with the buffers
    they sit in, and the engine model: where a scheme refuses options that
    do not go with it (routing, buffers)."""
    transport, port = spec.scheme.engine(spec)
    model = spec.scheme.engine_model
    if model != "packets" and spec.buffer.resolved_model(spec.scheme) != "per_port":
        raise SpecError(f"buffer.model: scheme '{spec.scheme.name}' is flow-level and has no buffers; "
                        "leave buffer.model = 'auto' or 'per_port'")
    port, shared_buffer = spec.buffer.engine(port, spec.scheme)
    return transport, port, shared_buffer, model


def check(spec: Spec) -> None:
    """What `engine_config` refuses about the scheme and the options it
    needs, without reading workload files or drawing flows: a sweep checks
    every point this way before it runs any (docs/runner.md)."""
    _hosts_and_ports(spec)


def sampled_tables(spec: Spec) -> list[str]:
    """The sampler's tables a spec asks for (run.sample_us), as the files
    beside flows.parquet name them: queues unless run.sample_queues is
    "none", flows' progress with run.sample_flows, switch buffers with
    shared buffers; none for a flow-level model."""
    r = spec.run
    if r.sample_us is None or spec.scheme.engine_model != "packets":
        return []
    asked = (("queues", r.sample_queues != "none"), ("flow_samples", r.sample_flows),
             ("buffers", spec.buffer.resolved_model(spec.scheme) == "shared"))
    return [name for name, on in asked if on]


def caveats(spec: Spec) -> list[str]:
    """Warnings about a valid spec whose options run but work against the
    scheme (a scheme's `caveats`), whose load is more than some links
    carry (`offered.overloads`), or whose size would take hours to run
    (`cost.cost_caveat`): `dcsim run` and `dcsim sweep` print them."""
    from ..cost import cost_caveat
    from ..offered import overload_caveats

    out = list(spec.scheme.caveats(spec)) + overload_caveats(spec) + cost_caveat(spec)
    if spec.scheme.engine_model != "packets":
        asked = spec.run.recorded()
        if asked:
            out.append(f"scheme {spec.scheme.name} is a flow-level model, with no packets, queues or links: "
                       f"{' and '.join(asked)} record nothing")
    elif spec.run.sample_us is not None and not sampled_tables(spec):
        out.append("run.sample_us records nothing here: run.sample_queues is 'none', run.sample_flows is off and "
                   "the buffers are per port; set run.sample_flows = true or a run.sample_queues")
    return out


def engine_config(spec: Spec) -> dict:
    """Resolve a spec into the engine's configuration (config.rs): units
    converted, workload files read, arrival rate derived from the load."""
    from ..workloads import load_cdf, load_trace

    _check_state(spec)
    topo = spec.topology
    hosts = topo.host_count()
    transport, port, shared_buffer, model = _hosts_and_ports(spec)
    w = spec.workload
    hosts_at = [n for n in spec.buffer.size_mb_at if n < hosts]
    if hosts_at:
        raise SpecError(f"buffer.size_mb_at: node {hosts_at[0]} is a host; switches are numbered from {hosts} (after "
                        f"the {hosts} hosts)")
    if (w.matrix in ("many_to_one", "incast", "bulk") or w.queries is not None) and w.dst >= hosts:
        raise SpecError(f"workload.dst: {w.dst} is not a host of this topology (0..{hosts - 1})")
    for name, h in (("workload.src", w.src if w.matrix == "bulk" else None),
                    ("workload.pings.src", w.pings and w.pings.src), ("workload.pings.dst", w.pings and w.pings.dst),
                    *((f"workload.long_flows ({src} -> {dst})", h) for src, dst in
                      (w.long_flows.endpoints() if w.long_flows else []) for h in (src, dst))):
        if h is not None and h >= hosts:
            raise SpecError(f"{name}: {h} is not a host of this topology (0..{hosts - 1})")
    if w.matrix == "trace":
        # an HPCC flow file names the nodes of an HPCC topology file
        ids = topo.fabric().node_id if topo.kind == "file" and w.trace_format == "hpcc" else None
        workload = {"kind": "trace", "flows": load_trace(w.trace, hosts, fmt=w.trace_format, limit=w.flows,
                                                          node_ids=ids)}
    elif w.matrix == "bulk":
        start = ps(w.start_us)
        workload = {"kind": "trace", "flows": [(start, w.src, w.dst, w.flow_bytes)] * w.generated_flows()}
    elif w.matrix == "incast":
        if w.senders >= hosts:
            raise SpecError(f"workload.senders: {w.senders} senders need more than {hosts} hosts")
        workload = {"kind": "incast", "senders": pick_hosts(hosts, w.dst, w.senders, spec.seed), "dst": w.dst,
                    "bytes_each": w.incast_flow_bytes(), "requests": w.requests, "start_ps": ps(w.start_us)}
    else:
        cdf = load_cdf(w.cdf, unit=w.cdf_unit_bytes)
        mss, header = spec.scheme.mss_bytes, spec.scheme.header_bytes
        if w.rate_mean_bytes is None:
            mean_wire = cdf.mean_wire_bytes(mss, header, w.size_quantum_bytes)
        else:  # as the scripts count it: every packet full
            mean_wire = w.rate_mean_bytes * (mss + header) / mss
        if w.load_basis == "core" and topo.core_capacity_bps() is None:
            raise SpecError(f"workload.load_basis: 'core' needs a topology with a core; {topo.kind} has none")
        capacity = _capacity(spec)
        rate = w.load * capacity / (8 * mean_wire)
        if w.matrix == "heterogeneous":
            # every ordered pair carries the same bytes: a host sends
            # forward (cdf) and backward (reverse_cdf) at the same byte rate
            back = load_cdf(w.reverse_cdf, unit=w.cdf_unit_bytes, field="workload.reverse_cdf")
            back_wire = back.mean_wire_bytes(spec.scheme.mss_bytes, spec.scheme.header_bytes, w.size_quantum_bytes)
            per_host = w.load * capacity / hosts / 8
            fwd, rev = per_host / mean_wire, per_host / back_wire
            rate = hosts / 2 * (fwd + rev)
            matrix = {"kind": "heterogeneous", "reverse_cdf": back.rows(), "forward_share": fwd / (fwd + rev)}
        elif w.matrix == "all_to_all":
            matrix = {"kind": "all_to_all"}
        elif w.matrix == "rack_local":
            rack = w.rack_hosts or getattr(topo, "hosts_per_leaf", None)
            if rack is None or rack < 2 or hosts <= rack:
                raise SpecError(f"workload.matrix = 'rack_local' needs racks: a leaf-spine with at least two leaves of "
                                f"at least two hosts each, or workload.rack_hosts below the {hosts} hosts; "
                                f"{topo.kind} has none")
            matrix = {"kind": "rack_local", "rack_hosts": rack, "local_share": w.local_share}
        else:
            matrix = {"kind": "many_to_one", "dst": w.dst}
        if w.arrivals == "ns2_scripts":
            workload = {"kind": "trace", "flows": _ns2_script_flows(w, cdf, hosts, rate / hosts, mss)}
        else:
            workload = _generated(w, cdf, rate, matrix)
    config = {
        "seed": spec.seed,
        "topology": topo.engine(),
        "routing": {"load_balancing": spec.routing.load_balancing,
                    "symmetric": spec.routing.resolved_symmetric(spec.scheme)},
        "port": port,
        "transport": transport,
        "workload": workload,
        "host_delay_ps": ps(spec.run.host_delay_us),
        "stop_time_ps": None if spec.run.stop_time_s is None else round(spec.run.stop_time_s * 1e12),
        "deadlock_check_ps": None if spec.run.deadlock_check_us is None else ps(spec.run.deadlock_check_us),
        "max_resends_per_packet": spec.run.max_resends_per_packet,
        "fct_at": spec.run.fct_at,
        "model": model,
        "shared_buffer": shared_buffer,
        **spec.scheme.extra_config(spec),
        "queueing_delay": spec.run.queueing_delay,
        "traffic_classes": w.traffic_classes,
        "class_scheduling": w.class_scheduling,
        "faults": [f.engine() for f in spec.faults] if check_faults(spec) is None else [],
        "link_errors": topo.fabric().errors if topo.kind == "file" else [],
        "sampler": None if spec.run.sample_us is None else {
            "interval_ps": ps(spec.run.sample_us),
            "ports": None if spec.run.sample_queues == "none" else spec.run.sample_queues,
            "flows": spec.run.sample_flows},
    }
    if w.queries is not None and spec.run.fct_at != "receiver":
        raise SpecError("workload.queries: a query completes at the client; set run.fct_at = \"receiver\"")
    fifo_switches = any(port[w]["discipline"]["kind"] == "fifo" for w in ("switch", "upper_tiers") if port.get(w))
    if spec.run.queueing_delay and shared_buffer is None and fifo_switches:
        raise SpecError("run.queueing_delay is kept at shared-buffer switches and at switch ports that choose by "
                        "priority: use a scheme that runs on them (the RDMA schemes, BFC, pfabric, pias, homa) or set "
                        "buffer.model = \"shared\"")
    if w.class_scheduling != "strict" and (w.traffic_classes == 1 or spec.scheme.strict_classes_only):
        raise SpecError("workload.class_scheduling = \"round_robin\" is for ports with PFC and more than one traffic "
                        "class (BFC serves its classes in strict priority, App. A.3)")
    if w.traffic_classes > 1 and spec.buffer.resolved_model(spec.scheme) != "shared":
        raise SpecError(f"workload.traffic_classes = {w.traffic_classes}: classes are served by ports with PFC or "
                        f"BFC's queues; use a scheme that runs on shared-buffer switches (the RDMA schemes, BFC)")
    if w.long_flows is not None and spec.run.stop_time_s is None and w.long_flows.bytes >= 10**10:
        raise SpecError(f"workload.long_flows of {w.long_flows.bytes:,} bytes last the run: set run.stop_time_s")
    if w.pings is not None and spec.run.fct_at != "sender":
        raise SpecError("workload.pings: a ping's round trip ends at the sender; set run.fct_at = \"sender\"")
    if w.queries is not None or w.pings is not None or w.incasts is not None or w.long_flows is not None:
        from ..extras import with_extras

        config["workload"], kinds, _ = with_extras(config, spec, _capacity(spec))
        if spec.scheme.labels_incasts():
            import numpy as np

            config["bfc"]["labelled_flows"] = np.flatnonzero(kinds == INCAST).tolist()
    _check_flow_packets(config["workload"], spec)
    _check_span(config["workload"], spec)
    _check_samples(spec, config["workload"])
    return config


def _check_state(spec: Spec) -> None:
    """Refuse a scheme whose ports' own state needs more memory than the
    machine has (`Scheme.state_bytes`: BFC's flow tables), before anything
    is built."""
    from .topology import _memory_bytes

    need, have = spec.scheme.state_bytes(spec), _memory_bytes()
    if need > have:
        raise SpecError(f"scheme {spec.scheme.name}: its ports' tables need about {need / 1e9:,.1f} GB (this "
                        f"machine has {have / 1e9:,.1f} GB): fewer entries (scheme.table_per_queue) or queues")


#: The engine numbers a flow's packets in 32 bits, with the top values kept
#: for its probes and handshakes (schemes/tcp/sender.rs: PROBE = 2^31).
MAX_FLOW_PACKETS = 2**31 - 2


def _check_flow_packets(workload: dict, spec: Spec) -> None:
    """Refuse a workload whose largest flow has more packets than the engine
    can number, naming the sizes and the packet size (instead of a panic
    in the middle of the run)."""
    import math

    if workload["kind"] == "trace":
        largest = max((f[3] for f in workload["flows"]), default=0)
    elif workload["kind"] == "incast":
        largest = workload["bytes_each"]
    else:
        q = workload["size_quantum_bytes"]
        largest = math.ceil(workload["cdf"][-1][0] / q) * q
    mss = spec.scheme.mss_bytes
    if math.ceil(largest / mss) > MAX_FLOW_PACKETS:
        raise SpecError(f"workload: its largest flow, {largest:,.0f} bytes, is {math.ceil(largest / mss):,} packets "
                        f"of scheme.mss_bytes = {mss}; the engine numbers a flow's packets up to "
                        f"{MAX_FLOW_PACKETS:,}: use larger packets or smaller flows")


#: the engine's clock: picoseconds in 63 bits (times reach Python as int64)
CLOCK_S = (2**63 - 1) / 1e12
DAY_S = 86400.0


def _check_span(workload: dict, spec: Spec) -> None:
    """Refuse a run expected to go past the engine's clock, naming the
    rate and the span: generated arrivals that take that long (fuzz case
    313: 1 b/s host links made the arrival rate so low that a start time
    overflowed), or flows whose bytes take that long across the fabric's
    core at half of them crossing it (case 3587: a 2 b/s fabric, its
    timers firing for ever)."""
    from ..cost import arrival_span_s, workload_bytes

    span, rate = arrival_span_s(workload), workload.get("arrival_rate_per_s")
    if 2 * span > CLOCK_S:
        raise SpecError(f"workload: {workload['flows']:,} flows at {rate:.3g} a second arrive over about "
                        f"{span / 86400:,.0f} days of simulated time; the engine's clock holds "
                        f"{CLOCK_S / 86400:.0f} days: raise workload.load or the links' rates, or lower workload.flows")
    core = spec.topology.core_capacity_bps()
    stop = spec.run.stop_time_s
    if core and spec.workload.matrix == "all_to_all" and (stop is None or stop > DAY_S):
        # (past a simulated day no datacenter experiment is meant: the
        # transports' timers then fire billions of times)
        cross = 0.5 * workload_bytes(spec) * 8 / core
        if cross > DAY_S:
            raise SpecError(f"topology: its core carries {core:,} b/s, and the workload's bytes need about "
                            f"{cross / 86400:,.1f} days of simulated time to cross it (more than a day is refused): "
                            "raise the core's rate, lower workload.flows or set run.stop_time_s")


def _check_samples(spec: Spec, workload: dict) -> None:
    """Refuse a sampler that would record more queue samples than memory
    holds (fuzz case 130: `run.sample_us = 0.001` ran out of memory)."""
    from ..cost import SAMPLE_BYTES, arrival_span_s, sample_rows
    from .topology import _memory_bytes

    rows = sample_rows(spec, arrival_span_s(workload))
    if rows * SAMPLE_BYTES > _memory_bytes():
        raise SpecError(f"run.sample_us: {spec.run.sample_us:g} us records at least {rows:,.3g} queue samples "
                        f"(about {rows * SAMPLE_BYTES / 1e9:,.0f} GB; this machine has "
                        f"{_memory_bytes() / 1e9:,.1f} GB): sample less often, fewer ports (run.sample_queues) or "
                        "a shorter run")


def _generated(w, cdf, rate: float, matrix: dict) -> dict:
    """The engine's own generator: sizes from the CDF, arrivals at `rate`."""
    return {
        "kind": "generated",
        "cdf": cdf.rows(),
        "size_quantum_bytes": w.size_quantum_bytes,
        "arrival_rate_per_s": rate,
        "matrix": matrix,
        "flows": w.generated_flows(),
        "start_ps": ps(w.start_us),
        "deadlines": None if w.deadline_mean_us is None else {
            "mean_ps": w.deadline_mean_us * 1e6, "below_bytes": w.deadline_below_bytes,
            "min_factor": w.deadline_min_factor},
        "lognormal_sigma": w.arrival_sigma if w.arrivals == "lognormal" else None,
    }


def _ns2_script_flows(w, cdf, hosts: int, host_rate: float, mss: int) -> list[tuple[int, int, int, int]]:
    """The flows of the ns-2 scripts' generator (dcsim.ns2_arrivals) as a trace."""
    from ..ns2_arrivals import flows

    # the scripts' table and interpolation are in packets of one MSS
    if w.size_quantum_bytes != mss:
        raise SpecError(f"workload.size_quantum_bytes: arrivals = 'ns2_scripts' draws sizes in packets as the scripts "
                        f"do; set it to the MSS ({mss}), got {w.size_quantum_bytes}")
    odd = [size for size, _ in cdf.rows() if size % mss]
    if odd:
        raise SpecError(f"workload.cdf: arrivals = 'ns2_scripts' needs every size of the table in whole packets of "
                        f"{mss} bytes; {w.cdf} has {odd[0]:g}")
    f = flows(hosts, host_rate, cdf.rows(), w.size_quantum_bytes, w.generated_flows())
    start = ps(w.start_us)
    return [(start + round(t * 1e12), int(s), int(d), int(z)) for t, s, d, z in f]


def _capacity(spec: Spec) -> float:
    """What workload.load is a fraction of, bits per second."""
    topo, w = spec.topology, spec.workload
    if w.load_basis == "core":
        return float(topo.core_capacity_bps() or 0)
    if w.matrix == "many_to_one":
        return float(topo.host_rate_bps())  # the destination's link
    return float(topo.host_count() * topo.host_rate_bps())


def extra_flows(spec: Spec):
    """Per flow id of the run: what it is (0: a flow of the workload, 1: an
    answer to a query, 2: a ping) and the number of its query or ping
    (-1 for the workload's own flows); None without queries or pings."""
    from ..extras import with_extras

    w = spec.workload
    if w.queries is None and w.pings is None and w.incasts is None and w.long_flows is None:
        return None
    plain = spec.model_copy(update={"workload": w.model_copy(update={"queries": None, "pings": None,
                                                                      "incasts": None, "long_flows": None})})
    return with_extras(engine_config(plain), spec, _capacity(spec))[1:]


QUERY, PING, INCAST, LONG = 1, 2, 3, 4  # the kinds of extra flows (extra_flows)


def extra_ids(spec: Spec, kind: int):
    """Per flow id, the number of the query (`kind = QUERY`) the flow
    answers or of the ping (`PING`) it is, -1 for any other flow; None if
    the spec has none of that kind."""
    import numpy as np

    on = {QUERY: spec.workload.queries, PING: spec.workload.pings, INCAST: spec.workload.incasts,
          LONG: spec.workload.long_flows}[kind]
    kinds = extra_flows(spec) if on is not None else None
    if kinds is None:
        return None
    k, group = kinds
    return np.where(k == kind, group, -1)


def query_ids(spec: Spec):
    """Per flow id, the query of `workload.queries` it answers (-1: any
    other flow); None without queries."""
    return extra_ids(spec, QUERY)


def incast_ids(spec: Spec):
    """Per flow id, the incast of `workload.incasts` it belongs to (-1: any
    other flow); None without incasts."""
    return extra_ids(spec, INCAST)


def long_flow_ids(spec: Spec):
    """Per flow id, the long flow of `workload.long_flows` it is (-1: any
    other flow); None without long flows."""
    return extra_ids(spec, LONG)


def ping_ids(spec: Spec):
    """Per flow id, the ping of `workload.pings` it is (-1: any other
    flow); None without pings."""
    return extra_ids(spec, PING)


def pick_hosts(hosts: int, dst: int, n: int, seed: int) -> list[int]:
    """`n` distinct hosts other than `dst`, chosen from `seed` (a partial
    Fisher-Yates shuffle driven by SplitMix64, the same on every machine
    and Python version)."""
    pool = [h for h in range(hosts) if h != dst]
    state = seed & (2**64 - 1)
    for i in range(n):
        state = (state + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        z ^= z >> 31
        j = i + z % (len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return sorted(pool[:n])


def engine_config_json(spec: Spec) -> str:
    return json.dumps(engine_config(spec))
