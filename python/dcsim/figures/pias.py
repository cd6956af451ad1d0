"""The PIAS paper's figures (ToN'17 §V), with what its text states about
each (each statement names its section). The large-scale simulations (§V-C, Figs. 14-17)
as its ns-2 scripts run them (docs/schemes.md, docs/sources.md §2)."""

from __future__ import annotations

import copy

from ..profiles import PIAS as PIAS_PROFILE
from .core import Figure, Mode, Panel, PaperBound, register

#: The scripts' result parser: short flows below 100 KiB, large above
#: 10 MiB, FCT in ms (not normalized).
BINS = (0, 100 * 1024, 10 * 1024 * 1024, float("inf"))
SHORT, MEDIUM, LARGE = "(0B, 100KiB]", "(100KiB, 10MiB]", "(10MiB, inf]"
MS = "FCT (ms)"
OVERALL = Panel("all_mean", "all flows: average", "all", "mean", MS, column="fct_ms")
SHORT_MEAN = Panel("small_mean", "(0, 100KB]: average", SHORT, "mean", MS, column="fct_ms")
SHORT_P99 = Panel("small_p99", "(0, 100KB]: 99th percentile", SHORT, "p99", MS, column="fct_ms")
LARGE_MEAN = Panel("large_mean", "(10MB, inf): average", LARGE, "mean", MS, column="fct_ms")

#: §V-A's set-up and every scheme as the scripts run them: the `pias`
#: profile (dcsim/profiles.py), which a spec can name (`profile = "pias"`)
#: to run its own workload the same way. The fabric: the 144-host
#: leaf-spine with 20 us of host delay on each host link (base RTT 84.7
#: us; the paper: 85.2 us), per-packet round-robin spraying, sizes in whole
#: packets, FCT at the sender.
BASE = copy.deepcopy(PIAS_PROFILE.base)

#: Every scheme on the scripts' agent (spine_empirical.tcl:
#: Agent/TCP/FullTcp/Sack/MinTCP, PIAS-NS2 tcp-full.cc): one persistent
#: connection per host pair, pFabric's and LAS's too (`connections_per_pair
#: = 1` in every run_*.py), a new one with a handshake for a flow whose
#: pair's is busy; the window bounds the span above the cumulative ACK
#: (`send_allowed` outside `pipectrl_`, which only a fast retransmit turns
#: on): `window = "span"`, as the pFabric figures run ns-2's TCP.
AGENT = {k: v for k, v in PIAS_PROFILE.variant("pias").items() if k != "scheme.name"}
#: DCTCP as the scripts run it: the PIAS port with one queue (360 KB, ECN
#: per port at 65 packets, MinTCP's fixed 2 ms timeout, window 70).
DCTCP = PIAS_PROFILE.variant("dctcp")
#: L2DCT on the same switches and timers, with the scripts' increase.
L2DCT = PIAS_PROFILE.variant("l2dct")
#: pFabric and LAS as the PIAS scripts run them (run_pfabric_*.py): 210 KB
#: (140 packets), a fixed 250 us timeout, window 70, cap 139 (the queue
#: less one, spine_empirical.tcl's maxcwnd_).
PFABRIC_PIAS = {k: v for k, v in PIAS_PROFILE.variant("pfabric").items() if k != "scheme.name"}
PIAS = PIAS_PROFILE.variant("pias")
VARIANTS = {name: PIAS_PROFILE.variant(name) for name in ("pias", "dctcp", "l2dct", "las", "pfabric")}
LABELS = {"pias": "PIAS", "dctcp": "DCTCP", "l2dct": "L2DCT", "las": "LAS", "pfabric": "pFabric"}
WS, DM = "web_search", "data_mining"
FACETS = {WS: "Web search", DM: "Data mining"}
LOADS_QUICK, LOADS_FULL = (0.5, 0.7, 0.9), (0.5, 0.6, 0.7, 0.8, 0.9)
NOTES = ("Each scheme as the PIAS ns-2 scripts run it (docs/schemes.md): MinTCP timers (fixed timeout, probe mode), "
         "window 70 at every flow start, one persistent connection per host pair, ns-2's window rule (span), no fast "
         "retransmit, round-robin spraying; PIAS with the scripts' 8-queue thresholds for the workload and load; "
         "DCTCP is the PIAS port with one queue; L2DCT with the scripts' increase (ns2_pias). FCTs in ms, short flows below 100 KiB and large "
         "ones above 10 MiB, as the scripts' parser. Quick mode runs 2,500 flows per point (the paper: 100,000).")


def _simulation(name: str, title: str, source: str, description: str, series: tuple, panels: tuple, paper: tuple,
                *, base: dict = BASE, facet: str = "workload.cdf", facets: tuple = (WS, DM),
                facet_labels: dict = FACETS, variants: dict = VARIANTS, load_scale: float = 1.0,
                xlabel: str = "Load", notes: str = NOTES) -> Figure:
    """A §V-C simulation figure: schemes as the scripts run them, against
    load (the workload's load is load_scale x the plotted one)."""
    return register(Figure(
        name=name, title=title, source=source, description=description, base=base,
        x="workload.load", xlabel=xlabel, x_unit=load_scale, facet=facet, facets=facets, facet_labels=facet_labels,
        series="variant", series_values=series, series_labels=LABELS, variants=variants, panels=panels, bins=BINS,
        quick=Mode(x_values=tuple(x * load_scale for x in LOADS_QUICK), flows=2500),
        full=Mode(x_values=tuple(x * load_scale for x in LOADS_FULL), flows=100_000),
        paper=paper, notes=notes,
    ))

_simulation(
    "pias-fig14-16", "PIAS Figs. 14-16: FCT vs load, PIAS against DCTCP, L2DCT and LAS (simulation)",
    "PIAS (ToN'17) §V-C, Figs. 14 (overall), 15 (web search) and 16 (data mining)",
    "PIAS (8 queues), DCTCP, L2DCT and LAS on the 144-host leaf-spine (85.2 us base RTT), web search and data "
    "mining, loads 0.5-0.9: average FCT overall, of short flows and of large flows.",
    ("pias", "dctcp", "l2dct", "las"), (OVERALL, SHORT_MEAN, LARGE_MEAN),
    (
        PaperBound("§V-C, Fig. 14(a)", WS, "all_mean", "pias", low=-0.5, high=-0.25, relative_to="las", xs=(0.9,),
                   claim="overall: PIAS beats LAS by 37% at 90% load (web search)"),
        PaperBound("§V-C, Fig. 15(a)", WS, "small_mean", "pias", low=-0.6, high=-0.3, relative_to="dctcp",
                   xs=(0.9,), claim="short flows: PIAS up to ~50% below DCTCP (web search)"),
        PaperBound("§V-C, Fig. 15(a)", WS, "small_mean", "pias", low=-0.6, high=-0.3, relative_to="l2dct",
                   xs=(0.9,), claim="short flows: PIAS up to ~50% below L2DCT (web search)"),
        PaperBound("§V-C, Fig. 15(b)", WS, "large_mean", "pias", low=-0.65, high=-0.45, relative_to="las",
                   xs=(0.9,), claim="large flows: PIAS 55% below LAS at 90% load (web search)"),
        PaperBound("§V-C, Figs. 15(b), 16(b)", WS, "large_mean", "pias", low=-0.2, high=0.02, relative_to="dctcp",
                   claim="large flows: PIAS slightly better than DCTCP"),
        PaperBound("§V-C, Fig. 15(b)", WS, "large_mean", "l2dct", low=0.0, high=0.15, relative_to="dctcp",
                   claim="large flows: L2DCT marginally worse than DCTCP"),
    ),
)

_simulation(
    "pias-fig17", "PIAS Fig. 17: short flows, PIAS against pFabric (simulation)", "PIAS (ToN'17) §V-C, Fig. 17",
    "PIAS and pFabric (remaining size, 210 KB) on the leaf-spine: average FCT of short flows vs load.",
    ("pias", "pfabric"), (SHORT_MEAN,),
    (
        PaperBound("§V-C, Fig. 17(b)", DM, "small_mean", "pias", low=-0.03, high=0.03, relative_to="pfabric",
                   claim="short flows: PIAS within 1.1% of pFabric (data mining)"),
        PaperBound("§V-C, Fig. 17(a)", WS, "small_mean", "pias", low=0.0, relative_to="pfabric",
                   claim="short flows: a larger gap to pFabric in web search (fewer flows under 100 KB)"),
    ),
)

_simulation(
    "pias-fig19", "PIAS Fig. 19: a heterogeneous traffic pattern, PIAS against DCTCP (simulation)",
    "PIAS (ToN'17) §V-C, Fig. 19",
    "Flows from host i to j have web search sizes when i < j and data mining sizes when i > j, every pair carrying "
    "the same bytes; PIAS keeps the web search thresholds for the load.",
    ("pias", "dctcp"), (OVERALL, SHORT_MEAN),
    (
        PaperBound("§V-C, Fig. 19(a)", "heterogeneous", "all_mean", "pias", low=-0.15, high=0.0,
                   relative_to="dctcp", claim="overall: PIAS up to ~8.1% below DCTCP"),
        PaperBound("§V-C, Fig. 19(b)", "heterogeneous", "small_mean", "pias", low=-0.6, high=0.0,
                   relative_to="dctcp", claim="short flows: PIAS up to ~48% below DCTCP"),
    ),
    base={**BASE, "workload": {**BASE["workload"], "matrix": "heterogeneous", "cdf": WS, "reverse_cdf": DM}},
    facet="workload.matrix", facets=("heterogeneous",),
    facet_labels={"heterogeneous": "Web search (i < j) and data mining (i > j)"},
    notes=NOTES + " The thresholds are the web search ones for the load (the scripts' run_pias_heter.py).",
)

#: §V-C's oversubscribed fabric (run_pias_dctcp_oversub.py): 12 leaves x 12
#: hosts, 4 spines with 10 Gb/s uplinks (3:1), per-flow ECMP (which turns
#: the scripts' duplicate-ACK fast retransmit back on: `auto`). The scripts
#: set the edge load to the core load / 2.75 and pick the thresholds of the
#: core load; the x axis is the core load.
CORE = 2.75
OVERSUB = {
    **BASE,
    "topology": {"kind": "oversubscribed_leaf_spine", "leaves": 12, "hosts_per_leaf": 12, "spines": 4,
                 "oversubscription": 3.0, "host_link_delay_us": 20.2},
    "routing": {"load_balancing": "ecmp"},
}
_simulation(
    "pias-fig18", "PIAS Fig. 18: the 3:1 oversubscribed fabric with ECMP, PIAS against DCTCP (simulation)",
    "PIAS (ToN'17) §V-C, Fig. 18",
    "Web search on 12 x 12 hosts with 10 Gb/s uplinks (3:1) and per-flow ECMP; x: the core load.",
    ("pias", "dctcp"), (OVERALL, SHORT_MEAN),
    (
        PaperBound("§V-C, Fig. 18(a)", WS, "all_mean", "pias", low=-0.2, high=0.0, relative_to="dctcp",
                   claim="overall: PIAS up to ~12% below DCTCP"),
        PaperBound("§V-C, Fig. 18(b)", WS, "small_mean", "pias", low=-0.7, high=0.0, relative_to="dctcp",
                   claim="short flows: PIAS up to ~57% below DCTCP"),
    ),
    base=OVERSUB, facets=(WS,), xlabel="Core load", load_scale=1 / CORE,
    variants={"pias": {**PIAS, "scheme.threshold_load_factor": CORE}, "dctcp": DCTCP},
    notes=NOTES + " Edge load = core load / 2.75 and the thresholds of the core load, as the scripts.",
)
