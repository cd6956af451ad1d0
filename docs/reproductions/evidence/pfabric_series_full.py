"""Run one or more series of a registered figure at full scale, and only
them, into the figure's own results layout: `dcsim reproduce FIGURE
--full --reuse OUT` then copies these points instead of running them
(docs/reproductions/pfabric.md, "PDQ against pFabric", full scale). Prints
each point's statistics as the figure's panels compute them.

PDQ's 16 points of Figs. 7-9 (100,000 flows each): about 40 minutes on
2 cores.

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_series_full.py [--quick] [--jobs N] OUT [FIGURE] [SERIES ...]
       (defaults: pfabric-fig7-9 pdq; --quick: the quick points instead;
       --jobs: worker processes, default one per core)"""

import dataclasses
import sys

from dcsim.figures.core import compute, get
from dcsim.runner import run_sweep

args = sys.argv[1:]
mode = "quick" if "--quick" in args else "full"
args = [a for a in args if a != "--quick"]
jobs = None
if "--jobs" in args:
    i = args.index("--jobs")
    jobs = int(args[i + 1])
    del args[i : i + 2]
out = args[0]
name = args[1] if len(args) > 1 else "pfabric-fig7-9"
series = args[2:] or ["pdq"]
fig = get(name)
sweep = fig.sweep(mode)
sweep = dataclasses.replace(sweep, grid={**sweep.grid, fig.series: series})
run_sweep(sweep, out, jobs=jobs)
print(compute(fig, out).round(3).to_string())
