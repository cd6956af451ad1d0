"""`dcsim report DIR`: one self-contained HTML page for the figures and
sweeps under DIR: the plots (embedded), our numbers next to the paper's,
the spec of every point, versions and wall times."""

from __future__ import annotations

import base64
import html
import json
import platform
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from . import __version__
from .errors import SpecError

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}img{max-width:100%;border:1px solid #eee}
.ok{color:#176a1a}.bad{color:#a11}details{margin:.2em 0}pre{background:#f7f7f7;padding:.5em;overflow-x:auto;font-size:.8em}
.meta{color:#666;font-size:.9em}
"""

# Set by the browser once the page has loaded: how many images decoded.
CHECK = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute('data-images-ok', String(ok));
  document.body.setAttribute('data-images-total', String(imgs.length));
});
"""


def _esc(x) -> str:
    return html.escape(str(x))


def _versions() -> dict:
    out = {"dcsim": __version__, "python": sys.version.split()[0], "platform": platform.platform()}
    for pkg in ("numpy", "pandas", "pyarrow", "pydantic", "matplotlib", "distributed"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def _img(path: Path) -> str:
    return _img_bytes(path.read_bytes(), path.stem)


def _img_bytes(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode()
    return f'<img alt="{_esc(alt)}" src="data:image/png;base64,{data}">'


def _points_section(d: Path) -> str:
    from .results import load_points

    rows = []
    total_wall = 0.0
    for s in load_points(d):
        total_wall += s["wall_time_s"]
        params = ", ".join(f"{k}={v}" for k, v in s["point"]["params"].items())
        spec = _esc(json.dumps(s["spec"], indent=2))
        status = s["status"] if not s["unfinished_flows"] else f"{s['status']} ({s['unfinished_flows']} unfinished)"
        rows.append(
            f"<tr><td class=l><code>{_esc(s['point']['key'])}</code></td><td class=l>{_esc(params)}</td>"
            f"<td>{s['flows_finished']:,}</td><td>{s['events']:,}</td><td>{s['sim_time_s'] * 1e3:.2f}</td>"
            f"<td>{s['wall_time_s']:.2f}</td><td class=l>{_esc(status)}</td>"
            f"<td class=l><details><summary>spec</summary><pre>{spec}</pre></details></td></tr>"
        )
    head = ("<tr><th class=l>point</th><th class=l>parameters</th><th>flows</th><th>events</th>"
            "<th>simulated ms</th><th>wall s</th><th class=l>status</th><th class=l>spec</th></tr>")
    return (f"<h3>Points ({len(rows)}, {total_wall:.1f} s of simulation wall time)</h3>"
            f"<table>{head}{''.join(rows)}</table>")


def _paper_table(paper: list[dict]) -> str:
    from .figures import comparison_rows

    if not paper:
        return "<p>The paper gives no numbers for this figure in its text.</p>"
    rows = []
    for p, (where, panel, rng, ours, verdict) in zip(paper, comparison_rows(paper)):
        cls = "ok" if verdict == "consistent" else "bad"
        rows.append(
            f"<tr><td class=l>{_esc(where)}</td><td class=l>{_esc(panel)}</td><td class=l>{_esc(p['claim'])}</td>"
            f"<td>{_esc(rng)}</td><td class=l>{_esc(ours)}</td><td class='l {cls}'>{_esc(verdict)}</td></tr>"
        )
    head = ("<tr><th class=l>where</th><th class=l>panel</th><th class=l>paper says</th><th>paper range</th>"
            "<th class=l>dcsim (x: value)</th><th class=l>verdict</th></tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _figure_section(d: Path) -> str:
    import pandas as pd

    info = json.loads((d / "figure.json").read_text())
    table = pd.read_csv(d / info["table"])
    # the columns named as the plots name them: each panel's statistic and
    # unit, the x axis's field and label
    names = {p["key"]: f"{p['key']}: {p['title']} ({p['ylabel']})" for p in info.get("panels", []) if "ylabel" in p}
    if "x" in info:
        unit = info["x"].get("unit", 1) or 1
        if unit != 1:
            # as the plot's axis: the field's value over its unit
            table["x"] = table["x"] / unit
        names["x"] = f"x: {info['x']['label']} ({info['x']['field']}" + (f" / {unit:g})" if unit != 1 else ")")
    if "unfinished" in table.columns:
        names["flows"] = "flows (started: finished or not)"
    table = table.rename(columns=names)
    images = "".join(_img(d / name) for name in info["images"] if name.endswith(".png"))
    failed = info.get("failed_points") or {}
    fail_note = (f"<p class=bad>{len(failed)} point(s) failed: "
                 f"{_esc('; '.join(f'{k}: {v}' for k, v in failed.items()))}</p>") if failed else ""
    return (
        f"<h2>{_esc(info['title'])}</h2>"
        f"<p class=meta>{_esc(info['figure'])} &middot; {_esc(info['mode'])} mode &middot; {_esc(info['source'])}</p>"
        f"<p>{_esc(info['description'])}</p>{fail_note}{images}"
        f"<h3>dcsim's numbers</h3>{table.to_html(index=False, float_format=lambda v: f'{v:.3f}', border=0)}"
        f"<h3>Against the paper</h3>{_paper_table(info['paper'])}"
        f"<p class=meta>{_esc(info.get('notes', ''))}</p>"
        f"{_points_section(d) if (d / 'sweep.json').is_file() else ''}"
    )


def _run_plot(d: Path) -> bytes:
    """Mean and 99th-percentile slowdown against flow size (log-spaced
    size buckets) of one run, as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.4), constrained_layout=True)
    curve = _by_size(d)
    if curve is not None:
        ax.plot(curve.index, curve["mean"], marker="o", label="mean")
        ax.plot(curve.index, curve["p99"], marker="^", ls="--", label="99th percentile")
    return _slowdown_axes(fig, ax)


def _by_size(d: Path):
    """A run's slowdown by flow size, in up to 24 log-spaced size bins:
    mean and 99th percentile, indexed by the bins' geometric middles (None
    without finished flows)."""
    import numpy as np
    import pandas as pd

    flows = pd.read_parquet(d / "flows.parquet", columns=["size_bytes", "slowdown"]).dropna()
    if not len(flows):
        return None
    lo, hi = np.log10(flows.size_bytes.min()), np.log10(flows.size_bytes.max())
    edges = np.logspace(lo, hi + 1e-9, min(24, max(2, int(4 * (hi - lo)) + 2)))
    which = np.clip(np.searchsorted(edges, flows.size_bytes, side="right") - 1, 0, len(edges) - 2)
    g = flows.groupby(which).slowdown
    mid = np.sqrt(edges[:-1] * edges[1:])
    return pd.DataFrame({"mean": g.mean(), "p99": g.quantile(0.99)}).set_index(mid[sorted(set(which))])


def _slowdown_axes(fig, ax, legend: bool = True) -> bytes:
    """Finish a slowdown-by-size plot (log axes, the papers' bins) as PNG."""
    _log_slowdown(ax)
    if legend:
        ax.legend(fontsize=8)
    return _png(fig)


def _log_slowdown(ax) -> None:
    """Log axes of slowdown against flow size, the papers' bins dotted."""
    from .figures.core import plain_log_ticks

    for edge in (100e3, 10e6):  # the papers' bins
        ax.axvline(edge, color="gray", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)  # slowdowns read as 2, 5, 10, 40
    ax.set_xlabel("flow size (bytes); dotted: the papers' bins at 100 KB and 10 MB")
    ax.set_ylabel("slowdown (normalized FCT)")
    ax.grid(alpha=0.3, which="both")


def _png(fig) -> bytes:
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    return buf.getvalue()


#: A sweep's plot draws each point's curve up to this many points.
SWEEP_CURVES = 12


def _sweep_section(d: Path, bins=None) -> str:
    """A sweep that is not a figure: every complete point's slowdown by
    size bin (as `dcsim show`), their mean slowdown by flow size on one
    plot, and the points' specs."""
    from .results import load_points, point_dir
    from .show import sweep_table

    name = json.loads((d / "sweep.json").read_text())["name"]
    head = f"<h2>Sweep {_esc(name)}</h2><p class=meta>{_esc(d)}</p>"
    points = load_points(d)
    if not points:
        return head + "<p>No point is complete yet.</p>" + _points_section(d)
    title, headers, rows = sweep_table(d, bins)
    from .show import unlike

    mixed = unlike(points)
    table = (f"<p>{_esc(title)}</p>" + (f"<p class=meta>{_esc(mixed)}</p>" if mixed else "")
             + _html_table(headers, rows))
    if len(points) > SWEEP_CURVES:
        plot = f"<p class=meta>{len(points)} points: too many curves for one plot; each point's is in its run.</p>"
    else:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7.2, 4.4), constrained_layout=True)
        # the grid's first field by colour, its second by line style
        fields = list(points[0]["point"]["params"])
        values = [list(dict.fromkeys(str(s["point"]["params"].get(f)) for s in points)) for f in fields[:2]]
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        styles = ["-", "--", ":", "-."]
        for s in points:
            curve = _by_size(point_dir(d, s["point"]["key"]))
            if curve is None:
                continue
            params = s["point"]["params"]
            at = [values[i].index(str(params.get(f))) for i, f in enumerate(fields[:2])]
            label = ", ".join(str(v) for v in params.values()) or "base"
            # a third field and beyond: each combination its own marker
            rest = [str(params.get(f)) for f in fields[2:]]
            marker = ".ov^sD*"[sorted({tuple(str(q["point"]["params"].get(f)) for f in fields[2:])
                                      for q in points}).index(tuple(rest)) % 7] if rest else "."
            ax.plot(curve.index, curve["mean"], marker=marker, label=label,
                    color=colors[at[0] % len(colors)] if at else None,
                    ls=styles[at[1] % len(styles)] if len(at) > 1 else "-")
        ax.set_title("mean slowdown by flow size, each point", fontsize=9)
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=min(4, max(1, len(labels))), fontsize=7,
                   title=", ".join(fields) or None, title_fontsize=7, handlelength=3.5)
        plot = _img_bytes(_slowdown_axes(fig, ax, legend=False), f"sweep {name}: mean slowdown by flow size")
    return head + plot + table + _points_section(d)


def _run_section(d: Path, bins=None) -> str:
    from .results import stats_of
    from .show import _f, footer, headline, stats_table

    summary = json.loads((d / "summary.json").read_text())
    stats = stats_of(d, summary, bins)
    headers, rows = stats_table(stats)
    # an estimate has no engine counters: what it simulated stands in their place
    what, numbers = ("estimate", {k: v for k, v in summary["estimate"].items() if k != "caveats"}) \
        if summary.get("estimated") else ("counters", summary["counters"])
    counters = "".join(f"<tr><td class=l>{_esc(k)}</td><td>{_esc(_f(v) if isinstance(v, (int, float)) else v)}</td></tr>"
                       for k, v in numbers.items())
    overrides = summary.get("overrides") or {}
    over = (f"<p>Overrides: <code>{_esc(', '.join(f'{k}={v}' for k, v in overrides.items()))}</code></p>"
            if overrides else "")
    return (
        f"<h2>Run {_esc(summary['name'])}</h2><p class=meta>{_esc(d)} &middot; dcsim {_esc(summary['version'])} "
        f"&middot; seed {summary['seed']} &middot; status {_esc(summary['status'])}</p>"
        f"<p>{_esc(headline(summary))}</p>{over}{_img_bytes(_run_plot(d), 'slowdown by flow size')}"
        f"<h3>Slowdown by flow size</h3>{_html_table(headers, rows)}"
        + "".join(f"<p>{_esc(line)}</p>" for line in footer(stats).splitlines())
        + "".join(f"<p><b>caveat</b>: {_esc(c)}</p>" for c in summary.get("estimate", {}).get("caveats", [])) +
        f"<details><summary>{what}</summary><table>{counters}</table></details>"
        f"<details><summary>spec</summary><pre>{_esc(json.dumps(summary['spec'], indent=2))}</pre></details>"
    )


def _html_table(headers: list[str], rows: list[list[str]]) -> str:
    """A table whose first column is text and the others numbers."""
    cells = "".join(f"<th{' class=l' if i == 0 else ''}>{_esc(h)}</th>" for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f"<td{' class=l' if i == 0 else ''}>{_esc(c)}</td>" for i, c in enumerate(r))
                   + "</tr>" for r in rows)
    return f"<table><tr>{cells}</tr>{body}</table>"


def _compare_section(runs: list[Path], bins=None) -> str:
    """Several runs side by side (`dcsim compare`'s table, its labels and
    cautions), and one plot per statistic with a curve per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .comparison import cautions, compare, run_dirs, side_by_side

    table = compare(*runs, bins=bins)
    letters, headers, rows = side_by_side(table)
    legend = "".join(f"<li>{_esc(x)}: {_esc(n)} <span class=meta>({_esc(table.attrs['runs'][n])})</span></li>"
                     for n, x in letters.items())
    said = "".join(f"<p class=bad>caution: {_esc(c)}</p>"
                   for c in cautions(table.attrs["differences"], list(letters.values())))
    said += "".join(f"<p class=meta>note: {_esc(n)}</p>" for n in table.attrs.get("notes", []))
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.2), constrained_layout=True)
    for d, (n, x) in zip(run_dirs(table), letters.items()):
        curve = _by_size(d)
        if curve is None:
            continue
        for ax, st in zip(axes, ("mean", "p99")):
            ax.plot(curve.index, curve[st], marker="o", ms=3, label=f"{x}: {n}")
    for ax, what in zip(axes, ("mean", "99th percentile")):
        ax.set_title(f"{what} slowdown by flow size", fontsize=9)
        _log_slowdown(ax)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(3, max(1, len(labels))), fontsize=7)
    plot = _img_bytes(_png(fig), "the runs' slowdown by flow size")
    return (f"<h2>{len(letters)} runs side by side</h2>{plot}"
            f"<h3>Slowdown by flow size</h3>{_html_table(headers, rows)}<ul>{legend}</ul>{said}")


def _found(root: Path, name: str) -> list[Path]:
    """The directories under `root` (links followed, each real directory
    once) that hold a file `name`."""
    import os

    out, seen = [], set()
    for here, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(here)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        if name in files:
            out.append(Path(here))
    return sorted(out)


def build(root: str | Path, bins=None) -> str:
    """The report's page for the results under `root` (size bins of its
    tables: the papers' unless `bins`, edges in bytes)."""
    root = Path(root)
    if not root.is_dir():
        raise SpecError(f"report: no such directory {root}")
    # sweeps, and figures (a figure of a model has no sweep)
    dirs = sorted(set(_found(root, "sweep.json")) | set(_found(root, "figure.json")))
    # single runs: a summary.json that is not a point of a sweep found above
    runs = [p for p in _found(root, "summary.json") if not any(p.is_relative_to(d / "points") for d in dirs)]
    if not dirs and not runs:
        raise SpecError(f"report: {root} holds no results (no summary.json or sweep.json found)")
    sections = [_compare_section(runs, bins)] if len(runs) > 1 else []
    sections += [_run_section(d, bins) for d in runs]
    for d in dirs:
        if (d / "figure.json").is_file():
            sections.append(_figure_section(d))
        else:
            sections.append(_sweep_section(d, bins))
    versions = "".join(f"<tr><td class=l>{_esc(k)}</td><td class=l>{_esc(v)}</td></tr>" for k, v in _versions().items())
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>dcsim report: {_esc(root.name)}</title><style>{CSS}</style><script>{CHECK}</script></head><body>"
        f"<h1>dcsim report</h1><p class=meta>{_esc(root)} &middot; generated {now}</p>"
        f"{''.join(sections)}<h2>Versions</h2><table>{versions}</table></body></html>"
    )


def write(root: str | Path, out: str | Path | None = None, bins=None) -> Path:
    page = build(root, bins)
    out = Path(out) if out else Path(root) / "report.html"
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        tmp.write_text(page)
        tmp.replace(out)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        # the page's own path, not the temporary file's
        raise OSError(e.errno, e.strerror, str(out)) from None
    return out
