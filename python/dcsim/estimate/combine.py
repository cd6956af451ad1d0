"""From the links' simulations to each flow's FCT.

What a link adds to a flow (its "excess") is the flow's FCT on the link's
small fabric less its FCT alone there (ideal FCT plus `alone.overhead`),
never below zero (Parsimon, NSDI'23, keeps FCT minus ideal, at least zero;
dcsim subtracts the alone overhead as well, so that a slow start is paid
once). A flow's estimate is its FCT alone on its own path plus the sum of
its links' excesses: its own, measured, on every link that was simulated,
and on a link that a representative stood for (`cluster`), one draw from
the representative's excesses per packet among flows of about its size
(Parsimon's buckets: at least `BUCKET` flows and sizes spanning a factor
`SPAN`), times its packets. Draws are seeded by the run's seed, the flow
and the link, so the estimate does not depend on the order or place the
links ran in."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Parsimon's buckets: at least this many flows...
BUCKET = 100
#: ... and the largest at least this factor over the bucket's lower bound
SPAN = 2.0
#: links of a kind are clustered by load, in bins this factor wide
#: (Parsimon compares 1,000 quantiles of flow sizes and gaps and loads
#: within 0.005: with the few flows a link of a large fabric carries, those
#: differ by chance and nothing clusters; sizes are matched by the buckets)
BIN = 1.5
#: a cluster's representatives, spread over its loads, are simulated until
#: they hold about this many flows (enough for its buckets); the others
#: draw from them
REP_FLOWS = 2000


@dataclass
class Features:
    """A channel's workload as clustering compares it."""

    kind: tuple  # (rate, delay, a NIC, into a host): only alike links stand for each other
    flows: int
    load: float


def features(kind: tuple, start_ps: np.ndarray, size: np.ndarray, rate_bps: int, span_ps: float) -> Features:
    """`span_ps`: the run's arrivals' span, over which a link's load is its
    bytes' share of its capacity."""
    load = float(size.sum()) * 8 / (max(span_ps, 1.0) * 1e-12) / rate_bps
    return Features(kind, len(size), load)


def cluster(feats: dict[int, Features]) -> dict[int, list[int]]:
    """Clusters of alike channels: each representative's cluster (its
    cluster's representatives and the channels they stand for share the
    list). Channels of a kind fall in bins of load `BIN` wide; in each
    bin, in order of load, every k-th is a representative, k such that
    they hold about `REP_FLOWS` flows."""
    bins: dict[tuple, list[int]] = {}
    for c, f in feats.items():
        bins.setdefault((f.kind, int(np.floor(np.log(max(f.load, 1e-9)) / np.log(BIN)))), []).append(c)
    out: dict[int, list[int]] = {}
    for members in bins.values():
        members.sort(key=lambda c: (feats[c].load, c))
        flows = sum(feats[c].flows for c in members)
        step = max(1, int(flows // REP_FLOWS))
        for c in members[step // 2::step]:
            out[c] = members
    return out


def buckets(size: np.ndarray) -> np.ndarray:
    """Upper size bounds of Parsimon's buckets over these (sorted) sizes;
    the last is infinite."""
    bounds = []
    lo, count = 0, 0
    for i, s in enumerate(size):
        count += 1
        last_of_size = i + 1 == len(size) or size[i + 1] != s
        if count >= BUCKET and s >= SPAN * lo and last_of_size:
            bounds.append(int(s))
            lo, count = int(s), 0
    if not bounds or count:
        bounds.append(np.iinfo(np.int64).max)
    else:
        bounds[-1] = np.iinfo(np.int64).max
    return np.asarray(bounds, dtype=np.int64)


@dataclass
class Draws:
    """A representative's excesses per packet, sorted by flow size, and its
    buckets."""

    size: np.ndarray
    per_packet: np.ndarray
    bounds: np.ndarray

    @classmethod
    def of(cls, size: np.ndarray, excess: np.ndarray, packets: np.ndarray) -> "Draws":
        order = np.argsort(size, kind="stable")
        s = size[order].astype(np.int64)
        return cls(s, (excess / packets)[order], buckets(s))

    def draw(self, size: np.ndarray, key: np.ndarray) -> np.ndarray:
        """One excess per packet for each flow of `size`, chosen within its
        bucket by `key` (uniform 64-bit hashes: `keys`)."""
        if not len(self.size):
            return np.full(len(size), np.nan)  # (no representative's flow finished)
        b = np.searchsorted(self.bounds, size)
        lo = np.where(b == 0, 0, np.searchsorted(self.size, self.bounds[np.maximum(b - 1, 0)], side="right"))
        hi = np.searchsorted(self.size, self.bounds[b], side="right")
        empty = hi <= lo
        lo, hi = np.where(empty, 0, lo), np.where(empty, len(self.size), hi)
        return self.per_packet[lo + (key % (hi - lo).astype(np.uint64)).astype(np.int64)]


def keys(seed: int, flow_id: np.ndarray, channel: int) -> np.ndarray:
    """A uniform 64-bit hash of (seed, flow, link) for each flow
    (SplitMix64's finalizer): the draw a flow gets on a link depends on
    nothing else."""
    with np.errstate(over="ignore"):
        z = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + flow_id.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9)
             + np.uint64(channel) * np.uint64(0x94D049BB133111EB))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
