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
               "'close' as within 25% on the average over all flows. Table 2 (the core's queueing delays) is not "
               "reproduced: dcsim keeps queueing delays at shared-buffer switches only.")

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
            band = t[(t.size_median > bdp) & (t.size_median <= 2 * bdp)]
            h, b = band[band.variant == "homa"].p99.to_numpy(), band[band.variant == "bfc_srf"].p99.to_numpy()
            out["homa_over_bfc_srf_p99_1_to_2_bdp"] = float((h / b).max()) if len(h) and len(h) == len(b) else math.nan
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
    SRF_NOTES + " Short flows' average: over all short background flows, not by bin. 1-2 BDP: the bins whose median size is above Homa's RTT bytes and at most twice that (the largest "
    "ratio of 99th percentiles there). Quick: 50,000 background flows; full: 750,000.",
    incasts=True, variants=SRF_VARIANTS, labels=SRF_LABELS,
)
_by_size(
    "bfc-fig19b", "BFC Fig. 19(b): Homa against BFC-SRF with 100-to-1 incasts, Facebook Hadoop at 55% + 5%",
    SOURCE + ", Fig. 19(b)", "As bfc-fig19a with the Facebook Hadoop sizes (BFC's Fig. 11(a) set-up).",
    FB, FB_FLOWS, fig19_stats, FIG19,
    SRF_NOTES + " 1-2 BDP: as bfc-fig19a. Quick: 5,000 background flows; full: 100,000.",
    incasts=True, variants=SRF_VARIANTS, labels=SRF_LABELS,
)
