"""`homa`: Homa (Montazeri et al., SIGCOMM 2018) as its OMNeT++ simulator
runs it, the code BFC NSDI'22 App. A.2 compared against
(PlatformLab/HomaSimulation, `HomaTransport.cc`)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ...errors import SpecError
from ..base import field
from .scheme import SchemeModel

if TYPE_CHECKING:
    from ..experiment import Spec

BFC_A2 = "BFC NSDI'22 App. A.2"
HOMA_SIM = "Homa's OMNeT++ simulator (HomaTransport.cc, homaTransportConfig.ini)"


class HomaScheme(SchemeModel):
    """Homa: a message's first RTT bytes go at once (unscheduled), at a
    priority level chosen by the bytes of the message left at each packet
    against cutoffs that split the workload's unscheduled bytes evenly over
    the unscheduled levels; its receiver grants the rest, keeping RTT bytes
    in flight, to the `overcommit` messages with the fewest bytes left to
    grant (one per sender), each at a scheduled level by its rank (the
    shortest highest), the last RTT bytes at the better of that and their
    unscheduled level; grants go at the top level. The levels are split
    between unscheduled and scheduled by the workload's share of
    unscheduled bytes (BFC App. A.2). Senders send the message with the
    fewest bytes left first, one packet whenever the NIC is free. Switches
    are strict-priority ports with unbounded buffers, as the simulator's:
    nothing is lost, and there is no retransmission. Homa assumes packet
    spraying (`routing.load_balancing = "spray"`); with ECMP it is BFC's
    "Homa ECMP"."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["homa"] = field("homa", "the scheme")
    levels: int = field(32, "priority levels (strict-priority queues at every switch port), unscheduled and "
                            "scheduled together", source=BFC_A2, ge=2, le=255)
    unscheduled_levels: Optional[int] = field(
        None, "levels for unscheduled packets (the rest are scheduled); none: in proportion to the workload's "
              "unscheduled bytes (at least one of each)", source=BFC_A2, ge=1)
    overcommit: Optional[int] = field(None, "messages a receiver grants to at once; none: the number of scheduled "
                                            "levels", source=BFC_A2, ge=1)
    rtt_bytes: Optional[int] = field(
        None, "a message's unscheduled bytes and what its receiver keeps in flight; none: the bandwidth-delay product "
              "of the network's longest base RTT at the hosts' rate", source=HOMA_SIM + " (rttBytes)", ge=1)
    size_cdf: Optional[str] = field(
        None, "the message sizes the unscheduled cutoffs are computed for (a shipped workload name or a CDF file); "
              "none: workload.cdf (needed when the workload draws no sizes: a trace, an incast or bulk flows)", source=HOMA_SIM + " (the workload's distribution)")
    mss_bytes: int = field(1000, "payload bytes per full packet (BFC's set-up, §6.2.1: 1 KB packets)", gt=0, le=9000)
    header_bytes: int = field(48, "header bytes per data packet (as BFC's RDMA schemes)", ge=0, le=1000)
    grant_bytes: int = field(60, "bytes of a grant on the wire (as BFC's set-up's ACKs)", gt=0, le=1500)

    file_fields: ClassVar[tuple[str, ...]] = ("size_cdf",)
    not_per_link: ClassVar[Optional[str]] = (
        "its receivers grant messages by what reaches them over the whole path, not over one link")
    no_faults: ClassVar[Optional[str]] = (
        "Homa's loss recovery (a receiver asks for what it misses with a RESEND after a timeout) is not modelled: a packet lost on "
        "a failed link stalls its message")

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        from ...workloads import load_cdf

        if spec.buffer.resolved_model(self) != "per_port":
            raise SpecError("scheme homa runs on unbounded per-port buffers (its simulator's model, BFC App. A.2): "
                            "leave buffer.model = \"auto\" or set it to \"per_port\"")
        drawn = spec.workload.matrix not in ("trace", "incast", "bulk")
        name = self.size_cdf or (spec.workload.cdf if drawn else None)
        if name is None:
            raise SpecError(f"scheme homa sets its unscheduled priorities from a message size distribution, and "
                            f"workload.matrix = '{spec.workload.matrix}' draws no sizes: give scheme.size_cdf")
        cdf = load_cdf(name, unit=spec.workload.cdf_unit_bytes,
                       field="scheme.size_cdf" if self.size_cdf else "workload.cdf")
        transport = {
            "kind": "homa",
            "mss_bytes": self.mss_bytes,
            "header_bytes": self.header_bytes,
            "grant_bytes": self.grant_bytes,
            "levels": self.levels,
            "unscheduled_levels": self.unscheduled_levels or 0,
            "overcommit": self.overcommit or 0,
            "rtt_bytes": self.rtt_bytes,
            "size_cdf": cdf.rows(),
            "size_quantum_bytes": spec.workload.size_quantum_bytes,
        }
        if self.unscheduled_levels is not None and self.unscheduled_levels >= self.levels:
            raise SpecError(f"scheme.unscheduled_levels ({self.unscheduled_levels}) must leave a scheduled level of "
                            f"the {self.levels}")
        if self.overcommit is not None and self.unscheduled_levels is not None \
                and self.overcommit > self.levels - self.unscheduled_levels:
            raise SpecError(f"scheme.overcommit ({self.overcommit}) exceeds the "
                            f"{self.levels - self.unscheduled_levels} scheduled levels")
        # the NIC: grants first; data is pulled one packet at a time
        host = {"discipline": {"kind": "pfc", "acks_high_priority": True}, "limit_bytes": None}
        switch = {"discipline": {"kind": "prio", "queues": self.levels, "reserved_bytes": 0, "ecn_per_port": False,
                                 "dt_alpha": None},
                  "limit_bytes": None, "ecn_threshold_bytes": None}
        return transport, {"host": host, "switch": switch}
