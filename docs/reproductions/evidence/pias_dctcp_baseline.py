"""How PIAS's gain over DCTCP depends on the DCTCP it is measured against
(docs/reproductions/pias.md, "PIAS's gain and its DCTCP baseline"; issue
51). On the PIAS scripts' fabric (the `pias` profile's: 20 us of host
delay, round-robin spraying, sizes in whole packets, FCT at the sender):
PIAS as the scripts run it, against the scripts' DCTCP (what
`pias-fig14-16` runs, and `dctcp` under `profile = "pias"`) and against
`dctcp` with its own defaults (pFabric's Table 1: K = 21.9 KB, 219 KB
ports, window 12, a 200 us minimum RTO with backoff, a connection per
flow). And a new user's try: `pias` and `dctcp`, each with its own
defaults, on the spec's default fabric (pFabric §5.1's). The points of
`pias-fig14-16`: 100,000 flows per point at loads 0.5-0.9 (`--quick`: its
2,500).

Prints, per workload and load, the average FCT (ms) of short flows
(<= 100 KiB) and overall, and PIAS's change against each DCTCP.

Time at full scale on this project's VM, two jobs: about an hour for web
search, three for data mining (`--cdf web_search` runs one; `--load 0.5`
one load, about 70 minutes for data mining on one core).

Usage: .venv/bin/python docs/reproductions/evidence/pias_dctcp_baseline.py OUT [--quick] [--cdf NAME] [--load X] [--jobs N]
       (OUT keeps the points: run it again to print without running)"""

import argparse
import dataclasses

from dcsim.figures.core import get
from dcsim.results import load_points
from dcsim.runner import run_sweep
from dcsim.profiles import PIAS

from dcsim.spec import spec_from_dict

#: what the `pias` profile's fabric sets, back at the spec's defaults
#: (pFabric §5.1's fabric: no host delay, sizes not rounded to packets, FCT
#: at the receiver)
_DEFAULT = spec_from_dict({})
DEFAULT_FABRIC = {f"{section}.{k}": getattr(getattr(_DEFAULT, section), k)
                  for section, fields in PIAS.base.items() for k in fields}
SERIES = {"pias": PIAS.variant("pias"), "dctcp_scripts": PIAS.variant("dctcp"),
          "dctcp_defaults": {"scheme.name": "dctcp"},
          # a new user's try: each scheme with its own defaults on the spec's default fabric
          "pias_default_fabric": {"scheme.name": "pias", **DEFAULT_FABRIC},
          "dctcp_default_fabric": {"scheme.name": "dctcp", **DEFAULT_FABRIC}}

ap = argparse.ArgumentParser(description="PIAS against two DCTCP baselines on the PIAS scripts' fabric.")
ap.add_argument("out")
ap.add_argument("--quick", action="store_true", help="the figure's quick points (2,500 flows)")
ap.add_argument("--cdf", action="append", help="only this workload (web_search, data_mining); repeatable")
ap.add_argument("--load", type=float, action="append", help="only this load; repeatable")
ap.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
a = ap.parse_args()

fig = get("pias-fig14-16")
sweep = fig.sweep("quick" if a.quick else "full")
grid = {**sweep.grid, "variant": list(SERIES)}
if a.cdf:
    grid["workload.cdf"] = [c for c in grid["workload.cdf"] if c in a.cdf]
if a.load:
    grid["workload.load"] = [x for x in grid["workload.load"] if x in a.load]
sweep = dataclasses.replace(sweep, name="pias-dctcp-baseline", grid=grid, variants=SERIES)
run_sweep(sweep, a.out, jobs=a.jobs, caveats=False)

rows: dict[tuple, dict] = {}
for s in load_points(a.out):
    p = s["point"]["params"]
    rows.setdefault((p["workload.cdf"], p["workload.load"]), {})[p["variant"]] = s
print("average FCT (ms) of short flows (<= 100 KiB) / of all flows, and PIAS's change against DCTCP")
PAIRS = (("PIAS scripts' fabric: PIAS vs the scripts' DCTCP", "pias", "dctcp_scripts"),
         ("PIAS scripts' fabric: PIAS vs DCTCP's own defaults", "pias", "dctcp_defaults"),
         ("default fabric, each scheme's own defaults", "pias_default_fabric", "dctcp_default_fabric"))


def fct(summary: dict) -> tuple[float, float]:
    """Short flows' and all flows' mean FCT in ms, from the point's flows."""
    import pandas as pd

    from dcsim.results import point_dir

    f = pd.read_parquet(point_dir(a.out, summary["point"]["key"]) / "flows.parquet", columns=["size_bytes", "fct_s"])
    return f.fct_s[f.size_bytes <= 100 * 1024].mean() * 1e3, f.fct_s.mean() * 1e3


for title, p, d in PAIRS:
    print(f"\n{title}\n{'workload':12s} {'load':>5s} {'PIAS':>15s} {'DCTCP':>15s} {'change':>18s}")
    for (cdf, load), runs in sorted(rows.items()):
        if p not in runs or d not in runs:
            continue
        x, y = fct(runs[p]), fct(runs[d])
        print(f"{cdf:12s} {load:5.1f} {x[0]:6.3f} / {x[1]:6.2f} {y[0]:6.3f} / {y[1]:6.2f} "
              f"{x[0] / y[0] - 1:+7.1%} / {x[1] / y[1] - 1:+7.1%}")
