"""Stored results, read in one place: the layout of a run's directory
(`flows.parquet`, `summary.json`, the sampler's tables) and of a sweep's
(`sweep.json`, `points/<key>/`), and the readers every part of dcsim uses
on them (`dcsim.read_flows`, `dcsim.read_sweep`, `dcsim show`, the
figures and the report). Writing them is the runner's (`simulate.py`,
`runner.py`); this module imports neither."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from .errors import SpecError

if TYPE_CHECKING:
    import pandas as pd


def point_dir(out: Path, key: str) -> Path:
    return Path(out) / "points" / key


def is_complete(out: Path, key: str) -> bool:
    return (point_dir(out, key) / "summary.json").is_file()


def load_points(out: str | Path) -> list[dict]:
    """The complete points of a sweep directory: each summary (with its
    `point.params`), in sweep order."""
    out = Path(out)
    info = json.loads((out / "sweep.json").read_text())
    rows = []
    for p in info["points"]:
        f = point_dir(out, p["key"]) / "summary.json"
        if f.is_file():
            rows.append(json.loads(f.read_text()))
    return rows


def read_flows(out: str | Path) -> pd.DataFrame:
    """The flow table of a run's directory (`dcsim run --out`, or a sweep's
    ``points/<key>``), with its summary in ``attrs["summary"]`` as `run`
    gives it."""
    out = Path(out)
    if not (out / "flows.parquet").is_file():
        hint = " (a sweep's directory: read_sweep, or one of its points/<key>)" if (out / "sweep.json").is_file() else ""
        raise SpecError(f"read_flows: {out} holds no flows.parquet{hint}")
    import pandas as pd

    df = pd.read_parquet(out / "flows.parquet")
    if (out / "summary.json").is_file():
        df.attrs["summary"] = Summary(json.loads((out / "summary.json").read_text()))
    return df


class Summary(dict):
    """A run's summary as ``df.attrs["summary"]`` holds it: a plain dict
    that pandas shares, not copies, between the frames derived from the
    table (pandas deep-copies `attrs` at every operation, and a summary of
    tens of KB made a filter 20x slower)."""

    def __deepcopy__(self, memo):
        return self


def _restat(directory: Path, summary: dict, bins: Optional[Sequence[float]]) -> dict:
    """The statistics with other bins, from the run's flow table."""
    import pandas as pd

    from .metrics import summarize

    import pyarrow.parquet as pq

    names = pq.read_schema(directory / "flows.parquet").names
    # (the incasts': the background's table, as the run's)
    cols = [c for c in ("size_bytes", "slowdown", "start_s", "ideal_fct_s", "incast") if c in names]
    flows = pd.read_parquet(directory / "flows.parquet", columns=cols)
    stats = summarize(flows, summary, bins=bins)
    for key in ("queries", "pings", "incasts", "background"):  # not by size: as the run computed them
        if key in summary.get("stats", {}):
            stats[key] = summary["stats"][key]
    return stats


def stats_of(directory: Path, summary: dict, bins: Optional[Sequence[float]]) -> dict:
    if bins is None and "stats" in summary:
        return summary["stats"]
    return _restat(directory, summary, bins)  # other bins, or a run from before summaries had stats


def read_sweep(directory: str | Path, bins: Optional[Sequence[float]] = None):
    """A sweep's (or a figure's) complete points as a pandas DataFrame, one
    row per point: `key`, a column per grid field (`variant` included),
    `flows`, `unfinished`, `drop_rate` (of data packets), `timeouts`, and
    per size bin `<bin> flows`, `<bin> mean` and `<bin> p99` of the
    slowdown (`all` for every flow; the papers' bins unless `bins`, edges
    in bytes, are given: then recomputed from each point's flows)."""
    import pandas as pd

    d = Path(directory)
    if not (d / "sweep.json").is_file():
        raise SpecError(f"read_sweep: {d} holds no sweep (no sweep.json); give a directory written by dcsim sweep "
                        "or reproduce")
    grid = list(json.loads((d / "sweep.json").read_text())["grid"])
    rows = []
    points = load_points(d)
    if not points:  # none complete yet: the columns that name the points
        return pd.DataFrame(columns=["key", *grid])
    for s in points:
        st = stats_of(point_dir(d, s["point"]["key"]), s, bins)
        row = {"key": s["point"]["key"], **{g: s["point"]["params"].get(g) for g in grid},
               "flows": s["flows_finished"], "unfinished": s["unfinished_flows"],
               "drop_rate": st["drops"]["of_data_packets"], "timeouts": st.get("timeouts")}
        for b in st["by_size"]:
            row |= {f"{b['bin']} flows": b["flows"], f"{b['bin']} mean": b["mean"], f"{b['bin']} p99": b["p99"]}
        rows.append(row)
    return pd.DataFrame(rows)


def unsettled(stats: dict) -> str:
    """The size bins whose mean slowdown moved over a run (its summary's
    `stats["settling"]`, `metrics.settling`), in brief: '(100KB, 10MB]
    +37%, all +31%'; '' if none."""
    return ", ".join(f"{b['bin']} {100 * b['change']:+.0f}%" for b in stats.get("settling", [])
                     if b.get("settled") is False)
