"""Thresholds that split flows over a few strict-priority queues.

- `pias`: PIAS (ToN'17 §III-C, Eq. 1), demotion thresholds on the bytes a
  flow has sent, from an M/M/1 model of each queue. With alpha_0 = 0 and
  alpha_K = infinity, queue l serves the bytes of every flow between
  alpha_{l-1} and alpha_l; its mean delay is T_l = 1 / (1 - lambda *
  E[min(S, alpha_l)]) (the service left over by the queues above it, with
  E[L_j] read as the exact mean number of bytes a flow brings to queue j;
  the paper writes an upper bound, which is infinite for the last queue),
  and a flow larger than alpha_{l-1} waits in queue l:
  objective = sum_l (1 - F(alpha_{l-1})) * T_l.
- `pfabric-eq8`: pFabric Appendix A, Eq. 8, thresholds on the flow's size
  from an M/G/1 model (Pollaczek-Khintchine) of each queue: the mean FCT
  normalized by size.
- `equal-split`: the heuristic both papers compare with (PIAS Fig. 13,
  pFabric Fig. 23(c)): threshold i is the i/K quantile of flow sizes.
- `paper`: the thresholds of the PIAS ns-2 scripts (8 queues; web search
  and data mining at loads 0.5-0.9).

Both objectives are sums of terms that each depend on two neighbouring
thresholds only, so a dynamic program over candidate thresholds finds the
global optimum over those candidates exactly (the PIAS paper used
basin-hopping, a heuristic). Candidates: every size the CDF lists, a
geometric grid between them (60 points per decade: a 10x finer grid finds
objectives lower by at most 0.06%, tests/test_thresholds.py) and the
largest size a flow can have. Sizes are distributed as the engine draws
them (linear interpolation, point masses, rounding up to whole packets when
`quantum` says so); loads are fractions of the link.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

from .errors import SpecError
from .workloads import Cdf, _grid_sizes

METHODS = ("pias", "pfabric-eq8", "equal-split", "paper")

PIAS_SCRIPTS = "PIAS ns-2 scripts (HKUST-SING/PIAS-NS2 run_pias_dctcp.py, run_pias_vl2.py; docs/sources.md §2)"

# PIAS's ns-2 tables: 7 thresholds for 8 queues, in packets of 1460 bytes,
# by workload and load (docs/sources.md §2, checked against the scripts).
PAPER_TABLES: dict[str, dict[float, tuple[int, ...]]] = {
    "web_search": {
        0.9: (759, 1132, 1456, 1737, 2010, 2199, 2325),
        0.8: (909, 1329, 1648, 1960, 2143, 2337, 2484),
        0.7: (999, 1305, 1564, 1763, 1956, 2149, 2309),
        0.6: (956, 1381, 1718, 2028, 2297, 2551, 2660),
        0.5: (1059, 1412, 1643, 1869, 2008, 2115, 2184),
    },
    "data_mining": {
        0.9: (750, 1083, 1416, 13705, 14952, 21125, 28253),
        0.8: (745, 1083, 1391, 13689, 14936, 21149, 27245),
        0.7: (907, 1301, 1619, 12166, 12915, 21313, 26374),
        0.6: (840, 1232, 1617, 11950, 12238, 21494, 25720),
        0.5: (805, 1106, 1401, 10693, 11970, 21162, 22272),
    },
}
PAPER_PACKET = 1460


@dataclass(frozen=True)
class Result:
    method: str
    thresholds: tuple[int, ...]  # bytes, K-1 of them
    objective: Optional[float]  # the method's objective at them (None: a table)


def paper(cdf_name: str, load: float, queues: int = 8) -> Result:
    """The PIAS scripts' thresholds for a shipped workload and load."""
    table = PAPER_TABLES.get(cdf_name)
    if table is None:
        raise SpecError(f"thresholds: the PIAS scripts have tables for {', '.join(PAPER_TABLES)} only, "
                        f"not {cdf_name!r}")
    if queues != 8:
        raise SpecError(f"thresholds: the PIAS scripts' tables are for 8 queues, not {queues}")
    row = table.get(round(load, 2))
    if row is None:
        raise SpecError(f"thresholds: the PIAS scripts have {cdf_name} tables for loads "
                        f"{', '.join(str(x) for x in sorted(table))}, not {load}")
    return Result("paper", tuple(x * PAPER_PACKET for x in row), None)


class _Sizes:
    """The size distribution as a sorted sample (the engine's quantiles of
    2^20 equally likely slices) with prefix sums for the integrals."""

    def __init__(self, cdf: Cdf, quantum: int):
        s = np.sort(_grid_sizes(cdf, quantum))
        self.s = s
        self.n = len(s)
        zero = np.zeros(1)
        self.c1 = np.concatenate([zero, np.cumsum(s)])
        self.c2 = np.concatenate([zero, np.cumsum(s * s)])
        self.cinv = np.concatenate([zero, np.cumsum(1.0 / s)])
        self.mean = self.c1[-1] / self.n

    def index(self, t: np.ndarray) -> np.ndarray:
        """Number of sizes <= t (t = inf: all)."""
        return np.searchsorted(self.s, t, side="right")

    def candidates(self, cdf: Cdf, per_decade: int = 60, quantum: int = 1) -> np.ndarray:
        """A geometric grid of `per_decade` points per decade, the sizes the
        CDF lists, and the largest size a flow can have. That last one is a
        threshold that leaves the queues below it empty, and Eq. 1 can
        prefer it: it charges a flow every queue it passes through, so an
        extra queue for the few largest flows may cost more than it saves
        (web search at 0.5 load: 4 or 8 queues are best used as 2). Without
        it the optimum sat at the grid's last point below the largest size
        and moved with the grid (a 10x finer grid gave up to 1.7% lower
        objectives with 8 queues)."""
        lo, hi = self.s[0], self.s[-1]
        geo = np.geomspace(lo, hi, int(np.ceil(np.log10(hi / lo) * per_decade)) + 2) if hi > lo else np.array([lo])
        knots = np.asarray(cdf.sizes, dtype=np.float64)
        c = np.unique(np.concatenate([geo, knots, self.s[[0]]]))
        c = c[(c >= lo) & (c < hi)]
        # the engine draws sizes up to the CDF's last one (the sample's
        # largest, hi, is a half slice below it)
        top = float(cdf.quantile(np.array([1.0]), quantum)[0])
        return np.append(c, max(top, hi))


def _pias_terms(z: _Sizes, load: float, a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """(1 - F(t_prev)) / (1 - rho * E[min(S, t)] / E[S]) for every pair of
    edges t_prev < t, given as a = index(t_prev), b = index(t) and t."""
    above = 1.0 - a / z.n
    finite = np.where(np.isinf(t), 0.0, t)  # t = inf: every size is below, b = n
    emin = (z.c1[b] + finite * (z.n - b)) / z.n
    left = 1.0 - load * emin / z.mean
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(left > 0, above / left, np.inf)


def _eq8_terms(z: _Sizes, load: float, a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """pFabric Eq. 8's term of the queue serving sizes in (t_prev, t], given
    as a = index(t_prev), b = index(t) (t itself is not needed)."""
    lam = load / z.mean  # flows per unit time, sizes in bytes, link rate 1
    mu_i = 1.0 - load * z.c1[a] / z.c1[-1]
    mu_next = 1.0 - load * z.c1[b] / z.c1[-1]
    count = (b - a) / z.n
    x2 = (z.c2[b] - z.c2[a]) / z.n
    inv = (z.cinv[b] - z.cinv[a]) / z.n
    with np.errstate(divide="ignore", invalid="ignore"):
        v = count / mu_i + lam / (2.0 * mu_next * mu_i) * x2 * inv
        return np.where((mu_i > 0) & (mu_next > 0), v, np.inf)


TERMS = {"pias": _pias_terms, "pfabric-eq8": _eq8_terms}


@lru_cache(maxsize=8)
def _sizes(cdf: Cdf, quantum: int) -> _Sizes:
    return _Sizes(cdf, quantum)


def objective(method: str, cdf: Cdf, load: float, thresholds: list[float], quantum: int = 1) -> float:
    """The method's objective at the given thresholds (bytes)."""
    z = _sizes(cdf, quantum)
    edges = np.array([0.0, *thresholds, np.inf])
    i = z.index(edges)
    return float(np.sum(TERMS[method](z, load, i[:-1], i[1:], edges[1:])))


def optimize(method: str, cdf: Cdf, load: float, queues: int, quantum: int = 1,
             candidates: Optional[np.ndarray] = None) -> Result:
    """The K-1 thresholds (bytes) that minimize the method's objective over
    the candidates, found exactly by dynamic programming."""
    if method not in TERMS:
        raise SpecError(f"thresholds: no optimizer {method!r} (choose from {', '.join(TERMS)})")
    _check(load, queues)
    z = _sizes(cdf, quantum)
    c = z.candidates(cdf, quantum=quantum) if candidates is None else np.unique(np.asarray(candidates, dtype=np.float64))
    terms = TERMS[method]
    if queues == 1:
        return Result(method, (), float(terms(z, load, np.array([0]), np.array([z.n]), np.array([np.inf]))[0]))
    g = len(c)
    # each candidate's index in the sizes, once (not once per pair)
    ic = z.index(c)
    # best[j]: the least cost of the queues above one whose lower edge is c[j]
    best = terms(z, load, np.zeros(g, dtype=ic.dtype), ic, c)
    back: list[np.ndarray] = []
    # pair[i, j]: a middle queue from c[i] to c[j] (empty when i == j; only i <= j)
    below, upper = np.meshgrid(ic, ic, indexing="ij")
    pair = terms(z, load, below, upper, np.broadcast_to(c, (g, g)))
    pair[np.tril_indices(g, -1)] = np.inf
    del below, upper
    for _ in range(queues - 2):
        total = best[:, None] + pair
        arg = np.argmin(total, axis=0)
        back.append(arg)
        best = total[arg, np.arange(g)]
    last = best + terms(z, load, ic, np.full(g, z.n), np.full(g, np.inf))
    j = int(np.argmin(last))
    value = float(last[j])
    picks = [j]
    for arg in reversed(back):
        j = int(arg[j])
        picks.append(j)
    return Result(method, tuple(int(round(c[k])) for k in reversed(picks)), value)


def equal_split(cdf: Cdf, queues: int, quantum: int = 1) -> Result:
    """Threshold i at the i/K quantile of flow sizes (by number of flows)."""
    _check(0.5, queues)
    z = _sizes(cdf, quantum)
    qs = [z.s[min(z.n - 1, int(np.ceil(z.n * i / queues)) - 1)] for i in range(1, queues)]
    return Result("equal-split", tuple(int(x) for x in qs), None)


def empty_queues(ts: list[int] | tuple[int, ...], largest: float) -> str:
    """'' if every one of the K queues that K-1 thresholds `ts` make can
    get flows up to `largest` bytes; else what leaves queues without
    flows: a threshold equal to the one below it, or at or past the
    largest flow ('thresholds 2-7 are at or past the largest flow
    (30,000,000 B): queues 3-8 get no flows')."""
    queues = len(ts) + 1
    said = []
    past = [i + 1 for i, t in enumerate(ts) if t >= largest]
    same = [i + 1 for i, t in enumerate(ts) if i and t == ts[i - 1] and t < largest]
    if same:
        many = len(same) > 1
        said.append(f"threshold{'s' if many else ''} {', '.join(map(str, same))} "
                    f"{'equal their' if many else 'equals its'} predecessor: queue{'s' if many else ''} "
                    f"{', '.join(map(str, same))} get{'' if many else 's'} no flows")
    if past:
        first = past[0]
        which = f"thresholds {first}-{len(ts)} are" if first < len(ts) else f"threshold {first} is"
        below = f"queues {first + 1}-{queues} get" if first + 1 < queues else f"queue {queues} gets"
        said.append(f"{which} at or past the largest flow ({largest:,.0f} B): {below} no flows")
    return "; ".join(said)


def _check(load: float, queues: int) -> None:
    if not 0 < load < 1:
        raise SpecError(f"thresholds: load must be in (0, 1), got {load}")
    if not 1 <= queues <= 64:
        raise SpecError(f"thresholds: queues must be 1..64, got {queues}")


def thresholds(method: str, cdf_name: str, cdf: Cdf, load: float, queues: int, quantum: int = 1) -> Result:
    """Any method by name (the CLI's and the schemes' entry point)."""
    if method == "paper":
        return paper(cdf_name, load, queues)
    if method == "equal-split":
        return equal_split(cdf, queues, quantum)
    if method in TERMS:
        return optimize(method, cdf, load, queues, quantum)
    raise SpecError(f"thresholds: unknown method {method!r} (choose from {', '.join(METHODS)})")
