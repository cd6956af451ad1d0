"""`prio_queues`: pFabric §6's approximation of pFabric on commodity
switches: a few strict-priority queues, flows assigned by their size."""

from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal, Optional, Union

from pydantic import BeforeValidator, Field

from ...errors import SpecError
from ..base import field
from .tcp import TcpFamily

if TYPE_CHECKING:
    from ..experiment import Spec

SEC6 = "pFabric §6.2"


def strict_priority_port(queues: int, limit: Optional[int], reserved: int, ecn_threshold: Optional[int],
                         per_port: bool, dt_alpha: Optional[float] = None) -> dict:
    """The engine's port configuration of K strict-priority queues (with
    dynamic thresholds when `dt_alpha` is given)."""
    alpha = None
    if dt_alpha is not None:
        f = Fraction(dt_alpha).limit_denominator(1000)
        if not 1 <= f.numerator < 2**32:
            raise SpecError(f"scheme.buffer_alpha: {dt_alpha:g} is out of range (1/1000 .. 4e9)")
        alpha = [f.numerator, f.denominator]
    return {"discipline": {"kind": "prio", "queues": queues, "reserved_bytes": reserved, "ecn_per_port": per_port,
                           "dt_alpha": alpha},
            "limit_bytes": limit, "ecn_threshold_bytes": ecn_threshold}


def _underscored(v):
    """A method's name as the command line spells it ('equal-split',
    `dcsim thresholds --method`) or as the spec does ('equal_split')."""
    return v.replace("-", "_") if isinstance(v, str) else v


#: Accepts both spellings of a thresholds method.
EITHER_SPELLING = BeforeValidator(_underscored)


def resolve_thresholds(given: Union[list[int], str], queues: int, spec: "Spec",
                       load: Union[float, str], optimizer: str, factor: float = 1.0,
                       cdf_name: Optional[str] = None) -> list[int]:
    """K-1 thresholds in bytes from a list or a method name, for the spec's
    workload (a shipped name or CDF file; or `cdf_name`) and load (times
    `factor`)."""
    from ...thresholds import thresholds
    from ...workloads import load_cdf

    if isinstance(given, list):
        ts = list(given)
    else:
        w = spec.workload
        if w.cdf is None:
            raise SpecError(f"scheme.thresholds: '{given}' needs a workload.cdf; give the thresholds as a list")
        at = (w.load if load == "workload" else float(load)) * factor
        method = {"equal_split": "equal-split", "paper": "paper"}.get(given, optimizer)
        name = cdf_name or w.cdf
        # a file of other sizes is in the workload's unit (cdf_unit_bytes)
        cdf = load_cdf(name, unit=w.cdf_unit_bytes, field="scheme.threshold_cdf" if cdf_name else "workload.cdf")
        try:
            ts = list(thresholds(method, name, cdf, at, queues, w.size_quantum_bytes).thresholds)
        except SpecError as e:
            other = {"paper": optimizer}.get(given)
            hint = (f"set scheme.thresholds = \"{other}\" to compute them for this workload and load "
                    f"(`dcsim thresholds --method {other}`), or give them as a list") if other else \
                "give the thresholds as a list or another method"
            raise SpecError(f"scheme.thresholds = '{given}': {e}; {hint}")
    if len(ts) != queues - 1:
        raise SpecError(f"scheme.thresholds: {queues} queues need {queues - 1} thresholds, got {len(ts)}")
    if any(t < 0 for t in ts) or ts != sorted(ts):
        raise SpecError(f"scheme.thresholds: must be non-negative and non-decreasing, got {ts}")
    return ts


def threshold_caveats(spec: "Spec", ts: list[int]) -> list[str]:
    """A warning when thresholds leave queues without flows of the spec's
    workload (`thresholds.empty_queues`): the scheme then runs with fewer
    queues than it has. [] without a workload.cdf to judge by."""
    from ...thresholds import empty_queues
    from ...workloads import load_cdf

    w = spec.workload
    if w.cdf is None:
        return []
    largest = max(load_cdf(w.cdf, unit=w.cdf_unit_bytes, field="workload.cdf").sizes)
    q = w.size_quantum_bytes or 1
    empty = empty_queues(ts, -(-largest // q) * q)
    if not empty:
        return []
    how = spec.scheme.thresholds if isinstance(spec.scheme.thresholds, str) else "given"
    return [f"scheme.thresholds ({how}: {', '.join(f'{t:,}' for t in ts)} B) on this workload: {empty}, so the "
            f"scheme runs with fewer queues than its {len(ts) + 1}; 'equal_split' or a list of your own uses them all "
            "(`dcsim thresholds` compares methods)"]


def log_thresholds(queues: int, spec: "Spec", mss: int) -> list[int]:
    """K-1 thresholds spaced geometrically from one packet to the
    workload's largest flow (the CS244 reproduction's logarithmic bands:
    "we scaled the remaining flow sizes down logarithmically into the 16
    buckets", §9)."""
    from ...workloads import load_cdf

    w = spec.workload
    if w.cdf is None:
        raise SpecError("scheme.thresholds = 'log' spreads the bands up to the workload's largest flow: it needs a "
                        "workload.cdf; give the thresholds as a list")
    top = max(load_cdf(w.cdf, unit=w.cdf_unit_bytes, field="workload.cdf").sizes)
    top = max(top, 2 * mss)
    return [round(mss * (top / mss) ** (i / queues)) for i in range(1, queues)]


class PrioQueuesScheme(TcpFamily):
    """pFabric §6: K strict-priority queues per port sharing a buffer (each
    queue has a reserve of its own, the rest is shared first come, first
    served), flows assigned to a queue by their size against K-1
    thresholds, TCP or DCTCP at the hosts."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "pFabric"
    name: Literal["prio_queues"] = field("prio_queues", "the scheme")
    queues: Union[Annotated[int, Field(ge=1, le=32)], Literal["unlimited"]] = field(
        4, "strict-priority queues per port (K): 2, 4 or 8 in Fig. 23; 'unlimited': one per priority value (pFabric's "
        "priority queue, which also drops the least urgent packet when full)", source=SEC6)
    thresholds: Annotated[Union[list[int], Literal["pfabric_eq8", "equal_split", "log"]], EITHER_SPELLING] = field(
        "pfabric_eq8", "K-1 thresholds, bytes: a list, 'pfabric_eq8' (Appendix A, Eq. 8, for the spec's "
        "workload and load), 'equal_split' (quantiles of the flow count, Fig. 23(c)) or 'log' (geometric from one "
        "packet to the workload's largest flow: the CS244 reproduction's 16 PRIO bands)",
        source="pFabric §6.1, §6.2; CS244 '13 reproduction §9")
    priority: Literal["flow_size", "remaining_size"] = field(
        "flow_size", "what a data packet's class comes from: its flow's size (pFabric §6) or the bytes of its flow not "
        "yet acknowledged (the CS244 reproduction)", source="pFabric §6; CS244 '13 reproduction §7")
    threshold_load: Union[float, Literal["workload"]] = field(
        "workload", "the load the thresholds are chosen for", source=SEC6)
    transport: Literal["tcp", "dctcp"] = field("tcp", "the hosts' rate control (§6: either)", source=SEC6)
    queue_bytes: int = field(225_000, "buffer of every port, shared by its queues, bytes (150 packets)",
                             source=SEC6, gt=0)
    reserved_bytes: int = field(15_000, "buffer each queue has of its own, bytes (10 packets)", source=SEC6, ge=0)
    ecn_threshold_bytes: int = field(22_500, "with DCTCP: mark when the arrival's queue holds more than this, bytes",
                                     source="pFabric Table 1 (DCTCP's K)", ge=0)
    g: float = field(1 / 16, "DCTCP's gain", source="pFabric ns-2 scripts", gt=0, le=1)
    min_rto_us: float = field(200, "lower bound of the retransmission timeout, us", source="pFabric Table 1", gt=0)
    init_rto_us: Optional[float] = field(None, "the timeout before the first RTT sample, us; none: min_rto_us (Linux: "
                                               "1 s)", source="RFC 6298 §2", gt=0)

    def resolved_thresholds(self, spec: "Spec") -> list[int]:
        """The K-1 thresholds this spec runs with, bytes (K queues)."""
        if self.thresholds == "log":
            return log_thresholds(self.queues, spec, self.mss_bytes)
        return resolve_thresholds(self.thresholds, self.queues, spec, self.threshold_load, "pfabric-eq8")

    def caveats(self, spec: "Spec") -> list[str]:
        out = super().caveats(spec)
        if self.queues == "unlimited":
            return out
        return out + threshold_caveats(spec, self.resolved_thresholds(spec))

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        dctcp = self.transport == "dctcp"
        extra = {"cc": {"kind": "dctcp", "g": self.g}} if dctcp else {}
        if self.queues == "unlimited":
            # a priority per value: pFabric's queue, without starvation
            # prevention (a PRIO queue sends strictly by band)
            transport = self.tcp_engine(spec.routing, min_rto_us=self.min_rto_us, init_rto_us=self.init_rto_us,
                                        ecn=dctcp, prio=self.priority, **extra)
            port = {"discipline": {"kind": "pfabric", "starvation_prevention": False, "classes": 1},
                    "limit_bytes": self.queue_bytes, "ecn_threshold_bytes": self.ecn_threshold_bytes if dctcp else None}
            return transport, {"host": dict(port, limit_bytes=self.resolved_host_queue()), "switch": port}
        if self.reserved_bytes * self.queues > self.queue_bytes:
            raise SpecError(f"scheme.reserved_bytes: {self.queues} queues x {self.reserved_bytes} B exceed "
                            f"queue_bytes = {self.queue_bytes}")
        ts = self.resolved_thresholds(spec)
        transport = self.tcp_engine(spec.routing, min_rto_us=self.min_rto_us, init_rto_us=self.init_rto_us,
                                    ecn=dctcp, prio=self.priority, prio_thresholds=ts, **extra)
        port = strict_priority_port(self.queues, self.queue_bytes, self.reserved_bytes,
                                    self.ecn_threshold_bytes if dctcp else None, per_port=False)
        host_limit = self.resolved_host_queue()
        if host_limit is not None and self.reserved_bytes * self.queues > host_limit:
            # the host's queues are the switch's, with the host's buffer
            raise SpecError(f"scheme.host_queue_bytes: {host_limit} B is less than the {self.queues} queues' "
                            f"reserves ({self.queues} x scheme.reserved_bytes = {self.reserved_bytes} B)")
        host = dict(port, limit_bytes=host_limit)
        return transport, {"host": host, "switch": port}
