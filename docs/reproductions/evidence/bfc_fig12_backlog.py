"""HPCC's instability above 70% load in BFC's Fig. 12 (docs/reproductions/
bfc.md, "Fig. 12", "HPCC's instability above 70%"): the paper stops HPCC
at 70% because "the number of outstanding flows grows without bound". A
finite run cannot show "without bound", but it can show whether the
backlog keeps growing: this runs Fig. 12's point (Facebook Hadoop, BFC's
Clos, lognormal arrivals, no incast) with more flows than the figure's
100,000, for HPCC and BFC 32, and prints the flows in progress (started,
not finished) at each tenth of the arrival span, and the growth from the
middle of that span to its end (the mean in progress over the last 40%
of the span against the 40% before it, leaving out the first 20%, while
the heavy-tailed sizes' first large flows build up: about 1 for a
backlog that holds, above it for one that grows).

Time on this project's VM, one core: about 1-2 minutes per 100,000 flows
for BFC, 2-4 for HPCC; the default (300,000 flows, loads 0.5, 0.7, 0.8
and 0.95, two schemes) about 40 minutes.

Usage: .venv/bin/python docs/reproductions/evidence/bfc_fig12_backlog.py OUT [--flows N] [--loads 0.5 0.7 ...] [--jobs N]
       (OUT keeps the runs: run it again to print without running)"""

import argparse
import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from dcsim.figures.core import get
from dcsim.results import load_points, point_dir
from dcsim.runner import run_sweep

ap = argparse.ArgumentParser(description="Flows in progress over time in Fig. 12's set-up, HPCC and BFC 32.")
ap.add_argument("out", type=Path)
ap.add_argument("--flows", type=int, default=300_000)
ap.add_argument("--loads", type=float, nargs="+", default=[0.5, 0.7, 0.8, 0.95])
ap.add_argument("--jobs", type=int)
a = ap.parse_args()

sweep = get("bfc-fig12").sweep("full")
base = {**sweep.base, "workload": {**sweep.base["workload"], "flows": a.flows}}
sweep = dataclasses.replace(sweep, name="bfc-fig12-backlog", base=base,
                            grid={**sweep.grid, "variant": ["bfc32", "hpcc"], "workload.load": a.loads})
run_sweep(sweep, a.out, jobs=a.jobs, caveats=False)

print(f"flows in progress at each tenth of the arrival span ({a.flows:,} flows); growth: last 40% / the 40% before")
for s in load_points(a.out):
    p = s["point"]["params"]
    f = pd.read_parquet(point_dir(a.out, s["point"]["key"]) / "flows.parquet", columns=["start_s", "finish_s"])
    start, finish = f.start_s.to_numpy(), f.finish_s.fillna(np.inf).to_numpy()
    times = np.linspace(start.min(), start.max(), 41)[1:]
    starts, ends = np.sort(start), np.sort(finish)
    active = np.searchsorted(starts, times, side="right") - np.searchsorted(ends, times, side="right")
    growth = active[-16:].mean() / active[8:24].mean()
    print(f"  {p['variant']:6s} load {p['workload.load']:.2f}: " + " ".join(f"{n:5d}" for n in active[3::4])
          + f"; growth {growth:.2f}; most in progress {int(active.max()):,}; "
          f"run {s['sim_time_s'] * 1e3 if 'sim_time_s' in s else float('nan'):.1f} ms")
