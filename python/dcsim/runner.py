"""Run a sweep's points on every local core or on a Dask cluster, into a
resumable results store.

Layout of a sweep's output directory::

    OUT/sweep.json                 the sweep: name, base spec, grid, points
    OUT/points/<key>/flows.parquet one row per flow of that point
    OUT/points/<key>/summary.json  the point's spec, counters, wall time, ...

A point's directory appears only when it is complete: workers simulate into
memory, and the main process writes each result to a temporary directory
and renames it into place. Re-running a sweep skips complete points, so a
sweep stopped by Ctrl-C, a crash or SIGKILL resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from . import __version__
from .errors import SpecError, warn
from .outdir import check_output_dir, make_tmp_dir
from .results import is_complete, point_dir, unsettled
from .sweep import Point, Sweep


@dataclass
class SweepResult:
    out: Path
    points: list[Point]
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    #: keys of points copied from a `reuse` directory instead of run
    reused: list[str] = field(default_factory=list)
    #: points run now that left flows unfinished: key -> how many
    unfinished: dict[str, int] = field(default_factory=dict)
    #: points run now whose statistics had not settled: key -> the bins
    unsettled: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        # (the points' specs, kilobytes each, stay out of a notebook's view)
        return (f"SweepResult({str(self.out)!r}: {len(self.points)} points, {len(self.ran)} run, "
                f"{len(self.skipped)} already complete, {len(self.reused)} reused, {len(self.failed)} failed)")

    @property
    def ok(self) -> bool:
        return not self.failed


def simulate_point(spec_json: str, progress: Optional[str] = None) -> tuple[dict[str, bytes], str]:
    """Worker side: run one point, return its tables (flows.parquet and the
    samplers' tables, by file name, as bytes) and its summary JSON. Runs in
    a pool process or on a Dask worker; touches no shared files, except,
    if given, the file `progress`, where a local worker tells the sweep's
    progress bar how far the point has come (`ProgressFile`)."""
    from .simulate import run_to_dir
    from .spec import Spec

    spec = Spec.model_validate_json(spec_json)
    report = ProgressFile(Path(progress)).write if progress else None
    with tempfile.TemporaryDirectory(prefix="dcsim-point-") as tmp:
        out = Path(tmp) / "out"
        # (the sweep says once which points left flows unfinished)
        run_to_dir(spec, out, quiet=True, on_progress=report, warn_unfinished=False)
        tables = {p.name: p.read_bytes() for p in sorted(out.glob("*.parquet"))}
        return tables, (out / "summary.json").read_text()


def _store(out: Path, point: Point, tables: dict[str, bytes], summary_json: str) -> None:
    """Write a finished point."""

    def fill(tmp: Path) -> None:
        for name, data in tables.items():
            (tmp / name).write_bytes(data)

    _put(out, point, json.loads(summary_json), fill)


def _put(out: Path, point: Point, summary: dict, fill) -> None:
    """Write a point atomically: `fill` puts its tables into a temporary
    directory, the summary (with this sweep's key and parameters) joins
    them, and the directory is renamed into place."""
    final = point_dir(out, point.key)
    tmp = make_tmp_dir(final.parent, f".{point.key}.")
    try:
        fill(tmp)
        summary["point"] = {"key": point.key, "params": point.params}
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        if final.exists():  # completed meanwhile by another run of the sweep
            shutil.rmtree(tmp)
            return
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _reuse_dirs(reuse: Sequence[str | Path], out: Path) -> list[Path]:
    """The `reuse` directories, checked: each must be a results directory
    (with `points/`) other than `out`."""
    dirs = []
    for d in map(Path, reuse):
        if not (d / "points").is_dir():
            raise SpecError(f"--reuse {d}: not a results directory (no {d / 'points'})")
        if d.resolve() == out.resolve():
            raise SpecError(f"--reuse {d}: is the output directory itself")
        dirs.append(d)
    return dirs


def _adopt(out: Path, point: Point, src: Path) -> None:
    """Copy `src`'s complete point of the same key into `out` under this
    sweep's parameters. Tables are hard-linked where the filesystem allows
    (a point's files are never rewritten)."""
    here = point_dir(src, point.key)

    def fill(tmp: Path) -> None:
        for f in sorted(here.iterdir()):
            if f.is_file() and f.name != "summary.json":
                try:
                    os.link(f, tmp / f.name)
                except OSError:
                    shutil.copy2(f, tmp / f.name)

    _put(out, point, json.loads((here / "summary.json").read_text()), fill)


def _clean_stale(out: Path) -> None:
    """Remove temporary directories left by a killed run."""
    pts = Path(out) / "points"
    if pts.is_dir():
        for d in pts.iterdir():
            if d.name.startswith(".") and d.is_dir():
                shutil.rmtree(d, ignore_errors=True)


def _write_sweep_json(out: Path, sweep: Sweep, points: list[Point]) -> None:
    info = {
        "name": sweep.name,
        "version": __version__,
        "base": sweep.base,
        "grid": sweep.grid,
        "variants": sweep.variants,
        "fixed": sweep.fixed,
        "points": [{"key": p.key, "params": p.params} for p in points],
    }
    _put_sweep_json(out, info)


def _put_sweep_json(out: Path, info: dict) -> None:
    """Write `sweep.json` whole or not at all."""
    tmp = Path(out) / ".sweep.json.tmp"
    tmp.write_text(json.dumps(info, indent=2) + "\n")
    os.replace(tmp, Path(out) / "sweep.json")


@dataclass
class ProgressFile:
    """How far a running point has come, as a local worker tells the
    sweep: a small file holding the share done (0 to 1: of the flows
    finished, `simulate.run_to_dir`), replaced atomically at most every
    `every` seconds (a full-scale point runs for many minutes; without this
    the sweep's bar stood still until it ended)."""

    path: Path
    every: float = 0.5
    _last: float = -1e9

    def write(self, share: float) -> None:
        now = time.monotonic()
        if now - self._last < self.every and share < 1.0:
            return
        self._last = now
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.write_text(f"{share:.6f}\n")
            os.replace(tmp, self.path)
        except OSError:
            pass  # progress is a courtesy: never fail a point over it

    @staticmethod
    def read(path: Path) -> float:
        """The share the point has done (0 if unknown)."""
        try:
            share = float(path.read_text())
        except (OSError, ValueError):
            return 0.0
        return min(max(share, 0.0), 1.0)


class _Bar:
    """One progress display for the whole sweep, on a terminal only: points
    finished, plus the finished share of each running point's flows, so the
    bar and its time estimate move during long points."""

    def __init__(self, total: int, done: int, quiet: bool):
        self.bar = None
        self.finished = done
        if quiet or not sys.stderr.isatty():
            return
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=done, unit="point", file=sys.stderr, ncols=100, leave=True,
                        bar_format="{l_bar}{bar}| {n:.1f}/{total} [{elapsed}<{remaining}{postfix}]")

    @property
    def on(self) -> bool:
        return self.bar is not None

    def update(self, n: int, running: int) -> None:
        """`n` more points finished; `running` are running (shares unknown)."""
        self.finished += n
        self.show(running, [])

    def show(self, running: int, shares: list[float]) -> None:
        """`running` points are running; `shares`: the finished fraction of
        the flows of those that have said (`ProgressFile`)."""
        if self.bar is not None:
            self.bar.n = self.finished + sum(shares)
            said = ", ".join(f"{f:.0%}" for f in shares)
            self.bar.set_postfix_str(f"{running} running" + (f": {said}" if said else ""), refresh=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _worker_init(parent: int) -> None:
    """Set-up of a local pool worker. The main process owns Ctrl-C and
    stops the workers itself; if the main process dies in a way it cannot
    clean up after (SIGKILL, a crash), the workers end too instead of
    simulating on under PID 1: the kernel kills them when the parent dies
    (Linux's PR_SET_PDEATHSIG), and, where that is unavailable, a thread
    notices the parent is gone within half a second. The engine releases
    the GIL while it simulates, so the thread runs during a simulation."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before we got here
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="dcsim-parent-watch", daemon=True).start()


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the watchdog thread still covers it


def _figure_of(sweep_name: str) -> str:
    """A figure's sweeps are named for their mode (`pfabric-fig7-9-quick`,
    `-full`): both may share its directory, as they always have (their
    points have keys of their own; `sweep.json` lists the last run's)."""
    for mode in ("-quick", "-full"):
        if sweep_name.endswith(mode):
            return sweep_name[: -len(mode)]
    return sweep_name


def refuse_other_results(out: Path, name: str) -> None:
    """A sweep's directory holds that sweep: the same sweep resumes there
    (its grid may have grown), another one would hide its points (`dcsim
    show` and the report read the points `sweep.json` lists)."""
    out = Path(out)
    if not out.is_dir():
        return
    try:
        held = json.loads((out / "sweep.json").read_text()).get("name")
    except (OSError, ValueError, AttributeError):
        held = None
    if held is not None and _figure_of(held) != _figure_of(name):
        raise SpecError(f"--out {out}: holds the sweep {held!r}; give {name!r} a directory of its own (the same "
                        "sweep resumes where it stopped)")
    if held is None and (out / "summary.json").is_file():
        raise SpecError(f"--out {out}: holds a single run (dcsim run); give the sweep a directory of its own")
    if held is None and not (out / "points").is_dir() and any(p for p in out.iterdir() if not p.name.startswith(".")):
        raise SpecError(f"--out {out}: is not empty and holds no sweep; give the sweep a new or empty directory")


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    *,
    jobs: Optional[int] = None,
    scheduler: Any = None,
    quiet: bool = False,
    log=None,
    reuse: Sequence[str | Path] = (),
    caveats: bool = True,
) -> SweepResult:
    """Run every point of `sweep` not already complete in `out`.

    `scheduler`: None for a local process pool of `jobs` workers (default:
    all cores); a Dask scheduler address (``tcp://host:port``) or a
    ``dask.distributed.Client`` to run on a cluster.

    `reuse`: other results directories (another figure's, another sweep's)
    whose complete points are copied instead of run when their key is one
    of this sweep's. A key covers the resolved spec, the input files, the
    version and the code, so a copied point is the one this sweep would
    compute (runs are deterministic); it takes this sweep's parameters.

    `caveats`: warn (`dcsim.DcsimWarning`) of points whose settings work
    against their scheme, once per kind; points that leave flows
    unfinished are named in one warning at the end."""
    out = Path(out)
    if jobs is not None and jobs < 1:
        raise SpecError(f"--jobs: needs at least 1 worker, got {jobs}")
    points = sweep.points()  # validates every point before anything runs
    if caveats:
        from .spec.experiment import caveats as scheme_caveats

        said = set()
        for p in points:
            for w in scheme_caveats(p.spec):
                if w not in said:
                    said.add(w)
                    warn(f"{p.label()}: {w}")
        from .profiles import mixed_defaults

        mixed = mixed_defaults([{"profile": p.spec.profile, "scheme": {"name": p.spec.scheme.name}} for p in points])
        if mixed:
            warn(f"sweep {sweep.name}: {mixed}")
    sources = _reuse_dirs(reuse, out)
    check_output_dir(out)
    refuse_other_results(out, sweep.name)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SpecError(f"--out {out}: cannot create it ({e.strerror})") from None
    _clean_stale(out)
    _write_sweep_json(out, sweep, points)
    result = SweepResult(out, points)
    todo = []
    for p in points:
        if is_complete(out, p.key):
            result.skipped.append(p.key)
        elif (src := next((d for d in sources if is_complete(d, p.key)), None)) is not None:
            _adopt(out, p, src)
            result.reused.append(p.key)
        else:
            todo.append(p)
    say = log or (lambda msg: None if quiet else print(msg, file=sys.stderr))
    reused = f", {len(result.reused)} reused from {', '.join(map(str, sources))}" if result.reused else ""
    say(
        f"sweep {sweep.name}: {len(points)} points, {len(result.skipped)} already complete{reused}, "
        f"{len(todo)} to run"
    )
    others = _other_points(out, points)
    if others:
        say(f"sweep {sweep.name}: {out / 'points'} also holds {others} point(s) of an earlier run with other "
            "settings (another --set, mode or version); kept, not shown or reported: delete them or use another "
            "--out")
    if not todo:
        return result
    bar = _Bar(len(points), len(result.skipped) + len(result.reused), quiet)
    try:
        if scheduler is None:
            _run_local(todo, out, jobs or os.cpu_count() or 1, result, bar, say)
        else:
            _run_dask(todo, out, scheduler, result, bar, say)
    finally:
        bar.close()
    if result.unfinished:
        labels = {p.key: p.label() for p in points}
        named = "; ".join(f"{labels[k]}: {n}" for k, n in list(result.unfinished.items())[:4])
        more = f"; and {len(result.unfinished) - 4} more" if len(result.unfinished) > 4 else ""
        warn(f"sweep {sweep.name}: {len(result.unfinished)} point(s) left flows unfinished ({named}{more}); "
             "their statistics leave them out (summary.json: unfinished_flows)")
    if result.unsettled and caveats:
        # (a paper's figure says on its page how its runs settle)
        labels = {p.key: p.label() for p in points}
        named = "; ".join(f"{labels[k]}: {v}" for k, v in list(result.unsettled.items())[:4])
        more = f"; and {len(result.unsettled) - 4} more" if len(result.unsettled) > 4 else ""
        warn(f"sweep {sweep.name}: {len(result.unsettled)} point(s) not settled, their mean slowdown moving between "
             f"the earlier and later half of their flows ({named}{more}): more flows may change them (dcsim show "
             f"{out}: column 'not settled')")
    return result


def _other_points(out: Path, points: list[Point]) -> int:
    """Complete points in `out` that are not among `points` (the sweep run
    there before with other settings)."""
    keys = {p.key for p in points}
    return sum(1 for d in (out / "points").glob("*") if d.name not in keys and is_complete(out, d.name))


def _finish(point: Point, fut_result, out: Path, result: SweepResult, say) -> None:
    try:
        tables, summary = fut_result()
        _store(out, point, tables, summary)
        result.ran.append(point.key)
        summary = json.loads(summary)
        unfinished = summary.get("unfinished_flows", 0)
        if unfinished:
            result.unfinished[point.key] = unfinished
        moved = unsettled(summary.get("stats", {}))
        if moved:
            result.unsettled[point.key] = moved
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # a point that fails is reported; the sweep goes on
        msg = f"{type(e).__name__}: {e}"
        result.failed[point.key] = msg
        # failures are reported even when quiet
        print(f"dcsim: point failed ({point.label()}): {msg}\n  spec: {point.spec.model_dump_json()}",
              file=sys.stderr)
        if os.environ.get("DCSIM_DEBUG"):
            traceback.print_exc()


def _run_local(todo: list[Point], out: Path, jobs: int, result: SweepResult, bar: _Bar, say) -> None:
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(todo)), initializer=_worker_init,
                               initargs=(os.getpid(),))
    pending: dict[Future, Point] = {}
    # running points tell the bar how far they are (a dot-directory, which
    # a later run cleans up if this one is killed: `_clean_stale`)
    progress = _progress_dir(out) if bar.on else None
    try:
        for p in todo:
            path = str(progress / p.key) if progress is not None else None
            pending[pool.submit(simulate_point, p.spec.model_dump_json(), path)] = p
        while pending:
            done, _ = wait(pending, timeout=1.0 if progress is not None else None, return_when=FIRST_COMPLETED)
            for f in done:
                p = pending.pop(f)
                _finish(p, f.result, out, result, say)
                bar.finished += 1
            # (the pool marks one more point running than it has workers:
            # the one queued next; it has no progress file yet)
            files = [progress / p.key for p in pending.values()] if progress is not None else []
            bar.show(min(jobs, len(pending)), [ProgressFile.read(f) for f in files if f.exists()])
        pool.shutdown()
    except BaseException:
        # Ctrl-C or a crash: stop the workers now; complete points are safe.
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        if progress is not None:
            shutil.rmtree(progress, ignore_errors=True)


def _progress_dir(out: Path) -> Optional[Path]:
    """A directory of this run's own for its workers' progress files (a
    dot-directory under `points/`, which `_clean_stale` removes if the run
    is killed); None if it cannot be made: the bar then counts finished
    points only."""
    points = Path(out) / "points"
    try:
        points.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".progress-", dir=points))
    except OSError:
        return None


def connect(scheduler: Any):
    """A Dask client for an address or an existing client; a clear error if
    the scheduler cannot be reached."""
    from dask.distributed import Client

    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(str(scheduler), timeout="5s"), True
    except (OSError, TimeoutError, ValueError) as e:
        raise SpecError(f"--scheduler: cannot reach Dask scheduler {scheduler!r} ({type(e).__name__})") from None


def _run_dask(todo: list[Point], out: Path, scheduler: Any, result: SweepResult, bar: _Bar, say) -> None:
    from dask.distributed import as_completed

    client, owned = connect(scheduler)
    try:
        futures = {}
        for p in todo:
            f = client.submit(simulate_point, p.spec.model_dump_json(), key=f"dcsim-{p.key}", pure=False)
            futures[f] = p
        remaining = len(futures)
        try:
            for f in as_completed(list(futures)):
                remaining -= 1
                _finish(futures[f], f.result, out, result, say)
                bar.update(1, remaining)
        except BaseException:
            client.cancel(list(futures))
            raise
    finally:
        if owned:
            client.close()


def sweep_result(sweep: Sweep, out: str | Path, *, redraw: bool = False, **run) -> SweepResult:
    """`run_sweep(sweep, out, **run)`, or with `redraw` the points `out`
    already holds (`held_points`)."""
    # a paper's figure runs each scheme as the paper did: no caveats
    return held_points(sweep, out) if redraw else run_sweep(sweep, out, **{"caveats": False, **run})


def held_points(sweep: Sweep, out: str | Path) -> SweepResult:
    """The complete points `out` holds that are points of `sweep` as it is
    defined now (the same parameters), whatever version of dcsim ran them;
    nothing runs. For drawing a figure again (`dcsim reproduce --redraw`):
    a new version's point keys differ from the old one's, so a rerun would
    simulate every point again, hours at the papers' scale.

    Every complete point directory counts, not only those `sweep.json`
    lists: a run of a newer version, stopped early, has already listed its
    own keys there. Of several points with the same parameters the newest
    is taken. `sweep.json` is then made to list the points taken, so that
    the figure, the report and `dcsim show` read the same ones."""
    out = Path(out)
    try:
        info = json.loads((out / "sweep.json").read_text())
    except (OSError, ValueError):
        raise SpecError(f"--redraw: {out} holds no sweep to draw (run it there first)") from None
    if info.get("name") != sweep.name:
        raise SpecError(f"--redraw: {out} holds the sweep {info.get('name')!r}, not {sweep.name!r}")
    order = {_params_id(p.params): i for i, p in enumerate(sweep.points())}
    newest: dict[str, tuple[float, str, dict]] = {}
    held = 0
    for f in (out / "points").glob("*/summary.json"):
        if f.parent.name.startswith("."):  # a point being written
            continue
        held += 1
        params = json.loads(f.read_text()).get("point", {}).get("params", {})
        pid = _params_id(params)
        if pid in order and (pid not in newest or f.stat().st_mtime > newest[pid][0]):
            newest[pid] = (f.stat().st_mtime, f.parent.name, params)
    if not newest:
        raise SpecError(f"--redraw: none of the {held} complete point(s) {out} holds is a point of "
                        f"{sweep.name} as defined now (other seeds, or another grid?)")
    points = [Point(key=key, params=params, spec=None)
              for _, (_, key, params) in sorted(newest.items(), key=lambda kv: order[kv[0]])]
    _put_sweep_json(out, info | {"points": [{"key": p.key, "params": p.params} for p in points]})
    return SweepResult(out=out, points=points, skipped=[p.key for p in points])


def _params_id(params: dict) -> str:
    return json.dumps(params, sort_keys=True)
