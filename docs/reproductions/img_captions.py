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

import inspect, re, subprocess, sys
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

def caption(path):
    stem = Path(path).stem
    name, mode, extra = figure_of(stem)
    fig = get(name)
    commit, date = git("log", "-1", "--format=%h %ad", "--date=short", "--", f"docs/reproductions/{path}").split()
    cmd = f"dcsim reproduce {name}" + (f" --{mode}" if mode else "")
    fn = drawer(fig)
    src = Path(inspect.getsourcefile(fn)).relative_to(ROOT)
    files = sorted({str(src), "python/dcsim/figures/core.py"})
    since = git("log", "--format=%h", f"{commit}..HEAD", "--", *files).split()
    kind = "a model, one mode" if mode is None else f"{mode} mode"
    short = ", ".join("`" + f.removeprefix("python/dcsim/") + "`" for f in files)
    note = (f"its drawing modules ({short}) changed in {len(since)} later commit{'s' * (len(since) > 1)}: "
            "older plotting" if since else f"no later change to its drawing modules ({short})")
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
