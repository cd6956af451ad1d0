"""What BFC's packet-level figures share: BFC §6.2.1's set-up, the
figure of schemes side by side at one load (FCT slowdown by flow size and
switch buffers, `BySizeFigure`), and its statistics' building blocks."""

from __future__ import annotations

import copy
import json
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from ...profiles import BFC as BFC_PROFILE, merge_sections
from ..core import register

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class BySizeFigure:
    """Schemes side by side at one load: FCT slowdown by flow size (bins of
    equal flow counts, 5% each, as the HPCC simulator's analysis script
    makes them) at the average, 95th and 99th percentiles, and each switch's
    buffer occupancy as a CDF over time, as BFC §6.2 draws its figures."""

    name: str
    title: str
    source: str
    description: str
    base: dict
    variants: dict
    labels: dict
    flows: dict  # mode -> flows per run
    stats: Callable[["pd.DataFrame", dict], dict]
    paper: tuple = field(default_factory=tuple)
    notes: str = ""
    #: The statistics drawn by size, each a panel ("p50": the median).
    shown: tuple = ("mean", "p95", "p99")
    #: The figure's table and drawing (default: `by_size_table`,
    #: `draw_by_size`).
    tabulate: Optional[Callable] = None
    draw: Optional[Callable] = None
    #: Other fields by mode (dotted), e.g. a stop time.
    mode_set: dict = field(default_factory=dict)

    def sweep(self, mode: str):
        from ...errors import SpecError
        from ...sweep import Sweep

        if mode not in self.flows:
            raise SpecError(f"mode must be quick or full, got {mode!r}")
        from ...spec import apply_overrides

        base = json.loads(json.dumps(self.base))
        base.setdefault("workload", {})["flows"] = self.flows[mode]
        base = apply_overrides(base, dict(self.mode_set.get(mode, {})))
        return Sweep(name=f"{self.name}-{mode}", base=base, grid={"variant": list(self.variants), "seed": [1]},
                     variants=self.variants)

    def reproduce(self, out: Path, mode: str, redraw: bool = False, **run):
        from ..single import RunData, run_points, save

        out = Path(out)
        result, points = run_points(self, out, mode, redraw, **run)
        runs = {params["variant"]: RunData.load(d) for params, d in points.values()}
        mark_incasts(runs)
        table = (self.tabulate or by_size_table)(runs)
        stats = self.stats(table, runs)
        save(self, out, mode, stats, table, (self.draw or draw_by_size)(table, runs, self), len(runs), result.failed)
        return result, table


def mark_incasts(runs: dict) -> None:
    """Add an `incast` column to each run's flows: whether the flow belongs
    to `workload.incasts` (BFC reports those apart, App. A.12)."""
    from ...spec import spec_from_dict
    from ...spec.experiment import incast_ids

    for data in runs.values():
        ids = incast_ids(spec_from_dict(data.summary["spec"]))
        f = data.flows
        data.flows = f.assign(incast=False if ids is None else ids[f.flow_id.to_numpy()] >= 0)


def size_edges(runs: dict):
    """Size bin edges: the 5% quantiles of the (non-incast) flow sizes,
    shared by every scheme (they run the same flows)."""
    import numpy as np

    sizes = next(iter(runs.values())).flows.query("~incast").size_bytes
    edges = np.unique(np.quantile(sizes, np.linspace(0, 1, 21)))
    edges[0] = 0
    return edges


def by_size_table(runs: dict, edges=None) -> "pd.DataFrame":
    """Slowdown statistics by size bin (default edges: `size_edges`),
    incast flows left out."""
    import numpy as np
    import pandas as pd

    edges = size_edges(runs) if edges is None else edges
    rows = []
    for variant, data in runs.items():
        f = data.flows.query("~incast").dropna(subset=["slowdown"])
        f = f.assign(bin=np.clip(np.searchsorted(edges, f.size_bytes, side="left"), 1, len(edges) - 1))
        for b, g in f.groupby("bin"):
            rows.append({"variant": variant, "bin_lo": edges[b - 1], "bin_hi": edges[b],
                         "size_median": float(g.size_bytes.median()), "flows": len(g),
                         "mean": float(g.slowdown.mean()), "p50": float(g.slowdown.median()),
                         "p95": float(g.slowdown.quantile(0.95)),
                         "p99": float(g.slowdown.quantile(0.99))})
    return pd.DataFrame(rows)


def draw_by_size(t, runs: dict, fig: BySizeFigure):
    import matplotlib.pyplot as plt
    import numpy as np

    from ..core import HIDDEN_LINE, covers, figure_legend, plain_handles, plain_log_ticks

    names = {"mean": "average", "p50": "median", "p95": "95th percentile", "p99": "99th percentile"}
    n = len(fig.shown)
    # one colour per scheme in every panel (some schemes have no buffers)
    color = {v: f"C{i % 10}" for i, v in enumerate(dict.fromkeys(list(t.variant) + list(runs)))}
    buffers = {v: d.buffers for v, d in runs.items() if d.buffers is not None and len(d.buffers)}
    # no scheme with buffers (ExpressPass's sweeps): no buffer panel
    panels = n + bool(buffers)
    figure, axes = plt.subplots(1, panels, figsize=(3.75 * panels, 3.8), constrained_layout=True, squeeze=False)
    axes = axes[0]
    for ax, stat in zip(axes, fig.shown):
        title = names[stat]
        drawn = []
        for variant, g in t.groupby("variant", sort=False):
            # a line over another (Homa under IdealSRF+ECMP): dashed, hollow
            style = {**HIDDEN_LINE, "ms": 5} if covers(drawn, (g.bin_hi, g[stat])) else {"ms": 3}
            drawn.append((g.bin_hi.to_numpy(float), g[stat].to_numpy(float)))
            ax.plot(g.bin_hi, g[stat], **{"marker": "o", "ls": "-", **style}, lw=1.3, color=color[variant],
                    label=fig.labels.get(variant, variant))
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
        ax.set_xlabel("Flow size (bytes, bin's upper edge)")
        ax.set_title(f"FCT slowdown: {title}", fontsize=9)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("FCT slowdown")
    # one legend below the panels: inside the average's panel it hid the
    # long flows' rise
    figure_legend(figure, *plain_handles(*axes[0].get_legend_handles_labels()))
    if buffers:
        ax = axes[n]
        for variant, b in buffers.items():
            x = np.sort(b.bytes.to_numpy()) / 1e6
            ax.plot(x, np.arange(1, len(x) + 1) / len(x), lw=1.3, color=color[variant])
        ax.set_xscale("symlog", linthresh=0.01)
        ax.set_xlabel("Buffer occupancy per switch (MB)")
        ax.set_ylabel("CDF (samples)")
        ax.set_title("Buffer occupancy", fontsize=9)
        ax.grid(alpha=0.3)
        # schemes without a shared buffer (Homa's unbounded ports,
        # ExpressPass's per-port credit queues) have no curve here: say so
        missing = [fig.labels.get(v, v) for v in runs if v not in buffers]
        if missing:
            ax.text(0.98, 0.04, textwrap.fill("no shared buffer, not drawn: " + ", ".join(missing), 34),
                    transform=ax.transAxes, ha="right", va="bottom", fontsize=7, color="0.3")
    return figure


#: BFC §6.2.1's set-up: the `bfc` profile (dcsim/profiles.py: the
#: 128-host Clos of 8 ToRs x 16 hosts and 8 spines, 100 Gb/s, 1 us links,
#: per-flow ECMP, lognormal arrivals with sigma = 2, the load on the
#: ToR-spine links), which a spec can name (`profile = "bfc"`) to run its
#: own workload the same way; here at 60% load, every switch's buffer
#: sampled each us.
BFC_BASE = merge_sections(copy.deepcopy(BFC_PROFILE.base), {"workload": {"load": 0.6},
                                                            "run": {"sample_us": 1.0, "sample_queues": "none"}})
#: Its DCTCP is the HPCC simulator's (`dctcp_rdma`); Ideal-FQ counts the
#: RDMA schemes' packets (1000 B payloads, 48 B headers), so the arrival
#: rate that makes the load, and the flows, are theirs.
BFC_VARIANTS = {name: BFC_PROFILE.variant(name)
                for name in ("bfc", "hpcc", "dcqcn", "dctcp", "expresspass", "ideal_fq", "ideal_fq_packet")}
BFC_LABELS = {"bfc": "BFC", "hpcc": "HPCC", "dcqcn": "DCQCN", "dctcp": "DCTCP", "expresspass": "ExpressPass",
              "ideal_fq": "Ideal-FQ (flow level)", "ideal_fq_packet": "Ideal-FQ (packet level)"}
BY_SIZE_NOTES = ("Schemes as docs/schemes.md describes them (the HPCC simulator's DCQCN and DCTCP, its HPCC with "
                 "BFC's 80 B telemetry header and a BFC co-author's 100 Mb/s floor, BFC from "
                 "its paper, ExpressPass from its ns-2 code with its 1460 B payloads and per-port buffers, its load counted in its own frames); Ideal-FQ at flow level and, as the paper runs it, at packet level (a queue per flow, unbounded buffers, each flow's packets in flight capped at a BDP). Load = the fraction of the ToR-spine capacity (8 x 8 x 100 Gb/s), as the "
                 "authors' prototype sets it; flows within a rack never cross it. One seed.")


def _short_long(t, variant: str, stat: str, short: bool, bound: float):
    """Short flows: the bins up to `bound` bytes; long: the largest bin
    (the largest 5% of flows)."""
    g = t[t.variant == variant]
    return g[g.bin_hi <= bound][stat] if short else g[g.bin_lo == g.bin_lo.max()][stat]


def _ratio(t, num: str, den: str, stat: str, short: bool, bound: float) -> float:
    import numpy as np

    a, b = _short_long(t, num, stat, short, bound), _short_long(t, den, stat, short, bound)
    return float(np.median(a.to_numpy() / b.to_numpy())) if len(a) and len(a) == len(b) else math.nan


def _by_size(name: str, title: str, source: str, description: str, cdf: str, flows: dict, stats, paper: tuple,
             notes: str, incasts: bool = False, variants: dict = BFC_VARIANTS, labels: dict = BFC_LABELS,
             shown: tuple = ("mean", "p95", "p99"), tabulate: Optional[Callable] = None,
             draw: Optional[Callable] = None, workload: Optional[dict] = None) -> BySizeFigure:
    """A BFC figure of slowdown by size: BFC's set-up with the `cdf` sizes,
    at 60% (or 55% with the incast mix on top), every scheme in."""
    workload = {**BFC_BASE["workload"], "cdf": cdf, **(INCAST if incasts else {}), **(workload or {})}
    return register(BySizeFigure(
        name=name, title=title, source=source, description=description,
        base={**BFC_BASE, "workload": workload}, variants=variants, labels=labels, flows=flows,
        stats=stats, paper=paper, notes=BY_SIZE_NOTES + " " + notes, shown=shown, tabulate=tabulate, draw=draw))


#: BFC's incast mix on top (§6.2.1): 20 MB from 100 random hosts to a random
#: one every 500 us, 5% of the core, the background at 55%.
INCAST = {"load": 0.55, "incasts": {"senders": 100, "total_bytes": 20_000_000, "load_share": 0.05}}
GOOGLE_FLOWS, FB_FLOWS = {"quick": 50_000, "full": 750_000}, {"quick": 5_000, "full": 100_000}


FB = "fb_hadoop"
#: How the runs on Fig. 11(a)'s set-up are counted and sized.
FIG11A_RUNS = "Incast flows left out. Quick: 5,000 background flows; full: 100,000."


def _on_fig11a(name: str, title: str, source: str, description: str, stats, paper: tuple, notes: str,
               variants: dict, labels: dict, shown: tuple = ("p99",)) -> BySizeFigure:
    """A variant study on Fig. 11(a)'s set-up (Facebook Hadoop at 55% +
    5% incast), as BFC's appendix runs them."""
    return _by_size(name, title, source, description, FB, FB_FLOWS, stats, paper, notes + " " + FIG11A_RUNS,
                    incasts=True, variants=variants, labels=labels, shown=shown)


def _buffer_stat(runs: dict, variant: str, q: float) -> float:
    """A quantile of every switch's buffer occupancy samples (1: the peak)."""
    b = runs[variant].buffers if variant in runs else None
    return float(b.bytes.quantile(q)) if b is not None and len(b) else math.nan
