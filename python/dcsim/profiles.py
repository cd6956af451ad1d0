"""Paper profiles: how one paper's scripts ran the fabric and every scheme,
as the defaults beneath a spec (`profile = "pias"`).

The schemes' own defaults come from different papers (`dctcp`'s from
pFabric's Table 1, `pias`'s from the PIAS scripts, `dctcp_rdma`'s from the
HPCC simulator as BFC ran it), so schemes run side by side with their
defaults are not each other's baselines in any one paper. A profile sets
what the paper's scripts set: the fabric (topology, routing), how the
workload is drawn (not the workload itself: its CDF and load stay the
spec's), the FCT's measuring point, and for each scheme the paper ran, its
fields, or the scheme that implements it as the scripts did (the PIAS
scripts' DCTCP is the PIAS agent with one queue: `dctcp` under the `pias`
profile runs as `pias` with `queues = 1`).

A profile lies beneath the spec: every field the spec (or `--set`, or a
sweep's grid) sets wins. A section whose kind the spec changes (another
`topology.kind`) starts from that kind's defaults, as anywhere else. A
profile is applied when a spec is read (a file, `--set profile=...`, a
sweep's grid, a dict), not to a `Spec` object, whose fields already hold
the old profile's (`with_overrides` refuses to change it). The
paper's figures run on these same profiles (`dcsim.figures`), so a spec
with a profile runs exactly as the figure's point on the same workload
(tests/test_profiles.py).

A profile of your own is a TOML file (`profile = "mine.toml"`, relative to
the spec file): `title` and `source` strings, the sections it sets
(`[topology]`, `[routing]`, ...), and a `[schemes.NAME]` table per scheme,
itself sections (`[schemes.dctcp.scheme]`, `[schemes.pdq.routing]`)."""

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .errors import SpecError

#: The sections a profile may set (its own and its schemes' entries).
PROFILE_SECTIONS = ("topology", "routing", "scheme", "buffer", "workload", "run", "packets")
#: Workload fields a profile may not set: the workload is the user's.
USERS_WORKLOAD = ("cdf", "load", "flows", "trace", "matrix")


@dataclass(frozen=True)
class Profile:
    """A paper's set-up: `base` sections under every scheme, and per scheme
    (by the name a spec gives) a partial spec under that scheme."""

    name: str
    title: str
    source: str
    base: dict = field(default_factory=dict)
    schemes: dict = field(default_factory=dict)
    #: per scheme, why the entry is what it is (for `dcsim list profiles`)
    why: dict = field(default_factory=dict)

    def entry(self, scheme: str) -> dict:
        """The partial spec the profile puts beneath a spec of `scheme`:
        its base, then the scheme's entry (a copy)."""
        return merge_sections(copy.deepcopy(self.base), copy.deepcopy(self.schemes.get(scheme, {})))

    def variant(self, scheme: str) -> dict:
        """The scheme's entry as dotted fields (a sweep's variant), with
        `scheme.name` first."""
        entry = self.schemes.get(scheme, {})
        flat = {"scheme.name": entry.get("scheme", {}).get("name", scheme)}
        for section, fields in entry.items():
            for k, v in fields.items():
                flat[f"{section}.{k}"] = v
        return flat


def merge_sections(under: dict, over: dict) -> dict:
    """`over`'s fields on top of `under`'s, section by section (sub-tables
    merged too; a scalar or list replaces)."""
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(under.get(k), dict):
            under[k] = merge_sections(under[k], v)
        else:
            under[k] = v
    return under


# ---- the papers ------------------------------------------------------------

#: The pFabric paper's ns-2 scripts (docs/sources.md §1): the 144-host
#: leaf-spine with per-packet round-robin spraying, sizes in whole packets,
#: FCT logged at the sender; flows reuse a pool of persistent connections
#: per host pair (8 for TCP and DCTCP, 1 for pFabric), duplicate-ACK fast
#: retransmit off, and every agent's window bounds the span above the
#: cumulative ACK (ns-2's `FullTcp/Sack` and `MinTCP` without fast
#: retransmit: docs/reproductions/pfabric.md).
PFABRIC = Profile(
    name="pfabric",
    title="pFabric (SIGCOMM'13) §5.1, as its ns-2 scripts run every scheme",
    source="pFabric §5.1 and Table 1; the public ns-2 scripts (docs/sources.md §1)",
    base={
        "topology": {"kind": "leaf_spine"},
        "routing": {"load_balancing": "round_robin"},
        "workload": {"size_quantum_bytes": 1460},
        "run": {"fct_at": "sender"},
    },
    schemes={
        "tcp": {"scheme": {"connections": "pool", "connections_per_pair": 8, "fast_retransmit": False,
                           "window": "span"}},
        "dctcp": {"scheme": {"connections": "pool", "connections_per_pair": 8, "fast_retransmit": False,
                             "window": "span"}},
        "pfabric": {"scheme": {"connections": "pool", "connections_per_pair": 1, "window": "span"}},
        # a flow's links must see its ACKs: one path per flow, both ways
        # (PDQ's §3 is per path; docs/schemes.md)
        "pdq": {"routing": {"load_balancing": "ecmp"}},
        "ideal": {},
    },
    why={
        "tcp": "8 persistent connections per host pair, no fast retransmit, ns-2's window rule",
        "dctcp": "as tcp",
        "pfabric": "1 persistent connection per host pair, ns-2's window rule",
        "pdq": "symmetric per-flow ECMP: its switches must see the flow's ACKs",
        "ideal": "the flow-level scheduler, as it is",
    },
)

#: The PIAS paper's ns-2 scripts (§V-C; spine_empirical.tcl, run_*.py;
#: docs/schemes.md, docs/sources.md §2): the 144-host leaf-spine with 20 us
#: of host delay on each host link (base RTT 84.7 us; the paper: 85.2 us),
#: per-packet round-robin spraying, sizes in whole packets, FCT at the
#: sender. Every scheme runs on the scripts' agent
#: (Agent/TCP/FullTcp/Sack/MinTCP, PIAS-NS2 tcp-full.cc): one persistent
#: connection per host pair, a new one with a handshake for a flow whose
#: pair's is busy; the window bounds the span above the cumulative ACK.
_PIAS_AGENT = {"connections": "pool", "connections_per_pair": 1, "window": "span"}
#: pFabric and LAS as the PIAS scripts run them (run_pfabric_*.py): 210 KB
#: (140 packets), a fixed 250 us timeout, window 70, cap 139 (the queue
#: less one, spine_empirical.tcl's maxcwnd_).
_PIAS_PFABRIC = {"queue_bytes": 210_000, "rto_us": 250, "init_cwnd_pkts": 70, "max_cwnd_pkts": 139, **_PIAS_AGENT}
PIAS = Profile(
    name="pias",
    title="PIAS (ToN'17) §V-C, as its ns-2 scripts run every scheme",
    source="PIAS §V-A, §V-C; the PIAS-NS2 scripts (docs/sources.md §2)",
    base={
        "topology": {"kind": "leaf_spine", "host_link_delay_us": 20.2},
        "routing": {"load_balancing": "round_robin"},
        "workload": {"size_quantum_bytes": 1460},
        "run": {"fct_at": "sender"},
    },
    schemes={
        "pias": {"scheme": dict(_PIAS_AGENT)},
        # DCTCP as the scripts run it: the PIAS port with one queue (360 KB,
        # ECN per port at 65 packets, MinTCP's fixed 2 ms timeout, window 70)
        "dctcp": {"scheme": {"name": "pias", "queues": 1, "thresholds": [], **_PIAS_AGENT}},
        # L2DCT on the same switches and timers, with the scripts' increase
        "l2dct": {"scheme": {"queue_bytes": 360_000, "ecn_threshold_bytes": 97_500, "fixed_rto": True,
                             "min_rto_us": 2000, "probe_after": 5, "init_cwnd_pkts": 70, "max_cwnd_pkts": 239,
                             "increase": "ns2_pias", **_PIAS_AGENT}},
        "las": {"scheme": dict(_PIAS_PFABRIC)},
        "pfabric": {"scheme": dict(_PIAS_PFABRIC)},
    },
    why={
        "pias": "the scripts' agent: 1 persistent connection per host pair, ns-2's window rule",
        "dctcp": "the scripts' DCTCP is the PIAS port with one queue and no thresholds (360 KB, ECN at 65 "
                 "packets, fixed 2 ms timeout, window 70)",
        "l2dct": "360 KB, ECN at 97.5 KB, fixed 2 ms timeout, probe mode after 5, window 70 capped at 239, the "
                 "scripts' increase",
        "las": "210 KB, fixed 250 us timeout, window 70 capped at 139, the scripts' agent",
        "pfabric": "as las",
    },
)

#: BFC §6.2.1's set-up: the 128-host Clos (8 ToRs x 16 hosts, 8 spines,
#: 100 Gb/s, 1 us links), per-flow ECMP, lognormal arrivals (sigma = 2)
#: with the load on the ToR-spine links. Its DCTCP is the HPCC simulator's
#: (`dctcp_rdma`), and Ideal-FQ counts the RDMA schemes' packets (1000 B
#: payloads, 48 B headers), so that the arrival rate that makes the load,
#: and the flows, are theirs.
BFC = Profile(
    name="bfc",
    title="BFC (NSDI'22) §6.2.1, as its simulations run every scheme",
    source="BFC §6.1-§6.2.1; the HPCC simulator's schemes as BFC ran them (docs/schemes.md)",
    base={
        "topology": {"kind": "leaf_spine", "leaves": 8, "spines": 8, "hosts_per_leaf": 16, "host_rate_gbps": 100.0,
                     "spine_rate_gbps": 100.0, "host_link_delay_us": 1.0, "spine_link_delay_us": 1.0},
        "routing": {"load_balancing": "ecmp"},
        "workload": {"load_basis": "core", "arrivals": "lognormal", "arrival_sigma": 2.0},
    },
    schemes={
        "bfc": {}, "hpcc": {}, "dcqcn": {}, "expresspass": {}, "ideal_fq_packet": {},
        "dctcp": {"scheme": {"name": "dctcp_rdma"}},
        "dctcp_rdma": {},
        "ideal_fq": {"scheme": {"mss_bytes": 1000, "header_bytes": 48}},
    },
    why={
        "dctcp": "BFC's DCTCP is the HPCC simulator's, on RDMA NICs",
        "ideal_fq": "1000 B payloads and 48 B headers: the RDMA schemes' packets, so the same flows",
    },
)

PROFILES: dict[str, Profile] = {p.name: p for p in (PFABRIC, PIAS, BFC)}


# ---- profiles of your own ----------------------------------------------------


def _check_sections(table: dict, where: str) -> None:
    for k, v in table.items():
        if k not in PROFILE_SECTIONS:
            raise SpecError(f"{where}: unknown section {k!r} (a profile sets {', '.join(PROFILE_SECTIONS)})")
        if not isinstance(v, dict):
            raise SpecError(f"{where}.{k}: a table of fields, got {v!r}")
    for f in USERS_WORKLOAD:
        if f in table.get("workload", {}):
            raise SpecError(f"{where}.workload.{f}: a profile does not set the workload itself "
                            f"({', '.join(USERS_WORKLOAD)} are the spec's)")


def profile_from_dict(data: dict, name: str) -> Profile:
    """A profile from a TOML file's tables (see the module's docstring), or a
    SpecError naming what is wrong."""
    data = dict(data)
    title, source = data.pop("title", name), data.pop("source", "")
    schemes = data.pop("schemes", {})
    if not isinstance(schemes, dict):
        raise SpecError(f"profile {name}: schemes must be a table of [schemes.NAME] tables")
    _check_sections(data, f"profile {name}")
    for scheme, entry in schemes.items():
        if not isinstance(entry, dict):
            raise SpecError(f"profile {name}: schemes.{scheme} must be a table of sections")
        _check_sections(entry, f"profile {name}: schemes.{scheme}")
    return Profile(name=name, title=str(title), source=str(source), base=data, schemes=schemes)


def get_profile(ref: str) -> Profile:
    """A shipped profile by name, or a profile file by path."""
    if ref in PROFILES:
        return PROFILES[ref]
    path = Path(ref)
    if path.suffix == ".toml" or path.is_file():
        from .spec.experiment import read_toml

        return profile_from_dict(read_toml(path, "profile"), str(ref))
    from .spec.experiment import did_you_mean

    raise SpecError(f"profile = {ref!r}: no such profile{did_you_mean(ref, PROFILES)} "
                    f"(shipped: {', '.join(PROFILES)}; or a profile file, NAME.toml)")


def apply_profile(data: dict) -> dict:
    """A spec dict with its profile's fields beneath its own: the profile's
    base and its entry for the spec's scheme. A section whose kind the spec
    sets to another than the profile's is left to the spec; a scheme entry
    that names another scheme (the scripts' DCTCP is PIAS's port) renames
    the spec's scheme."""
    ref = data.get("profile")
    if ref is None:
        return data
    if not isinstance(ref, str):
        raise SpecError(f"profile: a name ({', '.join(PROFILES)}) or a profile file, got {ref!r}")
    profile = get_profile(ref)
    mine = data.get("scheme") or {}
    entry = profile.entry(mine.get("name", "tcp")) if isinstance(mine, dict) else copy.deepcopy(profile.base)
    for k in data.get("packets") or {}:
        entry.get("scheme", {}).pop(k, None)  # the spec's packets.* set every scheme's sizes
    out = copy.deepcopy(data)
    for section, fields in entry.items():
        mine = out.get(section)
        if mine is None:
            out[section] = fields
            continue
        if not isinstance(mine, dict):
            continue  # (the spec's own error)
        key = {"topology": "kind"}.get(section)
        if key and key in mine and key in fields and mine[key] != fields[key]:
            continue  # another kind: its own defaults
        if section == "scheme" and "name" in fields:
            mine = {**mine, "name": fields["name"]}  # the scheme the profile runs it as
        out[section] = merge_sections(fields, mine)
    return out


def describe(profile: Profile) -> list[str]:
    """`dcsim list profiles`' lines for one profile: what it sets, and per
    scheme."""
    def fields(entry: dict) -> str:
        return ", ".join(f"{s}.{k} = {json.dumps(v)}" for s, t in entry.items() for k, v in t.items()) or "-"

    lines = [f"{profile.name}: {profile.title}", f"  source: {profile.source}", f"  sets: {fields(profile.base)}"]
    for scheme, entry in profile.schemes.items():
        why = profile.why.get(scheme)
        lines.append(f"  {scheme}: {fields(entry)}" + (f" [{why}]" if why else ""))
    lines.append("  other schemes: their own defaults")
    return lines


def defaults_source(scheme_name: str) -> Optional[str]:
    """The paper a scheme's own defaults come from (the scheme model's
    `DEFAULTS_FROM`), for the note on schemes compared side by side."""
    from .spec.schemes import SCHEMES

    model = SCHEMES.get(scheme_name)
    return getattr(model, "DEFAULTS_FROM", None) if model is not None else None


def mixed_defaults(specs: list[dict]) -> Optional[str]:
    """A note when runs compared side by side (their specs, as dumped)
    have no profile and take their schemes' defaults from different
    papers; None otherwise."""
    if any(s.get("profile") for s in specs):
        return None
    by_paper: dict[str, list[str]] = {}
    for s in specs:
        name = (s.get("scheme") or {}).get("name", "tcp")
        paper = defaults_source(name)
        if paper is not None and name not in by_paper.setdefault(paper, []):
            by_paper[paper].append(name)
    if len(by_paper) < 2:
        return None
    parts = "; ".join(f"{', '.join(names)} from {paper}"
                      for paper, names in sorted(by_paper.items(), key=lambda kv: kv[0].lower()))
    return (f"the schemes take their defaults from different papers ({parts}): set profile = "
            f"\"pfabric\", \"pias\" or \"bfc\" to run them all as one paper's scripts did (dcsim list profiles)")


def fabric_note(spec) -> Optional[str]:
    """A note for a run without a profile, on the default fabric
    (pFabric's §5.1), whose scheme's defaults come from another paper:
    the two were not run together by any paper's scripts."""
    paper = type(spec.scheme).DEFAULTS_FROM
    if spec.profile is not None or paper in (None, "pFabric") or "topology" in spec.model_fields_set:
        return None  # (a fabric of the spec's own: its choice)
    return (f"{spec.scheme.name} takes its defaults from {paper}, the fabric and the workload's drawing from "
            f"pFabric's §5.1 (the spec's defaults): profile = \"{paper.lower()}\" runs both as {paper}'s "
            "scripts did (dcsim list profiles)")


def rename_note(data: dict) -> Optional[str]:
    """A note when a spec dict's profile runs its scheme as another one
    (`dctcp` under `pias` runs as `pias` with one queue)."""
    ref, scheme = data.get("profile"), data.get("scheme") or {}
    if not isinstance(ref, str) or not isinstance(scheme, dict):
        return None
    try:
        profile = get_profile(ref)
    except SpecError:
        return None  # (the spec's validation says so)
    asked = scheme.get("name", "tcp")
    runs_as = profile.schemes.get(asked, {}).get("scheme", {}).get("name", asked)
    if runs_as == asked:
        return None
    why = profile.why.get(asked)
    return f"profile {profile.name}: {asked} runs as {runs_as}" + (f": {why}" if why else "")
