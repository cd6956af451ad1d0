"""Start-up time of the command line: `dcsim --help` and `dcsim list`,
each run in a fresh interpreter (as a user types them), reported as the
median and fastest wall time of N runs. The target is under 0.3 s: the
heavy libraries (pandas, pyarrow, matplotlib, the engine, pydantic) are
imported only by the commands that use them.

    python -m dcsim.bench_cli [--runs 15]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

COMMANDS = (["--help"], ["--version"], ["list"], ["list", "schemes"])


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
    print(f"command-line start-up ({a.runs} runs each, fresh interpreter; target < 0.3 s):")
    for args in COMMANDS:
        t = measure(args, a.runs)
        print(f"  dcsim {' '.join(args):14s} median {statistics.median(t):.3f} s, fastest {min(t):.3f} s")


if __name__ == "__main__":
    main()
