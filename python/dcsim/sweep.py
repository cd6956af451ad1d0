"""Sweeps: a base spec times a grid of any spec fields.

A sweep file is TOML:

    name = "tcp-vs-load"
    base = "leaf_spine_web_search.toml"   # optional; relative to this file
    [spec]                                 # optional; fields over the base
    workload.flows = 2000
    [grid]                                 # dotted spec fields -> values
    "workload.load" = [0.2, 0.4, 0.6, 0.8]
    "workload.cdf" = ["web_search", "data_mining"]
    seed = [1, 2]

Each combination of grid values is a *point*: a fully resolved spec. A
point is identified by a stable hash of its resolved spec, the contents of
the files it reads, and the dcsim version; its results live in
``OUT/points/<hash>/``.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import itertools
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from . import __version__
from .errors import SpecError
from .spec import DISCRIMINATORS, Spec, apply_overrides, read_toml, spec_from_dict
from .profiles import PROFILES
from .spec.experiment import check, did_you_mean
from .workloads import SHIPPED


@dataclass(frozen=True)
class Point:
    """One simulation of a sweep."""

    key: str
    params: dict  # grid field -> value for this point
    #: None for a point read back from a results directory to draw it again
    #: (`runner.held_points`): its spec is in its summary
    spec: Optional[Spec]

    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.params.items()) or "base"


#: The grid field that names a variant: a set of fields changed together.
VARIANT = "variant"


@dataclass(frozen=True)
class Sweep:
    """A base spec times a grid. `variants` are named sets of dotted
    overrides, changed together: the grid's `variant` field takes their
    names (e.g. one variant per scheme with its own parameters, or
    "pfabric-ecmp" changing the scheme and the routing at once)."""

    name: str
    base: dict  # (or a Spec: its sections)
    grid: dict[str, list]
    variants: dict[str, dict] = field(default_factory=dict)
    #: By variant name, grid fields that variant keeps at one value: a
    #: scheme whose simulation does not read a field runs once, not once per
    #: value (the grid's other values name the same point).
    fixed: dict[str, dict] = field(default_factory=dict)

    def __post_init__(self):
        # a Spec as the base: its sections as a dict (the grid's keys apply to it)
        if hasattr(self.base, "model_dump"):
            object.__setattr__(self, "base", self.base.model_dump(mode="json"))

    def points(self) -> list[Point]:
        return expand(nested(self.base), self.grid, self.variants, self.fixed)


def _file_digest(path: Optional[str]) -> Optional[str]:
    if not path or path in SHIPPED:
        return None
    p = Path(path)
    return hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None


# The package files a point's results depend on: the spec (defaults and
# the engine configuration it resolves to), running and summarizing, the
# bins and the shipped workloads, and every module of the package these
# import (`result_files` follows their imports: thresholds, topology files,
# the ns-2 arrivals, ...). Figures, plots, the CLI and the runner only
# arrange and draw results, so editing them keeps finished points.
RESULT_CODE = ("spec", "data", "simulate.py", "metrics.py", "bins.py", "workloads.py", "extras.py", "__init__.py")


def _imported(f: Path) -> set[Path]:
    """The package's modules that `f` imports (relative imports, at the top
    or inside functions)."""
    out = set()
    for node in ast.walk(ast.parse(f.read_text())):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = f.parent
        for _ in range(node.level - 1):
            base = base.parent
        if node.module is None:
            names = [base / f"{a.name}.py" for a in node.names]
        else:
            mod = base.joinpath(*node.module.split("."))
            names = [mod.with_suffix(".py"), mod / "__init__.py", *(mod / f"{a.name}.py" for a in node.names)]
        out |= {n.resolve() for n in names if n.is_file()}
    return out


def result_files() -> list[Path]:
    """The package files in `RESULT_CODE` (sources and shipped data, not
    the generated catalog) and every package module their code imports,
    in a fixed order."""
    pkg = Path(__file__).resolve().parent
    files: set[Path] = set()
    for name in RESULT_CODE:
        root = pkg / name
        if root.is_file():
            files.add(root)
        else:
            files |= {f for f in root.rglob("*") if f.is_file() and f.suffix in (".py", ".txt", ".csv")}
    todo = [f for f in files if f.suffix == ".py"]
    while todo:
        for f in _imported(todo.pop()) - files:
            files.add(f)
            todo.append(f)
    return sorted(files, key=lambda f: f.relative_to(pkg).as_posix())


@lru_cache(maxsize=1)
def code_digest() -> str:
    """What the results depend on besides the spec: the engine as built and
    the package code that feeds it and summarizes its output
    (`result_files`). A rebuilt engine or changed code never reuses an old
    result (the version alone would not change between commits)."""
    from importlib import util

    h = hashlib.sha256()
    core = util.find_spec("dcsim._core")
    if core is not None and core.origin:
        h.update(Path(core.origin).read_bytes())
    pkg = Path(__file__).resolve().parent
    for f in result_files():
        h.update(f.relative_to(pkg).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def point_key(spec: Spec) -> str:
    """Stable identity of a point: resolved spec + input files + version +
    the code that computes it."""
    ident = {
        "spec": spec.model_dump(mode="json"),
        "cdf_file": _file_digest(spec.workload.cdf),  # cdf_unit_bytes is in the spec
        "trace_file": _file_digest(spec.workload.trace),
        "reverse_cdf_file": _file_digest(spec.workload.reverse_cdf),
        "topology_file": _file_digest(getattr(spec.topology, "path", None)),
        "version": __version__,
        "code": code_digest(),
    }
    # the files a scheme's settings name (PIAS's thresholds of another workload)
    ident.update({f"{name}_file": _file_digest(path) for name, path in spec.scheme.input_files().items()})
    blob = json.dumps(ident, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def expand(base: dict, grid: dict[str, list], variants: Optional[dict[str, dict]] = None,
           fixed: Optional[dict[str, dict]] = None) -> list[Point]:
    """Every combination of the grid's values over the base spec, in grid
    order (last field varies fastest); a `variant` value applies that
    variant's overrides first, and its `fixed` fields replace the grid's.
    Fails on an unknown field, variant or an empty grid before anything
    runs."""
    variants, fixed = variants or {}, fixed or {}
    if not grid:
        raise SpecError("grid: the sweep's grid is empty; give at least one field and its values")
    for name, values in grid.items():
        if not isinstance(values, list) or not values:
            raise SpecError(f"grid.{name}: needs a non-empty list of values")
    for v in grid.get(VARIANT, []):
        if v not in variants:
            raise SpecError(f"grid.variant: no variant named {v!r}{did_you_mean(v, variants)} "
                            f"(defined: {', '.join(variants) or 'none'})")
    points: list[Point] = []
    seen = set()
    for combo in itertools.product(*grid.values()):
        params = dict(zip(grid.keys(), combo))
        params.update(fixed.get(params.get(VARIANT), {}))
        fields = {k: v for k, v in params.items() if k != VARIANT}
        try:
            data = copy.deepcopy(base)
            if VARIANT in params:
                data = apply_overrides(data, variants[params[VARIANT]])
            spec = spec_from_dict(apply_overrides(data, fields))
        except SpecError as e:
            where = f"variant {params[VARIANT]!r}: " if VARIANT in params else ""
            raise SpecError(f"grid: {where}{e}") from None
        try:
            check(spec)  # what the scheme refuses, before any point runs
        except SpecError as e:
            label = ", ".join(f"{k}={v}" for k, v in params.items())
            raise SpecError(f"grid: the point {label}: {e}") from None
        key = point_key(spec)
        if key not in seen:  # a grid may name the same point twice
            seen.add(key)
            points.append(Point(key, params, spec))
    return points


def _check_fields(grid: dict, where: str = "grid") -> None:
    """Unknown grid fields fail with the field named, even where the base
    spec happens to accept the value (pydantic checks each point too)."""
    probe = Spec().model_dump(mode="json")
    for key in grid:
        if key == VARIANT and where == "grid":
            continue
        node: Any = probe
        parts = key.split(".")
        for i, part in enumerate(parts):
            if not isinstance(node, dict) or part not in node:
                # topology/scheme fields depend on the kind; let validation judge
                if parts[0] in DISCRIMINATORS and i >= 1:
                    break
                hint = did_you_mean(part, node) if isinstance(node, dict) else ""
                raise SpecError(f"{where}: unknown field {key!r}{hint}")
            node = node[part]


def load_sweep(path: str | Path, overrides: Optional[dict[str, Any]] = None) -> Sweep:
    path = Path(path)
    data = read_toml(path, "sweep")
    sweep_fields = ("name", "base", "spec", "grid", "variants", "fixed")
    for key in set(data) - set(sweep_fields) - set(Spec.model_fields):
        hint = did_you_mean(key, sweep_fields)
        if hint:
            raise SpecError(f"{path}: unknown sweep field {key!r}{hint}")
    if "grid" not in data and set(data) & set(Spec.model_fields):
        raise SpecError(f"{path} is a spec file, not a sweep file (it has no [grid]); "
                        f"run it with: dcsim run {path} --out DIR")
    unknown = set(data) - {"name", "base", "spec", "grid", "variants", "fixed"}
    if unknown:
        raise SpecError(f"{path}: unknown sweep field(s) {sorted(unknown)} "
                        "(allowed: name, base, spec, grid, variants, fixed)")
    base: dict = {}
    if "base" in data:
        if not isinstance(data["base"], str):
            raise SpecError(f"{path}: base must name a spec file (base = \"spec.toml\"); "
                            "give the base spec itself as a [spec] table")
        base_path = (path.parent / data["base"]).resolve()
        base = read_toml(base_path, "base spec")
        _resolve_paths(base, base_path.parent)
    inline = nested(data.get("spec", {}))
    _resolve_paths(inline, path.parent)
    base = _merge(base, inline)
    base = apply_overrides(base, overrides or {})
    grid = _flatten(data.get("grid", {}))
    if not grid:
        raise SpecError("grid: the sweep's grid is empty; give at least one field and its values")
    _check_fields(grid)
    variants = {name: _flatten(v) for name, v in data.get("variants", {}).items()}
    for name, v in variants.items():
        _check_fields(v, f"variants.{name}")
    fixed = {name: _flatten(v) for name, v in data.get("fixed", {}).items()}
    for name, v in fixed.items():
        if name not in variants:
            raise SpecError(f"fixed.{name}: no variant named {name!r}{did_you_mean(name, variants)}")
        for key in v:
            if key not in grid:
                raise SpecError(f"fixed.{name}: {key!r} is not a grid field (fixed keeps a grid field at one value)")
    for key in overrides or {}:
        if key in grid:
            raise SpecError(f"--set {key}: the grid sweeps {key} ({grid[key]}), which takes the place of the base "
                            f"spec's; change the grid in {path} instead")
        setters = [f"variants.{name}" for name, v in variants.items() if key in v]
        if setters:
            raise SpecError(f"--set {key}: {', '.join(setters)} set {key}, which takes the place of the base "
                            f"spec's; change the sweep file {path} instead")
    return Sweep(name=data.get("name", path.stem), base=base, grid=grid, variants=variants, fixed=fixed)


def _flatten(d: dict, prefix: str = "") -> dict:
    """TOML turns `workload.load = [...]` into nested tables; grid keys are
    dotted paths either way."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def nested(d: dict) -> dict:
    """A spec table whose keys may be quoted dotted paths, as the grid's
    and the variants' are (`"workload.flows" = 300` as well as
    `workload.flows = 300` or a [spec.workload] table)."""
    out: dict = {}
    for k, v in d.items():
        parts = str(k).split(".")
        sub: dict = {parts[-1]: nested(v) if isinstance(v, dict) else v}
        for part in reversed(parts[:-1]):
            sub = {part: sub}
        out = _merge(out, sub)
    return out


def _merge(a: dict, b: dict) -> dict:
    out = copy.deepcopy(a)
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _resolve_paths(spec: dict, base: Path) -> None:
    """CDF, trace, topology and profile paths in a spec file are relative
    to that file."""
    w, sch, topo = spec.get("workload"), spec.get("scheme"), spec.get("topology")
    fields = [(w, f) for f in ("cdf", "trace", "reverse_cdf")] if isinstance(w, dict) else []
    if isinstance(spec.get("profile"), str) and spec["profile"] not in PROFILES:
        fields.append((spec, "profile"))
    if isinstance(sch, dict):
        fields.append((sch, "threshold_cdf"))
    if isinstance(topo, dict) and topo.get("kind") == "file":
        fields.append((topo, "path"))
    for table, field in fields:
        v = table.get(field)
        if isinstance(v, str) and v not in SHIPPED and not Path(v).is_absolute() and (base / v).is_file():
            table[field] = str((base / v).resolve())
