"""The speed targets of `make bench`, judged: each `dcsim bench --json`
result in a directory against the target its issue sets.

    python -m dcsim.bench_targets out/bench

- TCP, the engine's scenario (20,000 flows): at least 20 M packet-hops/s on
  one core (the engine issue);
- pFabric, the paper's point (100,000 flows): under 60 s and 300 MB; the
  Ideal scheduler on the same flows under 5 s (the pFabric issue);
- HPCC and BFC (20,000 flows): packet-hops/s within 2x of the TCP run's
  (the BFC issue); DCQCN's ratio is shown, with no target;
- PDQ (TCP's 20,000 flows): at least half of TCP's packet-hops/s (the PDQ
  issue).

A result run at other flows or another load than the target's point is
reported as such, not judged. Memory is the whole process's peak (MiB). `make bench-scale` judges the scale issue's targets itself
(`dcsim.bench_scale`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TCP_RATE_M = 20.0
PFABRIC_S, PFABRIC_MIB = 60.0, 300.0
IDEAL_S = 5.0
RDMA_RATIO = 2.0
#: the load of every point (`dcsim.bench.scenario`)
LOAD = 0.6


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def targets(results: dict[str, dict]) -> list[str]:
    """One line per target, from the results by scheme (`dcsim.bench.main`'s
    dicts)."""

    def point(scheme: str, flows: int) -> dict | None:
        r = results.get(scheme)
        if r is None:
            lines.append(f"{scheme}: not measured")
        elif r["flows"] != flows or r["load"] != LOAD:
            lines.append(f"{scheme}: measured at {r['flows']:,} flows and load {r['load']}, not the target's "
                         f"{flows:,} and {LOAD}")
        else:
            return r
        return None

    lines: list[str] = []
    tcp = point("tcp", 20_000)
    if tcp:
        rate = tcp["packet_hops_per_s"] / 1e6
        lines.append(f"tcp, 20,000 flows: {rate:.2f} M packet-hops/s (target >= {TCP_RATE_M:.0f} M): "
                     f"{_verdict(rate >= TCP_RATE_M)}")
    pf = point("pfabric", 100_000)
    if pf:
        ok = pf["wall_s"] < PFABRIC_S and pf["peak_rss_mib"] < PFABRIC_MIB
        lines.append(f"pfabric, 100,000 flows: {pf['wall_s']:.1f} s (target < {PFABRIC_S:.0f} s), "
                     f"{pf['peak_rss_mib']:.0f} MiB (target < {PFABRIC_MIB:.0f}): {_verdict(ok)}")
    ideal = point("ideal", 100_000)
    if ideal:
        lines.append(f"ideal, 100,000 flows: {ideal['wall_s']:.2f} s (target < {IDEAL_S:.0f} s): "
                     f"{_verdict(ideal['wall_s'] < IDEAL_S)}")
    for scheme in ("hpcc", "bfc", "dcqcn", "pdq"):
        r = point(scheme, 20_000)
        if not r:
            continue
        rate = f"{scheme}, 20,000 flows: {r['packet_hops_per_s'] / 1e6:.2f} M packet-hops/s"
        if not tcp:
            lines.append(f"{rate}; no TCP run at 20,000 flows to compare with")
            continue
        ratio = tcp["packet_hops_per_s"] / r["packet_hops_per_s"]
        judged = " (no target)" if scheme == "dcqcn" else f" (target <= {RDMA_RATIO:.0f}x): {_verdict(ratio <= RDMA_RATIO)}"
        lines.append(f"{rate}, TCP's rate is {ratio:.2f}x it{judged}")
    return lines


#: what every result must hold (`dcsim.bench.main`'s dict)
KEYS = ("scheme", "flows", "load", "wall_s", "packet_hops_per_s", "peak_rss_mib")


def load(directory: str | Path) -> dict[str, dict]:
    """The `dcsim bench --json` results in `directory`, by scheme (one
    file per scheme)."""
    out: dict[str, dict] = {}
    files: dict[str, Path] = {}
    for f in sorted(Path(directory).glob("*.json")):
        try:
            r = json.loads(f.read_text())
        except (OSError, ValueError) as e:  # (JSON and UTF-8 errors are ValueErrors)
            raise ValueError(f"{f}: not a `dcsim bench --json` result ({e})") from None
        if not isinstance(r, dict) or any(k not in r for k in KEYS):
            raise ValueError(f"{f}: not a `dcsim bench --json` result (it needs {', '.join(KEYS)})")
        if r["scheme"] != "ideal" and not r["packet_hops_per_s"] > 0:
            raise ValueError(f"{f}: a {r['scheme']} run with no packet-hops")
        if r["scheme"] in files:
            raise ValueError(f"{f}: a second {r['scheme']} result (the first: {files[r['scheme']].name})")
        out[r["scheme"]] = r
        files[r["scheme"]] = f
    return out


def main(argv: list[str] | None = None) -> list[str]:
    import argparse

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("directory", help="a directory of `dcsim bench --json` results")
    a = p.parse_args(argv)
    if not Path(a.directory).is_dir():
        print(f"dcsim.bench_targets: error: {a.directory}: no such directory", file=sys.stderr)
        raise SystemExit(2)
    try:
        results = load(a.directory)
    except ValueError as e:
        print(f"dcsim.bench_targets: error: {e}", file=sys.stderr)
        raise SystemExit(2)
    lines = targets(results)
    print("targets:")
    for line in lines:
        print("  " + line)
    return lines


if __name__ == "__main__":
    main()
