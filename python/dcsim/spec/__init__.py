"""Experiment specs: ``topology + routing + scheme + workload + run``.

Specs are TOML files or Python objects validated by pydantic. Every model
forbids unknown fields, so a typo fails before any simulation starts with a
message naming the field (and the closest valid name). Every field carries
its meaning and the source of its default; docs/spec.md is generated from
them (`dcsim spec --markdown`), and `dcsim spec --schema` prints the JSON
Schema.

The spec modules do not defer their annotations (no `__future__` import):
pydantic would compile every field's annotation from its string at import,
40 ms of every command that loads a spec (docs/performance.md).
"""

from .base import GBPS, PS_PER_US, Model, bps, field, ps
from .experiment import (
    DISCRIMINATORS,
    SECTIONS,
    Spec,
    apply_overrides,
    as_spec,
    derived_name,
    engine_config,
    engine_config_json,
    load_spec,
    parse_value,
    read_toml,
    spec_from_dict,
)
from .schemes import SCHEMES, DctcpScheme, PFabricScheme, Scheme, TcpFamily, TcpScheme
from .topology import (
    TOPOLOGIES,
    ClosTopology,
    FatTreeTopology,
    LeafSpineTopology,
    OversubscribedLeafSpineTopology,
    Routing,
    StarTopology,
    Topology,
)
from .workload import DEFAULT_FLOWS, RunOptions, Workload

__all__ = [
    "GBPS", "PS_PER_US", "Model", "bps", "field", "ps",
    "DISCRIMINATORS", "SECTIONS", "Spec", "apply_overrides", "derived_name", "engine_config",
    "engine_config_json", "load_spec", "parse_value", "read_toml", "spec_from_dict",
    "SCHEMES", "Scheme", "TcpFamily", "TcpScheme", "DctcpScheme", "PFabricScheme",
    "TOPOLOGIES", "ClosTopology", "FatTreeTopology", "LeafSpineTopology", "OversubscribedLeafSpineTopology", "Routing",
    "StarTopology", "Topology",
    "DEFAULT_FLOWS", "RunOptions", "Workload",
]
