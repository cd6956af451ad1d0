"""The ``dcsim`` command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from .errors import SpecError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="dcsim: datacenter transport simulator")


def _version(value: bool) -> None:
    if value:
        from . import __version__
        from ._core import ENGINE_VERSION

        print(f"dcsim {__version__} (engine {ENGINE_VERSION})")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="show the version"),
) -> None:
    """dcsim: datacenter transport simulator."""


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


@app.command()
def sweep(
    sweep_file: Path = typer.Argument(..., help="sweep file (TOML: base spec + grid)"),
    out: Path = typer.Option(..., "--out", "-o", help="results directory (resumable)"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="local worker processes (default: all cores)"),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address, e.g. tcp://host:8786"),
    set_: List[str] = typer.Option([], "--set", help="override a base-spec field: --set workload.flows=5000"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Run every point of a sweep (skipping complete ones)."""
    from .runner import run_sweep
    from .sweep import load_sweep

    try:
        sw = load_sweep(sweep_file, _overrides(set_, None, None))
        result = run_sweep(sw, out, jobs=jobs, scheduler=scheduler, quiet=quiet)
    except SpecError as e:
        fail(str(e))
    except KeyboardInterrupt:
        _interrupted(out)
    _sweep_exit(result)


def _interrupted(out: Path) -> None:
    from .runner import load_points

    try:
        done = len(load_points(out))
    except (OSError, ValueError):
        done = 0
    print(f"dcsim: interrupted; {done} complete point(s) kept in {out}; run the same command to resume",
          file=sys.stderr)
    raise typer.Exit(130)


def _sweep_exit(result) -> None:
    print(f"{len(result.ran)} point(s) run, {len(result.skipped)} already complete, "
          f"{len(result.failed)} failed -> {result.out}", file=sys.stderr)
    if result.failed:
        print("dcsim: failed points:", file=sys.stderr)
        points = {p.key: p for p in result.points}
        for key, msg in result.failed.items():
            print(f"  {key} ({points[key].label()}): {msg}\n    spec: {points[key].spec.model_dump_json()}",
                  file=sys.stderr)
        raise typer.Exit(1)


@app.command()
def reproduce(
    name: str = typer.Argument(..., help="figure name (see `dcsim list figures`)"),
    out: Path = typer.Option(..., "--out", "-o", help="results directory (resumable)"),
    quick: bool = typer.Option(False, "--quick", help="small sweep, a couple of minutes on 2 cores (default)"),
    full: bool = typer.Option(False, "--full", help="the paper's scale"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j"),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address"),
    report: bool = typer.Option(True, help="also write OUT/report.html"),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Run a paper figure's sweep and draw it (PNG and SVG) beside the paper's numbers."""
    from . import figures, report as report_mod

    if quick and full:
        fail("--quick and --full exclude each other")
    try:
        result, _ = figures.reproduce(name, out, mode="full" if full else "quick", jobs=jobs,
                                      scheduler=scheduler, quiet=quiet)
        if report:
            page = report_mod.write(out)
            print(f"report: {page}", file=sys.stderr)
    except SpecError as e:
        fail(str(e))
    except KeyboardInterrupt:
        _interrupted(out)
    print(f"figure: {out / (name + '.png')}", file=sys.stderr)
    _sweep_exit(result)


@app.command()
def report(
    directory: Path = typer.Argument(..., help="a sweep or figure directory (or a folder of them)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="HTML file (default DIR/report.html)"),
) -> None:
    """Write a self-contained HTML report of the figures and sweeps under DIR."""
    from .report import write

    try:
        page = write(directory, out)
    except SpecError as e:
        fail(str(e))
    print(page)


@app.command("list")
def list_(what: Optional[str] = typer.Argument(None, help="topologies | schemes | workloads | figures")) -> None:
    """Name the topologies, schemes, workloads and figures."""
    from .figures import REGISTRY
    from .spec import SCHEMES, TOPOLOGIES
    from .workloads import SHIPPED

    sections = {
        "topologies": [(k, (m.__doc__ or "").strip().splitlines()[0]) for k, m in TOPOLOGIES.items()],
        "schemes": [(k, (m.__doc__ or "").strip().splitlines()[0]) for k, m in SCHEMES.items()],
        "workloads": [(w.name, f"{w.description} [{w.source}]") for w in SHIPPED.values()],
        "figures": [(f.name, f"{f.title} [{f.source}]") for f in REGISTRY.values()],
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
    repeat: int = typer.Option(1, min=1, help="runs; the fastest is reported, all rates are listed"),
) -> None:
    """The fixed benchmark: TCP, web search, pFabric leaf-spine, load 0.6."""
    from .bench import main as bench_main

    bench_main(flows=flows, load=load, seed=seed, repeat=repeat)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        print("dcsim: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
