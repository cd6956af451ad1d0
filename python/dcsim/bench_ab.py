"""An engine change judged against the engine before it, in one session.

The VM's speed moves by up to 2x from day to day, so a change is judged by
the old and new builds run in alternation, not by yesterday's numbers.
This builds `run_config` (the engine without Python, with the extension's
allocator) from a git revision in a worktree of its own and from the
checkout, writes each benchmark scenario's engine configuration once (from
the checkout's Python), then runs the two builds in turn, `--rounds` times
each, and reports the best packet-hop rate of each side and their ratio.
Both builds must give the same digest of the flow records: a change that
only reshapes the code moves no result.

    python -m dcsim.bench_ab HEAD~1                   # make bench's schemes
    python -m dcsim.bench_ab main --schemes tcp,bfc --rounds 5
    python -m dcsim.bench_ab v1 --flows pfabric=20000

Takes a few minutes per scheme (the two builds, then 2 x rounds runs).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from .bench import SCHEMES, scenario
from .spec import engine_config_json

#: `make bench`'s flows per scheme
FLOWS = {"tcp": 20_000, "pfabric": 100_000, "ideal": 100_000, "hpcc": 20_000, "dcqcn": 20_000, "bfc": 20_000}
LINE = re.compile(r"\((?P<rate>[\d.]+) M/s\), \d+ flows active at most, (?P<wall>[\d.]+) s, "
                  r"conservation (?P<ok>\w+), digest (?P<digest>[0-9a-f]+)")


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def build(src: Path, target: Path) -> Path:
    """`run_config` of the tree at `src`, built into `target`."""
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "dcsim-engine", "--example", "run_config",
                    "--target-dir", str(target)], cwd=src, check=True)
    return target / "release" / "examples" / "run_config"


def worktree(root: Path, rev: str, where: Path) -> Path:
    """A worktree of `rev` at `where` (made again if it holds another commit)."""
    commit = _git("rev-parse", rev, cwd=root)
    tree = where / f"src-{commit[:12]}"
    if not tree.exists():
        _git("worktree", "add", "--detach", str(tree), commit, cwd=root)
    return tree


def run_once(binary: Path, config: Path) -> dict:
    out = subprocess.run([str(binary), str(config)], check=True, capture_output=True, text=True).stdout
    m = LINE.search(out)
    if m is None:
        raise RuntimeError(f"{binary}: unexpected output {out!r}")
    if m["ok"] != "true":
        raise RuntimeError(f"{binary} on {config}: conservation broken")
    return {"rate": float(m["rate"]), "wall": float(m["wall"]), "digest": m["digest"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dcsim.bench_ab", description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="the git revision to compare with (a commit, branch or tag)")
    ap.add_argument("--schemes", default=",".join(SCHEMES), help="comma-separated, of " + ", ".join(SCHEMES))
    ap.add_argument("--flows", action="append", default=[], metavar="SCHEME=N",
                    help="flows of a scheme's scenario (default: make bench's)")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each build per scheme, alternated")
    ap.add_argument("--out", default="out/bench-ab", help="worktree, builds and configurations")
    a = ap.parse_args(argv)
    schemes = [s for s in a.schemes.split(",") if s]
    bad = [s for s in schemes if s not in SCHEMES]
    if bad or a.rounds < 1:
        ap.error(f"unknown schemes {bad}" if bad else "--rounds must be at least 1")
    flows = dict(FLOWS)
    for item in a.flows:
        name, _, n = item.partition("=")
        if name not in SCHEMES or not n.isdigit():
            ap.error(f"--flows takes SCHEME=N, got {item!r}")
        flows[name] = int(n)
    root = Path(_git("rev-parse", "--show-toplevel", cwd=Path.cwd()))
    out = (root / a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(f"building {a.base} and the checkout ...", file=sys.stderr)
    base = build(worktree(root, a.base, out), out / "target-base")
    head = build(root, root / "target")
    print(f"{'scheme':8} {'flows':>8} {'base M/s':>9} {'head M/s':>9} {'head/base':>9}  digests")
    for s in schemes:
        config = out / f"{s}-{flows[s]}.json"
        config.write_text(engine_config_json(scenario(flows[s], scheme=s)))
        runs = {"base": [], "head": []}
        for _ in range(a.rounds):
            for side, binary in (("base", base), ("head", head)):
                runs[side].append(run_once(binary, config))
        # a flow-level model has no packet-hops: its speed is 1 / wall time
        per_hop = all(r["rate"] > 0 for rs in runs.values() for r in rs)
        speed = (lambda r: r["rate"]) if per_hop else (lambda r: 1 / r["wall"])
        best = {side: max(map(speed, rs)) for side, rs in runs.items()}
        digests = {r["digest"] for rs in runs.values() for r in rs}
        ratio = best["head"] / best["base"]
        same = "same" if len(digests) == 1 else "DIFFER: " + ", ".join(sorted(digests))
        unit = "" if per_hop else " (runs/s)"
        print(f"{s:8} {flows[s]:>8,} {best['base']:>9.2f} {best['head']:>9.2f} {ratio:>9.3f}  {same}{unit}")
        for side, rs in runs.items():
            shown = (f"{r['rate']:.2f}" if per_hop else f"{r['wall']:.2f} s" for r in rs)
            print(f"  {side} runs ({'M packet-hops/s' if per_hop else 'wall time'}): " + ", ".join(shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
