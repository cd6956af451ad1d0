"""Figures computed from a model, with no simulation (pFabric Appendix A's
thresholds): a table from a function, drawn, with the paper's statements
beside our values (the output of a figure of one run, `single.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .core import register
from .single import Statement, save


@dataclass(frozen=True)
class ModelFigure:
    name: str
    title: str
    source: str
    description: str
    #: mode -> (table, named statistics the statements check)
    compute: Callable[[str], tuple[Any, dict]]
    draw: Callable[[Any, "ModelFigure"], Any]
    paper: tuple = field(default_factory=tuple)
    notes: str = ""

    def reproduce(self, out: Path, mode: str, **_run):
        import matplotlib

        matplotlib.use("Agg")
        from ..errors import SpecError

        if mode not in ("quick", "full"):
            raise SpecError(f"mode must be quick or full, got {mode!r}")
        from ..runner import SweepResult

        table, stats = self.compute(mode)
        save(self, Path(out), mode, stats, table, self.draw(table, self), 0, {})
        return SweepResult(out=Path(out), points=[]), table


# ---- pFabric Fig. 22 ---------------------------------------------------------


def fig22_compute(mode: str):
    import pandas as pd

    from ..thresholds import optimize
    from ..workloads import load_cdf

    step = 0.1 if mode == "quick" else 0.025
    loads = [round(0.1 + i * step, 3) for i in range(int(round(0.7 / step)) + 1)]
    cdf = load_cdf("web_search")
    rows = []
    for load in loads:
        r = optimize("pfabric-eq8", cdf, load, 2, quantum=1460)
        rows.append({"load": load, "threshold_kb": r.thresholds[0] / 1e3, "objective": r.objective})
    t = pd.DataFrame(rows)
    at = dict(zip(t.load, t.threshold_kb))
    return t, {"threshold_kb_at_10pct": at[0.1], "threshold_kb_at_80pct": at[0.8]}


def fig22_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(5.5, 3.6), constrained_layout=True)
    ax.plot(t.load, t.threshold_kb, "o-", label="dcsim: Eq. 8 solved (web search, whole packets)")
    ax.plot([0.1, 0.8], [880, 1740], "s", color="grey", label="paper: ~880 KB at 10%, ~1740 KB at 80%")
    ax.set_xlabel("Load")
    ax.set_ylabel("Optimal threshold (KB)")
    ax.set_ylim(0, 2000)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return figure


register(ModelFigure(
    name="pfabric-fig22",
    title="pFabric Fig. 22: the optimal threshold of two priority queues vs load (web search)",
    source="pFabric (SIGCOMM'13) §6.1 and Appendix A, Eq. 8, Fig. 22",
    description=("The flow-size threshold between two strict-priority queues that minimizes the mean normalized "
                 "FCT of Eq. 8 (M/G/1 queues), for the web search sizes, at each load; no simulation "
                 "(`dcsim thresholds --method pfabric-eq8`)."),
    compute=fig22_compute,
    draw=fig22_draw,
    paper=(
        Statement("§6.1, Fig. 22", "threshold_kb_at_10pct", 790, 970, "the threshold is ~880 KB at 10% load"),
        Statement("§6.1, Fig. 22", "threshold_kb_at_80pct", 1570, 1910, "the threshold is ~1740 KB at 80% load"),
    ),
    notes=("Exact global optimum over candidate thresholds (dynamic programming, docs/schemes.md); sizes as the "
           "engine draws them: the shipped web search CDF, linear between its rows, whole packets. Quick: loads "
           "0.1-0.8 in steps of 0.1; full: 0.025."),
))


# ---- the workloads' flow sizes (pFabric Fig. 4, PIAS Fig. 4) ------------------


def byte_cdf(name: str, points: int, quantum: int = 1):
    """The flow sizes of a shipped workload at `points` quantiles, sorted
    (as the engine draws them: linear between the table's rows, rounded up
    to `quantum` bytes), and the fraction of all bytes that the flows of at
    most each size carry."""
    import numpy as np

    from ..workloads import load_cdf

    sizes = np.sort(load_cdf(name).quantile((np.arange(points) + 0.5) / points, quantum))
    return sizes, np.cumsum(sizes) / sizes.sum()


#: pFabric §5.1 and PIAS §V-A: the two workloads of Fig. 4, drawn from the
#: ns-2 scripts' tables in whole packets of 1,460 B, as the figures' runs are.
FIG4_WORKLOADS = {"web_search": "(a) Web search", "data_mining": "(b) Data mining"}
FIG4_QUANTUM = 1460


def fig4_compute(mode: str):
    import numpy as np
    import pandas as pd

    points = 20_000 if mode == "quick" else 1 << 20
    rows, stats = [], {}
    for name in FIG4_WORKLOADS:
        sizes, share = byte_cdf(name, points, FIG4_QUANTUM)
        grid = np.unique(np.geomspace(sizes[0], sizes[-1], 400).round())
        at = np.searchsorted(sizes, grid, side="right")
        rows += [{"workload": name, "size_bytes": float(s), "flow_share": i / points,
                  "byte_share": float(share[i - 1]) if i else 0.0} for s, i in zip(grid, at)]

        def below(size: float) -> tuple[float, float]:
            """(flows, bytes) in flows of at most `size` bytes."""
            i = np.searchsorted(sizes, size, side="right")
            return i / points, (float(share[i - 1]) if i else 0.0)

        if name == "web_search":
            f1, b1 = below(1e6)
            stats |= {"websearch_flows_above_1mb": 1 - f1, "websearch_bytes_above_1mb": 1 - b1,
                      "websearch_bytes_1_to_20mb": below(20e6)[1] - b1,
                      "websearch_bytes_below_10mb": below(10e6)[1]}
        else:
            f35, b35 = below(35e6)
            stats |= {"datamining_flows_at_most_10kb": below(10e3)[0],
                      "datamining_flows_above_35mb": 1 - f35, "datamining_bytes_above_35mb": 1 - b35}
    return pd.DataFrame(rows), stats


def fig4_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(9, 3.4), constrained_layout=True)
    for ax, (name, label) in zip(axes, FIG4_WORKLOADS.items()):
        g = t[t.workload == name]
        ax.plot(g.size_bytes, g.flow_share, lw=1.6, label="flows (CDF of flow size)")
        ax.plot(g.size_bytes, g.byte_share, lw=1.6, ls="--", label="bytes (share in flows of at most this size)")
        ax.set_xscale("log")
        ax.set_xlabel("Flow size (bytes)")
        ax.set_ylabel("Cumulative fraction")
        ax.set_ylim(0, 1.02)
        ax.set_title(label, fontsize=10)
        ax.grid(alpha=0.3, which="both")
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=8)
    return figure


FIG4_DESCRIPTION = ("The flow-size distributions of the web search and data mining workloads, by flows and by "
                    "bytes, as dcsim ships and draws them (the ns-2 scripts' tables, linear between rows, whole "
                    "packets of 1,460 B); no simulation.")
FIG4_NOTES = ("A model, no simulation: 20,000 (quick) or 2^20 (full) quantiles of each distribution. '~x' is read "
              "as within 10% of x, 'over x' and 'more than x' literally, KB and MB as 10^3 and 10^6 bytes (the "
              "data mining table's 80% row is 7 packets, 10,220 B). The web search table ends at 29.2 MB (20,000 "
              "packets): the flows above 20 MB carry a fifth of its bytes, so the '1-20MB' of pFabric §5.1 is looser "
              "than the table the simulations draw from (docs/reproductions/pfabric.md).")


def workloads_figure(name: str, title: str, source: str, paper: tuple) -> ModelFigure:
    """pFabric's and PIAS's Fig. 4: the same model, each paper's statements."""
    return ModelFigure(name=name, title=title, source=source, description=FIG4_DESCRIPTION, compute=fig4_compute,
                       draw=fig4_draw, paper=paper, notes=FIG4_NOTES)


register(workloads_figure(
    "pfabric-fig4", "pFabric Fig. 4: the flow-size distributions of the web search and data mining workloads",
    "pFabric (SIGCOMM'13) §5.1, Fig. 4",
    (
        Statement("§5.1", "websearch_flows_above_1mb", 0.27, 0.33,
                  "web search: 30% of the flows are 1-20 MB (read: larger than 1 MB)"),
        Statement("§5.1", "websearch_bytes_above_1mb", 0.95, 1.0,
                  "web search: over 95% of all bytes are from those flows"),
        Statement("§5.1", "websearch_bytes_1_to_20mb", 0.95, 1.0,
                  "web search: over 95% of all bytes are from the flows of 1-20 MB"),
        Statement("§5.1", "datamining_flows_at_most_10kb", 0.8, 1.0,
                  "data mining: more than 80% of the flows are less than 10 KB"),
        Statement("§5.1", "datamining_flows_above_35mb", 0.0324, 0.0396,
                  "data mining: ~3.6% of the flows are larger than 35 MB"),
        Statement("§5.1", "datamining_bytes_above_35mb", 0.95, 1.0,
                  "data mining: 95% of all bytes are in those flows"),
    ),
))

register(workloads_figure(
    "pias-fig4", "PIAS Fig. 4: the traffic distributions used for evaluation (web search, data mining)",
    "PIAS (ToN'17) §V-A, Fig. 4",
    (Statement("§V-B", "websearch_bytes_below_10mb", 0.54, 0.66,
               "~60% of all bytes in the web search workload are from flows smaller than 10 MB"),),
))
