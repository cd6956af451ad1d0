"""Numbers on the command line: `dcsim run`'s results table, the
statistics in summary.json, `dcsim show` for runs, points and sweeps,
`dcsim report` of a single run."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim.metrics import summarize

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "examples" / "leaf_spine_web_search.toml"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "dcsim", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "ws"
    r = cli("run", SPEC, "--out", out, "--flows", 400, "--set", "workload.load=0.7")
    assert r.returncode == 0, r.stderr
    return out, r


def test_run_ends_with_the_table_and_summary_holds_the_same(run_dir):
    out, r = run_dir
    flows = pd.read_parquet(out / "flows.parquet")
    s = json.loads((out / "summary.json").read_text())
    lines = r.stdout.splitlines()
    assert lines[0].startswith("tcp-web-search-0.6 (workload.load=0.7, workload.flows=400): 400 flows")
    assert lines[1].split() == ["size", "bin", "flows", "mean", "p50", "p99", "p99.9"]
    assert [ln.split()[0] for ln in lines[2:6]] == ["(0B,", "(100KB,", "(10MB,", "all"]
    # 400 flows from an empty fabric at 70% load have not settled
    # (metrics.settling): a note names the bins that moved, then drops
    moved = [b["bin"] for b in s["stats"]["settling"] if b["settled"] is False]
    assert moved and lines[6].startswith("not settled") and all(b in lines[6] for b in moved)
    # 400 flows arrive in less time than the largest takes alone
    assert lines[7].startswith("the arrivals span ") and "less than the largest flow's ideal FCT" in lines[7]
    assert lines[8].startswith("drops ") and "timeouts" in lines[8]
    # what the scheme ran on, "auto" resolved
    assert lines[9] == "ran on: tcp, per-port buffers, 1460 + 40 B packets, spray"
    # summary.json: the same statistics, computed from flows.parquet
    by = {b["bin"]: b for b in s["stats"]["by_size"]}
    small = flows[flows.size_bytes <= 100_000].slowdown
    assert by["(0B, 100KB]"]["flows"] == len(small)
    assert by["(0B, 100KB]"]["mean"] == pytest.approx(small.mean())
    assert by["(0B, 100KB]"]["p99"] == pytest.approx(np.percentile(small, 99))
    assert by["all"]["p99.9"] == pytest.approx(np.percentile(flows.slowdown, 99.9))
    assert by["all"]["flows"] == 400 and by["all"]["unfinished"] == 0
    assert s["stats"]["drops"]["packets"] == s["counters"]["dropped_pkts"]
    # a flow's record is written when its receiver holds every byte; its
    # sender may still time out waiting for the last ACKs, so the run's
    # count can exceed the records' sum
    assert s["stats"]["timeouts"] == s["counters"]["timeouts"] >= flows.timeouts.sum() > 0
    # numbers in the table are the summary's
    assert f"{by['all']['mean']:.3g}" in lines[5]
    # the overrides are recorded beside the derived name
    assert s["overrides"] == {"workload.load": 0.7, "workload.flows": 400}
    assert s["name"] == "tcp-web-search-0.6 (workload.load=0.7, workload.flows=400)"


def test_show_reprints_and_rebins(run_dir):
    out, r = run_dir
    shown = cli("show", out)
    assert shown.returncode == 0 and shown.stdout == r.stdout
    rebinned = cli("show", out, "--bins", "0,10KB,1MB,inf")
    assert rebinned.returncode == 0
    rows = {ln.split()[0] + " " + ln.split()[1]: ln.split() for ln in rebinned.stdout.splitlines()[2:5]}
    flows = pd.read_parquet(out / "flows.parquet")
    mid = flows[(flows.size_bytes > 10_000) & (flows.size_bytes <= 1_000_000)]
    assert rows["(10KB, 1MB]"][2] == f"{len(mid):,}"
    assert rows["(10KB, 1MB]"][3] == f"{mid.slowdown.mean():.3g}"
    # the settling note is worked out again for the new bins
    from dcsim.metrics import settling
    note = [ln for ln in rebinned.stdout.splitlines() if ln.startswith("not settled")]
    moved = [b["bin"] for b in settling(flows, [0, 10_000, 1_000_000, float("inf")]) if b["settled"] is False]
    assert moved and note and all(b in note[0] for b in moved)
    # the run's own bins are not what it names
    assert "(0B, 100KB]" not in note[0]
    bad = cli("show", out, "--bins", "0,10KB,5KB")
    assert bad.returncode == 2 and "strictly increasing" in bad.stderr
    assert cli("show", out.parent / "nothing").returncode == 2


def test_show_a_sweep_and_one_point(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'base = "{ROOT / "examples" / "star_many_to_one.toml"}"\n[spec]\nworkload.flows = 60\n'
                     '[grid]\n"workload.load" = [0.3, 0.6]\n')
    assert cli("sweep", sweep, "--out", tmp_path / "o", "-q").returncode == 0
    r = cli("show", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "2 of 2 points complete" in lines[0]
    assert lines[1].split()[:2] == ["point", "workload.load"]
    assert [ln.split()[1] for ln in lines[2:4]] == ["0.3", "0.6"]
    key = lines[2].split()[0]
    one = cli("show", tmp_path / "o" / "points" / key)
    assert one.returncode == 0 and "60 flows" in one.stdout
    # ... and from Python, as a DataFrame with the grid's values as columns
    df = dcsim.read_sweep(tmp_path / "o")
    assert list(df["workload.load"]) == [0.3, 0.6] and (df.flows == 60).all()
    assert df["all mean"].iloc[0] == pytest.approx(json.loads(
        (tmp_path / "o" / "points" / df.key[0] / "summary.json").read_text())["stats"]["by_size"][-1]["mean"])
    assert (df["all flows"] == df["(0B, 100KB] flows"] + df["(100KB, 10MB] flows"] + df["(10MB, inf] flows"]).all()
    rebinned = dcsim.read_sweep(tmp_path / "o", bins=[0, 1e4, float("inf")])
    assert (rebinned["(0B, 10KB] flows"] + rebinned["(10KB, inf] flows"] == 60).all()
    # the report of a plain sweep gives the same table and a plot of the points
    r = cli("report", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "o" / "report.html").read_text()
    assert "2 of 2 points complete" in html and "workload.load=0.3" in html and "(0B, 100KB] mean" in html
    assert html.count("data:image/png;base64,") == 1


def test_summarize_counts_unfinished_flows_apart():
    flows = pd.DataFrame({"size_bytes": [100, 200, 50_000_000], "slowdown": [1.0, 3.0, math.nan]})
    s = summarize(flows)
    by = {b["bin"]: b for b in s["by_size"]}
    assert by["all"]["flows"] == 2 and by["all"]["unfinished"] == 1 and by["all"]["mean"] == 2.0
    assert by["(10MB, inf]"]["flows"] == 0 and by["(10MB, inf]"]["mean"] is None
    assert by["(10MB, inf]"]["unfinished"] == 1
    json.dumps(s, allow_nan=False)  # valid JSON: no NaN, no Infinity


def test_report_of_a_single_run(run_dir, tmp_path):
    out, _ = run_dir
    page = tmp_path / "r.html"
    r = cli("report", out, "--out", page)
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    assert "Run tcp-web-search-0.6 (workload.load=0.7" in html
    assert "Slowdown by flow size" in html and "data:image/png;base64," in html
    assert "(100KB, 10MB]" in html


def test_points_on_unlike_buffers_or_packets_are_noted():
    from dcsim.show import unlike

    tcp = dcsim.run({"topology": {"kind": "star"}, "workload": {"flows": 5}}).attrs["summary"]
    hpcc = dcsim.run({"topology": {"kind": "star"}, "workload": {"flows": 5}, "scheme": {"name": "hpcc"}}).attrs["summary"]
    assert tcp["resolved"] == {"buffer_model": "per_port", "pfc": False, "mss_bytes": 1460, "header_bytes": 40}
    assert hpcc["resolved"] == {"buffer_model": "shared", "pfc": True, "mss_bytes": 1000, "header_bytes": 48}
    assert unlike([tcp, tcp]) == ""
    xpass = {**tcp, "resolved": {**tcp["resolved"], "header_bytes": 78}}  # headers alone differ: both named
    assert "1460 + 40 B packets; per-port buffers, 1460 + 78 B packets" in unlike([tcp, xpass])
    note = unlike([tcp, hpcc])
    assert "per-port buffers, 1460 + 40 B packets; shared buffers with PFC, 1000 + 48 B packets" in note


def test_python_api_summary_has_the_statistics():
    df = dcsim.run({"topology": {"kind": "star"}, "workload": {"flows": 50}})
    st = df.attrs["summary"]["stats"]
    assert st["by_size"][-1]["bin"] == "all" and st["by_size"][-1]["flows"] == 50
