"""The figure registry, `dcsim reproduce`, reports (checked in a real
browser) and sweeps on a Dask cluster."""

import dataclasses
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from dcsim import figures, report
from dcsim.errors import SpecError
from dcsim.results import load_points, point_dir
from dcsim.runner import run_sweep
from dcsim.sweep import Sweep
from dcsim.figures.bfc import BySizeFigure
from dcsim.figures.faults import FaultFigure
from dcsim.figures.model import ModelFigure
from dcsim.figures.single import RunFigure

TINY = dataclasses.replace(
    figures.REGISTRY["pfabric-fig7-9"],
    name="tiny-test-figure",
    base={"topology": {"kind": "star", "hosts": 8}, "workload": {"size_quantum_bytes": 1460}},
    series_values=("tcp", "pfabric", "ideal"),
    quick=figures.Mode(x_values=(0.3, 0.6), flows=150),
)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "dcsim", *map(str, args)], capture_output=True, text=True)


def test_registered_figures_have_valid_sweeps():
    for fig in figures.REGISTRY.values():
        if isinstance(fig, RunFigure):
            assert len(fig.sweep("quick").points()) == len(fig.sweep("full").points()) == 1
            continue
        if isinstance(fig, ModelFigure):  # no simulation
            continue
        if isinstance(fig, FaultFigure):  # every scheme with each load balancing, the failure in the run
            for mode in ("quick", "full"):
                points = fig.sweep(mode).points()
                assert len(points) == 8 and all(p.spec.workload.flows == fig.mode(mode).flows for p in points)
                assert all(p.spec.faults[0].until_ms == fig.mode(mode).repair_ms for p in points)
            continue
        if isinstance(fig, BySizeFigure):  # every scheme at one load
            for mode in ("quick", "full"):
                points = fig.sweep(mode).points()
                assert [p.params["variant"] for p in points] == list(fig.variants)
                assert all(p.spec.workload.flows == fig.flows[mode] for p in points)
            continue
        quick, full = fig.sweep("quick").points(), fig.sweep("full").points()
        # a series blind to x runs once per facet and seed (Figs. 10-11)
        per_x = len(fig.series_values) - len(fig.x_blind)
        assert len(quick) == len(fig.facets) * len(fig.quick.seeds) * (
            per_x * len(fig.quick.x_values) + len(fig.x_blind))
        assert len(full) >= len(quick)
        # the mode's flow count, unless the flows are the x axis (PIAS Fig. 10)
        assert all(p.spec.workload.flows == (p.params[fig.x] if fig.x == "workload.flows" else fig.full.flows)
                   for p in full)
        assert all(p.spec.workload.matrix != "incast" or p.spec.workload.requests >= 1 for p in full)
    fig = figures.get("pfabric-fig7-9")
    assert fig.full.flows == 100_000 and fig.full.x_values == (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def test_list_and_unknown_figure():
    r = cli("list", "figures")
    assert r.returncode == 0 and "pfabric-fig7-9" in r.stdout
    assert "pias-fig6" not in r.stdout  # listed as their groups only
    assert "papers: bfc, cs244, dcsim, pfabric, pias (`dcsim reproduce PAPER`" in r.stdout
    r = cli("reproduce", "fig99", "--out", "/tmp/never")
    assert r.returncode == 2 and "unknown figure 'fig99'" in r.stderr
    r = cli("reproduce", "bfc-fig11", "--out", "/tmp/never")
    assert r.returncode == 2 and "its panels are bfc-fig11b, bfc-fig11a" in r.stderr


def test_a_figure_of_a_group_runs_its_group(tmp_path):
    # papers and issues name single figures; the registry draws some of
    # them together: every number a group covers resolves to it
    groups = {"pias-fig5-7": (5, 6, 7), "pias-fig8-9": (8, 9), "pias-fig14-16": (14, 15, 16),
              "pfabric-fig7-9": (7, 8, 9), "pfabric-fig10-11": (10, 11), "pfabric-fig14-15": (14, 15)}
    for group, numbers in groups.items():
        paper = group.split("-")[0]
        for n in numbers:
            assert figures.resolve(f"{paper}-fig{n}") == (
                group, f"{paper}-fig{n} is drawn with Figs. {numbers[0]}-{numbers[-1]}: running {group}")
    assert figures.resolve("pias-fig17") == ("pias-fig17", None)  # registered alone
    assert figures.resolve("pfabric-fig12") == ("pfabric-fig12", None)
    for unknown in ("pias-fig3", "pias-fig20", "bfc-fig31"):
        with pytest.raises(SpecError, match=f"unknown figure '{unknown}'"):
            figures.resolve(unknown)
    # the command line says so in one line, then goes on (here: to a bad --out)
    (tmp_path / "file").write_text("")
    r = cli("reproduce", "pias-fig6", "--out", tmp_path / "file" / "x")
    assert r.returncode == 2
    assert r.stderr.splitlines()[0] == "dcsim: note: pias-fig6 is drawn with Figs. 5-7: running pias-fig5-7"
    assert "--out" in r.stderr.splitlines()[1]
    r = cli("reproduce", "pias-fig6", "--seed", "-1", "--out", tmp_path / "never")
    assert r.returncode == 2 and "--seed: must be in 0..2^63-1, got -1" in r.stderr


def test_reproduce_with_other_seeds(tmp_path):
    # a seed spread: --seed replaces the figure's seed 1; several seeds in
    # one directory are averaged point by point
    tiny = dataclasses.replace(TINY, name="tiny-seeds", facets=("web_search",), series_values=("tcp",),
                               quick=figures.Mode(x_values=(0.5,), flows=100))
    figures.REGISTRY[tiny.name] = tiny
    try:
        tables = {seeds: figures.reproduce(tiny.name, tmp_path / "-".join(map(str, seeds)), jobs=1, quiet=True,
                                           seeds=seeds)[1] for seeds in ((1,), (3,), (1, 3))}
    finally:
        del figures.REGISTRY[tiny.name]
    assert [p["spec"]["seed"] for p in load_points(tmp_path / "3")] == [3]
    assert json.loads((tmp_path / "1-3" / "figure.json").read_text())["seeds"] == [1, 3]
    one, three, both = (tables[s].all_mean.item() for s in ((1,), (3,), (1, 3)))
    assert one != three and tables[(1, 3)].seeds.item() == 2
    assert both == pytest.approx((one + three) / 2, rel=1e-12)
    # figures that are not sweeps over seeds say so
    with pytest.raises(SpecError, match="--seed: pfabric-fig22 is not a sweep over seeds"):
        figures.reproduce("pfabric-fig22", tmp_path / "f22", seeds=(2,))


@pytest.fixture(scope="module")
def tiny_figure_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fig")
    figures.REGISTRY[TINY.name] = TINY
    try:
        result, table = figures.reproduce(TINY.name, out, mode="quick", jobs=2, quiet=True)
    finally:
        del figures.REGISTRY[TINY.name]
    assert result.ok
    return out, table


def test_reproduce_draws_and_tabulates(tiny_figure_dir):
    out, table = tiny_figure_dir
    assert (out / "tiny-test-figure.png").stat().st_size > 10_000
    assert (out / "tiny-test-figure.svg").read_text().lstrip().startswith("<?xml")
    csv = pd.read_csv(out / "tiny-test-figure.csv")
    assert len(csv) == 12  # 2 workloads x 3 schemes x 2 loads
    assert set(csv.facet) == {"web_search", "data_mining"}
    assert set(csv.series) == {"tcp", "pfabric", "ideal"}
    assert (csv.all_mean >= 0.999).all() and (csv.small_p99 >= csv.small_mean).all()
    # the series' scheme fields came from the figure (the scripts' pools)
    specs = {p["point"]["params"]["variant"]: p["spec"]["scheme"] for p in load_points(out)}
    assert specs["tcp"]["connections"] == "pool" and specs["tcp"]["connections_per_pair"] == 8
    assert specs["pfabric"]["connections_per_pair"] == 1
    info = json.loads((out / "figure.json").read_text())
    by = {(p["where"], p["facet"], p["panel"], p["series"]): p for p in info["paper"]}
    tcp_p99 = by[("§5.4.1, Fig. 8 caption", "web_search", "small_p99", "tcp")]
    assert len(tcp_p99["ours"]) == 2 and tcp_p99["relative_to"] is None
    # a statement relative to Ideal: pFabric's values over Ideal's, less one
    rel = by[("§5.4.1, Fig. 7", "web_search", "all_mean", "pfabric")]
    row = {s: csv[(csv.facet == "web_search") & (csv.series == s) & (csv.x == 0.6)].all_mean.item()
           for s in ("pfabric", "ideal")}
    assert rel["ours"]["0.6"] == pytest.approx(row["pfabric"] / row["ideal"] - 1)
    # statements about a series the figure lacks (DCTCP) have no data
    assert by[("§1", "web_search", "small_mean", "dctcp")]["verdict"] == "no data"
    # a statement about 80% load only: no point of this sweep
    assert by[("§5.4.1, Fig. 8", "web_search", "large_mean", "pfabric")]["verdict"] == "no data"
    for p in info["paper"]:
        assert p["verdict"] in ("consistent", "no data") or p["verdict"].startswith("differs")


def test_redraw_draws_again_from_the_points_held_whatever_version_ran_them(tiny_figure_dir, tmp_path):
    out, table = tiny_figure_dir
    old = tmp_path / "old"
    shutil.copytree(out, old)
    # as if an older dcsim had run it: other point keys and version, an old
    # figure.json and no drawing; a rerun would simulate every point again
    info = json.loads((old / "sweep.json").read_text())
    info["version"] = "0.0.1"
    for p in info["points"]:
        key, p["key"] = p["key"], "old" + p["key"][3:]
        (old / "points" / key).rename(old / "points" / p["key"])
        summary = old / "points" / p["key"] / "summary.json"
        summary.write_text(json.dumps(json.loads(summary.read_text()) | {"point": {**p}}))
    # ... and a newer version's run, stopped before any point finished,
    # has listed its own keys in sweep.json
    listed = [p["key"] for p in info["points"]]
    (old / "sweep.json").write_text(json.dumps(info | {"points": [p | {"key": "new" + p["key"][3:]}
                                                                  for p in info["points"]]}))
    (old / "figure.json").write_text("{}")
    for f in old.glob("tiny-test-figure.*"):
        f.unlink()
    before = sorted(p.name for p in (old / "points").iterdir())
    figures.REGISTRY[TINY.name] = TINY
    try:
        result, again = figures.reproduce(TINY.name, old, mode="quick", quiet=True, redraw=True)
        with pytest.raises(SpecError, match="--redraw: .* holds no sweep to draw"):
            figures.reproduce(TINY.name, tmp_path / "empty", mode="quick", quiet=True, redraw=True)
        with pytest.raises(SpecError, match="holds the sweep 'tiny-test-figure-quick', not 'tiny-test-figure-full'"):
            figures.reproduce(TINY.name, old, mode="full", quiet=True, redraw=True)
        # the points held are seed 1's: another seed has none to draw
        with pytest.raises(SpecError, match="none of the 12 complete point.s. .* is a point of tiny-test-figure"):
            figures.reproduce(TINY.name, old, mode="quick", quiet=True, redraw=True, seeds=(3,))
        with pytest.raises(SpecError, match="--reuse: --redraw runs nothing"):
            figures.reproduce(TINY.name, old, mode="quick", quiet=True, redraw=True, reuse=[out])
    finally:
        del figures.REGISTRY[TINY.name]
    assert result.ran == [] and len(result.skipped) == 12 and result.ok
    assert sorted(p.name for p in (old / "points").iterdir()) == before  # nothing ran, nothing moved
    # sweep.json now lists the points drawn, for the report and `dcsim show`
    assert sorted(p["key"] for p in json.loads((old / "sweep.json").read_text())["points"]) == sorted(listed)
    pd.testing.assert_frame_equal(again, table)
    assert (old / "tiny-test-figure.png").stat().st_size > 10_000
    drawn = json.loads((old / "figure.json").read_text())
    assert drawn["complete_points"] == 12 and drawn["paper"] == json.loads((out / "figure.json").read_text())["paper"]
    r = cli("reproduce", "pfabric-fig18", "--redraw", "--reuse", old, "--out", tmp_path / "x")
    assert r.returncode == 2 and "--reuse: --redraw runs nothing" in r.stderr
    r = cli("reproduce", "pfabric-fig18", "--redraw", "--out", old)
    assert r.returncode == 2 and "holds figure tiny-test-figure's results; give pfabric-fig18 a dir" in r.stderr
    (old / "figure.json").unlink()  # the sweep still names its figure
    r = cli("reproduce", "pfabric-fig18", "--redraw", "--out", old)
    assert r.returncode == 2 and "holds the sweep 'tiny-test-figure-quick', not 'pfabric-fig18-quick'" in r.stderr


def test_paper_bound_verdicts():
    b = figures.PaperBound("x", "f", "p", "s", low=10.0)
    assert b.check([11, 12]) == "consistent"
    assert b.check([9, 12]) == "differs at 1 of 2 points"
    assert b.check([]) == "no data"


def _chromium_dom(page: Path) -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "headless Chromium is needed (make test installs Debian's chromium)"
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120,
        )
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_report_loads_in_a_browser_with_every_figure_decoded(tiny_figure_dir, tmp_path):
    out, _ = tiny_figure_dir
    # a plain sweep next to the figure: the report covers both
    sweep_dir = tmp_path / "root" / "sweep"
    run_sweep(Sweep("plain", {"topology": {"kind": "star"}, "workload": {"flows": 40}}, {"seed": [1, 2]}),
              sweep_dir, jobs=1, quiet=True)
    shutil.copytree(out, tmp_path / "root" / "figure")
    # and a single run
    from dcsim.simulate import run_to_dir
    from dcsim.spec import Spec

    run_to_dir(Spec.model_validate({"name": "lone", "topology": {"kind": "star"}, "workload": {"flows": 60}}),
               tmp_path / "root" / "run", quiet=True)
    page = report.write(tmp_path / "root")
    text = page.read_text()
    for key in [p["point"]["key"] for p in load_points(tmp_path / "root" / "figure")]:
        assert key in text  # the spec of every point
    assert "Against the paper" in text and "Versions" in text and "Sweep plain" in text
    assert "Run lone" in text
    # the figure's table names its columns as the plots do
    assert "small_p99: (0, 100KB]: 99th percentile (Normalized FCT)" in text
    assert "x: Load (workload.load)" in text and "flows (started: finished or not)" in text
    # the points of a sweep are not listed as single runs
    assert text.count("<h2>Run ") == 1
    dom = _chromium_dom(page)
    import re

    m = re.search(r'data-images-ok="(\d+)" data-images-total="(\d+)"', dom)
    assert m, dom[:500]
    ok, total = int(m.group(1)), int(m.group(2))
    assert total >= 2 and ok == total  # the figure's plot and the run's


def test_report_of_nothing_exits_2(tmp_path):
    r = cli("report", tmp_path)
    assert r.returncode == 2 and "holds no results" in r.stderr


def test_sweep_through_a_dask_cluster_matches_the_local_pool(tmp_path):
    from dask.distributed import Client, LocalCluster

    sweep = Sweep("d", {"topology": {"kind": "star", "hosts": 8}, "workload": {"flows": 80}},
                  {"workload.load": [0.3, 0.6], "seed": [1, 2]})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        r = run_sweep(sweep, tmp_path / "dask", scheduler=client, quiet=True)
        assert r.ok and len(r.ran) == 4
        # by address, as `dcsim sweep --scheduler tcp://...` does; all complete now
        r2 = run_sweep(sweep, tmp_path / "dask", scheduler=cluster.scheduler_address, quiet=True)
        assert not r2.ran and len(r2.skipped) == 4
    local = run_sweep(sweep, tmp_path / "local", jobs=2, quiet=True)
    for p in local.points:
        a = (tmp_path / "dask" / "points" / p.key / "flows.parquet").read_bytes()
        b = (tmp_path / "local" / "points" / p.key / "flows.parquet").read_bytes()
        assert a == b


def test_panels_use_the_papers_y_ranges_and_mark_points_off_the_scale():
    import matplotlib.pyplot as plt

    fig = figures.get("pfabric-fig7-9")
    rows = []
    for facet in fig.facets:
        for x, big in ((0.2, 4.0), (0.8, 42.0)):
            rows.append({"facet": facet, "series": "tcp", "x": x, **{p.key: big for p in fig.panels}})
    figure = figures.draw(fig, pd.DataFrame(rows))
    axes = figure.axes
    by_title = {ax.get_title(): ax for ax in axes}
    small_p99 = next(ax for t, ax in by_title.items() if t.startswith("Web search") and "99th" in t)
    assert small_p99.get_ylim() == (0, 10)
    assert "paper: TCP-DropTail >= 10" in small_p99.get_title()
    # 42 is off the 0-10 scale: a triangle on the edge and its value
    assert [t.get_text() for t in small_p99.texts] == ["42"]
    web_large = next(ax for t, ax in by_title.items() if t.startswith("Web search") and "10MB, inf" in t)
    mining_large = next(ax for t, ax in by_title.items() if t.startswith("Data mining") and "10MB, inf" in t)
    assert web_large.get_ylim() == (0, 25) and mining_large.get_ylim() == (0, 10)
    overall = next(ax for t, ax in by_title.items() if "all flows" in t)
    # no range in the paper's text: from 0 to 8% above the highest point
    assert overall.get_ylim() == pytest.approx((0, 42 * 1.08))
    plt.close(figure)
    # lines close together far from 0 keep clear of the top edge (PIAS
    # Fig. 17, data mining: 0.0887 and 0.0905 ms)
    fig17 = figures.get("pias-fig17")
    rows = [{"facet": "data_mining", "series": s, "x": x, "small_mean": v + x / 100}
            for s, v in (("pias", 0.0896), ("pfabric", 0.0877)) for x in (0.5, 0.9)]
    figure = figures.draw(fig17, pd.DataFrame(rows))
    (ax,) = figure.axes
    assert ax.get_ylim() == pytest.approx((0, 0.0986 * 1.08))
    plt.close(figure)


def assert_fits(figure, name: str) -> None:
    """Every title, axis label, annotation and legend entry of `figure`
    lies inside it (tick labels outside the view are never drawn, and the
    layout keeps the others in), panel titles do not overlap, and no plot
    is squeezed to a sliver; closes the figure."""
    import matplotlib.pyplot as plt

    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    box = figure.bbox
    texts = [figure._suptitle, *(t for leg in figure.legends for t in leg.get_texts())]
    for ax in figure.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        if ax.get_legend() is not None:
            texts += ax.get_legend().get_texts()
    for t in (t for t in texts if t is not None and t.get_text()):
        e = t.get_window_extent(renderer)
        assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, (
            name, t.get_text())
    # tall titles make the figure taller, not the plots thinner
    assert min(ax.get_window_extent(renderer).height for ax in figure.axes) >= 1.2 * figure.dpi, name
    titles = [ax.title.get_window_extent(renderer) for ax in figure.axes if ax.get_title()]
    for i, a in enumerate(titles):
        for b in titles[i + 1:]:
            assert not a.overlaps(b), (name, "panel titles overlap")
    plt.close(figure)


def test_a_line_over_another_shows_and_bounds_take_their_series_colour():
    import matplotlib.pyplot as plt

    # pFabric-EDF equal to pFabric (no flow with a deadline): drawn dashed
    # and hollow over it; the legend keeps each series' own style
    fig = figures.get("pfabric-fig10-11")
    panels = {p.key: 1.0 for p in fig.panels}
    rows = [{"facet": facet, "series": s, "x": x * fig.x_unit, **{k: v + x / 1e4 for k, v in panels.items()}}
            for facet in fig.facets for s in ("pfabric_edf", "pfabric") for x in (100, 1000)]
    figure = figures.draw(fig, pd.DataFrame(rows))
    ax = figure.axes[0]
    edf, pf = [line for line in ax.get_lines() if line.get_label().endswith("(dcsim)")]
    assert edf.get_linestyle() == "-" and pf.get_linestyle() == "--" and pf.get_markerfacecolor() == "none"
    legend = {t.get_text(): h for t, h in zip(figure.legends[0].get_texts(), figure.legends[0].legend_handles)}
    assert legend["pFabric (dcsim)"].get_linestyle() == "-"
    assert "paper: lower bound" in legend and "paper: upper bound" in legend
    # Fig. 10's statement is about 100 us only: marks at x = 100 in the
    # colour of the series it is about, not a line across the panel
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    marks = [a for a in ax.texts if a.xy[0] == 100]
    own = [fig.series_values.index(s) for s in ("pfabric_edf", "pfabric")]
    assert marks and {a.arrow_patch.get_edgecolor()[:3] for a in marks} <= {
        tuple(plt.matplotlib.colors.to_rgb(colors[i])) for i in own}
    assert not [line for line in ax.get_lines() if list(line.get_xdata()) == [0, 1]]  # no axhline
    plt.close(figure)


def test_titles_wrap_in_even_lines():
    from dcsim.figures.core import balanced_fill

    text = "paper: 8 queues within -10%\u00a0..\u00a0+25% of pFabric"
    lines = balanced_fill(text, 42).split("\n")
    # as few lines as a plain wrap, none a lone word, the range unbroken
    assert len(lines) == 2 and min(map(len, lines)) >= 0.4 * max(map(len, lines))
    assert "-10%\u00a0..\u00a0+25%" in lines[1] and balanced_fill("short", 42) == "short"


def test_every_figure_s_titles_and_legend_fit_on_it():
    # BFC Fig. 24 and PIAS Figs. 11-13 were drawn with their long series
    # names and statements running off a two-panel figure: every registered
    # sweep figure, drawn with every series and statement, must fit
    drawn = 0
    for fig in figures.REGISTRY.values():
        if type(fig) is not figures.Figure:
            continue
        rows = [{"facet": facet, "series": series, "x": x * fig.x_unit, **{p.key: 1.0 + i for p in fig.panels}}
                for facet in fig.facets for i, series in enumerate(fig.series_values) for x in (1, 2)]
        assert_fits(figures.draw(fig, pd.DataFrame(rows)), fig.name)
        drawn += 1
    assert drawn >= 20


def test_reproduce_prints_the_comparison_with_the_paper(tiny_figure_dir, capsys):
    from dcsim.cli import _print_comparison

    out, _ = tiny_figure_dir
    _print_comparison(out)
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0] == "tiny-test-figure (quick mode) against the paper"
    assert lines[1].split() == ["where", "panel", "paper", "dcsim", "(x:", "value)", "verdict"]
    assert "web_search / all_mean" in lines[2] and "pfabric vs ideal: within +0% .. +17.8%" in lines[2]
    assert "0.3: +" in lines[2] or "0.3: -" in lines[2]
    tcp = next(ln for ln in lines if "tcp >= 10" in ln)
    assert "web_search / small_p99" in tcp and "0.3: " in tcp
    assert all(ln.rstrip().endswith(("consistent", "points", "no data")) for ln in lines[2:])


def test_figures_of_one_run_draw_and_check_the_paper(tmp_path):
    # Fig. 5(a): five 20 MB flows to one host, served one after another
    out = tmp_path / "f5a"
    result, table = figures.reproduce("pfabric-fig5a", out, jobs=1, quiet=True)
    assert result.ok and (out / "pfabric-fig5a.png").stat().st_size > 10_000
    stats = dict(zip(table.stat, table.value))
    assert 82.2 < stats["last_finish_ms"] < 83.0
    assert stats["median_share_of_the_busiest_flow"] > 0.95
    info = json.loads((out / "figure.json").read_text())
    assert [p["verdict"] for p in info["paper"]] == ["consistent", "consistent"]
    assert (out / "points").is_dir() and len(list((out / "points").glob("*/flow_samples.parquet"))) == 1
    # Fig. 13 on a small run: losses by priority at the first and last hop
    small = dataclasses.replace(figures.get("pfabric-fig13"), name="tiny-fig13",
                                quick={**figures.get("pfabric-fig13").quick, "workload.flows": 400})
    figures.REGISTRY[small.name] = small
    try:
        _, t13 = figures.reproduce("tiny-fig13", tmp_path / "f13", mode="quick", jobs=1, quiet=True)
    finally:
        del figures.REGISTRY[small.name]
    s13 = dict(zip(t13.stat, t13.value))
    assert 0 <= s13["last_hop_share_of_drops_from_2048_pkts"] <= 1 and 0 < s13["last_hop_loss_rate"] < 0.2


def test_a_figure_of_a_model_pfabric_fig22(tmp_path):
    # no simulation: pFabric Eq. 8's two-queue threshold at each load,
    # drawn and checked against the paper's two stated values
    r = cli("reproduce", "pfabric-fig22", "--quick", "--out", tmp_path / "f22")
    assert r.returncode == 0, r.stderr
    info = json.loads((tmp_path / "f22" / "figure.json").read_text())
    t = pd.read_csv(tmp_path / "f22" / "pfabric-fig22.csv")
    assert list(t.load) == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    assert t.threshold_kb.is_monotonic_increasing
    verdicts = {p["panel"]: p["verdict"] for p in info["paper"]}
    assert verdicts["threshold_kb_at_10pct"] == "consistent"
    assert (tmp_path / "f22" / "pfabric-fig22.png").stat().st_size > 10_000
    assert "pFabric Fig. 22" in (tmp_path / "f22" / "report.html").read_text()
    assert "threshold_kb_at_10pct" in r.stdout  # the comparison with the paper
    # quiet: no table (the verdicts stay in figure.json)
    r = cli("reproduce", "pfabric-fig22", "--quick", "--out", tmp_path / "f22", "-q")
    assert r.returncode == 0 and r.stdout == "", r.stdout


def test_bfc_fig4_counts_active_flows_on_one_link(tmp_path, monkeypatch):
    # a queueing model, no simulation (smaller than quick mode here): the
    # same flows at every link speed give the same distribution; SRF holds
    # fewer flows than fair queueing, FIFO far more
    from dcsim.figures import bfc

    monkeypatch.setitem(bfc.FIG4_FLOWS, "quick", 20_000)
    t, stats = bfc.fig4_compute("quick")
    assert set(t.policy) == {"fq", "srf", "fifo"} and set(t[t.policy == "fq"].gbps) == {10, 40, 100}
    assert stats["fq_cdf_gap_across_speeds"] < 1e-9
    assert stats["srf_over_fq_p99_at_95pct"] <= 1 < stats["fifo_over_fq_p99_at_95pct"]
    # a work-conserving link is idle 1 - load of the time, whatever the
    # policy (at high loads a run this short ends with a backlog, so only
    # the lowest load is checked)
    idle = t[t.active_flows == 0].groupby("load").cdf
    assert (idle.max() - idle.min()).max() < 1e-9
    assert idle.mean()[0.5] == pytest.approx(0.5, abs=0.03)
    for _, g in t.groupby(["policy", "gbps", "load"]):
        assert g.cdf.is_monotonic_increasing and g.cdf.iloc[0] > 0
    figures.REGISTRY["bfc-fig4"].reproduce(tmp_path / "f4", "quick")
    assert (tmp_path / "f4" / "bfc-fig4.png").stat().st_size > 10_000
    info = json.loads((tmp_path / "f4" / "figure.json").read_text())
    assert {p["panel"] for p in info["paper"]} == set(stats)


def test_bfc_fig3_fair_share_moves_more_on_faster_links(monkeypatch, tmp_path):
    from dcsim.figures import bfc

    monkeypatch.setitem(bfc.FIG3_FLOWS, "quick", 20_000)
    t, stats = bfc.fig3_compute("quick")
    assert set(t.workload) == set(bfc.FIG3_WORKLOADS) and set(t.gbps) == {10, 40, 100}
    at = t.set_index(["workload", "gbps", "interval_us"]).mean_change_pct.sort_index()
    for w in bfc.FIG3_WORKLOADS:
        # a 10x faster link is the 10x longer interval of the slower one:
        # the same sequence, so 100 Gb/s over 8 us lies between 10 Gb/s over
        # 64 and 128 us (the times drawn differ, hence not exactly equal)
        assert at[(w, 10, 64)] * 0.8 < at[(w, 100, 8)] < at[(w, 10, 128)] * 1.2
        for g in (10, 40, 100):
            assert at[(w, g)].is_monotonic_increasing
    assert stats["speedup_100g_over_10g_at_8us"] > 1.5
    assert stats["google_over_websearch_at_100g_8us"] > 5
    figures.REGISTRY["bfc-fig3"].reproduce(tmp_path / "f3", "quick")
    assert (tmp_path / "f3" / "bfc-fig3.png").stat().st_size > 10_000


def test_bfc_figures_by_size_run_every_scheme_on_the_same_flows(tmp_path):
    # BFC's Figs. 9-11 layout, small: each scheme on the same flows, the
    # slowdown by size in bins of equal flow counts, buffers as CDFs
    fig = dataclasses.replace(figures.REGISTRY["bfc-fig10"], flows={"quick": 3000})
    result, t = fig.reproduce(tmp_path / "f10", "quick", jobs=1, quiet=True)
    assert not result.failed
    assert set(t.variant) == {"bfc", "hpcc", "dcqcn", "dctcp", "expresspass", "ideal_fq", "ideal_fq_packet"}
    counts = t.groupby("variant").flows.sum()
    assert counts.nunique() == 1 and counts.iloc[0] == 3000  # the same flows, every one finished
    assert (t.p99 >= t.p95).all() and (t.p95 >= 1 - 1e-9).all()
    info = json.loads((tmp_path / "f10" / "figure.json").read_text())
    assert {p["verdict"] for p in info["paper"]} <= {"consistent", "differs"}
    assert (tmp_path / "f10" / "bfc-fig10.png").stat().st_size > 20_000
    # its drawing, and those of the figures on the same runs, fit on the page
    from dcsim.figures.bfc.by_size import by_size_table, draw_by_size, mark_incasts
    from dcsim.figures.single import RunData

    runs = {p["point"]["params"]["variant"]: RunData.load(point_dir(tmp_path / "f10", p["point"]["key"]))
            for p in load_points(tmp_path / "f10")}
    mark_incasts(runs)
    assert_fits(draw_by_size(t, runs, fig), "bfc-fig10")
    for name in ("bfc-fig29", "bfc-fig9c"):
        other = figures.REGISTRY[name]
        table = (other.tabulate or by_size_table)(runs)
        assert_fits(other.draw(table, runs, other), name)


def test_bfc_by_size_figures_keep_their_legend_off_the_data_and_drop_an_empty_buffer_panel():
    # the legend inside the average's panel hid the long flows' rise (Figs.
    # 9-11); ExpressPass's sweeps (Fig. 21(c), (d)) sample no buffers and
    # drew an empty panel with an empty legend
    import types

    import matplotlib.pyplot as plt

    from dcsim.figures.bfc.by_size import draw_by_size

    fig = figures.REGISTRY["bfc-fig10"]
    t = pd.DataFrame([{"variant": v, "bin_hi": b, "mean": 1.0 + i, "p95": 2.0 + i, "p99": 3.0 + i}
                      for i, v in enumerate(("bfc", "hpcc")) for b in (1e3, 1e6)])
    buffers = pd.DataFrame({"bytes": [0.0, 1e5, 2e5]})
    for held, panels in ((None, 3), (buffers, 4)):
        runs = {v: types.SimpleNamespace(buffers=held) for v in ("bfc", "hpcc")}
        figure = draw_by_size(t, runs, fig)
        assert len(figure.axes) == panels
        assert [ax.get_legend() for ax in figure.axes] == [None] * panels
        (legend,) = figure.legends
        assert [x.get_text() for x in legend.get_texts()] == [fig.labels["bfc"], fig.labels["hpcc"]]
        plt.close(figure)


def test_bfc_stress_figures_leave_incast_flows_out(tmp_path):
    # Fig. 13's layout, small: BFC 32 and HPCC at two incast degrees (one
    # beyond the 127 other hosts); the statistics count the background
    # flows only, the same flows at every degree and for both schemes
    from dcsim.figures.core import Mode

    fig = dataclasses.replace(figures.REGISTRY["bfc-fig13"], series_values=("bfc32", "hpcc"),
                              quick=Mode(x_values=(10, 300), flows=3000))
    from dcsim.figures.core import compute, plot
    from dcsim.runner import run_sweep

    result = run_sweep(fig.sweep("quick"), tmp_path / "f13", jobs=1, quiet=True)
    assert not result.failed
    t = compute(fig, tmp_path / "f13")
    assert len(t) == 4 and set(t.x) == {10, 300}
    assert (t.flows == 3000).all(), "incast flows left out: the background's 3,000 in every point"
    from dcsim.results import load_points

    ran = {(p["point"]["params"]["variant"], p["point"]["params"]["workload.incasts.senders"]): p["flows_finished"]
           for p in load_points(tmp_path / "f13")}
    assert ran == {(v, d): 3000 + d for v in ("bfc32", "hpcc") for d in (10, 300)}  # one incast in 0.85 ms
    assert (t.short_p99 >= 1 - 1e-9).all() and (t.long_mean >= 1 - 1e-9).all()
    plot(fig, t, tmp_path / "f13" / "fig", "quick")
    assert (tmp_path / "f13" / "fig.png").stat().st_size > 20_000


def test_bfc_fig23_compares_slow_start_bin_by_bin():
    # Fig. 23's statistics on a made-up table: DCTCP + SS over DCTCP, bin
    # by bin, the median of the ratios below a size or the largest
    from dcsim.figures import bfc

    rows = []
    for v, p50, p99 in (("dctcp", [1.0, 1.0, 2.0, 2.0], [10.0, 20.0, 8.0, 4.0]),
                        ("dctcp_ss", [1.0, 1.5, 5.0, 2.0], [2.0, 5.0, 8.0, 8.0])):
        for hi, a, b in zip((1000, 3000, 500_000, 10_000_000), p50, p99):
            rows.append({"variant": v, "bin_lo": {1000: 0, 3000: 1000, 500_000: 10_000, 10_000_000: 500_000}[hi],
                         "bin_hi": hi, "p50": a, "p99": b})
    s = bfc.fig23_stats(pd.DataFrame(rows), {})
    assert s["ss_over_dctcp_p99_short"] == pytest.approx(0.225)  # median of 0.2, 0.25
    assert s["ss_over_dctcp_p50_short_medium"] == pytest.approx(1.5)  # median of 1, 1.5, 2.5
    assert s["ss_over_dctcp_p99_short_medium"] == pytest.approx(0.25)
    assert s["ss_over_dctcp_p50_max"] == pytest.approx(2.5)
    assert s["ss_over_dctcp_p50_above_iw"] == pytest.approx(2.5)  # the (10 KB, 500 KB] bin only
    assert s["ss_over_dctcp_p99_above_iw"] == pytest.approx(1.0)
    assert figures.REGISTRY["bfc-fig23a"].shown == ("p50", "p99")


def test_bfc_fig27_28_vary_only_bfc_s_queue_assignment_and_table():
    # Figs. 27-28 are Fig. 11(a)'s runs of BFC with one field changed each
    base = {p.params["variant"]: p.spec for p in figures.REGISTRY["bfc-fig11a"].sweep("full").points()}["bfc"]
    for name, field, values in (("bfc-fig27", "assign", {"dynamic", "stochastic"}),
                                ("bfc-fig28", "table_per_queue", {1, 10, 100, 1000})):
        specs = [p.spec for p in figures.REGISTRY[name].sweep("full").points()]
        assert {getattr(s.scheme, field) for s in specs} == values
        for s in specs:
            assert s.model_copy(update={"scheme": s.scheme.model_copy(update={field: getattr(base.scheme, field)})}) \
                .model_dump() == base.model_dump()


def test_deadline_blind_series_run_once_and_match_a_run_per_mean(tmp_path):
    # Figs. 10-11, small: pFabric-EDF runs at each mean; pFabric (blind to
    # deadlines) runs once and is measured against each mean, giving what
    # a run at that mean gives
    from dcsim.figures.core import Mode, compute
    from dcsim.results import load_points
    from dcsim.runner import run_sweep

    fig = dataclasses.replace(figures.REGISTRY["pfabric-fig10-11"], facets=("web_search",),
                              series_values=("pfabric_edf", "pfabric"), quick=Mode(x_values=(100, 1000), flows=600))
    assert fig.x_blind == ("pfabric", "dctcp", "tcp")
    run_sweep(fig.sweep("quick"), tmp_path / "f10", jobs=1, quiet=True)
    ran = sorted((p["point"]["params"]["variant"], p["point"]["params"]["workload.deadline_mean_us"])
                 for p in load_points(tmp_path / "f10"))
    assert ran == [("pfabric", 100), ("pfabric_edf", 100), ("pfabric_edf", 1000)]
    t = compute(fig, tmp_path / "f10").set_index(["series", "x"])
    assert len(t) == 4
    both = dataclasses.replace(fig, x_blind=())  # the same sweep, every point run
    run_sweep(both.sweep("quick"), tmp_path / "all", jobs=1, quiet=True)
    ref = compute(both, tmp_path / "all").set_index(["series", "x"])
    pd.testing.assert_frame_equal(t.loc[:, ["met", "other_mean", "flows"]].sort_index(),
                                  ref.loc[:, ["met", "other_mean", "flows"]].sort_index())
    assert t.loc[("pfabric", 100), "met"] < t.loc[("pfabric", 1000), "met"]
    with pytest.raises(SpecError, match="need a remeasure function"):
        dataclasses.replace(fig, remeasure=None)


def test_bfc_fig8_models_the_testbed_and_checks_its_statements(tmp_path):
    # the testbed's fabric: group 1 and 2 hosts on switch 1, group 3 on
    # switch 3, both receivers on switch 2
    from dcsim.figures.bfc_testbed import G1, G2_MAX, G3, testbed_file
    from dcsim.topology_file import read_hpcc

    hosts = testbed_file(tmp_path / "t.txt")
    f = read_hpcc(tmp_path / "t.txt")
    assert f.hosts == G1 + G2_MAX + G3 + 2 and f.switches == 3
    assert hosts["r2"] == f.hosts - 1
    figures.REGISTRY["bfc-fig8"].reproduce(tmp_path / "f8", "quick")
    info = json.loads((tmp_path / "f8" / "figure.json").read_text())
    got = {p["panel"]: (p["ours"][""], p["verdict"]) for p in info["paper"]}
    # one queue for all: group 1 waits behind group 2 at every point;
    # with dynamic assignment and fewer flows than queues, no collisions:
    # the same FCT in every run
    assert got["single_worst_share"] == (1.0, "consistent")
    # dynamic assignment the lowest at every point, 20 group-2 flows too
    # (with the flow ids alone shuffled it lost there: 2,740 against 2,556 us)
    assert got["dynamic_lowest_share"] == (1.0, "consistent")
    assert got["dynamic_cv_few_flows"][0] < 0.02
    assert got["stochastic_over_dynamic_std"][0] > 2
    assert (tmp_path / "f8" / "bfc-fig8.png").stat().st_size > 10_000


def test_bfc_fig8_runs_draw_the_hosts_as_well_as_the_ids(tmp_path):
    # simultaneous first packets reach switch 1 in the order of the hosts'
    # links, so a run must draw the hosts: with ids alone, group 1 held
    # hosts 0 and 1 in every run and the 17th flow always landed on its
    # queue (docs/reproductions/bfc.md, Fig. 8)
    from dcsim.figures.bfc_testbed import G1, G3, run_flows, testbed_file

    hosts = testbed_file(tmp_path / "t.txt")
    sw1 = set(hosts["g1"] + hosts["g2"])
    for run in range(8):
        flows = run_flows(hosts, 16, run)
        groups = [g for _, _, g in flows]
        assert (groups.count("g1"), groups.count("g2"), groups.count("g3")) == (G1, 16, G3)
        g1 = sorted(s for s, _, g in flows if g == "g1")
        assert set(g1) <= sw1 and all(d == hosts["r1"] for _, d, g in flows if g == "g1")
        assert len({s for s, _, _ in flows}) == len(flows), "one host per flow"
        assert run_flows(hosts, 16, run) == flows, "a run's draw is reproducible"
    # the flow whose packet switch 1 takes first is of group 1 in some
    # runs, of group 2 in others
    firsts = [next(g for s, _, g in sorted(run_flows(hosts, 16, r)) if g != "g3") for r in range(8)]
    assert {"g1", "g2"} <= set(firsts)


def test_bfc_fig20_tabulates_each_class(tmp_path):
    # four classes, each scheme's 99th percentile by size per class; BFC's
    # highest class is near ideal and far ahead of its lowest
    fig = dataclasses.replace(figures.REGISTRY["bfc-fig20"], flows={"quick": 2000})
    result, t = fig.reproduce(tmp_path / "f20", "quick", jobs=1, quiet=True)
    assert not result.failed
    assert set(t.traffic_class) == {0, 1, 2, 3} and set(t.variant) == {"bfc", "bfc128", "hpcc", "dctcp"}
    # the same flows in every scheme, split among the classes
    counts = t.groupby(["variant", "traffic_class"]).flows.sum().unstack()
    assert counts.nunique().max() == 1 and counts.iloc[0].sum() == 2000
    assert counts.iloc[0].min() > 400
    info = json.loads((tmp_path / "f20" / "figure.json").read_text())
    got = {p["panel"]: p["ours"][""] for p in info["paper"]}
    assert got["bfc_p99_short_highest"] < 1.5
    b = t[(t.variant == "bfc") & (t.bin_hi <= 3000)].groupby("traffic_class").p99.median()
    assert b[3] > 2 * b[0]


def test_bfc_table1_dcqcn_runs_the_co_authors_configuration():
    # Table 1's DCQCN row is the co-author's configuration (window scaled
    # by rate, slow increases): on the figure's set-up (50 ms here) its long
    # flow gets several times the throughput of the HPCC simulator's own
    # DCQCN and short messages wait a fraction as long (measured: 20.4% and
    # 37 us against 5.5% and 116 us; the full 200 ms: 10.0% and 33 us, the
    # paper's 10.0% and 30.4)
    import copy

    from dcsim.figures.bfc import BFC_CONFIG_DCQCN, table1_table
    from dcsim.simulate import run_all
    from dcsim.spec import Spec, apply_overrides

    fig = figures.get("bfc-table1")
    assert fig.variants["dcqcn"] == {"scheme.name": "dcqcn", **BFC_CONFIG_DCQCN}
    base = copy.deepcopy(fig.base)
    base["workload"]["flows"] = 20_000
    runs = {k: run_all(Spec.model_validate(apply_overrides(base, {**over, "run.stop_time_s": 0.05})))
            for k, over in (("own", {"scheme.name": "dcqcn"}), ("co", fig.variants["dcqcn"]))}
    t = table1_table(runs).set_index("variant")
    assert t.throughput["co"] > 2.5 * t.throughput["own"]
    assert t.delay_p99_us["co"] < 0.5 * t.delay_p99_us["own"]


def test_pfabric_figures_run_every_agent_as_the_scripts_do():
    # the scripts run one ns-2 agent (FullTcp/Sack; MinTCP for pFabric) for
    # every scheme: pooled connections, ns-2's window rule (span), and no
    # duplicate-ACK fast retransmit (docs/sources.md; docs/schemes.md)
    for name in ("pfabric-fig7-9", "pfabric-fig10-11"):
        for p in figures.get(name).sweep("quick").points():
            sc = p.spec.scheme
            if sc.name == "pdq":
                # PDQ's own agent (docs/schemes.md), on one path per flow
                assert p.spec.routing.load_balancing == "ecmp"
                continue
            if sc.name == "ideal":
                continue
            assert (sc.connections, sc.window) == ("pool", "span"), (name, p.params)
            if sc.name in ("tcp", "dctcp"):
                assert (sc.fast_retransmit, sc.connections_per_pair) == (False, 8)
            else:
                assert sc.connections_per_pair == 1
    # Fig. 23(c): "reduced by more than 30%" is equal split > 1/0.7 - 1 worse
    (equal,) = [b for b in figures.get("pfabric-fig23").paper if b.series == "q4_equal"]
    assert equal.low == pytest.approx(3 / 7)


def test_a_paper_reproduces_every_figure_and_shares_their_common_runs(tmp_path, monkeypatch):
    # a two-figure "paper": fig2's "on" runs are fig1's, so fig2 copies them and runs only "off"
    from typer.testing import CliRunner

    from dcsim.cli import app
    from dcsim.figures.core import REGISTRY, Mode

    fig16 = figures.get("pfabric-fig16")
    tiny = Mode(x_values=(0.3, 0.6), flows=80)
    one = dataclasses.replace(fig16, name="tiny-fig1", series_values=("on",), quick=tiny)
    two = dataclasses.replace(fig16, name="tiny-fig2", quick=tiny)
    monkeypatch.setitem(REGISTRY, one.name, one)
    monkeypatch.setitem(REGISTRY, two.name, two)
    assert "tiny" in figures.papers() and figures.figures_of("tiny") == ["tiny-fig1", "tiny-fig2"]
    r = CliRunner().invoke(app, ["reproduce", "tiny", "--out", str(tmp_path / "p"), "-j", "1", "--no-report"])
    assert r.exit_code == 0, r.output
    on = [p.key for p in two.sweep("quick").points() if p.params["variant"] == "on"]
    b = json.loads((tmp_path / "p" / "tiny-fig2" / "figure.json").read_text())
    assert b["complete_points"] == 4 and len(b["paper"]) == 1
    assert sorted(p["point"]["key"] for p in load_points(tmp_path / "p" / "tiny-fig1")) == sorted(on)
    # the summary: a row per figure, with the points each reused
    rows = {line.split()[0]: line.split() for line in r.output.splitlines() if line.startswith("tiny-fig")}
    assert rows["tiny-fig1"][1:3] == ["2/2", "0"] and rows["tiny-fig2"][1:3] == ["4/4", "2"]
    # run again: everything is complete, nothing reused or run; the tables are unchanged
    table = (tmp_path / "p" / "tiny-fig2" / "tiny-fig2.csv").read_text()
    res = figures.reproduce_paper("tiny", tmp_path / "p", jobs=1, quiet=True)
    assert res.ok and not res.results["tiny-fig2"].ran and not res.results["tiny-fig2"].reused
    assert (tmp_path / "p" / "tiny-fig2" / "tiny-fig2.csv").read_text() == table
    with pytest.raises(SpecError, match="unknown paper 'nope'"):
        figures.reproduce_paper("nope", tmp_path / "q")


def test_bfc_srf_figures_run_homa_bfc_srf_and_ideal_srf_on_the_same_flows(tmp_path):
    # App. A.2's figures, small: Homa (sprayed and with ECMP), BFC-SRF and
    # IdealSRF on the same flows; Fig. 18's rack alone, every flow to host 0
    fig = dataclasses.replace(figures.REGISTRY["bfc-fig17b"], flows={"quick": 600})
    result, t = fig.reproduce(tmp_path / "f17", "quick", jobs=1, quiet=True)
    assert not result.failed
    assert set(t.variant) == {"homa", "homa_ecmp", "bfc_srf", "ideal_srf"}
    counts = t.groupby("variant").flows.sum()
    assert counts.nunique() == 1 and counts.iloc[0] == 600
    info = json.loads((tmp_path / "f17" / "figure.json").read_text())
    assert {p["verdict"] for p in info["paper"]} <= {"consistent", "differs"} and len(info["paper"]) == 5
    specs = {p.params["variant"]: p.spec for p in figures.REGISTRY["bfc-fig17b"].sweep("full").points()}
    assert specs["homa"].routing.load_balancing == "spray" and specs["homa_ecmp"].routing.load_balancing == "ecmp"
    assert specs["bfc_srf"].scheme.scheduling == "srf" and specs["ideal_srf"].routing.load_balancing == "ecmp"
    rack = {p.params["variant"]: p.spec for p in figures.REGISTRY["bfc-fig18a"].sweep("quick").points()}
    assert set(rack) == {"homa", "bfc_srf", "ideal_srf"}
    w = rack["bfc_srf"].workload
    assert (rack["homa"].topology.kind, w.matrix, w.dst, w.load, w.load_basis) == ("star", "many_to_one", 0, 0.6, "host")
    assert figures.REGISTRY["bfc-fig19b"].base["workload"]["incasts"]["senders"] == 100


def test_bfc_fig26_runs_two_datacenters_with_long_flows_between_them(tmp_path):
    fig = dataclasses.replace(figures.REGISTRY["bfc-fig26"], flows={"quick": 500},
                              mode_set={"quick": {"run.stop_time_s": 0.0005}})
    result, t = fig.reproduce(tmp_path / "f26", "quick", jobs=1, quiet=True)
    assert not result.failed and set(t.variant) == {"bfc", "hpcc", "dcqcn"}
    # the by-size table counts the intra-datacenter flows only
    assert t.groupby("variant").flows.sum().max() <= 500
    info = json.loads((tmp_path / "f26" / "figure.json").read_text())
    got = {p["panel"]: p["ours"][""] for p in info["paper"]}
    assert 0.9 < got["bfc_interconnect_utilization"] <= 1.0
    specs = {p.params["variant"]: p.spec for p in figures.REGISTRY["bfc-fig26"].sweep("full").points()}
    assert specs["hpcc"].scheme.global_rtt is False and specs["bfc"].run.stop_time_s == 0.03
    assert len(specs["dcqcn"].workload.long_flows.pairs) == 20


def test_bfc_table2_keeps_the_core_s_queueing_delays_of_scheduled_packets(tmp_path):
    fig = dataclasses.replace(figures.REGISTRY["bfc-table2"], flows={"quick": 400})
    result, t = fig.reproduce(tmp_path / "t2", "quick", jobs=1, quiet=True)
    assert not result.failed
    assert set(zip(t.variant, t.link)) == {(v, link) for v in ("homa", "homa_ecmp") for link in ("Agg-ToR", "ToR-Agg")}
    # every scheduled packet that leaves its rack crosses one uplink and one spine port
    g = t.groupby("variant").packets
    assert (g.nunique() == 1).all() and (t.packets > 0).all()
    assert (t.p99_us >= t.p95_us).all()
    info = json.loads((tmp_path / "t2" / "figure.json").read_text())
    assert len(info["paper"]) == 4


def test_bfc_models_of_figs_2_and_30_and_fig15_s_flows(tmp_path):
    from dcsim.figures.bfc import limits

    t, stats = limits.fig30_compute("quick")
    assert stats["worst_at_1_bdp"] == pytest.approx(0.2) and stats["at_x_1_1"] == pytest.approx(0.1 / 1.31)
    assert stats["closed_form_over_search"] == pytest.approx(1, abs=1e-3) and stats["worst_falls_with_th"] == 1
    t, stats = limits.fig2_compute("quick")
    assert set(t.workload) == set(limits.FIG2_WORKLOADS) and (t.groupby("workload").byte_share.max() > 0.99).all()
    assert 0.35 < stats["google_bytes_below_100kb"] < 0.5
    # Fig. 15's flows: the long ones from the other racks in turn, mice at 3% of a link to A and to B
    groups = limits.fig15_trace(tmp_path / "t.txt", 120, 0.002)
    rows = [line.split() for line in (tmp_path / "t.txt").read_text().splitlines()]
    long = [r for r, g in zip(rows, groups) if g == "elephant"]
    assert len(long) == 120 and all(int(r[2]) == 0 and int(r[1]) >= 16 for r in long)
    assert len({r[1] for r in long}) == 112
    rate = 0.03 * 100e9 / 8 / 1048 * 0.002
    for g, dst in (("direct", 0), ("indirect", 1)):
        mice = [r for r, gg in zip(rows, groups) if gg == g]
        assert abs(len(mice) - rate) < 4 * rate ** 0.5 and all(int(r[2]) == dst and int(r[3]) == 1000 for r in mice)


def test_workload_figures_match_the_tables_they_draw_from():
    """pFabric Fig. 4 / PIAS Fig. 4: shares read off the shipped tables by
    hand (web search: 30% of flows above 973,820 B, the 0.7 row; data
    mining: the 0.8 row is 7 packets, 10,220 B, and the 0.99 row 97.3 MB)."""
    from dcsim.figures import model

    t, stats = model.fig4_compute("quick")
    assert set(t.workload) == set(model.FIG4_WORKLOADS)
    for _, g in t.groupby("workload"):
        assert g.flow_share.is_monotonic_increasing and g.byte_share.is_monotonic_increasing
        assert g.flow_share.iloc[-1] == 1 and g.byte_share.iloc[-1] == pytest.approx(1)
        # bytes lag flows: small flows are many and carry few bytes
        assert (g.byte_share <= g.flow_share + 1e-9).all()
    assert stats["websearch_flows_above_1mb"] == pytest.approx(0.3 - 0.1 * (1e6 - 973820) / (1946180 - 973820), abs=2e-3)
    # 10 KB = 10,000 B: below the 0.8 row (7 packets, 10,220 B), above 0.7 (3 packets): 6 whole packets
    assert stats["datamining_flows_at_most_10kb"] == pytest.approx(0.7 + 0.1 * (8760 - 4380) / (10220 - 4380), abs=2e-3)
    # 1 MB cuts inside a row: the byte shares are those of the whole-packet sizes
    assert 0.94 < stats["websearch_bytes_above_1mb"] < 0.955 and 0.6 < stats["websearch_bytes_below_10mb"] < 0.7
    assert 0.0355 < stats["datamining_flows_above_35mb"] < 0.0375 and 0.94 < stats["datamining_bytes_above_35mb"] < 0.96


def test_a_figures_directory_takes_no_other_figure(tmp_path):
    figures.reproduce("pfabric-fig4", tmp_path / "f")
    with pytest.raises(SpecError, match="holds figure pfabric-fig4's results; give pias-fig4 a directory of its own"):
        figures.reproduce("pias-fig4", tmp_path / "f")
    figures.reproduce("pfabric-fig4", tmp_path / "f", mode="full")  # the same figure again: fine
    info = json.loads((tmp_path / "f" / "figure.json").read_text())
    assert info["mode"] == "full"
    # the images say what drew them (issue 51), as figure.json does
    from PIL import Image

    stamp = Image.open(tmp_path / "f" / "pfabric-fig4.png").info["Source"]
    assert stamp.startswith("dcsim reproduce pfabric-fig4 --full; dcsim ") and stamp == info["drawn_by"]
    assert "dcsim reproduce pfabric-fig4 --full" in (tmp_path / "f" / "pfabric-fig4.svg").read_text()
    # a model's figure has no runs to show: show says where its values are
    r = cli("show", tmp_path / "f")
    assert r.returncode == 2 and "holds figure pfabric-fig4, computed from a model" in r.stderr, r.stderr
    assert "pfabric-fig4.csv" in r.stderr
    # a directory of figures: show names them
    r = cli("show", tmp_path)
    assert r.returncode == 2 and f"holds the figures f: show one of them (dcsim show {tmp_path / 'f'})" in r.stderr


def test_bfc_fig7_sweeps_the_pause_threshold_on_the_testbed_model():
    from dcsim.figures import bfc_testbed

    t, stats = bfc_testbed.fig7_compute("quick")
    assert list(t.threshold_us) == list(bfc_testbed.FIG7_TH_US["quick"])
    # a higher threshold buffers more and leaves the link idle less
    assert stats["queue_rises_with_th"] == 1 and t.utilization.is_monotonic_increasing
    assert 0.7 < t.utilization.min() and t.utilization.max() < 1
    assert len(t.attrs["series"]) > 100 and (t.attrs["series"].queue_kb == 0).any()


def test_beyond_setup_counts_deadlines_within_the_ideal_fct_plus_one_rtt():
    # the smallest ideal FCT (10 us) is the RTT: a deadline flow is beyond
    # a set-up round trip when its deadline is within its ideal FCT + 10 us
    from dcsim.figures.core import STATS

    flows = pd.DataFrame({"start_s": [0.0, 0.0, 1.0, 1.0, 2.0],
                          "ideal_fct_s": [10e-6, 20e-6, 20e-6, 50e-6, 10e-6],
                          "deadline_s": [15e-6, 40e-6, 1.0 + 29e-6, float("nan"), 2.0 + 20e-6]})
    # 15 < 20 yes; 40 < 30 no; 29 < 30 yes; no deadline; 20 < 20 no
    assert STATS["beyond_setup"](flows, {}) == pytest.approx(50.0)
