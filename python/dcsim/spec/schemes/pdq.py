"""`pdq`: PDQ, Preemptive Distributed Quick flow scheduling (Hong, Caesar,
Godfrey, SIGCOMM 2012), as the pFabric paper ran it (§5.1, Table 1)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ...errors import SpecError
from ..base import field
from .scheme import SchemeModel

if TYPE_CHECKING:
    from ..experiment import Spec

TABLE1 = "pFabric §5.1, Table 1"
PDQ = "PDQ (SIGCOMM'12)"
OURS = "dcsim's choice (docs/schemes.md, pdq)"


def _ps(us: float) -> int:
    return round(us * 1e6)


class PdqScheme(SchemeModel):
    """PDQ: every link (switch ports and host NICs) keeps a list of the most
    critical flows crossing it (earliest deadline first, then shortest
    expected transmission time), accepts them while its capacity lasts and
    pauses the rest; the rate and pauser agreed along the path ride in a
    scheduling header on every packet and come back in its ACK. Flows open
    with a SYN (one RTT before any data), end with a FIN (on the last data
    packet) and probe while paused. Early Start (K RTTs), Early Termination
    (flows with deadlines that cannot make them), Dampening and Suppressed
    Probing as in the PDQ paper (§3.3); a rate controller keeps the capacity
    handed out below the line rate while a queue drains. Drop-tail FIFOs of
    225 KB, a fixed 200 us timeout (Table 1). Runs on symmetric ECMP: a
    flow's ACKs must cross its data's links."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "pFabric"
    name: Literal["pdq"] = field("pdq", "the scheme")
    queue_bytes: int = field(225_000, "drop-tail buffer of every switch port and NIC, bytes", source=TABLE1, gt=0)
    rto_us: float = field(200, "the fixed retransmission timeout, us", source=TABLE1, gt=0)
    probe_interval_us: float = field(15, "a paused flow probes at least this far apart, us (the PDQ paper's I_H RTTs "
                                         "when Suppressed Probing asks for more)", source=TABLE1, gt=0)
    early_start_k: float = field(2, "Early Start: flows that will finish within K RTTs leave their bandwidth to the "
                                    "next (0: off)", source=TABLE1 + " (K = 2)", ge=0)
    early_termination: bool = field(True, "a flow whose deadline cannot be met any more is terminated (TERM)",
                                    source="pFabric §5.1; " + PDQ + " §3.3.2")
    dampening_us: float = field(15, "Dampening: after accepting a paused flow, a link accepts no other paused flow "
                                    "for this long, us (0: off; the paper gives no value: about one RTT of the "
                                    "baseline fabric)", source=OURS, ge=0)
    suppressed_probing: bool = field(True, "a paused flow probes every I_H RTTs, I_H the largest 0.2 x its place in "
                                           "a list along its path", source=PDQ + " §3.3.2")
    max_flows: int = field(64, "the most flows a link's list holds (the paper's 2 kappa, kappa the flows sending "
                               "there, capped here)", source=OURS, ge=1)
    rate_update_rtts: float = field(2, "the rate controller updates its capacity every this many RTTs",
                                    source=PDQ + " §3.3.3", gt=0)
    mss_bytes: int = field(1460, "payload bytes per full packet (as the pFabric paper's other schemes)", source=TABLE1,
                           gt=0, le=9000)
    header_bytes: int = field(40, "header bytes per data packet; SYNs, probes and TERMs are a header alone",
                              source=TABLE1, ge=1, le=1000)
    ack_bytes: int = field(40, "bytes of an ACK on the wire", gt=0, le=1500)

    #: Its ACKs commit, at each link, what its data's path decided.
    symmetric_routing: ClassVar[bool] = True
    not_per_link: ClassVar[Optional[str]] = (
        "its switches arbitrate each flow along its whole path (a flow paused at one link sends nowhere)")
    no_faults: ClassVar[Optional[str]] = (
        "its switches keep per-flow state along each flow's path, and a flow that rerouting moves can be left "
        "paused for good (a flow that never finishes, in dcsim's tests); how PDQ handles a path that changes "
        "is not modelled")

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        if spec.buffer.resolved_model(self) != "per_port":
            raise SpecError("scheme pdq runs on per-port drop-tail buffers (pFabric Table 1): leave buffer.model = "
                            "\"auto\" or set it to \"per_port\"")
        if spec.topology.kind != "star" and (spec.routing.load_balancing != "ecmp"
                                             or not spec.routing.resolved_symmetric(self)):
            raise SpecError("scheme pdq schedules flows at every link their data and ACKs cross, so a flow keeps one "
                            "path both ways: set routing.load_balancing = \"ecmp\" (with routing.symmetric \"auto\" "
                            f"or true); got {spec.routing.load_balancing!r}")
        transport = {
            "kind": "pdq",
            "mss_bytes": self.mss_bytes,
            "header_bytes": self.header_bytes,
            "ack_bytes": self.ack_bytes,
            "line_rate_bps": spec.topology.host_rate_bps(),
            "rto_ps": _ps(self.rto_us),
            "probe_interval_ps": _ps(self.probe_interval_us),
            "early_start_k": self.early_start_k,
            "early_termination": self.early_termination,
            "dampening_ps": _ps(self.dampening_us),
            "suppressed_probing": self.suppressed_probing,
            "max_flows": self.max_flows,
            "rate_update_rtts": self.rate_update_rtts,
        }
        fifo = {"discipline": {"kind": "fifo"}, "limit_bytes": self.queue_bytes, "ecn_threshold_bytes": None}
        # the NIC pulls its flows' packets when its line is free (paced at
        # their rates); what waits there are ACKs, sent first
        nic = {"discipline": {"kind": "pfc", "acks_high_priority": True}, "limit_bytes": self.queue_bytes}
        return transport, {"host": nic, "switch": fifo}
