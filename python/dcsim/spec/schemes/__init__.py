"""Schemes (`[scheme]`, chosen by `name`): one model per scheme, each in its
own module; a new scheme adds its module and one entry here."""

from __future__ import annotations

from .tcp import TcpScheme

Scheme = TcpScheme
SCHEMES = {"tcp": TcpScheme}
