"""`dcsim show DIR` and the table `dcsim run` ends with: slowdown by flow
size (mean and percentiles), drops and timeouts, for a run, a sweep point,
or every point of a sweep. A rich table on a terminal, plain aligned text
otherwise (pipes, files, CI logs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional, Sequence, TextIO

from .errors import SpecError
from .results import load_points, point_dir, stats_of, unsettled

Row = list[str]


def _f(v, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"


def stats_table(stats: dict) -> tuple[Row, list[Row]]:
    """Headers and rows of a run's statistics (`summary["stats"]`)."""
    pcts = [f"p{p:g}" for p in stats["percentiles"]]
    any_unfinished = any(r.get("unfinished") for r in stats["by_size"])
    headers = ["size bin", "flows", "mean", *pcts] + (["unfinished"] if any_unfinished else [])
    rows = []
    for r in stats["by_size"]:
        row = [r["bin"], _f(r["flows"]), _f(r["mean"]), *(_f(r[p]) for p in pcts)]
        if any_unfinished:
            row.append(_f(r["unfinished"]))
        rows.append(row)
    return headers, rows


def headline(summary: dict) -> str:
    """One line: the run, its flows and times."""
    done, total = summary["flows_finished"], summary["flows_total"]
    started = summary.get("counters", {}).get("flows_started", total)
    if done == total:
        flows = f"{total:,} flows"
    elif started < total:
        # a run stopped by run.stop_time_s: the rest never started
        flows = f"{done:,} of {total:,} flows finished ({started:,} started)"
    else:
        flows = f"{done:,} of {total:,} flows finished"
    rate = summary.get("packet_hops_per_s")
    speed = f" ({rate / 1e6:.1f} M packet-hops/s)" if rate else ""
    # a sweep's point: the grid's values it was run with
    params = summary.get("point", {}).get("params")
    at = f" [{', '.join(f'{k}={v}' for k, v in params.items())}]" if params else ""
    if summary.get("estimated"):
        # `dcsim estimate`: no run to time, links simulated on their own
        e = summary["estimate"]
        return (f"{summary['name']}{at}: {flows}, estimated ({e['links_simulated']:,} of {e['links_shared']:,} "
                f"shared links simulated) in {summary['wall_time_s']:.2f} s")
    return (f"{summary['name']}{at}: {flows}, {summary['sim_time_s'] * 1e3:.2f} ms simulated "
            f"in {summary['wall_time_s']:.2f} s{speed}")


def footer(stats: dict) -> str:
    lines = []
    if stats.get("background"):
        lines.append("the table: background flows only; incast flows below")
    for key, what in (("queries", "query completion time"), ("pings", "ping round-trip time"),
                      ("incasts", "incast completion time, first start to last finish")):
        if key in stats:
            q = stats[key]
            pcts = " ".join(f"{k.removesuffix('_us')} {_f(v)}" for k, v in q.items() if k.startswith("p"))
            lines.append(f"{key} {q['count']:,}" + (f" ({q['unfinished']:,} unfinished)" if q["unfinished"] else "")
                         + f" · {what} (us): mean {_f(q['mean_us'])} {pcts}")
    # A statistic that still moved between the run's halves depends on how
    # long the run was: say so where the numbers are read (metrics.settling).
    moved = [b for b in stats.get("settling", []) if b.get("settled") is False]
    if moved:
        def unfinished(b):  # left out of the later half's mean
            return f", {b['later_unfinished']:,} unfinished" if b["later_unfinished"] else ""
        lines.append("not settled (mean slowdown, earlier -> later half of a bin's flows by start time): "
                     + ", ".join(f"{b['bin']} {_f(b['earlier_mean'])} -> {_f(b['later_mean'])} "
                                 f"({100 * b['change']:+.0f}%{unfinished(b)})" for b in moved)
                     + "; more flows may change them")
    if stats.get("short_span"):
        lines.append(short_span(stats["short_span"]))
    if "drops" in stats:
        d = stats["drops"]
        spurious = stats.get("spurious_retransmissions")
        # resent though the first copy arrived (TCP's receivers count them):
        # reordering or an early timeout, not loss
        apart = f" ({spurious:,} spurious: their first copy had arrived)" if spurious else ""
        lines.append(f"drops {d['packets']:,} ({100 * d['of_data_packets']:.3g}% of data packets) · "
                     f"timeouts {stats['timeouts']:,} · retransmitted packets {stats['retransmitted_packets']:,}"
                     + apart)
    return "\n".join(lines)


def short_span(s: dict) -> str:
    """`metrics.summarize`'s short_span in words."""
    return (f"the arrivals span {1e3 * s['arrivals_s']:.3g} ms, less than the largest flow's ideal FCT "
            f"({1e3 * s['largest_ideal_fct_s']:.3g} ms): the largest flows run mostly after the last arrival, "
            "on an emptying fabric; more flows would give them company")


def render(title: str, headers: Row, rows: list[Row], note: str = "", out: Optional[TextIO] = None,
           align: str = "") -> None:
    """Print a table: rich's on a terminal, aligned plain text otherwise.
    `align` gives each column's justification ('l' or 'r'); by default the
    first column is left-justified and the others (numbers) right."""
    out = out or sys.stdout
    align = align or "l" + "r" * (len(headers) - 1)
    if out.isatty():
        from rich.console import Console
        from rich.table import Table

        console = Console(file=out, soft_wrap=True)
        table = Table()
        for i, h in enumerate(headers):
            table.add_column(h, justify="left" if align[i] == "l" else "right")
        for r in rows:
            table.add_row(*r)
        console.print(title, style="bold", markup=False, highlight=False)
        console.print(table)
        if note:
            console.print(note, style="dim", markup=False, highlight=False)
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Row) -> str:
        return "  ".join(c.ljust(w) if align[i] == "l" else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    print(title, file=out)
    print(line(headers), file=out)
    for r in rows:
        print(line(r), file=out)
    if note:
        print(note, file=out)


def homa_line(h: dict) -> str:
    """Homa's levels as the run resolved them (`summary["homa"]`)."""
    return (f"homa: {h['unscheduled_levels']} unscheduled and {h['scheduled_levels']} scheduled levels, "
            f"{h['rtt_bytes']:,} B unscheduled (RTT bytes), {h['overcommit']} messages granted at once")


def ran_on(summary: dict) -> str:
    """What the run's scheme ran on, "auto" resolved (`summary["resolved"]`):
    schemes compared side by side may not run on the same buffers and
    packets."""
    r, spec = summary.get("resolved"), summary.get("spec", {})
    if not r:
        return ""
    routing = spec.get("routing", {}).get("load_balancing", "")
    profile = f" (profile {spec['profile']})" if spec.get("profile") else ""
    return f"ran on: {spec.get('scheme', {}).get('name', '')}{profile}, {_buffers_and_packets(r)}" + (
        f", {routing}" if routing else "")


def _buffers_and_packets(r: dict) -> str:
    """A summary's `resolved` in words: 'shared buffers with PFC, 1000 + 48 B packets'."""
    return (f"{r['buffer_model'].replace('_', '-')} buffers{' with PFC' if r['pfc'] else ''}, "
            f"{r['mss_bytes']} + {r['header_bytes']} B packets")


def print_run(summary: dict, stats: Optional[dict] = None, out: Optional[TextIO] = None,
              caveats: bool = True) -> None:
    """The run's table and notes; `caveats`: with an estimate's caveats
    (`dcsim estimate` has warned of them before it ran)."""
    stats = stats or summary["stats"]
    headers, rows = stats_table(stats)
    note = footer(stats) + (f"\n{homa_line(summary['homa'])}" if summary.get("homa") else "")
    if ran_on(summary):
        note += f"\n{ran_on(summary)}"
    for c in summary.get("estimate", {}).get("caveats", []) if caveats else []:
        note += f"\ncaveat: {c}"  # an estimate's measured bias (docs/estimator.md)
    render(headline(summary) + " · slowdown (normalized FCT) by flow size", headers, rows, note, out)


# ---- directories --------------------------------------------------------


def show(directory: str | Path, bins: Optional[Sequence[float]] = None, out: Optional[TextIO] = None) -> None:
    """Print the statistics of a finished run or sweep point (a directory
    with summary.json and flows.parquet), or a table of every complete
    point of a sweep or figure directory."""
    d = Path(directory)
    if (d / "summary.json").is_file():
        summary = json.loads((d / "summary.json").read_text())
        print_run(summary, stats_of(d, summary, bins), out)
    elif (d / "sweep.json").is_file():
        _show_sweep(d, bins, out)
    elif (d / "figure.json").is_file():
        # a figure computed from a model (no simulated points)
        name = json.loads((d / "figure.json").read_text()).get("figure", d.name)
        tables = ", ".join(p.name for p in sorted(d.glob("*.csv"))) or "figure.json"
        raise SpecError(f"show: {d} holds figure {name}, computed from a model with no simulated runs to show: "
                        f"its values are in {tables} and figure.json, its page is {d / 'report.html'}")
    elif d.is_dir():
        figures = sorted(p.parent.name for p in d.glob("*/figure.json"))
        if figures:
            raise SpecError(f"show: {d} holds the figures {', '.join(figures)}: show one of them "
                            f"(dcsim show {d / figures[0]})")
        raise SpecError(f"show: {d} holds no results (no summary.json or sweep.json); "
                        "give a directory written by dcsim run, sweep or reproduce")
    else:
        raise SpecError(f"show: no such directory {d}")


def _show_sweep(d: Path, bins: Optional[Sequence[float]], out: Optional[TextIO]) -> None:

    title, headers, rows = sweep_table(d, bins)
    # a paper's figure runs each scheme as the paper did: no note there
    mixed = "" if (d / "figure.json").is_file() else unlike(load_points(d))
    render(title, headers, rows, (mixed + "\n" if mixed else "") + f"one point in full: dcsim show {d}/points/<key>",
           out)


def unlike(summaries: list[dict]) -> str:
    """A note when the points ran on different buffers or packet sizes
    (their schemes' own: HPCC's shared buffer and 1 KB packets beside
    DCTCP's per-port buffers and 1,460 B), '' when they did not."""
    seen = {json.dumps(s["resolved"], sort_keys=True) for s in summaries if "resolved" in s}
    if len(seen) < 2:
        return ""
    kinds = sorted(_buffers_and_packets(r) for r in map(json.loads, seen))
    return ("note: the points ran on their schemes' own buffers and packet sizes (" + "; ".join(kinds)
            + "): set buffer.* and scheme.mss_bytes/header_bytes to compare like for like")


def sweep_table(d: Path, bins: Optional[Sequence[float]] = None) -> tuple[str, Row, list[Row]]:
    """A sweep directory's complete points, a row each: the grid's values,
    the mean slowdown in each size bin, the first bin's 99th percentile,
    unfinished flows, drops, and the bins not settled over the run
    (`dcsim show`, the report)."""

    info = json.loads((d / "sweep.json").read_text())
    points = load_points(d)
    if not points:
        raise SpecError(f"show: the sweep in {d} has no complete point yet")
    params = list(info["grid"])
    pct = "p99"
    headers, rows = [], []
    for s in points:
        stats = stats_of(point_dir(d, s["point"]["key"]), s, bins)
        by = stats["by_size"]
        headers = ["point", *params, "flows", *(f"{r['bin']} mean" for r in by), f"{by[0]['bin']} {pct}",
                   "unfinished", "drop %", "not settled"]
        rows.append([s["point"]["key"], *(str(s["point"]["params"].get(p, "")) for p in params),
                     _f(s["flows_finished"]), *(_f(r["mean"]) for r in by), _f(by[0][pct]),
                     _f(s["unfinished_flows"]), _f(100 * stats["drops"]["of_data_packets"]),
                     unsettled(stats) or "-"])
    return (f"{info['name']}: {len(points)} of {len(info['points'])} points complete · slowdown by flow size",
            headers, rows)
