"""The limits of BFC (App. A.1 and App. C): short flows among many
long-running ones (Fig. 15, a simulation), and the worst-case
inefficiency of the pause threshold (Fig. 30, the appendix's model)."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from ..core import register
from ..model import ModelFigure, byte_cdf
from ..single import Statement
from .by_size import BFC_BASE

# ---- Fig. 15: mice among elephants -------------------------------------------

#: App. A.1: "different numbers of long-running elephant flows destined to
#: the same receiver (Receiver A) ... two groups of short flows: (1)
#: destined to the same receiver A ("direct" mice flows), and (2) destined
#: to a different receiver B in the same rack as receiver A ("indirect") ...
#: the aggregate load for each group of mice flows is 3% of the link
#: capacity, and the size of the mice flows is 1 KB", on BFC's Clos.
RECEIVER_A, RECEIVER_B, RACK = 0, 1, 16
MICE_LOAD, MICE_BYTES = 0.03, 1000
ELEPHANTS = {"quick": (8, 32, 128, 512), "full": (1, 4, 16, 32, 64, 128, 256, 512, 1024)}
DURATION_S = {"quick": 0.001, "full": 0.003}
#: After the last mouse arrives, the runs go on this long for the mice to
#: finish (the long flows never do).
DRAIN_S = 0.005
FIG15_SCHEMES = {"bfc32": ("BFC 32", {"name": "bfc", "queues": 32}),
                 "bfc128": ("BFC 128", {"name": "bfc", "queues": 128}),
                 "ideal_fq": ("Ideal-FQ", {"name": "ideal_fq_packet"})}


def fig15_trace(path: Path, elephants: int, duration_s: float, seed: int = 15) -> list[str]:
    """Write one run's flows (a dcsim trace): `elephants` flows of 1 TB to
    A from hosts of the other racks, in turn, at time 0; 1 KB mice to A and
    to B from random hosts of the other racks, Poisson at 3% of a 100 Gb/s
    link each (payload and 48 B of headers). Returns each flow's group, in
    trace order."""
    import numpy as np

    rng = np.random.default_rng(seed)
    hosts = BFC_BASE["topology"]["leaves"] * BFC_BASE["topology"]["hosts_per_leaf"]
    others = np.arange(RACK, hosts)
    rows = [(0.0, int(others[i % len(others)]), RECEIVER_A, 10**12, "elephant") for i in range(elephants)]
    rate = MICE_LOAD * BFC_BASE["topology"]["host_rate_gbps"] * 1e9 / (8 * (MICE_BYTES + 48))
    for dst, group in ((RECEIVER_A, "direct"), (RECEIVER_B, "indirect")):
        t = np.cumsum(rng.exponential(1 / rate, int(rate * duration_s * 1.5) + 10))
        t = t[t < duration_s]
        rows += [(float(x), int(rng.choice(others)), dst, MICE_BYTES, group) for x in t]
    rows.sort(key=lambda r: r[0])
    path.write_text("".join(f"{t!r} {s} {d} {b}\n" for t, s, d, b, _ in rows))
    return [g for *_, g in rows]


def fig15_compute(mode: str):
    import numpy as np
    import pandas as pd

    from ...simulate import run_all
    from ...spec import Spec

    rows = []
    duration = DURATION_S[mode]
    with tempfile.TemporaryDirectory() as tmp:
        for n in ELEPHANTS[mode]:
            trace = Path(tmp) / f"fig15-{n}.txt"
            groups = np.array(fig15_trace(trace, n, duration))
            for key, (_, scheme) in FIG15_SCHEMES.items():
                spec = Spec.model_validate({
                    "topology": BFC_BASE["topology"], "routing": BFC_BASE["routing"], "scheme": scheme,
                    "workload": {"matrix": "trace", "trace": str(trace)},
                    # the mice's last arrival, and time to finish
                    "run": {"stop_time_s": duration + DRAIN_S}})
                f = run_all(spec).flows
                g = groups[f.flow_id.to_numpy()]
                for group in ("direct", "indirect"):
                    # a mouse unfinished at the stop counts as slower than any
                    # finished one (left out, it would bias the median low)
                    s = f[(g == group)].slowdown.fillna(math.inf)
                    rows.append({"elephants": n, "scheme": key, "group": group, "mice": len(s),
                                 "unfinished": int(np.isinf(s).sum()), "median": float(s.median()),
                                 "p99": float(s.quantile(0.99))})
    t = pd.DataFrame(rows)
    return t, fig15_stats(t)


def _median(t, scheme: str, group: str, n: int) -> float:
    g = t[(t.scheme == scheme) & (t.group == group) & (t.elephants == n)]
    return float(g["median"].iloc[0]) if len(g) else math.nan


def fig15_stats(t) -> dict:
    """Direct mice: BFC's median over Ideal-FQ's while the long flows are
    no more than the queues (the worst), and at the most long flows;
    indirect mice: BFC 32's median up to 8x the queues and beyond, over
    its least."""
    ns = sorted(t.elephants.unique())
    out = {}
    for scheme, queues in (("bfc32", 32), ("bfc128", 128)):
        few = [n for n in ns if n <= queues]
        many = [n for n in ns if n > queues]
        ratio = {n: _median(t, scheme, "direct", n) / _median(t, "ideal_fq", "direct", n) for n in ns}
        if few:
            out[f"{scheme}_direct_over_ideal_upto_queues"] = max(ratio[n] for n in few)
        if many:
            out[f"{scheme}_direct_over_ideal_most_flows"] = ratio[many[-1]]
    few = [n for n in ns if n <= 8 * 32]
    many = [n for n in ns if n > 8 * 32]
    if few and many:
        base = min(_median(t, "bfc32", "indirect", n) for n in few)
        out["bfc32_indirect_upto_8x_over_least"] = max(_median(t, "bfc32", "indirect", n) for n in few) / base
        out["bfc32_indirect_beyond_8x_over_least"] = _median(t, "bfc32", "indirect", many[-1]) / base
    return out


def fig15_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    from ..core import figure_legend

    figure, axes = plt.subplots(1, 2, figsize=(8.5, 3.6), constrained_layout=True, sharey=True)
    for ax, group in zip(axes, ("direct", "indirect")):
        for i, (key, (label, _)) in enumerate(FIG15_SCHEMES.items()):
            g = t[(t.scheme == key) & (t.group == group)].sort_values("elephants")
            ax.plot(g.elephants, g["median"], "o-", ms=3.5, lw=1.3, color=f"C{i}", label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("Long-running flows to receiver A")
        ax.set_title(f"{group.capitalize()} mice (to {'A' if group == 'direct' else 'B, in A’s rack'})", fontsize=9)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("Median FCT slowdown of 1 KB flows")
    figure_legend(figure, *axes[0].get_legend_handles_labels())
    return figure


register(ModelFigure(
    name="bfc-fig15",
    title="BFC Fig. 15: 1 KB flows among long-running ones, to their receiver and to its rack neighbour",
    source="BFC (NSDI'22) App. A.1, Fig. 15",
    description=("BFC's Clos: N long-running flows from hosts of the other racks into receiver A, and 1 KB flows at 3% "
                 "of a link each into A (direct) and into B, in A's rack (indirect), from random hosts of the other "
                 "racks; BFC with 32 and 128 queues per port and the packet-level Ideal-FQ. The mice's median "
                 "slowdown against N."),
    compute=fig15_compute, draw=fig15_draw,
    paper=(
        Statement("App. A.1", "bfc32_direct_over_ideal_upto_queues", 0.0, 1.25,
                  "direct mice fare as under Ideal-FQ while the long flows are no more than the queues (BFC 32) ..."),
        Statement("App. A.1", "bfc32_direct_over_ideal_most_flows", 1.5, math.inf,
                  "... and their FCT degrades when the long flows exceed the queues"),
        Statement("App. A.1", "bfc128_direct_over_ideal_upto_queues", 0.0, 1.25, "(the same with 128 queues)"),
        Statement("App. A.1", "bfc128_direct_over_ideal_most_flows", 1.5, math.inf, "(the same with 128 queues)"),
        Statement("App. A.1", "bfc32_indirect_upto_8x_over_least", 1.0, 1.25,
                  "for indirect mice the degradation only happens when long flows exceed 8x the queues"),
        Statement("App. A.1", "bfc32_indirect_beyond_8x_over_least", 1.5, math.inf,
                  "... then indirect mice get paused unnecessarily, sharing an upstream queue with a paused long flow"),
    ),
    notes=("The paper gives no numbers for Fig. 15; our readings: direct mice do not degrade while BFC's median is "
           "within 25% of Ideal-FQ's (fair queueing itself makes a new flow wait a round of the long flows), and "
           "degrade once it is at least 1.5x; indirect mice do not degrade while BFC 32's median stays within 25% of "
           "its least, up to 256 long flows, and do beyond (1.5x). "
           "Mice unfinished when the run stops (5 ms after the last arrival) count as slower than any finished one. "
           "The long flows come from the 112 hosts of the other racks in turn (several per host beyond 112), all at "
           "time 0; mice from random hosts of those racks. Quick: 8-512 long flows, 1 ms of mice; full: 1-1,024, "
           "3 ms. One seed."),
))


# ---- Fig. 30: the pause threshold's worst-case inefficiency (App. C) -----------


def inefficiency(x, th_over_bdp):
    """App. C, Eq. 4: the fraction of time a flow f runs out of packets at
    the bottleneck, when its arrival rate is x times its drain rate, for a
    pause threshold Th of `th_over_bdp` hop BDPs (HRTT x mu_f)."""
    return (x - 1) / (th_over_bdp * x + (x * x - 1))


def worst_inefficiency(th_over_bdp):
    """Its maximum over x > 1, at x = sqrt(Th / (HRTT mu_f)) + 1."""
    return inefficiency(math.sqrt(th_over_bdp) + 1, th_over_bdp)


def fig30_compute(mode: str):
    import numpy as np
    import pandas as pd

    ths = np.round(np.linspace(0.1, 4.0, 40 if mode == "quick" else 391), 3)
    xs = np.linspace(1.0001, 30, 4000 if mode == "quick" else 60000)
    rows = [{"th_bdp": th, "worst": worst_inefficiency(th), "worst_by_search": float(inefficiency(xs, th).max()),
             "x_at_worst": math.sqrt(th) + 1} for th in ths]
    t = pd.DataFrame(rows)
    at1 = worst_inefficiency(1.0)
    eq5 = 1 / ((np.sqrt(t.th_bdp) + 1) ** 2 + 1)  # App. C, Eq. 5
    return t, {"worst_at_1_bdp": at1, "at_x_1_1": inefficiency(1.1, 1.0),
               "closed_form_over_search": float((t.worst / t.worst_by_search).max()),
               "eq5_over_closed_form": float((eq5 / t.worst).max()),
               "worst_falls_with_th": float(np.all(np.diff(t.worst) < 0))}


def fig30_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(5.5, 3.6), constrained_layout=True)
    ax.plot(t.th_bdp, 100 * t.worst, lw=1.6, label="max over x of Eq. 4 (closed form)")
    ax.plot(t.th_bdp[::max(1, len(t) // 20)], 100 * t.worst_by_search[::max(1, len(t) // 20)], "o", ms=3.5,
            color="grey", label="the same by search over x")
    ax.axvline(1.0, color="black", lw=0.8, ls=":")
    ax.set_xlabel("Pause threshold Th (hop BDPs, HRTT x drain rate)")
    ax.set_ylabel("Worst-case inefficiency (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return figure


register(ModelFigure(
    name="bfc-fig30",
    title="BFC Fig. 30: the pause threshold against the worst-case fraction of time a flow runs dry (App. C)",
    source="BFC (NSDI'22) App. C, Eq. 4, Fig. 30",
    description=("App. C's model of a flow paused and resumed at a bottleneck: with arrivals x times its drain rate and "
                 "a pause threshold Th, it runs out of packets a fraction (x - 1) / (Th/(HRTT mu) x + x^2 - 1) of the "
                 "time (Eq. 4), largest at x = sqrt(Th/(HRTT mu)) + 1. The worst case against Th, in closed form and "
                 "by search over x."),
    compute=fig30_compute, draw=fig30_draw,
    paper=(
        Statement("App. C", "worst_at_1_bdp", 0.1999, 0.2001, "with Th = 1 hop BDP the worst case is 20% (at x = 2)"),
        Statement("App. C", "worst_falls_with_th", 1.0, 1.0,
                  "increasing Th reduces the maximum fraction of time f can run out of packets"),
        Statement("App. C", "closed_form_over_search", 0.999, 1.001,
                  "the maximum occurs at x = sqrt(Th / (HRTT mu_f)) + 1"),
        Statement("App. C, Eq. 5", "eq5_over_closed_form", 0.999999, 1.000001,
                  "the maximum is 1 / ((sqrt(Th / (HRTT mu_f)) + 1)^2 + 1)"),
        Statement("App. C", "at_x_1_1", 0.0755, 0.0765, "when x = 1.1, E_f is only 7.6%"),
    ),
    notes="A model, no simulation. Quick: 40 thresholds; full: 391 (0.1 to 4 hop BDPs).",
))


# ---- Fig. 2: the bytes of each workload by flow size (§2) -----------------------

FIG2_WORKLOADS = {"google_rpc": "Google (all RPCs)", "fb_hadoop": "Facebook Hadoop", "web_search": "WebSearch"}
#: §2, Fig. 2: "the BDP for a 10 Gbps, 40 Gbps, and 100 Gbps network,
#: assuming a 12 us RTT".
FIG2_RTT_S = 12e-6


def fig2_compute(mode: str):
    import numpy as np
    import pandas as pd

    points = 20_000 if mode == "quick" else 1_000_000
    rows = []
    for name in FIG2_WORKLOADS:
        sizes, share = byte_cdf(name, points)
        grid = np.unique(np.geomspace(sizes[0], sizes[-1], 400).round())
        at = np.searchsorted(sizes, grid, side="right")
        rows += [{"workload": name, "size_bytes": float(s), "byte_share": float(share[i - 1]) if i else 0.0}
                 for s, i in zip(grid, at)]
    t = pd.DataFrame(rows)

    def share_below(name: str, size: float) -> float:
        sizes, share = byte_cdf(name, points)
        i = np.searchsorted(sizes, size, side="right")
        return float(share[i - 1]) if i else 0.0

    bdp100 = 100e9 * FIG2_RTT_S / 8
    return t, {"google_bytes_below_100kb": share_below("google_rpc", 100_000),
               "fb_bytes_below_100g_bdp": share_below("fb_hadoop", bdp100),
               "websearch_bytes_below_100g_bdp": share_below("web_search", bdp100)}


def fig2_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(6, 3.8), constrained_layout=True)
    for i, (name, label) in enumerate(FIG2_WORKLOADS.items()):
        g = t[t.workload == name]
        ax.plot(g.size_bytes, g.byte_share, lw=1.6, color=f"C{i}", label=label)
    for gbps, ls in ((10, ":"), (40, "--"), (100, "-.")):
        bdp = gbps * 1e9 * FIG2_RTT_S / 8
        ax.axvline(bdp, color="black", lw=0.8, ls=ls)
        ax.text(bdp * 1.08, 0.03, f"BDP at {gbps} Gb/s", rotation=90, fontsize=7, va="bottom")
    ax.set_xscale("log")
    ax.set_xlabel("Flow size (bytes)")
    ax.set_ylabel("Fraction of all bytes in flows of at most this size")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    return figure


register(ModelFigure(
    name="bfc-fig2",
    title="BFC Fig. 2: the bytes each flow size contributes, Google, Facebook Hadoop and WebSearch",
    source="BFC (NSDI'22) §2, Fig. 2",
    description=("The byte-weighted CDF of the flow sizes of the three workloads (as dcsim ships them and draws "
                 "them), with the bandwidth-delay product of a 12 us RTT at 10, 40 and 100 Gb/s."),
    compute=fig2_compute, draw=fig2_draw,
    paper=(
        Statement("§2", "google_bytes_below_100kb", 0.4, 0.55,
                  "for the Google workload, flows shorter than 100 KB represent nearly half of all bytes"),
    ),
    notes=("A model, no simulation: 20,000 (quick) or 1,000,000 (full) quantiles of each size distribution. "
           "'Nearly half' is read as 40-55%. The report also gives the share of Facebook Hadoop's and WebSearch's "
           "bytes within one BDP at 100 Gb/s (150 KB), which §2 expects to grow with link speed."),
))
