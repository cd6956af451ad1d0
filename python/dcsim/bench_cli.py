"""Start-up time of the command line: `dcsim --help` and `dcsim list`,
and `dcsim run` on a spec of 20 flows (a run that is all start-up), each
run in a fresh interpreter (as a user types them), reported as the median
and fastest wall time of N runs. The targets are under 0.3 s for help and
lists (the heavy libraries, pandas, pyarrow, matplotlib, the engine and
pydantic, are imported only by the commands that use them) and under
0.5 s for the tiny run (it needs numpy, pyarrow, pydantic and the engine,
but not pandas). docs/performance.md, "Command-line start-up".

    python -m dcsim.bench_cli [--runs 15]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: (arguments, target in seconds); SPEC and OUT stand for a tiny spec and
#: an output directory
COMMANDS = ((["--help"], 0.3), (["--version"], 0.3), (["list"], 0.3), (["list", "schemes"], 0.3),
            (["run", "SPEC", "--out", "OUT", "--force", "--quiet"], 0.5))
TINY_SPEC = "[workload]\nflows = 20\n"


def measure(args: list[str], runs: int) -> list[float]:
    subprocess.run([sys.executable, "-m", "dcsim", *args], capture_output=True, check=True)  # warm the caches
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "dcsim", *args], capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=15)
    a = p.parse_args(argv)
    print(f"command-line start-up ({a.runs} runs each, fresh interpreter):")
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "tiny.toml"
        spec.write_text(TINY_SPEC)
        where = {"SPEC": str(spec), "OUT": str(Path(tmp) / "out")}
        for args, target in COMMANDS:
            t = measure([where.get(x, x) for x in args], a.runs)
            shown = " ".join("tiny.toml" if x == "SPEC" else x for x in args if x not in ("OUT", "--out"))
            print(f"  dcsim {shown:30s} median {statistics.median(t):.3f} s, fastest {min(t):.3f} s "
                  f"(target < {target} s)")


if __name__ == "__main__":
    main()
