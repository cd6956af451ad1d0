"""PDQ's large flows against pFabric's over the length of a full-scale
run (docs/reproductions/pfabric.md, "PDQ against pFabric"): web search
at 80% load, 100,000 flows; the flows cut into five blocks of 20,000 by
start, and per block the large flows' (10MB, inf) average normalized FCT
of each scheme and their ratio. A ratio that keeps growing over the run
says the statistic depends on the run's length, not only on the
schemes. Reads the two points from DIR (made, or resumed, by
`evidence/pfabric_series_full.py --where workload.cdf=web_search --where
workload.load=0.8 DIR pfabric-fig7-9 pdq pfabric`: about 30 minutes on
one core); no simulation here.

Usage: .venv/bin/python docs/reproductions/evidence/pdq_large_flows_blocks.py DIR"""

import json
import sys
from pathlib import Path

import pandas as pd

from dcsim.bins import PAPER_BINS

LARGE, BLOCK = PAPER_BINS[2], 20_000  # the figure's (10MB, inf) bin
runs = {}
for s in Path(sys.argv[1]).glob("points/*/summary.json"):
    p = json.loads(s.read_text())["point"]["params"]
    if p.get("workload.cdf") == "web_search" and p.get("workload.load") == 0.8:
        runs[p["variant"]] = pd.read_parquet(s.parent / "flows.parquet").sort_values("start_s").reset_index(drop=True)
missing = {"pdq", "pfabric"} - set(runs)
if missing:
    sys.exit(f"{sys.argv[1]}: no web search 80% point of {', '.join(sorted(missing))}")
print("flows (by start)   pFabric large   PDQ large   PDQ / pFabric   large flows   their bytes share")
for lo in range(0, len(runs["pdq"]), BLOCK):
    cells = []
    for name in ("pfabric", "pdq"):
        f = runs[name].iloc[lo:lo + BLOCK]
        cells.append(f[f.size_bytes > LARGE].slowdown.mean())
    f = runs["pdq"].iloc[lo:lo + BLOCK]
    large = f.size_bytes > LARGE
    print(f"{lo:6d}-{lo + BLOCK:6d}   {cells[0]:13.2f}   {cells[1]:9.2f}   {cells[1] / cells[0]:13.2f}"
          f"   {large.sum():11d}   {f.size_bytes[large].sum() / f.size_bytes.sum():17.1%}")
for name in ("pfabric", "pdq"):
    f = runs[name]
    print(f"{name}: all 100,000 flows, large average {f[f.size_bytes > LARGE].slowdown.mean():.2f}")
