"""The line under each image of a reproduction page that says where the
image comes from (issue 51): the command and mode that drew it, the
commit that added it, and whether its drawing modules have changed since
(an image drawn by older plotting says so).

Run it after committing a new or redrawn image, then commit the pages:

    .venv/bin/python docs/reproductions/img_captions.py docs/reproductions/bfc.md [PAGE ...]

It inserts the line after each `![...](img/...)` (moving an image that
sits inside a paragraph onto its own line) and refreshes one that is
already there. tests/test_docs.py checks that every image has one and
that the commit it names exists."""

import functools, inspect, re, subprocess, sys
from pathlib import Path
from dcsim.figures.core import get, draw as core_draw
from dcsim.figures.bfc.by_size import draw_by_size

ROOT = Path(__file__).resolve().parents[2]
IMG = re.compile(r"!\[[^\]]*\]\((img/[^)]+)\)")
CAP = re.compile(r"^\s*\*`img/[^`]+`: drawn .*\*\s*$")
SPECIAL = {"pfabric-fig10-11-quick-pdq": ("pfabric-fig10-11", "quick", " (its PDQ series)"),
           "pias-fig14-16-ws-full": ("pias-fig14-16", "full", " (web search only)")}

def git(*a):
    return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

def figure_of(stem):
    if stem in SPECIAL:
        return SPECIAL[stem]
    for mode in ("full", "quick"):
        if stem.endswith("-" + mode):
            return stem[: -len(mode) - 1], mode, ""
    return stem, None, ""

def drawer(fig):
    d = getattr(fig, "draw", None)
    if callable(d) and not inspect.ismethod(d):
        return d
    if type(fig).__name__ == "BySizeFigure":
        return draw_by_size
    return core_draw

#: The plotting every figure shares (figures/core.py): the functions that
#: draw, style, label and place the legend, not the ones that run sweeps.
CORE_DRAWING = [("python/dcsim/figures/core.py", f) for f in (
    "draw", "plain_handles", "covers", "_draw_bound", "plain_log_ticks", "_panel_title", "balanced_fill",
    "figure_legend", "_bound_text", "_pct_range")]


@functools.lru_cache(maxsize=None)
def _function_commits(path: str, function: str, since: str) -> tuple:
    out = git("log", "--format=%h", "-s", "-L", f":{function}:{path}", f"{since}..HEAD")
    return tuple(c for c in out.split() if c)


def changed_since(commit: str, functions: list) -> list:
    """The commits after `commit` that changed any of `functions` ((file,
    name) pairs), oldest first."""
    found = {c for path, name in functions for c in _function_commits(path, name, commit)}
    order = git("log", "--format=%h", "--reverse", f"{commit}..HEAD").split()
    return [c for c in order if c in found]


def caption(path):
    stem = Path(path).stem
    name, mode, extra = figure_of(stem)
    fig = get(name)
    commit, date = git("log", "-1", "--format=%h %ad", "--date=short", "--", f"docs/reproductions/{path}").split()
    cmd = f"dcsim reproduce {name}" + (f" --{mode}" if mode else "")
    fn = drawer(fig)
    src = Path(inspect.getsourcefile(fn)).relative_to(ROOT)
    since = changed_since(commit, [(str(src), fn.__name__), *CORE_DRAWING])
    short = f"`{fn.__name__}` in `{src.relative_to('python/dcsim')}` and the shared plotting of `figures/core.py`"
    kind = "a model, one mode" if mode is None else f"{mode} mode"
    head, head_date = git("log", "-1", "--format=%h %ad", "--date=short").split()
    note = (f"its drawing code ({short}) has changed since ({', '.join(since)}): older plotting" if since else
            f"its drawing code ({short}) unchanged through {head} ({head_date})")
    return f"*`{path}`: drawn by `{cmd}`{extra} ({kind}), added in {commit} ({date}); {note}.*"


for page in sys.argv[1:]:
    p = ROOT / page
    lines = p.read_text().split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = IMG.search(line)
        if not m:
            out.append(line); i += 1; continue
        indent = re.match(r"\s*", line).group(0)
        before = line[: m.start()]
        if before.strip():  # an image inside a paragraph: put it on its own line
            out.append(before.rstrip())
            if line.lstrip().startswith("- "):
                indent = indent + "  "
            line = indent + line[m.start():]
        out.append(line.rstrip())
        i += 1
        while i < len(lines) and CAP.match(lines[i]):
            i += 1
        out.append(indent + caption(m.group(1)))
    p.write_text("\n".join(out))
