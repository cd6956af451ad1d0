"""Schemes (`[scheme]`, chosen by `name`): one model per scheme, each in its
own module, subclassing `SchemeModel` (what a scheme tells the rest of
dcsim); a new scheme adds its module and one entry in `MODELS`."""

from typing import Annotated, Union

from pydantic import Field

from .bfc import BfcScheme
from .dcqcn import DcqcnScheme
from .dcqcn_ns3rdma import DcqcnNs3rdmaScheme
from .dctcp import DctcpScheme
from .dctcp_rdma import DctcpRdmaScheme
from .expresspass import ExpressPassScheme
from .homa import HomaScheme
from .hpcc import HpccScheme
from .ideal import IdealScheme
from .ideal_fq import IdealFqScheme
from .ideal_fq_packet import IdealFqPacketScheme, IdealSrfPacketScheme
from .l2dct import L2dctScheme
from .las import LasScheme
from .pdq import PdqScheme
from .pfabric import PFabricScheme
from .pias import PiasScheme
from .prio_queues import PrioQueuesScheme
from .scheme import SchemeModel
from .tcp import TcpFamily, TcpScheme

#: Every scheme's model, in the order `dcsim list` and docs/spec.md show
#: them: the one list of schemes.
MODELS = (TcpScheme, DctcpScheme, PFabricScheme, IdealScheme, PiasScheme, LasScheme, PrioQueuesScheme, L2dctScheme,
          IdealFqScheme, DcqcnScheme, HpccScheme, BfcScheme, DctcpRdmaScheme, ExpressPassScheme, IdealFqPacketScheme,
          DcqcnNs3rdmaScheme, HomaScheme, IdealSrfPacketScheme, PdqScheme)

#: `[scheme]`: one of the models, chosen by its `name`.
Scheme = Annotated[Union[MODELS], Field(discriminator="name")]  # type: ignore[valid-type]
#: The models by name.
SCHEMES: dict[str, type[SchemeModel]] = {m.model_fields["name"].default: m for m in MODELS}

__all__ = ["Scheme", "SCHEMES", "MODELS", "SchemeModel", "TcpFamily", *(m.__name__ for m in MODELS)]
