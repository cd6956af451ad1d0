"""`tcp`: TCP NewReno + SACK over drop-tail FIFO switches, pFabric's
TCP-DropTail baseline."""

from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import model_validator

from ..base import Model, field, ps
from ..topology import Routing

TABLE1 = "pFabric §5.1, Table 1"
SCRIPTS = "pFabric ns-2 scripts (PARAMS.md §1)"


class TcpScheme(Model):
    """TCP NewReno + SACK over drop-tail FIFO switches: pFabric's
    TCP-DropTail baseline (§5.1, Table 1: qSize 225 KB, initCwnd 12
    packets, minRTO 200 us). With `ecn` and `ecn_threshold_bytes` it is
    TCP with RFC 3168 ECN."""

    name: Literal["tcp"] = field("tcp", "the scheme")
    queue_bytes: int = field(225_000, "drop-tail limit of every switch port, bytes", source=TABLE1, gt=0)
    host_queue_bytes: Union[int, Literal["same", "unlimited"]] = field(
        "same", "NIC queue limit: bytes, 'same' as the switches, or 'unlimited'", source=SCRIPTS)
    ecn_threshold_bytes: Optional[int] = field(
        None, "switches mark CE on ECT packets arriving to at least this many queued bytes", ge=0)
    init_cwnd_pkts: float = field(12, "initial congestion window, packets", source=TABLE1, ge=1)
    max_cwnd_pkts: Union[float, Literal["auto", "unlimited"]] = field(
        "auto", "window cap, packets; auto: one packet less than the switch buffer, at least 12", source=SCRIPTS)
    min_rto_us: float = field(200, "lower bound of the retransmission timeout, us", source=TABLE1, gt=0)
    init_rto_us: Optional[float] = field(
        None, "retransmission timeout before the first RTT sample, us (default: min_rto_us)", source=SCRIPTS, gt=0)
    max_rto_us: float = field(2_000_000, "upper bound of the retransmission timeout, us", source=SCRIPTS, gt=0)
    mss_bytes: int = field(1460, "payload bytes per full packet", source=SCRIPTS, gt=0, le=9000)
    header_bytes: int = field(40, "header bytes per data packet", source=SCRIPTS, ge=0, le=1000)
    ack_bytes: int = field(40, "bytes of an ACK on the wire", source=SCRIPTS, gt=0, le=1500)
    fast_retransmit: Union[bool, Literal["auto"]] = field(
        "auto", "duplicate-ACK fast retransmit; auto: on with ECMP, off with packet spraying",
        source="pFabric §5.1")
    dupack_threshold: int = field(3, "duplicate ACKs that trigger fast retransmit", ge=1)
    ecn: bool = field(False, "RFC 3168 ECN: send ECT, halve the window on an ECN echo once per window")

    @model_validator(mode="after")
    def _ecn_needs_marking(self):
        if self.ecn and self.ecn_threshold_bytes is None:
            raise ValueError("ecn = true needs ecn_threshold_bytes (switches mark above it)")
        return self

    def resolved_max_cwnd(self) -> Optional[float]:
        if self.max_cwnd_pkts == "unlimited":
            return None
        if self.max_cwnd_pkts == "auto":
            # pFabric's ns-2 scripts: maxcwnd_ = queue - 1 packets if the
            # queue holds more than 12 packets, else 12.
            q = self.queue_bytes // (self.mss_bytes + self.header_bytes)
            return float(q - 1 if q > 12 else 12)
        return float(self.max_cwnd_pkts)

    def resolved_host_queue(self) -> Optional[int]:
        if self.host_queue_bytes == "unlimited":
            return None
        return self.queue_bytes if self.host_queue_bytes == "same" else self.host_queue_bytes

    def engine(self, routing: Routing) -> tuple[dict, dict]:
        fr = self.fast_retransmit
        if fr == "auto":
            fr = routing.load_balancing != "spray"
        transport = {
            "kind": "tcp",
            "mss_bytes": self.mss_bytes,
            "header_bytes": self.header_bytes,
            "ack_bytes": self.ack_bytes,
            "init_cwnd_pkts": float(self.init_cwnd_pkts),
            "max_cwnd_pkts": self.resolved_max_cwnd(),
            "min_rto_ps": ps(self.min_rto_us),
            "init_rto_ps": ps(self.init_rto_us if self.init_rto_us is not None else self.min_rto_us),
            "max_rto_ps": ps(self.max_rto_us),
            "fast_retransmit": bool(fr),
            "dupack_threshold": self.dupack_threshold,
            "ecn": self.ecn,
        }
        fifo = {"kind": "fifo"}
        port = {
            # ECN marking at the switches; a host's NIC queue does not mark
            "host": {"discipline": fifo, "limit_bytes": self.resolved_host_queue()},
            "switch": {"discipline": fifo, "limit_bytes": self.queue_bytes,
                       "ecn_threshold_bytes": self.ecn_threshold_bytes},
        }
        return transport, port
