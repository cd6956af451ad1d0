"""The documentation names no path outside the repository (issue 51: a
measured statement is only as good as the command that reruns it from a
clone); the evidence scripts and the images' captions are in order."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"(?<![\w.])(/work/|/tmp/|/home/|~/)")


def test_no_page_names_a_path_outside_the_repository():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = {}
    for page in pages:
        n = len(OUTSIDE.findall(page.read_text()))
        if n:
            found[str(page.relative_to(ROOT))] = n
    assert found == {}, f"pages naming paths outside the repository: {found}"


IMAGE = re.compile(r"!\[[^\]]*\]\((img/[^)]+)\)")
CAPTION = re.compile(r"^\s*\*`(img/[^`]+)`: drawn by `dcsim reproduce [\w-]+( --(full|quick))?`.*, added in ([0-9a-f]{7,}) "
                     r"\(\d{4}-\d\d-\d\d\); .*\*$")


def test_every_reproduction_image_says_what_drew_it_and_when():
    """Each image of a reproduction page has, on the next line, the command
    and mode that drew it and the commit that added it
    (docs/reproductions/img_captions.py writes it)."""
    import subprocess

    commits = set()
    for page in sorted((ROOT / "docs" / "reproductions").glob("*.md")):
        lines = page.read_text().split("\n")
        for i, line in enumerate(lines):
            for m in IMAGE.finditer(line):
                cap = CAPTION.match(lines[i + 1]) if i + 1 < len(lines) else None
                assert cap and cap.group(1) == m.group(1), \
                    f"{page.name}:{i + 1}: {m.group(1)} has no caption line (run docs/reproductions/img_captions.py)"
                assert (page.parent / m.group(1)).is_file(), f"{page.name}:{i + 1}: no such image {m.group(1)}"
                commits.add(cap.group(4))
    assert commits
    git = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True)
    if git.returncode == 0 and git.stdout.strip() == "false":
        for c in commits:
            assert subprocess.run(["git", "cat-file", "-e", f"{c}^{{commit}}"], cwd=ROOT).returncode == 0, c


def test_evidence_scripts_name_their_page_and_time_and_the_pages_name_real_scripts():
    """Each evidence script's docstring names the page it supports and how
    long it takes; each script a page cites exists."""
    import ast

    evidence = ROOT / "docs" / "reproductions" / "evidence"
    for script in sorted(evidence.glob("*.py")):
        if script.name.startswith("_"):
            continue
        doc = ast.get_docstring(ast.parse(script.read_text())) or ""
        assert re.search(r"docs/[\w/.-]+\.md", re.sub(r"/\s+", "/", doc)), \
            f"{script.name}: its docstring names no page"
        assert re.search(r"\b([Ss]econds?|[Mm]inutes?|[Hh]ours?|\d+ ?s\b|a minute|an hour)", doc), \
            f"{script.name}: its docstring does not say how long it takes"
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        for name in re.findall(r"evidence/([\w.-]+\.py)", page.read_text()):
            assert (evidence / name).is_file(), f"{page.relative_to(ROOT)} cites evidence/{name}, which does not exist"
