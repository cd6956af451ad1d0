"""The CS244 '13 student reproduction of pFabric (Stanford, on Mininet):
its Figs. 2-4, normalized FCT against load on a 15-host star at 100 Mb/s,
TCP against "minTCP + pFabric" with 16 PRIO bands; and the same with a
priority per remaining size, to answer what the students left open: how
much of their gap to the paper the 16 bands make, and how much the star."""

from __future__ import annotations

from .core import Figure, Mode, PaperBound, register
from .pfabric import PANELS

SOURCE = "CS244 '13 reproduction of pFabric (HotNets'12), Figs. 2-4"
WS, DM = "web_search", "data_mining"

#: Linux TCP Reno as the students' hosts ran it (§7-§9: "TCP Reno, turning
#: off the advanced features ... available via sysctl"; fast retransmit and
#: duplicate ACKs stay on): Linux's 200 ms minimum and 1 s initial RTO, an
#: initial window of 10 (Linux since 2.6.39), delayed ACKs every second
#: segment or after 40 ms, and Linux's default interface queue (txqueuelen
#: 1000 packets: the students changed it, to a size they do not give).
LINUX = {"scheme.fast_retransmit": True, "scheme.min_rto_us": 200_000, "scheme.init_rto_us": 1_000_000,
         "scheme.init_cwnd_pkts": 10, "scheme.ack_every": 2, "scheme.ack_delay_us": 40_000,
         "scheme.queue_bytes": 1_500_000}

#: The students' switch: Linux's PRIO qdisc, 16 bands, each packet's band
#: its flow's remaining size mapped logarithmically (§9), ACKs in the first;
#: each band is a FIFO of its own (PRIO's default pfifo children, of
#: txqueuelen packets each): every queue's reserve is the whole limit.
PRIO16 = {"scheme.name": "prio_queues", "scheme.queues": 16, "scheme.thresholds": "log",
          "scheme.priority": "remaining_size", **LINUX,
          "scheme.queue_bytes": 16 * 1_500_000, "scheme.reserved_bytes": 1_500_000}

#: pFabric as its §4.2 sizes it, on this star: its own hosts (minimal rate
#: control) with an initial window of one BDP, a timeout of about 3 RTTs
#: and 2 BDPs of buffer, the BDP here being 1,500 B at 100 Mb/s both ways
#: with no added delay (a 246 us RTT, 3 KB): 3 packets, 750 us, 9,000 B.
PFABRIC_HERE = {"scheme.name": "pfabric", "scheme.init_cwnd_pkts": 3, "scheme.rto_us": 750,
                "scheme.queue_bytes": 9000}

register(Figure(
    name="cs244-fig2-4",
    title="CS244 '13 reproduction of pFabric, Figs. 2-4: a 15-host star at 100 Mb/s",
    source=SOURCE,
    description=(
        "The students' set-up (§6, §9): 15 hosts on one switch, 100 Mb/s links, no added delay, Poisson arrivals "
        "of the web search and data mining workloads, Linux TCP Reno at the hosts. Series: TCP over drop-tail "
        "queues; their \"minTCP + pFabric\", the same hosts over 16 strict-priority bands by remaining size "
        "(logarithmic); the same hosts over a priority per remaining size (pFabric's queue); and pFabric with its "
        "own hosts, sized for this star as its §4.2 sizes it for the paper's fabric."
    ),
    base={"topology": {"kind": "star", "hosts": 15, "rate_gbps": 0.1, "link_delay_us": 0.0},
          "workload": {"size_quantum_bytes": 1460}},
    x="workload.load",
    xlabel="Load",
    facet="workload.cdf",
    facets=(WS, DM),
    facet_labels={WS: "Web search (Figs. 2(b), 4)", DM: "Data mining (Figs. 2(a), 3)"},
    series="variant",
    series_values=("tcp", "prio16", "unlimited", "pfabric"),
    series_labels={"tcp": "TCP (Linux Reno)", "prio16": "minTCP + pFabric, 16 bands (the students')",
                   "unlimited": "same hosts, a priority per remaining size",
                   "pfabric": "pFabric as §4.2 sizes it for this star"},
    variants={"tcp": {"scheme.name": "tcp", **LINUX},
              "prio16": PRIO16,
              "unlimited": {**PRIO16, "scheme.queues": "unlimited", "scheme.queue_bytes": 1_500_000},
              "pfabric": PFABRIC_HERE},
    panels=PANELS,
    quick=Mode(x_values=(0.2, 0.5, 0.8), flows=2000),
    full=Mode(x_values=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), flows=20_000),
    paper=(
        PaperBound("§6", WS, "small_mean", "prio16", high=-0.3, relative_to="tcp",
                   claim="short flows: minTCP + pFabric performs significantly better than TCP (web search)"),
        PaperBound("§6", DM, "small_mean", "prio16", high=-0.3, relative_to="tcp",
                   claim="short flows: minTCP + pFabric performs significantly better than TCP (data mining)"),
        PaperBound("§6", WS, "large_mean", "prio16", low=-0.25, relative_to="tcp",
                   claim="the largest flows: about the same as TCP, if not worse (web search)"),
        PaperBound("§6", DM, "large_mean", "prio16", low=-0.25, relative_to="tcp",
                   claim="the largest flows: about the same as TCP, if not worse (data mining)"),
    ),
    notes=(
        "The students' text gives no numbers, only these statements; their runs lasted 3 (web search) and 5 (data "
        "mining) minutes per load. Full mode runs 20,000 flows per point, at least that long (web search at 10% "
        "load: 28 minutes of simulated time; at 80%: 3.6; data mining longer), quick mode 2,000. Their queue sizes "
        "(txqueuelen) are not given: Linux's default of 1,000 packets here. How much of their gap to the "
        "paper comes from the 16 bands (prio16 against unlimited) and how much from the star (unlimited here against "
        "pFabric on the paper's fabric, pfabric-fig7-9) is in docs/reproductions/pfabric.md."
    ),
    ylims={"small_mean": (0, 10), "small_p99": (0, 10)},
))
