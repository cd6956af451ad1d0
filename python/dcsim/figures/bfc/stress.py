"""BFC's stress tests (§6.3): load (Fig. 12) and incast degree (Fig. 13),
and Fig. 24's IncastLabel on Fig. 13's runs (App. A.9)."""

from __future__ import annotations

import math
from ..core import Figure, Mode, Panel, PaperBound, register
from .by_size import BFC_BASE, FB, INCAST

# ---- stress tests: load and incast degree (Figs. 12-13) ----------------------

#: §6.3's statistics: the average slowdown of flows above 3 MB, the 99th
#: percentile of flows below 3 KB.
STRESS_BINS = (0, 3_000, 3_000_000, math.inf)
LONG_MEAN = Panel("long_mean", "long flows (> 3 MB): average", "(3MB, inf]", "mean", "FCT slowdown")
SHORT_P99 = Panel("short_p99", "short flows (< 3 KB): 99th percentile", "(0B, 3KB]", "p99", "FCT slowdown",
                  logy=True)
STRESS_VARIANTS = {"bfc32": {"scheme.name": "bfc"}, "bfc128": {"scheme.name": "bfc", "scheme.queues": 128},
                   "hpcc": {"scheme.name": "hpcc"}, "dctcp": {"scheme.name": "dctcp_rdma"}}
STRESS_LABELS = {"bfc32": "BFC 32", "bfc128": "BFC 128", "hpcc": "HPCC", "dctcp": "DCTCP"}
STRESS_NOTES = ("BFC's Clos and schemes as in bfc-fig11b (docs/schemes.md); BFC 128 has 128 queues per port and a "
                "flow table of 100 x 128. The paper names BFC 32, BFC 128 and HPCC for Fig. 12 and adds DCTCP in "
                "Fig. 13; we run all four in both. HPCC runs at every load (the paper shows it up to 70%, unstable "
                "above). One seed per point.")


def _stress(name: str, title: str, source: str, description: str, x: str, xlabel: str, quick: Mode, full: Mode,
            paper: tuple, notes: str, workload: dict, logx: bool = False, variants: dict = STRESS_VARIANTS,
            labels: dict = STRESS_LABELS) -> Figure:
    return register(Figure(
        name=name, title=title, source=source, description=description,
        base={**BFC_BASE, "workload": {**BFC_BASE["workload"], "cdf": FB, **workload}},
        x=x, xlabel=xlabel, facet="workload.cdf", facets=(FB,), facet_labels={FB: "Facebook Hadoop"},
        series="variant", series_values=tuple(variants), series_labels=labels,
        variants=variants, panels=(LONG_MEAN, SHORT_P99), bins=STRESS_BINS, quick=quick, full=full,
        paper=paper, notes=STRESS_NOTES + " " + notes, logx=logx, exclude_incasts=True))


_stress(
    "bfc-fig12", "BFC Fig. 12: long flows' average and short flows' tail slowdown against load (Facebook Hadoop)",
    "BFC (NSDI'22) §6.3, Fig. 12",
    "BFC with 32 and 128 queues per port, HPCC and DCTCP on BFC's Clos, Facebook Hadoop sizes with lognormal "
    "arrivals, no incast, load from 50% to 95% of the core: the average slowdown of flows above 3 MB and the 99th "
    "percentile of flows below 3 KB.",
    "workload.load", "Load (fraction of the ToR-spine capacity)",
    Mode(x_values=(0.5, 0.7, 0.9), flows=5_000), Mode(x_values=(0.5, 0.6, 0.7, 0.8, 0.9, 0.95), flows=100_000),
    (
        PaperBound("§6.3", FB, "short_p99", "bfc32", 1.0, 2.0, "at loads <= 80% BFC 32's short-flow tail is close to "
                   "the perfect value of 1", xs=(0.5, 0.6, 0.7, 0.8)),
        PaperBound("§6.3", FB, "short_p99", "bfc32", -math.inf, 0.0, "at loads <= 80% BFC 32 has a lower short-flow "
                   "tail than HPCC", relative_to="hpcc", xs=(0.5, 0.6, 0.7, 0.8)),
        PaperBound("§6.3", FB, "long_mean", "bfc32", -math.inf, 0.0, "at loads <= 80% BFC 32 gives long flows more "
                   "throughput than HPCC", relative_to="hpcc", xs=(0.5, 0.6, 0.7, 0.8)),
        PaperBound("§6.3", FB, "short_p99", "bfc128", -math.inf, 0.0, "at loads >= 90% BFC 128 has a better "
                   "short-flow tail than BFC 32", relative_to="bfc32", xs=(0.9, 0.95)),
    ),
    "Quick: 5,000 flows per point at 50, 70 and 90%; full: 100,000 at 50-95%.",
    {},
)

_stress(
    "bfc-fig13", "BFC Fig. 13: long flows' average and short flows' tail slowdown against incast degree (Facebook "
    "Hadoop, 55% + 5% incast)", "BFC (NSDI'22) §6.3, Fig. 13",
    "As bfc-fig12 at 55% load with BFC's incast mix on top (5% of the core: 20 MB to a random host every 500 us), "
    "the 20 MB split among 10 to 2,000 flows (the incast degree; beyond 127 senders each sends several). Incast "
    "flows are left out of the statistics.",
    "workload.incasts.senders", "Incast degree",
    Mode(x_values=(10, 100, 1000), flows=5_000), Mode(x_values=(10, 50, 100, 200, 500, 1000, 2000), flows=100_000),
    (
        PaperBound("§6.3", FB, "long_mean", "bfc32", -math.inf, 0.0, "BFC 32 keeps (some of) its advantage for long "
                   "flows over HPCC at every degree", relative_to="hpcc"),
        PaperBound("§6.3", FB, "long_mean", "bfc32", -math.inf, 0.0, "BFC 32 keeps (some of) its advantage for long "
                   "flows over DCTCP at every degree", relative_to="dctcp"),
        PaperBound("§6.3", FB, "short_p99", "bfc32", 0.0, math.inf, "for high incast degree BFC's short-flow tail "
                   "becomes worse than HPCC's", relative_to="hpcc", xs=(1000, 2000)),
    ),
    "The degradation the paper sees 'once the degree exceeds 8 x the queues per port' (256 for BFC 32) is read off "
    "the plot, not checked. Quick: 5,000 background flows per point (1.4 ms: two incasts) at degrees 10, 100, "
    "1,000; full: 100,000 (28 ms, 56 incasts) at 10-2,000.",
    {**INCAST},
    logx=True,
)


#: Fig. 24: Fig. 13's runs and BFC + IncastLabel.
LABEL_VARIANTS = {**STRESS_VARIANTS, "bfc32_label": {"scheme.name": "bfc", "scheme.incast_label": True}}
LABEL_LABELS = {**STRESS_LABELS, "bfc32": "BFC 32 + Flow FQ", "bfc32_label": "BFC 32 + IncastLabel"}
_stress(
    "bfc-fig24", "BFC Fig. 24: BFC + IncastLabel against incast degree (Facebook Hadoop, 55% + 5% incast)",
    "BFC (NSDI'22) App. A.7, Fig. 24",
    "bfc-fig13's set-up and schemes (the same points) with BFC + IncastLabel: the senders label incast flows, and "
    "every BFC port puts the labelled flows in one queue (one flow-table entry). Long flows' average and short "
    "flows' tail slowdown; incast flows left out.",
    "workload.incasts.senders", "Incast degree",
    Mode(x_values=(10, 100, 1000), flows=5_000), Mode(x_values=(10, 50, 100, 200, 500, 1000, 2000), flows=100_000),
    tuple(
        PaperBound("App. A.7", FB, panel, "bfc32_label", -math.inf, 0.0,
                   f"BFC + IncastLabel achieves the best performance in all scenarios ({what}, against {other})",
                   relative_to=other)
        for panel, what in (("long_mean", "long flows"), ("short_p99", "short flows' tail"))
        for other in ("bfc32", "hpcc", "dctcp")
    ),
    "'The best performance across all the scenarios' is checked against BFC 32 (+ Flow FQ), HPCC and DCTCP at "
    "every degree, for both statistics (BFC 128, in the plot, has four times the queues). Quick: 5,000 background "
    "flows per point at degrees 10, 100, 1,000; full: 100,000 at 10-2,000.",
    {**INCAST},
    logx=True, variants=LABEL_VARIANTS, labels=LABEL_LABELS,
)
