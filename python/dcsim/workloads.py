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
        ShippedWorkload(
            "google_rpc",
            "google_rpc.txt",
            "Google datacenter RPCs, all applications (mean 2.9 KB, half under 270 B, max 15 MB)",
            "Homa W3, SIGCOMM 2018; as used by BFC (NSDI 2022)",
        ),
        ShippedWorkload(
            "fb_hadoop",
            "fb_hadoop.txt",
            "Facebook Hadoop cluster (mean 128 KB, max 10 MB)",
            "Roy et al., SIGCOMM 2015, as Homa W4 (SIGCOMM 2018); as used by BFC (NSDI 2022)",
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
        return _exact_mean(_grid_sizes(self, quantum))

    def mean_wire_bytes(self, mss: int, header: int, quantum: int = 1) -> float:
        """Mean bytes on the wire per flow: payload plus one header per packet."""
        return _mean_wire_bytes(self, mss, header, quantum)


@lru_cache(maxsize=32)
def _mean_wire_bytes(cdf: Cdf, mss: int, header: int, quantum: int) -> float:
    # (a run resolves its spec more than once: its caveats, then the run)
    import numpy as np

    s = _grid_sizes(cdf, quantum)
    # s + ceil(s / mss) * header, in place (addition commutes exactly):
    # fresh arrays of 2^20 floats cost this VM up to 20 ms each to map
    wire = np.divide(s, mss)
    np.ceil(wire, out=wire)
    wire *= header
    wire += s
    return _exact_mean(wire)


def _exact_mean(x: np.ndarray) -> float:
    # The sum exactly rounded, so the arrival rate derived from this mean
    # (and hence every arrival time) is the same bit for bit whatever
    # numpy's summation order on this machine. `x` holds whole numbers of
    # bytes (sizes rounded up as the engine draws them, and whole headers):
    # their integer sum is exact, and float() rounds it as math.fsum would
    # (in a millisecond, not the tenth of a second fsum took over 2^20
    # sizes).
    import numpy as np

    if len(x) and float(x.max()) * len(x) < 2.0**62:
        return float(int(np.sum(x, dtype=np.int64))) / len(x)
    return math.fsum(x.tolist()) / len(x)


def _grid_sizes(cdf: Cdf, quantum: int) -> np.ndarray:
    """`cdf.quantile(_grid(), quantum)`, the same to the bit, a segment of
    the CDF at a time: the grid is sorted, so each segment's points are a
    slice of it, and the same arithmetic on scalars spares the gathers and
    selects over all 2^20 points (0.1 s of every run's start)."""
    import numpy as np

    u = _grid()
    sizes, probs = np.asarray(cdf.sizes), np.asarray(cdf.probs)
    # grid points at or below each probability (searchsorted(probs, u,
    # "left") counts the probabilities below a point)
    ends = np.searchsorted(u, probs, side="right")
    x = np.empty_like(u)
    x[:ends[0]] = sizes[0]
    for j in range(1, len(probs)):
        seg = u[ends[j - 1]:ends[j]]
        p0, p1, s0, s1 = probs[j - 1], probs[j], sizes[j - 1], sizes[j]
        x[ends[j - 1]:ends[j]] = s0 + (seg - p0) / (p1 - p0) * (s1 - s0) if p1 > p0 else s1
    x[ends[-1]:] = sizes[-1]
    np.divide(x, quantum, out=x)
    np.ceil(x, out=x)
    np.multiply(x, quantum, out=x)
    return np.maximum(x, 1, out=x)


def _exact_mean(x: np.ndarray) -> float:
    # The sum exactly rounded, so the arrival rate derived from this mean
    # (and hence every arrival time) is the same bit for bit whatever
    # numpy's summation order on this machine. Sizes are whole bytes: an
    # integer sum is exact, and float() rounds it as math.fsum would (in
    # a millisecond, not the tenth of a second fsum took over 2^20 sizes).
    import numpy as np

    if len(x) and np.all(x == np.floor(x)) and float(np.abs(x).max()) * len(x) < 2.0**62:
        return float(int(x.astype(np.int64).sum())) / len(x)
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
    lines: list[int] = []  # each row's line in the file, for errors
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
        lines.append(lineno)
    if not rows:
        raise SpecError(f"{origin}: no rows; a CDF file has lines 'size cdf'")
    percent = abs(rows[-1][1] - 100.0) < 1e-6
    if percent:
        rows = [(s, p / 100.0) for s, p in rows]
    # round-off above 1 (a table summed in floating point) is 1
    rows = [(s, 1.0 if 1.0 < p <= 1.0 + 1e-9 else p) for s, p in rows]
    if rows[-1][1] > 1.0:
        raise SpecError(f"{origin}:{lines[-1]}: the cdf column ends at {rows[-1][1]!r}: it must end at 1 (or at "
                        "100 for a CDF in percent)")
    for i, (s, p) in enumerate(rows):
        at = f"{origin}:{lines[i]}"
        if not (math.isfinite(s) and s >= 0):
            raise SpecError(f"{at}: size must be >= 0, got {s}")
        if s < 1 and p > 0 and (i == 0 or rows[i - 1][0] == s):
            # a point mass below one byte: flows with nothing to send
            # (which the engine would make one byte)
            raise SpecError(f"{at}: {100 * p:g}% of flows would be {s:g} bytes; a flow carries at least one byte "
                            f"(a CDF starts 'SIZE 0', SIZE >= 1, or '0 0')")
        if not (0.0 <= p <= 1.0):
            scale = " (in percent: 0 to 100)" if percent else ""
            raise SpecError(f"{at}: cdf must be in [0, 1]{scale}, got {100 * p if percent else p:g}")
        if i:
            (s0, p0) = rows[i - 1]
            for column, before, now in (("size", s0, s), ("cdf", p0, p)):
                if now < before:
                    raise SpecError(
                        f"{at}: the {column} column decreases ({before:g} then {now:g}); "
                        "sizes and probabilities must both be non-decreasing"
                    )
    if abs(rows[-1][1] - 1.0) > 1e-6:
        raise SpecError(f"{origin}:{lines[-1]}: the cdf column must end at 1 (or 100 in percent), ends at "
                        f"{rows[-1][1]:g}")
    if rows[-1][0] <= 0:
        raise SpecError(f"{origin}: largest flow size must be > 0")
    rows[-1] = (rows[-1][0], 1.0)
    return Cdf(tuple(s for s, _ in rows), tuple(p for _, p in rows), origin)


def load_cdf(name_or_path: str, base: Path | None = None, unit: float = 1.0, field: str = "workload.cdf") -> Cdf:
    """A shipped workload by name (sizes in bytes), or a CDF file by path
    (sizes times `unit` bytes); errors name the spec `field` it came from."""
    if name_or_path in SHIPPED:
        text = resources.files("dcsim.data.workloads").joinpath(SHIPPED[name_or_path].file).read_text()
        return parse_cdf(text, name_or_path)
    path = Path(name_or_path)
    if base is not None and not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise SpecError(
            f"{field}: {name_or_path!r} is neither a shipped workload "
            f"({', '.join(SHIPPED)}) nor a readable file"
        )
    return parse_cdf(path.read_text(), str(path), unit)


TRACE_FORMATS = {
    # format: (fields, column of time, src, dst, size; description)
    "dcsim": (4, 0, 1, 2, 3, "time_s src dst size_bytes"),
    "hpcc": (6, 5, 0, 1, 4, "src dst priority dport size_bytes start_s"),
}


def load_trace(path_str: str, hosts: int, base: Path | None = None,
               fmt: str = "dcsim", limit: Optional[int] = None,
               node_ids: Optional[dict[int, int]] = None) -> list[tuple[int, int, int, int]]:
    """Read a flow trace; returns ``(start_ps, src, dst, size)`` sorted by
    start time; with `limit`, at most the first `limit` flows (by start
    time, then file order). With `node_ids` (a topology file's ids to
    dcsim's node numbers, hosts first), the trace names nodes by the
    topology file's ids, as the HPCC simulator's flow files do."""
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
            src, dst, size_f = int(parts[cs]), int(parts[cd]), float(parts[cz])
        except ValueError:
            raise SpecError(f"{where}: fields must be numbers: {raw.strip()!r}") from None
        if math.isfinite(size_f) and not size_f.is_integer():
            raise SpecError(f"{where}: size must be a whole number of bytes, got {parts[cz]}")
        size = int(size_f) if math.isfinite(size_f) else 0
        if not (math.isfinite(t) and t >= 0):
            raise SpecError(f"{where}: time must be >= 0, got {parts[ct]}")
        if node_ids is not None:
            for field, h in (("src", src), ("dst", dst)):
                if node_ids.get(h, hosts) >= hosts:
                    raise SpecError(f"{where}: {field} {h} is not a host of the topology file (a switch, or no node)")
            src, dst = node_ids[src], node_ids[dst]
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

