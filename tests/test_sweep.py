"""Sweeps and the results store: grids, resumability, failures, bad input."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dcsim

from dcsim.errors import SpecError
from dcsim.results import is_complete, load_points, point_dir
from dcsim.runner import run_sweep
from dcsim.spec import Spec
from dcsim.sweep import Sweep, expand, load_sweep, point_key

ROOT = Path(__file__).resolve().parents[1]
BASE = {"topology": {"kind": "star", "hosts": 8}, "workload": {"flows": 60, "load": 0.5}}


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "dcsim", *map(str, args)], capture_output=True, text=True, **kw)


def write_sweep(tmp_path, grid, spec=None, name="s"):
    lines = [f'name = "{name}"', f'base = "{ROOT / "examples" / "star_many_to_one.toml"}"', "[spec]"]
    for k, v in (spec or {"workload.flows": 60}).items():
        lines.append(f"{k} = {json.dumps(v)}")
    lines.append("[grid]")
    for k, v in grid.items():
        lines.append(f'"{k}" = {json.dumps(v)}')
    p = tmp_path / f"{name}.toml"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_grid_expands_every_combination_in_order():
    pts = expand(BASE, {"workload.load": [0.2, 0.4, 0.6], "seed": [1, 2]})
    assert len(pts) == 6
    assert [p.params for p in pts[:2]] == [{"workload.load": 0.2, "seed": 1}, {"workload.load": 0.2, "seed": 2}]
    assert pts[3].spec.workload.load == 0.4 and pts[3].spec.seed == 2
    assert len({p.key for p in pts}) == 6
    # a grid naming the same point twice runs it once
    assert len(expand(BASE, {"seed": [1, 1, 2]})) == 2


def test_point_key_is_stable_and_sensitive(monkeypatch):
    a = Spec.model_validate(BASE)
    assert point_key(a) == point_key(Spec.model_validate(json.loads(json.dumps(BASE))))
    assert point_key(a) != point_key(a.with_overrides(seed=2))
    import dcsim.sweep

    before = point_key(a)
    monkeypatch.setattr(dcsim.sweep, "__version__", "9.9.9")
    assert point_key(a) != before  # a new version never reuses old results


def test_point_key_follows_cdf_file_contents(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("1000 0\n2000 1\n")
    s = Spec.model_validate({"workload": {"cdf": str(f)}})
    k1 = point_key(s)
    f.write_text("1000 0\n3000 1\n")
    assert point_key(s) != k1


def test_bad_grids_fail_before_running(tmp_path):
    with pytest.raises(SpecError, match="grid: unknown field 'workload.lod'"):
        load_sweep(write_sweep(tmp_path, {"workload.lod": [0.1]}))
    with pytest.raises(SpecError, match="grid is empty"):
        load_sweep(write_sweep(tmp_path, {}))
    with pytest.raises(SpecError, match="grid.seed: needs a non-empty list"):
        load_sweep(write_sweep(tmp_path, {"seed": []})).points()
    with pytest.raises(SpecError, match="workload.load: Input should be less than 1"):
        load_sweep(write_sweep(tmp_path, {"workload.load": [0.5, 1.5]})).points()


@pytest.mark.parametrize(
    "grid,needle",
    [
        ({"workload.lod": [0.1]}, "grid: unknown field 'workload.lod'"),
        ({}, "grid is empty"),
        ({"scheme.name": ["tcp", "xcp"]}, "scheme.name: unknown scheme 'xcp' (did you mean 'tcp'?)"),
    ],
)
def test_cli_bad_sweep_exits_2(tmp_path, grid, needle):
    r = cli("sweep", write_sweep(tmp_path, grid), "--out", tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_points_a_scheme_refuses_fail_before_any_point_runs(tmp_path):
    # expresspass needs ECMP; the default leaf-spine sprays: refused when
    # the sweep is read, not after the tcp point has run
    p = tmp_path / "x.toml"
    p.write_text('[spec]\nworkload.flows = 20\n[grid]\n"scheme.name" = ["tcp", "expresspass"]\n')
    r = cli("sweep", p, "--out", tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert "grid: the point scheme.name=expresspass: scheme expresspass sends a flow's credits back" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_sweep_file_mistakes_are_named(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text('[spec]\nworkload.flows = 20\n[gird]\nseed = [1]\n')
    r = cli("sweep", p, "--out", tmp_path / "out")
    assert r.returncode == 2 and "unknown sweep field 'gird' (did you mean 'grid'?)" in r.stderr, r.stderr
    # --set on a field the grid sweeps would be ignored: refused
    r = cli("sweep", write_sweep(tmp_path, {"seed": [1, 2]}), "--out", tmp_path / "out", "--set", "seed=5")
    assert r.returncode == 2 and "--set seed: the grid sweeps seed ([1, 2])" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    # ... and so would a variant's value
    v = tmp_path / "v.toml"
    v.write_text('[spec]\nworkload.flows = 20\n[variants.a]\n"workload.load" = 0.3\n[variants.b]\n"seed" = 2\n'
                 '[grid]\nvariant = ["a", "b"]\n')
    r = cli("sweep", v, "--out", tmp_path / "out", "--set", "workload.load=0.5")
    assert r.returncode == 2 and "--set workload.load: variants.a set workload.load" in r.stderr, r.stderr


def test_quoted_dotted_keys_in_the_spec_table(tmp_path):
    # "workload.flows" = 30 in [spec], as the grid quotes its keys
    p = tmp_path / "q.toml"
    p.write_text('[spec]\n"workload.flows" = 30\n"topology.kind" = "star"\ntopology.hosts = 4\n'
                 '[grid]\n"scheme.name" = ["tcp", "dctcp"]\n')
    points = load_sweep(p).points()
    assert [(q.spec.workload.flows, q.spec.topology.kind, q.spec.topology.hosts) for q in points] == [(30, "star", 4)] * 2
    assert Sweep(name="x", base={"workload.flows": 7}, grid={"seed": [1]}).points()[0].spec.workload.flows == 7


def test_a_sweeps_directory_takes_no_other_results(tmp_path):
    out = tmp_path / "out"
    assert cli("sweep", write_sweep(tmp_path, {"seed": [1]}, name="one"), "--out", out, "-q").returncode == 0
    r = cli("sweep", write_sweep(tmp_path, {"seed": [1]}, name="two"), "--out", out, "-q")
    assert r.returncode == 2 and "holds the sweep 'one'; give 'two' a directory of its own" in r.stderr, r.stderr
    assert json.loads((out / "sweep.json").read_text())["name"] == "one"  # untouched
    # the same sweep, grown, resumes
    r = cli("sweep", write_sweep(tmp_path, {"seed": [1, 2]}, name="one"), "--out", out, "-q")
    assert r.returncode == 0 and "1 point(s) run, 1 already complete" in r.stderr, r.stderr
    # a figure's quick and full sweeps share its directory, as they always have
    for name in ("fig-quick", "fig-full"):
        r = cli("sweep", write_sweep(tmp_path, {"seed": [1]}, name=name), "--out", tmp_path / "fig", "-q")
        assert r.returncode == 0, r.stderr
    assert dcsim.read_sweep(tmp_path / "fig").shape[0] == 1
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("x")
    r = cli("sweep", write_sweep(tmp_path, {"seed": [1]}, name="one"), "--out", tmp_path / "notes", "-q")
    assert r.returncode == 2 and "is not empty and holds no sweep" in r.stderr


def test_unreachable_scheduler_exits_2(tmp_path):
    r = cli("sweep", write_sweep(tmp_path, {"seed": [1]}), "--out", tmp_path / "out", "--scheduler", "tcp://127.0.0.1:9")
    assert r.returncode == 2, r.stderr
    assert "cannot reach Dask scheduler 'tcp://127.0.0.1:9'" in r.stderr and "Traceback" not in r.stderr


def test_sweep_runs_then_skips_complete_points(tmp_path):
    sweep = Sweep("t", BASE, {"workload.load": [0.3, 0.6], "seed": [1, 2]})
    r1 = run_sweep(sweep, tmp_path / "o", jobs=2, quiet=True)
    assert r1.ok and len(r1.ran) == 4 and not r1.skipped
    for p in r1.points:
        assert is_complete(tmp_path / "o", p.key)
        s = json.loads((point_dir(tmp_path / "o", p.key) / "summary.json").read_text())
        assert s["point"]["params"] == p.params and s["conservation_holds"]
    mtimes = {p.key: (point_dir(tmp_path / "o", p.key) / "flows.parquet").stat().st_mtime_ns for p in r1.points}
    r2 = run_sweep(sweep, tmp_path / "o", jobs=2, quiet=True)
    assert not r2.ran and len(r2.skipped) == 4
    assert mtimes == {p.key: (point_dir(tmp_path / "o", p.key) / "flows.parquet").stat().st_mtime_ns for p in r2.points}
    assert len(load_points(tmp_path / "o")) == 4
    # the same sweep with another setting: the earlier points are kept and said
    said = []
    other = Sweep("t", {**BASE, "workload": {**BASE["workload"], "flows": 30}}, sweep.grid)
    r3 = run_sweep(other, tmp_path / "o", jobs=2, log=said.append)
    assert len(r3.ran) == 4 and len(load_points(tmp_path / "o")) == 4
    assert any("also holds 4 point(s) of an earlier run with other settings" in m for m in said), said


def test_reuse_copies_points_of_the_same_key_under_this_sweeps_names(tmp_path):
    # figure A names a spec "x", figure B names the same spec "on" and adds one: B runs only the new point
    a = Sweep("a", BASE, {"variant": ["x"], "workload.load": [0.3, 0.6]}, variants={"x": {"seed": 3}})
    b = Sweep("b", BASE, {"variant": ["on", "off"], "workload.load": [0.3]},
              variants={"on": {"seed": 3}, "off": {"seed": 4}})
    ra = run_sweep(a, tmp_path / "a", jobs=1, quiet=True)
    assert ra.ok and len(ra.ran) == 2
    rb = run_sweep(b, tmp_path / "b", jobs=1, quiet=True, reuse=[tmp_path / "a"])
    on, off = rb.points
    assert rb.reused == [on.key] and rb.ran == [off.key] and not rb.skipped
    # the copy is the point B would have computed, labelled as B labels it
    fresh = run_sweep(b, tmp_path / "fresh", jobs=1, quiet=True)
    assert len(fresh.ran) == 2
    assert _flows_bytes(tmp_path / "b") == _flows_bytes(tmp_path / "fresh")
    s = json.loads((point_dir(tmp_path / "b", on.key) / "summary.json").read_text())
    assert s["point"] == {"key": on.key, "params": {"variant": "on", "workload.load": 0.3}}
    assert [p["point"]["params"]["variant"] for p in load_points(tmp_path / "b")] == ["on", "off"]
    # A's own record is untouched, and a second run of B finds both complete
    sa = json.loads((point_dir(tmp_path / "a", on.key) / "summary.json").read_text())
    assert sa["point"]["params"]["variant"] == "x"
    again = run_sweep(b, tmp_path / "b", jobs=1, quiet=True, reuse=[tmp_path / "a"])
    assert len(again.skipped) == 2 and not again.reused and not again.ran


def test_reuse_of_what_is_not_a_results_directory_fails_before_running(tmp_path):
    sweep = Sweep("t", BASE, {"workload.load": [0.3]})
    with pytest.raises(SpecError, match="--reuse .*nope: not a results directory"):
        run_sweep(sweep, tmp_path / "o", quiet=True, reuse=[tmp_path / "nope"])
    assert not (tmp_path / "o").exists()
    run_sweep(sweep, tmp_path / "o", quiet=True)
    with pytest.raises(SpecError, match="is the output directory itself"):
        run_sweep(sweep, tmp_path / "o", quiet=True, reuse=[tmp_path / "o"])
    r = cli("sweep", write_sweep(tmp_path, {"seed": [1]}), "--out", tmp_path / "o2", "--reuse", tmp_path / "nope")
    assert r.returncode == 2 and "not a results directory" in r.stderr
    r = cli("reproduce", "pfabric-fig16", "--out", tmp_path / "f", "--reuse", tmp_path / "nope")
    assert r.returncode == 2 and "not a results directory" in r.stderr and not (tmp_path / "f").exists()


def test_failing_point_is_reported_and_the_rest_completes(tmp_path):
    # Host 12 exists only in the 16-host star: the 8-host point fails when
    # it runs, the other completes, the sweep exits non-zero naming it.
    (tmp_path / "t.txt").write_text("0 1 12 5000\n0 2 3 5000\n")
    p = tmp_path / "f.toml"
    p.write_text(
        'name = "f"\n[spec]\ntopology.kind = "star"\nworkload.matrix = "trace"\n'
        f'workload.trace = "{tmp_path / "t.txt"}"\n[grid]\n"topology.hosts" = [8, 16]\n'
    )
    r = cli("sweep", p, "--out", tmp_path / "out", "-q")
    assert r.returncode == 1, r.stderr
    assert "1 point(s) run, 0 already complete, 1 failed" in r.stderr
    assert "failed points:" in r.stderr and "topology.hosts=8" in r.stderr
    assert "dst 12 is not a host" in r.stderr and '"hosts":8' in r.stderr  # the spec is shown
    assert len(load_points(tmp_path / "out")) == 1


def _slow_sweep(tmp_path):
    # 6 points of ~1 s each, one worker: time to interrupt it part-way.
    return write_sweep(tmp_path, {"seed": [1, 2, 3, 4, 5, 6]},
                       spec={"workload.flows": 900, "workload.load": 0.7}, name="slow")


def _wait_for_points(out, n, proc, timeout=60):
    t0 = time.time()
    while time.time() - t0 < timeout:
        pts = out / "points"
        if pts.is_dir() and sum(1 for d in pts.iterdir() if not d.name.startswith(".")) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("sweep made no progress")


def _flows_bytes(out):
    return {d.name: (d / "flows.parquet").read_bytes() for d in (out / "points").iterdir() if not d.name.startswith(".")}


@pytest.mark.parametrize("how", ["sigkill", "ctrl-c"])
def test_interrupted_sweep_resumes_to_the_same_results(tmp_path, how):
    sweep_file = _slow_sweep(tmp_path)
    out = tmp_path / "out"
    # SIGINT as a terminal leaves it, even when the tests themselves run in
    # the background (where a shell starts them with SIGINT ignored)
    proc = subprocess.Popen([sys.executable, "-m", "dcsim", "sweep", str(sweep_file), "--out", str(out), "-j", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_points(out, 2, proc)
    if how == "sigkill":
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its workers, at once
        proc.wait()
    else:
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "interrupted" in err and "run the same command to resume" in err
        assert "Traceback" not in err
    done = _flows_bytes(out)
    assert 2 <= len(done) < 6
    # no half-written point is left behind
    assert all((out / "points" / k / "summary.json").is_file() for k in done)
    r = cli("sweep", sweep_file, "--out", out, "-j", "2", "-q")
    assert r.returncode == 0, r.stderr
    assert f"{6 - len(done)} point(s) run, {len(done)} already complete, 0 failed" in r.stderr
    assert not any(d.name.startswith(".") for d in (out / "points").iterdir())
    # identical to an uninterrupted sweep
    clean = tmp_path / "clean"
    assert cli("sweep", sweep_file, "--out", clean, "-j", "2", "-q").returncode == 0
    assert _flows_bytes(out) == _flows_bytes(clean)


def _alive(pid: int) -> bool:
    """A process that still runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("command", ["sweep", "reproduce"])
def test_workers_end_when_the_main_process_is_killed(tmp_path, command):
    # SIGKILL of the main process alone (not its group): the workers must
    # not simulate on under PID 1.
    if command == "sweep":
        sweep_file = write_sweep(tmp_path, {"seed": [1, 2, 3, 4]}, spec={"workload.flows": 200_000}, name="long")
        args = ["sweep", str(sweep_file)]
    else:
        args = ["reproduce", "pfabric-fig7-9", "--quick"]
    proc = subprocess.Popen([sys.executable, "-m", "dcsim", *args, "--out", str(tmp_path / "out"), "-j", "2", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    t0 = time.time()
    workers: list[int] = []
    while len(workers) < 2 and time.time() - t0 < 60:
        assert proc.poll() is None, proc.communicate()
        workers = [p for p in _children(proc.pid) if _alive(p)]
        time.sleep(0.1)
    assert len(workers) == 2, "the pool did not start"
    time.sleep(0.5)  # the workers are simulating now
    proc.kill()
    proc.wait()
    t0 = time.time()
    while any(_alive(p) for p in workers) and time.time() - t0 < 10:
        time.sleep(0.1)
    survivors = [p for p in workers if _alive(p)]
    for p in survivors:  # do not leave them running if the test fails
        os.kill(p, signal.SIGKILL)
    assert not survivors, "pool workers outlived the killed main process"


def test_results_follow_the_umask(tmp_path):
    sweep_file = write_sweep(tmp_path, {"seed": [1]})
    spec = ROOT / "examples" / "star_trace.toml"
    for mask, mode in ((0o022, 0o755), (0o077, 0o700), (0o002, 0o775)):
        out = tmp_path / f"m{mask:o}"
        run = subprocess.run(f"umask {mask:03o} && {sys.executable} -m dcsim run {spec} --out {out}/run -q && "
                             f"{sys.executable} -m dcsim sweep {sweep_file} --out {out}/sweep -q",
                             shell=True, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        key = next((out / "sweep" / "points").iterdir())
        for d in (out / "run", out / "sweep", out / "sweep" / "points", key):
            assert d.stat().st_mode & 0o777 == mode, (d, oct(d.stat().st_mode))
        assert (out / "run" / "flows.parquet").stat().st_mode & 0o777 == mode & 0o666


def test_variants_change_fields_together(tmp_path):
    p = tmp_path / "v.toml"
    p.write_text(f'base = "{ROOT / "examples" / "star_many_to_one.toml"}"\n[spec]\nworkload.flows = 30\n'
                 '[variants.a]\n"scheme.name" = "pfabric"\n"routing.load_balancing" = "spray"\n'
                 '[variants.b]\n"scheme.name" = "dctcp"\n"scheme.g" = 0.25\n'
                 '[grid]\nvariant = ["a", "b"]\nseed = [1, 2]\n')
    sw = load_sweep(p)
    pts = sw.points()
    assert [pt.params for pt in pts[:2]] == [{"variant": "a", "seed": 1}, {"variant": "a", "seed": 2}]
    a, b = pts[0].spec, pts[2].spec
    assert (a.scheme.name, a.routing.load_balancing) == ("pfabric", "spray")
    assert (b.scheme.name, b.scheme.g, b.routing.load_balancing) == ("dctcp", 0.25, "ecmp")
    r = cli("sweep", p, "--out", tmp_path / "o", "-q")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "o" / "sweep.json").read_text())["variants"]["b"]["scheme.g"] == 0.25
    # a variant the grid names but the file does not define, or a bad field
    bad = p.read_text().replace('variant = ["a", "b"]', 'variant = ["a", "c"]')
    p.write_text(bad)
    r = cli("sweep", p, "--out", tmp_path / "o2")
    assert r.returncode == 2 and "no variant named 'c'" in r.stderr
    p.write_text(bad.replace('variant = ["a", "c"]', 'variant = ["a"]').replace('"scheme.g" = 0.25', '"sheme.g" = 1'))
    r = cli("sweep", p, "--out", tmp_path / "o3")
    assert r.returncode == 2 and "variants.b: unknown field 'sheme.g'" in r.stderr


def test_fixed_fields_run_a_variant_once(tmp_path):
    # a variant that keeps a grid field at one value is one point, not one
    # per value; the others still run at every value
    p = tmp_path / "f.toml"
    p.write_text(f'base = "{ROOT / "examples" / "star_many_to_one.toml"}"\n[spec]\nworkload.flows = 20\n'
                 '[variants.a]\n"scheme.name" = "pfabric"\n[variants.b]\n"scheme.name" = "dctcp"\n'
                 '[fixed.b]\n"workload.load" = 0.2\n'
                 '[grid]\nvariant = ["a", "b"]\n"workload.load" = [0.2, 0.4, 0.6]\n')
    pts = load_sweep(p).points()
    assert [pt.params for pt in pts] == [{"variant": "a", "workload.load": x} for x in (0.2, 0.4, 0.6)] + [
        {"variant": "b", "workload.load": 0.2}]
    assert pts[-1].spec.workload.load == 0.2
    r = cli("sweep", p, "--out", tmp_path / "o", "-q")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "o" / "sweep.json").read_text())["fixed"] == {"b": {"workload.load": 0.2}}
    for old, new, needle in (('[fixed.b]', '[fixed.c]', "fixed.c: no variant named 'c'"),
                             ('"workload.load" = 0.2\n[grid]', 'seed = 2\n[grid]', "fixed.b: 'seed' is not a grid field")):
        q = tmp_path / "bad.toml"
        q.write_text(p.read_text().replace(old, new))
        r = cli("sweep", q, "--out", tmp_path / "o2")
        assert r.returncode == 2 and needle in r.stderr, r.stderr


def test_point_keys_follow_the_code_that_computes_results_only():
    from dcsim.sweep import RESULT_CODE, result_files

    pkg = Path(dcsim.__file__).resolve().parent
    names = {f.relative_to(pkg).as_posix() for f in result_files()}
    assert all((pkg / n).exists() for n in RESULT_CODE)
    assert {"spec/schemes/pfabric.py", "simulate.py", "metrics.py", "data/workloads/web_search.txt"} <= names
    # drawing, reporting and the command line do not change a point's results
    assert not any(n.startswith("figures/") or n in {"cli.py", "report.py", "runner.py"} for n in names)
    assert "data/catalog.json" not in names


def test_a_base_table_instead_of_a_file_name_is_explained(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('name = "x"\n[base]\nseed = 3\n[grid]\nseed = [1]\n')
    r = cli("sweep", p, "--out", tmp_path / "o")
    assert r.returncode == 2 and "base must name a spec file" in r.stderr and "[spec]" in r.stderr


def test_a_running_point_reports_how_far_it_has_come(tmp_path):
    from dcsim.runner import ProgressFile, simulate_point

    path = tmp_path / "progress"
    simulate_point(Spec.model_validate(BASE).model_dump_json(), str(path))
    assert ProgressFile.read(path) == 1.0  # the last report is never throttled away
    # a run stopped by its stop time counts the time simulated
    stopped = Spec.model_validate({**BASE, "workload": {"flows": 2000, "load": 0.5}, "run": {"stop_time_s": 0.001}})
    _, summary = simulate_point(stopped.model_dump_json(), str(tmp_path / "stopped"))
    summary = json.loads(summary)
    assert summary["flows_finished"] < summary["flows_total"] / 10  # by flows it would be near 0
    assert ProgressFile.read(tmp_path / "stopped") == 1.0
    # what cannot be read counts as not started, and never fails the bar
    path.write_text("garbage")
    assert ProgressFile.read(path) == 0.0
    assert ProgressFile.read(tmp_path / "missing") == 0.0
    # nor does a report that cannot be written fail the point
    tables, _ = simulate_point(Spec.model_validate(BASE).model_dump_json(), str(tmp_path / "no" / "dir"))
    assert "flows.parquet" in tables
    throttled = ProgressFile(tmp_path / "t", every=60.0)
    throttled.write(0.1)
    throttled.write(0.5)  # within `every` of the last write: skipped
    assert ProgressFile.read(tmp_path / "t") == pytest.approx(0.1)
    throttled.write(1.0)
    assert ProgressFile.read(tmp_path / "t") == 1.0


def test_the_sweep_bar_adds_the_running_points_shares(tmp_path):
    import dcsim.runner as runner

    bar = runner._Bar(total=4, done=1, quiet=True)

    class Fake:  # stands in for tqdm: what the bar shows
        n, postfix = 0.0, ""

        def set_postfix_str(self, s, refresh):
            self.postfix = s

    bar.bar = Fake()
    (tmp_path / "a").write_text("0.5\n")
    bar.show(2, [runner.ProgressFile.read(tmp_path / "a"), runner.ProgressFile.read(tmp_path / "b")])
    assert bar.bar.n == pytest.approx(1.5) and bar.bar.postfix == "2 running: 50%, 0%"
    bar.update(1, 1)
    assert bar.bar.n == 2 and bar.bar.postfix == "1 running"


def test_a_sweep_on_a_terminal_hands_its_workers_progress_files(tmp_path, monkeypatch):
    import dcsim.runner as runner

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    paths, seen = [], []
    real_submit = runner.ProcessPoolExecutor.submit

    def submit(self, fn, *args):
        paths.append(args[1])
        return real_submit(self, fn, *args)

    monkeypatch.setattr(runner.ProcessPoolExecutor, "submit", submit)
    real_show = runner._Bar.show

    def show(self, running, shares):
        real_show(self, running, shares)
        seen.append(self.bar.n)

    monkeypatch.setattr(runner._Bar, "show", show)
    sw = Sweep(name="s", base=BASE, grid={"seed": [1, 2]})
    res = run_sweep(sw, tmp_path / "out", jobs=1)
    assert res.ok and len(res.ran) == 2
    # one file per point, in a directory of the run's own under points/,
    # removed when the sweep ends
    keys = [p.key for p in res.points]
    assert [Path(p).name for p in paths] == keys and len({Path(p).parent for p in paths}) == 1
    assert Path(paths[0]).parent.parent == tmp_path / "out" / "points"
    assert Path(paths[0]).parent.name.startswith(".") and not Path(paths[0]).parent.exists()
    assert seen == sorted(seen) and seen[-1] == 2  # never backwards; ends at every point


def test_cli_sweep_warns_once_of_points_against_their_scheme(tmp_path):
    # HPCC sprayed over a leaf-spine: every point works against its scheme;
    # said once (run_sweep's DcsimWarning, printed as the CLI's own line)
    p = tmp_path / "h.toml"
    p.write_text('name = "h"\n[spec.topology]\nkind = "leaf_spine"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n'
                 '[spec.scheme]\nname = "hpcc"\n[spec.routing]\nload_balancing = "round_robin"\n'
                 '[spec.workload]\nflows = 20\n[grid]\nseed = [1, 2]\n')
    r = cli("sweep", p, "--out", tmp_path / "o", "-j", 1, "-q")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if "recovers from reordering" in line]
    assert len(lines) == 1 and lines[0].startswith("dcsim: warning: "), r.stderr
