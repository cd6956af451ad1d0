"""The `[packets]` section: one packet size for every scheme of a spec or
sweep. Schemes default to their papers' packets (pFabric's and PIAS's
1,460 + 40 B, BFC's RDMA schemes' and Homa's 1,000 + 48 B), so a sweep
over schemes otherwise compares different packets (and draws slightly
different flows: sizes are whole packets). Set here, the size holds for
whichever scheme a point runs, as a scheme's own field would."""

from typing import Optional

from .base import Model, field


class Packets(Model):
    """Payload and header bytes of every data packet, for every scheme;
    unset, each scheme's own (`scheme.mss_bytes`, `scheme.header_bytes`)."""

    mss_bytes: Optional[int] = field(
        None, "payload bytes of a full packet, whatever the scheme (none: the scheme's own scheme.mss_bytes)",
        gt=0, le=9000)
    header_bytes: Optional[int] = field(
        None, "header bytes of a data packet, whatever the scheme (none: the scheme's own scheme.header_bytes)",
        ge=0, le=1000)

    def fields(self) -> dict[str, int]:
        """The sizes set here: {'mss_bytes': 1000, ...}."""
        return {k: v for k, v in (("mss_bytes", self.mss_bytes), ("header_bytes", self.header_bytes))
                if v is not None}
