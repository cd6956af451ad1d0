"""BFC against the end-to-end schemes (§6.2 and App. A.5, A.12): Figs. 9,
10 and 11 (slowdown by size, buffers, PFC pauses, active flows), the
incast flows of Fig. 29 and the spatial locality of Fig. 22."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..core import register
from ..single import Statement
from .by_size import (
    BFC_BASE,
    BySizeFigure,
    FB,
    FB_FLOWS,
    GOOGLE_FLOWS,
    INCAST,
    _buffer_stat,
    _by_size,
    _ratio,
    _short_long,
)

if TYPE_CHECKING:
    import pandas as pd


# ---- FCT slowdown by flow size at one load (Figs. 9-11) ----------------------


def fig10_stats(t, runs: dict) -> dict:
    pfc = {v: runs[v].summary["counters"]["pfc_frames"] for v in ("dcqcn", "hpcc") if v in runs}
    short = 3000
    p99 = {v: _short_long(t, v, "p99", True, short).median() for v in runs}
    others = [p99[v] for v in ("hpcc", "bfc", "dctcp") if v in p99]
    return {
        "pfc_frames_dcqcn_hpcc": float(sum(pfc.values())),
        "hpcc_over_bfc_p99_short": _ratio(t, "hpcc", "bfc", "p99", True, short),
        "dctcp_over_bfc_p99_short": _ratio(t, "dctcp", "bfc", "p99", True, short) if "dctcp" in runs else math.nan,
        "dcqcn_p99_short_over_the_next_worst": float(p99["dcqcn"] / max(others)),
        "bfc_over_ideal_mean_all": float(runs["bfc"].flows.slowdown.mean() / runs["ideal_fq"].flows.slowdown.mean())
        if "ideal_fq" in runs else math.nan,
        **expresspass_stats(t, runs),
    }


def expresspass_stats(t, runs: dict) -> dict:
    """ExpressPass against BFC (the abstract's 35% and 17x) and against
    the other end-to-end schemes (long flows)."""
    if "expresspass" not in runs:
        return {}
    others = [v for v in ("hpcc", "dcqcn", "dctcp", "bfc") if v in runs]
    long_mean = {v: float(_short_long(t, v, "mean", False, 0).mean()) for v in others + ["expresspass"]}
    return {
        "expresspass_over_bfc_p99_short": _ratio(t, "expresspass", "bfc", "p99", True, 3000),
        "expresspass_over_bfc_mean_long": _ratio(t, "expresspass", "bfc", "mean", False, 0),
        "expresspass_mean_long_over_the_next_worst": long_mean["expresspass"] / max(long_mean[v] for v in others),
    }


def _incast_p99(runs: dict, variant: str) -> float:
    f = runs[variant].flows
    return float(f[f.incast].slowdown.quantile(0.99))


def _ideal_buffer_stats(runs: dict) -> dict:
    """The packet-level Ideal-FQ's peak switch buffer over the 12 MB a
    switch has (§6.2: "its buffer occupancy can grow to an unfeasible
    level")."""
    if "ideal_fq_packet" not in runs:
        return {}
    return {"ideal_packet_peak_buffer_over_12mb": _buffer_stat(runs, "ideal_fq_packet", 1.0) / (12 << 20)}


def fig9_stats(t, runs: dict) -> dict:
    out = {**fig10_stats(t, runs), **_ideal_buffer_stats(runs)}
    del out["pfc_frames_dcqcn_hpcc"], out["bfc_over_ideal_mean_all"]
    paused = {v: runs[v].summary.get("pfc", {}).get("paused_fraction_mean", 0.0) for v in ("dcqcn", "hpcc")}
    out["hpcc_over_dcqcn_pfc_paused"] = paused["hpcc"] / paused["dcqcn"] if paused["dcqcn"] else math.nan
    out["hpcc_over_bfc_p99_incast"] = _incast_p99(runs, "hpcc") / _incast_p99(runs, "bfc")
    return out


def _long_ratios(t, runs: dict) -> dict:
    """The long flows' average slowdown of each end-to-end scheme over BFC's."""
    return {f"{v}_over_bfc_mean_long": _ratio(t, v, "bfc", "mean", False, 0) if v in runs else math.nan
            for v in ("dcqcn", "hpcc", "dctcp")}


def fig11a_stats(t, runs: dict) -> dict:
    return {**fig9_stats(t, runs), **_long_ratios(t, runs)}


def fig11b_stats(t, runs: dict) -> dict:
    return {**fig10_stats(t, runs), **_long_ratios(t, runs)}


DCQCN_WORST = Statement("§6.2", "dcqcn_p99_short_over_the_next_worst", 1.0, math.inf,
                        "DCQCN is worst on latency for small flow sizes")
#: The abstract's range for short flows' tail, over DCTCP, DCQCN and HPCC
#: and all set-ups: read for DCTCP in each figure.
DCTCP_SHORT = Statement("abstract, §6", "dctcp_over_bfc_p99_short", 2.3, 60.0,
                        "BFC: 2.3-60x lower 99th percentile FCT for short flows than DCTCP, DCQCN, HPCC")
#: The abstract on ExpressPass (the Google runs): "35% better short flow
#: tail latency, but 17x worse average case performance for long flows"
#: (read as any ratio below 1, and within a factor of 2 of 17), and §6.2:
#: "across all systems, ExpressPass achieves the worst throughput for long
#: flows".
EXPRESSPASS = (
    Statement("abstract", "expresspass_over_bfc_p99_short", 0, 1.0,
              "ExpressPass: 35% better short-flow tail latency than BFC"),
    Statement("abstract", "expresspass_over_bfc_mean_long", 8.5, 34,
              "... but 17x worse average performance for long flows"),
    Statement("§6.2", "expresspass_mean_long_over_the_next_worst", 1.0, math.inf,
              "across all systems, ExpressPass achieves the worst throughput for long flows"),
)
#: What §6.2 says of the Facebook Hadoop runs (Fig. 11): the trends of the
#: Google runs, and the headline gain for long flows.
FB_TRENDS = (
    Statement("§6.2", "hpcc_over_bfc_p99_short", 1.0, math.inf,
              "trends as with the Google sizes: HPCC's short-flow tail above BFC's"),
    DCQCN_WORST,
    Statement("abstract, §6", "dcqcn_over_bfc_mean_long", 1.6, 5.0,
              "BFC: 1.6-5x better average FCT for long flows than DCQCN, DCTCP, HPCC"),
    Statement("abstract, §6", "hpcc_over_bfc_mean_long", 1.6, 5.0,
              "BFC: 1.6-5x better average FCT for long flows than DCQCN, DCTCP, HPCC"),
    Statement("abstract, §6", "dctcp_over_bfc_mean_long", 1.6, 5.0,
              "BFC: 1.6-5x better average FCT for long flows than DCQCN, DCTCP, HPCC"),
    DCTCP_SHORT,
)

_by_size(
    "bfc-fig10", "BFC Fig. 10: FCT slowdown by flow size and buffer occupancy, Google RPC sizes, 60% load, no incast",
    "BFC (NSDI'22) §6.2, Fig. 10 (a, b)",
    "BFC's Clos (128 hosts at 100 Gb/s, 12 MB shared buffers), Google all-RPC sizes with lognormal arrivals at 60% "
    "of the core; BFC, HPCC, DCQCN, DCTCP, ExpressPass and Ideal-FQ on the same flows: slowdown by size (average, 95th, 99th "
    "percentile) and every switch's buffer over time.",
    "google_rpc", GOOGLE_FLOWS, fig10_stats,
    (
        Statement("§6.2, Fig. 10 caption", "pfc_frames_dcqcn_hpcc", 0, 0, "for all the schemes, PFC was never triggered"),
        Statement("§6.2", "hpcc_over_bfc_p99_short", 2.3, 3.0,
                  "HPCC has 2.3-3x worse tail latency for short flows than BFC without incast"),
        DCQCN_WORST,
        DCTCP_SHORT,
        Statement("§6.2", "bfc_over_ideal_mean_all", 1.0, 1.5, "without incast BFC closely tracks optimal"),
        *EXPRESSPASS,
    ),
    "Short flows: the size bins up to 3 KB (the median over them of the ratio of 99th percentiles). Quick: 50,000 "
    "flows (0.3 ms of arrivals); full: 750,000 (5 ms).",
)

_by_size(
    "bfc-fig11b", "BFC Fig. 11(b): FCT slowdown by flow size, Facebook Hadoop sizes, 60% load, no incast",
    "BFC (NSDI'22) §6.2, Fig. 11(b)",
    "As bfc-fig10 with the Facebook Hadoop sizes: BFC, HPCC, DCQCN, DCTCP, ExpressPass and Ideal-FQ on the same flows.",
    "fb_hadoop", FB_FLOWS, fig11b_stats, FB_TRENDS,
    "Short flows: the size bins up to 3 KB; long: the largest bin (the largest 5% of flows, from about 270 KB). "
    "Quick: 5,000 flows (1.4 ms of arrivals); full: 100,000 (28 ms).",
)

_by_size(
    "bfc-fig9", "BFC Fig. 9 (a, b): FCT slowdown by flow size and buffer occupancy, Google RPC at 55% + 5% 100-to-1 "
    "incast", "BFC (NSDI'22) §6.2, Fig. 9 (a, b); App. A.12",
    "As bfc-fig10 with BFC's incast mix on top: every 500 us a random host receives 20 MB from 100 random others "
    "(5% of the core), the background at 55%. Slowdown of the background flows by size; the incast flows apart.",
    "google_rpc", GOOGLE_FLOWS, fig9_stats,
    (
        Statement("§6.2", "hpcc_over_bfc_p99_short", 5.0, 30.0,
                  "with incast HPCC has 5-30x worse tail latency for short flows than BFC"),
        DCQCN_WORST,
        DCTCP_SHORT,
        Statement("§6.2, Fig. 9(c)", "hpcc_over_dcqcn_pfc_paused", 0.0, 1.0,
                  "HPCC reduces PFC pauses (with incast) compared to DCQCN"),
        Statement("§6.2, App. A.12", "hpcc_over_bfc_p99_incast", 1.5, 2.5,
                  "BFC improves incast flows: 2x better FCTs at the tail than HPCC"),
        Statement("§6.2, Fig. 9(b)", "ideal_packet_peak_buffer_over_12mb", 1.0, math.inf,
                  "Ideal-FQ's buffer occupancy can grow to an unfeasible level"),
        *EXPRESSPASS,
    ),
    "Short flows: the size bins up to 3 KB. Incast flows (workload.incasts) are left out of the bins. Quick: 50,000 "
    "background flows (0.3 ms of arrivals: the first incast only); full: 750,000 (5 ms, 10 incasts).",
    incasts=True,
)

_by_size(
    "bfc-fig11a", "BFC Fig. 11(a): FCT slowdown by flow size, Facebook Hadoop at 55% + 5% 100-to-1 incast",
    "BFC (NSDI'22) §6.2, Fig. 11(a)", "As bfc-fig9 with the Facebook Hadoop sizes.",
    "fb_hadoop", FB_FLOWS, fig11a_stats, FB_TRENDS,
    "Short flows: the size bins up to 3 KB; long: the largest bin. Incast flows are left out of the bins. Quick: "
    "5,000 background flows (1.4 ms: two incasts); full: 100,000 (28 ms, 56 incasts).",
    incasts=True,
)


# ---- incast flows (Fig. 29) --------------------------------------------------

#: The deployed end-to-end schemes App. A.12 compares BFC's incast flows with.
DEPLOYED = ("hpcc", "dcqcn", "dctcp")


def incast_table(runs: dict) -> "pd.DataFrame":
    """Each scheme's incast flows: their slowdown's average and
    percentiles (App. A.12: "slowdown is defined per flow")."""
    import pandas as pd

    rows = []
    for variant, data in runs.items():
        s = data.flows.query("incast").slowdown.dropna()
        rows.append({"variant": variant, "flows": len(s), "mean": float(s.mean()), "p50": float(s.median()),
                     "p95": float(s.quantile(0.95)), "p99": float(s.quantile(0.99)), "max": float(s.max())})
    return pd.DataFrame(rows)


def fig29_stats(t, runs: dict) -> dict:
    at = t.set_index("variant")
    out = {}
    for v in (*DEPLOYED, "expresspass", "ideal_fq"):
        if v in at.index and "bfc" in at.index:
            for stat in ("mean", "p99"):
                out[f"{v}_over_bfc_{stat}_incast"] = float(at.loc[v, stat] / at.loc["bfc", stat])
    deployed = [v for v in DEPLOYED if v in at.index]
    if deployed and "bfc" in at.index:
        out["best_deployed_over_bfc_mean_incast"] = float(min(at.loc[v, "mean"] for v in deployed) / at.loc["bfc", "mean"])
        out["best_deployed_over_bfc_p99_incast"] = float(min(at.loc[v, "p99"] for v in deployed) / at.loc["bfc", "p99"])
    return out


def draw_incasts(t, runs: dict, fig: BySizeFigure):
    """The incast flows' slowdown: a CDF per scheme, and its average and
    tail as bars."""
    import matplotlib.pyplot as plt
    import numpy as np

    figure, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    for variant, data in runs.items():
        x = np.sort(data.flows.query("incast").slowdown.dropna().to_numpy())
        if len(x):
            a.plot(x, np.arange(1, len(x) + 1) / len(x), lw=1.3, label=fig.labels.get(variant, variant))
    a.set_xscale("log")
    a.set_xlabel("FCT slowdown of an incast flow")
    a.set_ylabel("CDF (incast flows)")
    a.grid(alpha=0.3, which="both")
    if a.get_legend_handles_labels()[0]:  # runs without incasts draw no CDF
        a.legend(fontsize=7)
    stats = ("mean", "p95", "p99")
    width = 0.8 / len(stats)
    for k, stat in enumerate(stats):
        b.bar(np.arange(len(t)) + (k - 1) * width, t[stat], width, label={"mean": "average"}.get(stat, stat))
    b.set_xticks(np.arange(len(t)), [fig.labels.get(v, v) for v in t.variant], rotation=20, fontsize=7, ha="right",
                 rotation_mode="anchor")
    b.set_ylabel("FCT slowdown")
    b.grid(alpha=0.3, axis="y")
    b.legend(fontsize=7)
    return figure


_by_size(
    "bfc-fig29", "BFC Fig. 29: FCT slowdown of the incast flows, Google RPC at 55% + 5% 100-to-1 incast",
    "BFC (NSDI'22) App. A.12, Fig. 29",
    "bfc-fig9's runs (the same points: pass its --out to reuse them), the incast flows alone: each flow's slowdown "
    "as a CDF per scheme, and its average and tail.",
    "google_rpc", GOOGLE_FLOWS, fig29_stats,
    (
        Statement("App. A.12", "best_deployed_over_bfc_mean_incast", 1.0, math.inf,
                  "BFC reduces the FCT of incast flows compared to the other feasible schemes (average; the best "
                  "of HPCC, DCQCN, DCTCP over BFC)"),
        Statement("App. A.12", "best_deployed_over_bfc_p99_incast", 1.0, math.inf, "... and at the tail"),
        Statement("§6.2, App. A.12", "hpcc_over_bfc_p99_incast", 1.5, 2.5,
                  "BFC improves incast flows: 2x better FCTs at the tail than HPCC"),
    ),
    "An incast flow's slowdown is its FCT over its size's ideal FCT alone on the fabric (as every flow's). The "
    "'other feasible schemes' are read as the deployed end-to-end ones (HPCC, DCQCN, DCTCP); ExpressPass's and "
    "Ideal-FQ's ratios are in the report without a statement. Quick: 50,000 background flows (the first incast); "
    "full: 750,000 (10 incasts).",
    incasts=True, tabulate=incast_table, draw=draw_incasts,
)


# ---- spatial locality (Fig. 22) ----------------------------------------------

#: App. A.5: Fig. 11 with source-destination pairs local enough that every
#: link carries the same load: on the 2:1 Clos, half the flows stay in
#: their rack, and the load is a fraction of the hosts' links (then the
#: core's too). The incasts keep Fig. 11's rate (5% of the core: 2.5% of
#: the hosts' links).
LOCAL = {"matrix": "rack_local", "local_share": 0.5, "load_basis": "host"}
LOCALITY_NOTES = ("Half the flows go to another host of their source's rack, half to another rack (uniformly): "
                  "the ToR-spine links then carry what the host links carry (the load, a fraction of the host "
                  "links). The paper does not give its matrices; this is the one that makes 'the average load on all "
                  "links the same' on its 2:1 Clos. Short flows: bins up to 3 KB; long: the largest bin.")
_by_size(
    "bfc-fig22a", "BFC Fig. 22(a): spatial locality, Facebook Hadoop at 55% + 5% incast",
    "BFC (NSDI'22) App. A.5, Fig. 22(a)",
    "bfc-fig11a with spatial locality: every scheme on the same flows, 99th percentile slowdown by size and "
    "buffers; incast flows left out.",
    FB, FB_FLOWS, fig11a_stats, FB_TRENDS,
    LOCALITY_NOTES + " The incasts as in bfc-fig11a (20 MB every 500 us). Quick: 5,000 background flows; full: "
    "100,000.",
    incasts=True, shown=("p99",), workload={**LOCAL, "incasts": {**INCAST["incasts"], "load_share": 0.025}},
)
_by_size(
    "bfc-fig22b", "BFC Fig. 22(b): spatial locality, Facebook Hadoop at 60%",
    "BFC (NSDI'22) App. A.5, Fig. 22(b)",
    "bfc-fig11b with spatial locality: every scheme on the same flows, 99th percentile slowdown by size and buffers.",
    FB, FB_FLOWS, fig11b_stats, FB_TRENDS, LOCALITY_NOTES + " Quick: 5,000 flows; full: 100,000.",
    shown=("p99",), workload=LOCAL,
)


# ---- active flows at a port (Fig. 10(c)) ----------------------------------------


def active_flows_table(runs: dict) -> "pd.DataFrame":
    """The CDF of the number of active flows (flows with packets) at a BFC
    switch port, over the sampler's records of every switch port while it
    holds packets."""
    import numpy as np
    import pandas as pd

    rows = []
    for variant, data in runs.items():
        q = data.queues
        n = np.sort(q[q.flows > 0].flows.to_numpy()) if len(q) else np.zeros(0, dtype=int)
        if not len(n):
            continue
        values, counts = np.unique(n, return_counts=True)
        cdf = np.cumsum(counts) / len(n)
        rows += [{"variant": variant, "active_flows": int(v), "cdf": float(c)} for v, c in zip(values, cdf)]
    return pd.DataFrame(rows)


def _cdf_at(t, variant: str, x: float) -> float:
    g = t[(t.variant == variant) & (t.active_flows <= x)]
    return float(g.cdf.max()) if len(g) else 0.0


def _quantile(t, variant: str, q: float) -> float:
    g = t[(t.variant == variant) & (t.cdf >= q)]
    return float(g.active_flows.min()) if len(g) else math.nan


def fig10c_stats(t, runs: dict) -> dict:
    return {"noincast_fraction_below_queues": _cdf_at(t, "noincast", 31),
            "incast_fraction_below_queues": _cdf_at(t, "incast", 31),
            "incast_over_noincast_p99": _quantile(t, "incast", 0.99) / _quantile(t, "noincast", 0.99),
            "noincast_p99": _quantile(t, "noincast", 0.99), "incast_p99": _quantile(t, "incast", 0.99)}


def draw_active_flows(t, runs: dict, fig: BySizeFigure):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(5.5, 3.8), constrained_layout=True)
    for variant, g in t.groupby("variant", sort=False):
        ax.step(g.active_flows, g.cdf, where="post", lw=1.4, label=fig.labels.get(variant, variant))
    ax.axvline(32, color="red", lw=1, label="queues per port (32)")
    ax.set_xscale("symlog", linthresh=10)
    ax.set_xlim(left=0)  # counts: symlog's autoscale reached -10
    ax.set_xlabel("Active flows at a port")
    ax.set_ylabel("CDF (samples of busy switch ports)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return figure


register(BySizeFigure(
    name="bfc-fig10c",
    title="BFC Fig. 10(c): active flows at a BFC switch port, Google RPC, with and without incast",
    source="BFC (NSDI'22) §6.2, Fig. 10(c)",
    description=("BFC on its Clos with Google RPC sizes: at 60% of the core (bfc-fig10's run) and at 55% with the "
                 "incast mix (bfc-fig9's); every switch port sampled each microsecond; the CDF of the flows with "
                 "packets at a port (its flow-table entries holding packets), over the samples of ports holding "
                 "packets, against the 32 queues of a port."),
    base={**BFC_BASE, "workload": {**BFC_BASE["workload"], "cdf": "google_rpc"},
          "run": {**BFC_BASE["run"], "sample_queues": "switches"}},
    variants={"noincast": {"scheme.name": "bfc"},
              "incast": {"scheme.name": "bfc", "workload.load": INCAST["load"],
                         **{f"workload.incasts.{k}": v for k, v in INCAST["incasts"].items()}}},
    labels={"noincast": "BFC, 60%, no incast", "incast": "BFC, 55% + 5% incast"},
    flows=GOOGLE_FLOWS,
    stats=fig10c_stats,
    paper=(
        Statement("§6.2, Fig. 10(c)", "noincast_fraction_below_queues", 0.99, 1.0,
                  "without incast, the active flows at a port are fewer than the queues 99% of the time"),
        Statement("§6.2, Fig. 10(c)", "incast_over_noincast_p99", 1.0, math.inf,
                  "with incast, the number of active flows increases"),
    ),
    notes=("Active flows: flow-table entries of the port holding packets (flows sharing an entry count once; the "
           "table has 3,200 entries). Samples: every switch port every 1 us, kept while the port holds packets "
           "(the paper does not say which ports or times its CDF covers). Quick: 50,000 flows; full: 750,000."),
    tabulate=active_flows_table,
    draw=draw_active_flows,
))


# ---- PFC pause time (Fig. 9(c)) -------------------------------------------------

TIERS = ("host_nic", "leaf_or_edge", "spine_or_aggregation")


def pfc_table(runs: dict) -> "pd.DataFrame":
    """Per scheme: the fraction of the run its ports spent paused by PFC,
    on average over all ports and at the most paused one, and by the tier
    of the port held (host NICs, ToR ports, spine ports)."""
    import pandas as pd

    rows = []
    for variant, data in runs.items():
        s = data.summary
        pfc = s.get("pfc", {})
        t = max(s["sim_time_s"], 1e-12)
        rows.append({"variant": variant, "frames": pfc.get("frames", 0),
                     "paused_fraction_mean": pfc.get("paused_fraction_mean", 0.0),
                     "paused_fraction_max": pfc.get("paused_fraction_max", 0.0),
                     **{f"paused_s_{k}": pfc.get("paused_s_by_tier", {}).get(k, 0.0) for k in TIERS},
                     "sim_time_s": t})
    return pd.DataFrame(rows)


def fig9c_stats(t, runs: dict) -> dict:
    at = t.set_index("variant")
    out = {f"{v}_paused_fraction_mean": float(at.loc[v, "paused_fraction_mean"]) for v in at.index}
    if {"hpcc", "dcqcn"} <= set(at.index) and at.loc["dcqcn", "paused_fraction_mean"] > 0:
        out["hpcc_over_dcqcn_pfc_paused"] = float(at.loc["hpcc", "paused_fraction_mean"]
                                                  / at.loc["dcqcn", "paused_fraction_mean"])
    return out


def draw_pfc(t, runs: dict, fig: BySizeFigure):
    import matplotlib.pyplot as plt
    import numpy as np

    figure, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    x = np.arange(len(t))
    names = [fig.labels.get(v, v) for v in t.variant]
    a.bar(x - 0.2, 100 * t.paused_fraction_mean, 0.4, label="average port")
    a.bar(x + 0.2, 100 * t.paused_fraction_max, 0.4, label="most paused port")
    a.set_ylabel("Time paused by PFC (% of the run)")
    b.set_ylabel("Port-seconds paused,\nby tier of the port held")
    bottom = np.zeros(len(t))
    for k in TIERS:
        v = t[f"paused_s_{k}"].to_numpy()
        b.bar(x, v, 0.6, bottom=bottom, label=k.replace("_", " "))
        bottom += v
    for ax in (a, b):
        ax.set_xticks(x, names, rotation=20, fontsize=7, ha="right", rotation_mode="anchor")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    return figure


_by_size(
    "bfc-fig9c", "BFC Fig. 9(c): time paused by PFC, Google RPC at 55% + 5% 100-to-1 incast",
    "BFC (NSDI'22) §6.2, Fig. 9(c)",
    "bfc-fig9's runs (the same points: pass its --out to reuse them): the fraction of the run each scheme's ports "
    "spent paused by PFC, on average and at the most paused port, and the paused time by tier.",
    "google_rpc", GOOGLE_FLOWS, fig9c_stats,
    (
        Statement("§6.2, Fig. 9(c)", "hpcc_over_dcqcn_pfc_paused", 0.0, 1.0,
                  "HPCC reduces PFC pauses (with incast) compared to DCQCN"),
        Statement("§6.2", "bfc_paused_fraction_mean", 0.0, 0.0, "BFC never triggers PFC (it runs without it)"),
    ),
    "A port's paused time runs from a pause frame's arrival to the resume's. BFC runs without PFC (its own "
    "backpressure; not counted here), ExpressPass on per-port buffers, Ideal-FQ at flow level. Quick: 50,000 "
    "background flows; full: 750,000.",
    incasts=True, tabulate=pfc_table, draw=draw_pfc,
)
