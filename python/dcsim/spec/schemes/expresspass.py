"""`expresspass`: ExpressPass (Cho, Jang and Han, SIGCOMM 2017) as its
public ns-2 code runs it, the code BFC NSDI'22 §6.2 compared against
(`kaist-ina/ns2-xpass`, and the BFC co-author's scripts on it)."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ...errors import SpecError
from ..base import field, ps
from .scheme import SchemeModel

if TYPE_CHECKING:
    from ..experiment import Spec

BFC = "BFC NSDI'22 §6.2.1"
NS2 = "ExpressPass ns-2 code (xpass.cc, ns-default.tcl)"
SCRIPTS = "the BFC co-author's ExpressPass scripts (large-scale-fattree.tcl)"
#: A data frame on the wire (1460 B of payload, 78 B of headers with the
#: preamble and inter-frame gap), and a credit (a minimum frame, likewise).
DATA_FRAME, CREDIT_FRAME = 1538, 84


class ExpressPassScheme(SchemeModel):
    """ExpressPass: receiver-driven credits. A flow's sender asks for
    credits (a credit request, sent again every `request_timeout_us` until a
    credit comes); its receiver sends credits, paced at its credit rate
    with +-10% jitter; every port sends credits through a token bucket at
    84/(84+1538) of its link, ahead of data, and drops those beyond its
    small credit queue; each credit that reaches the sender lets one data
    packet out (none left: the credit is wasted). The receiver counts the
    credits lost from the gaps in the credit numbers the data echoes, and
    once per RTT (credit to data, measured) sets its rate by Algorithm 1:
    above the target loss, the rate the data showed; below it, a step
    towards the top rate by w, w growing while the loss stays low. The
    sender sends CREDIT_STOP when its data runs out, or early, when the
    credits of the last interval cover what is left; the receiver stops
    crediting when it arrives. Data loss (rare: 75 MB per port) is
    recovered by go-back-N with NACKs. No PFC; dedicated per-port buffers,
    as its simulator assumes (BFC §6.2.1). A flow's FCT ends when the
    receiver holds every byte and has the CREDIT_STOP."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["expresspass"] = field("expresspass", "the scheme")
    alpha: float = field(0.5, "first credit rate, as a fraction of the top one (scaled down for flows of fewer "
                              "than 40 packets)", source=BFC, gt=0, le=1)
    w_init: float = field(0.0625, "first value of w, the step of the rate increase", source=BFC, gt=0, le=1)
    w_min: float = field(0.01, "w's lower bound", source=NS2, gt=0, le=1)
    w_max: float = field(0.5, "w's upper bound", source=NS2, gt=0, le=1)
    w_step: float = field(0.05, "w grows by this at each update without loss after the first", source=NS2, ge=0)
    target_loss: float = field(0.125, "credit loss tolerated at zero rate (it falls linearly to 0 at the top rate)",
                               source=NS2, ge=0, lt=1)
    jitter: float = field(0.1, "credit gaps vary uniformly by +- this fraction", source=NS2, ge=0, lt=1)
    credit_queue_credits: int = field(
        8, "credits a port's credit queue holds (the scripts: 84 x 8 bytes; the paper's text says 16)",
        source=SCRIPTS, ge=1)
    bucket_credits: int = field(2, "depth of a port's credit token bucket, credits (84 x 2 bytes)", source=SCRIPTS,
                                ge=1)
    credit_size_spread: int = field(8, "credits are 84 +- this many bytes, uniformly (the large-scale scripts: "
                                       "76-92 B); 0: all 84 B", source=SCRIPTS, ge=0, le=80)
    queue_bytes: int = field(50_000 * DATA_FRAME, "data buffer of every port and NIC, bytes (50,000 frames; BFC: "
                                                  "'75 MB' to eliminate drops)", source=BFC + "; " + SCRIPTS, gt=0)
    request_timeout_us: float = field(100.0, "a credit request is sent again after this long without a credit",
                                      source=SCRIPTS, gt=0)
    mss_bytes: int = field(1460, "payload bytes per full data packet", source=NS2, gt=0, le=9000)
    header_bytes: int = field(78, "bytes of headers per data packet, with the preamble and inter-frame gap "
                                  "(1538 B frames)", source=NS2, ge=0, le=1000)

    #: Its credits go back along its data's path (symmetric ECMP).
    not_per_link: ClassVar[Optional[str]] = (
        "its receivers' credits cross every link of the path back, and the data follows them: a link's credits "
        "are not its own")
    symmetric_routing: ClassVar[bool] = True

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        if spec.buffer.resolved_model(self) != "per_port":
            raise SpecError("scheme expresspass runs on per-port buffers (its simulator's model, BFC §6.2.1): leave "
                            "buffer.model = \"auto\" or set it to \"per_port\"")
        if spec.topology.kind != "star" and (spec.routing.load_balancing != "ecmp"
                                             or not spec.routing.resolved_symmetric(self)):
            raise SpecError("scheme expresspass sends a flow's credits back along its data's path: set "
                            "routing.load_balancing = \"ecmp\" (with routing.symmetric \"auto\" or true); got "
                            f"{spec.routing.load_balancing!r}")
        if self.w_min > self.w_max:
            raise SpecError(f"scheme.w_min ({self.w_min}) must not exceed scheme.w_max ({self.w_max})")
        frame = self.mss_bytes + self.header_bytes
        host_bps = spec.topology.host_rate_bps()
        transport = {
            "kind": "xpass",
            "mss_bytes": self.mss_bytes,
            "header_bytes": self.header_bytes,
            "control_bytes": CREDIT_FRAME,
            "credit_bytes": CREDIT_FRAME,
            "credit_size_spread": self.credit_size_spread,
            "max_credit_rate_bps": host_bps * CREDIT_FRAME // (CREDIT_FRAME + frame),
            "alpha": self.alpha,
            "w_init": self.w_init,
            "w_min": self.w_min,
            "w_max": self.w_max,
            "w_step": self.w_step,
            "target_loss": self.target_loss,
            "jitter": self.jitter,
            "request_timeout_ps": ps(self.request_timeout_us),
        }
        discipline = {"kind": "xpass", "credit_queue_bytes": self.credit_queue_credits * CREDIT_FRAME,
                      "bucket_bytes": self.bucket_credits * CREDIT_FRAME,
                      "credit_share": [CREDIT_FRAME, CREDIT_FRAME + frame]}
        port = {"discipline": discipline, "limit_bytes": self.queue_bytes}
        return transport, {"host": port, "switch": port}
