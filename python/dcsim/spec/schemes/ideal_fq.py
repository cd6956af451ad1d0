"""`ideal_fq`: ideal fair sharing, the BFC paper's "Ideal-FQ", flow level."""

from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from ...errors import SpecError
from ..base import field
from .ideal import FlowLevelScheme

if TYPE_CHECKING:
    from ..experiment import Spec


class IdealFqScheme(FlowLevelScheme):
    """Ideal fair sharing (BFC §6.2's Ideal-FQ, the line its figures compare
    with): flow level, no packets. At every flow arrival and departure each
    active flow gets its max-min fair rate over the links of its path
    (progressive filling), recomputed, and is served at it until the next
    arrival or departure. A flow's path is the one its packets would take
    (per-flow ECMP). No buffers, no losses, no congestion control: what
    per-flow fair queueing with perfect rate allocation would give. Same
    flows and same ideal FCT as the packet-level schemes, so a flow alone
    has slowdown 1."""

    DEFAULTS_FROM: ClassVar[Optional[str]] = "BFC"
    name: Literal["ideal_fq"] = field("ideal_fq", "the scheme")

    engine_model: ClassVar[str] = "ideal_fq"

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        if spec.topology.kind != "star" and spec.routing.load_balancing != "ecmp":
            raise SpecError("scheme ideal_fq follows each flow's path: set routing.load_balancing = \"ecmp\" "
                            f"(got {spec.routing.load_balancing!r})")
        return super().engine(spec)
