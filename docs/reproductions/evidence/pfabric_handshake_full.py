"""What the connection pool's handshake does to pFabric at full scale
(docs/reproductions/pfabric.md, "At full scale (the Figs. 7-9 point, web
search at 80%, ...)"): `pfabric-fig7-9`'s pFabric point (100,000 flows,
web search at 80% load, seed 1) with `scheme.handshake` off and on (the
default), and with ns-2's window rule as the figure runs it (`span`) or
`pipe` (the rule of the first full-scale runs). Prints each run's
normalized FCT as the figure's panels take it, and the connections the
pool opened on the fly.

About six minutes on two cores (four runs of 70-90 s).

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_handshake_full.py OUT [--jobs N]
       (OUT keeps the runs: run it again to print without running)"""

import argparse
import dataclasses
from pathlib import Path

from dcsim.figures.core import get
from dcsim.figures.pfabric import SCRIPT_SCHEMES
from dcsim.results import load_points
from dcsim.runner import run_sweep

ap = argparse.ArgumentParser(description="pFabric with and without the pool's handshake, full scale.")
ap.add_argument("out", type=Path)
ap.add_argument("--jobs", type=int)
a = ap.parse_args()

PF = SCRIPT_SCHEMES["pfabric"]
VARIANTS = {f"{'with' if hs else 'without'}_handshake_{window}": {**PF, "scheme.handshake": hs,
                                                                  "scheme.window": window}
            for hs in (False, True) for window in ("span", "pipe")}
sweep = get("pfabric-fig7-9").sweep("full")
sweep = dataclasses.replace(sweep, name="pfabric-handshake", variants=VARIANTS,
                            grid={"workload.cdf": ["web_search"], "variant": list(VARIANTS),
                                  "workload.load": [0.8], "seed": [1]})
run_sweep(sweep, a.out, jobs=a.jobs, caveats=False)

print("pFabric, web search at 80%, 100,000 flows: normalized FCT")
print(f"{'run':30s} {'overall':>8s} {'small avg':>10s} {'small p99':>10s} {'medium avg':>11s} {'large avg':>10s}"
      f" {'opened':>7s}")
for s in load_points(a.out):
    by = {r["bin"]: r for r in s["stats"]["by_size"]}
    small, medium, large = by["(0B, 100KB]"], by["(100KB, 10MB]"], by["(10MB, inf]"]
    print(f"{s['point']['params']['variant']:30s} {by['all']['mean']:8.3f} {small['mean']:10.3f} "
          f"{small['p99']:10.3f} {medium['mean']:11.3f} {large['mean']:10.2f} "
          f"{s['counters']['connections_opened']:7,d}")
