"""ExpressPass in BFC's Figs. 10 and 11(b) on fewer flows
(docs/reproductions/bfc.md, "ExpressPass in Figs. 9-11"): the first
table (BFC, HPCC, DCQCN and ExpressPass on Fig. 10's set-up with 20,000
flows; BFC, HPCC and ExpressPass on Fig. 11(b)'s with 5,000), and what
does not explain the paper's 17x for long flows: the paper's 16-credit
queues instead of the scripts' 8, and Poisson arrivals instead of the
paper's lognormal gaps (BFC's and ExpressPass's on Fig. 10's set-up).

Short: the median over the size bins up to 3 KB of each bin's 99th
percentile slowdown; long: the mean slowdown of the largest bin (the
largest 5% of flows); bins are the 5% quantiles of the sizes, as the
figures bin them. Seed 1, the schemes' current defaults.

About four minutes on two cores.

Usage: .venv/bin/python docs/reproductions/evidence/bfc_expresspass_quick.py OUT [--jobs N]
       (OUT keeps the runs: run it again to print without running)"""

import argparse
import dataclasses
import math
from pathlib import Path

import numpy as np

from dcsim.figures.bfc.by_size import _short_long, by_size_table, mark_incasts
from dcsim.figures.core import get
from dcsim.figures.single import RunData
from dcsim.results import load_points, point_dir
from dcsim.runner import run_sweep

SETS = {
    "fig10": ("bfc-fig10", 20_000, {
        "bfc": {"scheme.name": "bfc"}, "hpcc": {"scheme.name": "hpcc"}, "dcqcn": {"scheme.name": "dcqcn"},
        "expresspass": {"scheme.name": "expresspass"},
        "expresspass_q16": {"scheme.name": "expresspass", "scheme.credit_queue_credits": 16},
        "expresspass_poisson": {"scheme.name": "expresspass", "workload.arrivals": "poisson"},
        "bfc_poisson": {"scheme.name": "bfc", "workload.arrivals": "poisson"}}),
    "fig11b": ("bfc-fig11b", 5_000, {
        "bfc": {"scheme.name": "bfc"}, "hpcc": {"scheme.name": "hpcc"},
        "expresspass": {"scheme.name": "expresspass"}}),
}

ap = argparse.ArgumentParser(description="ExpressPass in BFC's Figs. 10 and 11(b), fewer flows.")
ap.add_argument("out", type=Path)
ap.add_argument("--jobs", type=int)
a = ap.parse_args()

for key, (figure, flows, variants) in SETS.items():
    sweep = get(figure).sweep("quick")
    base = {**sweep.base, "workload": {**sweep.base["workload"], "flows": flows}}
    sweep = dataclasses.replace(sweep, name=f"xpass-{key}", base=base, variants=variants,
                                grid={"variant": list(variants), "seed": [1]})
    run_sweep(sweep, a.out / key, jobs=a.jobs, caveats=False)
    runs = {p["point"]["params"]["variant"]: RunData.load(point_dir(a.out / key, p["point"]["key"]))
            for p in load_points(a.out / key)}
    mark_incasts(runs)
    t = by_size_table(runs)

    def short(v: str) -> float:
        return float(np.median(_short_long(t, v, "p99", True, 3000))) if v in runs else math.nan

    def long(v: str) -> float:
        x = _short_long(t, v, "mean", False, 0)
        return float(x.iloc[0]) if v in runs and len(x) else math.nan

    print(f"\n{figure}'s set-up, {flows:,} flows: short p99 / long mean")
    for v in variants:
        print(f"  {v:22s} {short(v):6.2f} / {long(v):5.2f}")
    xp, b = "expresspass", "bfc"
    print(f"  ExpressPass / BFC: short {short(xp) / short(b):.2f}x, long {long(xp) / long(b):.2f}x; "
          f"long against the next worst: {long(xp) / max(long(v) for v in ('hpcc', 'dcqcn') if v in runs):.2f}x")
