"""`dcqcn_ns3rdma`: DCQCN as ns3-rdma has it, the simulator of the DCQCN
authors that the BFC paper names for its DCQCN runs (§6.2.1, ref. [5]),
with its shipped configuration (`mix/config.txt`) and the BFC paper's
marking thresholds."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ..base import field, ps
from .dcqcn import DcqcnMarking

if TYPE_CHECKING:
    from ..experiment import Spec

NS3_RDMA = "ns3-rdma (bobzhuyb/ns3-rdma, mix/config.txt), BFC §6.2.1's ref. [5] for DCQCN"
NS3_RDMA_MIN_RATE = "ns3-rdma qbb-net-device.cc (the MinRate attribute's default: the shipped set-up never sets it)"
NS3_RDMA_ALPHA = "ns3-rdma qbb-net-device.cc (set in the device's constructor)"


class DcqcnNs3rdmaScheme(DcqcnMarking):
    """DCQCN as ns3-rdma runs it: switches mark as for `dcqcn`; the
    receiver sends at most one CNP per flow every `cnp_interval_us` (a tick
    at the flow's first packet and every interval after, with a CNP if a
    marked packet came since the last); the sender cuts at once on each CNP
    (alpha first: alpha <- (1 - g) alpha + g, then rate x (1 - alpha/2)),
    sets the target to the current rate, and climbs back by a timer and a
    byte counter: fast recovery (half the distance to the target per step)
    until either count reaches F, then the target rises by AI per step, and
    by HAI (times the steps past F) once both have, on a halved timer.
    Alpha decays every `alpha_interval_us`. No window."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["dcqcn_ns3rdma"] = field("dcqcn_ns3rdma", "the scheme")
    pmax: float = field(1.0, "marking probability at Kmax (the shipped PMAX; BFC gives Kmin and Kmax only)",
                        source=NS3_RDMA, gt=0, le=1)
    cnp_interval_us: float = field(50.0, "the receiver sends at most one CNP per flow per this interval",
                                   source=NS3_RDMA, gt=0)
    alpha_interval_us: float = field(55.0, "alpha decays by (1 - g) every this long (ALPHA_RESUME_INTERVAL)",
                                     source=NS3_RDMA, gt=0)
    increase_interval_us: float = field(60.0, "rate increase timer (RP_TIMER; half of it in hyper increase)",
                                        source=NS3_RDMA, gt=0)
    byte_counter_bytes: int = field(300_000_000, "bytes sent per byte-counter increase step (BYTE_COUNTER: so "
                                                 "large that the timer alone counts in practice)",
                                    source=NS3_RDMA, gt=0)
    g: float = field(1 / 256, "gain of alpha (DCTCP_GAIN)", source=NS3_RDMA, gt=0, le=1)
    initial_alpha: float = field(0.5, "alpha before the first CNP", source=NS3_RDMA_ALPHA, ge=0, le=1)
    fast_recovery_steps: int = field(5, "increase steps of each count before additive increase (FAST_RECOVERY_TIMES)",
                                     source=NS3_RDMA, ge=1)
    ai_mbps: float = field(40.0, "additive increase of the target per step, Mb/s (RATE_AI)", source=NS3_RDMA, ge=0)
    hai_mbps: float = field(200.0, "hyper increase of the target per step past F, Mb/s (RATE_HAI)", source=NS3_RDMA,
                            ge=0)
    min_rate_mbps: float = field(100.0, "the rate never falls below this, Mb/s", source=NS3_RDMA_MIN_RATE, gt=0)
    clamp_target_rate: bool = field(True, "a CNP sets the target to the current rate (CLAMP_TARGET_RATE); off: only "
                                          "after a byte-counter step", source=NS3_RDMA)

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        return self.dcqcn_engine(spec, "dcqcn_ns3", cnp_interval_ps=ps(self.cnp_interval_us),
                                 byte_counter_bytes=self.byte_counter_bytes, initial_alpha=self.initial_alpha)


__all__ = ["DcqcnNs3rdmaScheme"]
