"""The PIAS paper's testbed experiments (ToN'17 §V-B, Figs. 5-9 and 11-13),
simulated on a model of its testbed, so that a reader can put dcsim's
curves beside the testbed's. What the model keeps and what it leaves out
is in docs/reproductions/pias.md ("The testbed model")."""

from __future__ import annotations

from .core import Figure, Mode, Panel, PaperBound, register
from .pias import BINS, DM, FACETS, LARGE_MEAN, MEDIUM, MS, OVERALL, SHORT_MEAN, SHORT_P99, WS

MEDIUM_MEAN = Panel("medium_mean", "(100KB, 10MB]: average", MEDIUM, "mean", MS, column="fct_ms")
QCT_MEAN = Panel("qct_mean", "query completion time: average", "all", "qct_mean_us", "QCT (us)")
QCT_P99 = Panel("qct_p99", "query completion time: 99th percentile", "all", "qct_p99_us", "QCT (us)")

#: §V-A: 16 servers on one 1 Gb/s switch (Pronto 3295), base RTT about
#: 135 us: four link traversals of 33.75 us. One client (host 0) fetches
#: from the 15 others, so every flow converges on the client's link (§V-B).
TESTBED = {
    "topology": {"kind": "star", "hosts": 16, "rate_gbps": 1.0, "link_delay_us": 33.75},
    "routing": {"load_balancing": "ecmp"},
    "workload": {"matrix": "many_to_one", "dst": 0},
    "run": {"fct_at": "receiver"},
}
#: The switch shares 4 MB among 48 ports with dynamic buffer management
#: (§V-A); its dynamic-threshold alpha is not published. Our choice: each
#: port (and NIC) has the 4 MB to itself (only the client's port is
#: congested) shared by its queues with alpha = 1/3, so a queue alone
#: settles at 1 MB and the others keep room (two busy queues together can
#: hold 1.6 MB); drop-tail TCP's single queue gets that 1 MB
#: (docs/reproductions/pias.md).
SWITCH_BYTES, ALPHA = 4_000_000, 1 / 3
PORT_BYTES = round(SWITCH_BYTES * ALPHA / (1 + ALPHA))
#: The hosts as §V-A sets them: initial window 10, RTO_min 10 ms (Linux's
#: RFC 6298 timer, not the simulations' fixed MinTCP timeout), 5 persistent
#: connections from the client to each server (the traffic generator's
#: default), more when all are busy.
HOSTS = {"scheme.init_cwnd_pkts": 10, "scheme.connections": "pool", "scheme.connections_per_pair": 5,
         "scheme.max_cwnd_pkts": PORT_BYTES // 1460 - 1}
#: Segmentation and receive offload on the testbed's hosts (§V-A: "the
#: average segment size is 7,220 bytes", about 5 MSS): the receiver ACKs
#: every 5 in-order segments, or 50 us after the first held one (a few
#: segment times at 1 Gb/s, our choice: receive offload flushes at every
#: NIC poll, long before Linux's 40 ms delayed-ACK timer), and the sender
#: answers each ACK with a burst of 5. docs/reproductions/pias.md measures
#: what this moves and what the delay does (20-200 us).
OFFLOAD = {"scheme.ack_every": 5, "scheme.ack_delay_us": 50}
#: Linux's timers on the testbed (§V-A): RTO_min 10 ms as the floor of an
#: RFC 6298 timer with backoff, no probe mode.
LINUX_TIMERS = {"scheme.rto_us": 10_000, "scheme.fixed_rto": False, "scheme.probe_after": None}
#: PIAS with 8 queues and ECN per port at 20 KB (§V-A). The testbed's
#: thresholds are not listed ("according to the guidelines in §III-C"); we
#: take the authors' own for these workloads and loads, their ns-2 scripts'
#: 8-queue tables. Figs. 11 and 13 need 2 and 4 queues, which have no
#: table: they use Eq. 1 (`dcsim thresholds --method pias`) throughout.
PIAS = {"scheme.name": "pias", **HOSTS, **OFFLOAD, "scheme.queue_bytes": SWITCH_BYTES, "scheme.buffer_alpha": ALPHA,
        "scheme.thresholds": "paper", "scheme.ecn_threshold_bytes": 20_000, **LINUX_TIMERS}
#: DCTCP: the same switch with one queue, so that only the MLFQ differs.
DCTCP = {**PIAS, "scheme.queues": 1, "scheme.thresholds": []}
#: TCP: Linux 3.18's default, CUBIC (§V-A), on drop-tail.
TCP = {"scheme.name": "tcp", **HOSTS, **OFFLOAD, "scheme.queue_bytes": PORT_BYTES, "scheme.min_rto_us": 10_000,
       "scheme.cc": "cubic"}
LABELS = {"pias": "PIAS", "dctcp": "DCTCP", "tcp": "TCP", "q2": "PIAS, 2 queues", "q4": "PIAS, 4 queues",
          "q8": "PIAS, 8 queues", "mismatch": "PIAS (data mining thresholds)",
          "mismatch_noecn": "PIAS w/o ECN (data mining thresholds)", "optimized": "PIAS, optimized thresholds",
          "equal_split": "PIAS, equal split", "no_pias": "without PIAS", "pias2": "PIAS (2 queues, 100 KB)"}
LOADS = (0.5, 0.6, 0.7, 0.8)
NOTES = ("Simulated on a model of the PIAS testbed (docs/reproductions/pias.md): 16 hosts on one 1 Gb/s switch, base "
         "RTT 135 us, 4 MB of switch buffer shared by dynamic thresholds with alpha = 1/3 (our choice: the switch's is "
         "not published; a queue alone gets 1 MB, drop-tail TCP's one queue too), "
         "every flow from a random server to the client; hosts with window 10, RTO_min 10 ms (RFC 6298), 5 "
         "persistent connections per server; PIAS with 8 queues, ECN per port at 20 KB and the ns-2 scripts' 8-queue "
         "thresholds for the workload and load; DCTCP is the same switch with one queue; TCP is CUBIC (Linux "
         "3.18's, as on the testbed) on drop-tail. Offload as ACKs coalesced per 5 segments (50 us at most): senders "
         "burst 5 segments per ACK, as with the testbed's 7,220-byte average segment. No host scheduling noise. "
         "FCT in ms at the client.")


def _testbed(name: str, title: str, source: str, description: str, series: tuple, panels: tuple, paper: tuple,
             variants: dict, *, flows: tuple = (2_000, 10_000), base: dict = TESTBED, facet: str = "workload.cdf",
             facets: tuple = (WS, DM), facet_labels: dict = FACETS, x: str = "workload.load",
             xs: tuple = LOADS, xlabel: str = "Load", sets: tuple = ({}, {}), notes: str = "") -> Figure:
    """A §V-B testbed figure; the paper ran 10,000 flows per point."""
    return register(Figure(
        name=name, title=title, source=source, description=description, base=base, x=x, xlabel=xlabel,
        facet=facet, facets=facets, facet_labels=facet_labels, series="variant", series_values=series,
        series_labels=LABELS, variants=variants, panels=panels, bins=BINS,
        quick=Mode(x_values=xs, flows=flows[0], set=sets[0]), full=Mode(x_values=xs, flows=flows[1], set=sets[1]),
        paper=paper, notes=NOTES + notes,
    ))


def _vs(where, facet, panel, series, low, high, than, claim, xs=()):
    return PaperBound(where, facet, panel, series, low=low, high=high, relative_to=than, claim=claim, xs=xs)


_testbed(
    "pias-fig5-7", "PIAS Figs. 5-7: FCT on the testbed, PIAS against DCTCP and TCP (testbed model)",
    "PIAS (ToN'17) §V-B, Figs. 5 (overall), 6 (web search) and 7 (data mining)",
    "PIAS, DCTCP and TCP on the 16-host 1 Gb/s testbed, web search and data mining towards one client, loads "
    "0.5-0.8: average FCT overall and by size, 99th percentile of short flows.",
    ("pias", "dctcp", "tcp"), (OVERALL, SHORT_MEAN, SHORT_P99, MEDIUM_MEAN, LARGE_MEAN),
    (
        _vs("§V-B, Fig. 5(a)", WS, "all_mean", "pias", -0.10, 0.0, "dctcp", "overall: PIAS up to 6.5% below DCTCP"),
        _vs("§V-B, Fig. 5(a)", WS, "all_mean", "pias", -0.15, 0.0, "tcp", "overall: PIAS up to 10.2% below TCP"),
        _vs("§V-B, Fig. 5(b)", DM, "all_mean", "pias", -0.03, 0.01, "dctcp", "overall: PIAS up to 1.2% below DCTCP"),
        _vs("§V-B, Fig. 5(b)", DM, "all_mean", "pias", -0.16, 0.0, "tcp", "overall: PIAS up to 11.2% below TCP"),
        _vs("§V-B, Fig. 6(a)", WS, "small_mean", "pias", -0.55, -0.25, "dctcp",
            "short flows: PIAS 29-49% below DCTCP"),
        _vs("§V-B, Fig. 6(b)", WS, "small_p99", "pias", -0.67, -0.32, "dctcp",
            "short flows, 99th: PIAS 37-62% below DCTCP"),
        _vs("§V-B, Fig. 6(c)", WS, "medium_mean", "pias", -0.25, 0.0, "dctcp",
            "medium flows: PIAS up to 20% below DCTCP"),
        _vs("§V-B, Fig. 6(d)", WS, "large_mean", "pias", 0.0, 0.25, "dctcp",
            "large flows: PIAS up to 21% worse than DCTCP"),
        _vs("§V-B, Fig. 7(a)", DM, "small_mean", "pias", -0.40, -0.15, "dctcp",
            "short flows: PIAS 18-34% below DCTCP"),
        _vs("§V-B, Fig. 7(b)", DM, "small_p99", "pias", -0.36, -0.12, "dctcp",
            "short flows, 99th: PIAS 15-31% below DCTCP"),
        _vs("§V-B, Fig. 7(d)", DM, "large_mean", "pias", -0.10, 0.05, "dctcp",
            "large flows: PIAS comparable to or slightly better than DCTCP"),
    ),
    {"pias": PIAS, "dctcp": DCTCP, "tcp": TCP},
)

#: Figs. 8-9: memcached GETs from the client to all 15 servers (1 KB each)
#: at 20 or 40 queries per second, on top of web search towards the client.
#: Full: 1,000 queries per point (the testbed scripts' count) over enough
#: background flows to last; quick: 200.
QUERIES = {**TESTBED, "workload": {**TESTBED["workload"], "cdf": WS, "queries": {"per_s": 20}}}
_testbed(
    "pias-fig8-9", "PIAS Figs. 8-9: memcached queries under web search traffic, PIAS against DCTCP (testbed model)",
    "PIAS (ToN'17) §V-B, Figs. 8 (20 queries/s) and 9 (40 queries/s)",
    "Every query fetches 1 KB from each of the 15 servers at once; its completion time (QCT) ends with the last "
    "answer. Background: web search flows towards the same client at loads 0.5-0.8.",
    ("pias", "dctcp"), (QCT_MEAN, QCT_P99),
    tuple(
        b for qps in (20, 40) for b in (
            _vs(f"§V-B, Fig. {8 if qps == 20 else 9}(a)", qps, "qct_mean", "pias", -0.35, -0.23, "dctcp",
                "at 80% load, PIAS's mean QCT 28-30% below DCTCP's", xs=(0.8,)),
            _vs(f"§V-B, Fig. {8 if qps == 20 else 9}(b)", qps, "qct_p99", "pias", -0.32, -0.15, "dctcp",
                "at 80% load, PIAS's 99th-percentile QCT 20-27% below DCTCP's", xs=(0.8,)),
        )
    ),
    {"pias": PIAS, "dctcp": DCTCP},
    flows=(700, 3_500), base=QUERIES, facet="workload.queries.per_s", facets=(20, 40),
    facet_labels={20: "20 queries/s", 40: "40 queries/s"},
    sets=({"workload.queries.count": 200}, {"workload.queries.count": 1_000}),
    notes=" Queries start their 15 answers together (the GETs' own trip and the servers' time are not simulated: "
          "the testbed's idle QCT is ~650 us, ours ~204 us).",
)

_testbed(
    "pias-fig11", "PIAS Fig. 11: PIAS with 2, 4 and 8 queues (testbed model)", "PIAS (ToN'17) §V-B, Fig. 11",
    "PIAS with 2, 4 and 8 priority queues (Eq. 1 thresholds for each), web search on the testbed: average FCT of "
    "short and medium flows vs load.",
    ("q2", "q4", "q8"), (SHORT_MEAN, MEDIUM_MEAN),
    (
        _vs("§V-B, Fig. 11(b)", WS, "medium_mean", "q4", -0.25, -0.05, "q2",
            "medium flows at 80%: 4 queues 14.5% better than 2", xs=(0.8,)),
        _vs("§V-B, Fig. 11(b)", WS, "medium_mean", "q8", -0.05, 0.05, "q4",
            "medium flows at 80%: 4 and 8 queues similar", xs=(0.8,)),
        _vs("§V-B, Fig. 11(a)", WS, "small_mean", "q2", -0.10, 0.10, "q8",
            "short flows: similar with 2, 4 and 8 queues"),
    ),
    {f"q{k}": {**PIAS, "scheme.queues": k, "scheme.thresholds": "pias"} for k in (2, 4, 8)}, facets=(WS,),
)

_testbed(
    "pias-fig12", "PIAS Fig. 12: thresholds that do not match the traffic, with and without ECN (testbed model)",
    "PIAS (ToN'17) §V-B, Fig. 12",
    "Web search traffic with data mining's thresholds for the load (the scripts' table): PIAS, PIAS without ECN, "
    "and DCTCP; average FCT of short and medium flows vs load.",
    ("mismatch", "mismatch_noecn", "dctcp"), (SHORT_MEAN, MEDIUM_MEAN),
    (
        _vs("§V-B, Fig. 12(a)", WS, "small_mean", "mismatch", -1.0, -0.2, "dctcp",
            "short flows: PIAS far better than DCTCP despite the mismatch"),
        _vs("§V-B, Fig. 12(a)", WS, "small_mean", "mismatch_noecn", -1.0, -0.2, "dctcp",
            "short flows: PIAS without ECN far better than DCTCP too"),
        _vs("§V-B, Fig. 12(a)", WS, "small_mean", "mismatch", -0.2, 0.0, "mismatch_noecn",
            "short flows: PIAS slightly better than PIAS without ECN"),
        _vs("§V-B, Fig. 12(b)", WS, "medium_mean", "mismatch_noecn", 0.0, float("inf"), "dctcp",
            "medium flows: PIAS without ECN the worst"),
        _vs("§V-B, Fig. 12(b)", WS, "medium_mean", "mismatch_noecn", 0.0, float("inf"), "mismatch",
            "medium flows: PIAS without ECN the worst"),
    ),
    {"mismatch": {**PIAS, "scheme.threshold_cdf": DM},
     "mismatch_noecn": {**PIAS, "scheme.threshold_cdf": DM, "scheme.ecn": False},
     "dctcp": DCTCP},
    facets=(WS,),
)

_testbed(
    "pias-fig13", "PIAS Fig. 13: optimized against equal-split thresholds at 80% load (testbed model)",
    "PIAS (ToN'17) §V-B, Fig. 13",
    "PIAS with 2 and 4 queues, thresholds from Eq. 1 against thresholds splitting the flows into equal counts, "
    "web search at 80% load: average FCT of short and medium flows.",
    ("optimized", "equal_split"), (SHORT_MEAN, MEDIUM_MEAN),
    (
        _vs("§V-B, Fig. 13(b)", WS, "medium_mean", "optimized", -0.15, -0.03, "equal_split",
            "medium flows: optimized thresholds 8.3% (4 queues) and 5.8% (2 queues) better"),
    ),
    {"optimized": {**PIAS, "scheme.thresholds": "pias"}, "equal_split": {**PIAS, "scheme.thresholds": "equal_split"}},
    base={**TESTBED, "workload": {**TESTBED["workload"], "load": 0.8}}, facets=(WS,),
    x="scheme.queues", xs=(2, 4), xlabel="Priority queues",
)

#: Fig. 10 (§V-B): on a 10 Gb/s switch, one server sends 1-8 long-lived
#: TCP flows to a second while pinging a third; the pings queue behind the
#: flows' data in the sender's own host queue (the NIC is the bottleneck).
#: PIAS's end-host scheduler puts each ping (a new flow) in the higher of
#: two queues (threshold 100 KB). Host 1 sends, host 2 receives the flows,
#: host 0 answers the pings; the link delays of the 1 Gb/s testbed (the 10
#: Gb/s one's RTT is not given). How deep the host queue gets is set by the
#: flows' windows: capped at 720 packets, calibrated so that 8 flows queue
#: about the 6,748 us the paper measured; the rest of both curves is the
#: model's. No ECN: the queue is in the host, where no switch marks, and
#: both variants run the same TCP so that only the host's scheduler differs.
PING_WINDOW = 720
PING = {
    "topology": {"kind": "star", "hosts": 3, "rate_gbps": 10.0, "link_delay_us": 33.75},
    "routing": {"load_balancing": "ecmp"},
    "workload": {"matrix": "bulk", "src": 1, "dst": 2, "flow_bytes": 10**11,
                 "pings": {"src": 1, "dst": 0, "per_s": 1000}},
    "run": {"fct_at": "sender"},
}
PING_HOST = {**HOSTS, "scheme.name": "pias", "scheme.max_cwnd_pkts": PING_WINDOW, "scheme.host_queue_bytes": "unlimited",
             **LINUX_TIMERS, "scheme.ecn": False}
# (log axes: with and without PIAS the RTTs differ 30-fold)
PING_MEAN = Panel("ping_mean", "ping RTT: average", "all", "ping_mean_us", "RTT (us)", logy=True)
PING_P99 = Panel("ping_p99", "ping RTT: 99th percentile", "all", "ping_p99_us", "RTT (us)", logy=True)
register(Figure(
    name="pias-fig10", title="PIAS Fig. 10: ping under load, with and without PIAS at the sender (testbed model)",
    source="PIAS (ToN'17) §V-B, Fig. 10",
    description="One host sends 1-8 long-lived flows to a second and pings a third every millisecond: ping "
                "round-trip times with one host queue and with PIAS's two.",
    base=PING, x="workload.flows", xlabel="Long-lived flows", facet="workload.matrix", facets=("bulk",),
    facet_labels={"bulk": "Ping under load (10 Gb/s)"}, series="variant", series_values=("no_pias", "pias2"),
    series_labels=LABELS,
    variants={"no_pias": {**PING_HOST, "scheme.queues": 1, "scheme.thresholds": []},
              "pias2": {**PING_HOST, "scheme.queues": 2, "scheme.thresholds": [100_000]}},
    panels=(PING_MEAN, PING_P99),
    quick=Mode(x_values=(1, 2, 4, 8), flows=1, set={"run.stop_time_s": 0.2}),
    full=Mode(x_values=tuple(range(1, 9)), flows=1, set={"run.stop_time_s": 1.0}),
    paper=(
        PaperBound("§V-B, Fig. 10(a)", "bulk", "ping_mean", "pias2", low=0, high=250,
                   claim="with PIAS the mean RTT stays about 200 us"),
        PaperBound("§V-B, Fig. 10(b)", "bulk", "ping_p99", "pias2", low=0, high=450,
                   claim="with PIAS the 99th-percentile RTT stays below 450 us"),
        PaperBound("§V-B, Fig. 10(a)", "bulk", "ping_mean", "no_pias", low=5_000, high=8_500, xs=(8,),
                   claim="without PIAS up to 6,748 us with 8 flows (our window cap is calibrated to it)"),
    ),
    notes="A model of the paper's 10 Gb/s set-up (docs/reproductions/pias.md): TCP (no ECN) with window 10 growing to a cap "
          "of 720 packets (calibrated to the paper's 8-flow point), an unlimited host queue, the sender's NIC as the "
          "bottleneck; no segmentation offload and no host noise. A ping is a 64-byte flow; its RTT is its FCT at "
          "the sender.",
))
