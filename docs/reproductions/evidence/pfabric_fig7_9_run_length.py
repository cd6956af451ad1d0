"""pFabric Figs. 7-9, web search at 80% load, 100,000 flows: how the
schemes' statistics move over the run (docs/reproductions/pfabric.md,
"Run length"). Reads the figure's full-scale output directory
(`dcsim reproduce pfabric-fig7-9 --full --out DIR`); no simulation, a
minute or so.

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_fig7_9_run_length.py DIR"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from dcsim.metrics import settling


def in_progress_at_dst(f: pd.DataFrame) -> pd.Series:
    """For each flow, the flows in progress at its destination when it starts."""
    parts = []
    for _, g in f.groupby("dst"):
        starts, ends = np.sort(g.start_s.to_numpy()), np.sort(g.finish_s.to_numpy())
        t = g.start_s.to_numpy()
        parts.append(pd.Series(np.searchsorted(starts, t, "right") - np.searchsorted(ends, t, "right"), index=g.index))
    return pd.concat(parts)


def row(values) -> str:
    return " ".join(f"{x:.2f}" for x in values)


out = Path(sys.argv[1])
for d in sorted((out / "points").iterdir()):
    params = json.loads((d / "summary.json").read_text())["point"]["params"]
    if params["workload.load"] != 0.8 or params["workload.cdf"] != "web_search":
        continue
    f = pd.read_parquet(d / "flows.parquet")
    tenth = pd.qcut(f.start_s, 10, labels=False)
    small = f.size_bytes <= 100e3
    print(f"{params['variant']}")
    print(f"  overall average by tenth of the run:      {row(f.groupby(tenth).slowdown.mean())}")
    print(f"  small flows' average by tenth:            {row(f[small].groupby(tenth[small]).slowdown.mean())}")
    print(f"  small flows with a timeout, by tenth:     "
          f"{row(f[small].groupby(tenth[small]).timeouts.apply(lambda t: (t > 0).mean()))}")
    active = in_progress_at_dst(f)
    print(f"  flows in progress at the destination:     {row(active.groupby(tenth).mean())}")
    by_active = f[small].groupby(pd.cut(active[small], [0, 5, 10, 20, 40, np.inf]), observed=True).slowdown.mean()
    print("  small flows' average by flows in progress: "
          + ", ".join(f"{iv}: {v:.1f}" for iv, v in by_active.items()))
    moved = [f"{b['bin']} {100 * b['change']:+.0f}%" for b in settling(f) if b["settled"] is False]
    print(f"  not settled: {', '.join(moved) or 'none'}")
    if params["variant"] == "ideal":
        span = f.start_s.max() - f.start_s.min()
        load = f.groupby("dst").size_bytes.sum() * 8 / span / 10e9
        print(f"  destinations' links: load {load.mean():.2f} on average (sd {load.std():.2f}), "
              f"{(load > 0.95).sum()} above 0.95, at most {load.max():.2f}")
