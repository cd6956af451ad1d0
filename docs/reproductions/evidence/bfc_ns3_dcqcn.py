"""BFC Fig. 11(a) with incasts: DCQCN's long flows in the BFC co-author's
fork of the HPCC ns-3 simulator, and dcsim on the very same flows
(docs/reproductions/bfc.md, "DCQCN in the simulator, on the same flows").

Usage: bfc_ns3_dcqcn.py FCT_FILE

FCT_FILE is the fork's output (build: bfc_ns3_dctcp.py's docstring) for
its `mix/config.txt` with CC_MODE 1, CREATE_INCAST 1, UTILIZATION_FACTOR
0.6 (55% background and 5% incast in `simple.cc`), APP_STOP_TIME 1.028,
SIMULATOR_STOP_TIME 1.2, and its DCQCN fields as shipped (HAS_WIN 1 and
VAR_WIN 1, or 0 for the run without a window). Incast flows are the
200,000 B flows that start together towards one host (50 or more);
long flows are the largest 5% of the others. The script prints the ns-3
run's statistics, then dcsim's on the same flows: `bfc`, `dcqcn` with its
defaults, with the fork's fields (window on, 400-1600 KB marking) and with
those fields but no window. About 20 s per dcsim run.
"""

import sys

from bfc_ns3_dctcp import ns3_flows, run_on

FORK = {"window": "rate", "increase_interval_us": 900.0, "ai_mbps": 50.0, "hai_mbps": 100.0,
        "min_rate_mbps": 100.0, "kmin_kb": 400.0, "kmax_kb": 1600.0}
RUNS = [("bfc", "bfc", {}), ("dcqcn", "dcqcn", {}), ("dcqcn, the fork's fields", "dcqcn", FORK),
        ("dcqcn, the fork's fields without the window", "dcqcn", {**FORK, "window": "none"})]


def stats(size, slowdown, incast) -> str:
    s, d = size[~incast], slowdown[~incast]
    big = s >= s.quantile(0.95)
    return (f"{len(s)} background flows, mean {d.mean():.3f}, largest 5% mean {d[big].mean():.3f}, "
            f"short (<= 3 KB) p99 {d[s <= 3000].quantile(0.99):.1f}; {int(incast.sum())} incast flows, "
            f"mean {slowdown[incast].mean():.1f}")


def main(path: str) -> None:
    f = ns3_flows(path)
    groups = f[f["size"] == 200_000].groupby(["start_ns", "dst"]).size()
    together = set(groups[groups >= 50].index)
    incast = f.apply(lambda r: r["size"] == 200_000 and (r.start_ns, r.dst) in together, axis=1).to_numpy()
    print(f"{path}\n  ns-3: {stats(f['size'], f.slowdown, incast)}")
    for label, variant, fields in RUNS:
        d = run_on(f, "bfc-fig11a", variant, scheme=fields)
        print(f"  dcsim {label}: {stats(d.size_bytes, d.slowdown, incast)}")


if __name__ == "__main__":
    main(sys.argv[1])
