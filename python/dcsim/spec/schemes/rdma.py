"""What the RDMA schemes (`dcqcn`, `hpcc`, `dctcp_rdma`, `bfc`)
share: RoCE queue pairs as the HPCC simulator models them (the engine's
`schemes/rdma/`): 1000-byte payloads, a rate-paced sender the NIC
pulls from, an ACK for every packet, go-back-N, over shared-buffer
switches with PFC."""

from typing import TYPE_CHECKING, ClassVar, Optional

from ...errors import SpecError
from ..base import field, ps
from .scheme import SchemeModel

if TYPE_CHECKING:
    from ..experiment import Spec

HPCC_SIM = "HPCC simulator (run.py, rdma-hw.cc), which BFC §6.2 ran DCQCN, DCTCP and HPCC on"
#: docs/sources.md §3b: preeyshah/High-Precision-Congestion-Control, mix/config.txt,
#: a BFC co-author's fork of the HPCC simulator: one file of settings for
#: every congestion control (CC_MODE picks one).
BFC_CONFIG = "a BFC co-author's HPCC simulator configuration (mix/config.txt)"


class RdmaFamily(SchemeModel):
    """RoCE queue pairs: packets of `mss_bytes` payload and `header_bytes`
    of headers, paced at the flow's rate (the NIC's line rate until
    congestion control lowers it), an ACK of `ack_bytes` per packet, and
    go-back-N: a gap draws a NACK (at most one per `nack_interval_us` for
    the same packet) and the sender resends from the packet the receiver
    expects."""

    mss_bytes: int = field(1000, "payload bytes per full packet (the MTU of BFC §6.2.1, 1 KB)", source=HPCC_SIM,
                           gt=0, le=9000)
    header_bytes: int = field(48, "header bytes per data packet (Ethernet, IP, UDP and the queue pair's: the "
                                  "simulator's 14 + 20 + 8 + 6)", source=HPCC_SIM, ge=0, le=1000)
    ack_bytes: int = field(60, "bytes of an ACK or NACK on the wire", source=HPCC_SIM, gt=0, le=1500)
    nack_interval_us: float = field(500.0, "at most one NACK per this interval for the same expected packet",
                                    source=HPCC_SIM, ge=0)
    rto_us: Optional[float] = field(
        None, "a safety timeout: go back to the first unacknowledged packet after this long without progress; "
              "none, as in the simulator (which relies on PFC: a lost last packet would stall its flow)", gt=0)
    global_rtt: bool = field(
        True, "HPCC's T and W (and its window) from the network's longest base RTT (the simulator's GLOBAL_T 1); "
              "false: from each flow's own path (GLOBAL_T 0, as the BFC co-author's cross-datacenter configuration); "
              "hpcc only",
        source=HPCC_SIM + "; BFC App. A.9")
    perfect_retransmit: bool = field(
        False, "idealized retransmission: a data packet dropped in the network is known to its sender at once and "
               "sent again alone, and receivers keep packets out of order (BFC §6.4's HPCC-PFC; lost ACKs still need "
               "rto_us); off: go-back-N",
        source="BFC NSDI'22 §6.4")

    buffer_model: ClassVar[str] = "shared"
    #: ACKs in the switches' control queue (the simulator's ACK_HIGH_PRIO).
    acks_high_priority: ClassVar[bool] = False

    def caveats(self, spec) -> list[str]:
        t = spec.topology
        one_path = t.kind == "star" or getattr(t, "spines", 2) == 1
        if self.perfect_retransmit or one_path or spec.routing.load_balancing == "ecmp":
            return []
        return [f"scheme {self.name} recovers from reordering as from loss (go-back-N: a NACK and a resend from "
                f"the gap), and routing.load_balancing = {spec.routing.load_balancing!r} sends a flow's packets "
                "over its equal-cost paths in turn, so its flows resend often and its large flows slow down "
                "several times over; BFC's evaluation (§6.2.1) hashes flows: set routing.load_balancing = \"ecmp\""]

    def rdma_min_rate_bps(self) -> float:
        return getattr(self, "min_rate_mbps", 0.0) * 1e6

    def rdma_engine(self, spec: "Spec", cc: dict, red: Optional[dict] = None,
                    window_bytes: Optional[int] = None, var_win: bool = False,
                    window_bdp: bool = False) -> tuple[dict, dict]:
        """The engine's transport and ports: `window_bytes` caps what a flow
        has in flight (`window_bdp`: the BDP of the network's longest base
        RTT, filled in by the engine), `var_win` scales it by rate over line
        rate (the HPCC simulator's HAS_WIN and VAR_WIN)."""
        if spec.buffer.resolved_model(self) != "shared":
            raise SpecError(f"scheme {self.name} runs on shared-buffer switches: leave buffer.model = \"auto\" "
                            "or set it to \"shared\"")
        if self.rto_us is None and not spec.buffer.resolved_pfc(self):
            raise SpecError(f"scheme {self.name} without PFC loses packets, and with rto_us = none a lost last "
                            "packet stalls its flow: set scheme.rto_us")
        if self.rdma_min_rate_bps() > spec.topology.host_rate_bps():
            raise SpecError(f"scheme.min_rate_mbps ({self.rdma_min_rate_bps() / 1e6:g}) is above the hosts' line "
                            f"rate ({spec.topology.host_rate_bps() / 1e6:g} Mb/s)")
        if not self.global_rtt and cc.get("kind") != "hpcc":
            raise SpecError(f"scheme.global_rtt = false sets HPCC's T and W per pair of hosts; scheme {self.name} "
                            "does not use them: leave it true")
        from ..faults import lossy

        transport = {
            "kind": "rdma",
            "answer_duplicates": lossy(spec),
            "mss_bytes": self.mss_bytes,
            "header_bytes": self.header_bytes,
            "ack_bytes": self.ack_bytes,
            "line_rate_bps": spec.topology.host_rate_bps(),
            "window_bytes": window_bytes,
            "var_win": var_win,
            "window_bdp": window_bdp,
            "perfect_retransmit": self.perfect_retransmit,
            "pair_rtt": not self.global_rtt,
            "nack_interval_ps": ps(self.nack_interval_us),
            "rto_ps": None if self.rto_us is None else ps(self.rto_us),
            "cc": cc,
        }
        pfc = {"kind": "pfc", "acks_high_priority": self.acks_high_priority}
        port = {"host": {"discipline": pfc}, "switch": {"discipline": dict(pfc, red=red)}}
        return transport, port
