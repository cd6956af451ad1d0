"""BFC against Homa (App. A.2): shortest remaining first by the switches
(BFC-SRF) or by the end points (Homa), with packet spraying and with
ECMP, beside an idealized SRF (Figs. 17, 18, 19)."""

from __future__ import annotations

import math

from ..core import register
from ..single import Statement
from .by_size import BFC_BASE, FB, FB_FLOWS, GOOGLE_FLOWS, BySizeFigure, _by_size, _ratio, _short_long

SOURCE = "BFC (NSDI'22) App. A.2"
#: The schemes of Figs. 17 and 19: Homa as its simulator runs it (packet
#: spraying; and with ECMP), BFC-SRF and IdealSRF+ECMP on the same flows.
SRF_VARIANTS = {"homa": {"scheme.name": "homa", "routing.load_balancing": "spray"},
                "homa_ecmp": {"scheme.name": "homa"},
                "bfc_srf": {"scheme.name": "bfc", "scheme.scheduling": "srf"},
                "ideal_srf": {"scheme.name": "ideal_srf_packet"}}
SRF_LABELS = {"homa": "Homa", "homa_ecmp": "Homa ECMP", "bfc_srf": "BFC-SRF", "ideal_srf": "IdealSRF+ECMP"}
SRF_NOTES = ("Homa as its OMNeT++ simulator runs it (the paper's), with 32 levels split by the workload's "
             "unscheduled bytes and packet spraying, and with ECMP; BFC-SRF and IdealSRF with ECMP "
             "(docs/schemes.md). Homa's FCT ends at its receiver and is normalized one-way (it sends "
             "nothing back), the others' at the sender with the last ACK's way back in their ideal, as in the "
             "paper's two simulators. Short flows: bins up to 3 KB; long: the largest bin (the largest 5%).")


def _overall(runs: dict, variant: str) -> float:
    return float(runs[variant].flows.slowdown.mean())


def fig17_stats(t, runs: dict) -> dict:
    if "homa" not in runs:
        return {}
    long = {v: float(_short_long(t, v, "mean", False, 0).mean()) for v in runs}
    others = [long[v] for v in runs if v != "homa"]
    out = {"best_other_over_homa_mean_long": min(others) / long["homa"],
           "worst_other_over_homa_mean_long": max(others) / long["homa"]}
    if "ideal_srf" in runs:
        out["ideal_srf_over_homa_mean_all"] = _overall(runs, "ideal_srf") / _overall(runs, "homa")
    if {"bfc_srf", "ideal_srf"} <= set(runs):
        out["bfc_srf_over_ideal_srf_mean_all"] = _overall(runs, "bfc_srf") / _overall(runs, "ideal_srf")
    if {"bfc_srf", "homa_ecmp"} <= set(runs):
        out["homa_ecmp_over_bfc_srf_mean_all"] = _overall(runs, "homa_ecmp") / _overall(runs, "bfc_srf")
    return out


FIG17 = (
    Statement("App. A.2", "best_other_over_homa_mean_long", 1.0, math.inf,
              "Homa performs the best out of all schemes (long flows' average)"),
    Statement("App. A.2", "worst_other_over_homa_mean_long", 1.0, 2.5,
              "... achieving up to 2x better FCTs for long flows"),
    Statement("App. A.2", "ideal_srf_over_homa_mean_all", 1.0, math.inf, "Homa even outperforms IdealSRF+ECMP"),
    Statement("App. A.2", "bfc_srf_over_ideal_srf_mean_all", 1.0, 1.25,
              "among the ECMP approaches, BFC-SRF is close to IdealSRF+ECMP"),
    Statement("App. A.2", "homa_ecmp_over_bfc_srf_mean_all", 1.0, math.inf, "... and Homa is worse"),
)
FIG17_NOTES = ("'Up to 2x' is read as the largest ratio of another scheme's long flows to Homa's at most 2.5 in "
               "each panel (the paper's two panels together reach 2x), "
               "'close' as within 25% on the average over all flows. Table 2 (the core's queueing delays): "
               "bfc-table2.")

_by_size(
    "bfc-fig17a", "BFC Fig. 17(a): Homa against BFC-SRF and IdealSRF, Google RPC at 60%, no incast", SOURCE + ", Fig. 17(a)",
    "BFC's Fig. 10 set-up (Google all-RPC sizes, 60% of the core, lognormal arrivals) with the schemes of App. A.2: "
    "Homa with packet spraying and with ECMP, BFC-SRF and IdealSRF+ECMP on the same flows.",
    "google_rpc", GOOGLE_FLOWS, fig17_stats, FIG17,
    SRF_NOTES + " " + FIG17_NOTES + " Quick: 50,000 flows; full: 750,000.",
    variants=SRF_VARIANTS, labels=SRF_LABELS,
)
_by_size(
    "bfc-fig17b", "BFC Fig. 17(b): Homa against BFC-SRF and IdealSRF, Facebook Hadoop at 60%, no incast",
    SOURCE + ", Fig. 17(b)", "As bfc-fig17a with the Facebook Hadoop sizes (BFC's Fig. 11(b) set-up).",
    FB, FB_FLOWS, fig17_stats, FIG17, SRF_NOTES + " " + FIG17_NOTES + " Quick: 5,000 flows; full: 100,000.",
    variants=SRF_VARIANTS, labels=SRF_LABELS,
)


# ---- one receiver, senders in its rack (Fig. 18) ------------------------------

def fig18_stats(t, runs: dict) -> dict:
    out = {}
    if {"homa", "bfc_srf"} <= set(runs):
        out["homa_over_bfc_srf_p99_all_bins"] = _ratio(t, "homa", "bfc_srf", "p99", True, math.inf)
        out["homa_over_bfc_srf_mean_all_bins"] = _ratio(t, "homa", "bfc_srf", "mean", True, math.inf)
    if {"bfc_srf", "ideal_srf"} <= set(runs):
        out["bfc_srf_over_ideal_srf_mean_all"] = _overall(runs, "bfc_srf") / _overall(runs, "ideal_srf")
    return out


#: App. A.2: "all flows destined to a single receiver, and the senders
#: located within the same rack as the receiver ... the load on the
#: receiver's link is 60%": the rack alone (its ToR and 16 hosts at
#: 100 Gb/s, 1 us links), every flow to host 0 from one of the other 15.
RACK = {"kind": "star", "hosts": 16, "rate_gbps": 100.0, "link_delay_us": 1.0}
FIG18_BASE = {**BFC_BASE, "topology": RACK,
              "workload": {"matrix": "many_to_one", "dst": 0, "load": 0.6, "load_basis": "host",
                           "arrivals": "lognormal", "arrival_sigma": 2.0}}
FIG18 = (
    Statement("App. A.2", "homa_over_bfc_srf_p99_all_bins", 1.0, math.inf,
              "BFC-SRF achieves better FCTs (than Homa) primarily at the tail"),
    Statement("App. A.2, Fig. 18 caption", "bfc_srf_over_ideal_srf_mean_all", 1.0, 1.25,
              "BFC-SRF achieves close to optimal FCTs"),
)
FIG18_NOTES = (SRF_NOTES + " Without traffic in the core the routing does not matter: Homa sprays (over the "
               "rack's one switch), the others use ECMP; Homa ECMP is left out. The rack is the fabric (the other "
               "ToRs carry nothing). Ratios by size: the median over all bins of Homa's statistic over "
               "BFC-SRF's; 'close to optimal' read as within 25% of IdealSRF on the average over all flows.")
for panel, cdf, flows, what in (("a", "google_rpc", GOOGLE_FLOWS, "Google RPC"), ("b", FB, FB_FLOWS, "Facebook Hadoop")):
    register(BySizeFigure(
        name=f"bfc-fig18{panel}",
        title=f"BFC Fig. 18({panel}): one receiver, senders in its rack, {what} at 60% of its link",
        source=SOURCE + f", Fig. 18({panel})",
        description=f"{what} sizes, every flow to one host from the 15 others of its rack, lognormal arrivals at 60% "
                    "of the receiver's link: Homa, BFC-SRF and IdealSRF on the same flows (BFC's dynamic queue "
                    "assignment against Homa's end-point priorities, without the core).",
        base={**FIG18_BASE, "workload": {**FIG18_BASE["workload"], "cdf": cdf}},
        variants={v: SRF_VARIANTS[v] for v in ("homa", "bfc_srf", "ideal_srf")}, labels=SRF_LABELS, flows=flows,
        stats=fig18_stats, paper=FIG18,
        notes=FIG18_NOTES + f" One seed. Quick: {flows['quick']:,} flows; full: {flows['full']:,}."))


# ---- with incast (Fig. 19) ---------------------------------------------------

def fig19_stats(t, runs: dict) -> dict:
    out = {}
    if {"homa", "bfc_srf"} <= set(runs):
        out["bfc_srf_over_homa_mean_short"] = _short_mean(runs, "bfc_srf") / _short_mean(runs, "homa")
        bdp = runs["homa"].summary.get("homa", {}).get("rtt_bytes")
        if bdp:
            # the bins (shared by every scheme: paired on their edges) whose
            # median flow is in (1, 2] BDP
            keys = ["bin_lo", "bin_hi"]
            h, b = (t[t.variant == v].set_index(keys) for v in ("homa", "bfc_srf"))
            band = h[(h.size_median > bdp) & (h.size_median <= 2 * bdp)].index.intersection(b.index)
            ratio = h.loc[band, "p99"] / b.loc[band, "p99"]
            out["homa_over_bfc_srf_p99_1_to_2_bdp"] = float(ratio.median()) if len(ratio) else math.nan
    return out


def _short_mean(runs: dict, variant: str) -> float:
    """The average slowdown of the short background flows (up to 3 KB):
    the few that collide weigh in, where a median over bins hides them."""
    f = runs[variant].flows
    return float(f[~f.incast & (f.size_bytes <= 3000)].slowdown.mean())


FIG19 = (
    Statement("App. A.2", "bfc_srf_over_homa_mean_short", 1.0, math.inf,
              "the average FCT for short flows is higher with BFC-SRF (collisions: priority inversions)"),
    Statement("App. A.2", "homa_over_bfc_srf_p99_1_to_2_bdp", 1.0, math.inf,
              "with Homa, flows between 1 and 2 BDP have high FCTs at the tail (incast flows' unscheduled bytes "
              "ahead of their scheduled ones)"),
)
_by_size(
    "bfc-fig19a", "BFC Fig. 19(a): Homa against BFC-SRF with 100-to-1 incasts, Google RPC at 55% + 5%",
    SOURCE + ", Fig. 19(a)",
    "BFC's Fig. 9 set-up (Google all-RPC at 55% of the core with BFC's incast mix on top: 20 MB from 100 hosts to "
    "one every 500 us) with the schemes of App. A.2; incast flows left out of the bins.",
    "google_rpc", GOOGLE_FLOWS, fig19_stats, FIG19,
    SRF_NOTES + " Short flows' average: over all short background flows, not by bin. 1-2 BDP: the bins whose median "
    "flow is within (1, 2] x Homa's RTT bytes (the median of the ratios of 99th percentiles there). Quick: 50,000 background flows; full: 750,000.",
    incasts=True, variants=SRF_VARIANTS, labels=SRF_LABELS,
)
_by_size(
    "bfc-fig19b", "BFC Fig. 19(b): Homa against BFC-SRF with 100-to-1 incasts, Facebook Hadoop at 55% + 5%",
    SOURCE + ", Fig. 19(b)", "As bfc-fig19a with the Facebook Hadoop sizes (BFC's Fig. 11(a) set-up).",
    FB, FB_FLOWS, fig19_stats, FIG19,
    SRF_NOTES + " 1-2 BDP: as bfc-fig19a. Quick: 5,000 background flows; full: 100,000.",
    incasts=True, variants=SRF_VARIANTS, labels=SRF_LABELS,
)


# ---- the core's queueing delays under Homa (Table 2) --------------------------

#: Table 2's links: a spine's ports towards the ToRs (Agg-ToR) and a ToR's
#: uplinks (ToR-Agg), as the summary's `queueing_delay` keys them.
CORE_LINKS = {"Agg-ToR": "spine_or_aggregation_scheduled", "ToR-Agg": "leaf_or_edge_up_scheduled"}
#: Table 2's numbers (us): (95th, 99th percentile) by scheme and link.
TABLE2_PAPER = {("homa", "Agg-ToR"): (2.4, 6.7), ("homa", "ToR-Agg"): (2.1, 6.0),
                ("homa_ecmp", "Agg-ToR"): (40.8, 87.2), ("homa_ecmp", "ToR-Agg"): (43.7, 93.3)}


def table2_table(runs: dict):
    import pandas as pd

    rows = []
    for variant, data in runs.items():
        q = data.summary.get("queueing_delay", {})
        for link, key in CORE_LINKS.items():
            d = q.get(key)
            paper = TABLE2_PAPER.get((variant, link), (math.nan, math.nan))
            rows.append({"variant": variant, "link": link, "packets": d["packets"] if d else 0,
                         "p95_us": d["p95_us"] if d else math.nan, "p99_us": d["p99_us"] if d else math.nan,
                         "paper_p95_us": paper[0], "paper_p99_us": paper[1]})
    return pd.DataFrame(rows)


def table2_stats(t, runs: dict) -> dict:
    g = t.set_index(["variant", "link"])
    out = {}
    for link in CORE_LINKS:
        for q in ("p95", "p99"):
            if ("homa", link) in g.index and ("homa_ecmp", link) in g.index:
                key = f"ecmp_over_spray_{q}_{link.lower().replace('-', '_')}"
                out[key] = float(g.loc[("homa_ecmp", link), f"{q}_us"] / g.loc[("homa", link), f"{q}_us"])
    return out


def draw_table2(t, runs: dict, fig: BySizeFigure):
    import matplotlib.pyplot as plt
    import numpy as np

    from ..core import figure_legend

    figure, axes = plt.subplots(1, 2, figsize=(8, 3.6), constrained_layout=True, sharey=True)
    for ax, q in zip(axes, ("p95", "p99")):
        links = list(CORE_LINKS)
        x = np.arange(len(links))
        for i, variant in enumerate(v for v in ("homa", "homa_ecmp") if v in set(t.variant)):
            g = t[t.variant == variant].set_index("link")
            ours = [g.loc[link, f"{q}_us"] for link in links]
            paper = [g.loc[link, f"paper_{q}_us"] for link in links]
            bars = ax.bar(x + (i - 0.5) * 0.38, ours, 0.36, color=f"C{i}",
                          label=f"{fig.labels.get(variant, variant)} (dcsim)")
            # each bar's value (sprayed packets queue 4 us, ECMP's 100:
            # linear bars, read by their labels)
            ax.bar_label(bars, fmt="%.3g", fontsize=7, padding=2)
            ax.scatter(x + (i - 0.5) * 0.38, paper, marker="_", s=400, color="black", zorder=3,
                       label="the paper" if i == 0 else None)
        ax.margins(y=0.1)
        ax.set_xticks(x, links)
        ax.set_title(f"{'95th' if q == 'p95' else '99th'} percentile", fontsize=9)
        ax.grid(alpha=0.3, axis="y", which="both")
    axes[0].set_ylabel("Queueing delay of scheduled packets (us)")
    figure_legend(figure, *axes[0].get_legend_handles_labels())
    return figure


TABLE2 = tuple(
    Statement("App. A.2, Table 2", f"ecmp_over_spray_{q}_{link.lower().replace('-', '_')}", 5.0, math.inf,
              f"with ECMP, scheduled traffic queues far longer in the core ({link}, {q}: the paper's "
              f"{TABLE2_PAPER[('homa_ecmp', link)][i]:g} against {TABLE2_PAPER[('homa', link)][i]:g} us)")
    for link in CORE_LINKS for i, q in enumerate(("p95", "p99")))
register(BySizeFigure(
    name="bfc-table2", title="BFC Table 2: queueing delay of Homa's scheduled packets in the core, sprayed and ECMP",
    source=SOURCE + ", Table 2",
    description="bfc-fig17b's Homa runs (Facebook Hadoop at 60%, no incast) with every switch's queueing delays kept: "
                "the 95th and 99th percentile wait of scheduled packets at the spines' ports to the ToRs (Agg-ToR) "
                "and the ToRs' uplinks (ToR-Agg), with packet spraying and with ECMP.",
    base={**BFC_BASE, "workload": {**BFC_BASE["workload"], "cdf": FB}, "run": {**BFC_BASE["run"], "queueing_delay": True}},
    variants={v: SRF_VARIANTS[v] for v in ("homa", "homa_ecmp")}, labels=SRF_LABELS, flows=FB_FLOWS,
    stats=table2_stats, paper=TABLE2, tabulate=table2_table, draw=draw_table2,
    notes="The paper does not say which workload Table 2 ran; these are the Facebook Hadoop runs of Fig. 17(b). A "
          "packet waits from its arrival at a port to the start of its departure; scheduled packets are those "
          "beyond a message's RTT bytes. 'Significantly higher' is read as at least 5x (the paper's: 13-21x). One "
          "seed. Quick: 5,000 flows; full: 100,000."))
