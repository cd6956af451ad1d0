"""BFC's testbed experiments (NSDI'22 §6.1, Figs. 6, 7 and 8), simulated on a
model of the testbed: three switches looped out of one Tofino2 (switch 1
and switch 3 feed switch 2), 100 Gb/s ports with 16 queues, flows from the
switch's packet generator with no end-to-end control. The fabric is a
topology file (`topology.kind = "file"`), one host per flow so that no
sender link is a bottleneck, as none is for an on-chip generator."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from .core import register
from .model import ModelFigure
from .single import Statement

#: Fig. 8's set-up (§6.1): two group-1 flows (switch 1 -> switch 2 ->
#: receiver 1), 4-20 group-2 flows (switch 1 -> switch 2 -> receiver 2),
#: eight group-3 flows (switch 3 -> switch 2 -> receiver 2), 1.5 MB each,
#: 16 queues per port; the paper averages four runs per point, which quick
#: mode keeps; full mode takes 100 (a run is a fraction of a second): with
#: eight group-1 FCTs a point's mean moves by hundreds of us between draws
#: once the flows outnumber the queues (docs/reproductions/bfc.md).
G1, G3, G2_MAX, FLOW_BYTES, QUEUES = 2, 8, 20, 1_500_000, 16
RUNS = {"quick": 4, "full": 100}
G2 = {"quick": (4, 12, 20), "full": (4, 8, 12, 16, 20)}
STRATEGIES = {"single": "BFC + single", "stochastic": "BFC + stochastic", "dynamic": "BFC + dynamic"}


def testbed_file(path: Path, delay_us: float = 1.0) -> dict:
    """Write Fig. 6's fabric (in the HPCC simulator's format) with hosts
    for G1 flows of group 1, G2_MAX of group 2, G3 of group 3 and the two
    receivers; return each group's host numbers (the file's ids, which are
    dcsim's: hosts come first)."""
    groups = {"g1": list(range(G1)), "g2": list(range(G1, G1 + G2_MAX))}
    groups["g3"] = list(range(G1 + G2_MAX, G1 + G2_MAX + G3))
    r1, r2 = G1 + G2_MAX + G3, G1 + G2_MAX + G3 + 1
    s1, s2, s3 = r2 + 1, r2 + 2, r2 + 3
    link = f"100Gbps {delay_us / 1000:g}ms 0"
    links = [f"{h} {s1} {link}" for h in groups["g1"] + groups["g2"]]
    links += [f"{h} {s3} {link}" for h in groups["g3"]]
    links += [f"{r1} {s2} {link}", f"{r2} {s2} {link}", f"{s1} {s2} {link}", f"{s3} {s2} {link}"]
    path.write_text(f"{s3 + 1} 3 {len(links)}\n{s1} {s2} {s3}\n" + "\n".join(links) + "\n")
    return {**groups, "r1": r1, "r2": r2}


def run_flows(hosts: dict, n2: int, run: int) -> list[tuple[int, int, str]]:
    """One run's flows as (source host, receiver, group), in the order of
    their ids. Every flow starts at once, so their first packets reach a
    switch at the same instant and are taken in the order of the hosts'
    links (the engine's tie-break); a run therefore draws which of switch
    1's hosts each group-1 and group-2 flow starts from, as well as the
    flows' order (their ids, which the flow table and the stochastic hash
    go by): the testbed's flows land in a different order in each run.
    Shuffling only the ids left group 1 always first at switch 1, which
    decides who shares a queue once the flows outnumber the queues
    (docs/reproductions/bfc.md, Fig. 8)."""
    import numpy as np

    rng = np.random.default_rng(800 + run)
    sw1 = [int(h) for h in rng.permutation(hosts["g1"] + hosts["g2"])]
    flows = [(h, hosts["r1"], "g1") for h in sw1[:G1]] + \
            [(h, hosts["r2"], "g2") for h in sw1[G1:G1 + n2]] + \
            [(h, hosts["r2"], "g3") for h in hosts["g3"]]
    return [flows[i] for i in rng.permutation(len(flows))]


def fig8_compute(mode: str, runs: int | None = None):
    """Each strategy, group-2 count and run (`run_flows`), every flow
    starting at once. Returns each group-1 flow's FCT."""
    import numpy as np
    import pandas as pd

    from ..simulate import run_all
    from ..spec import Spec

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        hosts = testbed_file(tmp / "topology.txt")
        for n2 in G2[mode]:
            for run in range(RUNS.get(mode, RUNS["quick"]) if runs is None else runs):
                flows = run_flows(hosts, n2, run)
                trace = tmp / f"trace-{n2}-{run}.txt"
                trace.write_text("".join(f"0 {s} {d} {FLOW_BYTES}\n" for s, d, _ in flows))
                for strategy in STRATEGIES:
                    spec = Spec.model_validate({
                        "seed": run + 1,
                        "topology": {"kind": "file", "path": str(tmp / "topology.txt")},
                        "scheme": {"name": "bfc", "queues": QUEUES, "assign": strategy},
                        "workload": {"matrix": "trace", "trace": str(trace)}})
                    f = run_all(spec).flows
                    group = np.array([g for _, _, g in flows])[f.flow_id.to_numpy()]
                    for fct in f.fct_s[group == "g1"]:
                        rows.append({"strategy": strategy, "g2_flows": n2, "run": run, "fct_us": fct * 1e6})
    t = pd.DataFrame(rows)
    return t, fig8_stats(t)


def fig8_stats(t) -> dict:
    g = t.groupby(["g2_flows", "strategy"]).fct_us.agg(["mean", "std"]).unstack("strategy")
    mean, std = g["mean"], g["std"]
    few = [n for n in mean.index if G1 + n <= QUEUES]
    many = [n for n in mean.index if G1 + n > QUEUES]
    cv = std / mean
    return {
        "single_worst_share": float((mean["single"] >= mean[["stochastic", "dynamic"]].max(axis=1)).mean()),
        "stochastic_over_single_mean": float((mean["stochastic"] / mean["single"]).median()),
        "stochastic_over_dynamic_std": float((std["stochastic"] / std["dynamic"].clip(lower=1e-9)).median()),
        "dynamic_lowest_share": float((mean["dynamic"] <= mean[["single", "stochastic"]].min(axis=1) * 1.001).mean()),
        "dynamic_cv_few_flows": float(cv.loc[few, "dynamic"].max()) if few else math.nan,
        "dynamic_cv_many_over_few": float(cv.loc[many, "dynamic"].max() / max(cv.loc[few, "dynamic"].max(), 1e-9))
        if few and many else math.nan,
    }


def fig8_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt
    import numpy as np

    figure, ax = plt.subplots(figsize=(6.5, 3.8), constrained_layout=True)
    g = t.groupby(["g2_flows", "strategy"]).fct_us.agg(["mean", "std"]).reset_index()
    counts = sorted(t.g2_flows.unique())
    width = 0.8 / len(STRATEGIES)
    for i, (s, label) in enumerate(STRATEGIES.items()):
        d = g[g.strategy == s].set_index("g2_flows").loc[counts]
        x = np.arange(len(counts)) + (i - 1) * width
        ax.bar(x, d["mean"], width, yerr=d["std"], capsize=3, label=label)
    ax.set_xticks(np.arange(len(counts)), [str(c) for c in counts])
    ax.set_xlabel("Group 2 flows")
    ax.set_ylabel("Group 1 average FCT (us)\n(whiskers: one standard deviation)")
    ax.set_ylim(bottom=0)  # (a whisker below 0 is the spread, not an FCT)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    return figure


register(ModelFigure(
    name="bfc-fig8",
    title="BFC Fig. 8: congestion spreading on the testbed, by queue assignment",
    source="BFC (NSDI'22) §6.1, Figs. 6 and 8",
    description=("The testbed of Fig. 6 simulated: group 1 (switch 1 -> switch 2 -> receiver 1, 2 flows) shares "
                 "the switch 1 -> switch 2 link with group 2 (4-20 flows to receiver 2), which shares receiver 2's "
                 "link with group 3 (8 flows from switch 3); 1.5 MB flows, all at once, 16 queues per port, BFC "
                 "with every flow in one queue, queues by a hash, or dynamic assignment. Group 1's average FCT "
                 "over four runs (100 in full mode), whiskers one standard deviation."),
    compute=fig8_compute,
    draw=fig8_draw,
    paper=(
        Statement("§6.1", "single_worst_share", 1.0, 1.0, "BFC + single achieves the worst FCT"),
        Statement("§6.1", "stochastic_over_single_mean", 0.0, 0.8,
                  "with stochastic assignment the FCT is substantially lower ..."),
        Statement("§6.1", "stochastic_over_dynamic_std", 1.0, math.inf,
                  "... but the standard deviation in FCT is high"),
        Statement("§6.1", "dynamic_lowest_share", 1.0, 1.0,
                  "with dynamic assignment BFC achieves the lowest average FCT"),
        Statement("§6.1", "dynamic_cv_few_flows", 0.0, 0.02,
                  "the standard deviation is close to 0 when group 1 + group 2 flows are fewer than the queues"),
        Statement("§6.1", "dynamic_cv_many_over_few", 1.0, math.inf,
                  "when the flows exceed the queues, collisions are inevitable and the standard deviation increases"),
    ),
    notes=("Our model of the testbed: one host per flow at 100 Gb/s (an on-chip generator has no sender "
           "bottleneck), 1 us links (the loopback's delays are not given), BFC's defaults otherwise (pause threshold "
           "one hop's BDP over the active queues). A run draws the flows' hosts on switch 1 (their first packets, "
           "sent at once, reach it in the order of the hosts' links) and their order (their ids, which the flow table "
           "and the hash go by), and takes its own seed. 'Substantially lower' is read as at most 0.8x single's (the median over "
           "the points), 'high' standard deviation as above dynamic's, 'close to 0' as a coefficient of variation "
           "below 2%. Quick: 4, 12 and 20 group-2 flows, 4 runs; full: 4, 8, 12, 16, 20, "
           "100 runs."),
))


# ---- Fig. 7: two flows at one link, the pause threshold swept -----------------

#: §6.1, Fig. 7: "2 flows are competing at a 100 Gbps link (a group 2 flow is
#: competing with a group 3 flow at the switch 2 -> receiver 2 link)"; (b)
#: "we repeat the above experiment but vary the pause threshold".
FIG7_TH_US = {"quick": (0.5, 1.0, 2.0, 4.0), "full": (0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0)}
FIG7_RUN_S = {"quick": 0.0005, "full": 0.002}
FIG7_WARMUP_S = 50e-6


def fig7_compute(mode: str):
    import numpy as np
    import pandas as pd

    from ..simulate import run_all
    from ..spec import Spec

    rows, series = [], None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        hosts = testbed_file(tmp / "topology.txt")
        r2, s2 = hosts["r2"], hosts["r2"] + 2
        trace = tmp / "trace.txt"
        trace.write_text(f"0 {hosts['g2'][0]} {r2} {10**12}\n0 {hosts['g3'][0]} {r2} {10**12}\n")
        for th in FIG7_TH_US[mode]:
            spec = Spec.model_validate({
                "topology": {"kind": "file", "path": str(tmp / "topology.txt")},
                "scheme": {"name": "bfc", "queues": QUEUES, "pause_threshold_kb": th * 100e9 / 8 / 1e9},
                "workload": {"matrix": "trace", "trace": str(trace)},
                "run": {"stop_time_s": FIG7_RUN_S[mode], "sample_us": 0.1, "sample_queues": "to_hosts",
                        "report_links": [[s2, r2]]}})
            run = run_all(spec)
            q = run.queues[(run.queues.node == s2) & (run.queues.peer == r2) & (run.queues.time_s >= FIG7_WARMUP_S)]
            link = run.summary["links"][0]
            rows.append({"threshold_us": th, "threshold_kb": th * 12.5, "queue_mean_kb": q.bytes.mean() / 1e3,
                         "queue_per_flow_kb": q.bytes.mean() / 2e3, "queue_p99_kb": q.bytes.quantile(0.99) / 1e3,
                         "utilization": link["utilization"], "pauses": run.summary["counters"]["pfc_frames"]})
            if th == 2.0:
                w = q[q.time_s < FIG7_WARMUP_S + 50e-6]
                series = pd.DataFrame({"time_us": w.time_s * 1e6, "queue_kb": w.bytes / 1e3})
    t = pd.DataFrame(rows)
    at2 = t[t.threshold_us == 2.0].iloc[0]
    t.attrs["series"] = series
    return t, {"utilization_at_2us": float(at2.utilization), "queue_per_flow_kb_at_2us": float(at2.queue_per_flow_kb),
               "utilization_rises_with_th": float(np.all(np.diff(t.utilization) >= -0.005)),
               "queue_rises_with_th": float(np.all(np.diff(t.queue_mean_kb) > 0))}


def fig7_draw(t, fig: ModelFigure):
    import matplotlib.pyplot as plt

    figure, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6), constrained_layout=True)
    s = t.attrs.get("series")
    if s is not None and len(s):
        a.plot(s.time_us, s.queue_kb, lw=1.0)
        a.axhline(2 * 25, color="black", lw=0.8, label="2 x Th (two flows' queues)")
        # below the axes: inside, it sat on the queue's peaks
        a.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    a.set_xlabel("Time (us)")
    a.set_ylabel("Port queue (KB, both flows)")
    a.set_title("(a) queue at receiver 2's port, Th = 2 us", fontsize=9)
    a.grid(alpha=0.3)
    b.plot(t.threshold_us, t.queue_per_flow_kb, "o-", color="C0", label="average queue per flow (KB)")
    b.set_xlabel("Pause threshold (us at 100 Gb/s)")
    b.set_ylabel("Average queue per flow (KB)", color="C0")
    b.set_xscale("log", base=2)
    u = b.twinx()
    u.plot(t.threshold_us, 100 * (1 - t.utilization), "s--", color="C3", label="under-utilization (%)")
    u.set_ylabel("Under-utilization (%)", color="C3")
    b.set_title("(b) the pause threshold swept", fontsize=9)
    b.grid(alpha=0.3)
    return figure


register(ModelFigure(
    name="bfc-fig7",
    title="BFC Fig. 7: two flows at one 100 Gb/s link, queue length and under-utilization by pause threshold",
    source="BFC (NSDI'22) §6.1, Fig. 7",
    description=("The testbed of Fig. 6 simulated (as bfc-fig8): a group-2 flow and a group-3 flow, never ending, "
                 "into receiver 2; BFC with a fixed pause threshold (`scheme.pause_threshold_kb`) swept in "
                 "microseconds at 100 Gb/s; the queue at switch 2's port to receiver 2 sampled every 0.1 us, and "
                 "the link's utilization."),
    compute=fig7_compute, draw=fig7_draw,
    paper=(
        Statement("§6.1", "utilization_at_2us", 0.98, 1.0,
                  "with a pause threshold of 2 us, BFC achieves close to 100% utilization ..."),
        Statement("§6.1", "queue_per_flow_kb_at_2us", 7.5, 30.0, "... with an average queue length of 15 KB"),
        Statement("§6.1", "queue_rises_with_th", 1.0, 1.0, "a higher threshold buffers more (Fig. 7(b))"),
    ),
    notes=("Our model of the testbed (bfc-fig8's; 1 us links, so a hop RTT of 2 us): a fixed threshold, as the "
           "figure's black line; the queue per flow is the port's over two (the paper plots one flow's). Tofino2's "
           "hardware queues after the egress pipeline, which a pause cannot hold and which add to the paper's "
           "overshoot, are not modelled, nor its 176 B cells (queues here are in bytes). The utilization depends on "
           "the hop RTT, which the paper does not give (docs/reproductions/bfc.md measures it). 'Close to 100%' is read "
           "as at least 98%, 'about 15 KB' as 7.5-30 KB. The first 50 us are left out of the queue's average; the "
           "utilization is over the whole run (its first microseconds, before the flows' packets arrive, cost "
           "0.1-0.4%). "
           "Quick: 0.5-4 us, 0.5 ms; full: 0.25-8 us, 2 ms."),
))
