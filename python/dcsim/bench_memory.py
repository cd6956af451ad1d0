"""Memory follows active flows: run the benchmark scenario with N and 10N
flows, each in a fresh process, and compare peak memory."""

from __future__ import annotations

import json
import subprocess
import sys


def run_child(flows: int, load: float) -> dict:
    code = f"import json; from dcsim.bench import measure; print(json.dumps(measure({flows}, {load})))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--flows", type=int, default=2_000)
    p.add_argument("--load", type=float, default=0.6)
    a = p.parse_args(argv)
    small, big = run_child(a.flows, a.load), run_child(10 * a.flows, a.load)
    print("memory scaling (web search, load %.1f):" % a.load)
    for r in (small, big):
        print(
            f"  {r['flows']:>8,} flows: engine {r['engine_peak_mib']:6.1f} MiB above baseline, "
            f"max active flows {r['max_active_flows']:,}, {r['packet_hops_per_s'] / 1e6:.1f} M packet-hops/s"
        )
    ratio = big["engine_peak_mib"] / max(small["engine_peak_mib"], 1e-9)
    print(f"  10x the flows -> {ratio:.2f}x the engine memory")


if __name__ == "__main__":
    main()
