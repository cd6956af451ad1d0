"""A BFC figure's statistics under other seeds (docs/reproductions/bfc.md:
the seed checks of Fig. 10 (HPCC's short-flow tail over BFC's), Fig. 11(a)
(DCQCN's long flows over BFC's), Fig. 11(b) (DCTCP's long flows over
BFC's) and Fig. 16(a) (the congestion control's short-flow tail)). Runs
the figure's own set-up (`--full`: the paper's flows) with only the
series given, for each seed, and prints, one column per seed, each
series against the first: the short flows' 99th-percentile slowdown (the
median over the size bins up to 3 KB of the per-bin ratio) and the long
flows' mean (the largest bin, the largest 5% of flows), as the figures'
statements compare them.

Time at full scale, two series on two cores: about a minute a seed for
Figs. 10, 11(a) and 11(b), a few minutes for Fig. 16(a).

Usage: .venv/bin/python docs/reproductions/evidence/bfc_seeds.py OUT FIGURE SERIES... [--seeds 1 2 3] [--full] [--jobs N]
  e.g. bfc_seeds.py OUT bfc-fig10 bfc hpcc --seeds 1 2 3 --full
       (OUT keeps the runs: run it again to print without running)"""

import argparse
import dataclasses
from pathlib import Path

from dcsim.figures.bfc.by_size import _ratio, by_size_table, mark_incasts
from dcsim.figures.core import get
from dcsim.figures.single import RunData
from dcsim.results import load_points, point_dir
from dcsim.runner import run_sweep

ap = argparse.ArgumentParser(description="A BFC figure's statistics under other seeds.")
ap.add_argument("out", type=Path)
ap.add_argument("figure")
ap.add_argument("series", nargs="+")
ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
ap.add_argument("--full", action="store_true", help="the paper's flows (default: the figure's quick mode)")
ap.add_argument("--jobs", type=int)
a = ap.parse_args()

fig = get(a.figure)
missing = [s for s in a.series if s not in fig.variants]
if missing:
    raise SystemExit(f"{a.figure}: no series {', '.join(missing)} (series: {', '.join(fig.variants)})")
sweep = fig.sweep("full" if a.full else "quick")
sweep = dataclasses.replace(sweep, name=f"{a.figure}-seeds", variants={s: fig.variants[s] for s in a.series},
                            grid={"variant": list(a.series), "seed": list(a.seeds)})
run_sweep(sweep, a.out, jobs=a.jobs, caveats=False)

by_seed: dict[int, dict] = {}
for p in load_points(a.out):
    params = p["point"]["params"]
    by_seed.setdefault(params["seed"], {})[params["variant"]] = RunData.load(point_dir(a.out, p["point"]["key"]))
columns = {}
first = a.series[0]
for seed, runs in sorted(by_seed.items()):
    if set(runs) != set(a.series):
        continue
    mark_incasts(runs)
    t = by_size_table(runs)
    columns[seed] = {}
    for v in a.series[1:]:
        columns[seed][f"{v} over {first}: short p99"] = _ratio(t, v, first, "p99", True, 3000)
        columns[seed][f"{v} over {first}: long mean"] = _ratio(t, v, first, "mean", False, 0)
if not columns:
    raise SystemExit(f"{a.out}: no seed has every series")
print(f"{a.figure} ({'full' if a.full else 'quick'}): each series against {first}, by seed")
print(f"{'':40s} " + " ".join(f"{'seed ' + str(s):>9s}" for s in columns))
for k in next(iter(columns.values())):
    print(f"{k:40s} " + " ".join(f"{c[k]:9.3f}" for c in columns.values()))
