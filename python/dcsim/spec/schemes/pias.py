"""`pias`: PIAS (Bai et al., NSDI'15 / ToN'17): information-agnostic flow
scheduling with a multi-level feedback queue over the few strict-priority
queues of commodity switches, and DCTCP."""

from typing import TYPE_CHECKING, Annotated, ClassVar, Literal, Optional, Union

from ..base import field
from .prio_queues import EITHER_SPELLING, resolve_thresholds, strict_priority_port, threshold_caveats
from .tcp import TcpFamily

if TYPE_CHECKING:
    from ..experiment import Spec

PIAS = "PIAS ToN'17 §V-A and its ns-2 scripts (docs/sources.md §2)"


class PiasScheme(TcpFamily):
    """PIAS (ToN'17 §III-§IV). The sender tags each packet with a priority
    from the bytes its flow has sent before it: queue i for the first
    demotion threshold alpha_i the offset does not exceed, the last queue
    beyond them all (retransmissions keep their tag; ACKs go first).
    Switch ports and host NICs have K strict-priority FIFO queues sharing
    one buffer, drop-tail, and mark ECN when the whole port holds more than
    the threshold (per-port marking, §IV). Hosts run DCTCP with ECT on
    every packet, as the ns-2 scripts' MinTCP agent: a fixed timeout with
    no backoff, probe mode after 5 timeouts in a row, one persistent
    connection per host pair, window 70 at every flow start."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "PIAS"
    name: Literal["pias"] = field("pias", "the scheme")
    queues: int = field(8, "strict-priority queues per port (K)", source=PIAS, ge=1, le=32)
    thresholds: Annotated[Union[list[int], Literal["paper", "pias", "equal_split"]], EITHER_SPELLING] = field(
        "paper", "K-1 demotion thresholds on bytes sent, bytes: a list, 'paper' (the PIAS scripts' table for the "
        "spec's workload and load: web search or data mining, 8 queues, loads 0.5-0.9), 'pias' (PIAS Eq. 1 solved "
        "for the spec's workload and load, `dcsim thresholds`) or 'equal_split' (quantiles of the flow count, "
        "Fig. 13)", source=PIAS)
    threshold_load: Union[float, Literal["workload"]] = field(
        "workload", "the load the thresholds are chosen for: the workload's load, or a given one (the scripts "
        "use the core load on the oversubscribed fabric)", source=PIAS)
    threshold_load_factor: float = field(
        1.0, "the thresholds are chosen for the load times this (the scripts' oversubscribed runs: 2.75, the core "
        "load of an edge load on 12 x 12 hosts at 3:1)", source=PIAS, gt=0)
    threshold_cdf: Optional[str] = field(
        None, "the flow sizes the thresholds are chosen for: the workload's (default), or another shipped workload "
        "or file, in the workload's cdf_unit_bytes (Fig. 12: thresholds derived for data mining on web search "
        "traffic)", source="PIAS ToN'17 §V-B")
    ecn: bool = field(True, "ECN marking and DCTCP's reaction (off: PIAS without ECN, Fig. 12)", source=PIAS)
    ecn_scope: Literal["port", "queue"] = field(
        "port", "what the marking threshold is compared with: the bytes of the whole port (PIAS's choice, for burst "
        "tolerance) or of the arrival's queue (isolation among queues, more buffer)", source="PIAS ToN'17 §IV-A2")
    queue_bytes: int = field(360_000, "buffer of every port, shared by its queues, bytes (240 x 1500)",
                             source=PIAS, gt=0)
    buffer_alpha: Optional[float] = field(
        None, "dynamic thresholds: a queue may take at most this times the free buffer (Broadcom's dynamic buffer "
        "management, the testbed's switch); none: one pool, first come first served (ns-2's prio.cc)",
        source="PIAS ToN'17 §V-A", gt=0)
    ecn_threshold_bytes: int = field(97_500, "mark ECT packets when the port holds more than this, bytes "
                                             "(65 x 1500)", source=PIAS, ge=0)
    g: float = field(1 / 16, "DCTCP's gain", source=PIAS, gt=0, le=1)
    rto_us: float = field(2000, "the fixed retransmission timeout, us (the scripts' MinTCP agent: no RTT "
                                "estimate, no backoff); with fixed_rto = false, the timeout's floor", source=PIAS, gt=0)
    fixed_rto: bool = field(True, "every timeout is rto_us (MinTCP); false: RFC 6298 with rto_us as its floor and "
                                  "backoff, as Linux with RTO_min (the testbed, §V-A: 10 ms)", source=PIAS)
    probe_after: Optional[int] = field(5, "timeouts in a row before probe mode (MinTCP); none: no probe mode",
                                       source=PIAS, ge=1)
    init_cwnd_pkts: float = field(70, "window at every flow start, packets (about one BDP)", source=PIAS, ge=1)
    max_cwnd_pkts: Union[float, Literal["auto", "unlimited"]] = field(
        239, "window cap, packets (the scripts: the queue in packets, less one)", source=PIAS)
    connections: Literal["per_flow", "pool"] = field("pool", "flows reuse persistent connections", source=PIAS)
    connections_per_pair: int = field(1, "persistent connections per host pair to start with", source=PIAS, ge=1)

    file_fields: ClassVar[tuple[str, ...]] = ("threshold_cdf",)

    def resolved_thresholds(self, spec: "Spec") -> list[int]:
        """The K-1 demotion thresholds this spec runs with, bytes."""
        return resolve_thresholds(self.thresholds, self.queues, spec, self.threshold_load, "pias",
                                  factor=self.threshold_load_factor, cdf_name=self.threshold_cdf)

    def caveats(self, spec: "Spec") -> list[str]:
        return super().caveats(spec) + threshold_caveats(spec, self.resolved_thresholds(spec))

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        ts = self.resolved_thresholds(spec)
        transport = self.tcp_engine(spec.routing, min_rto_us=self.rto_us, init_rto_us=None, ecn=self.ecn,
                                    fixed_rto=self.fixed_rto, probe_after=self.probe_after,
                                    cc={"kind": "dctcp", "g": self.g}, prio="bytes_sent", prio_thresholds=ts)
        port = strict_priority_port(self.queues, self.queue_bytes, 0, self.ecn_threshold_bytes if self.ecn else None,
                                    per_port=self.ecn_scope == "port", dt_alpha=self.buffer_alpha)
        host = dict(port, limit_bytes=self.resolved_host_queue())
        return transport, {"host": host, "switch": port}
