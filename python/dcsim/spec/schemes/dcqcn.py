"""`dcqcn`: DCQCN (Zhu et al., SIGCOMM 2015), Mellanox's version as the
HPCC simulator runs it (`--cc dcqcn`), with the BFC paper's marking
thresholds (§6.2.1)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ..base import field, ps
from .rdma import HPCC_SIM, RdmaFamily

if TYPE_CHECKING:
    from ..experiment import Spec

BFC = "BFC NSDI'22 §6.2.1"


class DcqcnMarking(RdmaFamily):
    """What the DCQCN schemes share: RED-like ECN marking at the switches'
    egress queues with the BFC paper's thresholds, and ACKs (and CNPs) at
    high priority."""

    kmin_kb: float = field(100.0, "marking starts above this egress queue, KB", source=BFC, ge=0)
    kmax_kb: float = field(400.0, "every packet is marked above this egress queue, KB", source=BFC, gt=0)

    acks_high_priority: ClassVar[bool] = True

    def dcqcn_engine(self, spec: "Spec", kind: str, window: str = "none", **own) -> tuple[dict, dict]:
        """The engine's configuration: the fields both DCQCNs have (each
        subclass declares them with its own defaults and sources), the
        scheme's `own`, the window (`DcqcnScheme.window`) and the switches'
        marking."""
        from ...errors import SpecError

        if self.kmin_kb >= self.kmax_kb:
            raise SpecError(f"scheme.kmin_kb ({self.kmin_kb}) must be below scheme.kmax_kb ({self.kmax_kb})")
        cc = {
            "kind": kind,
            "alpha_interval_ps": ps(self.alpha_interval_us),
            "increase_interval_ps": ps(self.increase_interval_us),
            "g": self.g,
            "fast_recovery_times": self.fast_recovery_steps,
            "ai_bps": round(self.ai_mbps * 1e6),
            "hai_bps": round(self.hai_mbps * 1e6),
            "min_rate_bps": round(self.min_rate_mbps * 1e6),
            "clamp_target_rate": self.clamp_target_rate,
            **own,
        }
        red = {"kmin_bytes": round(self.kmin_kb * 1000), "kmax_bytes": round(self.kmax_kb * 1000), "pmax": self.pmax}
        return self.rdma_engine(spec, cc, red=red, window_bdp=window != "none", var_win=window == "rate")


class DcqcnScheme(DcqcnMarking):
    """DCQCN: switches mark ECN at dequeue, RED-like on the egress queue
    (always above Kmax, with probability up to Pmax between Kmin and Kmax);
    the receiver echoes every mark on its ACK (a CNP); the sender keeps
    alpha (an average of notifications, updated every alpha interval) and,
    at each decrease check with a notification since the last, cuts its
    rate by alpha/2 and starts its increase timer; each increase step first
    halves the distance to the target rate (fast recovery), then raises the
    target by AI, then by HAI (hyper increase). No window by default
    (`window`). ACKs ride at high priority (the simulator's ACK_HIGH_PRIO
    for DCQCN). The defaults are the simulator's own (`--cc dcqcn`); BFC's
    Table 1 runs a BFC co-author's configuration of it (`BFC_CONFIG_DCQCN`
    in figures/bfc/table1.py, docs/schemes.md)."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["dcqcn"] = field("dcqcn", "the scheme")
    pmax: float = field(0.2, "marking probability at Kmax", source=HPCC_SIM, gt=0, le=1)
    g: float = field(1 / 256, "gain of alpha's average", source=HPCC_SIM, gt=0, le=1)
    alpha_interval_us: float = field(1.0, "alpha update period", source=HPCC_SIM, gt=0)
    decrease_interval_us: float = field(4.0, "rate decrease check period", source=HPCC_SIM, gt=0)
    increase_interval_us: float = field(300.0, "rate increase period (the RP timer; a BFC co-author's configuration: "
                                               "900)", source=HPCC_SIM, gt=0)
    fast_recovery_steps: int = field(1, "increase steps of fast recovery before additive increase (F)",
                                     source=HPCC_SIM, ge=0)
    ai_mbps: float = field(20.0, "additive increase of the target rate per step, Mb/s (5 x 100/25; a BFC "
                                 "co-author's configuration: 50)", source=HPCC_SIM, ge=0)
    hai_mbps: float = field(200.0, "hyper increase of the target rate per step, Mb/s (a BFC co-author's "
                                   "configuration: 100)", source=HPCC_SIM, ge=0)
    min_rate_mbps: float = field(1000.0, "the rate never falls below this, Mb/s (a BFC co-author's configuration: "
                                         "100)", source=HPCC_SIM, gt=0)
    rate_on_first_cnp: float = field(1.0, "rate multiplier on a flow's first notification", source=HPCC_SIM, gt=0,
                                     le=1)
    clamp_target_rate: bool = field(False, "a decrease sets the target to the current rate even in stage 0",
                                    source=HPCC_SIM)
    window: Literal["none", "fixed", "rate"] = field(
        "none", "bytes in flight at most: none (the simulator's own run.py for dcqcn); fixed: the BDP of the "
                "network's longest base RTT at the line rate (HAS_WIN); rate: that BDP x the flow's rate / the line "
                "rate (HAS_WIN and VAR_WIN, its dcqcn_vwin; a BFC co-author's configuration)", source=HPCC_SIM)

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        return self.dcqcn_engine(spec, "dcqcn", self.window, decrease_interval_ps=ps(self.decrease_interval_us),
                                 rate_on_first_cnp=self.rate_on_first_cnp)
