"""The spec reference: docs/spec.md and the `dcsim list` catalog are
generated from the pydantic models and must not go stale; the JSON Schema
describes every field; every field is documented."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dcsim import specdoc
from dcsim.spec import SCHEMES, SECTIONS, Spec, TOPOLOGIES

ROOT = Path(__file__).resolve().parents[1]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "dcsim", *map(str, args)], capture_output=True, text=True)


@pytest.mark.parametrize("path", list(specdoc.generated_files(ROOT)), ids=lambda p: p.name)
def test_generated_files_are_current(path):
    expected = specdoc.generated_files(ROOT)[path]
    assert path.read_text() == expected, (
        f"{path.relative_to(ROOT)} is stale: run `python -m dcsim.specdoc` and commit the result")


def _models():
    for section, models in SECTIONS.items():
        yield from (models.values() if isinstance(models, dict) else [models])


def test_every_field_has_a_meaning_and_appears_in_the_reference():
    md = (ROOT / "docs" / "spec.md").read_text()
    for model in [Spec, *_models()]:
        for name, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{name} has no description"
            assert f"`{name}`" in md or name in ("kind", "name")
    for kind in TOPOLOGIES:
        assert f'### kind = "{kind}"' in md
    for name in SCHEMES:
        assert f'### name = "{name}"' in md
    # types, defaults, ranges and sources are in the table
    assert '| `load` | number | 0.6 | > 0, < 1 |' in md
    assert "pFabric §5.1, Table 1" in md


def test_cli_prints_schema_and_markdown():
    r = cli("spec", "--schema")
    assert r.returncode == 0, r.stderr
    schema = json.loads(r.stdout)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert set(schema["properties"]) == set(Spec.model_fields)
    wl = schema["$defs"]["Workload"]["properties"]
    assert wl["load"]["exclusiveMaximum"] == 1 and wl["load"]["exclusiveMinimum"] == 0
    assert wl["load"]["description"].startswith("offered load")
    assert schema["$defs"]["Workload"]["additionalProperties"] is False
    # the topology is a union chosen by kind
    assert set(schema["properties"]["topology"]["discriminator"]["mapping"]) == set(TOPOLOGIES)
    r = cli("spec", "--markdown")
    assert r.returncode == 0 and r.stdout == specdoc.markdown() + "\n"
    r = cli("spec", "--schema", "--markdown")
    assert r.returncode == 2 and "exactly one" in r.stderr


def test_cli_resolves_a_spec_with_overrides():
    r = cli("spec", ROOT / "examples" / "star_trace.toml", "--set", "workload.flows=3")
    assert r.returncode == 0, r.stderr
    spec = json.loads(r.stdout)
    assert spec["workload"]["flows"] == 3 and spec["scheme"]["queue_bytes"] == 219_000
    assert spec["name"] == "tcp-trace-incast (workload.flows=3)"


def test_list_prints_whole_descriptions_and_scheme_parameters():
    r = cli("list")
    assert r.returncode == 0
    flat = " ".join(r.stdout.split())
    for model in [*TOPOLOGIES.values(), *SCHEMES.values()]:
        assert " ".join(model.__doc__.split()) in flat, model.__name__
    r = cli("list", "schemes")
    flat = " ".join(r.stdout.split())
    assert "queue_bytes = 219_000: drop-tail limit of every switch port, bytes (150 x 1460; the paper's Table 1 says 225 KB) [pFabric ns-2 scripts (docs/sources.md §1)]" in flat
    assert "min_rto_us = 200:" in flat
