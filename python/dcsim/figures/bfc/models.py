"""BFC's queueing-model figures (Figs. 3 and 4): computed as the paper
says, on one link, without packets (`dcsim.queue_model`)."""

from __future__ import annotations

import math
from ..model import ModelFigure
from ..core import plain_log_ticks, register
from ..single import Statement

FIG4_LOADS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)
FIG4_SPEEDS = (10, 40, 100)
#: Flows per point, by mode.
FIG4_FLOWS = {"quick": 100_000, "full": 2_000_000}
MTU, HEADER = 1000, 48


def fig4_compute(mode: str):
    """CDF of the number of active flows on one link: fair queueing (PS) at
    10, 40 and 100 Gb/s, SRF (SRPT) and FIFO at 100 Gb/s; Google RPC sizes
    (with BFC's 1 KB packets and 48 B headers), lognormal gaps (sigma = 2)
    at each load, the gaps scaled so that the sequence's own load is the
    nominal one. Each load uses one flow sequence at every speed and
    policy."""
    import numpy as np
    import pandas as pd

    from ...queue_model import active_flows, cdf, lognormal_gaps, quantile
    from ...workloads import load_cdf

    n = FIG4_FLOWS[mode]
    loads = FIG4_LOADS if mode == "full" else (0.5, 0.7, 0.85, 0.95)
    sizes = load_cdf("google_rpc")
    rows, p99 = [], {}
    for k, load in enumerate(loads):
        rng = np.random.default_rng(4000 + k)
        size = sizes.quantile(rng.random(n))
        wire = size + np.ceil(np.maximum(size, 1) / MTU) * HEADER
        gaps = lognormal_gaps(n, wire.mean() * 8 / load, 2.0, rng)  # in bit times: scaled per speed below
        # lognormal gaps with sigma = 2 (CV^2 = e^4 - 1 = 54) average out
        # slowly: pin the sequence's own load to the nominal one
        gaps *= wire.sum() * 8 / load / gaps.sum()
        runs = [("fq", g) for g in FIG4_SPEEDS] + [("srf", 100), ("fifo", 100)]
        for policy, gbps in runs:
            rate = gbps * 1e9
            levels = active_flows({"fq": "ps", "srf": "srpt", "fifo": "fifo"}[policy], np.cumsum(gaps) / rate,
                                  wire * 8 / rate)
            c = cdf(levels)
            p99[(policy, gbps, load)] = quantile(levels, 0.99)
            rows += [{"policy": policy, "gbps": gbps, "load": load, "active_flows": i, "cdf": float(v)}
                     for i, v in enumerate(c) if i <= 1000]
    t = pd.DataFrame(rows)
    fq = t[t.policy == "fq"].pivot_table(index=["load", "active_flows"], columns="gbps", values="cdf")
    gap = float((fq.max(axis=1) - fq.min(axis=1)).max())
    stats = {
        "fq_p99_active_at_85pct": p99[("fq", 100, 0.85)],
        "fq_p99_active_at_95pct": p99[("fq", 100, 0.95)],
        "fq_cdf_gap_across_speeds": gap,
        "srf_over_fq_p99_at_95pct": p99[("srf", 100, 0.95)] / max(p99[("fq", 100, 0.95)], 1),
        "fifo_over_fq_p99_at_95pct": p99[("fifo", 100, 0.95)] / max(p99[("fq", 100, 0.95)], 1),
    }
    return t, stats


def fig4_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    figure, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True, sharey=True)
    loads = sorted(t.load.unique())
    colors = plt.cm.viridis([i / max(len(loads) - 1, 1) for i in range(len(loads))])
    styles = {10: ":", 40: "--", 100: "-"}
    for load, color in zip(loads, colors):
        for gbps, ls in styles.items():
            d = t[(t.policy == "fq") & (t.gbps == gbps) & (t.load == load)]
            a.plot(d.active_flows, d.cdf, ls, color=color, lw=1.3,
                   label=f"{load:.0%}" if gbps == 100 else None)
        for policy, ls in (("fq", "-"), ("srf", "--"), ("fifo", ":")):
            d = t[(t.policy == policy) & (t.gbps == 100) & (t.load == load)]
            b.plot(d.active_flows, d.cdf, ls, color=color, lw=1.3)
    # the model scales sizes and gaps together, so the three speeds' curves
    # coincide (drawn all the same, as the paper's figure has them)
    for ax, title in ((a, "(a) fair queueing at 10 (dotted), 40 (dashed), 100 Gb/s:\n"
                          "one curve per load (the model is invariant to link speed)"),
                      (b, "(b) 100 Gb/s: FQ (solid), SRF (dashed), FIFO (dotted)")):
        ax.axvline(32, color="red", lw=1, label="32 queues (a Tofino2 port)" if ax is b else None)
        ax.set_xscale("symlog", linthresh=10)  # linear to 10 flows (0 included), then log
        ax.set_xlim(0, 1000)
        ax.set_xticks([0, 5, 10, 32, 100, 1000], ["0", "5", "10", "32", "100", "1,000"])
        ax.set_xlabel("Active flows (linear to 10, then log)")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    a.set_ylabel("CDF (time)")
    a.legend(title="load", fontsize=7, title_fontsize=7, loc="lower right")
    b.legend(fontsize=7, loc="lower right")
    return figure


register(ModelFigure(
    name="bfc-fig4",
    title="BFC Fig. 4: active flows on one link, by load, link speed and scheduling (Google RPC sizes)",
    source="BFC (NSDI'22) §2.3, Fig. 4",
    description=("One bottleneck link as a queue of flows (no packets): Google all-RPC sizes, lognormal "
                 "inter-arrivals with sigma = 2 at each load, served by fair queueing (processor sharing), "
                 "shortest remaining flow first or FIFO; the time-average CDF of the number of flows in the "
                 "system, against the 32 queues of a Tofino2 port (red)."),
    compute=fig4_compute,
    draw=fig4_draw,
    paper=(
        Statement("§2.3, Fig. 4(a)", "fq_p99_active_at_85pct", 0, 40,
                  "at 100 Gb/s the active flows significantly exceed 32 only above 85% load"),
        Statement("§2.3, Fig. 4(a)", "fq_p99_active_at_95pct", 33, 100, "... and then only modestly"),
        Statement("§2.3, Fig. 4(a)", "fq_cdf_gap_across_speeds", 0, 0.02, "the distribution is invariant to link speed"),
        Statement("§2.3, Fig. 4(b)", "srf_over_fq_p99_at_95pct", 0, 1, "the result holds even more strongly with SRF"),
        Statement("§2.3, Fig. 4(b)", "fifo_over_fq_p99_at_95pct", 2, math.inf,
                  "with FIFO the number of active flows is much larger"),
    ),
    notes=("The paper gives no ranges: 'significantly exceeds' is read as a 99th percentile above 40, 'modestly' as "
           "below 100, 'much larger' as at least twice. Quick: 100,000 flows per point at loads 0.5, 0.7, 0.85, "
           "0.95; full: 2,000,000 at 0.5-0.95, each sequence's gaps scaled to make its own load exactly the nominal "
           "one (lognormal gaps with sigma = 2 average out slowly: 20,000 of them drawn for 85% made 63%). The model is exactly invariant to link speed (sizes and gaps "
           "scale together), as the paper's statement says."),
))


# ---- Fig. 3: how fast the fair share moves ------------------------------------

FIG3_WORKLOADS = {"google_rpc": "Google", "fb_hadoop": "Facebook Hadoop", "web_search": "WebSearch"}
#: The intervals over which the change is measured (the feedback delay of
#: a congestion controller: a few RTTs of a datacenter), us.
FIG3_INTERVALS_US = (1, 2, 4, 8, 16, 32, 64, 128)
FIG3_FLOWS = {"quick": 50_000, "full": 1_000_000}


def fig3_compute(mode: str):
    """One link at 10, 40 and 100 Gb/s shared fairly (processor sharing, no
    packets) by a long-lived flow and cross traffic at 60% of the link:
    each workload's sizes (with BFC's 1 KB packets and 48 B headers),
    lognormal gaps (sigma = 2) scaled to make the sequence's load exactly
    60%. The long flow's fair share is f(t) = C / N(t); we report the mean
    of |f(t + I) - f(t)| / f(t) over t for each interval I. One flow
    sequence per workload serves every speed (a faster link is the same
    system in shorter time)."""
    import numpy as np
    import pandas as pd

    from ...queue_model import fair_share_changes, lognormal_gaps
    from ...workloads import load_cdf

    n = FIG3_FLOWS[mode]
    samples = 200_000 if mode == "full" else 50_000
    rows = []
    for k, cdf_name in enumerate(FIG3_WORKLOADS):
        rng = np.random.default_rng(3000 + k)
        size = load_cdf(cdf_name).quantile(rng.random(n))
        wire_bits = (size + np.ceil(np.maximum(size, 1) / MTU) * HEADER) * 8
        gaps = lognormal_gaps(n, wire_bits.mean() / 0.6, 2.0, rng)
        gaps *= wire_bits.sum() / 0.6 / gaps.sum()
        arrivals_bits = np.cumsum(gaps)
        for gbps in FIG4_SPEEDS:
            rate = gbps * 1e9
            ch = fair_share_changes(arrivals_bits / rate, wire_bits / rate,
                                    [i * 1e-6 for i in FIG3_INTERVALS_US], samples, np.random.default_rng(7))
            rows += [{"workload": cdf_name, "gbps": gbps, "interval_us": i, "mean_change_pct": 100 * c}
                     for i, c in zip(FIG3_INTERVALS_US, ch)]
    t = pd.DataFrame(rows)
    at = t.set_index(["workload", "gbps", "interval_us"]).mean_change_pct
    stats = {
        # the same feedback delay (8 us) on a 10x faster link
        "speedup_100g_over_10g_at_8us": min(at[(w, 100, 8)] / at[(w, 10, 8)] for w in FIG3_WORKLOADS),
        # shorter flows: Google against WebSearch (100 Gb/s, 8 us)
        "google_over_websearch_at_100g_8us": at[("google_rpc", 100, 8)] / at[("web_search", 100, 8)],
        "google_change_pct_100g_8us": at[("google_rpc", 100, 8)],
    }
    return t, stats


def fig3_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(12, 3.6), constrained_layout=True, sharey=True)
    styles = {10: ":", 40: "--", 100: "-"}
    for ax, (cdf_name, label) in zip(axes, FIG3_WORKLOADS.items()):
        for gbps, ls in styles.items():
            d = t[(t.workload == cdf_name) & (t.gbps == gbps)]
            ax.plot(d.interval_us, d.mean_change_pct, ls, marker="o", ms=3, label=f"{gbps} Gb/s")
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(FIG3_INTERVALS_US), [str(i) for i in FIG3_INTERVALS_US])
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
        ax.set_xlabel("Interval (delay), us")
        ax.set_title(label, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("Mean change in fair-share rate (%)")
    axes[0].legend(fontsize=8)
    return figure


register(ModelFigure(
    name="bfc-fig3",
    title="BFC Fig. 3: how much a long flow's fair-share rate changes over an interval, by workload and link speed",
    source="BFC (NSDI'22) §2.1, Fig. 3",
    description=("One link shared fairly by a long-lived flow and cross traffic at 60% load (Google, Facebook "
                 "Hadoop or WebSearch sizes, lognormal gaps with sigma = 2), as a flow-level model (processor "
                 "sharing: exactly the fair share, no packets); the mean relative change |f(t+I) - f(t)| / f(t) "
                 "of the long flow's fair-share rate C / N(t) over intervals I of 1-128 us, at 10, 40 and "
                 "100 Gb/s."),
    compute=fig3_compute,
    draw=fig3_draw,
    paper=(
        Statement("§2.1, Fig. 3", "speedup_100g_over_10g_at_8us", 1.5, math.inf,
                  "as link speeds increase, the fair-share rate changes more rapidly (the same interval at 100 "
                  "against 10 Gb/s, every workload)"),
        Statement("§2.1, Fig. 3", "google_over_websearch_at_100g_8us", 1.0, math.inf,
                  "... and as flows become shorter (Google's sizes against WebSearch's)"),
        Statement("§2.1", "google_change_pct_100g_8us", 10, math.inf,
                  "the fair share varies significantly over a feedback delay (an RTT: 8 us at 100 Gb/s)"),
    ),
    notes=("The paper does not say how N(t) was obtained, which intervals it plotted, or the arrival process of "
           "this experiment; we compute the fair share exactly with a flow-level model (processor sharing with "
           "one flow that never leaves), over intervals of 1-128 us, with the lognormal (sigma = 2) arrivals of "
           "its other experiments and the 60% load it states. 'Changes more rapidly' is read as at least 1.5x "
           "the change at 10 Gb/s for the same interval, and 'significantly' as a mean change of 10% or more "
           "over 8 us at 100 Gb/s (Table 1's RTT). Quick: 50,000 flows per workload; full: 1,000,000."),
))
