"""Runs side by side (`dcsim compare DIR DIR ...`, `dcsim.compare`): one
table of slowdown by flow size, a column group per run, each run labelled
by what differs between the runs (scheme, overridden fields), and a
caution naming what differs that a comparison usually holds equal
(packet and header bytes, buffers, flow counts, seeds).

A DIR is a run (`dcsim run --out`), a sweep point, a sweep or figure
directory (each of its complete points), or a directory holding any of
these (symbolic links followed), so a folder of links to runs compares
them all."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from .errors import SpecError
from .results import load_points, point_dir

if TYPE_CHECKING:
    import pandas as pd

#: The statistics a comparison shows by default.
DEFAULT_PERCENTILES = (99.0,)


@dataclass
class Run:
    """One run's results: its directory and summary."""

    path: Path
    summary: dict

    def fields(self) -> dict:
        """Everything that identifies the run, flat: the spec's fields
        (dotted), what the engine resolved them to (`resolved.*`) and the
        flows drawn (`flows`)."""
        out = _flatten(self.summary.get("spec", {}))
        out.pop("name", None)
        out |= {f"resolved.{k}": v for k, v in self.summary.get("resolved", {}).items()}
        out["flows"] = self.summary.get("flows_total")
        # an estimate (`dcsim estimate`) beside a run: its label says so
        out["model"] = self.summary.get("model", "packet")
        return out


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out |= _flatten(v, f"{prefix}{k}.")
        else:
            out[f"{prefix}{k}"] = v
    return out


def _is_run(d: Path) -> bool:
    return (d / "summary.json").is_file() and (d / "flows.parquet").is_file()


def _runs_of(d: Path, top: bool = True) -> list[Run]:
    if _is_run(d):
        return [Run(d, json.loads((d / "summary.json").read_text()))]
    if (d / "sweep.json").is_file():
        points = load_points(d)
        if not points:
            raise SpecError(f"compare: the sweep in {d} has no complete point yet")
        return [Run(point_dir(d, s["point"]["key"]), s) for s in points]
    if top and d.is_dir():
        inner = [r for c in sorted(d.iterdir(), key=lambda p: p.name) if c.is_dir() for r in _runs_of(c, top=False)]
        if inner:
            return inner
        raise SpecError(f"compare: {d} holds no results (no run, sweep or figure in it or directly under it); "
                        "give directories written by dcsim run, sweep or reproduce")
    if not d.exists():
        raise SpecError(f"compare: no such directory {d}")
    return []


def collect(dirs: Sequence[str | Path]) -> list[Run]:
    """The runs that `dirs` name, in order (a sweep's points in sweep
    order)."""
    if not dirs:
        raise SpecError("compare: give at least one directory")
    runs: list[Run] = []
    for d in dirs:
        runs += _runs_of(Path(d))
    seen: dict[Path, Path] = {}
    for r in runs:
        real = r.path.resolve()
        if real in seen:
            raise SpecError(f"compare: {r.path} is the same run as {seen[real]}")
        seen[real] = r.path
    return runs


def _varying(runs: list[Run]) -> list[str]:
    """The fields whose values are not the same in every run, in the
    spec's order."""
    fields = [r.fields() for r in runs]
    keys = list(dict.fromkeys(k for f in fields for k in f))
    return [k for k in keys if len({json.dumps(f.get(k), sort_keys=True) for f in fields}) > 1]


def _label_keys(runs: list[Run], varying: list[str]) -> list[str]:
    """The fields that tell the runs apart: the scheme's name, and each
    field that differs between runs of the same scheme (a scheme's other
    fields differ by its defaults, not by a choice of the user's); the
    engine's resolutions and flow counts are consequences, not labels."""
    out = []
    for k in varying:
        if k.startswith("resolved.") or k == "flows":
            continue
        if k.startswith("scheme.") and f"packets.{k.removeprefix('scheme.')}" in varying:
            continue  # packets.* set it
        if k.startswith("scheme.") and k != "scheme.name":
            by_scheme: dict = {}
            for r in runs:
                f = r.fields()
                by_scheme.setdefault(f.get("scheme.name"), set()).add(json.dumps(f.get(k), sort_keys=True))
            if all(len(v) == 1 for v in by_scheme.values()):
                continue
        out.append(k)
    return out


def _short(keys: list[str]) -> dict[str, str]:
    """Each key's last part, unless two keys share it."""
    last = [k.rsplit(".", 1)[-1] for k in keys]
    return {k: (s if last.count(s) == 1 else k) for k, s in zip(keys, last)}


def _value(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return str(v)


def labels(runs: list[Run]) -> list[str]:
    """A label per run, from what differs between them (the scheme's
    name bare, other fields as name=value); the directory's name where
    nothing differs, or to tell apart runs that would share a label."""
    keys = _label_keys(runs, _varying(runs))
    short = _short(keys)
    out = []
    for r in runs:
        f = r.fields()
        parts = [_value(f.get(k)) if k == "scheme.name" else f"{short[k]}={_value(f.get(k))}" for k in keys]
        out.append(", ".join(parts) or r.path.name)
    for i, lab in enumerate(out):
        if out.count(lab) > 1:
            out[i] = f"{lab} ({runs[i].path.name})"
    return out


#: Fields a comparison usually holds equal, by what they are.
_CAUTION = (
    ("packet bytes", lambda k: k in ("resolved.mss_bytes", "resolved.header_bytes")),
    ("buffers", lambda k: k in ("resolved.buffer_model", "resolved.pfc") or k.startswith("buffer.")
     or k in ("scheme.queue_bytes", "scheme.host_queue_bytes")),
    ("flows drawn", lambda k: k == "flows"),
    ("seed", lambda k: k == "seed"),
)


def differences(runs: list[Run]) -> dict[str, dict[str, list]]:
    """What differs between the runs that a comparison usually holds
    equal, by kind: {'packet bytes': {'mss_bytes': [1460, 1000]}, ...}
    (a value per run, None where the run's scheme has no such field)."""
    if len(runs) < 2:
        return {}
    varying = _varying(runs)
    fields = [r.fields() for r in runs]
    out: dict[str, dict[str, list]] = {}
    for kind, match in _CAUTION:
        # (a field some schemes lack is no difference between the others)
        keys = [k for k in varying if match(k) and len({json.dumps(f.get(k)) for f in fields} - {"null"}) > 1]
        if keys:
            out[kind] = {k.removeprefix("resolved."): [f.get(k) for f in fields] for k in keys}
    return out


def cautions(diff: dict[str, dict[str, list]], names: list[str]) -> list[str]:
    """`differences` in words, the runs named by `names`: 'flows drawn
    differ: 4,320 (dctcp) / 4,350 (homa)'."""
    out = []
    for kind, keys in diff.items():
        parts = []
        for k, vals in keys.items():
            shown = " / ".join(f"{_num(v)} ({n})" for v, n in zip(vals, names))
            parts.append(shown if kind == "flows drawn" else f"{k} {shown}")
        out.append(f"{kind} differ: " + "; ".join(parts))
    return out


def _num(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def compare(*dirs: str | Path, bins: Optional[Sequence[float]] = None,
            percentiles: Sequence[float] = DEFAULT_PERCENTILES) -> pd.DataFrame:
    """Slowdown (normalized FCT) by flow size of the runs in `dirs`, side
    by side: a row per size bin (the papers' unless `bins`, edges in
    bytes) and `all`; a column group per run (labelled by what differs
    between the runs), with `flows`, `mean` and a `p<N>` per percentile.
    ``attrs["cautions"]`` says what differs that a comparison usually
    holds equal (packet and header bytes, buffers, flows drawn, seeds),
    ``attrs["differences"]`` the same as data (`differences`),
    ``attrs["notes"]`` what else to know (`notes`: schemes whose defaults
    come from different papers), and ``attrs["runs"]`` maps each label to
    its directory."""
    import pandas as pd

    from .metrics import slowdown_by_size

    for p in percentiles:
        if not (isinstance(p, (int, float)) and 0 <= p <= 100) or isinstance(p, bool) or math.isnan(p):
            raise SpecError(f"compare: a percentile is between 0 and 100, got {p!r}")
    runs = collect(dirs)
    names = labels(runs)
    parts = {}
    for r, name in zip(runs, names):
        flows = pd.read_parquet(r.path / "flows.parquet", columns=["size_bytes", "slowdown"])
        t = slowdown_by_size(flows, bins=bins, percentiles=percentiles)
        parts[name] = t[["flows", "mean", *(f"p{p:g}" for p in percentiles)]]
    table = pd.concat(parts, axis=1, names=["run", "statistic"])
    table.attrs["differences"] = differences(runs)
    table.attrs["cautions"] = cautions(table.attrs["differences"], names)
    table.attrs["runs"] = {n: str(r.path) for r, n in zip(runs, names)}
    table.attrs["notes"] = notes(runs)
    return table


def notes(runs: list[Run]) -> list[str]:
    """What the reader of a comparison should know that is not a
    difference of set-up: schemes whose defaults come from different
    papers (`profiles.mixed_defaults`)."""
    from .profiles import mixed_defaults

    mixed = mixed_defaults([r.summary.get("spec", {}) for r in runs])
    return [mixed] if mixed else []


def side_by_side(table: pd.DataFrame) -> tuple[dict[str, str], list[str], list[list[str]]]:
    """What `dcsim compare` and the report show of a `compare` table: a
    letter per run (label -> 'A', 'B', ...), the headers, and a row per
    size bin with each run's mean and percentiles ('-' for a bin without
    flows; the flow counts stay in the DataFrame and the CSV)."""
    from .show import _f

    runs = list(dict.fromkeys(table.columns.get_level_values("run")))
    stats = [s for s in dict.fromkeys(table.columns.get_level_values("statistic")) if s != "flows"]
    letters = {run: chr(ord("A") + i) if len(runs) <= 26 else str(i + 1) for i, run in enumerate(runs)}
    headers = ["size bin", *(f"{letters[r]} {s}" for r in runs for s in stats)]
    rows = [[str(b), *(_f(table.loc[b, (r, s)]) if not _nan(table.loc[b, (r, s)]) else "-"
                       for r in runs for s in stats)] for b in table.index]
    return letters, headers, rows


def run_dirs(table: pd.DataFrame) -> list[Path]:
    """The run directories of a `compare` table, in its column order."""
    return [Path(table.attrs["runs"][n]) for n in dict.fromkeys(table.columns.get_level_values("run"))]


def print_compare(table: pd.DataFrame, out=None) -> None:
    """`dcsim compare`'s table (`side_by_side`), then what tells the runs
    apart, and the cautions."""
    from .show import render

    letters, headers, rows = side_by_side(table)
    note = "\n".join(f"{x}: {r} ({table.attrs['runs'][r]})" for r, x in letters.items())
    said = cautions(table.attrs.get("differences", {}), list(letters.values()))
    if said:
        note += "\ncaution: " + "\ncaution: ".join(said)
    for n in table.attrs.get("notes", []):
        note += f"\nnote: {n}"
    render(f"{len(letters)} runs · slowdown (normalized FCT) by flow size", headers, rows, note, out)


def _nan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)
