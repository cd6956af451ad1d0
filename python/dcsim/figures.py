"""The figure registry: each paper figure as a named entry, with its sweep,
how its panels are computed from the flows, how it is drawn, and what the
paper reports for it.

    dcsim list figures
    dcsim reproduce pfabric-fig8-9-tcp --quick --out out/fig8
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

from .bins import PAPER_BINS
from .errors import SpecError

if TYPE_CHECKING:
    import pandas as pd

    from .sweep import Sweep

# pandas, numpy and matplotlib are imported where a figure is computed or
# drawn, so that listing the registry (`dcsim list`) stays fast.


@dataclass(frozen=True)
class Panel:
    """One plot: a statistic of the slowdown in one size bin."""

    key: str  # short id, used in tables
    title: str
    bin: str  # a row of slowdown_by_size: "(0B, 100KB]", ..., "all"
    stat: str  # "mean" or "p99"
    ylabel: str = "Normalized FCT"
    logy: bool = False


@dataclass(frozen=True)
class PaperBound:
    """What the paper says about one panel, as a range its curve lies in."""

    where: str  # section / figure
    facet: Any
    panel: str  # Panel.key
    series: Any
    low: float = -math.inf
    high: float = math.inf
    claim: str = ""

    def check(self, values: Sequence[float]) -> str:
        inside = [self.low <= v <= self.high for v in values if math.isfinite(v)]
        if not inside:
            return "no data"
        if all(inside):
            return "consistent"
        return f"differs at {len(inside) - sum(inside)} of {len(inside)} points"


@dataclass(frozen=True)
class Mode:
    x_values: tuple
    flows: int
    seeds: tuple = (1,)


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    source: str
    description: str
    base: dict
    x: str  # spec field on the x axis
    xlabel: str
    facet: str  # spec field: one row of panels per value
    facets: tuple
    facet_labels: dict
    series: str  # spec field: one line per value
    series_values: tuple
    series_labels: dict
    panels: tuple
    quick: Mode
    full: Mode
    bins: tuple = PAPER_BINS
    paper: tuple = field(default_factory=tuple)
    notes: str = ""
    #: The paper's y-axis range of a panel, so our curves can be laid over
    #: the paper's: keyed by panel key, or "facet/panel key" where the
    #: facets differ. Panels the paper's text gives no range for autoscale.
    ylims: dict = field(default_factory=dict)

    def ylim(self, facet: Any, panel: str) -> Optional[tuple[float, float]]:
        return self.ylims.get(f"{facet}/{panel}", self.ylims.get(panel))

    def sweep(self, mode: str) -> Sweep:
        from .sweep import Sweep

        m = self.mode(mode)
        base = json.loads(json.dumps(self.base))
        base.setdefault("workload", {})["flows"] = m.flows
        grid = {
            self.facet: list(self.facets),
            self.series: list(self.series_values),
            self.x: list(m.x_values),
            "seed": list(m.seeds),
        }
        return Sweep(name=f"{self.name}-{mode}", base=base, grid=grid)

    def mode(self, mode: str) -> Mode:
        if mode not in ("quick", "full"):
            raise SpecError(f"mode must be quick or full, got {mode!r}")
        return self.quick if mode == "quick" else self.full


PFABRIC_PANELS = (
    Panel("small_mean", "(0, 100KB]: average", "(0B, 100KB]", "mean"),
    Panel("small_p99", "(0, 100KB]: 99th percentile", "(0B, 100KB]", "p99"),
    Panel("medium_mean", "(100KB, 10MB]: average", "(100KB, 10MB]", "mean"),
    Panel("large_mean", "(10MB, inf): average", "(10MB, inf]", "mean"),
    Panel("all_mean", "all flows: average (Fig. 7)", "all", "mean"),
)

REGISTRY: dict[str, Figure] = {}


def register(fig: Figure) -> Figure:
    REGISTRY[fig.name] = fig
    return fig


register(
    Figure(
        name="pfabric-fig8-9-tcp",
        title="pFabric Figs. 7-9: TCP-DropTail normalized FCT vs load",
        source="pFabric (SIGCOMM'13) §5.4.1, Figs. 7, 8 (web search) and 9 (data mining), TCP-DropTail curve",
        description=(
            "TCP-DropTail on the 144-host leaf-spine with packet spraying (qSize 225 KB, initCwnd 12, "
            "minRTO 200 us), Poisson arrivals, uniform random src/dst; normalized FCT by flow size."
        ),
        base={"topology": {"kind": "leaf_spine"}, "routing": {"load_balancing": "spray"}, "scheme": {"name": "tcp"}},
        x="workload.load",
        xlabel="Load",
        facet="workload.cdf",
        facets=("web_search", "data_mining"),
        facet_labels={"web_search": "Web search (Fig. 8)", "data_mining": "Data mining (Fig. 9)"},
        series="scheme.name",
        series_values=("tcp",),
        series_labels={"tcp": "TCP-DropTail"},
        panels=PFABRIC_PANELS,
        quick=Mode(x_values=(0.2, 0.4, 0.6, 0.8), flows=2500),
        full=Mode(x_values=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), flows=100_000),
        paper=(
            PaperBound("§5.4.1, Fig. 8 caption", "web_search", "small_p99", "tcp", low=10.0,
                       claim="TCP-DropTail's (0,100KB] 99th percentile is above the plotted range (0-10)"),
            PaperBound("§5.4.1, Fig. 9 caption", "data_mining", "small_p99", "tcp", low=10.0,
                       claim="TCP-DropTail's (0,100KB] 99th percentile is above the plotted range (0-10)"),
            PaperBound("Fig. 8(a)", "web_search", "small_mean", "tcp", high=10.0,
                       claim="TCP-DropTail's (0,100KB] average is drawn within the 0-10 axis"),
            PaperBound("Fig. 9(a)", "data_mining", "small_mean", "tcp", high=10.0,
                       claim="TCP-DropTail's (0,100KB] average is drawn within the 0-10 axis"),
        ),
        notes=(
            "The paper gives TCP-DropTail only as curves; the bounds above are what its axes and captions "
            "state. Quick mode runs 2,500 flows per point (the paper: 100,000), so the >10MB bin holds "
            "few flows and is noisy. Y ranges are the camera-ready Figs. 8-9's (0-10, web search large "
            "flows 0-25); the paper's text gives none for Fig. 7 or the medium bin. Points above a panel's "
            "range are drawn at its top edge with their value."
        ),
        ylims={
            "small_mean": (0, 10),
            "small_p99": (0, 10),
            "web_search/large_mean": (0, 25),
            "data_mining/large_mean": (0, 10),
        },
    )
)


def get(name: str) -> Figure:
    if name not in REGISTRY:
        raise SpecError(f"unknown figure {name!r} (see `dcsim list figures`: {', '.join(REGISTRY)})")
    return REGISTRY[name]


def _param(params: dict, field: str, spec: dict) -> Any:
    if field in params:
        return params[field]
    node: Any = spec
    for part in field.split("."):
        node = node[part]
    return node


def compute(fig: Figure, out: Path) -> pd.DataFrame:
    """One row per (facet, series, x): each panel's statistic, averaged over
    seeds, plus flows and wall time."""
    import pandas as pd

    from .metrics import slowdown_by_size
    from .runner import load_points, point_dir

    rows = []
    for s in load_points(out):
        params, spec = s["point"]["params"], s["spec"]
        flows = pd.read_parquet(point_dir(out, s["point"]["key"]) / "flows.parquet")
        table = slowdown_by_size(flows, bins=fig.bins)
        row = {
            "facet": _param(params, fig.facet, spec),
            "series": _param(params, fig.series, spec),
            "x": _param(params, fig.x, spec),
            "seed": s["seed"],
            "flows": len(flows),
            "unfinished": s["unfinished_flows"],
            "wall_s": s["wall_time_s"],
            "drop_rate": s["counters"]["dropped_pkts"] / max(s["counters"]["data_pkts"], 1),
        }
        for p in fig.panels:
            row[p.key] = float(table.loc[p.bin, p.stat]) if p.bin in table.index else math.nan
        rows.append(row)
    if not rows:
        raise SpecError(f"{out}: no complete points to draw")
    df = pd.DataFrame(rows)
    keys = ["facet", "series", "x"]
    agg = {p.key: "mean" for p in fig.panels} | {"flows": "sum", "unfinished": "sum", "wall_s": "sum",
                                                  "drop_rate": "mean", "seed": "count"}
    return df.groupby(keys, sort=False).agg(agg).rename(columns={"seed": "seeds"}).reset_index()


def compare(fig: Figure, table: pd.DataFrame) -> list[dict]:
    """Each paper statement next to our numbers."""
    out = []
    for b in fig.paper:
        sel = table[(table.facet == b.facet) & (table.series == b.series)].sort_values("x")
        ours = {float(x): float(v) for x, v in zip(sel.x, sel[b.panel])}
        out.append({
            "where": b.where,
            "facet": b.facet,
            "panel": b.panel,
            "series": b.series,
            "claim": b.claim,
            "paper_range": [b.low if math.isfinite(b.low) else None, b.high if math.isfinite(b.high) else None],
            "ours": ours,
            "verdict": b.check(list(ours.values())),
        })
    return out


def _bound_text(b: PaperBound, fig: Figure) -> str:
    name = fig.series_labels.get(b.series, b.series)
    if math.isfinite(b.low) and math.isfinite(b.high):
        return f"paper: {name} in [{b.low:g}, {b.high:g}]"
    return f"paper: {name} {'>' if math.isfinite(b.low) else '<'} {b.low if math.isfinite(b.low) else b.high:g}"


def plot(fig: Figure, table: pd.DataFrame, path: Path) -> list[Path]:
    """Draw the figure (see `draw`) to PNG and SVG beside `path`."""
    import matplotlib.pyplot as plt

    figure = draw(fig, table)
    paths = [path.with_suffix(".png"), path.with_suffix(".svg")]
    figure.savefig(paths[0], dpi=130)
    figure.savefig(paths[1])
    plt.close(figure)
    return paths


def draw(fig: Figure, table: pd.DataFrame):
    """The figure like the paper's: one row of panels per facet, one line
    per series, the paper's y range where it gives one. What the paper
    states about a panel goes in the panel's title (so no label sits on a
    line or a point) and its bound is drawn as a gray line; a point above
    the panel's range is drawn on the top edge as a triangle with its
    value. Returns the matplotlib figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    facets = [f for f in fig.facets if f in set(table.facet)]
    n_rows, n_cols = len(facets), len(fig.panels)
    figure, axes = plt.subplots(n_rows, n_cols, figsize=(3.2 * n_cols, 3.3 * n_rows), squeeze=False,
                                constrained_layout=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = "osD^vPX"
    for r, facet in enumerate(facets):
        for c, panel in enumerate(fig.panels):
            ax = axes[r][c]
            ylim = fig.ylim(facet, panel.key)
            for i, series in enumerate(fig.series_values):  # legend order as in the paper
                sel = table[(table.facet == facet) & (table.series == series)].sort_values("x")
                if sel.empty:
                    continue
                color = colors[i % len(colors)]
                ax.plot(sel.x, sel[panel.key], marker=markers[i % len(markers)], color=color,
                        label=f"{fig.series_labels.get(series, series)} (dcsim)")
                if ylim is not None:
                    # off the paper's scale: a triangle just inside the top
                    # edge (x in data, y in axes units) and the value below it
                    over = sel[sel[panel.key] > ylim[1]]
                    edge = ax.get_xaxis_transform()
                    ax.plot(over.x, [0.97] * len(over), ls="none", marker="^", ms=7, color=color,
                            transform=edge, zorder=5)
                    for x, v in zip(over.x, over[panel.key]):
                        ax.annotate(f"{v:.3g}", (x, 0.97), xycoords=edge, xytext=(0, -12),
                                    textcoords="offset points", ha="center", fontsize=7, color=color)
            claims = []
            for b in fig.paper:
                if b.facet == facet and b.panel == panel.key:
                    for y, style in ((b.low, "--"), (b.high, ":")):
                        if math.isfinite(y):
                            ax.axhline(y, color="gray", ls=style, lw=0.9, zorder=1)
                    claims.append(_bound_text(b, fig))
            title = f"{fig.facet_labels.get(facet, facet)}\n{panel.title}"
            ax.set_title("\n".join([title, *claims]), fontsize=8.5)
            ax.set_xlabel(fig.xlabel)
            if c == 0:
                ax.set_ylabel(panel.ylabel)
            if panel.logy:
                ax.set_yscale("log")
            elif ylim is not None:
                ax.set_ylim(*ylim)
            else:
                ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="upper left")
    figure.suptitle(fig.title, fontsize=11)
    return figure


COMPARISON_HEADERS = ["where", "panel", "paper", "dcsim (x: value)", "verdict"]


def comparison_rows(paper: list[dict]) -> list[list[str]]:
    """`figure.json`'s comparison with the paper as table rows: where the
    paper says it, the panel, the paper's range, our values, the verdict."""
    out = []
    for p in paper:
        lo, hi = p["paper_range"]
        rng = " and ".join(x for x in (None if lo is None else f">= {lo:g}", None if hi is None else f"<= {hi:g}")
                           if x) or "any"
        ours = ", ".join(f"{x:g}: {v:.2f}" for x, v in sorted((float(k), v) for k, v in p["ours"].items()))
        out.append([p["where"], f"{p['facet']} / {p['panel']}", rng, ours or "-", p["verdict"]])
    return out


def reproduce(name: str, out: str | Path, *, mode: str = "quick", jobs: Optional[int] = None,
              scheduler: Any = None, quiet: bool = False):
    """Run a figure's sweep into `out` (resumable), then tabulate and draw it."""
    from .runner import run_sweep

    fig = get(name)
    out = Path(out)
    result = run_sweep(fig.sweep(mode), out, jobs=jobs, scheduler=scheduler, quiet=quiet)
    table = compute(fig, out)
    table.to_csv(out / f"{fig.name}.csv", index=False)
    images = plot(fig, table, out / fig.name)
    info = {
        "figure": fig.name,
        "mode": mode,
        "title": fig.title,
        "source": fig.source,
        "description": fig.description,
        "notes": fig.notes,
        "table": f"{fig.name}.csv",
        "images": [p.name for p in images],
        "panels": [{"key": p.key, "title": p.title} for p in fig.panels],
        "paper": compare(fig, table),
        "complete_points": len(result.points) - len(result.failed),
        "failed_points": result.failed,
    }
    (out / "figure.json").write_text(json.dumps(info, indent=2, default=float) + "\n")
    return result, table
