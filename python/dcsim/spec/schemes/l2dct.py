"""`l2dct`: L2DCT (Munir et al., INFOCOM'14), DCTCP whose window law
weights each flow by the bytes it has sent (least attained service without
switch support), as the PIAS paper compares it."""

from typing import TYPE_CHECKING, Literal

from ..base import field
from .dctcp import DctcpScheme

if TYPE_CHECKING:
    from ..experiment import Spec

PIAS_L2DCT = "PIAS ns-2 scripts (run_lldct_*.py; docs/sources.md §2)"


class L2dctScheme(DctcpScheme):
    """L2DCT over DCTCP's marking switches. A flow's weight w falls from
    w_max (until it has sent size_min bytes) to w_min (from size_max),
    linearly between. On an ECN echo the window is cut by alpha^w / 2
    (alpha as DCTCP's), so young flows back off less; in congestion
    avoidance it grows by w / w_max packets per window. `increase =
    "ns2_pias"` is the increase of the PIAS ns-2 code, which counts most
    ACKs twice (about two packets per window whatever w): the code behind
    the PIAS paper's L2DCT numbers."""

    name: Literal["l2dct"] = field("l2dct", "the scheme")  # type: ignore[assignment]
    w_min: float = field(0.125, "weight of a flow that has sent size_max or more", source=PIAS_L2DCT, gt=0)
    w_max: float = field(2.5, "weight of a flow that has sent size_min or less", source=PIAS_L2DCT, gt=0)
    size_min_bytes: int = field(204_800, "bytes sent up to which the weight is w_max", source=PIAS_L2DCT, ge=0)
    size_max_bytes: int = field(1_048_576, "bytes sent from which the weight is w_min", source=PIAS_L2DCT, gt=0)
    increase: Literal["l2dct", "ns2_pias"] = field(
        "l2dct", "congestion avoidance: w / w_max packets per window (the L2DCT paper), or the PIAS ns-2 code's "
        "(about two per window)", source="L2DCT §3; PIAS-NS2 tcp.cc opencwnd")

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        from ...errors import SpecError

        if self.size_max_bytes <= self.size_min_bytes or self.w_min > self.w_max:
            raise SpecError("scheme: l2dct needs size_min_bytes < size_max_bytes and w_min <= w_max")
        transport, port = super().engine(spec)
        transport["cc"] = {"kind": "l2dct", "g": self.g, "w_min": self.w_min, "w_max": self.w_max,
                           "size_min": self.size_min_bytes, "size_max": self.size_max_bytes,
                           "ns2_double_count": self.increase == "ns2_pias"}
        return transport, port
