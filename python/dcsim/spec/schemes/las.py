"""`las`: least attained service on pFabric's switch (the PIAS paper's LAS
baseline; pFabric §5.4.3's "BytesSent")."""

from typing import Literal

from ..base import field
from .pfabric import PFabricScheme


class LasScheme(PFabricScheme):
    """Least attained service: pFabric's switches and rate control with each
    packet carrying the bytes its flow sent before it, so the flow that has
    sent least goes first (PIAS §V-A: LAS "on pFabric's switch"). The PIAS
    scripts ran it with pFabric's settings of that paper: 210 KB buffers,
    RTO 250 us, window 70 (its figures set them)."""

    name: Literal["las"] = field("las", "the scheme")  # type: ignore[assignment]
    priority: Literal["bytes_sent"] = field("bytes_sent", "bytes sent before the packet: least attained service",
                                            source="PIAS §V-A")  # type: ignore[assignment]
