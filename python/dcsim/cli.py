"""The ``dcsim`` command line."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import List, NoReturn, Optional

import typer

from .errors import SpecError

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="dcsim: datacenter transport simulator")


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


def fail(msg: str) -> NoReturn:
    """Bad input: one clear line on stderr and exit status 2."""
    print(f"dcsim: error: {msg}", file=sys.stderr)
    raise typer.Exit(2)


def note(msg: str) -> None:
    print(f"dcsim: note: {msg}", file=sys.stderr)


def warn(msg: str) -> None:
    print(f"dcsim: warning: {msg}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """The library's warnings (`dcsim.DcsimWarning`) as the command line's
    own lines; others as Python shows them."""
    from .errors import DcsimWarning

    if issubclass(category, DcsimWarning):
        warn(str(message))
    else:
        _python_show_warning(message, category, filename, lineno, file, line)


_python_show_warning = warnings.showwarning
warnings.showwarning = _show_warning


def _overrides(sets: List[str], seed: Optional[int], flows: Optional[int]) -> dict:
    from .spec import parse_value

    out = {}
    for s in sets:
        if "=" not in s:
            fail(f"--set expects key=value, got {s!r}")
        k, v = s.split("=", 1)
        if not k.strip() or any(not part for part in k.strip().split(".")):
            fail(f"--set: {k.strip()!r} is not a field name (use section.field=value)")
        out[k.strip()] = parse_value(v.strip())
    for option, key, given in (("--seed", "seed", seed), ("--flows", "workload.flows", flows)):
        if given is not None and key in out:
            fail(f"{option} and --set {key} both set {key}: give one")
    if seed is not None:
        if not 0 <= seed < 2**63:
            fail(f"--seed: must be in 0..2^63-1, got {seed}")
        out["seed"] = seed
    if flows is not None:
        if flows < 1:
            fail(f"--flows: must be at least 1, got {flows}")
        out["workload.flows"] = flows
    return out


def _check_jobs(jobs: Optional[int]) -> None:
    if jobs is not None and jobs < 1:
        fail(f"--jobs: needs at least 1 worker, got {jobs}")


@app.command(short_help="Run one experiment and print its statistics.")
def run(
    spec: Path = typer.Argument(..., help="spec file (TOML)"),
    out: Path = typer.Option(..., "--out", "-o", help="output directory (flows.parquet, summary.json)"),
    seed: Optional[int] = typer.Option(None, help="override the spec's seed"),
    flows: Optional[int] = typer.Option(None, help="override workload.flows (a trace: its first N flows)"),
    set_: List[str] = typer.Option([], "--set", help="override any field: --set workload.load=0.3"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar and no results table"),
    force: bool = typer.Option(False, help="replace an existing output directory"),
) -> None:
    """Run one experiment; print slowdown by flow size, drops and timeouts."""
    from .show import print_run
    from .simulate import run_to_dir
    from .spec import load_spec
    from .spec.experiment import caveats

    overrides = _overrides(set_, seed, flows)
    notes: list[str] = []
    try:
        s = load_spec(spec, overrides, notes)
        from .profiles import fabric_note

        for n in [*notes, fabric_note(s)]:
            if n:
                note(n)
        for w in caveats(s):
            warn(w)
        summary = run_to_dir(s, out, quiet=quiet, force=force, overrides=overrides)
    except SpecError as e:
        fail(str(e))
    except OSError as e:
        fail(f"--out {out}: {e.strerror or e}")
    except KeyboardInterrupt:
        print("dcsim: interrupted; nothing was written", file=sys.stderr)
        raise typer.Exit(130)
    if not quiet:
        print_run(summary)
        print(f"results: {out}/flows.parquet, {out}/summary.json", file=sys.stderr)
    if not summary["conservation_holds"]:
        raise typer.Exit(1)


@app.command(short_help="Estimate a run link by link (decomposed, on Dask).")
def estimate(
    spec: Path = typer.Argument(..., help="spec file (TOML)"),
    out: Path = typer.Option(..., "--out", "-o", help="output directory (flows.parquet, summary.json)"),
    workers: Optional[int] = typer.Option(None, help="local Dask workers (default: one per core; 0: in this "
                                          "process, without Dask)"),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address instead of a local cluster"),
    cluster: bool = typer.Option(True, help="let one link stand for links whose workloads are alike"),
    passes: Optional[int] = typer.Option(None, min=1, help="passes over the links, each after the first limiting a "
                                         "flow at a link to what its other links let it send (default 3; "
                                         "docs/estimator.md)"),
    seed: Optional[int] = typer.Option(None, help="override the spec's seed"),
    flows: Optional[int] = typer.Option(None, help="override workload.flows"),
    set_: List[str] = typer.Option([], "--set", help="override any field: --set workload.load=0.3"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar and no results table"),
    force: bool = typer.Option(False, help="replace an existing output directory"),
) -> None:
    """Estimate FCTs by simulating each link on its own (docs/estimator.md)."""
    from .estimate import caveats, estimate_to_dir
    from .show import print_run
    from .spec import load_spec

    overrides = _overrides(set_, seed, flows)
    try:
        s = load_spec(spec, overrides, [])
        for w in caveats(s):
            warn(w)
        summary = estimate_to_dir(s, out, force=force, overrides=overrides, workers=workers, scheduler=scheduler,
                                  cluster=cluster, quiet=quiet, passes=passes)
    except SpecError as e:
        fail(str(e))
    except OSError as e:
        fail(f"--out {out}: {e.strerror or e}")
    except KeyboardInterrupt:
        print("dcsim: interrupted; nothing was written", file=sys.stderr)
        raise typer.Exit(130)
    if not quiet:
        print_run(summary, caveats=False)
        e = summary["estimate"]
        print(f"estimated: {e['links_simulated']} of the {e['links_shared']} links that flows share simulated, in "
              f"{summary['wall_time_s']:.1f} s; results: {out}/flows.parquet, {out}/summary.json", file=sys.stderr)


@app.command(short_help="Print a finished run's or sweep's statistics.")
def show(
    directory: Path = typer.Argument(..., help="a run, a sweep point (SWEEP/points/KEY), or a sweep/figure directory"),
    bins: Optional[str] = typer.Option(None, help="size-bin edges, e.g. 0,10KB,100KB,1MB,inf (default: the papers', "
                                       "0,100KB,10MB,inf)"),
) -> None:
    """Print slowdown by flow size, drops and timeouts of finished results."""
    from . import bins as bins_mod
    from .show import show as show_dir

    try:
        edges = bins_mod.parse(bins) if bins else None
        if edges and (edges[0] > 0 or edges[-1] != float("inf")):
            note(f"--bins covers the sizes {bins_mod.label(edges[0], edges[-1])} only: flows outside it are in no "
                 "bin (start at 0 and end with inf to bin them all)")
        show_dir(directory, edges)
    except SpecError as e:
        fail(str(e))


@app.command("spec", short_help="The spec reference, or a spec checked.")
def spec_(
    spec_file: Optional[Path] = typer.Argument(None, help="a spec file: print it resolved (defaults filled in)"),
    schema: bool = typer.Option(False, "--schema", help="print the JSON Schema of spec files (for editors)"),
    markdown: bool = typer.Option(False, "--markdown", help="print the spec reference (docs/spec.md)"),
    set_: List[str] = typer.Option([], "--set", help="override a field before resolving"),
) -> None:
    """The spec reference: JSON Schema, docs/spec.md, or a spec resolved."""
    if sum([schema, markdown, spec_file is not None]) != 1:
        fail("give exactly one of --schema, --markdown or a SPEC file")
    if schema or markdown:
        from . import specdoc

        print(specdoc.schema() if schema else specdoc.markdown())
        return
    import json

    from .spec import load_spec

    notes: list[str] = []
    try:
        s = load_spec(spec_file, _overrides(set_, None, None), notes)
    except SpecError as e:
        fail(str(e))
    for n in notes:
        note(n)
    print(json.dumps(s.model_dump(mode="json"), indent=2))


@app.command(short_help="Run every point of a sweep (resumable).")
def sweep(
    sweep_file: Path = typer.Argument(..., help="sweep file (TOML: base spec + grid)"),
    out: Path = typer.Option(..., "--out", "-o", help="results directory (resumable)"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="local worker processes (default: all cores)"),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address, e.g. tcp://host:8786"),
    set_: List[str] = typer.Option([], "--set", help="override a base-spec field: --set workload.flows=5000"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar and no per-point messages (failures "
                               "and the closing count are still printed)"),
    reuse: List[Path] = typer.Option([], "--reuse", help="another results directory whose complete points of "
                                     "the same key are copied instead of run (repeatable)"),
) -> None:
    """Run every point of a sweep (skipping complete ones)."""
    from .runner import run_sweep
    from .sweep import load_sweep

    _check_jobs(jobs)

    def go():
        # (run_sweep warns of points that work against their scheme, once
        # per kind: printed as "dcsim: warning: ..." by _show_warning)
        sw = load_sweep(sweep_file, _overrides(set_, None, None))
        return run_sweep(sw, out, jobs=jobs, scheduler=scheduler, quiet=quiet, reuse=reuse)

    result = _guarded(out, go)
    _sweep_exit(result)


def _interrupted(out: Path) -> NoReturn:
    from .results import load_points

    done = 0
    for d in [out, *(p.parent for p in Path(out).glob("*/sweep.json"))]:  # a paper's figures too
        try:
            done += len(load_points(d))
        except (OSError, ValueError):
            pass
    print(f"dcsim: interrupted; {done} complete point(s) kept in {out}; run the same command to resume",
          file=sys.stderr)
    raise typer.Exit(130)


def _sweep_exit(result) -> None:
    reused = f"{len(result.reused)} reused, " if result.reused else ""
    print(f"{len(result.ran)} point(s) run, {len(result.skipped)} already complete, {reused}"
          f"{len(result.failed)} failed -> {result.out}", file=sys.stderr)
    if result.failed:
        print("dcsim: failed points:", file=sys.stderr)
        points = {p.key: p for p in result.points}
        for key, msg in result.failed.items():
            print(f"  {key} ({points[key].label()}): {msg}\n    spec: {points[key].spec.model_dump_json()}",
                  file=sys.stderr)
        raise typer.Exit(1)


@app.command(short_help="Run a paper's figure and draw it beside the paper.")
def reproduce(
    name: str = typer.Argument(..., help="figure name (see `dcsim list figures`), or a paper (pfabric, pias, "
                               "bfc): every figure of it, each into OUT/<figure>, sharing their common runs"),
    out: Path = typer.Option(..., "--out", "-o", help="results directory (resumable)"),
    quick: bool = typer.Option(False, "--quick", help="small sweep, a couple of minutes on 2 cores (default)"),
    full: bool = typer.Option(False, "--full", help="the paper's scale"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="local worker processes (default: all cores)"),
    scheduler: Optional[str] = typer.Option(None, help="Dask scheduler address"),
    report: bool = typer.Option(True, help="also write OUT/report.html"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar and no comparison table (the "
                               "verdicts are in OUT/figure.json and the report); failures are still printed"),
    seed: List[int] = typer.Option([], "--seed", help="run this seed instead of the figure's (1); repeat for "
                                   "several, which the table averages (a spread: one --out per seed)"),
    reuse: List[Path] = typer.Option([], "--reuse", help="another results directory whose complete points of "
                                     "the same key are copied instead of run (repeatable)"),
    redraw: bool = typer.Option(False, "--redraw", help="run nothing: draw the figure and its comparison with "
                                "the paper again from the points OUT holds, whichever dcsim version ran them"),
) -> None:
    """Run a paper figure's sweep and draw it (PNG and SVG) beside the paper's numbers."""
    from . import figures

    if quick and full:
        fail("--quick and --full exclude each other")
    _check_jobs(jobs)
    for s in seed:
        if not 0 <= s < 2**63:
            fail(f"--seed: must be in 0..2^63-1, got {s}")
    if name in figures.papers():
        if seed:
            fail(f"--seed: give one figure of {name}, not the whole paper")
        return _reproduce_paper(name, out, "full" if full else "quick", jobs, scheduler, report, quiet, reuse,
                                redraw)
    try:
        name = _figure_name(name)
    except SpecError as e:
        fail(str(e))
    result, _ = _reproducing(out, report, lambda: figures.reproduce(
        name, out, mode="full" if full else "quick", jobs=jobs, scheduler=scheduler, quiet=quiet,
        seeds=tuple(seed) or None, reuse=reuse, redraw=redraw))
    print(f"figure: {out / (name + '.png')}", file=sys.stderr)
    if not quiet:
        _print_comparison(out)
    _sweep_exit(result)


def _guarded(out: Path, work):
    """Run `work` (which writes into `out`): bad input exits 2, Ctrl-C 130
    (finished points stay, and the run resumes)."""
    try:
        return work()
    except SpecError as e:
        fail(str(e))
    except OSError as e:
        fail(f"--out {out}: {e.strerror or e}")
    except KeyboardInterrupt:
        _interrupted(out)


def _reproducing(out: Path, report: bool, work):
    """Run `work` (a figure's or a paper's reproduction into `out`), then
    write the report if asked; bad input exits 2, Ctrl-C 130."""
    from . import report as report_mod

    def run_and_report():
        result = work()
        if report:
            print(f"report: {report_mod.write(out)}", file=sys.stderr)
        return result

    return _guarded(out, run_and_report)


def _reproduce_paper(paper: str, out: Path, mode: str, jobs, scheduler, report: bool, quiet: bool,
                     reuse: List[Path], redraw: bool = False) -> None:
    """`dcsim reproduce PAPER`: every figure, then one report and a line
    per figure of how its statements compare with the paper."""
    import json

    from . import figures
    from .show import render

    result = _reproducing(out, report, lambda: figures.reproduce_paper(
        paper, out, mode=mode, jobs=jobs, scheduler=scheduler, quiet=quiet, reuse=reuse, redraw=redraw))
    rows = []
    for name in figures.figures_of(paper):
        if name in result.failed:
            rows.append([name, "-", "-", "-", "not drawn: " + result.failed[name]])
            continue
        r = result.results[name]
        verdicts = [p["verdict"] for p in json.loads((out / name / "figure.json").read_text())["paper"]]
        rows.append([name, f"{len(r.points) - len(r.failed)}/{len(r.points)}", str(len(r.reused)),
                     f"{verdicts.count('consistent')}/{len(verdicts)}",
                     "; ".join(sorted({v for v in verdicts if v != "consistent"}))])
    if not quiet:
        render(f"{paper} ({mode} mode): every figure against the paper",
               ["figure", "points", "reused", "consistent", "other verdicts"], rows, align="lrrrl")
    print(f"figures: {out}/<figure>/" + ("" if redraw else " (each resumable: run the same command again)"),
          file=sys.stderr)
    if not result.ok:
        raise typer.Exit(1)


def _natural(name: str) -> list:
    """A sort key that orders the numbers in a name by value (fig5a < fig20)."""
    import re

    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _figure_name(name: str) -> str:
    """The registered figure for `name` (pias-fig6 -> pias-fig5-7), saying
    so when it differs."""
    from .figures import resolve

    resolved, msg = resolve(name)
    if msg:
        note(msg)
    return resolved


def _print_comparison(out: Path) -> None:
    """The figure's comparison with the paper (from figure.json)."""
    import json

    from .figures import COMPARISON_HEADERS, comparison_rows
    from .show import render

    info = json.loads((out / "figure.json").read_text())
    if not info["paper"]:
        print("the paper states no numbers for this figure", file=sys.stderr)
        return
    render(f"{info['figure']} ({info['mode']} mode) against the paper", COMPARISON_HEADERS,
           comparison_rows(info["paper"]), align="lllll")


@app.command(short_help="Several runs side by side, by flow size.")
def compare(
    directories: List[Path] = typer.Argument(..., help="runs, sweep points, sweep or figure directories, or "
                                             "folders of them (links followed)"),
    percentiles: str = typer.Option("99", help="percentiles of slowdown beside the mean, e.g. 50,99,99.9"),
    bins: Optional[str] = typer.Option(None, help="size-bin edges, e.g. 0,10KB,100KB,1MB,inf (default: the "
                                       "papers', 0,100KB,10MB,inf)"),
    csv: Optional[Path] = typer.Option(None, help="also write the table (flow counts included) to this CSV file"),
) -> None:
    """Slowdown by flow size of several runs side by side, labelled by what differs between them."""
    from . import bins as bins_mod
    from .comparison import compare as compare_runs
    from .comparison import print_compare

    try:
        pcts = _percentiles(percentiles)
        table = compare_runs(*directories, bins=bins_mod.parse(bins) if bins else None, percentiles=pcts)
    except SpecError as e:
        fail(str(e))
    print_compare(table)
    if csv is not None:
        try:
            table.to_csv(csv)
        except OSError as e:
            fail(f"compare: cannot write {csv}: {e.strerror or e}")
        print(f"table: {csv}", file=sys.stderr)


def _percentiles(text: str) -> list[float]:
    """`--percentiles` text: '50,99,99.9'."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            v = float(part.removeprefix("p"))
        except ValueError:
            raise SpecError(f"--percentiles: {part!r} is not a number (give e.g. 50,99,99.9)") from None
        if not 0 <= v <= 100:
            raise SpecError(f"--percentiles: {part} is not between 0 and 100")
        out.append(v)
    return out


@app.command(short_help="Write an HTML report of runs, sweeps and figures.")
def report(
    directory: Path = typer.Argument(..., help="a run, sweep or figure directory (or a folder of them)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="HTML file (default DIR/report.html)"),
    bins: Optional[str] = typer.Option(None, help="size-bin edges of the tables, e.g. 0,10KB,100KB,1MB,inf "
                                       "(default: the papers', 0,100KB,10MB,inf)"),
) -> None:
    """Write a self-contained HTML report of the runs, figures and sweeps under DIR (several runs: side by side)."""
    from . import bins as bins_mod
    from .report import write

    try:
        page = write(directory, out, bins_mod.parse(bins) if bins else None)
    except SpecError as e:
        fail(str(e))
    except OSError as e:
        fail(f"report: cannot write {e.filename or out}: {e.strerror or e}")
    print(page)


@app.command("thresholds", short_help="Print priority-queue thresholds for a workload.")
def thresholds_(
    method: str = typer.Option("pias", "--method", help="pias | pfabric-eq8 | equal-split | paper"),
    cdf: str = typer.Option("web_search", "--cdf", help="a shipped workload or a CDF file"),
    load: float = typer.Option(0.8, "--load", help="load, a fraction of the link"),
    queues: int = typer.Option(8, "--queues", "-k", help="strict-priority queues (K-1 thresholds)"),
    cdf_unit_bytes: float = typer.Option(1.0, "--cdf-unit-bytes", help="bytes per size unit of a CDF file"),
    quantum: int = typer.Option(1, "--quantum", help="round sizes up to multiples of this many bytes"),
) -> None:
    """Print the K-1 thresholds (bytes, one per line) that split flows over K
    strict-priority queues, then the method's objective: PIAS's Eq. 1
    (M/M/1 queues, on bytes sent), pFabric's Appendix A Eq. 8 (M/G/1, on
    flow size), the equal-split heuristic, or the PIAS scripts' table."""
    from .thresholds import objective, thresholds
    from .workloads import load_cdf

    try:
        dist = load_cdf(cdf, unit=cdf_unit_bytes)
        r = thresholds(method, cdf, dist, load, queues, quantum)
        value = r.objective
        if value is None and 0 < load < 1:
            # a table or the equal split has no objective of its own: Eq. 1
            # at its thresholds, to compare with `--method pias`'s optimum
            value = objective("pias", dist, load, list(r.thresholds), quantum)
    except SpecError as e:
        fail(str(e))
    for t in r.thresholds:
        print(t)
    from .thresholds import empty_queues

    unused = empty_queues(r.thresholds, -(-max(dist.sizes) // quantum) * quantum)
    if unused:
        print(f"note: {unused}", file=sys.stderr)
    if value is not None:
        label = "PIAS Eq. 1" if r.objective is None else method
        print(f"objective ({label}): {value:.6g}", file=sys.stderr)


@app.command("list", short_help="Name the topologies, schemes, workloads, figures.")
def list_(what: Optional[str] = typer.Argument(None, help="topologies | schemes | profiles | workloads | figures"),
          name_: Optional[str] = typer.Argument(None, metavar="[NAME]", help="just this one (a scheme, a figure, "
                                                "...): `dcsim list schemes hpcc`")) -> None:
    """Name the topologies, schemes, paper profiles, workloads and figures;
    `list schemes` also gives each scheme's parameters, defaults and their
    sources, `list profiles` what each profile sets."""
    import json
    import shutil
    import textwrap
    from importlib import resources

    from .figures import REGISTRY
    from .figures import papers as figures_papers
    from .workloads import SHIPPED

    # Topologies and schemes come from the catalog generated from the spec
    # models (python -m dcsim.specdoc), so listing does not import pydantic.
    cat = json.loads(resources.files("dcsim.data").joinpath("catalog.json").read_text())
    sections = {
        "topologies": [(t["name"], t["doc"], []) for t in cat["topologies"]],
        "schemes": [(t["name"], t["doc"], t["fields"]) for t in cat["schemes"]],
        "profiles": [(p["name"], p["doc"], p["lines"]) for p in cat["profiles"]],
        "workloads": [(w.name, f"{w.description} [{w.source}]", []) for w in SHIPPED.values()],
        # in the papers' order: pfabric-fig5a before pfabric-fig20
        "figures": sorted(((f.name, f"{f.title} [{f.source}]", []) for f in REGISTRY.values()),
                          key=lambda item: _natural(item[0])),
    }
    if what is not None and what not in sections:
        fail(f"unknown list {what!r} (allowed: {', '.join(sections)})")
    if name_ is not None:
        from .spec.experiment import did_you_mean

        if what is None:
            fail("give what to list before a name: dcsim list schemes hpcc")
        names = [k for k, _, _ in sections[what]]
        if what == "figures" and name_ in figures_papers():
            # a paper: its figures
            sections[what] = [item for item in sections[what] if item[0].startswith(name_ + "-")]
            name_ = None
        elif what == "figures" and name_ not in names:
            from .figures import resolve

            try:
                name_, why = resolve(name_)  # a figure drawn with others: its group
                if why:
                    note(why.replace(": running ", ": listing "))
            except SpecError:
                pass
        if name_ is not None and name_ not in names:
            one = {"topologies": "topology", "schemes": "scheme", "profiles": "profile", "workloads": "workload",
                   "figures": "figure"}[what]
            fail(f"no {one} named {name_!r}{did_you_mean(name_, names)} (`dcsim list {what}` names them)")
        if name_ is not None:
            sections[what] = [item for item in sections[what] if item[0] == name_]
    width = max(shutil.get_terminal_size((100, 24)).columns, 60)
    key_w = max(len(k) for items in sections.values() for k, _, _ in items) + 2
    indent = " " * (2 + key_w)
    for name, items in sections.items():
        if what not in (None, name):
            continue
        print(f"{name}:")
        for k, d, params in items:
            print(textwrap.fill(d, width, initial_indent=f"  {k:{key_w}s}", subsequent_indent=indent,
                                break_on_hyphens=False))
            if what == "schemes":  # each scheme's parameters, in full
                for p in params:
                    text = f"{p['field']} = {p['default']}: {p['meaning']}" + (f" [{p['source']}]" if p["source"] else "")
                    print(textwrap.fill(text, width, initial_indent=indent + "  ", subsequent_indent=indent + "      ",
                                        break_on_hyphens=False))
            if what == "profiles":  # what each sets, and per scheme
                for line in params:
                    print(textwrap.fill(line.strip(), width, initial_indent=indent + "  ",
                                        subsequent_indent=indent + "      ", break_on_hyphens=False))
        if name == "figures" and name_ is None:
            from .figures import papers

            print(textwrap.fill(f"papers: {', '.join(papers())} (`dcsim reproduce PAPER` runs all of a paper's "
                                "figures)", width, initial_indent="  ", subsequent_indent="  "))


@app.command(short_help="The fixed benchmark (speed in packet-hops/s).")
def bench(
    flows: int = typer.Option(20_000, help="flows in the benchmark scenario"),
    load: float = typer.Option(0.6, help="load"),
    seed: int = typer.Option(1),
    repeat: int = typer.Option(1, min=1, help="runs; the fastest is reported, all rates are listed"),
    scheme: str = typer.Option("tcp", help="tcp (the engine's scenario), pfabric or ideal (pFabric's point), "
                                "hpcc, dcqcn or bfc (BFC's 100 Gb/s fabric)"),
    json_path: Optional[str] = typer.Option(None, "--json", help="also write the reported run to this file "
                                            "(`python -m dcsim.bench_targets DIR` judges a directory of them)"),
) -> None:
    """The fixed benchmark: web search on pFabric's leaf-spine, load 0.6."""
    from .bench import SCHEMES, main as bench_main

    if scheme not in SCHEMES:
        fail(f"--scheme: one of {', '.join(SCHEMES)}, got {scheme!r}")
    bench_main(flows=flows, load=load, seed=seed, repeat=repeat, scheme=scheme, json_path=json_path)


def _click_class(name: str) -> type:
    """A class of the click that typer uses (its own vendored copy in
    recent versions, click itself in older ones), found from a class typer
    exports."""
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)


def main() -> None:
    """The entry point. Usage errors (a bad option value, a missing
    argument) end with one line and exit status 2, like every other bad
    input; help and `--version` as usual."""
    usage_error = _click_class("UsageError")
    try:
        rc = app(standalone_mode=False)
    except usage_error as e:
        if type(e).__name__ == "NoArgsIsHelpError" and e.ctx is not None:
            print(e.ctx.get_help(), file=sys.stderr)
            sys.exit(2)
        cmd = e.ctx.command_path if e.ctx is not None else "dcsim"
        print(f"dcsim: error: {e.format_message()} (see {cmd} --help)", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("dcsim: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as e:  # click's Abort (Ctrl-C at a prompt) is not an Exception subclass we export
        if type(e).__name__ == "Abort":
            print("dcsim: interrupted", file=sys.stderr)
            sys.exit(130)
        raise
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
