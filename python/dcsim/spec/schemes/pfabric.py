"""`pfabric`: pFabric (Alizadeh et al., SIGCOMM 2013): priority scheduling
and dropping in tiny switch buffers, and minimal rate control at the hosts."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ..base import field
from .tcp import SCRIPTS, TABLE1, TcpFamily

if TYPE_CHECKING:
    from ..experiment import Spec


class PFabricScheme(TcpFamily):
    """pFabric (§4). Every switch port and host NIC has a small buffer that
    sends the packet of highest priority (lowest number) and, when full,
    drops the packet of lowest priority (the arrival on a tie); with
    starvation prevention it sends the earliest packet of the flow that
    owns the best one. Packets carry their flow's remaining size by
    default. Hosts run minimal rate control (§4.2): TCP with SACK starting
    at one BDP, no fast retransmit, a fixed timeout of about 3 RTTs with no
    backoff, slow start after a timeout with ssthresh half the window, and
    probe mode after 5 timeouts in a row. Table 1: qSize 36 KB, initCwnd 12
    packets, RTO 45 us."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "pFabric"
    name: Literal["pfabric"] = field("pfabric", "the scheme")
    queue_bytes: int = field(36_000, "buffer of every switch port and NIC, bytes (24 x 1500: two BDPs)",
                             source=TABLE1, gt=0)
    rto_us: float = field(45, "the fixed retransmission timeout, us (about 3 RTTs)", source=TABLE1, gt=0)
    rate_control: Literal["minimal", "line_rate"] = field(
        "minimal", "minimal: §4.2's rate control (a window from one BDP, slow start after a timeout, probe mode); "
        "line_rate: none, the HotNets'12 version's \"line rate\" curve: every flow keeps its initial window (one BDP, "
        "what fills the line alone) to its end, through echoes and timeouts, with no probe mode",
        source="pFabric §4.2; Alizadeh et al., HotNets'12 (the CS244 '13 reproduction's Fig. 2)")
    probe_mode: bool = field(True, "after probe_after timeouts in a row, send only one-byte probes until the "
                                   "receiver answers (off for Fig. 5(b))", source="pFabric §4.2, §5.3")
    probe_after: int = field(5, "timeouts in a row that start probe mode", source="pFabric ns-2 scripts (prob_cap_)",
                             ge=1)
    starvation_prevention: bool = field(True, "send the earliest packet of the flow that owns the best packet "
                                              "(off for Fig. 16)", source="pFabric §4.1, §5.4.3")
    priority: Literal["remaining_size", "flow_size", "bytes_sent", "deadline"] = field(
        "remaining_size", "what a data packet carries: its flow's bytes not yet acknowledged, the flow's size, the "
        "bytes sent before it (least attained service), or, pFabric-EDF, its flow's deadline in a strict-priority "
        "queue of its own while it can still be met (else the remaining size, with the flows without one); ACKs "
        "carry the highest priority", source="pFabric §4.2, §5.4.2, §5.4.3 (Figs. 10, 14, 15)")
    deployment: Literal["everywhere", "leaves"] = field(
        "everywhere", "pFabric ports everywhere, or at the hosts and leaves only with drop-tail FIFOs of the same "
        "size above them (Fig. 17)", source="pFabric §5.4.3")
    fast_retransmit: bool = field(False, "duplicate-ACK fast retransmit (pFabric has none)", source="pFabric §4.2")
    connections_per_pair: int = field(1, "connections a pool starts with per host pair (more open when all are "
                                         "busy: a flow never waits)", source=SCRIPTS, ge=1)

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        routing = spec.routing
        line_rate = self.rate_control == "line_rate"
        probe_after = self.probe_after if self.probe_mode and not line_rate else None
        transport = self.tcp_engine(routing, min_rto_us=self.rto_us, init_rto_us=None, ecn=False,
                                    fixed_rto=True, probe_after=probe_after, prio=self.priority)
        if line_rate:
            transport |= {"cc": {"kind": "line_rate"}, "max_cwnd_pkts": float(self.init_cwnd_pkts)}
        classes = 2 if self.priority == "deadline" else 1
        pfabric = {"discipline": {"kind": "pfabric", "starvation_prevention": self.starvation_prevention,
                                  "classes": classes},
                   "limit_bytes": self.queue_bytes}
        host = dict(pfabric, limit_bytes=self.resolved_host_queue())
        port = {"host": host, "switch": pfabric}
        if self.deployment == "leaves":
            port["upper_tiers"] = self.fifo(self.queue_bytes)
        return transport, port
