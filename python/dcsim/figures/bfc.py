"""BFC (NSDI'22) figures. Fig. 4 is a queueing model of one link, computed
as the paper says (`dcsim.queue_model`); the packet-level figures follow
as their schemes and workloads land (docs/reproductions/bfc.md)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from .model import ModelFigure
from .core import Figure, Mode, Panel, PaperBound, register
from .single import Statement

if TYPE_CHECKING:
    import pandas as pd

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

    from ..queue_model import active_flows, cdf, lognormal_gaps, quantile
    from ..workloads import load_cdf

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
    for ax, title in ((a, "(a) fair queueing at 10 (dotted), 40 (dashed), 100 Gb/s"),
                      (b, "(b) 100 Gb/s: FQ (solid), SRF (dashed), FIFO (dotted)")):
        ax.axvline(32, color="red", lw=1)
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlim(0, 1000)
        ax.set_xlabel("Active flows")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
    a.set_ylabel("CDF (time)")
    a.legend(title="load", fontsize=7, title_fontsize=7, loc="lower right")
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

    from ..queue_model import fair_share_changes, lognormal_gaps
    from ..workloads import load_cdf

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


# ---- FCT slowdown by flow size at one load (Figs. 9-11) ----------------------


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
        from ..errors import SpecError
        from ..sweep import Sweep

        if mode not in self.flows:
            raise SpecError(f"mode must be quick or full, got {mode!r}")
        from ..spec import apply_overrides

        base = json.loads(json.dumps(self.base))
        base.setdefault("workload", {})["flows"] = self.flows[mode]
        base = apply_overrides(base, dict(self.mode_set.get(mode, {})))
        return Sweep(name=f"{self.name}-{mode}", base=base, grid={"variant": list(self.variants), "seed": [1]},
                     variants=self.variants)

    def reproduce(self, out: Path, mode: str, **run):
        import matplotlib

        matplotlib.use("Agg")
        from ..errors import SpecError
        from ..runner import load_points, point_dir, run_sweep
        from .single import RunData, save

        out = Path(out)
        result = run_sweep(self.sweep(mode), out, **run)
        runs = {}
        for p in load_points(out):
            runs[p["point"]["params"]["variant"]] = RunData.load(point_dir(out, p["point"]["key"]))
        if not runs:
            raise SpecError(f"{out}: no run completed")
        mark_incasts(runs)
        table = (self.tabulate or by_size_table)(runs)
        stats = self.stats(table, runs)
        save(self, out, mode, stats, table, (self.draw or draw_by_size)(table, runs, self), len(runs), result.failed)
        return result, table


def mark_incasts(runs: dict) -> None:
    """Add an `incast` column to each run's flows: whether the flow belongs
    to `workload.incasts` (BFC reports those apart, App. A.12)."""
    from ..spec import spec_from_dict
    from ..spec.experiment import incast_ids

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

    names = {"mean": "average", "p50": "median", "p95": "95th percentile", "p99": "99th percentile"}
    n = len(fig.shown)
    # one colour per scheme in every panel (some schemes have no buffers)
    color = {v: f"C{i % 10}" for i, v in enumerate(dict.fromkeys(list(t.variant) + list(runs)))}
    figure, axes = plt.subplots(1, n + 1, figsize=(3.75 * (n + 1), 3.8), constrained_layout=True)
    for ax, stat in zip(axes, fig.shown):
        title = names[stat]
        for variant, g in t.groupby("variant", sort=False):
            ax.plot(g.bin_hi, g[stat], "o-", ms=3, lw=1.3, color=color[variant], label=fig.labels.get(variant, variant))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("Flow size (bytes, bin's upper edge)")
        ax.set_title(f"FCT slowdown: {title}", fontsize=9)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("FCT slowdown")
    axes[0].legend(fontsize=7)
    ax = axes[n]
    for variant, data in runs.items():
        b = data.buffers
        if b is None or not len(b):
            continue
        x = np.sort(b.bytes.to_numpy()) / 1e6
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), lw=1.3, color=color[variant], label=fig.labels.get(variant, variant))
    ax.set_xscale("symlog", linthresh=0.01)
    ax.set_xlabel("Buffer occupancy per switch (MB)")
    ax.set_ylabel("CDF (samples)")
    ax.set_title("Buffer occupancy", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return figure


#: BFC §6.2.1's set-up: the 128-host Clos (8 ToRs x 16 hosts, 8 spines,
#: 100 Gb/s, 1 us links), per-flow ECMP, lognormal arrivals (sigma = 2),
#: the load on the ToR-spine links, every switch's buffer sampled each us.
BFC_BASE = {
    "topology": {"kind": "leaf_spine", "leaves": 8, "spines": 8, "hosts_per_leaf": 16, "host_rate_gbps": 100.0,
                 "spine_rate_gbps": 100.0, "host_link_delay_us": 1.0, "spine_link_delay_us": 1.0},
    "routing": {"load_balancing": "ecmp"},
    "workload": {"load": 0.6, "load_basis": "core", "arrivals": "lognormal", "arrival_sigma": 2.0},
    "run": {"sample_us": 1.0, "sample_queues": "none"},
}
#: Ideal-FQ counts the RDMA schemes' packets (1000 B payloads, 48 B
#: headers), so the arrival rate that makes the load, and the flows, are
#: theirs.
BFC_VARIANTS = {"bfc": {"scheme.name": "bfc"}, "hpcc": {"scheme.name": "hpcc"}, "dcqcn": {"scheme.name": "dcqcn"},
                "dctcp": {"scheme.name": "dctcp_rdma"}, "expresspass": {"scheme.name": "expresspass"},
                "ideal_fq": {"scheme.name": "ideal_fq", "scheme.mss_bytes": 1000, "scheme.header_bytes": 48},
                "ideal_fq_packet": {"scheme.name": "ideal_fq_packet"}}
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
    "Short flows: the size bins up to 3 KB; long: the largest bin (the largest 5% of flows, above about 1 MB). "
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


# ---- slow start (Fig. 23) ---------------------------------------------------

FB = "fb_hadoop"
#: How the runs on Fig. 11(a)'s set-up are counted and sized.
FIG11A_RUNS = "Incast flows left out. Quick: 5,000 background flows; full: 100,000."


def _on_fig11a(name: str, title: str, source: str, description: str, stats, paper: tuple, notes: str,
               variants: dict, labels: dict, shown: tuple = ("p99",)) -> BySizeFigure:
    """A variant study on Fig. 11(a)'s set-up (Facebook Hadoop at 55% +
    5% incast), as BFC's appendix runs them."""
    return _by_size(name, title, source, description, FB, FB_FLOWS, stats, paper, notes + " " + FIG11A_RUNS,
                    incasts=True, variants=variants, labels=labels, shown=shown)



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
    a.legend(fontsize=7)
    stats = ("mean", "p95", "p99")
    width = 0.8 / len(stats)
    for k, stat in enumerate(stats):
        b.bar(np.arange(len(t)) + (k - 1) * width, t[stat], width, label={"mean": "average"}.get(stat, stat))
    b.set_xticks(np.arange(len(t)), [fig.labels.get(v, v) for v in t.variant], rotation=20, fontsize=7)
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


# ---- parameter sensitivity of the comparison schemes (Fig. 21) ---------------


def _sweep_stats(variants: tuple) -> Callable:
    """A parameter sweep's trends: the last variant (the largest value)
    over the first (the smallest), for short flows' tail (bins up to
    3 KB) and long flows' average (the largest bin); and the spread (the
    largest over the smallest value among all the variants) of each."""
    import numpy as np

    def stats(t, runs: dict) -> dict:
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


# ---- BFC's variants: end-to-end control, partial deployment, sampling, labels

def _buffer_stat(runs: dict, variant: str, q: float) -> float:
    """A quantile of every switch's buffer occupancy samples (1: the peak)."""
    b = runs[variant].buffers if variant in runs else None
    return float(b.bytes.quantile(q)) if b is not None and len(b) else math.nan


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


# ---- Table 1: a long flow against cross traffic on one 100 Gb/s link ---------

#: Table 1's numbers: (the long flow's throughput, 99th percentile
#: single-packet queueing delay in us).
TABLE1_PAPER = {"bfc": (0.373, 1.2), "hpcc": (0.229, 23.9), "dcqcn": (0.100, 30.4)}
TABLE1_LABELS = {"bfc": "BFC", "hpcc": "HPCC", "dcqcn": "DCQCN"}
#: DCQCN as a BFC co-author's configuration of the HPCC simulator sets it
#: (PARAMS.md §3b, mix/config.txt, whose settings the simulator reads for
#: any CC_MODE): the window scaled by rate (HAS_WIN, VAR_WIN), a 900 us
#: increase timer, AI 50 and HAI 100 Mb/s, a 100 Mb/s floor. It gives
#: Table 1's DCQCN numbers; §6's DCQCN statements hold with the
#: simulator's own set-up, `dcqcn`'s defaults, and fail with this one
#: (measured: docs/reproductions/bfc.md, Table 1).
BFC_CONFIG_DCQCN = {"scheme.window": "rate", "scheme.increase_interval_us": 900.0, "scheme.ai_mbps": 50.0,
                    "scheme.hai_mbps": 100.0, "scheme.min_rate_mbps": 100.0}


def table1_table(runs: dict) -> "pd.DataFrame":
    """Per scheme: the long flow's throughput (its bytes on the wire over
    the run, as a fraction of the link) and the queueing delay at the
    switch of the one-packet flows' packets (the paper's "single packet"
    delay: a short message's wait; average, 99th percentile, maximum) and
    of all data packets, beside the paper's."""
    import pandas as pd

    from ..spec.experiment import long_flow_ids
    from ..spec import spec_from_dict

    rows = []
    for variant, data in runs.items():
        spec = spec_from_dict(data.summary["spec"])
        ids = long_flow_ids(spec)
        f = data.flows
        lf = f[ids[f.flow_id.to_numpy()] >= 0].iloc[0]
        mss, header = spec.scheme.mss_bytes, spec.scheme.header_bytes
        wire = lf.delivered_bytes * (mss + header) / mss
        seconds = data.summary["sim_time_s"] - lf.start_s
        d, one = (data.summary["queueing_delay"][k] for k in ("leaf_or_edge_single", "leaf_or_edge"))
        paper = TABLE1_PAPER.get(variant, (math.nan, math.nan))
        rows.append({"variant": variant, "throughput": wire * 8 / seconds / spec.topology.host_rate_bps(),
                     "delay_mean_us": d["mean_us"], "delay_p99_us": d["p99_us"], "delay_max_us": d["max_us"],
                     "packets": d["packets"], "all_packets_delay_mean_us": one["mean_us"],
                     "all_packets_delay_p99_us": one["p99_us"], "paper_throughput": paper[0],
                     "paper_delay_p99_us": paper[1]})
    return pd.DataFrame(rows)


def table1_stats(t, runs: dict) -> dict:
    at = t.set_index("variant")
    out = {f"{v}_{k}": float(at.loc[v, k]) for v in at.index for k in ("throughput", "delay_p99_us")}
    for v in ("hpcc", "dcqcn"):
        if v in at.index and "bfc" in at.index:
            out[f"{v}_over_bfc_throughput"] = float(at.loc[v, "throughput"] / at.loc["bfc", "throughput"])
            out[f"{v}_over_bfc_delay_p99"] = float(at.loc[v, "delay_p99_us"] / at.loc["bfc", "delay_p99_us"])
    return out


def draw_table1(t, runs: dict, fig: BySizeFigure):
    import matplotlib.pyplot as plt
    import numpy as np

    figure, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    x = np.arange(len(t))
    names = [fig.labels.get(v, v) for v in t.variant]
    for ax, col, paper, scale, label in ((a, "throughput", "paper_throughput", 100, "Long flow's throughput (% of link)"),
                                         (b, "delay_p99_us", "paper_delay_p99_us", 1, "One-packet messages' p99 queueing delay (us)")):
        ax.bar(x - 0.2, t[col] * scale, 0.4, label="dcsim")
        ax.bar(x + 0.2, t[paper] * scale, 0.4, label="paper (Table 1)", color="0.7")
        ax.set_xticks(x, names)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3, axis="y")
    a.axhline(40, color="red", lw=1, ls="--", label="ideal (40%)")
    a.legend(fontsize=7)
    b.set_yscale("log")
    return figure


register(BySizeFigure(
    name="bfc-table1",
    title="BFC Table 1: one long flow against Facebook Hadoop cross traffic at 60% on a 100 Gb/s link",
    source="BFC (NSDI'22) §2.1, Table 1",
    description=("A 100 Gb/s link with an 8 us base RTT (a star of 17 hosts, 2 us links): one long flow from host "
                 "1 to host 0 for the whole run, and cross traffic of Facebook Hadoop sizes from the other hosts to "
                 "host 0 at 60% of its link (lognormal arrivals, sigma = 2); BFC, HPCC and DCQCN: the long flow's "
                 "throughput and the 99th percentile queueing delay at the switch of single-packet messages."),
    base={
        "topology": {"kind": "star", "hosts": 17, "rate_gbps": 100.0, "link_delay_us": 2.0},
        "workload": {"cdf": "fb_hadoop", "matrix": "many_to_one", "dst": 0, "load": 0.6, "arrivals": "lognormal",
                     "arrival_sigma": 2.0, "long_flows": {"src": 1, "dst": 0}},
        "run": {"queueing_delay": True},
    },
    variants={v: {"scheme.name": v, **(BFC_CONFIG_DCQCN if v == "dcqcn" else {})} for v in TABLE1_PAPER},
    labels=TABLE1_LABELS,
    flows={"quick": 100_000, "full": 100_000},
    mode_set={"quick": {"run.stop_time_s": 0.02}, "full": {"run.stop_time_s": 0.2}},
    stats=table1_stats,
    paper=(
        Statement("§2.1, Table 1", "bfc_throughput", 0.33, 0.40,
                  "BFC achieves close to the ideal throughput (40%) for the long flow (paper: 37.3%)"),
        Statement("§2.1, Table 1", "hpcc_over_bfc_throughput", 0.0, 1.0,
                  "HPCC falls short of BFC's throughput (paper: 22.9%)"),
        Statement("§2.1, Table 1", "dcqcn_over_bfc_throughput", 0.0, 1.0,
                  "DCQCN falls short of BFC's throughput (paper: 10.0%)"),
        Statement("§2.1, Table 1", "bfc_delay_p99_us", 0.0, 3.0, "BFC has a low tail queueing delay (paper: 1.2 us)"),
        Statement("§2.1, Table 1", "hpcc_over_bfc_delay_p99", 5.0, math.inf,
                  "HPCC's tail queueing delay is far above BFC's (paper: 23.9 us, 20x)"),
        Statement("§2.1, Table 1", "dcqcn_over_bfc_delay_p99", 5.0, math.inf,
                  "DCQCN's tail queueing delay is far above BFC's (paper: 30.4 us, 25x)"),
    ),
    notes=("The paper gives the link (100 Gb/s), the base RTT (8 us), the cross traffic (Facebook sizes, 60%) and one "
           "long flow; the rest is ours: a star (every flow crosses one switch port, the bottleneck), 16 senders of "
           "cross traffic, BFC's lognormal arrivals, the schemes' parameters of BFC §6.2.1, and DCQCN as a BFC "
           "co-author's configuration of the HPCC simulator sets it (a window scaled by rate, a 900 us increase "
           "timer, AI 50 and HAI 100 Mb/s, a 100 Mb/s floor: the set-up that gives the paper's DCQCN row; with the "
           "simulator's own, `dcqcn`'s defaults, 2.7% and 140 us). Throughput counts the "
           "long flow's delivered bytes with their headers over the run (from its start, with no warm-up left "
           "out). The 'single packet queuing delay' is read as the wait at the switch (arrival to the start of "
           "departure) of the packets of one-packet flows (at most 1 KB, 60% of the Facebook flows): a short "
           "message's delay; the table also has every data packet's, which under BFC is dominated by the long "
           "and large flows' own backlog (a queue paused at Th keeps receiving for an HRTT at line rate). 'Close "
           "to ideal' is read as 33-40%, 'low' as at most 3 us, 'far above' as 5x. Quick: 20 ms; full: 200 ms."),
    tabulate=table1_table,
    draw=draw_table1,
))


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
    b.set_ylabel("Port-seconds paused, by tier of the port held")
    bottom = np.zeros(len(t))
    for k in TIERS:
        v = t[f"paused_s_{k}"].to_numpy()
        b.bar(x, v, 0.6, bottom=bottom, label=k.replace("_", " "))
        bottom += v
    for ax in (a, b):
        ax.set_xticks(x, names, rotation=20, fontsize=7)
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

    from ..metrics import traffic_classes
    from ..spec import spec_from_dict

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
