"""The estimator against dcsim's exact run on the same flows: mean and
99th-percentile slowdown per size bin, their errors, and both wall times
(docs/estimator.md's tables).

    python -m dcsim.estimate.accuracy [--topology leaf_spine|leaf_spine_6144|clos] [--cdf web_search|data_mining]
        [--scheme dctcp] [--load 0.5] [--flows 20000] [--workers N] [--no-cluster] [--seed 1]
    python -m dcsim.estimate.accuracy --grid OUT.csv [--plot OUT.png] [--topology ...] [--flows N] [--workers N]

`--workers 0` estimates in this process (no Dask); the exact run always
runs in this process, on one core. `--grid` runs the issue's table
(`GRID`: web search and data mining, loads 0.3 / 0.5 / 0.7, DCTCP, TCP
and pFabric, on the fabrics named by `--topology`, all three by
default), appending each point's rows to OUT.csv as it finishes (a point
already there is not run again: a stopped grid resumes), and prints the
table with the median error over it."""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from ..metrics import PAPER_BINS

#: the fabrics of the table (issue 53): the papers' 144 hosts, 6,144 hosts
#: as a leaf-spine (384 leaves of 16, 4 spines: `bench_scale`'s) and as
#: Parsimon's three-tier cluster
FABRICS = {"leaf_spine": {"kind": "leaf_spine"},
           "leaf_spine_6144": {"kind": "leaf_spine", "leaves": 384, "hosts_per_leaf": 16, "spines": 4},
           "clos": {"kind": "clos"}}
#: the table's other axes
GRID = {"cdf": ("web_search", "data_mining"), "load": (0.3, 0.5, 0.7), "scheme": ("dctcp", "tcp", "pfabric")}
#: the grid's flows by workload: data mining's mean flow is 4.5 times web
#: search's, so a quarter as many flows move about the same bytes (37 and
#: 33 GB) and each point costs about the same
GRID_FLOWS = {"web_search": 20000, "data_mining": 5000}


def point_spec(topology: str, cdf: str, scheme: str, load: float, flows: int, seed: int) -> dict:
    return {"seed": seed, "topology": FABRICS[topology], "routing": {"load_balancing": "ecmp"},
            "scheme": {"name": scheme}, "workload": {"cdf": cdf, "load": load, "flows": flows}}


def compare(spec: dict, workers=None, cluster: bool = True, passes=None) -> dict:
    """Estimate and run `spec` (a dict); per size bin of the papers, the
    mean and 99th-percentile slowdowns and their relative errors, and the
    wall times."""
    import dcsim
    from dcsim.spec import spec_from_dict

    from . import estimate

    t = time.perf_counter()
    e = estimate(spec_from_dict(spec), workers=workers, cluster=cluster, passes=passes)
    t_est = time.perf_counter() - t
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        exact = dcsim.run_all(spec_from_dict(spec)).flows.set_index("flow_id")
        t_exact = time.perf_counter() - t
    est = e.flows.set_index("flow_id").slowdown.loc[exact.index]
    rows = []
    for lo, hi in zip(PAPER_BINS[:-1], PAPER_BINS[1:]):
        m = ((exact.size_bytes > lo) & (exact.size_bytes <= hi)).to_numpy()
        if not m.any():
            continue
        x, y = exact.slowdown[m], est[m]
        rows.append({"bin": (lo, hi), "flows": int(m.sum()), "exact_mean": x.mean(), "est_mean": y.mean(),
                     "mean_err": y.mean() / x.mean() - 1, "exact_p99": x.quantile(0.99), "est_p99": y.quantile(0.99),
                     "p99_err": y.quantile(0.99) / x.quantile(0.99) - 1})
    return {"rows": rows, "estimate_s": t_est, "exact_s": t_exact, "summary": e.summary["estimate"]}


def _size(b: float) -> str:
    if not np.isfinite(b):
        return "inf"
    return f"{b / 1e6:g}MB" if b >= 1e6 else f"{b / 1e3:g}KB"


def _print_point(title: str, r: dict) -> None:
    s = r["summary"]
    print(f"{title}: {s['links_simulated']:,} of {s['links_shared']:,} shared links simulated; estimate "
          f"{r['estimate_s']:.1f} s ({s['workers']} workers), exact {r['exact_s']:.1f} s "
          f"({r['exact_s'] / r['estimate_s']:.2f}x)")
    print("| size | flows | mean exact | mean est. | error | p99 exact | p99 est. | error |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in r["rows"]:
        lo, hi = row["bin"]
        print(f"| {_size(lo)}-{_size(hi)} | {row['flows']:,} | {row['exact_mean']:.3f} | {row['est_mean']:.3f} | "
              f"{row['mean_err']:+.1%} | {row['exact_p99']:.3f} | {row['est_p99']:.3f} | {row['p99_err']:+.1%} |")


def grid(out, topologies, flows: int | None, seed: int, workers, passes=None) -> None:
    """Every point of `GRID` on `topologies` not yet in the CSV `out`,
    appended as it finishes (one line per size bin); `flows` None takes
    `GRID_FLOWS`."""
    import itertools
    from pathlib import Path

    import pandas as pd

    out = Path(out)
    done = pd.read_csv(out) if out.exists() else None
    key = ["topology", "cdf", "scheme", "load"]
    have = set() if done is None else set(map(tuple, done[key].astype(str).to_numpy().tolist()))
    for topo, cdf, load, scheme in itertools.product(topologies, GRID["cdf"], GRID["load"], GRID["scheme"]):
        if (topo, cdf, scheme, str(load)) in have:
            continue
        n = flows or GRID_FLOWS[cdf]
        r = compare(point_spec(topo, cdf, scheme, load, n, seed), workers, passes=passes)
        _print_point(f"{topo}, {cdf}, {scheme}, load {load}, {n:,} flows, seed {seed}", r)
        s = r["summary"]
        rows = [{"topology": topo, "cdf": cdf, "scheme": scheme, "load": load, "flows_run": n, "seed": seed,
                 "bin_lo": row["bin"][0], "bin_hi": row["bin"][1],
                 **{k: row[k] for k in ("flows", "exact_mean", "est_mean", "mean_err", "exact_p99", "est_p99",
                                        "p99_err")},
                 "estimate_s": r["estimate_s"], "exact_s": r["exact_s"], "links_simulated": s["links_simulated"],
                 "links_shared": s["links_shared"]} for row in r["rows"]]
        pd.DataFrame(rows).to_csv(out, mode="a", header=not out.exists(), index=False)
    table(pd.read_csv(out))


def table(df) -> None:
    """The grid as docs/estimator.md shows it: a line per point (p99 and
    mean errors by size bin, both wall times), then the medians."""
    print("| fabric | workload | scheme | load | p99 error by size (<100KB / 100KB-10MB / >10MB) | mean error (same) "
          "| estimate / exact, s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (topo, cdf, scheme, load), g in df.groupby(["topology", "cdf", "scheme", "load"], sort=False):
        p99 = " / ".join(f"{x:+.0%}" for x in g.p99_err)
        mean = " / ".join(f"{x:+.0%}" for x in g.mean_err)
        print(f"| {topo} | {cdf} | {scheme} | {load} | {p99} | {mean} | {g.estimate_s.iloc[0]:.0f} / "
              f"{g.exact_s.iloc[0]:.0f} |")
    print("| points | loads | median \\|p99 error\\| | median p99 error (bias) | bins within 10% (p99) "
          "| median \\|mean error\\| |")
    print("| --- | --- | --- | --- | --- | --- |")
    for who, rows in (("all", df), *((s, df[df.scheme == s]) for s in dict.fromkeys(df.scheme))):
        for name, part in (("up to 0.5", rows[rows.load <= 0.5]), ("all", rows)):
            if len(part):
                print(f"| {who} | {name} | {part.p99_err.abs().median():.1%} | {part.p99_err.median():+.1%} | "
                      f"{(part.p99_err.abs() <= 0.1).mean():.0%} | {part.mean_err.abs().median():.1%} |")


def plot(df, out) -> None:
    """The grid as a picture: each point's and size bin's 99th-percentile
    slowdown, estimated against exact, a panel per fabric, a colour per
    scheme, a marker per size bin; the diagonal and its 10% band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fabrics = list(dict.fromkeys(df.topology))
    fig, axes = plt.subplots(1, len(fabrics), figsize=(4.2 * len(fabrics), 4.4), squeeze=False, layout="constrained")
    colors = {"dctcp": "tab:blue", "tcp": "tab:red", "pfabric": "tab:green"}
    markers = dict(zip(sorted(set(df.bin_lo)), "o^s"))
    lo, hi = min(df.exact_p99.min(), df.est_p99.min()) / 1.2, max(df.exact_p99.max(), df.est_p99.max()) * 1.2
    for ax, topo in zip(axes[0], fabrics):
        g = df[df.topology == topo]
        ax.fill_between([lo, hi], [lo / 1.1, hi / 1.1], [lo * 1.1, hi * 1.1], color="0.9", label="within 10%")
        ax.plot([lo, hi], [lo, hi], color="0.5", lw=0.8)
        for (scheme, b), h in g.groupby(["scheme", "bin_lo"]):
            ax.scatter(h.exact_p99, h.est_p99, s=22, color=colors.get(scheme, "k"), marker=markers[b],
                       alpha=0.8, label=f"{scheme}, {_size(b)}-{_size(h.bin_hi.iloc[0])}")
        ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi), xlabel="p99 slowdown, exact run",
               title=f"{topo} ({g.groupby(['cdf', 'scheme', 'load']).ngroups} points)")
        ax.grid(alpha=0.3, which="both", lw=0.4)
    axes[0][0].set_ylabel("p99 slowdown, estimate")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=5, fontsize=7)
    fig.suptitle("dcsim estimate against the exact run: 99th-percentile slowdown per size bin "
                 "(web search and data mining, loads 0.3 / 0.5 / 0.7)", fontsize=9)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="The decomposed estimate against the exact run (docs/estimator.md).")
    ap.add_argument("--topology", default=None, choices=sorted(FABRICS), action="append",
                    help="a fabric (repeat for several; --grid: all three by default, else leaf_spine)")
    ap.add_argument("--cdf", default="web_search")
    ap.add_argument("--scheme", default="dctcp")
    ap.add_argument("--load", type=float, default=0.5)
    ap.add_argument("--flows", type=int, default=None,
                    help="flows a point (default 20,000; --grid: 20,000 web search, 5,000 data mining)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None, help="Dask workers (default: one per core; 0: none)")
    ap.add_argument("--no-cluster", dest="cluster", action="store_false")
    ap.add_argument("--passes", type=int, default=None, help="the estimator's passes (default: its own, 3)")
    ap.add_argument("--grid", metavar="OUT.csv", help="run the issue's table, appending to OUT.csv (resumable)")
    ap.add_argument("--plot", metavar="OUT.png", help="with --grid: draw the table (estimate against exact)")
    a = ap.parse_args(argv)
    if a.grid:
        grid(a.grid, a.topology or list(FABRICS), a.flows, a.seed, a.workers, a.passes)
        if a.plot:
            import pandas as pd

            plot(pd.read_csv(a.grid), a.plot)
        return
    [topo] = a.topology or ["leaf_spine"]
    flows = a.flows or 20000
    r = compare(point_spec(topo, a.cdf, a.scheme, a.load, flows, a.seed), a.workers, a.cluster, a.passes)
    _print_point(f"{topo}, {a.cdf}, {a.scheme}, load {a.load}, {flows:,} flows, seed {a.seed}", r)


if __name__ == "__main__":
    main()
