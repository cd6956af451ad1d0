"""`dctcp_rdma`: DCTCP at 100 Gb/s as the BFC paper ran it (§6.2.1): the
HPCC simulator's rate-based DCTCP (`--cc dctcp`) on RDMA NICs, over
shared-buffer switches with PFC, marking at the DCQCN thresholds; with an
optional slow start (App. A.6, Fig. 23)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ...errors import SpecError
from ..base import field
from .rdma import HPCC_SIM, RdmaFamily

if TYPE_CHECKING:
    from ..experiment import Spec

BFC = "BFC NSDI'22 §6.2.1 (\"the ECN threshold is same as DCQCN\")"


class DctcpRdmaScheme(RdmaFamily):
    """DCTCP as the HPCC simulator has it: switches mark ECN at dequeue,
    RED-like between Kmin and Kmax as for DCQCN; the receiver echoes each
    mark on its ACK. The sender keeps alpha (starting at 1), updated once
    per window of packets with gain g from the fraction of them marked; a
    mark outside a reduced window cuts the rate by alpha/2 and starts one
    (until what was sent then is acknowledged); a window without a cut adds
    `rai_mbps`. Window = BDP x rate / line rate (the network's longest base
    RTT at the line rate). Flows start at line rate (BFC §6.2.1: "to avoid
    degradation in FCTs from slow-start"); `slow_start_pkts` instead starts
    them at that window and grows it by a packet per ACK until the first
    mark (DCTCP + SS of App. A.6; the simulator has none: our choice, in
    docs/schemes.md). ACKs ride with the data."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["dctcp_rdma"] = field("dctcp_rdma", "the scheme")
    kmin_kb: float = field(100.0, "marking starts above this egress queue, KB (the simulator's step K is 300 KB at "
                                  "100 Gb/s: kmin_kb = kmax_kb = 300, pmax = 1)", source=BFC, ge=0)
    kmax_kb: float = field(400.0, "every packet is marked above this egress queue, KB", source=BFC, gt=0)
    pmax: float = field(0.2, "marking probability at Kmax", source=HPCC_SIM, gt=0, le=1)
    g: float = field(1 / 16, "gain of alpha's average", source=HPCC_SIM, gt=0, le=1)
    rai_mbps: float = field(615.0, "additive increase per window, Mb/s (one 1 KB packet per 13 us RTT)",
                            source=HPCC_SIM, gt=0)
    min_rate_mbps: float = field(1000.0, "the rate never falls below this, Mb/s", source=HPCC_SIM, gt=0)
    slow_start_pkts: Optional[int] = field(None, "start in slow start from this window, packets (BFC Fig. 23's "
                                                 "DCTCP + SS: 10); none: at line rate with a window of the BDP",
                                           source="BFC NSDI'22 App. A.6", gt=0)

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        if self.kmin_kb > self.kmax_kb:
            raise SpecError(f"scheme.kmin_kb ({self.kmin_kb}) must not be above scheme.kmax_kb ({self.kmax_kb})")
        cc = {
            "kind": "dctcp",
            "g": self.g,
            "rai_bps": round(self.rai_mbps * 1e6),
            "min_rate_bps": round(self.min_rate_mbps * 1e6),
            "init_window_pkts": self.slow_start_pkts,
        }
        red = {"kmin_bytes": round(self.kmin_kb * 1000), "kmax_bytes": round(self.kmax_kb * 1000), "pmax": self.pmax}
        return self.rdma_engine(spec, cc, red=red, var_win=True)
