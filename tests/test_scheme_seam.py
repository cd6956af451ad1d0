"""The Python side of the scheme seam (docs/extending.md): every scheme is
a `SchemeModel` listed once, the rest of dcsim asks schemes what they are
rather than their names, stored results are read in one module, and the
sweep cache's fingerprint covers every module a point's results come from."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import ClassVar, Literal

import pytest

import dcsim
from dcsim.spec import Spec
from dcsim.spec.base import field
from dcsim.spec.schemes import MODELS, SCHEMES, SchemeModel
from dcsim.spec.schemes.tcp import TcpScheme
from dcsim.sweep import point_key, result_files

PKG = Path(dcsim.__file__).resolve().parent


def test_every_scheme_is_a_scheme_model_listed_once():
    assert len(set(MODELS)) == len(MODELS) == len(SCHEMES) == 19
    for name, model in SCHEMES.items():
        assert issubclass(model, SchemeModel), name
        assert model.model_fields["name"].default == name
        # what the rest of dcsim reads of a scheme, on every one of them
        s = model()
        for attr in ("engine_model", "buffer_model", "pfc", "unbounded_buffer", "symmetric_routing",
                     "strict_classes_only", "mss_bytes", "header_bytes"):
            getattr(s, attr)
        assert isinstance(s.input_files(), dict) and isinstance(s.labels_incasts(), bool)


def _imports_of(module: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_rule_outside_the_schemes_asks_a_scheme_its_name():
    # the modules that used to: buffers, the spec, routing, the sweep cache
    for rel in ("spec/buffer.py", "spec/experiment.py", "spec/topology.py", "sweep.py", "simulate.py"):
        text = (PKG / rel).read_text()
        assert not re.search(r"scheme\.name\s*(==|!=|in\b)", text), rel
        assert not re.search(r"(get|has)attr\((spec\.)?(self\.)?scheme\b", text), rel


def test_stored_results_are_read_in_one_module_that_imports_no_runner():
    assert not _imports_of(PKG / "results.py") & {"runner", "show", "simulate", "sweep", "cli"}
    # show and runner both read through it, and not through each other
    assert "runner" not in _imports_of(PKG / "show.py") and "show" not in _imports_of(PKG / "runner.py")
    for name in ("read_flows", "read_sweep"):
        assert getattr(dcsim, name).__module__ == "dcsim.results"


def test_the_cache_fingerprint_covers_every_module_the_engine_config_comes_from():
    files = {f.relative_to(PKG).as_posix() for f in result_files()}
    # imported only inside functions of the spec: left out before
    assert {"thresholds.py", "ns2_arrivals.py", "clos.py", "topology_file.py"} <= files
    # and whatever the spec imports, transitively
    for rel in sorted(files):
        if rel.endswith(".py"):
            for mod in _imports_of(PKG / rel):
                path = (PKG / rel).parent / f"{mod}.py"
                if path.is_file():
                    assert path.relative_to(PKG).as_posix() in files, (rel, mod)
    # figures and the CLI only draw: editing them keeps finished points
    assert not {"cli.py", "report.py", "runner.py"} & files


def test_a_scheme_model_of_ones_own_plugs_in_through_the_base():
    class Retracing(TcpScheme):
        """TCP whose ACKs retrace its data's path, for this test."""

        name: Literal["tcp"] = field("tcp", "the scheme")
        symmetric_routing: ClassVar[bool] = True

    spec = Spec.model_validate({"scheme": {"name": "tcp"}, "routing": {"load_balancing": "ecmp"}})
    ours = Retracing()
    assert spec.routing.resolved_symmetric(spec.scheme) is False
    assert spec.routing.resolved_symmetric(ours) is True


def test_a_file_a_scheme_names_is_part_of_the_point_key(tmp_path):
    cdf = tmp_path / "t.txt"
    cdf.write_text("1000 0\n100000 1\n")
    spec = Spec.model_validate({"scheme": {"name": "pias", "threshold_cdf": str(cdf)}})
    before = point_key(spec)
    cdf.write_text("1000 0\n200000 1\n")
    assert point_key(spec) != before


@pytest.mark.parametrize("name", ["expresspass", "bfc"])
def test_what_the_schemes_say_replaces_their_names(name):
    s = SCHEMES[name]()
    assert s.symmetric_routing == (name == "expresspass")
    assert s.strict_classes_only == (name == "bfc")


def test_the_engine_loop_names_no_scheme():
    # sim/ moves packets; what a scheme keeps and decides is behind the
    # seam, in its folder under schemes/ (docs/design.md, "The scheme seam")
    sim = PKG.parents[1] / "crates" / "engine" / "src" / "sim"
    words = re.compile(r"\b(homa|hpcc|bfc|xpass|expresspass|pfabric|srf|dcqcn|dctcp|l2dct|pias|cubic|reno|labelled|"
                       r"telemetry|pdq)\b", re.IGNORECASE)
    found = {f"{f.name}:{i}": line.strip() for f in sorted(sim.glob("*.rs"))
             for i, line in enumerate(f.read_text().splitlines(), 1) if words.search(line)}
    assert len(list(sim.glob("*.rs"))) >= 7 and not found, found


def _code_lines(path: Path) -> int:
    """Lines of code: not blank, not a comment, and for Rust not in the
    unit tests at the end of a file (`#[cfg(test)]`)."""
    lines = path.read_text().splitlines()
    if path.suffix == ".rs":
        tests = next((i for i, line in enumerate(lines) if line.startswith("#[cfg(test)]")), len(lines))
        lines = lines[:tests]
    comment = "//" if path.suffix == ".rs" else "#"
    return sum(1 for line in lines if line.strip() and not line.strip().startswith(comment))


def test_no_source_file_is_over_600_lines_of_code():
    root = PKG.parents[1]
    sources = [*(root / "crates").rglob("*.rs"), *(root / "python").rglob("*.py")]
    sources = [f for f in sources if "/tests/" not in f.as_posix() and not f.name.startswith("tests")]
    assert len(sources) > 100
    over = {f.relative_to(root).as_posix(): n for f in sources if (n := _code_lines(f)) > 600}
    assert not over, over
