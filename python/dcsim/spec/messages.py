"""A refused spec's one-line message: the field (without the validation
library's union branches and dict keys), what was wrong, the value
given, the whole allowed range, and the closest valid name."""

import difflib
import re
from typing import Any, Optional

from pydantic import ValidationError


def _sections():
    # the spec's sections, read when a message is made (experiment.py
    # imports this module)
    from . import experiment

    return experiment.SECTIONS, experiment.DISCRIMINATORS, experiment.Spec


def did_you_mean(word: Any, choices) -> str:
    choices = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    if not close and len(str(word)) >= 3:
        # a part of the name (rto for min_rto_us)
        close = [c for c in choices if str(word) in c][:3]
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def inner_model(model: Optional[type], parts: tuple) -> Optional[type]:
    """The model a dotted path below `model` leads to (workload.queries ->
    the queries' model), or None where it leads to no model."""
    import typing

    from pydantic import BaseModel

    for part in parts:
        f = getattr(model, "model_fields", {}).get(part)
        if f is None:
            return None
        inner = [a for a in (typing.get_args(f.annotation) or (f.annotation,))
                 if isinstance(a, type) and issubclass(a, BaseModel)]
        model = inner[0] if inner else None
    return model


def _model_at(loc: tuple) -> tuple[Optional[type], tuple]:
    """The model that holds the field at `loc`, and `loc` without the tag of
    a discriminated section (pydantic puts it in: topology.leaf_spine.x)."""
    SECTIONS, _, Spec = _sections()
    if len(loc) <= 1:
        return Spec, loc
    models = SECTIONS.get(loc[0])
    if isinstance(models, dict):
        if len(loc) >= 2 and loc[1] in models:
            return models[loc[1]], (loc[0], *loc[2:])
        return None, loc
    return models, loc


def _bounds(model, name) -> str:
    """A numeric field's range as its constraints give it: "> 0, <= 1"."""
    info = getattr(model, "model_fields", {}).get(name)
    if info is None:
        return ""
    signs = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}
    found = {attr: getattr(m, attr) for m in info.metadata for attr in signs if getattr(m, attr, None) is not None}
    # the tighter of two bounds on one side (a field's "> 0" and the floor
    # every positive time in us has, base.MIN_POSITIVE_US)
    for strict, loose, tighter in (("gt", "ge", max), ("lt", "le", min)):
        if strict in found and loose in found:
            keep = loose if tighter(found[strict], found[loose]) == found[loose] and found[loose] != found[strict] \
                else strict
            found.pop(loose if keep == strict else strict)
    return ", ".join(f"{signs[a]} {_number(found[a])}" for a in signs if a in found)


def _number(v) -> str:
    """A bound as a person writes it: 1e+12, not 1000000000000.0."""
    return f"{v:g}" if isinstance(v, float) else (f"{v:,}" if abs(v) >= 10**6 else str(v))


#: Parts of pydantic's error locations that name its own machinery, not a
#: field: the branch of a union tried (`int`, `list[int]`, `literal['x']`)
#: or a dict's key.
_BRANCH = re.compile(r"^(int|float|str|bool|none|(list|dict|tuple|set|literal|function-\w+|lax-or-strict|"
                     r"json-or-python|nullable|union)\[.*\]|\[key\])$")


def _field_loc(loc: tuple) -> tuple:
    return tuple(p for p in loc if not (isinstance(p, str) and _BRANCH.match(p)))


def format_error(err: ValidationError) -> str:
    SECTIONS, DISCRIMINATORS, _ = _sections()
    errors = err.errors()
    e = errors[0]
    model, loc = _model_at(_field_loc(tuple(e["loc"])))
    where = ".".join(str(p) for p in loc)
    msg = e["msg"]
    # a value a union refused: what each of its kinds wanted, in one line
    # ("a valid integer, or 'unlimited'"), not one branch and "1 more"
    same = [x for x in errors if _model_at(_field_loc(tuple(x["loc"])))[1] == loc]
    if len(same) > 1 and len(same) == len(errors) and "input" in e:
        wants = list(dict.fromkeys(x["msg"].removeprefix("Input should be ").split(",")[0] for x in same))
        return f"{where}: should be {' or '.join(wants)}, got {e['input']!r}"
    if "[key]" in e["loc"]:
        msg = f"a key {e['loc'][e['loc'].index('[key]') - 1]!r}: {msg}"
        where = where.rsplit(".", 1)[0] if where.count(".") and str(loc[-1]) == str(e["loc"][-2]) else where
    if e["type"] == "union_tag_invalid":
        ctx = e.get("ctx", {})
        tags = list(SECTIONS.get(where, {}))
        msg = (f"unknown {where or 'kind'} {ctx.get('tag')!r}{did_you_mean(ctx.get('tag'), tags)} "
               f"(allowed: {ctx.get('expected_tags')})")
        where = f"{where}.{DISCRIMINATORS.get(where, ('kind',))[0]}"
    elif e["type"] == "union_tag_not_found":
        key = DISCRIMINATORS.get(where, ("kind",))[0]
        msg = f"missing {key!r} (allowed: {', '.join(SECTIONS.get(where, {}))})"
    elif e["type"] == "literal_error" and "input" in e:
        expected = (e.get("ctx") or {}).get("expected", "")
        choices = [c.strip(" '") for c in expected.replace(" or ", ",").split(",")]
        msg = f"{msg}, got {e['input']!r}{did_you_mean(e['input'], choices)}"
    elif e["type"] in ("greater_than", "greater_than_equal", "less_than", "less_than_equal") and "input" in e:
        # the value given and the whole range, not just the bound it broke
        bounds = _bounds(inner_model(model, tuple(loc[1:-1])), loc[-1])
        msg = f"{msg}, got {e['input']!r}" + (f" (allowed: {bounds})" if bounds else "")
    elif e["type"] in ("int_type", "float_type", "bool_type", "string_type", "int_from_float", "finite_number",
                       "tuple_type", "list_type", "dict_type") and "input" in e:
        # the value given, and its type: `true` is not 1, "0.5" not 0.5
        got = e["input"]
        if ", got " not in msg:
            msg = f"{msg}, got {got!r}" + (f" ({type(got).__name__})" if isinstance(got, (bool, str)) else "")
        else:
            msg = msg.replace(", got ", ": ", 1) + f" ({got!r})"
    elif e["type"] == "value_error":
        msg = msg.removeprefix("Value error, ")  # a validator's own sentence
    elif e["type"] == "extra_forbidden":
        model = inner_model(model, tuple(loc[1:-1]))
        fields = list(model.model_fields) if model is not None else []
        msg = "unknown field" + did_you_mean(loc[-1], fields)
        if msg == "unknown field" and fields and len(loc) > 1:
            # nothing close: the fields there are
            msg += f" (fields of {'.'.join(map(str, loc[:-1]))}: {', '.join(fields)})"
        if len(loc) == 1 and msg == "unknown field":
            # a field of a section given at the top (matrix for workload.matrix)
            homes = [f"{section}.{loc[0]}" for section, m in SECTIONS.items()
                     for mm in (m.values() if isinstance(m, dict) else [m])
                     if loc[0] in getattr(mm, "model_fields", {})]
            if homes:
                msg += f" (did you mean {' or '.join(map(repr, dict.fromkeys(homes)))}?)"
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    return f"{where or 'spec'}: {msg}{more}"
