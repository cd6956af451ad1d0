"""`bfc`: Backpressure Flow Control (Goyal et al., NSDI 2022, §3), with the
set-up of its simulations (§6.2.1)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ...errors import SpecError
from ..base import field, ps
from .rdma import RdmaFamily

if TYPE_CHECKING:
    from ..experiment import Spec

BFC3 = "BFC NSDI'22 §3"
BFC62 = "BFC NSDI'22 §6.2.1"
BFC_A = "BFC NSDI'22 App. A"
#: a flow-table entry in the engine (`schemes/bfc/queue.rs` `TableEntry`:
#: queue u16, packets u32, time u64, aligned)
TABLE_ENTRY_BYTES = 16


class BfcScheme(RdmaFamily):
    """BFC: every switch egress port has `queues` FIFO queues served by
    deficit round robin among those not paused; a flow table (100 entries
    per queue) assigns each flow an empty queue when it has no packet in
    the switch (else a random one) and keeps it while it has. A packet that
    finds its queue above Th = HRTT x rate / (active queues) is counted
    against the queue it came from upstream (its upstreamQ header); the
    first such packet pauses that upstream queue, which resumes when the
    last has left. Pause and resume frames go back on the arrival link
    ahead of data. NICs keep a queue per flow (round robin among those not
    paused) and send at line rate: no end-to-end congestion control, no
    window. Shared 12 MB buffers without PFC; a packet is dropped only when
    the buffer is full, and go-back-N (with the safety timeout) recovers."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["bfc"] = field("bfc", "the scheme")
    scheduling: Literal["fair", "srf"] = field(
        "fair", "fair: deficit round robin among the queues (BFC); srf: BFC-SRF, each data packet carries what is "
                "left of its flow, switches serve the queue whose head has the least left and NICs the flow with the "
                "least left (App. A.2)", source=BFC_A + ".2")
    queues: int = field(32, "physical queues per egress port", source=BFC62 + " (Tofino2)", ge=1, le=4096)
    table_per_queue: int = field(100, "flow-table entries per queue of the port (a collision below 1% while "
                                      "the flows are fewer than the queues)", source=BFC3 + ".3.1", ge=1,
                                 le=2**20)  # (a u32 in the engine: 2^31 overflowed it; memory: `state_bytes`)
    assign: Literal["dynamic", "stochastic", "single"] = field(
        "dynamic", "queue assignment: dynamic (an empty queue, else random), stochastic (a static hash, as SFQ; "
                   "Fig. 27) or single (one queue, like PFC; Fig. 8)", source=BFC3 + ".3.1")
    sticky_hrtt: float = field(2.0, "a flow keeps its queue this many hop RTTs after its last packet left",
                               source=BFC3 + ".4", ge=0)
    hrtt_us: Optional[float] = field(None, "HRTT, one hop's round trip; none: twice the longest link delay at the "
                                           "switch (2 us on BFC's Clos)", source=BFC3 + ".3.2", gt=0)
    pause_threshold_kb: Optional[float] = field(None, "a fixed pause threshold instead of HRTT x rate / active "
                                                      "queues (Fig. 7's sweep), KB", gt=0)
    quantum_bytes: int = field(1048, "deficit round robin quantum (one full packet: fair queueing by packets; "
                                     "not given in the paper)", ge=1)
    rto_us: Optional[float] = field(1000.0, "a safety timeout (BFC switches drop only when the buffer is full; "
                                            "go-back-N's NACKs recover all but a flow's last packets)", gt=0)
    cc: Literal["none", "delay"] = field(
        "none", "end-to-end control on top: none (BFC as evaluated) or delay (BFC + CC: a window steering each "
                "ACK's RTT towards rtt_target x the base RTT, Algorithm 1; Figs. 15-16)", source=BFC_A + ".1")
    rtt_target: float = field(2.5, "BFC + CC's target RTT, in base RTTs", source=BFC_A + ".1", gt=1)
    nic_pauses: bool = field(True, "NICs take pauses; false: BFC - NIC (the first switch counts nothing against "
                                   "a NIC, and each flow caps its packets in flight at one end-to-end BDP; Fig. 25)",
                             source=BFC_A + ".8")
    sample: float = field(1.0, "the fraction of packets a switch recirculates; only those count in the flow table "
                               "and against the upstream (BFC + sampling: 0.5; Fig. 25)", source=BFC_A + ".8",
                          gt=0, le=1)
    incast_label: bool = field(False, "BFC + IncastLabel: the flows of workload.incasts share one flow-table entry "
                                      "(one queue) at every port (Fig. 24)", source=BFC_A + ".7")

    pfc: ClassVar[bool] = False
    not_per_link: ClassVar[Optional[str]] = (
        "its per-hop pauses carry congestion from each link to the one before it")
    no_faults: ClassVar[Optional[str]] = (
        "its per-hop pauses do not survive a failure: a pause or resume lost on a failed link, and the counters "
        "a switch keeps of the queues it paused upstream, are not reconciled when the link fails or comes back")
    acks_high_priority: ClassVar[bool] = True
    #: its ports serve their classes in strict priority (App. A.3)
    strict_classes_only: ClassVar[bool] = True

    def labels_incasts(self) -> bool:
        return self.incast_label

    def state_bytes(self, spec: "Spec") -> float:
        """A flow table at every port, both ends of every link (fuzz case
        7293: 2^20 entries a queue on 18 switch ports took 9.6 GB)."""
        return 2.0 * spec.topology.links() * self.queues * self.table_per_queue * TABLE_ENTRY_BYTES

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        hrtt = self.hrtt_us if self.hrtt_us is not None else 2 * spec.topology.max_link_delay_us()
        cc = {"kind": "delay", "target_factor": self.rtt_target} if self.cc == "delay" else {"kind": "none"}
        # BFC - NIC: each flow's packets in flight capped at the BDP
        transport, port = self.rdma_engine(spec, cc, window_bdp=not self.nic_pauses)
        port["switch"] = {"discipline": {
            "kind": "bfc",
            "queues": self.queues,
            "table_size": self.queues * self.table_per_queue,
            "assign": self.assign,
            "quantum_bytes": self.quantum_bytes,
            "sticky_ps": ps(self.sticky_hrtt * hrtt),
            "srf": self.scheduling == "srf",
        }}
        transport["srf"] = self.scheduling == "srf"
        return transport, port

    def extra_config(self, spec: "Spec") -> dict:
        # the labelled flows are filled in with the incasts (`engine_config`)
        return {"bfc": {
            "hrtt_ps": None if self.hrtt_us is None else ps(self.hrtt_us),
            "pause_threshold_bytes": None if self.pause_threshold_kb is None else round(self.pause_threshold_kb * 1000),
            "nic_pauses": self.nic_pauses,
            "sample": self.sample,
            "labelled_flows": [],
        }}
