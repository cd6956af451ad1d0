"""`hpcc`: HPCC (Li et al., SIGCOMM 2019) as the HPCC simulator runs it
(`--cc hp`), set up as BFC ran it: the paper's eta and maxStage (§6.2.1)
and telemetry header (§6.3), the rest from a BFC co-author's configuration
of that simulator where it sets them."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ...errors import SpecError
from ..base import field, ps
from .rdma import BFC_CONFIG, HPCC_SIM, RdmaFamily

if TYPE_CHECKING:
    from ..experiment import Spec

BFC = "BFC NSDI'22 §6.2.1 (and the HPCC paper)"
BFC_INT = "BFC NSDI'22 §6.3: \"the INT header (80 B per-packet)\""


class HpccScheme(RdmaFamily):
    """HPCC: every switch port stamps in-band telemetry on each data packet
    as it leaves (time, bytes sent, bytes queued, link rate); the receiver's
    ACK carries it back. On each ACK the sender estimates every hop's
    normalized in-flight bytes, U = tx rate / link rate + queue / (link rate
    x T), folds the largest into an average over T, and sets its rate to the
    reference rate / (U / eta) + R_AI (multiplicative, when U >= eta or
    after maxStage additive steps) or the reference rate + R_AI; the
    reference rate and stage move once per RTT, the rate on every ACK (fast
    reaction). Window = W x rate / line rate, W = T x line rate, T the
    network's longest base RTT. ACKs ride with the data."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["hpcc"] = field("hpcc", "the scheme")
    eta: float = field(0.95, "target utilization", source=BFC, gt=0, le=1)
    max_stage: int = field(5, "additive increase steps before a multiplicative one (maxStage; the simulator's "
                              "default is 0)", source=BFC, ge=0)
    rai_mbps: float = field(50.0, "additive increase per step, Mb/s (W_AI = R_AI x T; the simulator's own run.py: "
                                  "10 x 100/25 = 40)", source=BFC_CONFIG, gt=0)
    min_rate_mbps: float = field(100.0, "the rate never falls below this, Mb/s (the simulator's own run.py: 1000)",
                                 source=BFC_CONFIG, gt=0)
    base_rtt_us: Optional[float] = field(None, "T; none: the network's longest base RTT (two ways' propagation "
                                               "and one payload per hop; 8.32 us on BFC's Clos)",
                                         source=HPCC_SIM, gt=0)
    int_header_bytes: int = field(80, "bytes of the telemetry header on every data packet and ACK, on the wire but "
                                      "not in a flow's ideal FCT (the simulator's own: 5 hops x 8 B + 2 B = 42)",
                                  source=BFC_INT, ge=0, le=1000)
    queues: int = field(1, "FIFO queues per switch egress port, served by deficit round robin with flows "
                           "assigned by `assign` (BFC §6.4: HPCC + SFQ, HPCC + DQA with 32); 1: one FIFO",
                        source="BFC NSDI'22 §6.4", ge=1, le=4096)
    assign: Literal["stochastic", "dynamic"] = field(
        "stochastic", "with queues > 1: stochastic (a hash of the flow, SFQ) or dynamic (BFC's dynamic queue "
                      "assignment, DQA)", source="BFC NSDI'22 §6.4")
    int_multi: int = field(4, "telemetry counters in units of 128 x int_multi bytes sent and 80 x int_multi bytes "
                              "queued (the simulator's INT_MULTI, 100/25 at 100 Gb/s); 0: exact", source=HPCC_SIM,
                           ge=0)

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        cc = {
            "kind": "hpcc",
            "eta": self.eta,
            "max_stage": self.max_stage,
            "rai_bps": round(self.rai_mbps * 1e6),
            "min_rate_bps": round(self.min_rate_mbps * 1e6),
            "base_rtt_ps": None if self.base_rtt_us is None else ps(self.base_rtt_us),
            "window_bytes": None,
            "int_bytes_unit": 128 * self.int_multi or 1,
            "int_qlen_unit": 80 * self.int_multi or 1,
            "int_header_bytes": self.int_header_bytes,
        }
        transport, port = self.rdma_engine(spec, cc, var_win=True)
        if self.queues > 1:
            if spec.buffer.resolved_pfc(self):
                raise SpecError("scheme.queues > 1 (HPCC + SFQ or DQA) runs without PFC, as BFC §6.4 ran it: set "
                                "buffer.pfc = false")
            # BFC's queues without its backpressure: every switch port
            # (ACKs in their control queue)
            port["switch"] = {"discipline": {
                "kind": "bfc", "queues": self.queues, "table_size": 100 * self.queues, "assign": self.assign,
                "quantum_bytes": self.mss_bytes + self.header_bytes + self.int_header_bytes,
                "sticky_ps": ps(4 * spec.topology.max_link_delay_us())}}
        return transport, port
