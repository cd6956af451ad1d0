"""Schemes (`[scheme]`, chosen by `name`): one model per scheme, each in its
own module; a new scheme adds its module and one entry here."""

from __future__ import annotations

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
from .pfabric import PFabricScheme
from .pias import PiasScheme
from .prio_queues import PrioQueuesScheme
from .tcp import TcpFamily, TcpScheme

Scheme = Annotated[Union[TcpScheme, DctcpScheme, PFabricScheme, IdealScheme, PiasScheme, LasScheme, PrioQueuesScheme,
                         L2dctScheme, IdealFqScheme, DcqcnScheme, HpccScheme, BfcScheme, DctcpRdmaScheme,
                         ExpressPassScheme, IdealFqPacketScheme, DcqcnNs3rdmaScheme, HomaScheme,
                         IdealSrfPacketScheme],
                   Field(discriminator="name")]
SCHEMES = {"tcp": TcpScheme, "dctcp": DctcpScheme, "pfabric": PFabricScheme, "ideal": IdealScheme, "pias": PiasScheme,
           "las": LasScheme, "prio_queues": PrioQueuesScheme, "l2dct": L2dctScheme, "ideal_fq": IdealFqScheme,
           "dcqcn": DcqcnScheme, "hpcc": HpccScheme, "bfc": BfcScheme, "dctcp_rdma": DctcpRdmaScheme,
           "expresspass": ExpressPassScheme, "ideal_fq_packet": IdealFqPacketScheme,
           "dcqcn_ns3rdma": DcqcnNs3rdmaScheme, "homa": HomaScheme,
           "ideal_srf_packet": IdealSrfPacketScheme}

__all__ = ["Scheme", "SCHEMES", "TcpFamily", "TcpScheme", "DctcpScheme", "PFabricScheme", "IdealScheme", "PiasScheme",
           "LasScheme", "PrioQueuesScheme", "L2dctScheme", "IdealFqScheme", "DcqcnScheme", "HpccScheme", "BfcScheme",
           "DctcpRdmaScheme", "ExpressPassScheme", "IdealFqPacketScheme", "DcqcnNs3rdmaScheme", "HomaScheme",
           "IdealSrfPacketScheme"]
