"""The ``dcsim`` command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from .errors import SpecError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="dcsim: datacenter transport simulator")


def fail(msg: str) -> None:
    """Bad input: one clear line on stderr and exit status 2."""
    print(f"dcsim: error: {msg}", file=sys.stderr)
    raise typer.Exit(2)


def _overrides(sets: List[str], seed: Optional[int], flows: Optional[int]) -> dict:
    from .spec import parse_value

    out = {}
    for s in sets:
        if "=" not in s:
            fail(f"--set expects key=value, got {s!r}")
        k, v = s.split("=", 1)
        out[k.strip()] = parse_value(v.strip())
    if seed is not None:
        out["seed"] = seed
    if flows is not None:
        out["workload.flows"] = flows
    return out


@app.command()
def run(
    spec: Path = typer.Argument(..., help="spec file (TOML)"),
    out: Path = typer.Option(..., "--out", "-o", help="output directory (flows.parquet, summary.json)"),
    seed: Optional[int] = typer.Option(None, help="override the spec's seed"),
    flows: Optional[int] = typer.Option(None, help="override workload.flows"),
    set_: List[str] = typer.Option([], "--set", help="override any field: --set workload.load=0.3"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
    force: bool = typer.Option(False, help="replace an existing output directory"),
) -> None:
    """Run one experiment."""
    from .simulate import run_to_dir
    from .spec import load_spec

    try:
        s = load_spec(spec, _overrides(set_, seed, flows))
        summary = run_to_dir(s, out, quiet=quiet, force=force)
    except SpecError as e:
        fail(str(e))
    except KeyboardInterrupt:
        print("dcsim: interrupted; nothing was written", file=sys.stderr)
        raise typer.Exit(130)
    if not quiet:
        print(
            f"{summary['flows_finished']}/{summary['flows_total']} flows, "
            f"{summary['sim_time_s'] * 1e3:.2f} ms simulated in {summary['wall_time_s']:.2f} s "
            f"({summary['packet_hops_per_s'] / 1e6:.1f} M packet-hops/s) -> {out}",
            file=sys.stderr,
        )
    if not summary["conservation_holds"]:
        raise typer.Exit(1)


@app.command("list")
def list_(what: Optional[str] = typer.Argument(None, help="topologies | schemes | workloads")) -> None:
    """Name the topologies, schemes and workloads."""
    from .spec import SCHEMES, TOPOLOGIES
    from .workloads import SHIPPED

    sections = {
        "topologies": [(k, (m.__doc__ or "").strip().splitlines()[0]) for k, m in TOPOLOGIES.items()],
        "schemes": [(k, (m.__doc__ or "").strip().splitlines()[0]) for k, m in SCHEMES.items()],
        "workloads": [(w.name, f"{w.description} [{w.source}]") for w in SHIPPED.values()],
    }
    if what is not None and what not in sections:
        fail(f"unknown list {what!r} (allowed: {', '.join(sections)})")
    for name, items in sections.items():
        if what in (None, name):
            print(f"{name}:")
            for k, d in items:
                print(f"  {k:28s} {d}")


@app.command()
def bench(
    flows: int = typer.Option(20_000, help="flows in the benchmark scenario"),
    load: float = typer.Option(0.6, help="load"),
    seed: int = typer.Option(1),
) -> None:
    """The fixed benchmark: TCP, web search, pFabric leaf-spine, load 0.6."""
    from .bench import main as bench_main

    bench_main(flows=flows, load=load, seed=seed)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        print("dcsim: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
