"""`ideal_fq_packet`: the BFC paper's Ideal-FQ at packet level."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ..base import field
from .rdma import RdmaFamily

if TYPE_CHECKING:
    from ..experiment import Spec

BFC62 = "BFC NSDI'22 §6.2.1"


class IdealFqPacketScheme(RdmaFamily):
    """Ideal fair queueing, packet by packet, as the BFC paper simulates its
    Ideal-FQ (§6.2.1: "ideal fair queuing with infinite buffering at each
    switch. The NICs cap the in-flight packets of a flow to 1 BDP"): every
    switch port keeps a FIFO per flow with packets there, as many as there
    are flows, served by deficit round robin (ACKs first); switch buffers
    are unbounded (buffer.size_mb stays at its default, buffer.pfc unset)
    and nothing is paused or dropped; hosts are BFC's (RDMA queue pairs at
    line rate, no end-to-end control, the NIC round robin among its flows),
    each flow capped at one BDP of the network's longest base RTT in
    flight. Its buffer occupancy is
    what fair queueing would need (the paper: "can grow to an unfeasible
    level"). `ideal_fq` is the same ideal at flow level, with no packets."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["ideal_fq_packet"] = field("ideal_fq_packet", "the scheme")
    quantum_bytes: int = field(1048, "deficit round robin quantum (one full packet: fair queueing by packets)",
                               ge=1)
    rto_us: Optional[float] = field(1000.0, "a safety timeout (nothing is lost; as BFC's)", gt=0)

    pfc: ClassVar[bool] = False
    acks_high_priority: ClassVar[bool] = True
    #: Switch buffers without a limit (`buffer.engine`).
    unbounded_buffer: ClassVar[bool] = True

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        transport, port = self.rdma_engine(spec, {"kind": "none"}, window_bdp=True)
        port["switch"] = {"discipline": {"kind": "fq", "quantum_bytes": self.quantum_bytes}}
        return transport, port


class IdealSrfPacketScheme(IdealFqPacketScheme):
    """BFC App. A.2's IdealSRF: "an idealized SRF scheme with unlimited
    queues and unbounded buffers at each switch", packet by packet. As
    `ideal_fq_packet` (a queue per flow at every switch port, unbounded
    buffers, nothing paused or dropped, RDMA hosts at line rate with each
    flow's packets in flight capped at a BDP), but every data packet
    carries what is left of its flow, switch ports serve the flow whose
    head packet has the least left (ACKs first), and NICs the flow with the
    least left to send. With ECMP (the figure's IdealSRF+ECMP) flows
    contend in the core as BFC-SRF's do."""

    name: Literal["ideal_srf_packet"] = field("ideal_srf_packet", "the scheme")

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        transport, port = super().engine(spec)
        port["switch"]["discipline"]["srf"] = True
        transport["srf"] = True
        return transport, port
