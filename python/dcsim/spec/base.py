"""What every spec model shares: unknown fields are errors, every field has
a meaning and, where a paper fixes its default, a source (docs/spec.md is
generated from them), and the unit conversions into the engine's integers."""

from typing import Any, Optional, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

GBPS = 1_000_000_000
PS_PER_US = 1_000_000


#: The largest value of a quantity, by the unit its name ends in, where
#: the field sets no bound of its own: the engine keeps times in u64
#: picoseconds (1.8e7 s), sizes in u64 bytes and rates in u64 bits per
#: second, and counts (hosts, flows, packets) in u32, so past these a value
#: would overflow on its way in or mean nothing. A million seconds, a TB.
UNIT_LIMITS = (("_us", 1e12), ("_ms", 1e9), ("_s", 1e6), ("_bytes", 2**40), ("_kb", 2**30), ("_mb", 2**20),
               ("_gbps", 1e5), ("_mbps", 1e8), ("_pkts", 2**31 - 1))
#: ... and for a count or a factor without a unit
INT_LIMIT, FLOAT_LIMIT = 2**31 - 1, 1e6


def _scalar(info) -> Optional[type]:
    """The type of a field that holds a bool, a number or a string (or
    None), else None."""
    kind = info.annotation
    if get_origin(kind) is Union:
        args = [a for a in get_args(kind) if a is not type(None)]
        kind = args[0] if len(args) == 1 else None
    return kind if kind in (bool, int, float, str) else None


def _refuse(what: str, v: Any) -> None:
    raise ValueError(f"Input should be {what}, got {v!r} ({type(v).__name__})")


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool) or type(v).__name__ == "bool_"  # numpy's too


def _number(v: Any) -> Any:
    if _is_bool(v) or isinstance(v, (str, bytes)):
        _refuse("a number", v)
    return v


def _integer(v: Any) -> Any:
    if _is_bool(v) or isinstance(v, (str, bytes)):
        _refuse("an integer", v)
    return v


def _boolean(v: Any) -> Any:
    if v is not None and not _is_bool(v):
        _refuse("true or false", v)
    return v


#: What a plain field refuses before pydantic would convert it.
_NO_COERCION = {int: _integer, float: _number, bool: _boolean, str: lambda v: v}


def _upper_limit(name: str, info) -> Optional[annotated_types.Le]:
    """The bound `UNIT_LIMITS` gives a numeric field that has none."""
    kind = info.annotation
    if get_origin(kind) is Union:
        args = [a for a in get_args(kind) if a is not type(None)]
        kind = args[0] if len(args) == 1 else None
    if kind not in (int, float) or any(hasattr(m, "le") or hasattr(m, "lt") for m in info.metadata):
        return None
    limit = next((v for suffix, v in UNIT_LIMITS if name.endswith(suffix) or name == suffix[1:]),
                 INT_LIMIT if kind is int else FLOAT_LIMIT)
    return annotated_types.Le(int(limit) if kind is int else float(limit))


#: A positive time in microseconds is at least a nanosecond unless the
#: field says otherwise: the engine's clock counts picoseconds, so a
#: smaller timer rounds to nothing or fires billions of times a simulated
#: second (a run that never ends), and nothing in a datacenter fabric
#: happens that fast (a 64-byte packet takes 128 ps at 4 Tb/s).
MIN_POSITIVE_US = 1e-3
#: A positive rate in Gb/s is at least a bit a second: the engine's rates
#: are whole bits a second, and a smaller one rounds to 0 (a division by
#: zero in the engine: fuzz cases 3660 and 5609 of seed 1).
MIN_POSITIVE_GBPS = 1e-9


def _lower_limit(name: str, info) -> Optional[annotated_types.Ge]:
    """The floor `MIN_POSITIVE_US` or `MIN_POSITIVE_GBPS` gives a positive
    time field in us or rate field in Gb/s."""
    floor = MIN_POSITIVE_US if name.endswith("_us") else MIN_POSITIVE_GBPS if name.endswith("_gbps") else None
    if floor is None:
        return None
    bounds = {k: getattr(m, k) for m in info.metadata for k in ("ge", "gt") if getattr(m, k, None) is not None}
    if bounds.get("gt") == 0 and "ge" not in bounds:
        return annotated_types.Ge(floor)
    return None


class Model(BaseModel):
    # NaN and infinity are never a setting: "should be a finite number",
    # not a bound's message or a traceback further on
    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True, allow_inf_nan=False)

    @model_validator(mode="after")
    def _min_not_above_max(self) -> "Model":
        """A `min_X` above its `max_X` (a minimum timeout above the
        maximum) is refused here, not left to the engine."""
        for name in type(self).model_fields:
            if name.startswith("min_") and f"max_{name[4:]}" in type(self).model_fields:
                lo, hi = getattr(self, name), getattr(self, f"max_{name[4:]}")
                if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo > hi:
                    raise ValueError(f"{name} ({lo:g}) is above max_{name[4:]} ({hi:g})")
        return self

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        for name, info in cls.model_fields.items():
            for limit in (_upper_limit(name, info), _lower_limit(name, info)):
                if limit is not None:
                    info.metadata.append(limit)
            kind = _scalar(info)
            if kind is not None:
                # a TOML file or a dict gives each value its own type, so
                # `mss_bytes = true` or `pfc = "yes"` is a mistake to name,
                # not a value to coerce (an integer is still a float, and a
                # numpy number a number)
                info.metadata.append(BeforeValidator(_NO_COERCION[kind]))


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
