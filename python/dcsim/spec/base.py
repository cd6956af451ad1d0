"""What every spec model shares: unknown fields are errors, every field has
a meaning and, where a paper fixes its default, a source (docs/spec.md is
generated from them), and the unit conversions into the engine's integers."""

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field

GBPS = 1_000_000_000
PS_PER_US = 1_000_000


class Model(BaseModel):
    # NaN and infinity are never a setting: "should be a finite number",
    # not a bound's message or a traceback further on
    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True, allow_inf_nan=False)


def field(default: Any = ..., doc: str = "", *, source: Optional[str] = None, **constraints: Any) -> Any:
    """A spec field: its default, what it means, and where its default
    comes from (paper section or public script), for docs/spec.md,
    `dcsim list` and the JSON Schema."""
    extra = {"source": source} if source else None
    return Field(default, description=doc, json_schema_extra=extra, **constraints)


def bps(gbps: float) -> int:
    return round(gbps * GBPS)


def ps(us: float) -> int:
    return round(us * PS_PER_US)
