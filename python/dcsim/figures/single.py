"""Figures of one run (a time series, a histogram), as the paper draws
some: pFabric Fig. 5(a) (per-flow throughput over time) and Fig. 13 (loss
rate by priority). Like the sweep figures they run through the results
store (resumable, reported), their statements are checked, and
`dcsim reproduce` draws them."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..errors import SpecError

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class RunData:
    """A finished run's tables."""

    flows: "pd.DataFrame"
    flow_samples: "pd.DataFrame"
    queues: "pd.DataFrame"
    summary: dict
    #: every switch's buffer over time (shared buffers only)
    buffers: "pd.DataFrame" = None

    @staticmethod
    def load(directory: Path) -> "RunData":
        import pandas as pd

        def table(name: str) -> "pd.DataFrame":
            p = directory / f"{name}.parquet"
            return pd.read_parquet(p) if p.is_file() else pd.DataFrame()

        summary = json.loads((directory / "summary.json").read_text())
        return RunData(table("flows"), table("flow_samples"), table("queues"), summary, table("buffers"))


@dataclass(frozen=True)
class Statement:
    """What the paper says of one statistic of the run: a range it lies in."""

    where: str
    stat: str
    low: float = -math.inf
    high: float = math.inf
    claim: str = ""

    def check(self, value: float) -> str:
        if not math.isfinite(value):
            return "no data"
        return "consistent" if self.low <= value <= self.high else "differs"


@dataclass(frozen=True)
class RunFigure:
    name: str
    title: str
    source: str
    description: str
    base: dict
    #: dotted fields per mode
    quick: dict
    full: dict
    #: the run's statistics, by name (what the statements and the CSV hold)
    stats: Callable[[RunData], dict]
    #: the matplotlib figure
    draw: Callable[[RunData, "RunFigure"], Any]
    paper: tuple = field(default_factory=tuple)
    notes: str = ""

    def sweep(self, mode: str):
        from ..spec import apply_overrides
        from ..sweep import Sweep

        if mode not in ("quick", "full"):
            raise SpecError(f"mode must be quick or full, got {mode!r}")
        base = apply_overrides(json.loads(json.dumps(self.base)), dict(self.quick if mode == "quick" else self.full))
        return Sweep(name=f"{self.name}-{mode}", base=base, grid={"seed": [base.get("seed", 1)]})

    def reproduce(self, out: Path, mode: str, redraw: bool = False, **run):
        import matplotlib

        matplotlib.use("Agg")
        import pandas as pd

        from ..results import load_points, point_dir
        from ..runner import sweep_result

        result = sweep_result(self.sweep(mode), out, redraw=redraw, **run)
        points = load_points(out)
        if not points:
            raise SpecError(f"{out}: the run did not complete")
        data = RunData.load(point_dir(out, points[0]["point"]["key"]))
        stats = self.stats(data)
        table = pd.DataFrame([{"stat": k, "value": v} for k, v in stats.items()])
        save(self, out, mode, stats, table, self.draw(data, self), len(result.points) - len(result.failed),
             result.failed)
        return result, table


def run_points(fig, out: Path, mode: str, redraw: bool = False, **run) -> tuple[Any, dict]:
    """Run (or resume) the figure's sweep into `out` with matplotlib off
    screen; its result and each complete point's parameters and directory
    (`{key: (params, directory)}`), or a clear error when none completed."""
    import matplotlib

    matplotlib.use("Agg")
    from ..results import load_points, point_dir
    from ..runner import sweep_result

    result = sweep_result(fig.sweep(mode), out, redraw=redraw, **run)
    points = {p["point"]["key"]: (p["point"]["params"], point_dir(out, p["point"]["key"])) for p in load_points(out)}
    if not points:
        raise SpecError(f"{out}: no run completed")
    return result, points


def save(fig, out: Path, mode: str, stats: dict, table, figure, complete: int, failed: list) -> None:
    """Write a figure of named statistics (one run, or a model): its table,
    its drawing (PNG and SVG) and figure.json with each of the paper's
    statements beside our value."""
    from .core import drawn_by, save_images

    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / f"{fig.name}.csv", index=False)
    figure.suptitle(fig.title, fontsize=11, wrap=True)
    images = save_images(figure, out / fig.name, fig.name, mode)
    paper = [{
        "where": s.where, "facet": "run", "panel": s.stat, "series": s.stat, "claim": s.claim,
        "paper_range": [s.low if math.isfinite(s.low) else None, s.high if math.isfinite(s.high) else None],
        "relative_to": None, "ours": {"": stats.get(s.stat, math.nan)},
        "verdict": s.check(stats.get(s.stat, math.nan)),
    } for s in fig.paper]
    info = {
        "figure": fig.name, "mode": mode, "title": fig.title, "source": fig.source,
        "description": fig.description, "notes": fig.notes, "table": f"{fig.name}.csv",
        "images": [p.name for p in images], "drawn_by": drawn_by(fig.name, mode), "panels": [{"key": k, "title": k} for k in stats],
        "paper": paper, "complete_points": complete, "failed_points": failed,
    }
    (out / "figure.json").write_text(json.dumps(info, indent=2, default=float) + "\n")


# ---- pFabric Fig. 5(a) -----------------------------------------------------


def throughput_over_time(data: RunData) -> "pd.DataFrame":
    """Per-flow throughput (Gb/s) in each sampling interval."""
    fs = data.flow_samples.sort_values(["flow_id", "time_s"])
    g = fs.groupby("flow_id")
    return fs.assign(gbps=g.delivered_bytes.diff() * 8 / g.time_s.diff() / 1e9).dropna()


def fig5a_stats(data: RunData) -> dict:
    f = data.flows
    wire = (f.size_bytes + (f.size_bytes / 1460).apply(math.ceil) * 40).sum()
    best_ms = wire * 8 / 10e9 * 1e3
    tp = throughput_over_time(data)
    # one flow at a time: the share of intervals in which one flow gets most of the link
    per_t = tp.groupby("time_s").gbps
    top_share = (per_t.max() / per_t.sum().clip(lower=1e-9)).median()
    return {
        "last_finish_ms": float(f.finish_s.max() * 1e3),
        "excess_over_best_us": float(f.finish_s.max() * 1e6 - best_ms * 1e3),
        "median_share_of_the_busiest_flow": float(top_share),
    }


def fig5a_draw(data: RunData, fig: RunFigure):
    import matplotlib.pyplot as plt

    tp = throughput_over_time(data)
    figure, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    for i, (flow, g) in enumerate(tp.groupby("flow_id")):
        ax.plot(g.time_s * 1e3, g.gbps, label=f"flow {i + 1}", lw=1.2)
    ax.set_xlabel("Time (ms)")
    ax.set_ylabel("Throughput (Gb/s)")
    ax.set_ylim(0, 10.5)
    ax.grid(alpha=0.3)
    figure.legend(loc="outside lower center", ncol=5, fontsize=8, frameon=False)
    return figure


# ---- pFabric Fig. 13 ----------------------------------------------------------


def fig13_table(data: RunData) -> "pd.DataFrame":
    import pandas as pd

    pl = data.summary["prio_losses"]
    rows = []
    for place in ("host_nic", "last_hop"):
        i = pl["places"].index(place)
        for b, (a, d) in enumerate(zip(pl["arrivals"][i], pl["drops"][i])):
            if a:
                lo = 0 if b == 0 else 2 ** (b - 1)
                rows.append({"place": place, "bucket": b, "from_pkts": lo, "arrivals": a, "drops": d,
                             "loss_rate": d / a})
    return pd.DataFrame(rows)


def fig13_stats(data: RunData) -> dict:
    t = fig13_table(data)
    out = {}
    for place in ("host_nic", "last_hop"):
        p = t[t.place == place]
        # buckets are powers of two: 2048 packets is the edge closest below the paper's 3000
        big = p[p.from_pkts >= 2048]
        out[f"{place}_share_of_drops_from_2048_pkts"] = float(big.drops.sum() / max(p.drops.sum(), 1))
        out[f"{place}_loss_rate"] = float(p.drops.sum() / max(p.arrivals.sum(), 1))
    return out


def fig13_draw(data: RunData, fig: RunFigure):
    import matplotlib.pyplot as plt

    t = fig13_table(data)
    figure, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    for place, label, marker in (("host_nic", "first hop (source NIC)", "o"),
                                 ("last_hop", "last hop (destination access link)", "s")):
        p = t[(t.place == place) & (t.from_pkts > 0)]
        ax.plot(p.from_pkts, 100 * p.loss_rate, marker=marker, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("Priority number (remaining packets, bucket start)")
    ax.set_ylabel("Loss rate (%)")
    ax.axvline(3000, color="gray", ls=":", lw=0.9)
    ax.set_title("paper: almost all losses are of flows with more than 3000 packets left (dotted)", fontsize=8.5)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return figure
