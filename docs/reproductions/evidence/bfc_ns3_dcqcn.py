"""BFC Fig. 11(a) with incasts: DCQCN's long flows in the BFC co-author's
fork of the HPCC ns-3 simulator, and dcsim on the very same flows
(docs/reproductions/bfc.md, "DCQCN in the simulator, on the same flows":
its table, 28 ms of arrivals, and the paragraph on 20 ms of arrivals).

Usage: bfc_ns3_dcqcn.py [FCT_FILE ...]

With no argument: the fork's runs stored in peers/ (STORED below), read
as bfc_ns3_dctcp.py reads its own (its docstring: the stored outputs and
their provenance). Each FCT_FILE (plain, .xz or .gz) is the fork's
output (build: bfc_ns3_dctcp.py's docstring) for its
`mix/config.txt` with CC_MODE 1, CREATE_INCAST 1, UTILIZATION_FACTOR 0.6
(55% background and 5% incast in `simple.cc`), APP_STOP_TIME 1.028 (28
ms of arrivals: 100,823 background flows and 55 incasts of 100) or 1.020
(20 ms: 70,142 and 39 incasts, 74,042 flows), SIMULATOR_STOP_TIME 1.2,
and its DCQCN fields as shipped (HAS_WIN 1 and VAR_WIN 1, or 0 for the
runs without a window; for the 20 ms run "win100", the window with
KMIN_MAP/KMAX_MAP 100 and 400 KB at 100 Gb/s instead of 400 and 1600).
Incast flows are the 200,000 B flows that start together towards one
host (50 or more); long flows are the largest 5% of the others. The
script prints each ns-3 run's statistics, then, once for each distinct
set of flows (the stored 28 ms runs have the same ones, and the 20 ms
runs theirs), dcsim's on the same flows: `bfc`, `dcqcn` with its
defaults, with the fork's fields (window on, 400-1600 KB marking), with
those fields but no window, and with the window and 100-400 KB marking;
"/ BFC" is the long flows' mean over dcsim's BFC's on the same flows.
Last, for each stored ns-3 run, the median per-flow FCT ratio dcsim /
ns-3 against dcsim's run with the same fields, in each group of flows
(background, up to 3 KB, between 3 KB and the largest 5%, the largest
5%, incast). About 4 minutes of CPU in all from the stored outputs (ten
dcsim runs of 15-50 s; 4.3 minutes on 2026-11-29 on a 2-core machine
busy with other jobs).
"""

import re
import sys

import numpy as np
from bfc_ns3_dctcp import groups, run_on, stored

#: the fork's stored runs of Fig. 11(a) (evidence/peers/NAME/fct.txt.xz), in the page's table order
STORED = {
    "bfc-fig11a-dcqcn-fork": "ns-3 DCQCN, the fork's fields, window on",
    "bfc-fig11a-dcqcn-nowin": "ns-3 DCQCN, the fork's fields without the window",
    "bfc-fig11a-dcqcn-fork-20ms": "ns-3 DCQCN, the fork's fields, window on, 20 ms of arrivals",
    "bfc-fig11a-dcqcn-nowin-20ms": "ns-3 DCQCN, the fork's fields without the window, 20 ms of arrivals",
    "bfc-fig11a-dcqcn-win100-20ms": "ns-3 DCQCN, the fork's fields with 100-400 KB marking, 20 ms of arrivals",
}
FORK = {"window": "rate", "increase_interval_us": 900.0, "ai_mbps": 50.0, "hai_mbps": 100.0,
        "min_rate_mbps": 100.0, "kmin_kb": 400.0, "kmax_kb": 1600.0}
RUNS = [("dcqcn", "dcqcn", {}), ("dcqcn, the fork's fields", "dcqcn", FORK),
        ("dcqcn, the fork's fields without the window", "dcqcn", {**FORK, "window": "none"}),
        ("dcqcn, the fork's fields with 100-400 KB marking", "dcqcn", {**FORK, "kmin_kb": 100.0, "kmax_kb": 400.0})]
#: dcsim's run with the same fields as a stored ns-3 run (by the run's directory name: bfc-fig11a-dcqcn-KIND...)
SAME = {"fork": RUNS[1][0], "nowin": RUNS[2][0], "win100": RUNS[3][0]}


def long_mean(size, slowdown, incast) -> float:
    s, d = size[~incast], slowdown[~incast]
    return d[s >= s.quantile(0.95)].mean()


def stats(size, slowdown, incast, bfc: float) -> str:
    s, d = size[~incast], slowdown[~incast]
    long = long_mean(size, slowdown, incast)
    return (f"{len(s)} background flows, mean {d.mean():.3f}, largest 5% mean {long:.3f} (/ BFC {long / bfc:.2f}), "
            f"short (<= 3 KB) p99 {d[s <= 3000].quantile(0.99):.1f}; {int(incast.sum())} incast flows, "
            f"mean {slowdown[incast].mean():.1f}")


def incasts(f):
    """Which flows of the ns-3 run `f` are incast flows."""
    groups = f[f["size"] == 200_000].groupby(["start_ns", "dst"]).size()
    together = set(groups[groups >= 50].index)
    return f.apply(lambda r: r["size"] == 200_000 and (r.start_ns, r.dst) in together, axis=1).to_numpy()


def per_flow(g, d, incast) -> str:
    """The median per-flow FCT ratio dcsim / ns-3 (same flows, same order) in each group of flows."""
    ratio = d.fct_s.to_numpy() * 1e9 / g.fct_ns.to_numpy()
    size = g["size"].to_numpy()
    long = size >= np.quantile(size[~incast], 0.95)
    masks = {"background": ~incast, "<= 3 KB": ~incast & (size <= 3000),
             "3 KB to the largest 5%": ~incast & (size > 3000) & ~long, "largest 5%": ~incast & long,
             "incast": incast}
    return ", ".join(f"{name} {np.median(ratio[m]):.3f}" for name, m in masks.items())


def main(runs: list[tuple[str, str]]) -> None:
    for group in groups(runs):
        f = group[0][1]
        incast = incasts(f)
        b = run_on(f, "bfc-fig11a", "bfc")
        bfc = long_mean(b.size_bytes, b.slowdown, incast)
        for label, g in group:
            print(f"{label}\n  ns-3: {stats(g['size'], g.slowdown, incast, bfc)}")
        print(f"dcsim on the same {len(f)} flows:")
        print(f"  dcsim bfc: {stats(b.size_bytes, b.slowdown, incast, bfc)}")
        dcsim_runs = {}
        for label, variant, fields in RUNS:
            d = dcsim_runs[label] = run_on(f, "bfc-fig11a", variant, scheme=fields)
            print(f"  dcsim {label}: {stats(d.size_bytes, d.slowdown, incast, bfc)}")
        print("median per-flow FCT, dcsim / ns-3, with the same fields:")
        for label, g in group:
            kind = re.search(r"bfc-fig11a-dcqcn-([a-z0-9]+)", label)
            if kind and kind.group(1) in SAME:
                print(f"  {label.split(':')[0]} / dcsim {SAME[kind.group(1)]}: "
                      f"{per_flow(g, dcsim_runs[SAME[kind.group(1)]], incast)}")


if __name__ == "__main__":
    main([(p, p) for p in sys.argv[1:]] or stored(STORED))
