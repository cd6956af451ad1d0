"""BFC's variants and the comparison schemes' settings (§6.4 and the
appendix): HPCC with BFC's queues (Fig. 14), BFC with end-to-end control
(Fig. 16), traffic classes (Fig. 20), parameter sensitivity (Fig. 21),
slow start (Fig. 23), partial deployment and sampling (Fig. 25), queue
assignment (Fig. 27) and the flow table's size (Fig. 28)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

from ..single import Statement
from .by_size import (
    BFC_LABELS,
    BFC_VARIANTS,
    BySizeFigure,
    FB,
    FB_FLOWS,
    _buffer_stat,
    _by_size,
    _on_fig11a,
    _ratio,
    _short_long,
    by_size_table,
    size_edges,
)

if TYPE_CHECKING:
    import pandas as pd


# ---- slow start (Fig. 23) ---------------------------------------------------

SS_VARIANTS = {"dctcp": {"scheme.name": "dctcp_rdma"},
               "dctcp_ss": {"scheme.name": "dctcp_rdma", "scheme.slow_start_pkts": 10},
               "bfc": {"scheme.name": "bfc"}}
SS_LABELS = {"dctcp": "DCTCP (line-rate start)", "dctcp_ss": "DCTCP + SS (IW 10)", "bfc": "BFC"}


def _ss_ratio(t, stat: str, bound: float, how: str, lo: float = 0) -> float:
    """DCTCP + SS over DCTCP in `stat`, over the size bins from `lo` up to
    `bound` bytes: their median (`how = "median"`) or largest ratio."""
    import numpy as np

    a, b = (t[(t.variant == v) & (t.bin_lo >= lo) & (t.bin_hi <= bound)][stat].to_numpy()
            for v in ("dctcp_ss", "dctcp"))
    if not len(a) or len(a) != len(b):
        return math.nan
    r = a / b
    return float(np.median(r) if how == "median" else r.max())


#: Slow start from 10 packets of 1 KB cannot slow a flow of at most 10 KB
#: down by itself: the "majority of flow sizes" (App. A.6) it hurts are
#: read from there up to 1 MB.
ABOVE_IW = 10_000


def fig23_stats(t, runs: dict) -> dict:
    return {"ss_over_dctcp_p99_short": _ss_ratio(t, "p99", 3000, "median"),
            "ss_over_dctcp_p50_short_medium": _ss_ratio(t, "p50", 1_000_000, "median"),
            "ss_over_dctcp_p99_short_medium": _ss_ratio(t, "p99", 1_000_000, "median"),
            "ss_over_dctcp_p50_above_iw": _ss_ratio(t, "p50", 1_000_000, "median", ABOVE_IW),
            "ss_over_dctcp_p99_above_iw": _ss_ratio(t, "p99", 1_000_000, "median", ABOVE_IW),
            "ss_over_dctcp_p50_max": _ss_ratio(t, "p50", math.inf, "max")}


SS_NOTES = ("DCTCP + SS is our slow start on the simulator's rate-based DCTCP (docs/schemes.md, `dctcp_rdma`): "
            "from a window of 10 packets, one more per acknowledged packet until the first mark. Short: bins up "
            "to 3 KB; short and medium: up to 1 MB; above the initial window: bins from 10 KB to 1 MB (the "
            "median of the bins' ratios; flows of at most 10 packets cannot be slowed by slow start itself).")
_on_fig11a(
    "bfc-fig23a", "BFC Fig. 23 (a, c): DCTCP with and without slow start, Facebook Hadoop at 55% + 5% incast",
    "BFC (NSDI'22) App. A.6, Fig. 23 (a, c)",
    "BFC's Fig. 11(a) set-up: DCTCP starting at line rate (as in the other figures) against DCTCP + SS (TCP slow "
    "start from 10 packets), BFC for reference; 99th percentile and median slowdown by size.",
    fig23_stats,
    (
        Statement("App. A.6", "ss_over_dctcp_p99_short", 0.0, 1.0,
                  "with incast, DCTCP + SS reduces the tail FCT (of short flows)"),
        Statement("App. A.6", "ss_over_dctcp_p50_max", 1.5, 2.5, "... but increases median FCTs by up to 2x"),
    ),
    SS_NOTES, SS_VARIANTS, SS_LABELS, shown=("p50", "p99"),
)
_by_size(
    "bfc-fig23b", "BFC Fig. 23 (b, d): DCTCP with and without slow start, Facebook Hadoop at 60%",
    "BFC (NSDI'22) App. A.6, Fig. 23 (b, d)",
    "As bfc-fig23a without incast (BFC's Fig. 11(b) set-up).",
    FB, FB_FLOWS, fig23_stats,
    (
        Statement("App. A.6", "ss_over_dctcp_p99_above_iw", 1.0, math.inf,
                  "without incast, DCTCP + SS increases the tail FCT for the majority of flow sizes (above its "
                  "initial window)"),
        Statement("App. A.6", "ss_over_dctcp_p50_above_iw", 1.0, math.inf, "... and the median FCT"),
    ),
    SS_NOTES + " Quick: 5,000 flows; full: 100,000.",
    variants=SS_VARIANTS, labels=SS_LABELS, shown=("p50", "p99"),
)


# ---- BFC's queue assignment and flow table (Figs. 27-28) --------------------

ASSIGN_VARIANTS = {"dynamic": {"scheme.name": "bfc"}, "stochastic": {"scheme.name": "bfc", "scheme.assign": "stochastic"}}
ASSIGN_LABELS = {"dynamic": "BFC + Dynamic", "stochastic": "BFC + Stochastic"}
TABLE_SIZES = (1, 10, 100, 1000)
TABLE_VARIANTS = {f"table{k}x": {"scheme.name": "bfc", "scheme.table_per_queue": k} for k in TABLE_SIZES}
TABLE_LABELS = {f"table{k}x": f"flow table {k}x queues" for k in TABLE_SIZES}


def _collision_fraction(runs: dict, variant: str) -> float:
    b = runs[variant].summary.get("bfc") if variant in runs else None
    return float(b["collision_fraction"]) if b else math.nan


def fig27_stats(t, runs: dict) -> dict:
    return {"stochastic_over_dynamic_p99_short": _ratio(t, "stochastic", "dynamic", "p99", True, 3000),
            "stochastic_over_dynamic_p99_all_bins": _ratio(t, "stochastic", "dynamic", "p99", True, math.inf),
            "dynamic_collision_fraction": _collision_fraction(runs, "dynamic"),
            "stochastic_collision_fraction": _collision_fraction(runs, "stochastic"),
            "stochastic_over_dynamic_collisions":
                _collision_fraction(runs, "stochastic") / max(_collision_fraction(runs, "dynamic"), 1e-12)}


def fig28_stats(t, runs: dict) -> dict:
    return {f"table{k}x_over_100x_p99_short": _ratio(t, f"table{k}x", "table100x", "p99", True, 3000)
            for k in TABLE_SIZES if k != 100}


_on_fig11a(
    "bfc-fig27", "BFC Fig. 27(a): dynamic against stochastic queue assignment, Facebook Hadoop at 55% + 5% incast",
    "BFC (NSDI'22) App. A.10, Fig. 27(a)",
    "BFC's Fig. 11(a) set-up with BFC's dynamic queue assignment (an empty queue if any) against stochastic "
    "assignment (the flow's hash picks the queue): slowdown by size.",
    fig27_stats,
    (
        Statement("App. A.10", "stochastic_over_dynamic_p99_short", 1.5, math.inf,
                  "BFC + Stochastic's tail latency is much worse, especially for small flows"),
        Statement("App. A.10", "stochastic_over_dynamic_p99_all_bins", 1.0, math.inf,
                  "... much worse for all flow sizes"),
        Statement("App. A.10, Fig. 27", "stochastic_over_dynamic_collisions", 2.0, math.inf,
                  "BFC + Stochastic incurs more queue collisions (in a high fraction of cases)"),
    ),
    "'Much worse' is read as at least 1.5x for short flows (bins up to 3 KB) and worse over all bins (the median "
    "of the bins' ratios). Panel (b), a CDF of collisions, is given as numbers: the fraction of new flows (a "
    "flow-table entry with no packet in the switch) whose queue already held packets, over all BFC ports; 'a "
    "high fraction' is read as at least twice dynamic assignment's fraction.",
    ASSIGN_VARIANTS, ASSIGN_LABELS,
)
_on_fig11a(
    "bfc-fig28", "BFC Fig. 28: the flow table's size (1x to 1000x the queues), Facebook Hadoop at 55% + 5% incast",
    "BFC (NSDI'22) App. A.11, Fig. 28",
    "BFC's Fig. 11(a) set-up with flow tables of 1, 10, 100 (the default) and 1000 entries per queue of the "
    "switch's ports: 99th percentile slowdown by size.",
    fig28_stats,
    (
        Statement("App. A.11", "table1x_over_100x_p99_short", 1.0, math.inf,
                  "reducing the size of the flow table hurts small flows' tail"),
        Statement("App. A.11", "table10x_over_100x_p99_short", 1.0, math.inf,
                  "reducing the size of the flow table hurts small flows' tail"),
        Statement("App. A.11", "table1000x_over_100x_p99_short", 0.0, 1.0,
                  "increasing it would moderately improve short flows' tail"),
    ),
    "The paper does not list its table sizes: we take 1x, 10x, 100x and 1000x. Short flows: bins up to 3 KB.",
    TABLE_VARIANTS, TABLE_LABELS,
)


# ---- parameter sensitivity of the comparison schemes (Fig. 21) ---------------


def _sweep_stats(variants: tuple) -> Callable:
    """A parameter sweep's trends: the last variant (the largest value)
    over the first (the smallest), for short flows' tail (bins up to
    3 KB) and long flows' average (the largest bin); and the spread (the
    largest over the smallest value among all the variants) of each."""

    def stats(t, runs: dict) -> dict:
        import numpy as np  # (here: the figures are registered by `dcsim list`, which needs no numpy)

        lo, hi = variants[0], variants[-1]
        out = {"hi_over_lo_p99_short": _ratio(t, hi, lo, "p99", True, 3000),
               "hi_over_lo_mean_long": _ratio(t, hi, lo, "mean", False, 0)}
        for key, stat, short in (("p99_short", "p99", True), ("mean_long", "mean", False)):
            vals = [float(np.median(_short_long(t, v, stat, short, 3000))) for v in variants if v in runs]
            out[f"spread_{key}"] = max(vals) / min(vals) if vals and min(vals) > 0 else math.nan
        return out
    return stats


def _sensitivity(letter: str, what: str, scheme: str, values: tuple, fields: Callable, fmt: Callable,
                 paper: tuple, notes: str) -> BySizeFigure:
    """Fig. 21(letter): `scheme` on Fig. 11(b)'s set-up (Facebook Hadoop at
    60%, no incast) with the fields `fields(value)` for each of `values`."""
    variants = {f"v{k}": {"scheme.name": scheme, **fields(v)} for k, v in enumerate(values)}
    labels = {f"v{k}": fmt(v) for k, v in enumerate(values)}
    return _by_size(
        f"bfc-fig21{letter}", f"BFC Fig. 21({letter}): {what}, Facebook Hadoop at 60%",
        f"BFC (NSDI'22) App. A.4, Fig. 21({letter})",
        f"BFC's Fig. 11(b) set-up (Facebook Hadoop sizes, 60% of the core, no incast) with {what}: slowdown by "
        "size at the average, 95th and 99th percentiles.",
        FB, FB_FLOWS, _sweep_stats(tuple(variants)), paper,
        notes + " Short flows: bins up to 3 KB; long: the largest bin. Quick: 5,000 flows; full: 100,000.",
        variants=variants, labels=labels)


_sensitivity(
    "a", "HPCC's target utilization eta from 90% to 98%", "hpcc", (0.90, 0.95, 0.98), lambda v: {"scheme.eta": v},
    lambda v: f"HPCC, eta = {v:.0%}",
    (
        Statement("App. A.4", "hi_over_lo_p99_short", 1.0, math.inf,
                  "increasing eta worsens the FCT of short flows (marginally)"),
        Statement("App. A.4", "hi_over_lo_mean_long", 0.0, 1.0, "... but improves the FCT of long flows (marginally)"),
    ),
    "The paper sweeps eta from 90 to 98% without listing its points: we take 90, 95 (the default) and 98%.",
)
_sensitivity(
    "b", "DCTCP's ECN marking thresholds Kmin-Kmax", "dctcp_rdma", ((50, 200), (100, 400), (200, 800)),
    lambda v: {"scheme.kmin_kb": float(v[0]), "scheme.kmax_kb": float(v[1])},
    lambda v: f"DCTCP, K = {v[0]}-{v[1]} KB",
    (
        Statement("App. A.4", "hi_over_lo_p99_short", 1.0, math.inf,
                  "increasing the threshold increases the queueing, and short flows' FCT"),
        Statement("App. A.4", "hi_over_lo_mean_long", 0.0, 1.0, "... but improves link utilization (long flows)"),
    ),
    "The paper does not list its thresholds: we halve and double the default 100-400 KB (Kmin-Kmax) of the HPCC "
    "simulator's DCTCP as BFC ran it.",
)
_sensitivity(
    "c", "ExpressPass's credit buffer size", "expresspass", (4, 8, 16, 32), lambda v: {"scheme.credit_queue_credits": v},
    lambda v: f"ExpressPass, {v} credits",
    (
        Statement("App. A.4", "spread_p99_short", 1.0, 1.5,
                  "varying the credit buffer size has little impact on performance (short flows)"),
        Statement("App. A.4", "spread_mean_long", 1.0, 1.5, "... and long flows"),
    ),
    "The paper does not list its sizes: we take 4, 8 (its co-author's scripts), 16 (its text) and 32 credits. "
    "'Little impact' is read as at most 1.5x between the best and the worst of the sizes.",
)
_sensitivity(
    "d", "ExpressPass's alpha (the first credit rate)", "expresspass", (1 / 16, 1 / 8, 1 / 4, 1 / 2), lambda v: {"scheme.alpha": v},
    lambda v: f"ExpressPass, alpha = 1/{round(1 / v)}",
    (
        Statement("App. A.4", "hi_over_lo_mean_long", 1.0, math.inf,
                  "reducing alpha reduces credit waste and improves long flows' FCT (a larger alpha: worse)"),
        Statement("App. A.4", "hi_over_lo_p99_short", 0.0, 1.0, "... but increases short flows' FCT (a larger "
                  "alpha: better)"),
    ),
    "The paper does not list its values: we take 1/16 to 1/2 (the default, its co-author's scripts).",
)


# ---- BFC's variants: end-to-end control, partial deployment, sampling --------


def _cc_stats(t, runs: dict) -> dict:
    return {"cc_over_bfc_mean_long": _ratio(t, "bfc_cc", "bfc", "mean", False, 0),
            "cc_over_bfc_p99_short": _ratio(t, "bfc_cc", "bfc", "p99", True, 3000),
            "cc_over_bfc_peak_buffer": _buffer_stat(runs, "bfc_cc", 1.0) / _buffer_stat(runs, "bfc", 1.0)}


CC_VARIANTS = {"bfc": {"scheme.name": "bfc"}, "bfc_cc": {"scheme.name": "bfc", "scheme.cc": "delay"},
               "hpcc": {"scheme.name": "hpcc"}, "ideal_fq": BFC_VARIANTS["ideal_fq"]}
CC_LABELS = {"bfc": "BFC 32", "bfc_cc": "BFC 32 (CC)", "hpcc": "HPCC", "ideal_fq": BFC_LABELS["ideal_fq"]}
CC_LONG = Statement("App. A.1", "cc_over_bfc_mean_long", 0.9, 1.1,
                    "with the end-to-end control, long flows' FCTs are within 10% of the original BFC's")
CC_NOTES = ("BFC 32 (CC) is BFC with Algorithm 1 of App. A.1 at the senders (`scheme.cc = \"delay\"`: a window "
            "steering each ACK's RTT to 2.5 base RTTs, from one BDP; docs/schemes.md). HPCC for reference. Long "
            "flows: the largest bin; short: bins up to 3 KB; peak buffer: the largest sample of any switch's "
            "buffer. 'Improves by 30%' is read as a ratio of 0.55-0.85.")
_on_fig11a(
    "bfc-fig16a", "BFC Fig. 16(a): BFC with end-to-end congestion control, Facebook Hadoop at 55% + 5% incast",
    "BFC (NSDI'22) App. A.1, Fig. 16(a)",
    "BFC's Fig. 11(a) set-up with BFC 32 and BFC 32 (CC), its simple delay-based end-to-end control on top: "
    "99th percentile slowdown by size and buffer occupancy.",
    _cc_stats,
    (
        CC_LONG,
        Statement("App. A.1", "cc_over_bfc_p99_short", 0.55, 0.85,
                  "with incast, the control improves short flows' 99th percentile by 30%"),
        Statement("App. A.1", "cc_over_bfc_peak_buffer", 0.55, 0.85, "... and the peak buffer occupancy by 30%"),
    ),
    CC_NOTES, CC_VARIANTS, CC_LABELS,
)
_by_size(
    "bfc-fig16b", "BFC Fig. 16(b): BFC with end-to-end congestion control, Facebook Hadoop at 60%",
    "BFC (NSDI'22) App. A.1, Fig. 16(b)",
    "As bfc-fig16a without incast (BFC's Fig. 11(b) set-up).",
    FB, FB_FLOWS, _cc_stats, (CC_LONG,), CC_NOTES + " Quick: 5,000 flows; full: 100,000.",
    variants=CC_VARIANTS, labels=CC_LABELS, shown=("p99",),
)


def fig25_stats(t, runs: dict) -> dict:
    c = {v: runs[v].summary["counters"] for v in runs}
    out = {}
    for v in ("nic", "sampling"):
        if v not in runs:
            continue
        out[f"{v}_over_bfc_p99_all_bins"] = _ratio(t, v, "bfc", "p99", True, math.inf)
        out[f"{v}_over_bfc_buffer_p99"] = _buffer_stat(runs, v, 0.99) / _buffer_stat(runs, "bfc", 0.99)
        out[f"{v}_over_bfc_buffer_p999"] = _buffer_stat(runs, v, 0.999) / _buffer_stat(runs, "bfc", 0.999)
        out[f"{v}_drops"] = float(c[v]["dropped_pkts"])
    out["nic_peak_buffer_over_size"] = _buffer_stat(runs, "nic", 1.0) / 12e6 if "nic" in runs else math.nan
    if "sampling" in runs:
        out["sampling_extra_retransmitted_fraction"] = (
            (c["sampling"]["retransmitted_pkts"] - c["bfc"]["retransmitted_pkts"]) / max(c["sampling"]["data_pkts"], 1))
    return out


_on_fig11a(
    "bfc-fig25", "BFC Fig. 25: BFC - NIC and BFC + sampling, Facebook Hadoop at 55% + 5% incast",
    "BFC (NSDI'22) App. A.8, Fig. 25",
    "BFC's Fig. 11(a) set-up with two deployment variants: BFC - NIC (NICs ignore backpressure; each flow caps its "
    "packets in flight at one end-to-end BDP) and BFC + sampling (switches recirculate half the packets, and only "
    "those count in the flow table and pause counters): 99th percentile slowdown by size and buffer occupancy.",
    fig25_stats,
    (
        Statement("App. A.8", "nic_over_bfc_p99_all_bins", 0.8, 1.25,
                  "BFC - NIC: collisions, hence FCTs, similar to the original BFC"),
        Statement("App. A.8, Fig. 25(b)", "nic_over_bfc_buffer_p999", 1.0, 3.0,
                  "BFC - NIC experiences moderately increased buffering (at the ToR)"),
        Statement("App. A.8", "nic_peak_buffer_over_size", 0.0, 1.0, "... still below the buffer size"),
        Statement("App. A.8", "nic_drops", 0, 0, "... and there are no drops"),
        Statement("App. A.8", "sampling_over_bfc_p99_all_bins", 0.8, 1.25,
                  "BFC + sampling: nearly identical tail slowdowns"),
        Statement("App. A.8", "sampling_over_bfc_buffer_p99", 0.8, 1.25, "... and switch buffer occupancy"),
        Statement("App. A.8", "sampling_extra_retransmitted_fraction", 0.0, 0.0004,
                  "with sampling, fewer than 0.04% of the packets were retransmitted due to reordering"),
    ),
    "BFC - NIC: the first switch counts nothing against a NIC and sends it no frames (`scheme.nic_pauses = "
    "false`); the window is the network's longest base RTT at line rate. Sampling at 50% (`scheme.sample = 0.5`); "
    "packets reordered by a queue change draw go-back-N retransmissions, counted as BFC + sampling's "
    "retransmissions above BFC's over its data packets. 'Similar' and 'nearly identical' are read as within 0.8-1.25x "
    "(the median over the size bins of the ratio of 99th percentiles); 'moderately increased' as 1-3x at the 99.9th "
    "percentile of the switches' buffer samples.",
    {"bfc": {"scheme.name": "bfc"}, "nic": {"scheme.name": "bfc", "scheme.nic_pauses": False},
     "sampling": {"scheme.name": "bfc", "scheme.sample": 0.5}},
    {"bfc": "BFC", "nic": "BFC - NIC", "sampling": "BFC + sampling"},
)


# ---- HPCC with BFC's queues (Fig. 14) ----------------------------------------

HPCC_PFC = {"scheme.name": "hpcc", "buffer.pfc": False, "scheme.perfect_retransmit": True, "scheme.rto_us": 1000.0}
FIG14_VARIANTS = {
    "hpcc": {"scheme.name": "hpcc"},
    "hpcc_nopfc": HPCC_PFC,
    "hpcc_sfq": {**HPCC_PFC, "scheme.queues": 32, "scheme.assign": "stochastic"},
    "hpcc_dqa": {**HPCC_PFC, "scheme.queues": 32, "scheme.assign": "dynamic"},
    "bfc": {"scheme.name": "bfc"},
    "ideal_fq": BFC_VARIANTS["ideal_fq"],
}
FIG14_LABELS = {"hpcc": "HPCC", "hpcc_nopfc": "HPCC-PFC", "hpcc_sfq": "HPCC-PFC+SFQ", "hpcc_dqa": "HPCC-PFC+DQA",
                "bfc": "BFC", "ideal_fq": BFC_LABELS["ideal_fq"]}


def _drop_rate(runs: dict, v: str) -> float:
    c = runs[v].summary["counters"]
    return c["dropped_pkts"] / max(c["data_pkts"], 1)


def fig14_stats(t, runs: dict) -> dict:
    out = {
        "sfq_over_nopfc_p99_short": _ratio(t, "hpcc_sfq", "hpcc_nopfc", "p99", True, 3000),
        "dqa_over_sfq_p99_short": _ratio(t, "hpcc_dqa", "hpcc_sfq", "p99", True, 3000),
        "dqa_over_nopfc_mean_long": _ratio(t, "hpcc_dqa", "hpcc_nopfc", "mean", False, 0),
        "dqa_over_bfc_mean_long": _ratio(t, "hpcc_dqa", "bfc", "mean", False, 0),
        "dqa_over_bfc_p99_short": _ratio(t, "hpcc_dqa", "bfc", "p99", True, 3000),
        "dqa_over_ideal_p99_short": _ratio(t, "hpcc_dqa", "ideal_fq", "p99", True, 3000),
        "dqa_over_bfc_buffer_p99": _buffer_stat(runs, "hpcc_dqa", 0.99) / _buffer_stat(runs, "bfc", 0.99),
    }
    nopfc = _drop_rate(runs, "hpcc_nopfc")
    for v in ("sfq", "dqa"):
        out[f"{v}_drop_rate_over_nopfc"] = _drop_rate(runs, f"hpcc_{v}") / nopfc if nopfc else math.nan
    out["nopfc_drop_rate"] = nopfc
    return out


_on_fig11a(
    "bfc-fig14", "BFC Fig. 14: HPCC with stochastic fair queueing and dynamic queue assignment, Facebook Hadoop at "
    "55% + 5% incast", "BFC (NSDI'22) §6.4, Fig. 14",
    "BFC's Fig. 11(a) set-up: HPCC; HPCC-PFC (PFC off, idealized retransmission); HPCC-PFC+SFQ and HPCC-PFC+DQA "
    "(32 queues per port, flows assigned by hash or by BFC's dynamic assignment, no backpressure); BFC and "
    "Ideal-FQ. 99th percentile slowdown by size and buffer occupancy.",
    fig14_stats,
    (
        Statement("§6.4", "sfq_over_nopfc_p99_short", 0.0, 1.0,
                  "adding SFQ to HPCC improves short flows' latency (isolation from long flows)"),
        Statement("§6.4", "dqa_over_sfq_p99_short", 0.0, 1.0,
                  "... but SFQ suffers more collisions (a higher short-flow tail) than DQA"),
        Statement("§6.4", "dqa_over_nopfc_mean_long", 0.9, 1.1, "DQA on its own has no benefit for long flows"),
        Statement("§6.4", "dqa_over_bfc_mean_long", 1.0, math.inf,
                  "... HPCC cannot fully use the link for long flows, even with DQA (worse than BFC)"),
        Statement("§6.4", "sfq_drop_rate_over_nopfc", 0.5, 2.0, "HPCC-PFC+SFQ drops at about HPCC-PFC's rate"),
        Statement("§6.4", "dqa_drop_rate_over_nopfc", 0.5, 2.0, "HPCC-PFC+DQA drops at about HPCC-PFC's rate"),
        Statement("§6.4, Fig. 14(b)", "dqa_over_bfc_buffer_p99", 1.0, math.inf, "... and builds deep buffers"),
        Statement("§6.4", "dqa_over_bfc_p99_short", 0.0, 1.0,
                  "HPCC-PFC+DQA has a better short-flow tail than BFC"),
        Statement("§6.4", "dqa_over_ideal_p99_short", 0.0, 1.0, "... and than Ideal-FQ"),
    ),
    "HPCC-PFC: `buffer.pfc = false` with `scheme.perfect_retransmit` (a dropped data packet is known to its sender "
    "at once and resent alone; receivers keep packets out of order) and BFC's 1 ms safety timeout for lost ACKs. SFQ and DQA: `scheme.queues = 32` with BFC's "
    "queues (deficit round robin, a flow table of 100x the queues) and no backpressure; their ACKs ride in the "
    "ports' control queue (HPCC's single FIFO carries them with the data, as the simulator does). 'About the same "
    "rate' is read as within 2x; 'no benefit' as within 10%; deep buffers as a 99th percentile above BFC's.",
    FIG14_VARIANTS, FIG14_LABELS,
)


# ---- multiple traffic classes (Fig. 20) ----------------------------------------

FIG20_CLASSES = 4
FIG20_VARIANTS = {"bfc": {"scheme.name": "bfc"}, "bfc128": {"scheme.name": "bfc", "scheme.queues": 128},
                  "hpcc": {"scheme.name": "hpcc"}, "dctcp": {"scheme.name": "dctcp_rdma"}}
FIG20_LABELS = {"bfc": "BFC (8 queues per class)", "bfc128": "BFC (32 queues per class)", "hpcc": "HPCC",
                "dctcp": "DCTCP"}


def fig20_table(runs: dict) -> "pd.DataFrame":
    """Slowdown by size bin for each traffic class (the bins of all flows,
    shared by every class and scheme)."""
    import copy

    import pandas as pd

    from ...metrics import traffic_classes
    from ...spec import spec_from_dict

    edges = size_edges(runs)
    parts = []
    for c in range(FIG20_CLASSES):
        by_class = {}
        for v, data in runs.items():
            d = copy.copy(data)
            d.flows = data.flows[traffic_classes(data.flows, spec_from_dict(data.summary["spec"])) == c]
            by_class[v] = d
        parts.append(by_size_table(by_class, edges).assign(traffic_class=c))
    return pd.concat(parts, ignore_index=True)


def fig20_stats(t, runs: dict) -> dict:
    import numpy as np

    def ratio(num: str, den: str, c: int, short: bool) -> float:
        g = t[t.traffic_class == c]
        return _ratio(g, num, den, "p99", True, 3000) if short else \
            float(np.median(g[g.variant == num].p99.to_numpy() / g[g.variant == den].p99.to_numpy()))

    classes = range(FIG20_CLASSES)
    dctcp = [ratio("dctcp", "bfc", c, True) for c in classes]
    bfc0 = t[(t.traffic_class == 0) & (t.variant == "bfc") & (t.bin_hi <= 3000)].p99
    return {
        "dctcp_over_bfc_p99_short_max": max(dctcp),
        "dctcp_over_bfc_p99_short_lowest": dctcp[-1],
        "bfc8_over_bfc32_p99_all": float(np.median([ratio("bfc", "bfc128", c, False) for c in classes])),
        "bfc_p99_short_highest": float(bfc0.median()),
        **{f"dctcp_over_bfc_p99_short_class{c}": r for c, r in zip(classes, dctcp)},
        **{f"hpcc_over_bfc_p99_short_class{c}": ratio("hpcc", "bfc", c, True) for c in classes},
    }


def fig20_draw(t, runs: dict, fig: BySizeFigure):
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, FIG20_CLASSES, figsize=(3.6 * FIG20_CLASSES, 3.8), constrained_layout=True,
                                sharey=True)
    for c, ax in enumerate(axes):
        for variant, g in t[t.traffic_class == c].groupby("variant", sort=False):
            ax.plot(g.bin_hi, g.p99, "o-", ms=3, lw=1.3, label=fig.labels.get(variant, variant))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("Flow size (bytes, bin's upper edge)")
        ax.set_title(f"priority {c + 1}" + (" (highest)" if c == 0 else " (lowest)" if c == FIG20_CLASSES - 1 else ""),
                     fontsize=9)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("99th percentile FCT slowdown")
    axes[0].legend(fontsize=7)
    return figure


_by_size(
    "bfc-fig20", "BFC Fig. 20: four strict-priority traffic classes, Facebook Hadoop at 60%, no incast",
    "BFC (NSDI'22) App. A.3, Fig. 20",
    "BFC's Fig. 11(b) set-up with the flows split evenly among four strict-priority classes (15% load each): BFC "
    "with its 32 queues per port split 8 per class and with 128 (32 per class), HPCC (telemetry on the port's "
    "aggregate queue) and DCTCP (ECN on the class's queue), all with a PFC priority per class. 99th percentile "
    "slowdown by size for each class.",
    FB, FB_FLOWS, fig20_stats,
    (
        Statement("App. A.3", "dctcp_over_bfc_p99_short_max", 2.5, 10.0,
                  "BFC achieves up to 5x better tail latency for short flows than DCTCP"),
        Statement("App. A.3", "dctcp_over_bfc_p99_short_lowest", 0.5, 2.0,
                  "at the lowest priority level, DCTCP's short flow tail latency converges to that of BFC"),
        Statement("App. A.3", "bfc8_over_bfc32_p99_all", 1.0, 1.5,
                  "BFC has only slightly better performance with 32 vs. 8 queues per priority level"),
        Statement("App. A.3", "bfc_p99_short_highest", 1.0, 2.0,
                  "for high priority traffic the set-up is equivalent to one class at 15% load (near ideal)"),
    ),
    "Classes by a hash of the flow id (`workload.traffic_classes = 4`): equal shares of the flows and, in "
    "expectation, of the load. Short flows: the size bins up to 3 KB (the median over them of the ratio of 99th "
    "percentiles); 'up to 5x' is read as the largest class's ratio within 2.5-10, 'converges' as within 2x, "
    "'slightly better' as a median ratio over every bin and class of 1-1.5, 'near ideal' as a median short-flow "
    "99th percentile below 2. Quick: 5,000 flows; full: 100,000.",
    variants=FIG20_VARIANTS, labels=FIG20_LABELS, shown=("p99",), tabulate=fig20_table, draw=fig20_draw,
    workload={"traffic_classes": FIG20_CLASSES},
)
