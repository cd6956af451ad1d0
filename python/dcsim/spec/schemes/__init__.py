"""Schemes (`[scheme]`, chosen by `name`): one model per scheme, each in its
own module; a new scheme adds its module and one entry here."""

from __future__ import annotations

from typing import Annotated, Union

from pydantic import Field

from .dctcp import DctcpScheme
from .ideal import IdealScheme
from .pfabric import PFabricScheme
from .tcp import TcpFamily, TcpScheme

Scheme = Annotated[Union[TcpScheme, DctcpScheme, PFabricScheme, IdealScheme], Field(discriminator="name")]
SCHEMES = {"tcp": TcpScheme, "dctcp": DctcpScheme, "pfabric": PFabricScheme, "ideal": IdealScheme}

__all__ = ["Scheme", "SCHEMES", "TcpFamily", "TcpScheme", "DctcpScheme", "PFabricScheme", "IdealScheme"]
