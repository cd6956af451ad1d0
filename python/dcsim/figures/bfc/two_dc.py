"""BFC across two datacenters (App. A.9, Fig. 26): each datacenter a
2:1 Clos of 64 hosts, their gateways joined by a 200 Gb/s link with
200 us of one-way delay; Facebook Hadoop flows within each datacenter and
long-lived flows between them."""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

from ..core import register
from ..single import Statement
from .by_size import BFC_BASE, BFC_LABELS, BFC_VARIANTS, FB, FB_FLOWS, BySizeFigure, _ratio, by_size_table

#: App. A.9 and the co-author's program for it (`simple_inter_dc.cc` in
#: preeyshah/High-Precision-Congestion-Control): per datacenter 64 hosts
#: under 4 ToRs, 8 spines, every ToR and a gateway linked to every spine,
#: 100 Gb/s and 1 us inside; the gateways joined at 200 Gb/s, 200 us.
HOSTS, TORS, SPINES = 64, 4, 8
PER_DC = HOSTS + TORS + SPINES + 1
TOPOLOGY_FILE = "bfc_two_datacenters.txt"


def two_datacenters_text() -> str:
    """The fabric in the HPCC simulator's topology format, numbered as the
    co-author's program numbers it (hosts, ToRs, spines, then the gateway,
    per datacenter)."""
    links, switches = [], []
    inside = "100Gbps 0.001ms 0"
    for dc in range(2):
        base = dc * PER_DC
        tors = [base + HOSTS + t for t in range(TORS)]
        spines = [base + HOSTS + TORS + s for s in range(SPINES)]
        gateway = base + PER_DC - 1
        switches += tors + spines + [gateway]
        links += [f"{base + h} {tors[h // (HOSTS // TORS)]} {inside}" for h in range(HOSTS)]
        links += [f"{t} {s} {inside}" for t in tors for s in spines]
        links += [f"{gateway} {s} {inside}" for s in spines]
    links.append(f"{PER_DC - 1} {2 * PER_DC - 1} 200Gbps 0.2ms 0")
    return f"{2 * PER_DC} {len(switches)} {len(links)}\n{' '.join(map(str, switches))}\n" + "\n".join(links) + "\n"


def topology_path() -> str:
    """The shipped file (`dcsim.data.topologies`)."""
    return str(Path(str(resources.files("dcsim.data.topologies"))) / TOPOLOGY_FILE)


#: dcsim numbers the hosts first (file order), then the switches: the
#: gateways are the last switch of each datacenter.
GATEWAYS = (2 * HOSTS + TORS + SPINES, 2 * HOSTS + 2 * (TORS + SPINES) + 1)


def _dc_host(dc: int, rack: int, k: int) -> int:
    return dc * HOSTS + rack * (HOSTS // TORS) + k


#: Twenty long-lived flows, ten each way (App. A.9: "20 long-lived
#: inter-data-center flows in both the directions"; the co-author's
#: program runs ten, five each way), from and to distinct hosts spread over
#: the racks.
INTER_DC = ([(_dc_host(0, i % TORS, i // TORS), _dc_host(1, i % TORS, 8 + i // TORS)) for i in range(10)]
            + [(_dc_host(1, i % TORS, 4 + i // TORS), _dc_host(0, i % TORS, 12 + i // TORS)) for i in range(10)])

FIG26_BASE = {
    **BFC_BASE,
    "topology": {"kind": "file", "path": topology_path()},
    "workload": {**BFC_BASE["workload"], "cdf": FB, "matrix": "rack_local", "rack_hosts": HOSTS, "local_share": 1.0,
                 "long_flows": {"pairs": INTER_DC}},
    # the co-author's gateways hold 64 MiB (its `SetGateway`): PFC's
    # headroom for the 200 us link alone is 15 MB
    "buffer": {"size_mb_at": {g: 64.0 for g in GATEWAYS}},
    "run": {**BFC_BASE["run"], "report_links": [list(GATEWAYS)]},
}


def interconnect_utilization(run) -> float:
    """The gateways' link's utilization over the run, both ways together
    (`run.report_links`)."""
    ways = run.summary.get("links", [])
    return sum(w["utilization"] for w in ways) / len(ways) if ways else math.nan


def fig26_table(runs: dict):
    """Slowdown by size of the intra-datacenter flows (the long-lived ones
    left out)."""
    import copy

    from ...spec import spec_from_dict
    from ...spec.experiment import LONG, extra_flows

    intra = {}
    for variant, data in runs.items():
        kind = extra_flows(spec_from_dict(data.summary["spec"]))[0]
        intra[variant] = copy.copy(data)
        intra[variant].flows = data.flows[kind[data.flows.flow_id.to_numpy()] != LONG]
    return by_size_table(intra)


def fig26_stats(t, runs: dict) -> dict:
    util = {v: interconnect_utilization(runs[v]) for v in runs}
    out = {f"{v}_interconnect_utilization": u for v, u in util.items()}
    if "bfc" in runs:
        others = [v for v in ("hpcc", "dcqcn") if v in runs]
        out["hpcc_over_bfc_p99_all_bins"] = _ratio(t, "hpcc", "bfc", "p99", True, math.inf) if "hpcc" in runs \
            else math.nan
        out["dcqcn_over_bfc_p99_all_bins"] = _ratio(t, "dcqcn", "bfc", "p99", True, math.inf) if "dcqcn" in runs \
            else math.nan
        out["others_best_utilization"] = max((util[v] for v in others), default=math.nan)
    if {"hpcc", "dcqcn"} <= set(runs):
        out["hpcc_over_dcqcn_p99_all_bins"] = _ratio(t, "hpcc", "dcqcn", "p99", True, math.inf)
    return out


FIG26 = (
    Statement("App. A.9", "hpcc_over_bfc_p99_all_bins", 1.0, math.inf,
              "BFC is better for both types of flows: intra-datacenter tail latency (over HPCC)"),
    Statement("App. A.9", "dcqcn_over_bfc_p99_all_bins", 1.0, math.inf, "... (over DCQCN)"),
    Statement("App. A.9", "bfc_interconnect_utilization", 0.9, 1.0,
              "with BFC, the link utilization of the wide area interconnect is close to 100%"),
    Statement("App. A.9", "others_best_utilization", 0.0, 0.9,
              "neither HPCC nor DCQCN can maintain the link at full utilization"),
    Statement("App. A.9", "hpcc_over_dcqcn_p99_all_bins", 1.0, math.inf,
              "once inter-datacenter traffic is added, HPCC becomes worse than DCQCN (tail latency)"),
)


def draw_fig26(t, runs: dict, fig: BySizeFigure):
    import matplotlib.pyplot as plt

    from ..core import figure_legend, plain_log_ticks

    figure, (ax, bars) = plt.subplots(1, 2, figsize=(8.5, 3.8), constrained_layout=True,
                                      gridspec_kw={"width_ratios": [2.2, 1]})
    color = {v: f"C{i % 10}" for i, v in enumerate(runs)}
    for variant, g in t.groupby("variant", sort=False):
        ax.plot(g.bin_hi, g.p99, "o-", ms=3, lw=1.3, color=color[variant], label=fig.labels.get(variant, variant))
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_xlabel("Flow size (bytes, bin's upper edge)")
    ax.set_ylabel("FCT slowdown")
    ax.set_title("(a) intra-datacenter flows: 99th percentile", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    names = list(runs)
    util = [100 * interconnect_utilization(runs[v]) for v in names]
    bars.bar(range(len(names)), util, color=[color[v] for v in names])
    bars.set_xticks(range(len(names)), [fig.labels.get(v, v) for v in names])
    bars.set_ylim(0, 105)
    bars.set_ylabel("Utilization (%)")
    bars.set_title("(b) the interconnect, both ways", fontsize=9)
    bars.grid(alpha=0.3, axis="y")
    for i, u in enumerate(util):
        bars.text(i, u + 1.5, f"{u:.0f}%", ha="center", fontsize=8)
    figure_legend(figure, *ax.get_legend_handles_labels())
    return figure


register(BySizeFigure(
    name="bfc-fig26",
    title="BFC Fig. 26: two datacenters joined by a 200 us link, Facebook Hadoop at 60% in each",
    source="BFC (NSDI'22) App. A.9, Fig. 26",
    description="Two 2:1 Clos datacenters of 64 hosts (4 ToRs, 8 spines, 100 Gb/s, 1 us links) whose gateways "
                "share a 200 Gb/s link with 200 us of one-way delay; Facebook Hadoop flows within each datacenter "
                "at 60% of its core, lognormal arrivals, and 20 long-lived flows between the datacenters, ten each "
                "way: BFC, HPCC, DCQCN. The intra-datacenter flows' 99th percentile slowdown by size, and the "
                "interconnect's utilization.",
    base=FIG26_BASE,
    # HPCC's T and W per pair of hosts, as the co-author's configuration
    # for the experiment sets them (GLOBAL_T 0): one T for all would be the
    # interconnect's 400 us for flows inside a datacenter too
    variants={"bfc": BFC_VARIANTS["bfc"], "hpcc": {**BFC_VARIANTS["hpcc"], "scheme.global_rtt": False},
              "dcqcn": BFC_VARIANTS["dcqcn"]}, labels=BFC_LABELS, flows=FB_FLOWS,
    stats=fig26_stats, paper=FIG26, shown=("p99",), tabulate=fig26_table, draw=draw_fig26,
    mode_set={"quick": {"run.stop_time_s": 0.002}, "full": {"run.stop_time_s": 0.03}},
    notes="The fabric follows the co-author's program for the experiment (simple_inter_dc.cc; a file, "
          "`dcsim.data.topologies`); its gateways hold 64 MiB as there, the other switches 12 MB; HPCC takes T and "
          "W from each flow's own path (GLOBAL_T 0 in its configuration, config_inter.txt). Twenty "
          "long-lived flows (the paper's; the program runs ten) of 1 TB from distinct hosts. The run stops "
          "shortly after the last arrival (quick 2 ms, full 30 ms); flows unfinished then are left out, as the "
          "program, which stops at the last arrival, leaves them. Utilization: both directions' bytes (data "
          "and ACKs) over the run. Ratios by size: the median over the bins. One seed. Quick: 5,000 flows; "
          "full: 100,000.",
))
