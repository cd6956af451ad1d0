"""A PIAS figure's series, as the figure runs them or with fields changed,
on some of its points, under one or more seeds (docs/reproductions/
pias.md, the testbed model's sections: the ACK pattern's size and hold
("The testbed model": offload), "What offload moved", TSO-sized bursts
and the six seeds of web search's short flows, data mining by size band
and over six seeds, TCP's window law ("TCP's choices"), the starvation
count (§III) and its ACK pattern, and Fig. 12 with per-queue marking,
over seeds and with non-ECT drops; each place says which command).

Runs the figure's set-up (`--full`: its full mode, 10,000 flows per
testbed point; otherwise its quick mode) with only the series given, on
the grid values `--where` keeps, for each seed, and prints per point
and series: the mean FCT (ms) of all flows, of short flows (<= 100 KiB)
with their 99th percentile, of medium (100 KiB-10 MiB) and large (> 10
MiB) flows, and where any flow is above 100 MB (data mining) the bands
10 MiB-100 MB and > 100 MB with their flow counts; the timeouts (the
flows with two or more, the short and medium flows with one), the
packets dropped and the share of data packets marked; then each series
against the first (`--each`: against every earlier one): the relative
change of each mean (and of the short flows' p99), negative where it is
faster, and with the bands, each band's part of the overall mean's
change in ms (the same flows in both runs).

A SERIES is one of the figure's variants (`pias`, `dctcp`, `tcp`,
`mismatch`, ...), or a variant with fields changed:
`NAME=VARIANT:FIELD=VALUE,FIELD=VALUE`, fields as `dcsim run --set`
takes them, e.g. `pias1=pias:scheme.ack_every=1` or
`perqueue=mismatch:scheme.ecn_scope=queue`.

Time on this project's VM, one core: a testbed point of 10,000 flows
(`--full`) takes 10-20 seconds a series in web search, about a minute in
data mining; `--flows 5000` about half that.

Usage: .venv/bin/python docs/reproductions/evidence/pias_series.py OUT FIGURE SERIES... [--where FIELD=VALUE]...
           [--seeds 1 2 3] [--flows N] [--full] [--each] [--jobs N]
  e.g. pias_series.py OUT pias-fig5-7 dctcp pias --where workload.cdf=data_mining --where workload.load=0.8 --full
       (--where keeps one value of a grid field, the facet's or the x axis'; repeat it for more values.
        OUT keeps the runs, whatever the figure: run it again to print without running)"""

import argparse
import dataclasses
from pathlib import Path

from _points import BAND_100MB, band_masks, bins, series
from dcsim.figures.core import get
from dcsim.figures.single import RunData
from dcsim.results import is_complete, point_dir
from dcsim.runner import run_sweep
from dcsim.spec import parse_value

ap = argparse.ArgumentParser(description="A PIAS figure's series, with fields changed, on some points, under seeds.")
ap.add_argument("out", type=Path)
ap.add_argument("figure")
ap.add_argument("series", nargs="+")
ap.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE",
                help="keep this value of a grid field (repeatable; several values of one field all kept)")
ap.add_argument("--seeds", type=int, nargs="+", default=[1])
ap.add_argument("--flows", type=int, help="flows per point (default: the mode's)")
ap.add_argument("--full", action="store_true", help="the figure's full mode (default: its quick mode)")
ap.add_argument("--each", action="store_true", help="each series against every earlier one, not only the first")
ap.add_argument("--jobs", type=int)
a = ap.parse_args()

fig = get(a.figure)
variants = dict(series(fig.variants, s) for s in a.series)
names = list(variants)
sweep = fig.sweep("full" if a.full else "quick")
grid = {**sweep.grid, "variant": names, "seed": list(a.seeds)}
keep: dict[str, list] = {}
for w in a.where:
    key, eq, value = w.partition("=")
    if not eq or key not in grid or key in ("variant", "seed"):
        raise SystemExit(f"--where {w}: not FIELD=VALUE of a grid field ({', '.join(k for k in grid if k not in ('variant', 'seed'))})")
    keep.setdefault(key, []).append(parse_value(value))
for key, values in keep.items():
    grid[key] = [v for v in grid[key] if v in values]
    if not grid[key]:
        raise SystemExit(f"--where: {key} takes {sweep.grid[key]} in this mode, not {values}")
base = sweep.base if a.flows is None else {**sweep.base, "workload": {**sweep.base["workload"], "flows": a.flows}}
# (one sweep name for every figure, so that one OUT keeps them all)
sweep = dataclasses.replace(sweep, name="pias-series", base=base, grid=grid, variants=variants)
if not all(is_complete(a.out, p.key) for p in sweep.points()):  # (printing again writes nothing)
    run_sweep(sweep, a.out, jobs=a.jobs, caveats=False)

fields = [k for k in grid if k not in ("variant", "seed")]
points: dict[tuple, dict] = {}
for p in sweep.points():  # (a point run before under another series' name keeps that name in its summary)
    if is_complete(a.out, p.key):
        group = tuple(p.params[k] for k in fields) + (p.params["seed"],)
        points.setdefault(group, {})[p.params["variant"]] = RunData.load(point_dir(a.out, p.key))


def stats(r: RunData) -> dict:
    f, c = r.flows, r.summary["counters"]
    m = band_masks(f.size_bytes)
    short, medium = m["<=100KB"], m["100KB-10MB"]
    s = {**bins(f), "timeouts": int(f.timeouts.sum()), "twice": int((f.timeouts >= 2).sum()),
         "drops": c["dropped_pkts"], "marked": c["marked_pkts"] / max(c["data_pkts"], 1),
         "unfinished": r.summary.get("unfinished_flows", 0),
         "short_to": (f.timeouts[short] > 0).mean(), "medium_to": (f.timeouts[medium] > 0).mean()}
    if (f.size_bytes > BAND_100MB).any():
        for band in ("10-100MB", ">100MB"):
            s[band], s[f"{band} flows"] = f.fct_s[m[band]].mean() * 1e3, int(m[band].sum())
    return s


MEANS = ("all", "short", "short_p99", "medium", "large", "10-100MB", ">100MB")
first = names[0]
print(f"{a.figure} ({'full' if a.full else 'quick'}{'' if a.flows is None else f', {a.flows:,} flows'}); FCT in ms")
for group, runs in sorted(points.items(), key=lambda kv: str(kv[0])):
    if set(runs) != set(names):
        continue
    print(", ".join(f"{k} = {v}" for k, v in zip(fields + ["seed"], group)))
    st = {v: stats(runs[v]) for v in names}
    for v in names:
        s = st[v]
        bands = "".join(f", {b} {s[b]:.1f} ({s[b + ' flows']})" for b in ("10-100MB", ">100MB") if b in s)
        print(f"  {v:22s} all {s['all']:.2f}, short {s['short']:.3f} (p99 {s['short_p99']:.3f}), "
              f"medium {s['medium']:.2f}, large {s['large']:.1f}{bands}; timeouts {s['timeouts']} "
              f"({s['twice']} flows with 2+; short flows with one {s['short_to']:.2%}, medium "
              f"{s['medium_to']:.1%}), drops {s['drops']:,}, marked {s['marked']:.1%}"
              + (f"; {s['unfinished']} flows unfinished" if s["unfinished"] else ""))
    for i, v in enumerate(names[1:], 1):
        for w in names[:i] if a.each else [first]:
            print(f"    {v} against {w}: " + ", ".join(
                f"{k} {st[v][k] / st[w][k] - 1:+.1%}" for k in MEANS if k in st[v] and k in st[w]))
            if ">100MB" in st[v]:
                # each band's part of the change of the overall mean (the same flows in both runs)
                f, f0 = runs[v].flows, runs[w].flows
                print("      the overall mean's change by band, ms: " + ", ".join(
                    f"{b} {(f.fct_s[m].sum() - f0.fct_s[band_masks(f0.size_bytes)[b]].sum()) * 1e3 / len(f0):+.2f}"
                    for b, m in band_masks(f.size_bytes).items()))
