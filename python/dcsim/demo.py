"""`make demo`: a real paper experiment in quick mode.

pFabric (SIGCOMM'13) §5.4.1, Figs. 8-9, TCP-DropTail curve: normalized FCT
(slowdown) of TCP-DropTail on the 144-host leaf-spine versus load, for the
web search and data mining workloads, broken down by flow size as the paper
does: (0,100KB] mean and 99th percentile, (100KB,10MB] mean, (10MB,inf) mean,
and the overall mean (Fig. 7). Quick mode runs fewer flows than the paper's
100,000 per point, so the large-flow bin is noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from .metrics import slowdown_by_size
from .simulate import run
from .spec import Spec

PANELS = [
    ("(0B, 100KB]", "mean", "(0, 100KB]: average"),
    ("(0B, 100KB]", "p99", "(0, 100KB]: 99th percentile"),
    ("(100KB, 10MB]", "mean", "(100KB, 10MB]: average"),
    ("(10MB, inf]", "mean", "(10MB, inf): average"),
    ("all", "mean", "all flows: average"),
]


def point(args: tuple[str, float, int, int]) -> dict:
    workload, load, flows, seed = args
    spec = Spec.model_validate(
        {
            "name": f"tcp-{workload}-{load}",
            "seed": seed,
            "topology": {"kind": "leaf_spine"},
            "scheme": {"name": "tcp"},
            "workload": {"cdf": workload, "load": load, "flows": flows},
        }
    )
    df = run(spec)
    table = slowdown_by_size(df)
    s = df.attrs["summary"]
    row = {"workload": workload, "load": load, "flows": len(df), "wall_s": s["wall_time_s"],
           "drop_rate": s["counters"]["dropped_pkts"] / max(s["counters"]["data_pkts"], 1)}
    for b, stat, _ in PANELS:
        row[f"{b} {stat}"] = float(table.loc[b, stat])
    return row


def plot(results: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(dict.fromkeys(results.workload))
    fig, axes = plt.subplots(len(workloads), len(PANELS), figsize=(3.2 * len(PANELS), 2.9 * len(workloads)),
                             squeeze=False, constrained_layout=True)
    for r, w in enumerate(workloads):
        sub = results[results.workload == w].sort_values("load")
        for c, (b, stat, title) in enumerate(PANELS):
            ax = axes[r][c]
            ax.plot(sub.load, sub[f"{b} {stat}"], marker="o", color="tab:red", label="TCP-DropTail (dcsim)")
            ax.set_title(f"{w.replace('_', ' ')}\n{title}", fontsize=9)
            ax.set_xlabel("Load")
            if c == 0:
                ax.set_ylabel("Normalized FCT")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("pFabric Figs. 8-9 (TCP-DropTail), quick mode", fontsize=11)
    fig.savefig(path.with_suffix(".png"), dpi=130)
    fig.savefig(path.with_suffix(".svg"))
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="out/demo")
    p.add_argument("--flows", type=int, default=2500, help="flows per point (paper: 100,000)")
    p.add_argument("--loads", default="0.2,0.4,0.6,0.8")
    p.add_argument("--workloads", default="web_search,data_mining")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    points = [(w, float(l), a.flows, 1) for w in a.workloads.split(",") for l in a.loads.split(",")]
    print(f"dcsim demo: {len(points)} simulations of {a.flows} flows on {a.jobs} core(s) ...", file=sys.stderr)
    t0 = time.perf_counter()
    rows = []
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for i, row in enumerate(pool.map(point, points), 1):
            rows.append(row)
            print(f"  [{i}/{len(points)}] {row['workload']} load {row['load']}: overall mean slowdown "
                  f"{row['all mean']:.2f} ({row['wall_s']:.1f} s)", file=sys.stderr)
    results = pd.DataFrame(rows)
    results.to_csv(out / "results.csv", index=False)
    plot(results, out / "tcp_slowdown_vs_load")
    (out / "README.txt").write_text(
        "pFabric Figs. 8-9, TCP-DropTail curve, quick mode\n"
        f"{a.flows} flows per point (the paper uses 100,000); seed 1\n"
        "results.csv: one row per (workload, load); tcp_slowdown_vs_load.png/.svg: the plot\n"
    )
    print(results.round(3).to_string(index=False))
    print(f"wrote {out / 'tcp_slowdown_vs_load.png'} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(json.dumps({"plot": str(out / "tcp_slowdown_vs_load.png")}))


if __name__ == "__main__":
    main()
