"""Faults inside the fabric: a spec's `[[faults]]` list (docs/faults.md).
Each entry takes a link, a switch or a selection of links down, or
degrades them, from a time to an optional repair; the engine's
`faults.rs` carries them out."""

import re
from typing import Literal, Optional

from pydantic import model_validator

from .base import Model, field, ps

#: The words of a selection's tier (`Node::tier` in the engine: 1 the
#: switches hosts hang off, 2 the tier above, 3 the core).
TIERS = {"leaf": 1, "tor": 1, "edge": 1, "spine": 2, "aggregation": 2, "agg": 2, "core": 3}
_SELECT = re.compile(r"^(?P<random>random\s+)?(?P<tier>[a-z]+)(?:\s+(?P<index>\d+|random))?"
                     r"(?:\s+(?P<part>uplinks?|downlinks?|links))?$")
#: Routing learns of a failure after this long by default: between a
#: switch's own loss-of-signal failover (well under a millisecond) and
#: BFD or a routing protocol's (tens of milliseconds and more). A choice
#: (docs/faults.md): set it to the case you study.
DETECT_US = 1000.0


def parse_select(text: str) -> dict:
    """The engine's target for a selection such as "spine 2", "leaf 0
    uplinks", "random leaf uplink" or "core random"."""
    m = _SELECT.match(" ".join(text.lower().split()))
    tier = m and TIERS.get(m["tier"])
    if not m or tier is None or (m["random"] and m["index"]) or not (m["random"] or m["index"]):
        raise ValueError(f"select {text!r}: expected \"<tier> <N>\" or \"random <tier>\", then optionally "
                         f"\"uplinks\", \"downlinks\", \"uplink\" or \"downlink\" (one of them at random); tiers: "
                         f"{', '.join(TIERS)}; e.g. \"spine 2\", \"leaf 0 uplinks\", \"random leaf uplink\"")
    index = None if (m["random"] or m["index"] == "random") else int(m["index"])
    part = {None: "switch", "links": "switch"}.get(m["part"], m["part"])
    return {"kind": "select", "tier": tier, "index": index, "part": part}


def lossy(spec) -> bool:
    """Whether the run has faults or links that lose packets (a topology
    file's error rates)."""
    return bool(spec.faults) or (spec.topology.kind == "file" and bool(spec.topology.fabric().errors))


def check(spec) -> None:
    """Refuse faults where the scheme cannot recover from the losses they
    bring (`Scheme.no_faults`), or would stall without a timeout."""
    from ..errors import SpecError

    if not lossy(spec):
        return
    what = "faults" if spec.faults else "the topology file's error rates"
    scheme = spec.scheme
    if scheme.no_faults:
        raise SpecError(f"{what}: scheme {scheme.name} cannot run with them: {scheme.no_faults} (docs/faults.md)")
    if getattr(scheme, "rto_us", False) is None:
        raise SpecError(f"{what} lose packets, and scheme {scheme.name} with rto_us = none (the HPCC simulator's: "
                        f"no retransmission timeout) stalls a flow whose last packet or ACK is lost: set "
                        f"scheme.rto_us (e.g. 1000)")


class Fault(Model):
    """A link, a switch or a selection of links that goes down, or
    degrades, at `at_ms`, until `until_ms` (unset: the rest of the run)."""

    at_ms: float = field(..., "when it begins, in ms of simulated time", ge=0)
    until_ms: Optional[float] = field(None, "when it is repaired (ms; unset: never)", gt=0)
    kind: Literal["down", "degrade"] = field(
        "down", "down: the links carry nothing (packets on them, queued at them or routed to them before routing "
        "learns of it are lost); degrade: a lower rate and/or silent loss (a gray failure; routing never learns)")
    link: Optional[tuple[int, int]] = field(
        None, "the link between these two nodes (dcsim's numbering: hosts 0..H-1, then the switches)")
    switch: Optional[int] = field(None, "every link of this switch (its node id)", ge=0)
    select: Optional[str] = field(
        None, "links by tier: \"spine 2\" (the switch), \"leaf 0 uplinks\", \"core 1 downlinks\", \"random spine\", "
        "\"random leaf uplink\" (one at random, drawn from the run's seed)")
    one_way: bool = field(False, "only the direction out of `link`'s first node, or out of the switch")
    rate_fraction: float = field(1.0, "degrade: the links run at this fraction of their rate", gt=0, le=1)
    loss: float = field(0.0, "degrade: the fraction of packets they lose, silently", ge=0, le=1)
    detect_us: float = field(DETECT_US, "down: routing leaves the links out of its paths this long after they "
                             "fail, and takes them back this long after the repair (a choice: docs/faults.md)", ge=0)

    @model_validator(mode="after")
    def _one_target(self) -> "Fault":
        named = [k for k in ("link", "switch", "select") if getattr(self, k) is not None]
        if len(named) != 1:
            raise ValueError(f"a fault names one of link, switch or select, got {' and '.join(named) or 'none'}")
        if self.until_ms is not None and self.until_ms <= self.at_ms:
            raise ValueError(f"until_ms ({self.until_ms:g}) must be after at_ms ({self.at_ms:g})")
        if self.kind == "degrade" and self.rate_fraction == 1 and self.loss == 0:
            raise ValueError("a degraded link needs rate_fraction below 1 or loss above 0")
        if self.kind == "down" and (self.rate_fraction != 1 or self.loss != 0):
            raise ValueError("rate_fraction and loss are for kind = \"degrade\"; a link that is down carries nothing")
        if self.select is not None:
            parse_select(self.select)
        return self

    def engine(self) -> dict:
        """The engine's `FaultConfig` (which checks the nodes against the
        fabric, naming the fault: `faults[i]: no link between ...`)."""
        if self.link is not None:
            target = {"kind": "link", "a": self.link[0], "b": self.link[1]}
        elif self.switch is not None:
            target = {"kind": "switch", "node": self.switch}
        else:
            target = parse_select(self.select)
        effect = ({"kind": "down"} if self.kind == "down" else
                  {"kind": "degrade", "rate_fraction": self.rate_fraction, "loss": self.loss})
        return {"at_ps": round(self.at_ms * 1e9), "until_ps": None if self.until_ms is None else round(self.until_ms * 1e9),
                "target": target, "one_way": self.one_way, "effect": effect, "detect_ps": ps(self.detect_us)}
