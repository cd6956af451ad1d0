"""Run one or more series of a registered figure at full scale, and only
them, into the figure's own results layout: `dcsim reproduce FIGURE
--full --reuse OUT` then copies these points instead of running them
(docs/reproductions/pfabric.md, "PDQ against pFabric", full scale). Prints
each point's statistics as the figure's panels compute them.

PDQ's 16 points of Figs. 7-9 (100,000 flows each): about 40 minutes on
2 cores.

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_series_full.py [--quick] [--jobs N] [--seed N] [--where KEY=VALUE ...] OUT [FIGURE] [SERIES ...]
       (defaults: pfabric-fig7-9 pdq; --quick: the quick points instead;
       --jobs: worker processes, default one per core; --where: only the
       grid's points with that value, e.g. workload.cdf=data_mining)"""

import argparse
import dataclasses
import sys

from dcsim.figures.core import compute, get
from dcsim.runner import run_sweep

ap = argparse.ArgumentParser(description="Run chosen series of a figure at full scale.")
ap.add_argument("out")
ap.add_argument("figure", nargs="?", default="pfabric-fig7-9")
ap.add_argument("series", nargs="*", default=["pdq"])
ap.add_argument("--quick", action="store_true", help="the quick points instead")
ap.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
ap.add_argument("--seed", type=int, action="append", help="run these seeds instead of the figure's (repeatable; "
                "the printed table averages them, so give each seed its own OUT to see it alone)")
ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                help="only the grid's points with that value, e.g. workload.cdf=data_mining "
                "(repeat a key for several values)")
a = ap.parse_args()
fig = get(a.figure)
sweep = fig.sweep("quick" if a.quick else "full")
grid = {**sweep.grid, fig.series: a.series}
wanted: dict[str, set[str]] = {}
for cond in a.where:
    key, _, value = cond.partition("=")
    wanted.setdefault(key, set()).add(value)
for key, values in wanted.items():
    if key not in grid:
        sys.exit(f"--where {key}: not a grid key of {a.figure} ({', '.join(grid)})")
    missing = values - {str(v) for v in grid[key]}
    if missing:
        sys.exit(f"--where {key}={sorted(missing)[0]}: no such value in {a.figure}'s grid")
    grid[key] = [v for v in grid[key] if str(v) in values]
if a.seed:
    grid["seed"] = a.seed
sweep = dataclasses.replace(sweep, grid=grid)
run_sweep(sweep, a.out, jobs=a.jobs)
print(compute(fig, a.out).round(3).to_string())
