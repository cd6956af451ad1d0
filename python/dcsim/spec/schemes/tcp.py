"""The TCP family: `tcp` (TCP-DropTail), and the fields `dctcp` and
`pfabric` share with it (their hosts run the same TCP machinery with other
window laws and timers)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional, Union

from pydantic import model_validator

from ..base import Model, field, ps
from .scheme import SchemeModel
from ..topology import Routing

if TYPE_CHECKING:
    from ..experiment import Spec

TABLE1 = "pFabric §5.1, Table 1"
SCRIPTS = "pFabric ns-2 scripts (docs/sources.md §1)"
POOL = "pFabric ns-2 scripts: 8 persistent connections per host pair for TCP and DCTCP, 1 for pFabric"


class TcpFamily(SchemeModel):
    """Fields every TCP-family scheme has."""

    init_cwnd_pkts: float = field(12, "initial congestion window of every flow, packets", source=TABLE1, ge=1)
    max_cwnd_pkts: Union[float, Literal["auto", "unlimited"]] = field(
        "auto", "window cap, packets; auto: the switch buffer in 1460-byte packets, less one (at least 12)",
        source=SCRIPTS)
    max_rto_us: float = field(2_000_000, "upper bound of the retransmission timeout, us", source=SCRIPTS, gt=0)
    mss_bytes: int = field(1460, "payload bytes per full packet", source=SCRIPTS, gt=0, le=9000)
    header_bytes: int = field(40, "header bytes per data packet", source=SCRIPTS, ge=0, le=1000)
    ack_bytes: int = field(40, "bytes of an ACK on the wire", source=SCRIPTS, gt=0, le=1500)
    fast_retransmit: Union[bool, Literal["auto"]] = field(
        "auto", "duplicate-ACK fast retransmit; auto: on with ECMP, off with per-packet spraying",
        source="pFabric §5.1")
    dupack_threshold: int = field(3, "duplicate ACKs that trigger fast retransmit", ge=1)
    host_queue_bytes: Union[int, Literal["same", "unlimited"]] = field(
        "same", "NIC queue limit: bytes, 'same' as the switches, or 'unlimited'", source=SCRIPTS)
    connections: Literal["per_flow", "pool"] = field(
        "per_flow", "per_flow: every flow on a new connection; pool: flows reuse a pool of connections per host "
        "pair, which keeps ssthresh, the RTT estimate and DCTCP's alpha from flow to flow", source=POOL)
    connections_per_pair: int = field(8, "connections a pool starts with per host pair (more open when all are "
                                         "busy: a flow never waits)", source=POOL, ge=1)
    handshake: bool = field(
        True, "with pool connections: a connection the pool opens because all of its pair's are busy sends a SYN "
        "first, and its flow's data at the SYN-ACK, a round trip later (ns-2 FullTcp); the pool's first "
        "connections are open before the flows start, as after the scripts' warm-up transfers",
        source="pFabric and PIAS ns-2 scripts (check_if_behind opens a FullTcp connection)")
    rtt_samples: Literal["every_ack", "per_window"] = field(
        "every_ack", "every_ack: an RTT sample from each ACK's timestamp echo (RFC 7323); per_window: one timed "
        "segment per window, never a retransmitted one (ns-2's TCP without timestamps, Karn's rule)",
        source="pFabric ns-2 scripts (docs/sources.md §1)")
    window: Literal["pipe", "span"] = field(
        "pipe", "what the congestion window bounds outside fast recovery. pipe: the segments in flight (RFC 6675; "
        "SACKed segments free room, so a sender behind a hole keeps sending new data); span: the sequence numbers "
        "above the cumulative ACK, SACKed or not (ns-2's FullTcp without pipectrl_: a sender behind a hole sends at "
        "most a window past it until the hole is filled)", source="ns-2 tcp-full.cc send_allowed (docs/sources.md §1)")

    ack_every: int = field(
        1, "the receiver acknowledges every ack_every-th segment that arrives in order, and at once one out of "
        "order, one that fills a hole, a SYN or probe and the flow's last; with DCTCP, a change of CE mark sends "
        "the held ACK first. 1: every segment (ns-2's sinks); above 1, Linux's receive offload and delayed ACKs "
        "(the sender then sends each ACK's segments back to back, as offload does), and slow start grows by the "
        "segments an ACK covers (Linux 3.18 tcp_slow_start)",
        source="RFC 5681 §4.2; Linux tcp_input.c __tcp_ack_snd_check, tcp_dctcp.c", ge=1, le=64)
    ack_delay_us: float = field(
        50, "with ack_every > 1: a held ACK leaves this long after the first segment it covers", gt=0)

    # what the schemes set: the switch buffer, the timeout, ECN
    queue_bytes: int

    @model_validator(mode="after")
    def _delay_needs_coalescing(self):
        # (away from its default, not merely present: a run's summary
        # carries every field)
        if self.ack_delay_us != type(self).model_fields["ack_delay_us"].default and self.ack_every == 1:
            raise ValueError("ack_delay_us applies only with ack_every > 1 (with 1 every segment is acknowledged "
                             "at once)")
        return self

    def resolved_max_cwnd(self) -> Optional[float]:
        if self.max_cwnd_pkts == "unlimited":
            return None
        if self.max_cwnd_pkts == "auto":
            # pFabric's ns-2 scripts: maxcwnd_ = queue - 1 packets if the
            # queue holds more than 12 packets, else 12 (queues in packets
            # of 1460 bytes for the RED queues; pFabric's 24 x 1500 B gives
            # the same 24)
            q = self.queue_bytes // self.mss_bytes
            return float(q - 1 if q > 12 else 12)
        return float(self.max_cwnd_pkts)

    def resolved_host_queue(self) -> Optional[int]:
        if self.host_queue_bytes == "unlimited":
            return None
        return self.queue_bytes if self.host_queue_bytes == "same" else self.host_queue_bytes

    def tcp_engine(self, routing: Routing, *, min_rto_us: float, init_rto_us: Optional[float], ecn: bool,
                   **extra) -> dict:
        """The engine's TCP transport configuration (config.rs TcpConfig)."""
        fr = self.fast_retransmit
        if fr == "auto":
            fr = routing.load_balancing == "ecmp"
        return {
            "kind": "tcp",
            "mss_bytes": self.mss_bytes,
            "header_bytes": self.header_bytes,
            "ack_bytes": self.ack_bytes,
            "init_cwnd_pkts": float(self.init_cwnd_pkts),
            "max_cwnd_pkts": self.resolved_max_cwnd(),
            "min_rto_ps": ps(min_rto_us),
            "init_rto_ps": ps(init_rto_us if init_rto_us is not None else min_rto_us),
            "max_rto_ps": ps(self.max_rto_us),
            "fast_retransmit": bool(fr),
            "dupack_threshold": self.dupack_threshold,
            "ecn": ecn,
            "connections_per_pair": self.connections_per_pair if self.connections == "pool" else None,
            "handshake": self.handshake and self.connections == "pool",
            "rtt_per_window": self.rtt_samples == "per_window",
            "window_span": self.window == "span",
            "ack_every": self.ack_every,
            "ack_delay_ps": ps(self.ack_delay_us),
            **extra,
        }

    @staticmethod
    def fifo(limit: Optional[int], ecn_threshold: Optional[int] = None) -> dict:
        return {"discipline": {"kind": "fifo"}, "limit_bytes": limit, "ecn_threshold_bytes": ecn_threshold}


class RtoTimers(Model):
    """The retransmission timer of TCP-DropTail and DCTCP: RFC 6298 with
    a floor, or ns-2's MinTCP agent (a fixed timeout, probe mode), as the
    PIAS scripts run every scheme."""

    min_rto_us: float = field(200, "lower bound of the retransmission timeout, us", source=TABLE1, gt=0)
    init_rto_us: Optional[float] = field(
        None, "retransmission timeout before the first RTT sample, us (default: min_rto_us)", source=SCRIPTS, gt=0)
    fixed_rto: bool = field(False, "every timeout is min_rto_us: no RTT estimate, no backoff (ns-2's MinTCP agent, "
                                   "which the PIAS scripts run for every scheme)",
                            source="PIAS ns-2 scripts (MinTCP)")
    probe_after: Optional[int] = field(None, "after this many timeouts in a row, send only probes until the "
                                             "receiver answers (MinTCP: 5)", source="PIAS ns-2 scripts (prob_cap_)",
                                       ge=1)

    def timer_args(self) -> dict:
        return {"min_rto_us": self.min_rto_us, "init_rto_us": self.init_rto_us, "fixed_rto": self.fixed_rto,
                "probe_after": self.probe_after}


class TcpScheme(RtoTimers, TcpFamily):
    """TCP NewReno (or CUBIC) + SACK over drop-tail FIFO switches: pFabric's
    TCP-DropTail baseline (§5.1, Table 1: qSize 225 KB, initCwnd 12
    packets, minRTO 200 us; as its ns-2 scripts run it: 150 x 1460 B
    buffers, window growth and timeouts as ns-2's). With `ecn` and
    `ecn_threshold_bytes` it is TCP with RFC 3168 ECN."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "pFabric"
    name: Literal["tcp"] = field("tcp", "the scheme")
    queue_bytes: int = field(219_000, "drop-tail limit of every switch port, bytes (150 x 1460; the paper's "
                                      "Table 1 says 225 KB)", source=SCRIPTS, gt=0)
    ecn_threshold_bytes: Optional[int] = field(
        None, "switches mark CE on ECT packets arriving to at least this many queued bytes", ge=0)
    ecn: bool = field(False, "RFC 3168 ECN: send ECT, halve the window on an ECN echo once per window "
                             "(CUBIC: take beta of it)")
    cc: Literal["newreno", "cubic"] = field(
        "newreno", "the window law: newreno (ns-2's TCP, the simulations' baseline) or cubic (RFC 8312 as Linux "
        "3.18 runs it, the testbeds' default: after a loss or an echo beta of the window, growth along the cubic "
        "curve and at least Reno's with that backoff; slow start and recovery as newreno's)",
        source="PIAS ToN'17 §V-A (Linux 3.18 hosts); RFC 8312")
    cubic_c: float = field(0.4, "CUBIC's scaling constant C, packets/s^3", source="RFC 8312 §5; Linux bic_scale 41",
                           gt=0)
    cubic_beta: float = field(0.7, "CUBIC's multiplicative decrease: the window kept after a loss",
                              source="RFC 8312 §5; Linux beta 717/1024", gt=0, lt=1)
    cubic_fast_convergence: bool = field(True, "CUBIC's fast convergence (RFC 8312 §4.6)", source="Linux default")
    cubic_tcp_friendly: bool = field(True, "CUBIC grows at least as fast as Reno with its backoff would "
                                           "(RFC 8312 §4.2)", source="Linux default")

    @model_validator(mode="after")
    def _ecn_needs_marking(self):
        if self.ecn and self.ecn_threshold_bytes is None:
            raise ValueError("ecn = true needs ecn_threshold_bytes (switches mark above it)")
        # (a CUBIC constant away from its default, not merely present: a
        # run's summary carries every field)
        cubic_set = sorted(f for f, info in type(self).model_fields.items()
                           if f.startswith("cubic_") and getattr(self, f) != info.default)
        if cubic_set and self.cc != "cubic":
            verb = "applies" if len(cubic_set) == 1 else "apply"
            raise ValueError(f"{', '.join(cubic_set)} {verb} only with cc = \"cubic\" (cc is \"{self.cc}\")")
        return self

    def window_law(self) -> dict:
        """The engine's `cc` (config.rs Cc) for this window law."""
        if self.cc == "cubic":
            return {"kind": "cubic", "c": self.cubic_c, "beta": self.cubic_beta,
                    "fast_convergence": self.cubic_fast_convergence, "tcp_friendly": self.cubic_tcp_friendly}
        return {"kind": "reno"}

    def estimate_caveat(self, spec: "Spec") -> Optional[str]:
        if self.ecn:
            return None
        # docs/estimator.md, "Where the estimate is off" (evidence/estimator_losses.py)
        return ("TCP over drop-tail halves its window for a loss at any link of its path, but a link's own "
                "simulation loses only at that link: there its flows fill the link's buffer as if it were their "
                "bottleneck (measured: 3x the exact run's drops at the leaves, 24x at the spines); with the "
                "estimator's passes its 99th percentiles are still a median 21% off the exact run's, small flows' "
                "up to 2.4x over (docs/estimator.md)")

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        routing = spec.routing
        transport = self.tcp_engine(routing, ecn=self.ecn, cc=self.window_law(), **self.timer_args())
        # ECN marking at the switches; a host's NIC queue does not mark
        port = {"host": self.fifo(self.resolved_host_queue()), "switch": self.fifo(self.queue_bytes,
                                                                                 self.ecn_threshold_bytes)}
        return transport, port
