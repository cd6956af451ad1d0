"""Which flows arrive (`[workload]`) and how a run ends (`[run]`)."""

from typing import Literal, Optional

from pydantic import model_validator

from .base import Model, field

#: Flows a generated workload starts when `workload.flows` is not given.
DEFAULT_FLOWS = 10_000


class Queries(Model):
    """Partition-aggregate queries on top of a generated workload (PIAS
    §V-B, Figs. 8-9: memcached). Every query asks all other hosts at once;
    each answers `response_bytes` to the client (`workload.dst`), and the
    query completes when the last answer is in, at the client (so queries
    need run.fct_at = "receiver"). A query's flows start together (the
    request's own way to the servers is not simulated). The answers are
    flows of the run like any other (they count in the slowdown table)."""

    per_s: float = field(20.0, "queries per second", source="PIAS ToN'17 §V-B (20 and 40 qps)", gt=0)
    response_bytes: int = field(1024, "bytes of each server's answer (a 1 KB memcached value)",
                                source="PIAS ToN'17 §V-B", gt=0)
    spacing: Literal["fixed", "poisson"] = field(
        "fixed", "fixed: one query every 1/per_s; poisson: exponential gaps of that mean",
        source="PIAS testbed scripts (memcached_dynamic_flow.py: fixed spacing)")
    count: Optional[int] = field(None, "queries to issue (default: as many as start before the last background "
                                       "flow starts and before run.stop_time_s)", gt=0)


class Incasts(Model):
    """BFC's incast mix (NSDI'22 §6.2.1) on top of a generated workload:
    at fixed intervals a host drawn at random (or always `receiver`)
    receives `total_bytes`, in equal flows from `senders` other hosts
    drawn at random, all starting together. The interval makes the incasts `load_share` of the capacity
    `workload.load` is a fraction of (BFC: 5% of the core, 20 MB every
    500 us on its Clos), so `workload.load` is the background's own share
    (BFC's "55% + 5% incast"). Incast flows are in the run's flow table,
    numbered in its `incast` column (-1: a background flow); the run's
    statistics keep them apart: the slowdown table is the background's,
    and each incast's completion time (its first start to its last
    finish) has statistics of its own (`dcsim.metrics.incast_times`)."""

    senders: int = field(100, "flows of each incast (its degree), from distinct random hosts other than the "
                              "receiver; beyond the other hosts' number, they send several each, in turn",
                         source="BFC NSDI'22 §6.2.1 (100-to-1); Fig. 13 (10 to 2,000)", gt=0)
    total_bytes: int = field(20_000_000, "bytes of an incast, split evenly among its senders",
                             source="BFC NSDI'22 §6.2.1 (20 MB in aggregate)", gt=0)
    load_share: float = field(0.05, "the incasts' share of the capacity workload.load refers to",
                              source="BFC NSDI'22 §6.2.1 (5% of the traffic)", gt=0, lt=1)
    count: Optional[int] = field(None, "incasts to start (default: as many as start before the last background "
                                       "flow and before run.stop_time_s)", gt=0)
    receiver: Optional[int] = field(None, "the host every incast goes to (an incast on top of background traffic as "
                                          "most incast studies run it); none: a random host each time, as BFC", ge=0)
    interval_us: Optional[float] = field(None, "time between incasts, us (none: the interval that makes them "
                                               "load_share of the capacity)", gt=0)

    def flow_bytes(self) -> int:
        return max(self.total_bytes // self.senders, 1)


class Pings(Model):
    """Pings on top of the workload (PIAS §V-B, Fig. 10: ping under load):
    one small flow from `src` to `dst` every 1/per_s; its FCT at the
    sender is the ping's round-trip time (so pings need run.fct_at =
    "sender"). Pings are flows of the run like any other (they count in
    the slowdown table)."""

    per_s: float = field(1000.0, "pings per second", gt=0)
    src: int = field(1, "the pinging host", ge=0)
    dst: int = field(0, "the pinged host", ge=0)
    bytes: int = field(64, "bytes of a ping (an ICMP echo with its default payload)", gt=0)
    count: Optional[int] = field(None, "pings to send (default: as many as fit before run.stop_time_s, or "
                                       "before the last other flow starts)", gt=0)


class LongFlows(Model):
    """Long-lived flows on top of the workload (BFC Table 1: one long flow
    sharing a link with cross traffic): `count` flows from `src` to `dst`
    starting at workload.start_us, each of `bytes`, by default more than
    any run sends, so that they last until run.stop_time_s. Their
    throughput over time is in the flow samples (run.sample_flows)."""

    src: int = field(1, "the sending host", ge=0)
    dst: int = field(0, "the receiving host", ge=0)
    count: int = field(1, "flows", gt=0, le=1000)
    pairs: Optional[list[tuple[int, int]]] = field(
        None, "one flow per (src, dst) pair instead of `count` from `src` to `dst` (BFC App. A.9's inter-datacenter "
              "flows)")
    bytes: int = field(10**12, "bytes of each (default: 1 TB, never finishing in a simulated run)", gt=0)

    def endpoints(self) -> list[tuple[int, int]]:
        """Each flow's (src, dst)."""
        return list(self.pairs) if self.pairs is not None else [(self.src, self.dst)] * self.count


class Workload(Model):
    """Which flows arrive. Generated workloads draw sizes from a CDF and
    arrivals from a Poisson process whose rate gives the offered `load`, as
    a fraction of host-link capacity (`load_basis = "host"`, pFabric and
    PIAS) or of the leaves' aggregate uplink capacity (`"core"`, BFC),
    counting headers. A trace gives every flow explicitly."""

    cdf: str = field("web_search", "flow sizes: a shipped workload (`dcsim list workloads`) or a 'size cdf' file",
                     source="pFabric §5.2 (web search, data mining)")
    cdf_unit_bytes: int = field(1, "bytes per size unit of a CDF file (1460 for ns-2 tables in packets)", ge=1)
    size_quantum_bytes: int = field(1, "round sizes up to a multiple of this many bytes (1460: whole packets)",
                                    ge=1)
    load: float = field(0.6, "offered load, a fraction of the capacity named by load_basis, headers included",
                        source="pFabric §5.2 (loads 0.1-0.8)", gt=0, lt=1)
    load_basis: Literal["host", "core"] = field(
        "host", "host: of all host links (pFabric, PIAS); core: of the leaves' uplinks (BFC §6.2)")
    matrix: Literal["all_to_all", "many_to_one", "trace", "incast", "heterogeneous", "bulk", "rack_local"] = field(
        "all_to_all", "all_to_all: uniform random source and destination; many_to_one: every flow to `dst`; "
        "trace: the flows of `trace`; incast: requests striped over `senders` hosts towards `dst`, each starting "
        "when the last finished; heterogeneous: flows from host i to j have `cdf` sizes when i < j and "
        "`reverse_cdf` sizes when i > j, every ordered pair carrying the same bytes (PIAS Fig. 19); bulk: "
        "`flows` flows (default 1) of `flow_bytes` from `src` to `dst`, all at start_us (long-lived flows: end the "
        "run with run.stop_time_s; PIAS Fig. 10); rack_local: a uniform source, and a `local_share` of the flows "
        "to another host of its rack (a leaf's hosts), the rest to hosts of other racks, uniformly (BFC Fig. 22)",
        source="pFabric §5.2, §5.3; PIAS §V-B, §V-C; BFC App. A.5")
    rack_hosts: Optional[int] = field(
        None, "rack_local: hosts per rack, racks being runs of consecutive hosts; none: the leaf-spine's hosts per "
              "leaf (on a file topology: a datacenter's hosts, BFC App. A.9)", ge=2)
    local_share: float = field(0.5, "rack_local: the fraction of flows that stay in their source's rack (0.5 on a "
                                    "2:1 oversubscribed leaf-spine loads host and core links equally)",
                               source="BFC NSDI'22 App. A.5", ge=0, le=1)
    reverse_cdf: Optional[str] = field(
        None, "heterogeneous: the sizes of flows from host i to j with i > j, a shipped workload or a file "
        "(PIAS Fig. 19: data_mining, with web_search as cdf)", source="PIAS §V-C")
    arrivals: Literal["poisson", "lognormal", "ns2_scripts"] = field(
        "poisson", "the arrival process of generated flows: Poisson, or lognormal gaps of the same mean (burstier), "
        "or ns2_scripts: the pFabric/PIAS ns-2 scripts' generator draw for draw (a Poisson process per host pair "
        "with ns-2's RNG seeded 17*src + 1244*dst for gaps and 33*src + 4369*dst for sizes, which makes the pairs' "
        "draws far from independent; the same flows for every seed; all_to_all only, sizes in packets: "
        "size_quantum_bytes = the MSS; rate_mean_bytes as the scripts)",
        source="pFabric §5.2, PIAS §V (Poisson); BFC §6.2.1 (lognormal, sigma 2); pFabric ns-2 scripts "
               "(ns2_scripts, docs/workloads.md)")
    rate_mean_bytes: Optional[int] = field(
        None, "the mean flow size the arrival rate is derived from (default: the CDF's own mean); the pFabric "
        "scripts pass 1,661,480 for web search and 7,470,820 for data mining", source="pFabric ns-2 scripts",
        gt=0)
    arrival_sigma: float = field(2.0, "lognormal arrivals: sigma of the gaps' logarithm", source="BFC §6.2.1",
                                 gt=0, le=10)
    dst: int = field(0, "destination host of many_to_one, incast and bulk, and the client of queries", ge=0)
    src: int = field(1, "source host of bulk", ge=0)
    senders: int = field(8, "incast: sending hosts (chosen at random, other than dst, from the seed)", ge=1)
    request_bytes: Optional[int] = field(
        None, "incast: bytes of a request, striped over the senders (Fig. 6: 100 MB)", source="pFabric §5.3",
        gt=0)
    flow_bytes: Optional[int] = field(
        None, "incast: bytes each sender sends per request (instead of request_bytes; Fig. 5: 20 MB); bulk: "
        "bytes of each flow",
        source="pFabric §5.3", gt=0)
    requests: int = field(1, "incast: requests, one after another (Fig. 6: 10,000)", source="pFabric §5.3", ge=1)
    deadline_mean_us: Optional[float] = field(
        None, "give flows below deadline_below_bytes a deadline: start + an exponential draw of this mean, at "
        "least deadline_min_factor x the idle-network FCT (deadline_s in flows.parquet)",
        source="pFabric §5.4.2 (100 us - 100 ms)", gt=0)
    deadline_below_bytes: int = field(200_000, "only flows smaller than this get a deadline",
                                      source="pFabric §5.4.2", gt=0)
    deadline_min_factor: float = field(1.25, "a deadline is at least this many idle-network FCTs",
                                       source="pFabric §5.4.2", ge=1)
    trace: Optional[str] = field(None, "trace file (matrix = 'trace'); relative to the spec file")
    trace_format: Literal["dcsim", "hpcc"] = field(
        "dcsim", "dcsim: lines 'time_s src dst size_bytes'; hpcc: the HPCC simulator's flow file (with topology.kind = "
        "\"file\", its node ids are the topology file's)")
    flows: Optional[int] = field(
        None, f"flows to generate (default {DEFAULT_FLOWS:,}); with a trace, run at most its first N flows "
        "(default: all); summary.json's flows_total says how many ran",
        source="pFabric ns-2 scripts: 100,000 flows per point", gt=0)
    start_us: float = field(0.0, "time of the first possible arrival, us", ge=0)
    queries: Optional[Queries] = field(
        None, "partition-aggregate queries to `dst` from every other host, on top of the generated flows "
        "(`[workload.queries]`; query completion times: dcsim.metrics.query_times)", source="PIAS ToN'17 §V-B")
    incasts: Optional[Incasts] = field(
        None, "BFC's incast mix on top of the generated flows: every interval, one random host receives 20 MB from "
        "100 random others (`[workload.incasts]`)", source="BFC NSDI'22 §6.2.1")
    pings: Optional[Pings] = field(
        None, "pings from one host to another on top of the flows (`[workload.pings]`; round-trip times: "
        "dcsim.metrics.ping_times)", source="PIAS ToN'17 §V-B (Fig. 10)")
    traffic_classes: int = field(
        1, "strict-priority traffic classes: flows are split among them by a hash of their id (equal shares of "
        "the flows, and of the load, in expectation; dcsim.metrics.traffic_classes gives each flow's), class 0 "
        "served first; ports with PFC keep a data queue and a PFC priority per class (ECN on the class's queue, "
        "HPCC's telemetry on the port's aggregate), BFC's ports split their queues and flow table evenly among "
        "the classes", source="BFC NSDI'22 App. A.3 (Fig. 20: 4 classes)", ge=1, le=8)
    class_scheduling: Literal["strict", "round_robin"] = field(
        "strict", "how ports with PFC serve the traffic classes: strict priority (class 0 first, BFC App. A.3) or "
        "round robin, a packet per class in turn, as the HPCC simulator's switches serve their data queues "
        "(`DoDequeueRR`); BFC's ports always use strict priority between classes",
        source="BFC NSDI'22 App. A.3; HPCC simulator (broadcom-egress-queue.cc)")
    long_flows: Optional[LongFlows] = field(
        None, "long-lived flows from one host to another on top of the flows (`[workload.long_flows]`)",
        source="BFC NSDI'22 §2.1 (Table 1)")

    @model_validator(mode="after")
    def _trace_needs_file(self):
        if self.matrix == "trace" and not self.trace:
            raise ValueError("matrix = 'trace' needs workload.trace = PATH")
        if self.matrix == "heterogeneous" and not self.reverse_cdf:
            raise ValueError("matrix = 'heterogeneous' needs workload.reverse_cdf (a shipped workload or a file)")
        if self.queries is not None and self.matrix in ("trace", "incast", "bulk"):
            raise ValueError(f"workload.queries go on top of a generated workload, not matrix = '{self.matrix}'")
        if self.incasts is not None and self.matrix in ("trace", "incast", "bulk"):
            raise ValueError(f"workload.incasts go on top of a generated workload, not matrix = '{self.matrix}'")
        if (self.queries is not None or self.pings is not None or self.incasts is not None) \
                and self.deadline_mean_us is not None:
            raise ValueError("workload.queries and workload.pings do not combine with deadlines (deadline_mean_us)")
        if self.pings is not None and self.matrix == "incast":
            raise ValueError("workload.pings cannot go on top of matrix = 'incast' (a closed loop)")
        if self.long_flows is not None and self.matrix in ("trace", "incast", "bulk"):
            raise ValueError(f"workload.long_flows go on top of a generated workload, not matrix = '{self.matrix}'")
        if self.long_flows is not None:
            for src, dst in self.long_flows.endpoints():
                if src == dst:
                    raise ValueError(f"workload.long_flows: src and dst are the same host ({src})")
        if self.pings is not None and self.pings.src == self.pings.dst:
            raise ValueError(f"workload.pings: src and dst are the same host ({self.pings.src})")
        if self.arrivals == "ns2_scripts" and self.matrix != "all_to_all":
            raise ValueError(f"workload.arrivals = 'ns2_scripts' generates all_to_all flows, not matrix = "
                             f"'{self.matrix}'")
        if self.arrivals == "ns2_scripts" and (self.deadline_mean_us is not None or self.queries is not None
                                               or self.pings is not None or self.incasts is not None):
            raise ValueError("workload.arrivals = 'ns2_scripts' does not combine with deadlines, queries, pings or "
                             "incasts")
        if self.rate_mean_bytes is not None and self.matrix not in ("all_to_all", "many_to_one"):
            raise ValueError(f"workload.rate_mean_bytes sets the rate of generated all_to_all or many_to_one flows, "
                             f"not matrix = '{self.matrix}'")
        if self.arrivals != "poisson" and self.matrix in ("trace", "incast", "bulk"):
            raise ValueError(f"workload.arrivals = '{self.arrivals}' applies to generated flows, not matrix = "
                             f"'{self.matrix}'")
        if self.matrix == "bulk" and self.flow_bytes is None:
            raise ValueError("matrix = 'bulk' needs workload.flow_bytes (the size of each flow)")
        if self.matrix == "bulk" and self.src == self.dst:
            raise ValueError(f"matrix = 'bulk': src and dst are the same host ({self.src})")
        if self.matrix == "incast" and (self.request_bytes is None) == (self.flow_bytes is None):
            raise ValueError("matrix = 'incast' needs exactly one of request_bytes and flow_bytes")
        return self

    def incast_flow_bytes(self) -> int:
        """Each sender's bytes per request."""
        if self.flow_bytes is not None:
            return self.flow_bytes
        return -(-self.request_bytes // self.senders)

    def generated_flows(self) -> int:
        if self.flows is not None:
            return self.flows
        return 1 if self.matrix == "bulk" else DEFAULT_FLOWS


class RunOptions(Model):
    """How the run is carried out and when it stops."""

    # (at most 10 ms: a host holds every packet that reaches it for this
    # long; 2,147 s filled memory and 1 s ran for ever: fuzz cases 345
    # and 6987 of seed 1)
    host_delay_us: float = field(0.0, "host processing delay added when a packet reaches a host, us", ge=0,
                                 le=1e4)
    report_links: list[tuple[int, int]] = field(
        [], "links whose traffic the summary reports (`links`: bytes and packets each way, and utilization over the "
            "run), as pairs of the nodes they join, numbered as dcsim numbers them (hosts first, then switches)",
        source="BFC App. A.9, Fig. 26(b) (the interconnect's utilization)")
    stop_time_s: Optional[float] = field(
        None, "stop at this simulated time, finished or not (unfinished flows are kept, with no finish time)",
        gt=0)
    deadlock_check_us: Optional[float] = field(
        1000.0, "with PFC, look this often for switch ports paused in a cycle, each holding packets that wait for "
        "the next: a PFC deadlock, which stops the run (status \"deadlock\") naming the ports, instead of running "
        "to its stop time; none: never look (docs/faults.md)", ge=1)  # (more often is no use, and 1 ns hung: fuzz case 4319)
    max_resends_per_packet: Optional[float] = field(
        100.0, "stop the run (status \"collapse\") once its senders have sent packets again more than this many "
        "times the data packets they sent once (and at least 100,000 times): a congestion collapse (go-back-N under "
        "spraying, timeouts shorter than the queues) whose numbers mean little and whose cost is past any estimate; "
        "none: never stop (docs/faults.md)", ge=1)  # (fuzz case 7078: 1,344 resends a packet, 600x its estimate)
    sample_us: Optional[float] = field(
        None, "sample every this many us: the queues of `sample_queues` (queues.parquet), with `sample_flows` "
        "each flow's progress (flow_samples.parquet) and, with shared buffers, every switch's buffer "
        "(buffers.parquet); a table not asked for is not written; off by default", gt=0)
    sample_queues: Literal["to_hosts", "host_nics", "switches", "all", "none"] = field(
        "to_hosts", "the ports whose queues the sampler records: the last hop to each host, the host NICs, every "
        "switch port, all, or none")
    sample_flows: bool = field(False, "the sampler also records each active flow's delivered bytes (per-flow "
                                      "throughput over time, pFabric Fig. 5(a))")
    queueing_delay: bool = field(False, "keep every data packet's queueing delay at each switch port it crosses "
                                        "(arrival to start of departure; at shared-buffer switches and ports that "
                                        "choose by priority): the summary's `queueing_delay` by switch tier ('_up': "
                                        "ports toward a higher tier; '_single': one-packet flows' packets; "
                                        "'_scheduled': Homa's scheduled packets), with 2% precision",
                                 source="BFC NSDI'22 Table 1 (99th percentile queueing delay)")
    fct_at: Literal["sender", "receiver"] = field(
        "sender", "when a flow is finished: sender, when the ACK of its last byte reaches the sender (its ideal "
        "FCT then includes that ACK's way back); receiver, when the receiver holds every byte (one-way ideal). Homa, "
        "which acknowledges nothing, is always timed at the receiver",
        source="pFabric and PIAS ns-2 scripts (the FCT they log ends at the sender)")

    def recorded(self) -> list[str]:
        """The options set that record what only a packet-level run of the
        whole fabric has (its queues, links and packets)."""
        return [name for name, on in (("run.sample_us", self.sample_us is not None),
                                      ("run.queueing_delay", self.queueing_delay),
                                      ("run.report_links", bool(self.report_links))) if on]
