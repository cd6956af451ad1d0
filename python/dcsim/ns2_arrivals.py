"""The flow arrivals of the pFabric and PIAS ns-2 scripts, draw for draw.

The scripts (docs/sources.md §1) give every ordered host pair (i, j) its own
Poisson process at 1/(hosts - 1) of a host's flow rate, with two ns-2
random number generators of its own: `$rng seed 17*i + 1244*j` for the
gaps and `$rng seed 33*i + 4369*j` for the sizes. ns-2's RNG is
L'Ecuyer's MRG32k3a, and `seed s` sets all six words of its state to s
(ns-2 tools/rng.cc, `RNG::set_seed`), so a pair's first draws are close to
linear functions of its seed: across pairs they form a lattice, not
independent draws (over 20,000 flows sources are loaded more evenly and
destinations less evenly than independent draws would load them;
docs/workloads.md measures it).
Sizes come from ns-2's `RandomVariable/Empirical` with `interpolation_ 2`
(linear between rows, rounded up) in whole packets.

What this module reproduces, checked against a run of the scripts
(tests/data/ns2_starts_web_search_0.8.txt): every flow's start time (to
the last bit of ns-2's clock, which counts from 1 s), source, destination
and size, given the scripts' packet size as `size_quantum_bytes` and
their mean flow size as `rate_mean_bytes`. The MRG32k3a constants are
L'Ecuyer's published ones (Operations Research 47(1), 1999; RngStreams)."""

from __future__ import annotations

import numpy as np

_M1, _M2 = 4294967087.0, 4294944443.0
_A12, _A13N, _A21, _A23N = 1403580.0, 810728.0, 527612.0, 1370589.0
_NORM = 2.328306549295727688e-10  # 1 / (m1 + 1)

#: ns-2 starts the scripts' flow generators at this simulated time (s).
NS2_START_S = 1.0


class Streams:
    """Many MRG32k3a streams stepped together (one per host pair), each
    seeded as ns-2 seeds an RNG: all six state words equal to the seed.
    The arithmetic is ns-2's `RNG::U01` in doubles, so the draws are
    bit-identical to its."""

    def __init__(self, seeds: np.ndarray):
        s = np.asarray(seeds, dtype=np.float64)
        if np.any(s <= 0):
            raise ValueError("ns-2 RNG seeds must be positive")
        self.state = np.repeat(s[:, None], 6, axis=1)

    def u01(self) -> np.ndarray:
        c = self.state
        p1 = _A12 * c[:, 1] - _A13N * c[:, 0]
        p1 -= np.trunc(p1 / _M1) * _M1
        p1[p1 < 0.0] += _M1
        c[:, 0:2] = c[:, 1:3]
        c[:, 2] = p1
        p2 = _A21 * c[:, 5] - _A23N * c[:, 3]
        p2 -= np.trunc(p2 / _M2) * _M2
        p2[p2 < 0.0] += _M2
        c[:, 3:5] = c[:, 4:6]
        c[:, 5] = p2
        return np.where(p1 > p2, (p1 - p2) * _NORM, (p1 - p2 + _M1) * _NORM)


def empirical(u: np.ndarray, values: np.ndarray, cdf: np.ndarray) -> np.ndarray:
    """ns-2's `EmpiricalRandomVariable::value` with `interpolation_ 2`: the
    first row whose CDF is at least u; between it and the row before, a
    linear interpolation rounded up (a draw equal to a row's CDF takes the
    row's value)."""
    mid = np.searchsorted(cdf, u, side="left")
    mid = np.minimum(mid, len(cdf) - 1)
    mid[u <= cdf[0]] = 0
    lo = np.maximum(mid - 1, 0)
    inter = (mid > 0) & (u < cdf[mid])
    with np.errstate(divide="ignore", invalid="ignore"):
        v = values[lo] + (u - cdf[lo]) * (values[mid] - values[lo]) / (cdf[mid] - cdf[lo])
    return np.where(inter, np.ceil(v), values[mid])


def _through_tcl(x: np.ndarray) -> np.ndarray:
    """A random variable's value as the scripts see it: ns-2 hands it to Tcl
    as text, `%6e` (tools/ranvar.cc, `RandomVariable::command`), so every
    gap is rounded to 7 significant digits before it is added up."""
    return np.char.mod("%.6e", x).astype(np.float64)


def flows(hosts: int, host_rate_per_s: float, rows: list[tuple[float, float]], quantum: int,
          n: int) -> np.ndarray:
    """The first `n` flows of the scripts' generator, by start time:
    an array of (start_s, src, dst, size_bytes) with start_s counted from
    the generators' start. `host_rate_per_s`: flows per second from each
    host (the scripts' lambda); `rows`: the CDF as (size_bytes, cdf) rows,
    sizes in multiples of `quantum` (the scripts' table is in packets)."""
    if hosts < 2:
        raise ValueError("the scripts' generator needs at least two hosts")
    values = np.array([r[0] for r in rows], dtype=np.float64) / quantum
    cdf = np.array([r[1] for r in rows], dtype=np.float64)
    # the scripts' loops: for j (destination), for i (source), i != j
    j, i = np.divmod(np.arange(hosts * hosts), hosts)
    keep = i != j
    src, dst = i[keep], j[keep]
    gaps, sizes = Streams(17 * src + 1244 * dst), Streams(33 * src + 4369 * dst)
    mean_gap = (hosts - 1) / host_rate_per_s
    # init_schedule: the first arrival, in ns-2's clock (the generators
    # start at NS2_START_S), added up as the scripts' Tcl does
    t = NS2_START_S + _through_tcl(-mean_gap * np.log(gaps.u01()))
    times, size_cols = [], []
    # Round k gives every pair its k-th arrival; stop once no pair's next
    # arrival can come before the n-th earliest so far.
    while True:
        times.append(t.copy())
        size_cols.append(np.ceil(empirical(sizes.u01(), values, cdf)) * quantum)
        t = t + _through_tcl(-mean_gap * np.log(gaps.u01()))
        total = len(times) * len(src)
        if total >= n:
            nth = np.partition(np.concatenate(times), n - 1)[n - 1]
            if t.min() > nth:
                break
    start = np.concatenate(times)
    order = np.argsort(start, kind="stable")[:n]
    k = len(times)
    out = np.empty((n, 4))
    out[:, 0] = start[order] - NS2_START_S
    out[:, 1] = np.tile(src, k)[order]
    out[:, 2] = np.tile(dst, k)[order]
    out[:, 3] = np.concatenate(size_cols)[order]
    return out
