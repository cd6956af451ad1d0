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
