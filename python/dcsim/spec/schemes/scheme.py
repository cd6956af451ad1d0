"""What every scheme tells the rest of dcsim (the spec's side of the scheme
seam, docs/extending.md): how to build the engine's transport and ports,
and the class attributes and hooks below, each with the default most
schemes want. A scheme's model subclasses `SchemeModel` (through its
family's: `TcpFamily`, `RdmaFamily`, ...), sets what differs, and is
listed once in `schemes/__init__.py`. Nothing else in dcsim asks a
scheme's name."""

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Optional

from ..base import Model

if TYPE_CHECKING:
    from ..experiment import Spec


class SchemeModel(Model):
    """A scheme's model. Every scheme has the fields `name` (its literal),
    `mss_bytes` and `header_bytes` (its packets' sizes, which the load and
    the ideal FCT are computed from), and `engine`."""

    #: The engine's model: "packets", or a flow-level one ("ideal",
    #: "ideal_fq"), which has no packets, buffers or links.
    engine_model: ClassVar[str] = "packets"
    #: The switch buffers it runs on in its paper, when `buffer.model` is
    #: "auto": "per_port" (each port its own) or "shared" (one per switch).
    buffer_model: ClassVar[str] = "per_port"
    #: With shared buffers, whether its switches run PFC (`buffer.pfc`
    #: unset).
    pfc: ClassVar[bool] = True
    #: Its switch buffers are unbounded (nothing may be lost): no size, no
    #: PFC to set.
    unbounded_buffer: ClassVar[bool] = False
    #: A flow's packets going back retrace its path (`routing.symmetric`
    #: "auto"): ExpressPass's credits must meet its data's queues.
    symmetric_routing: ClassVar[bool] = False
    #: Its ports serve traffic classes in strict priority only, not round
    #: robin (`workload.class_scheduling`).
    strict_classes_only: ClassVar[bool] = False
    #: Its fields that name a file (a workload name or a CDF file): a
    #: result depends on the file's contents (`input_files`), and a spec
    #: file's relative path is taken from the spec's folder (`with_base`).
    file_fields: ClassVar[tuple[str, ...]] = ()
    #: The paper whose set-up (buffers, marking, timers, packets) its
    #: defaults come from ("pFabric", "PIAS", "BFC"): schemes run side by
    #: side with defaults from different papers get a note
    #: (`profiles.mixed_defaults`). `las` and `l2dct` inherit pFabric's:
    #: their switches and timers are `pfabric`'s and `dctcp`'s (Table 1),
    #: only their priority or weights are the PIAS paper's.
    DEFAULTS_FROM: ClassVar[Optional[str]] = None
    #: Why its runs cannot take faults (`[[faults]]`, docs/faults.md), if
    #: they cannot: what of its recovery dcsim does not model.
    no_faults: ClassVar[Optional[str]] = None
    #: Why its runs cannot be estimated link by link (`dcsim estimate`,
    #: docs/estimator.md), if they cannot: what of it spans links.
    not_per_link: ClassVar[Optional[str]] = None

    def engine(self, spec: "Spec") -> tuple[dict, dict]:
        """The engine's transport (config.rs `TransportConfig`) and ports
        (`PortConfig`: `host`, `switch`, optionally `upper_tiers`)."""
        raise NotImplementedError(f"scheme {type(self).__name__} builds no engine configuration")

    def extra_config(self, spec: "Spec") -> dict:
        """More sections of the engine's configuration (BFC's `bfc`)."""
        return {}

    def caveats(self, spec: "Spec") -> list[str]:
        """What a user should know before running this spec (printed as
        warnings by `dcsim run` and `dcsim sweep`)."""
        return []

    def estimate_caveat(self, spec: "Spec") -> Optional[str]:
        """What a user should know about its decomposed estimate (`dcsim
        estimate`), measured against exact runs (docs/estimator.md), if
        the estimate is far off by design."""
        return None

    def state_bytes(self, spec: "Spec") -> float:
        """Memory its ports' own state takes beyond the fabric's (BFC's flow
        tables), checked against the machine's before a run."""
        return 0.0

    def labels_incasts(self) -> bool:
        """Its senders label the flows of `workload.incasts` (BFC +
        IncastLabel): the engine is told which flows they are."""
        return False

    def input_files(self) -> dict[str, str]:
        """The files its `file_fields` name (PIAS's `threshold_cdf`), by field."""
        return {f: v for f in self.file_fields if (v := getattr(self, f))}

    def with_base(self, base: Path) -> None:
        """Take the relative paths of its `file_fields` from `base`, a spec
        file's folder (a shipped workload's name stays as it is)."""
        from ...workloads import SHIPPED

        for f in self.file_fields:
            v = getattr(self, f)
            if v and v not in SHIPPED and not Path(v).is_absolute() and (base / v).is_file():
                setattr(self, f, str(base / v))
