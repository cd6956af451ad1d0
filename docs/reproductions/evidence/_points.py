"""What the evidence scripts share: a registered figure's point as a spec,
with fields changed, run, and its FCTs summarized by the PIAS bins."""

from __future__ import annotations

import json

import dcsim
from dcsim.figures.core import get
from dcsim.spec import spec_from_dict

SHORT, LARGE = 100 * 1024, 10 * 1024 * 1024


def point(figure: str, mode: str = "full", **where) -> dict:
    """The spec (as a dict) of the figure's point whose grid values are
    `where` (dots in field names written as '__')."""
    want = {k.replace("__", "."): v for k, v in where.items()}
    for p in get(figure).sweep(mode).points():
        if all(p.params.get(k) == v for k, v in want.items()):
            return json.loads(p.spec.model_dump_json())
    raise SystemExit(f"{figure}: no {mode} point with {want}")


def run(spec: dict, **scheme):
    """Run `spec` with scheme fields changed; return the run (flows, summary)."""
    spec = json.loads(json.dumps(spec))
    spec["scheme"].update(scheme)
    return dcsim.run_all(spec_from_dict(spec))


def bins(flows) -> dict:
    """Mean FCT in ms overall, of short (<= 100 KiB), medium and large (> 10 MiB) flows."""
    ms = flows.fct_s * 1e3
    short, large = flows.size_bytes <= SHORT, flows.size_bytes > LARGE
    return {"all": ms.mean(), "short": ms[short].mean(), "medium": ms[~short & ~large].mean(),
            "large": ms[large].mean(), "short_p99": ms[short].quantile(0.99)}


#: The PIAS page's size bands of data mining's large flows (bytes): above
#: 10 MiB and up to 100 MB, and above 100 MB.
BANDS = ("<=100KB", "100KB-10MB", "10-100MB", ">100MB")
BAND_100MB = 100_000_000


def band_masks(sizes) -> dict:
    """Boolean masks of `sizes` (an array or Series of bytes) by BANDS."""
    return {"<=100KB": sizes <= SHORT, "100KB-10MB": (sizes > SHORT) & (sizes <= LARGE),
            "10-100MB": (sizes > LARGE) & (sizes <= BAND_100MB), ">100MB": sizes > BAND_100MB}


def series(variants: dict, text: str) -> tuple[str, dict]:
    """(name, fields) of a series written VARIANT or NAME=VARIANT:FIELD=VALUE,FIELD=VALUE
    (fields dotted, as `dcsim run --set` takes them), from a figure's `variants`."""
    from dcsim.spec import parse_value

    name, _, derived = text.partition("=")
    base, _, fields = (derived or name).partition(":")
    if base not in variants:
        raise SystemExit(f"no series {base} (series: {', '.join(variants)})")
    changed = {}
    for kv in filter(None, fields.split(",")):
        key, eq, value = kv.partition("=")
        if not eq:
            raise SystemExit(f"{text}: {kv!r} is not FIELD=VALUE")
        changed[key] = parse_value(value)
    return name, {**variants[base], **changed}
