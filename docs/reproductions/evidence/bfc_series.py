"""A BFC figure's series, as the figure runs them or with fields changed,
under one or more seeds (docs/reproductions/bfc.md: the seed checks of
Figs. 10, 11(a), 11(b) and 16(a); ACKs first (Figs. 9-11 and 20); the
BFC co-author's DCTCP and HPCC settings; DCQCN's settings and ns3-rdma's
DCQCN; ExpressPass at full scale and where its credits went; the other
"same flows, one field changed" checks the page cites with this script).

Runs the figure's own set-up (`--full`: the paper's flows; otherwise its
quick mode) with only the series given, for each seed, and prints per
seed and series: the short flows' 99th-percentile slowdown (the median
over the size bins up to 3 KB of each bin's p99), the long flows' mean
slowdown (the largest bin: the largest 5% of flows), the incast flows'
mean and 99th-percentile slowdown where the set-up has incasts (BFC reports them apart,
App. A.12), the fraction of time a switch port was paused (PFC), then
each series against the first: the ratios of the short p99 (the median
over the bins up to 3 KB of the per-bin ratio, as the figures' statements
compare them), of the long mean and of the incast flows' p99. With `--counters`, the run's packet
counters too, and for ExpressPass where its credits went: dropped at a
credit queue, delivered after the flow ended, and (about) wasted, the
credits that reached a sender with no data left, counted as the credits
sent less those dropped, those late and one per data packet (a flow's
credit request and CREDIT_STOP are not data: two per flow taken off).
With `--statements`, the figure's own statement values computed on these
runs, as `dcsim reproduce` computes them: a series given the name of the
figure's own (`hpcc=hpcc:buffer.acks_high_priority=true`) stands in for
it.

A SERIES is one of the figure's variants (`bfc`, `hpcc`, ...), or a
variant with fields changed: `NAME=VARIANT:FIELD=VALUE,FIELD=VALUE`,
fields as `dcsim run --set` takes them, e.g.
`hpcc_acks=hpcc:buffer.acks_high_priority=true` or
`dctcp_coauthor=dctcp:scheme.rai_mbps=1000,scheme.min_rate_mbps=100`.

Time at full scale on this project's VM, one core a run: Google (Figs. 9
and 10, 750,000 flows) 10-25 s a run for BFC, HPCC, DCQCN and DCTCP, a
few minutes for ExpressPass; Facebook Hadoop (Figs. 11(a)/(b), 100,000
flows) 20-60 s; Fig. 16(a) a few minutes.

Usage: .venv/bin/python docs/reproductions/evidence/bfc_series.py OUT FIGURE SERIES... [--seeds 1 2 3] [--full] [--counters] [--statements] [--jobs N]
  e.g. bfc_series.py OUT bfc-fig10 bfc hpcc --seeds 1 2 3 --full
       (OUT keeps the runs: run it again to print without running)"""

import argparse
import dataclasses
import math
from pathlib import Path

import numpy as np
from _points import series

from dcsim.figures.bfc.by_size import _ratio, _short_long, by_size_table, mark_incasts
from dcsim.figures.core import get
from dcsim.figures.single import RunData
from dcsim.results import load_points, point_dir
from dcsim.runner import run_sweep

ap = argparse.ArgumentParser(description="A BFC figure's series, with fields changed, under seeds.")
ap.add_argument("out", type=Path)
ap.add_argument("figure")
ap.add_argument("series", nargs="+")
ap.add_argument("--seeds", type=int, nargs="+", default=[1])
ap.add_argument("--full", action="store_true", help="the paper's flows (default: the figure's quick mode)")
ap.add_argument("--counters", action="store_true", help="the runs' packet counters, and ExpressPass's credits")
ap.add_argument("--statements", action="store_true",
                help="also the figure's own statement values, computed on these runs (a series named as the "
                "figure's, e.g. hpcc=hpcc:FIELD=VALUE, stands in for it; the figure's other series must be given)")
ap.add_argument("--jobs", type=int)
a = ap.parse_args()

fig = get(a.figure)
variants = dict(series(fig.variants, s) for s in a.series)
names = list(variants)
sweep = fig.sweep("full" if a.full else "quick")
sweep = dataclasses.replace(sweep, name=f"{a.figure}-series", variants=variants,
                            grid={"variant": names, "seed": list(a.seeds)})
run_sweep(sweep, a.out, jobs=a.jobs, caveats=False)

by_seed: dict[int, dict] = {}
# by this sweep's own names: a point run before under another name (the
# same spec) keeps that name in its summary
named = {p.key: p.params for p in sweep.points()}
for p in load_points(a.out):
    params = named[p["point"]["key"]]
    by_seed.setdefault(params["seed"], {})[params["variant"]] = RunData.load(point_dir(a.out, p["point"]["key"]))
first = names[0]
print(f"{a.figure} ({'full' if a.full else 'quick'})")
for seed, runs in sorted(by_seed.items()):
    if set(runs) != set(names):
        continue
    mark_incasts(runs)
    t = by_size_table(runs)
    incasts = any(r.flows.incast.any() for r in runs.values())
    print(f"seed {seed}: short p99 / long mean{' / incast mean, p99' if incasts else ''} / ports paused; "
          f"against {first}: short p99, long mean{', incast p99' if incasts else ''}")
    for v in names:
        f, c = runs[v].flows, runs[v].summary["counters"]
        incast = f.slowdown[f.incast]
        paused = runs[v].summary.get("pfc", {}).get("paused_fraction_mean", math.nan)
        line = (f"  {v:24s} {float(np.median(_short_long(t, v, 'p99', True, 3000))):7.2f} "
                f"/ {float(_short_long(t, v, 'mean', False, 0).iloc[0]):6.2f}"
                + (f" / {incast.mean():6.2f}, {incast.quantile(0.99):6.2f}" if incasts else "") + f" / {paused:6.2%}")
        if v != first:
            line += (f";  {_ratio(t, v, first, 'p99', True, 3000):5.2f}x, "
                     f"{_ratio(t, v, first, 'mean', False, 0):5.2f}x")
            if incasts:
                base = runs[first].flows
                line += f", {incast.quantile(0.99) / base.slowdown[base.incast].quantile(0.99):5.2f}x"
        print(line)
        if a.counters:
            print("      " + ", ".join(f"{k} {n:,}" for k, n in c.items() if n))
            if "bfc" in runs[v].summary:
                b = runs[v].summary["bfc"]
                print(f"      BFC queue assignments {b['assignments']:,}, collisions {b['collisions']:,}")
            if c.get("credit_pkts"):
                sent = c["credit_pkts"]
                data = c["data_pkts"] - 2 * c["flows_started"]
                wasted = sent - c["dropped_pkts"] - c["stale_pkts"] - data
                print(f"      credits: {c['dropped_pkts'] / sent:.1%} dropped, {c['stale_pkts'] / sent:.1%} "
                      f"after the flow's end, about {wasted / sent:.1%} wasted")
    if a.statements:
        try:
            values = fig.stats((fig.tabulate or by_size_table)(runs), runs)
        except KeyError as e:
            raise SystemExit(f"{a.figure}'s statements need its series {e} too")
        print("  the figure's statement values:")
        for k, x in values.items():
            print(f"    {k:44s} {x:.3f}" if isinstance(x, float) else f"    {k:44s} {x}")
