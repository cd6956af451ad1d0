"""The pFabric paper's figures (SIGCOMM'13, §5), with what its text states
about each (PAPER_NUMBERS.md) and its axis ranges where the text shows them
(the camera-ready Figs. 8-9)."""

from __future__ import annotations

from .core import Figure, Mode, Panel, PaperBound, register

PANELS = (
    Panel("all_mean", "all flows: average (Fig. 7)", "all", "mean"),
    Panel("small_mean", "(0, 100KB]: average", "(0B, 100KB]", "mean"),
    Panel("small_p99", "(0, 100KB]: 99th percentile", "(0B, 100KB]", "p99"),
    Panel("medium_mean", "(100KB, 10MB]: average", "(100KB, 10MB]", "mean"),
    Panel("large_mean", "(10MB, inf): average", "(10MB, inf]", "mean"),
)

SCHEMES = ("tcp", "dctcp", "pfabric", "ideal")
LABELS = {"tcp": "TCP-DropTail", "dctcp": "DCTCP", "pfabric": "pFabric", "ideal": "Ideal"}

#: How the paper's ns-2 scripts run each scheme (PARAMS.md §1): flows
#: reuse a pool of persistent connections per host pair (8 for TCP and
#: DCTCP, 1 for pFabric), and duplicate-ACK fast retransmit is off for all.
SCRIPT_SCHEMES = {
    "tcp": {"connections": "pool", "connections_per_pair": 8, "fast_retransmit": False},
    "dctcp": {"connections": "pool", "connections_per_pair": 8, "fast_retransmit": False},
    "pfabric": {"connections": "pool", "connections_per_pair": 1},
}

#: The baseline set-up of §5.1 as the scripts run it: the 144-host
#: leaf-spine, per-packet round-robin spraying, flow sizes in whole packets,
#: FCT logged at the sender.
BASE = {
    "topology": {"kind": "leaf_spine"},
    "routing": {"load_balancing": "round_robin"},
    "workload": {"size_quantum_bytes": 1460},
    "run": {"fct_at": "sender"},
}

WS, DM = "web_search", "data_mining"

register(
    Figure(
        name="pfabric-fig7-9",
        title="pFabric Figs. 7-9: normalized FCT vs load, by flow size",
        source="pFabric (SIGCOMM'13) §5.4.1, Figs. 7, 8 (web search) and 9 (data mining)",
        description=(
            "TCP-DropTail (qSize 225 KB, initCwnd 12, minRTO 200 us), DCTCP (K = 22.5 KB), pFabric (qSize 36 KB, "
            "RTO 45 us) and the Ideal scheduler on the 144-host leaf-spine with packet spraying, Poisson "
            "arrivals, uniform random source and destination; normalized FCT overall and by flow size. PDQ, "
            "the paper's fifth scheme, is not implemented yet."
        ),
        base=BASE,
        x="workload.load",
        xlabel="Load",
        facet="workload.cdf",
        facets=(WS, DM),
        facet_labels={WS: "Web search (Figs. 7a, 8)", DM: "Data mining (Figs. 7b, 9)"},
        series="scheme.name",
        series_values=SCHEMES,
        series_labels=LABELS,
        series_specs=SCRIPT_SCHEMES,
        panels=PANELS,
        quick=Mode(x_values=(0.2, 0.4, 0.6, 0.8), flows=2500),
        full=Mode(x_values=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), flows=100_000),
        paper=(
            PaperBound("§5.4.1, Fig. 7", WS, "all_mean", "pfabric", low=0.0, high=0.178, relative_to="ideal",
                       claim="pFabric's overall average is within ~0.7-17.8% of Ideal's (web search)"),
            PaperBound("§5.4.1, Fig. 7", DM, "all_mean", "pfabric", low=0.0, high=0.106, relative_to="ideal",
                       claim="pFabric's overall average is within ~1.7-10.6% of Ideal's (data mining)"),
            PaperBound("§5.4.1, Fig. 8", WS, "small_mean", "pfabric", low=0.0, high=0.134, relative_to="ideal",
                       claim="(0,100KB] average: pFabric within ~1.3-13.4% of Ideal"),
            PaperBound("§5.4.1, Fig. 9", DM, "small_mean", "pfabric", low=0.0, high=0.134, relative_to="ideal",
                       claim="(0,100KB] average: pFabric within ~1.3-13.4% of Ideal"),
            PaperBound("§5.4.1, Fig. 8", WS, "small_p99", "pfabric", low=0.0, high=0.29, relative_to="ideal",
                       claim="(0,100KB] 99th percentile: pFabric within ~3.3-29% of Ideal"),
            PaperBound("§5.4.1, Fig. 9", DM, "small_p99", "pfabric", low=0.0, high=0.29, relative_to="ideal",
                       claim="(0,100KB] 99th percentile: pFabric within ~3.3-29% of Ideal"),
            PaperBound("§5.4.1, Fig. 8", WS, "large_mean", "pfabric", low=0.15, high=0.45, relative_to="ideal",
                       xs=(0.8,), claim="(10MB,inf) average at 80% load: pFabric ~30% worse than Ideal (web search)"),
            PaperBound("§5.4.1, Fig. 8", WS, "large_mean", "pfabric", low=-0.15, high=0.15, relative_to="tcp",
                       xs=(0.8,), claim="(10MB,inf) average at 80% load: pFabric about the same as TCP (web search)"),
            PaperBound("§5.4.1, Fig. 9", DM, "large_mean", "pfabric", low=0.0, high=0.033, relative_to="ideal",
                       claim="(10MB,inf) average: pFabric within ~3.3% of Ideal (data mining)"),
            PaperBound("§1", WS, "small_mean", "dctcp", low=1.5, high=3.0, relative_to="pfabric", xs=(0.6, 0.8),
                       claim="short flows: DCTCP's average 2.5-4x pFabric's (stated for the evaluation at large)"),
            PaperBound("§5.4.1, Fig. 8 caption", WS, "small_p99", "tcp", low=10.0,
                       claim="TCP-DropTail's (0,100KB] 99th percentile is above the plotted range (0-10)"),
            PaperBound("§5.4.1, Fig. 9 caption", DM, "small_p99", "tcp", low=10.0,
                       claim="TCP-DropTail's (0,100KB] 99th percentile is above the plotted range (0-10)"),
            PaperBound("Fig. 8(a)", WS, "small_mean", "tcp", high=10.0,
                       claim="TCP-DropTail's (0,100KB] average is drawn within the 0-10 axis"),
            PaperBound("Fig. 9(a)", DM, "small_mean", "tcp", high=10.0,
                       claim="TCP-DropTail's (0,100KB] average is drawn within the 0-10 axis"),
        ),
        notes=(
            "Each scheme runs as the paper's ns-2 scripts run it (docs/schemes.md): flows reuse 8 persistent "
            "connections per host pair for TCP and DCTCP, 1 for pFabric; no duplicate-ACK fast retransmit; "
            "round-robin spraying; sizes in whole packets; FCT logged when the sender gets the last ACK. "
            "Quick mode runs 2,500 flows per point (the paper: 100,000), so the >10MB bin holds few flows and "
            "is noisy. Y ranges are the camera-ready Figs. 8-9's (0-10; web search large flows 0-25); the "
            "paper's text gives none for Fig. 7 or the medium bin. Points above a panel's range are drawn at "
            "its top edge with their value."
        ),
        ylims={
            "small_mean": (0, 10),
            "small_p99": (0, 10),
            f"{WS}/large_mean": (0, 25),
            f"{DM}/large_mean": (0, 10),
        },
    )
)
