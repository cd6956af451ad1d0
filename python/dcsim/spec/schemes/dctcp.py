"""`dctcp`: DCTCP (Alizadeh et al., SIGCOMM 2010) as the pFabric paper ran
it (Table 1)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ..base import field
from .tcp import SCRIPTS, TABLE1, RtoTimers, TcpFamily

if TYPE_CHECKING:
    from ..experiment import Spec


class DctcpScheme(RtoTimers, TcpFamily):
    """DCTCP: switches mark CE on packets arriving to a queue of at least K
    bytes (instantaneous, per port); the sender keeps alpha, the moving
    average (gain g) of the fraction of its marked bytes per window, and
    cuts its window by alpha/2 once per window of marks. pFabric Table 1:
    225 KB buffers, K = 22.5 KB, initial window 12, minRTO 200 us (its
    ns-2 scripts: 150 x 1460 B and 15 x 1460 B)."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "pFabric"
    name: Literal["dctcp"] = field("dctcp", "the scheme")
    queue_bytes: int = field(219_000, "drop-tail limit of every switch port, bytes (150 x 1460; the paper's "
                                      "Table 1 says 225 KB)", source=SCRIPTS, gt=0)
    ecn_threshold_bytes: int = field(21_900, "marking threshold K, bytes queued ahead of the arriving packet "
                                             "(15 x 1460; the paper's 22.5 KB)", source=TABLE1, ge=0)
    g: float = field(1 / 16, "gain of the moving average alpha", source="DCTCP §3.1; pFabric ns-2 scripts", gt=0,
                     le=1)

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        routing = spec.routing
        transport = self.tcp_engine(routing, ecn=True, cc={"kind": "dctcp", "g": self.g}, **self.timer_args())
        # the ns-2 scripts put the same marking queue on every link, host
        # NICs included
        port = {"host": self.fifo(self.resolved_host_queue(), self.ecn_threshold_bytes),
                "switch": self.fifo(self.queue_bytes, self.ecn_threshold_bytes)}
        return transport, port
