"""Flow-size distributions and flow traces.

A CDF file has two columns, ``size cdf`` (bytes, cumulative probability),
one row per line; ``#`` starts a comment and a first line of column names is
skipped. A CDF given in percent (ending at 100) is accepted and divided by
100. The three-column tables of ns-2's ``RandomVariable/Empirical`` (as the
pFabric and PIAS scripts ship them: ``value weight cdf``) are read as they
are, using the first and last columns. Sizes are multiplied by the spec's
``cdf_unit_bytes`` (1460 for those packet-count tables). Sizes are drawn by
linear interpolation between rows; equal sizes with increasing probability
form a point mass.

A trace file has one flow per line, separated by spaces, tabs or commas:
``time_s src dst size_bytes`` (format ``dcsim``), or the HPCC simulator's
flow file (format ``hpcc``): a first line with the number of flows, then
``src dst priority dport size_bytes start_s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from .errors import SpecError

if TYPE_CHECKING:
    import numpy as np

# numpy is imported where it is used, so that reading the registry of
# shipped workloads (`dcsim list`) stays fast.


@dataclass(frozen=True)
class ShippedWorkload:
    name: str
    file: str
    description: str
    source: str


SHIPPED = {
    w.name: w
    for w in [
        ShippedWorkload(
            "web_search",
            "web_search.txt",
            "web search cluster (mean 1.67 MB, 15% of flows are 6 packets, max 29 MB)",
            "DCTCP, SIGCOMM 2010; as used by pFabric and PIAS",
        ),
        ShippedWorkload(
            "data_mining",
            "data_mining.txt",
            "data mining cluster (mean 7.47 MB, half the flows are 1 packet, max 973 MB)",
            "VL2, SIGCOMM 2009; as used by pFabric and PIAS",
        ),
    ]
}


@dataclass(frozen=True)
class Cdf:
    """A validated flow-size CDF."""

    sizes: tuple[float, ...]
    probs: tuple[float, ...]
    origin: str

    def rows(self) -> list[tuple[float, float]]:
        return list(zip(self.sizes, self.probs))

    def quantile(self, u: np.ndarray, quantum: int = 1) -> np.ndarray:
        """Inverse CDF, exactly as the engine samples it (workload.rs)."""
        import numpy as np

        sizes = np.asarray(self.sizes)
        probs = np.asarray(self.probs)
        i = np.searchsorted(probs, u, side="left")
        i_hi = np.clip(i, 1, len(probs) - 1)
        p0, p1 = probs[i_hi - 1], probs[i_hi]
        s0, s1 = sizes[i_hi - 1], sizes[i_hi]
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(p1 > p0, s0 + (u - p0) / (p1 - p0) * (s1 - s0), s1)
        x = np.where(i == 0, sizes[0], x)
        x = np.where(i >= len(probs), sizes[-1], x)
        return np.maximum(np.ceil(x / quantum) * quantum, 1)

    def mean(self, quantum: int = 1) -> float:
        """Mean flow size in bytes, as the engine draws them."""
        return _exact_mean(self.quantile(_grid(), quantum))

    def mean_wire_bytes(self, mss: int, header: int, quantum: int = 1) -> float:
        """Mean bytes on the wire per flow: payload plus one header per packet."""
        import numpy as np

        s = self.quantile(_grid(), quantum)
        return _exact_mean(s + np.ceil(s / mss) * header)


def _exact_mean(x: np.ndarray) -> float:
    # math.fsum is exactly rounded, so the arrival rate derived from this
    # mean (and hence every arrival time) is the same bit for bit whatever
    # numpy's summation order on this machine.
    return math.fsum(x.tolist()) / len(x)


@lru_cache(maxsize=1)
def _grid() -> np.ndarray:
    # Midpoints of 2^20 equal slices of [0, 1): the integral of the inverse
    # CDF to well under 0.1% for the tables we ship.
    import numpy as np

    n = 1 << 20
    return (np.arange(n) + 0.5) / n


def _numbers(line: str) -> list[str]:
    return line.replace(",", " ").replace("\t", " ").split()


def parse_cdf(text: str, origin: str, unit: float = 1.0) -> Cdf:
    rows: list[tuple[float, float]] = []
    first = True
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = _numbers(line)
        try:
            vals = [float(p) for p in parts]
        except ValueError:
            if first:  # a header row of column names
                first = False
                continue
            raise SpecError(f"{origin}:{lineno}: expected two numbers 'size cdf', got {raw.strip()!r}")
        first = False
        if len(vals) not in (2, 3):
            raise SpecError(
                f"{origin}:{lineno}: expected two columns 'size cdf' (or ns-2's three), got {len(vals)}"
            )
        rows.append((vals[0] * unit, vals[-1]))
    if not rows:
        raise SpecError(f"{origin}: no rows; a CDF file has lines 'size cdf'")
    if abs(rows[-1][1] - 100.0) < 1e-6:  # percent
        rows = [(s, p / 100.0) for s, p in rows]
    for i, (s, p) in enumerate(rows):
        if not (math.isfinite(s) and s >= 0):
            raise SpecError(f"{origin}: row {i + 1}: size must be >= 0, got {s}")
        if not (0.0 <= p <= 1.0):
            raise SpecError(f"{origin}: row {i + 1}: cdf must be in [0, 1], got {p}")
        if i:
            (s0, p0) = rows[i - 1]
            for column, before, now in (("size", s0, s), ("cdf", p0, p)):
                if now < before:
                    raise SpecError(
                        f"{origin}: row {i + 1}: the {column} column decreases ({before:g} then {now:g}); "
                        "sizes and probabilities must both be non-decreasing"
                    )
    if abs(rows[-1][1] - 1.0) > 1e-6:
        raise SpecError(f"{origin}: CDF must end at 1, ends at {rows[-1][1]:g}")
    if rows[-1][0] <= 0:
        raise SpecError(f"{origin}: largest flow size must be > 0")
    rows[-1] = (rows[-1][0], 1.0)
    return Cdf(tuple(s for s, _ in rows), tuple(p for _, p in rows), origin)


def load_cdf(name_or_path: str, base: Path | None = None, unit: float = 1.0) -> Cdf:
    """A shipped workload by name (sizes in bytes), or a CDF file by path
    (sizes times `unit` bytes)."""
    if name_or_path in SHIPPED:
        text = resources.files("dcsim.data.workloads").joinpath(SHIPPED[name_or_path].file).read_text()
        return parse_cdf(text, name_or_path)
    path = Path(name_or_path)
    if base is not None and not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise SpecError(
            f"workload.cdf: {name_or_path!r} is neither a shipped workload "
            f"({', '.join(SHIPPED)}) nor a readable file"
        )
    return parse_cdf(path.read_text(), str(path), unit)


TRACE_FORMATS = {
    # format: (fields, column of time, src, dst, size; description)
    "dcsim": (4, 0, 1, 2, 3, "time_s src dst size_bytes"),
    "hpcc": (6, 5, 0, 1, 4, "src dst priority dport size_bytes start_s"),
}


def load_trace(path_str: str, hosts: int, base: Path | None = None,
               fmt: str = "dcsim", limit: Optional[int] = None) -> list[tuple[int, int, int, int]]:
    """Read a flow trace; returns ``(start_ps, src, dst, size)`` sorted by
    start time; with `limit`, at most the first `limit` flows (by start
    time, then file order)."""
    path = Path(path_str)
    if base is not None and not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise SpecError(f"workload.trace: no such file {path_str!r}")
    n_fields, ct, cs, cd, cz, desc = TRACE_FORMATS[fmt]
    flows = []
    declared = None
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = _numbers(line)
        where = f"{path}:{lineno}"
        if fmt == "hpcc" and declared is None and not flows:
            if len(parts) != 1 or not parts[0].isdigit():
                raise SpecError(f"{where}: an HPCC flow file starts with the number of flows")
            declared = int(parts[0])
            continue
        if len(parts) != n_fields:
            if fmt == "dcsim" and not flows and not any(c.isdigit() for c in line):
                continue  # header row
            raise SpecError(f"{where}: expected {n_fields} fields '{desc}', got {len(parts)}")
        try:
            t = float(parts[ct])
            src, dst, size = int(parts[cs]), int(parts[cd]), int(float(parts[cz]))
        except ValueError:
            raise SpecError(f"{where}: fields must be numbers: {raw.strip()!r}") from None
        if not (math.isfinite(t) and t >= 0):
            raise SpecError(f"{where}: time must be >= 0, got {parts[ct]}")
        for field, h in (("src", src), ("dst", dst)):
            if not 0 <= h < hosts:
                raise SpecError(f"{where}: {field} {h} is not a host of this topology (0..{hosts - 1})")
        if src == dst:
            raise SpecError(f"{where}: src and dst are the same host ({src})")
        if size <= 0:
            raise SpecError(f"{where}: size must be a positive number of bytes, got {parts[cz]}")
        flows.append((round(t * 1e12), src, dst, size))
    if not flows:
        raise SpecError(f"{path}: the trace holds no flows")
    if declared is not None and declared != len(flows):
        raise SpecError(f"{path}: the first line declares {declared} flows but the file has {len(flows)}")
    flows.sort(key=lambda f: f[0])
    return flows if limit is None else flows[:limit]


#: The seed stream of Poisson query times (apart from the engine's streams).
QUERY_STREAM = 0x7175657279


def _times(per_s: float, count: Optional[int], start: int, horizon: int, poisson: bool, rng) -> "np.ndarray":
    """Times (ps) of a periodic or Poisson stream from `start`: `count` of
    them, or as many as start before `horizon` (at least one)."""
    import numpy as np

    gap = 1e12 / per_s
    n = count if count is not None else max(math.ceil((horizon - start) / gap) - 1, 1)
    if not poisson:
        return start + np.round(gap * np.arange(1, n + 1)).astype(np.int64)
    t = start + np.round(np.cumsum(rng.exponential(gap, n if count is not None else 2 * n + 16))).astype(np.int64)
    if count is None:
        t = t[t < horizon] if (t < horizon).any() else t[:1]
    return t


def with_extras(config: dict, spec) -> tuple[dict, "np.ndarray", "np.ndarray"]:
    """The workload of `config` (a resolved engine configuration without
    queries or pings) with the spec's queries and pings on top (PIAS
    §V-B): merged by start time (the workload's flow first on a tie, then
    queries, then pings; a query's answers in host order). Returns the
    engine's trace workload and, per flow id, its kind (0: the workload's,
    1: a query's answer, 2: a ping) and its query or ping number (-1 for
    the workload's)."""
    import json

    import numpy as np

    from ._core import sample_flows

    w, hosts, seed = spec.workload, spec.topology.host_count(), spec.seed
    bg = sample_flows(json.dumps(config))
    t_bg = np.asarray(bg["start_ps"], dtype=np.int64)
    start = round(w.start_us * 1e6)
    last = int(t_bg[-1]) if len(t_bg) else start
    cols = [(t_bg, np.asarray(bg["src"], dtype=np.int64), np.asarray(bg["dst"], dtype=np.int64),
             np.asarray(bg["size_bytes"], dtype=np.int64), np.full(len(t_bg), -1, dtype=np.int64), 0)]
    if w.queries is not None:
        q = w.queries
        t = _times(q.per_s, q.count, start, last, q.spacing == "poisson",
                   np.random.default_rng([seed, QUERY_STREAM]))
        servers = np.array([h for h in range(hosts) if h != w.dst], dtype=np.int64)
        k = len(servers)
        cols.append((np.repeat(t, k), np.tile(servers, len(t)), np.full(len(t) * k, w.dst, dtype=np.int64),
                     np.full(len(t) * k, q.response_bytes, dtype=np.int64), np.repeat(np.arange(len(t)), k), 1))
    if w.pings is not None:
        p = w.pings
        stop = spec.run.stop_time_s
        t = _times(p.per_s, p.count, start, round(stop * 1e12) if stop else last, False, None)
        n = len(t)
        cols.append((t, np.full(n, p.src, dtype=np.int64), np.full(n, p.dst, dtype=np.int64),
                     np.full(n, p.bytes, dtype=np.int64), np.arange(n), 2))
    start_ps, src, dst, size, group = (np.concatenate([c[i] for c in cols]) for i in range(5))
    kind = np.concatenate([np.full(len(c[0]), c[5], dtype=np.int64) for c in cols])
    order = np.lexsort((kind, start_ps))  # by time, then kind; stable otherwise
    flows = np.stack([start_ps, src, dst, size], axis=1)[order].tolist()
    return {"kind": "trace", "flows": flows}, kind[order], group[order]
