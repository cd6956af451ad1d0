"""`ideal`: pFabric's Ideal scheduler (§3, Algorithm 1), flow level."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ..base import field
from .scheme import SchemeModel
from .tcp import SCRIPTS

if TYPE_CHECKING:
    from ..experiment import Spec


class FlowLevelScheme(SchemeModel):
    """What the flow-level schemes share: no packets are sent, but their
    sizes on the wire set a flow's service time, as for the packet-level
    schemes on the same flows."""

    mss_bytes: int = field(1460, "payload bytes per full packet (for the bytes on the wire)", source=SCRIPTS, gt=0,
                           le=9000)
    header_bytes: int = field(40, "header bytes per data packet (for the bytes on the wire)", source=SCRIPTS, ge=0,
                              le=1000)
    ack_bytes: int = field(40, "bytes of an ACK (for the idle-network FCT that ends at the sender)", source=SCRIPTS,
                           gt=0, le=1500)

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        # no packets are sent: the transport only gives packet sizes, the
        # ports are never used
        transport = {"kind": "tcp", "mss_bytes": self.mss_bytes, "header_bytes": self.header_bytes,
                     "ack_bytes": self.ack_bytes, "init_cwnd_pkts": 1.0, "min_rto_ps": 1, "init_rto_ps": 1,
                     "max_rto_ps": 1, "fast_retransmit": False, "dupack_threshold": 3}
        fifo = {"discipline": {"kind": "fifo"}}
        return transport, {"host": fifo, "switch": fifo}


class IdealScheme(FlowLevelScheme):
    """The Ideal scheduler of pFabric §3 (Algorithm 1), the reference pFabric
    is measured against: flow level, no packets. At every flow arrival and
    departure, flows in increasing order of remaining size are scheduled at
    their host links' rate if their source's uplink and their destination's
    downlink are both free; the rest wait. The fabric itself is not
    modelled (a big switch). Runs on the same flows as the packet-level
    schemes for the same spec and seed; a flow's FCT is when its service
    ends plus what the idle network adds to serialization (propagation,
    store-and-forward, and the last ACK's way back with run.fct_at =
    "sender"), so a flow alone has slowdown 1."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "pFabric"
    name: Literal["ideal"] = field("ideal", "the scheme")

    engine_model: ClassVar[str] = "ideal"
