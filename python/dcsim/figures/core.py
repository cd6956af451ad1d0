"""The machinery of the figure registry: a figure is a named entry with
its sweep, how its panels are computed from the flows, how it is drawn and
what the paper reports for it (`paper modules register theirs: pfabric.py`).

    dcsim list figures
    dcsim reproduce pfabric-fig7-9 --quick --out out/fig7-9
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from ..bins import PAPER_BINS
from ..errors import SpecError

if TYPE_CHECKING:
    import pandas as pd

    from ..sweep import Sweep

# pandas, numpy and matplotlib are imported where a figure is computed or
# drawn, so that listing the registry (`dcsim list`) stays fast.


@dataclass(frozen=True)
class Panel:
    """One plot: a statistic of the slowdown in one size bin ("mean",
    "p99"), or one of `STATS` (loss rate, request times, deadlines met)."""

    key: str  # short id, used in tables
    title: str
    bin: str  # a row of slowdown_by_size: "(0B, 100KB]", ..., "all" (slowdown statistics)
    stat: str  # "mean" or "p99" of the slowdown in `bin`, or a name in STATS
    ylabel: str = "Normalized FCT"
    logy: bool = False
    #: The flow table's column the statistic is of: the slowdown, or the
    #: FCT in ms (the PIAS paper plots FCTs, not normalized).
    column: str = "slowdown"


def _loss_rate(flows, summary) -> float:
    """Bytes dropped per byte sent, in percent (pFabric Fig. 5(b): in bytes,
    a one-byte probe that is dropped loses 41 bytes, not a packet's worth)."""
    c = summary["counters"]
    return 100.0 * c["dropped_bytes"] / max(c["host_tx_bytes"], 1)


def _requests(flows, summary):
    """An incast's requests: the flows of request k are its senders' k-th
    flows (the workload starts them together, in flow id order)."""
    senders = summary["spec"]["workload"]["senders"]
    return flows.groupby(flows.flow_id // senders)


def _request_ms(flows, summary) -> float:
    """Mean time from a request's start to its last flow's end, ms (Fig. 6(a))."""
    g = _requests(flows, summary)
    return float(((g.finish_s.max() - g.start_s.min()) * 1e3).mean())


def _flow_fct_ms(flows, summary) -> float:
    """Mean FCT of the individual flows, ms (Fig. 6(b))."""
    return float(flows.fct_s.mean() * 1e3)


def _deadlines_met(flows, summary) -> float:
    """Application throughput (pFabric §5.4.2): the percentage of flows with
    a deadline that finish by it (a flow that did not finish missed it)."""
    d = flows[flows.deadline_s.notna()]
    if not len(d):
        return math.nan
    return float(100.0 * (d.finish_s <= d.deadline_s).mean())


def _beyond_setup(flows, summary) -> float:
    """The percentage of flows with a deadline that no scheme paying one
    set-up round trip before its first data packet could meet (PDQ's SYN,
    pFabric §5.4.2): deadline - start < the flow's ideal FCT + one RTT, the
    RTT taken as the run's smallest ideal FCT (a one-packet flow's)."""
    d = flows[flows.deadline_s.notna()]
    if not len(d):
        return math.nan
    rtt = flows.ideal_fct_s.min()
    return float(100.0 * ((d.deadline_s - d.start_s) < d.ideal_fct_s + rtt).mean())


def _extra_stat(key: str, stat: str):
    """A statistic of a run's queries or pings (`key`), us: from its
    summary, or computed from its flows for a run from before summaries
    had it."""

    def value(flows, summary) -> float:
        from ..metrics import extra_stats

        s = summary.get("stats", {}).get(key) or extra_stats(flows, summary)[key]
        return math.nan if s[stat] is None else float(s[stat])

    return value


#: Statistics of a run other than the slowdown by size bin.
STATS = {"loss_rate": _loss_rate, "request_ms": _request_ms, "flow_fct_ms": _flow_fct_ms,
         "deadlines_met": _deadlines_met, "beyond_setup": _beyond_setup, "qct_mean_us": _extra_stat("queries", "mean_us"), "qct_p99_us": _extra_stat("queries", "p99_us"),
         "ping_mean_us": _extra_stat("pings", "mean_us"), "ping_p99_us": _extra_stat("pings", "p99_us")}


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
    #: Compare the series with this one: the values checked are
    #: series / relative_to - 1 ("pFabric is within 0.7-17.8% of Ideal").
    relative_to: Any = None
    #: Only at these x values (a statement about 80% load); all if empty.
    xs: tuple = ()

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
    #: Other fields this mode sets (dotted), e.g. an incast's requests.
    set: dict = field(default_factory=dict)


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
    #: With `series = "variant"`: each series' fields, by series name (a
    #: scheme and its parameters, a routing change, ...; see `Sweep`).
    variants: dict = field(default_factory=dict)
    #: The x axis shows x / x_unit (e.g. bytes of buffer in BDPs).
    x_unit: float = 1.0
    logx: bool = False
    #: Leave the flows of `workload.incasts` out of the statistics (BFC
    #: reports them apart, App. A.12).
    exclude_incasts: bool = False
    #: Series whose simulation does not read the x field (schemes blind to
    #: deadlines on a deadline axis): they run once, at the mode's first x,
    #: and `remeasure(flows, spec, x)` gives the flow table as it would be at
    #: each x (the deadline figures recompute the flows' deadlines).
    x_blind: tuple = ()
    remeasure: Optional[Callable[[Any, dict, Any], Any]] = None

    def __post_init__(self):
        if self.x_blind and self.remeasure is None:
            raise SpecError(f"figure {self.name}: x_blind series {self.x_blind} need a remeasure function")

    def ylim(self, facet: Any, panel: str) -> Optional[tuple[float, float]]:
        return self.ylims.get(f"{facet}/{panel}", self.ylims.get(panel))

    def sweep(self, mode: str) -> Sweep:
        from ..sweep import Sweep

        from ..spec import apply_overrides

        m = self.mode(mode)
        base = json.loads(json.dumps(self.base))
        base.setdefault("workload", {})["flows"] = m.flows
        base = apply_overrides(base, dict(m.set))
        grid = {self.facet: list(self.facets), self.series: list(self.series_values), self.x: list(m.x_values),
                "seed": list(m.seeds)}
        fixed = {s: {self.x: m.x_values[0]} for s in self.x_blind}
        return Sweep(name=f"{self.name}-{mode}", base=base, grid=grid, variants=self.variants, fixed=fixed)

    def mode(self, mode: str) -> Mode:
        if mode not in ("quick", "full"):
            raise SpecError(f"mode must be quick or full, got {mode!r}")
        return self.quick if mode == "quick" else self.full


REGISTRY: dict[str, Any] = {}  # Figure, or single.RunFigure


def register(fig):
    REGISTRY[fig.name] = fig
    return fig


def get(name: str):
    if name not in REGISTRY:
        # a figure whose panels are registered apart (bfc-fig11: 11a, 11b)
        panels = [n for n in REGISTRY if re.fullmatch(re.escape(name) + "[a-z]", n)]
        hint = f"its panels are {', '.join(panels)}" if panels else f"see `dcsim list figures`: {', '.join(REGISTRY)}"
        raise SpecError(f"unknown figure {name!r} ({hint})")
    return REGISTRY[name]


#: A name that registers several figures of a paper drawn together:
#: pias-fig5-7 is Figs. 5, 6 and 7.
GROUP = re.compile(r"(?P<paper>[a-z]+)-fig(?P<first>\d+)-(?P<last>\d+)")


def resolve(name: str) -> tuple[str, Optional[str]]:
    """The registered figure `name` stands for, and a note when that is
    another name: a single figure of a group (pias-fig6 is drawn with Figs.
    5 and 7: pias-fig5-7), as papers and issues name them. Unknown names
    raise SpecError."""
    if name not in REGISTRY:
        one = re.fullmatch(r"(?P<paper>[a-z]+)-fig(?P<n>\d+)", name)
        for group in REGISTRY if one else ():
            g = GROUP.fullmatch(group)
            if g and g["paper"] == one["paper"] and int(g["first"]) <= int(one["n"]) <= int(g["last"]):
                return group, f"{name} is drawn with Figs. {g['first']}-{g['last']}: running {group}"
    get(name)  # unknown: the error names what exists
    return name, None


def _param(params: dict, field: str, spec: dict) -> Any:
    if field in params:
        return params[field]
    node: Any = spec
    for part in field.split("."):
        node = node[part]
    return node


def compute(fig: Figure, out: Path) -> pd.DataFrame:
    """One row per (facet, series, x): each panel's statistic, averaged over
    seeds, plus flows and wall time. A series in `fig.x_blind` ran at one x
    and is measured at every x of the sweep's grid (each of its rows repeats
    that one run's wall time)."""
    import pandas as pd

    from ..results import load_points, point_dir

    xs = json.loads((Path(out) / "sweep.json").read_text())["grid"].get(fig.x, []) if fig.x_blind else []
    rows = []
    for s in load_points(out):
        params, spec = s["point"]["params"], s["spec"]
        flows = pd.read_parquet(point_dir(out, s["point"]["key"]) / "flows.parquet")
        series = _param(params, fig.series, spec)
        if series in fig.x_blind:
            rows += [_row(fig, fig.remeasure(flows, spec, x), s, series, x) for x in xs]
        else:
            rows.append(_row(fig, flows, s, series, _param(params, fig.x, spec)))
    if not rows:
        raise SpecError(f"{out}: no complete points to draw")
    df = pd.DataFrame(rows)
    keys = ["facet", "series", "x"]
    agg = {p.key: "mean" for p in fig.panels} | {"flows": "sum", "unfinished": "sum", "wall_s": "sum",
                                                  "drop_rate": "mean", "seed": "count"}
    return df.groupby(keys, sort=False).agg(agg).rename(columns={"seed": "seeds"}).reset_index()


def _row(fig: Figure, flows: pd.DataFrame, s: dict, series: Any, x: Any) -> dict:
    """One run's statistics (`s` its summary) as a row of `compute`."""
    from ..metrics import slowdown_by_size

    params, spec = s["point"]["params"], s["spec"]
    if fig.exclude_incasts:
        from ..spec import spec_from_dict
        from ..spec.experiment import incast_ids

        ids = incast_ids(spec_from_dict(spec))
        if ids is not None:
            flows = flows[ids[flows.flow_id.to_numpy()] < 0]
    if "fct_ms" not in flows:
        flows = flows.assign(fct_ms=flows.fct_s * 1e3)
    tables = {c: slowdown_by_size(flows, bins=fig.bins, column=c) for c in {p.column for p in fig.panels}}
    row = {
        "facet": _param(params, fig.facet, spec),
        "series": series,
        "x": x,
        "seed": s["seed"],
        "flows": len(flows),
        "unfinished": s["unfinished_flows"],
        "wall_s": s["wall_time_s"],
        "drop_rate": s["counters"]["dropped_pkts"] / max(s["counters"]["data_pkts"], 1),
    }
    for p in fig.panels:
        if p.stat in STATS:
            row[p.key] = STATS[p.stat](flows, s)
        else:
            table = tables[p.column]
            row[p.key] = float(table.loc[p.bin, p.stat]) if p.bin in table.index else math.nan
    return row


def compare(fig: Figure, table: pd.DataFrame) -> list[dict]:
    """Each paper statement next to our numbers."""
    out = []
    for b in fig.paper:
        sel = table[(table.facet == b.facet) & (table.series == b.series)].sort_values("x")
        ours = {float(x): float(v) for x, v in zip(sel.x, sel[b.panel]) if not b.xs or x in b.xs}
        if b.relative_to is not None:
            ref = table[(table.facet == b.facet) & (table.series == b.relative_to)]
            ref = {float(x): float(v) for x, v in zip(ref.x, ref[b.panel])}
            ours = {x: v / ref[x] - 1 for x, v in ours.items() if x in ref}
        out.append({
            "where": b.where,
            "facet": b.facet,
            "panel": b.panel,
            "series": b.series,
            "claim": b.claim,
            "paper_range": [b.low if math.isfinite(b.low) else None, b.high if math.isfinite(b.high) else None],
            "relative_to": b.relative_to,
            # keyed by x as the axis shows it (x / x_unit)
            "ours": {round(x / fig.x_unit, 9): v for x, v in ours.items()},
            "verdict": b.check(list(ours.values())),
        })
    return out


def _bound_text(b: PaperBound, fig: Figure) -> str:
    name = fig.series_labels.get(b.series, b.series)
    if b.relative_to is not None:
        ref = fig.series_labels.get(b.relative_to, b.relative_to)
        # no-break spaces: a wrapped title keeps a range on one line
        return f"paper: {name} {_pct_range(b.low, b.high).replace(' .. ', chr(160) + '..' + chr(160))} of {ref}"
    if math.isfinite(b.low) and math.isfinite(b.high):
        # a no-break space: a wrapped title keeps the range on one line
        return f"paper: {name} in [{b.low:g},\u00a0{b.high:g}]"
    # (the check includes the bound, as the comparison table says)
    return f"paper: {name} {'>=' if math.isfinite(b.low) else '<='} {b.low if math.isfinite(b.low) else b.high:g}"


def _pct_range(lo: float, hi: float) -> str:
    """A relative range as the paper words it: 'within +0.7% .. +17.8%'."""
    def pct(x: float) -> str:
        return f"{100 * x:+.3g}%"

    if math.isfinite(lo) and math.isfinite(hi):
        return f"within {pct(lo)} .. {pct(hi)}"
    return f"{'>=' if math.isfinite(lo) else '<='} {pct(lo if math.isfinite(lo) else hi)}"


def plot(fig: Figure, table: pd.DataFrame, path: Path, mode: str) -> list[Path]:
    """Draw the figure (see `draw`) to PNG and SVG beside `path`."""
    return save_images(draw(fig, table), path, fig.name, mode)


def drawn_by(name: str, mode: str) -> str:
    """What drew a figure's images: the command, and the dcsim version and
    source commit (issue 51: an image says what drew it)."""
    from .. import __version__

    return f"dcsim reproduce {name} --{mode}; dcsim {__version__}{_source_commit()}"


def _source_commit() -> str:
    """' at <commit>' (with '+changes' if the tree differs from it) when dcsim
    runs from a git checkout, else ''."""
    import subprocess

    root = Path(__file__).resolve().parents[3]
    if not (root / ".git").exists():
        return ""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "python", "crates"],
                               cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    if head.returncode:
        return ""
    return f" at {head.stdout.strip()}" + ("+changes" if dirty.stdout.strip() else "")


def save_images(figure, path: Path, name: str, mode: str) -> list[Path]:
    """Write `figure` as PNG and SVG beside `path`, each stamped with what
    drew it (the PNG's Source, the SVG's Description), and close it."""
    import matplotlib.pyplot as plt

    stamp = drawn_by(name, mode)
    paths = [path.with_suffix(".png"), path.with_suffix(".svg")]
    figure.savefig(paths[0], dpi=130, metadata={"Title": name, "Source": stamp})
    figure.savefig(paths[1], metadata={"Title": name, "Description": stamp})
    plt.close(figure)
    return paths


#: Characters per line of a panel's title: about what fits over a 3.2-inch
#: panel at 8.5 points, its y labels taken off (44 ran a line of BFC Fig.
#: 24's right panel off the figure), and of its x label at 10 points.
TITLE_CHARS = 42
XLABEL_CHARS = 36
PANEL_INCHES = 3.2


def draw(fig: Figure, table: pd.DataFrame):
    """The figure like the paper's: one row of panels per facet, one line
    per series, the paper's y range where it gives one. What the paper
    states about a panel goes in the panel's title (so no label sits on a
    line or a point) and its bound is drawn in its series' colour
    (`_draw_bound`); a point above the panel's range is drawn on the top
    edge as a hollow arrow with its value; a line over an earlier one is
    drawn dashed and hollow (`covers`). Returns the matplotlib figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    facets = [f for f in fig.facets if f in set(table.facet)]
    n_rows, n_cols = len(facets), len(fig.panels)
    # at least wide enough for the title and the legend (one panel a row)
    width = max(PANEL_INCHES * n_cols, 5.5)
    # a panel wider than the usual (one panel: the legend's width) takes longer lines
    title_chars = int(TITLE_CHARS * width / (PANEL_INCHES * n_cols))
    titles = {(facet, panel.key): _panel_title(fig, facet, panel, title_chars) for facet in facets
              for panel in fig.panels}
    # each title line past the usual three takes room from the plot: give
    # it back (PIAS Fig. 12's six-line statements left a sliver of a plot)
    extra = sum(max(0, max(titles[f, p.key].count("\n") + 1 for p in fig.panels) - 3) for f in facets)
    figure, axes = plt.subplots(n_rows, n_cols, figsize=(width, 3.3 * n_rows + 0.16 * extra), squeeze=False,
                                constrained_layout=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = "osD^vPX"
    drawn_styles: set[str] = set()  # the bound styles drawn, for the legend
    for r, facet in enumerate(facets):
        for c, panel in enumerate(fig.panels):
            ax = axes[r][c]
            ylim = fig.ylim(facet, panel.key)
            if ylim is not None:
                lo, hi = ylim
                values = table[table.facet == facet][panel.key]
                if values[values <= hi].max() >= hi - 0.02 * (hi - lo):
                    # a line on the paper's top edge (pFabric-EDF's 100%)
                    # keeps its markers whole
                    ylim = (lo, hi + 0.04 * (hi - lo))
            top = 0.0  # the panel's highest value
            drawn: list[tuple[np.ndarray, np.ndarray]] = []  # the panel's lines so far
            for i, series in enumerate(fig.series_values):  # legend order as in the paper
                sel = table[(table.facet == facet) & (table.series == series)].sort_values("x")
                if sel.empty:
                    continue
                top = max(top, float(sel[panel.key].max()))
                color = colors[i % len(colors)]
                sel = sel.assign(x=sel.x / fig.x_unit)
                xy = (sel.x.to_numpy(float), sel[panel.key].to_numpy(float))
                # a line on top of one drawn before (pFabric-EDF on pFabric
                # where no flow has a deadline): hollow, larger markers and
                # dashes, so both show
                style = HIDDEN_LINE if covers(drawn, xy) else {}
                drawn.append(xy)
                ax.plot(sel.x, sel[panel.key], marker=markers[i % len(markers)], color=color,
                        label=f"{fig.series_labels.get(series, series)} (dcsim)", **style)
                if ylim is not None:
                    # off the paper's scale: a hollow up-arrow just inside
                    # the top edge (x in data, y in axes units) and the value
                    # below it (hollow: not a series' filled triangle)
                    over = sel[sel[panel.key] > ylim[1]]
                    edge = ax.get_xaxis_transform()
                    ax.plot(over.x, [0.97] * len(over), ls="none", marker=r"$\Uparrow$", ms=9, color=color,
                            transform=edge, zorder=5)
                    for x, v in zip(over.x, over[panel.key]):
                        ax.annotate(f"{v:.3g}", (x, 0.97), xycoords=edge, xytext=(0, -14),
                                    textcoords="offset points", ha="center", fontsize=7, color=color)
            for b in fig.paper:
                if b.facet == facet and b.panel == panel.key and b.relative_to is None:
                    bound_top, styles = _draw_bound(ax, fig, b, colors, panel.logy)
                    top = max(top, bound_top)
                    drawn_styles |= styles
            ax.set_title(titles[facet, panel.key], fontsize=8.5)
            ax.set_xlabel(textwrap.fill(fig.xlabel, XLABEL_CHARS))
            xs = sorted(set(table.x / fig.x_unit))
            if fig.logx:
                ax.set_xscale("log")
                plain_log_ticks(ax.xaxis)  # incast degrees, deadlines: 10, 100, 1,000
            elif len(xs) <= 8 and all(float(x).is_integer() for x in xs):
                ax.set_xticks(xs)  # a count (queues, senders): its values, not 2.5 queues
            if c == 0 or panel.ylabel != fig.panels[c - 1].ylabel:
                # (a panel whose quantity differs from its left neighbour's
                # names its own: Fig. 11's FCT beside Fig. 10's throughput)
                ax.set_ylabel(panel.ylabel)
            if panel.logy:
                ax.set_yscale("log")
                plain_log_ticks(ax.yaxis)
            elif ylim is not None:
                ax.set_ylim(*ylim)
            elif top > 0 and math.isfinite(top):
                # from 0 with room above the highest line: autoscaling's
                # margin is a share of the data's own spread, so lines
                # close together (PIAS Fig. 17's data mining panel) sat
                # on the top edge once the axis started at 0
                ax.set_ylim(0, top * 1.08)
            else:
                ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
    # one legend for the figure, below the panels, where it covers no data
    handles, labels = plain_handles(*axes[0][0].get_legend_handles_labels())
    from matplotlib.lines import Line2D

    for style, what in (("--", "paper: lower bound"), (":", "paper: upper bound")):
        if style in drawn_styles:
            handles.append(Line2D([], [], color="gray", ls=style))
            labels.append(what)
    figure_legend(figure, handles, labels)
    figure.suptitle(fig.title, fontsize=11, wrap=True)
    return figure


#: How a line drawn over another one (`covers`) is styled, so both show.
HIDDEN_LINE = dict(mfc="none", ms=9, mew=1.4, ls="--")


def plain_handles(handles: list, labels: list) -> tuple[list, list]:
    """Legend handles with each series' own style: a panel may have drawn a
    line in `HIDDEN_LINE`'s style (over another), which the other panels
    do not."""
    from matplotlib.lines import Line2D

    ms = min((h.get_markersize() for h in handles if isinstance(h, Line2D)), default=6)
    plain = [Line2D([], [], color=h.get_color(), marker=h.get_marker(), ls="-", lw=h.get_linewidth(), ms=ms)
             if isinstance(h, Line2D) else h for h in handles]
    return plain, labels


def covers(drawn: list, xy: tuple) -> bool:
    """Whether the line `xy` (x and y arrays) would hide under one of the
    lines `drawn` before it: the same x values and y within 0.5% at each
    (closer than a plot can show)."""
    import numpy as np

    x, y = (np.asarray(a, dtype=float) for a in xy)
    return any(len(x0) == len(x) and np.allclose(x0, x) and np.allclose(y0, y, rtol=0.005, equal_nan=True)
               for x0, y0 in drawn)


def _draw_bound(ax, fig: Figure, b: PaperBound, colors: list, logy: bool = False) -> tuple[float, set]:
    """Draw what the paper states of a panel: its lower bound dashed, its
    upper bound dotted, in the colour of the series it is about (gray if
    none); across the panel, or, for a statement about some x values only
    (80% load), as short marks at those x with a bar between the bounds.
    Returns the highest bound drawn (the panel's range keeps it whole: PIAS
    Fig. 10's 8,500 sat above the data's axis) and the line styles drawn."""
    series = list(fig.series_values)
    color = colors[series.index(b.series) % len(colors)] if b.series in series else "gray"
    top = 0.0
    # (a bound of 0 on a log axis is the axis itself: not drawn)
    ys = [(y, style) for y, style in ((b.low, "--"), (b.high, ":")) if math.isfinite(y) and (y > 0 or not logy)]
    for y, _ in ys:
        top = max(top, y)
    styles = {style for _, style in ys}
    if not b.xs:
        for y, style in ys:
            ax.axhline(y, color=color, ls=style, lw=1.0, alpha=0.75, zorder=1)
        return top, styles
    for x in b.xs:
        x = x / fig.x_unit
        for y, style in ys:
            # a mark a few points wide either side of x (log axes too)
            ax.annotate("", (x, y), xytext=(-9, 0), textcoords="offset points",
                        arrowprops=dict(arrowstyle="-", color=color, ls=style, lw=1.6, shrinkA=0, shrinkB=0))
            ax.annotate("", (x, y), xytext=(9, 0), textcoords="offset points",
                        arrowprops=dict(arrowstyle="-", color=color, ls=style, lw=1.6, shrinkA=0, shrinkB=0))
        if len(ys) == 2:
            ax.plot([x, x], [ys[0][0], ys[1][0]], color=color, lw=4, alpha=0.2, solid_capstyle="butt", zorder=1)
    return top, styles


def plain_log_ticks(axis) -> None:
    """Label a log axis with plain numbers (1, 10, 100; 2, 3, 6 within a
    decade) rather than 2 x 10^0: slowdowns are read as multiples of 1."""
    from matplotlib import ticker

    class Plain(ticker.LogFormatter):
        # matplotlib decides which ticks get a label; the label is the number
        def __call__(self, x, pos=None):
            return f"{x:,.10g}" if super().__call__(x, pos) else ""

    axis.set_major_formatter(Plain())
    axis.set_minor_formatter(Plain(labelOnlyBase=False))


def _panel_title(fig: Figure, facet: Any, panel: Panel, chars: int) -> str:
    """A panel's title: its facet, its statistic and what the paper states
    of it, each wrapped at `chars` (a long claim over a narrow panel ran
    off the figure)."""
    claims = [balanced_fill(_bound_text(b, fig), chars) for b in fig.paper
              if b.facet == facet and b.panel == panel.key]
    return "\n".join([fig.facet_labels.get(facet, facet), balanced_fill(panel.title, chars), *claims])


def balanced_fill(text: str, chars: int) -> str:
    """`textwrap.fill` at most `chars` wide, in as few lines, but with lines
    of even length: no word left alone on a last line ("... +25% of" /
    "pFabric")."""
    best = textwrap.wrap(text, chars, break_on_hyphens=False)
    if not best:
        return text
    for width in range(chars - 1, max(chars * 2 // 3, 1), -1):
        # (narrower, a long word must not be split where the plain wrap kept it)
        lines = textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)
        if max(map(len, lines)) > width:
            break
        if len(lines) > len(best):
            break
        if min(map(len, lines)) > min(map(len, best)):
            best = lines
    return "\n".join(best)


def figure_legend(figure, handles: list, labels: list, most_columns: int = 6):
    """The figure's legend below its panels, in as many columns (up to
    `most_columns`) as fit its width: with a column per series, long series
    names (BFC's "BFC 32 + IncastLabel") ran off both sides of a two-panel
    figure."""
    width = figure.get_window_extent().width
    renderer = figure.canvas.get_renderer()
    for fit in range(min(len(labels), most_columns), 0, -1):
        # rows as even as the columns that fit allow: 7 entries in 4 + 3,
        # not 6 + 1
        rows = -(-len(labels) // fit)
        ncol = -(-len(labels) // rows)
        legend = figure.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=8, frameon=False)
        if ncol == 1 or legend.get_window_extent(renderer).width <= 0.98 * width:
            if rows > 1:
                # each row past the first takes its height from the plots:
                # give it back
                w, h = figure.get_size_inches()
                figure.set_size_inches(w, h + 0.17 * (rows - 1))
            return legend
        legend.remove()


COMPARISON_HEADERS = ["where", "panel", "paper", "dcsim (x: value)", "verdict"]


def _value(v: float) -> str:
    """A value of ours beside the paper's: three significant digits, and
    whole numbers written out below a million (1,390, not 1.39e+03)."""
    r = float(f"{v:.3g}")  # 999.7 rounds to 1,000
    if math.isfinite(r) and 1e3 <= abs(r) < 1e6:
        return f"{r:,.0f}"
    return f"{v:.3g}"


def comparison_rows(paper: list[dict]) -> list[list[str]]:
    """`figure.json`'s comparison with the paper as table rows: where the
    paper says it, the panel, the paper's range, our values, the verdict."""
    out = []
    for p in paper:
        lo, hi = p["paper_range"]
        ref = p.get("relative_to")
        values = sorted((float(k) if k != "" else 0.0, v) for k, v in p["ours"].items())
        if ref is not None:
            rng = f"{p['series']} vs {ref}: " + _pct_range(-math.inf if lo is None else lo, math.inf if hi is None else hi)
            ours = ", ".join(f"{x:g}: {100 * v:+.1f}%" for x, v in values)
        else:
            rng = " and ".join(x for x in (None if lo is None else f">= {lo:g}", None if hi is None else f"<= {hi:g}")
                               if x) or "any"
            rng = f"{p['series']} {rng}"
            ours = ", ".join(f"{x:g}: {_value(v)}" if "" not in p["ours"] else _value(v) for x, v in values)
        out.append([p["where"], f"{p['facet']} / {p['panel']}", rng, ours or "-", p["verdict"]])
    return out


def refuse_reuse_with_redraw(redraw: bool, reuse: Sequence) -> None:
    if redraw and reuse:
        raise SpecError("--reuse: --redraw runs nothing, so it copies no points")


def refuse_another_figures_dir(name: str, out: Path) -> None:
    """A figure's directory holds one figure: its points resume, another's
    would mix with them (and its table, plots and report replace them)."""
    try:
        held = json.loads((out / "figure.json").read_text()).get("figure")
    except (OSError, ValueError, AttributeError):
        return
    if held and held != name:
        raise SpecError(f"--out {out}: holds figure {held}'s results; give {name} a directory of its own")


def reproduce(name: str, out: str | Path, *, mode: str = "quick", jobs: Optional[int] = None,
              scheduler: Any = None, quiet: bool = False, seeds: Optional[Sequence[int]] = None,
              reuse: Sequence[str | Path] = (), redraw: bool = False):
    """Run a figure's sweep into `out` (resumable), then tabulate and draw
    it. `seeds` replace the mode's (a seed spread: one directory per seed
    gives each seed's numbers; several in one are averaged). `reuse`:
    other results directories whose points of the same key are copied
    instead of run (`run_sweep`). `redraw`: run nothing; draw the figure
    and its comparison again from the points `out` holds (`held_points`)."""
    from ..runner import sweep_result

    fig = get(name)
    out = Path(out)
    refuse_reuse_with_redraw(redraw, reuse)
    refuse_another_figures_dir(fig.name, out)
    if seeds:
        if not isinstance(fig, Figure):
            raise SpecError(f"--seed: {name} is not a sweep over seeds (its runs choose their own)")
        fig = dataclasses.replace(fig, quick=dataclasses.replace(fig.quick, seeds=tuple(seeds)),
                                  full=dataclasses.replace(fig.full, seeds=tuple(seeds)))
    if hasattr(fig, "reproduce"):  # a figure of one run (single.py)
        return fig.reproduce(out, mode, jobs=jobs, scheduler=scheduler, quiet=quiet, reuse=reuse, redraw=redraw)
    result = sweep_result(fig.sweep(mode), out, redraw=redraw, jobs=jobs, scheduler=scheduler, quiet=quiet,
                          reuse=reuse)
    table = compute(fig, out)
    table.to_csv(out / f"{fig.name}.csv", index=False)
    images = plot(fig, table, out / fig.name, mode)
    info = {
        "figure": fig.name,
        "mode": mode,
        "seeds": list(fig.mode(mode).seeds),
        "title": fig.title,
        "source": fig.source,
        "description": fig.description,
        "notes": fig.notes,
        "table": f"{fig.name}.csv",
        "images": [p.name for p in images],
        "drawn_by": drawn_by(fig.name, mode),
        "panels": [{"key": p.key, "title": p.title, "ylabel": p.ylabel} for p in fig.panels],
        "x": {"field": fig.x, "label": fig.xlabel, "unit": fig.x_unit},
        "paper": compare(fig, table),
        "complete_points": len(result.points) - len(result.failed),
        "failed_points": result.failed,
    }
    (out / "figure.json").write_text(json.dumps(info, indent=2, default=float) + "\n")
    return result, table
