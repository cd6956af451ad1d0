"""The spec reference, generated from the pydantic models: docs/spec.md
(`dcsim spec --markdown`), the JSON Schema for editors (`dcsim spec
--schema`), and the catalog `dcsim list` prints (dcsim/data/catalog.json,
so that listing does not import pydantic and answers at once).

After changing a model, regenerate both files (a test fails while they are
stale):

    python -m dcsim.specdoc
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union

from annotated_types import Ge, Gt, Le, Lt
from pydantic.fields import FieldInfo

from .spec import SCHEMES, SECTIONS, Spec, Model

SECTION_DOC = {
    "topology": "The network. `kind` chooses the builder; changing `kind` (in a file or with `--set`) starts "
                "from that kind's defaults.",
    "routing": "Load balancing over equal-cost paths.",
    "scheme": "The transport at the hosts and the discipline at the switch ports. `name` chooses the scheme "
              "(`dcsim list schemes`); changing it starts from that scheme's defaults.",
    "buffer": "How switches hold packets: each port its own buffer (as the scheme sets it), or one buffer per "
              "switch shared by its ports, with or without PFC (docs/schemes.md, \"Shared switch buffers and PFC\").",
    "workload": "Which flows arrive, and when.",
    "run": "How the run is carried out and when it stops.",
    "packets": "One packet size for every scheme. Each scheme defaults to its paper's packets (1,460 + 40 B for "
               "pFabric's and PIAS's schemes, 1,000 + 48 B for BFC's RDMA schemes and Homa), so schemes compared "
               "side by side run on different packets and draw slightly different flows (the load counts bytes on "
               "the wire); set here, a size holds whichever scheme a run or a sweep's point uses. A scheme that sets "
               "its own to another value in the same spec is refused.",
}


def type_name(ann: Any) -> str:
    """A field's type in words: integer, number, 'a' | 'b', ... or none."""
    origin = typing.get_origin(ann)
    if origin is Literal:
        return " \\| ".join(repr(a).replace("'", '"') for a in typing.get_args(ann))
    if origin in (Union, types.UnionType):
        parts = list(dict.fromkeys(type_name(a) for a in typing.get_args(ann) if a is not type(None)))
        none = type(None) in typing.get_args(ann)
        return " or ".join(parts) + (" or none" if none else "")
    if isinstance(ann, type) and issubclass(ann, Model) or origin is typing.Annotated:
        return "table"
    return {int: "integer", float: "number", bool: "boolean", str: "string"}.get(ann, getattr(ann, "__name__", str(ann)))


def allowed(info: FieldInfo) -> str:
    """The range pydantic checks: '> 0', '>= 0, < 1', ..."""
    out = []
    for m in info.metadata:
        for cls, op in ((Gt, ">"), (Ge, ">="), (Lt, "<"), (Le, "<=")):
            if isinstance(m, cls):
                value = getattr(m, {">": "gt", ">=": "ge", "<": "lt", "<=": "le"}[op])
                if isinstance(value, int) and value > 2**32:
                    out.append(f"{op} 2^{value.bit_length() - 1}" if value & (value - 1) == 0 else f"{op} {value:,}")
                else:
                    out.append(f"{op} {value:,}" if isinstance(value, int) else f"{op} {value:g}")
    return ", ".join(out)


def default(info: FieldInfo) -> str:
    if info.default_factory is not None:
        return ""
    if info.is_required():
        return "required"
    v = info.default
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, int):
        return f"{v:,}".replace(",", "_") if abs(v) >= 10_000 else str(v)
    if isinstance(v, (list, dict)):
        return "empty" if not v else f"`{v}`"
    return f"{v:g}"


def source(info: FieldInfo) -> str:
    extra = info.json_schema_extra
    return extra.get("source", "") if isinstance(extra, dict) else ""


def fields(model: type[Model]) -> list[tuple[str, FieldInfo]]:
    return list(model.model_fields.items())


def _doc(model: type) -> str:
    return " ".join((model.__doc__ or "").split())


def _table(model: type[Model], skip: str = "") -> list[str]:
    lines = ["| field | type | default | allowed | meaning | default's source |", "| --- | --- | --- | --- | --- | --- |"]
    for name, info in fields(model):
        if name == skip:
            continue
        kind = type_name(info.annotation)
        if kind == "table":
            kind = f"table: [{name}]"
        cells = [f"`{name}`", kind, default(info), allowed(info),
                 (info.description or "").replace("|", "\\|"), source(info)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown() -> str:
    """docs/spec.md."""
    out = [
        "# Spec reference",
        "",
        "<!-- Generated from the pydantic models in python/dcsim/spec/ by `dcsim spec --markdown`;",
        "     tests/test_specdoc.py fails when this file is stale. Do not edit by hand. -->",
        "",
        "An experiment is a TOML file of the sections below (see `examples/`). Every field is optional:",
        "a missing field takes its default, which is the source paper's where one applies. Unknown",
        "fields are errors (with the closest valid name suggested). Any field can be changed on the",
        "command line with `--set section.field=value` (TOML values: `--set workload.load=0.8`,",
        "`--set scheme.host_queue_bytes='\"unlimited\"'` or just `=unlimited`). Editors can complete and",
        "check spec files against the JSON Schema that `dcsim spec --schema` prints.",
        "",
        "Units are in the field names: `_gbps` gigabits per second, `_us` microseconds, `_s` seconds,",
        "`_bytes` bytes, `_pkts` packets.",
        "",
        "Values keep their TOML type: `mss_bytes = true`, `pfc = \"yes\"` or `load = \"0.5\"` is an error,",
        "not a value converted. A quantity with no bound of its own is bounded by what the engine holds",
        "(times in picoseconds, sizes in bytes, counts in 32 bits): at most 10^6 s, 10^12 us, 2^40 bytes,",
        "10^5 Gb/s, 2^31 - 1 for a count and 10^6 for a factor; a positive time in us is at least 0.001",
        "(a nanosecond). A run estimated to take more than an hour of one core is warned about before it",
        "starts, with the estimate (`dcsim.cost`).",
        "",
        "## Top level",
        "",
        *_table(Spec),
        "",
    ]
    for section, models in SECTIONS.items():
        out += [f"## [{section}]", "", SECTION_DOC[section], ""]
        if isinstance(models, dict):
            disc = next(iter(models.values())).model_fields
            key = "kind" if "kind" in disc else "name"
            for tag, model in models.items():
                out += [f"### {key} = \"{tag}\"", "", _doc(model), "", *_table(model, skip=key), ""]
        else:
            # the model's own text, unless it only repeats the section's
            doc = _doc(models)
            if doc == SECTION_DOC[section]:
                doc = ""
            elif doc.startswith(SECTION_DOC[section]):
                doc = doc[len(SECTION_DOC[section]):].strip()
            out += [doc, ""] if doc else []
            out += [*_table(models), ""]
            for name, sub in _sub_tables(models):
                out += [f"### [{section}.{name}]", "", _doc(sub), "", *_table(sub), ""]
    from .spec.faults import Fault

    out += ["## [[faults]]", "", _doc(Fault) + " One table per fault; docs/faults.md has the model.", "",
            *_table(Fault), ""]
    return "\n".join(out + _profiles())


def _profiles() -> list[str]:
    """The profiles section: how they work, then what each sets."""
    from . import profiles

    text = (profiles.__doc__ or "").split("\n\n")
    out = ["## Profiles", "", *(" ".join(p.split()) + "\n" for p in text[1:])]
    for p in profiles.PROFILES.values():
        lines = profiles.describe(p)
        out += [f"### profile = \"{p.name}\"", "", f"{p.title}. Source: {p.source}.", "",
                *(f"- {line.strip()}" for line in lines[2:]), ""]
    return out


def _sub_tables(model: type[Model]) -> list[tuple[str, type[Model]]]:
    """Fields of `model` that are tables of their own (`[workload.queries]`)."""
    out = []
    for name, info in fields(model):
        for t in (info.annotation, *typing.get_args(info.annotation)):
            if isinstance(t, type) and issubclass(t, Model):
                out.append((name, t))
    return out


def schema() -> str:
    """The JSON Schema of a spec file (draft 2020-12)."""
    s = Spec.model_json_schema()
    s = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "dcsim spec", **s}
    return json.dumps(s, indent=2)


def catalog() -> dict:
    """Every topology and scheme: description, and each field's default,
    meaning and source (what `dcsim list` prints)."""
    from .spec import TOPOLOGIES

    def entries(models: dict, key: str) -> list[dict]:
        return [{"name": tag, "doc": _doc(m),
                 "fields": [{"field": f, "default": default(i), "meaning": i.description or "", "source": source(i)}
                            for f, i in fields(m) if f != key]}
                for tag, m in models.items()]

    from .profiles import PROFILES, describe

    profiles = [{"name": p.name, "doc": f"{p.title} [{p.source}]", "lines": describe(p)[2:]}
                for p in PROFILES.values()]
    return {"generated_by": "python -m dcsim.specdoc", "topologies": entries(TOPOLOGIES, "kind"),
            "schemes": entries(SCHEMES, "name"), "profiles": profiles}


def catalog_json() -> str:
    return json.dumps(catalog(), indent=1) + "\n"


def generated_files(root: Path) -> dict[Path, str]:
    """The files generated from the models, by path under the project root."""
    return {root / "docs" / "spec.md": markdown() + "\n",
            root / "python" / "dcsim" / "data" / "catalog.json": catalog_json()}


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    for path, text in generated_files(root).items():
        path.write_text(text)
        print(f"wrote {path.relative_to(root)}")


if __name__ == "__main__":
    main()
