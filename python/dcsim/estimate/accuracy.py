"""The estimator against dcsim's exact run on the same flows: mean and
99th-percentile slowdown per size bin, their errors, and both wall times
(docs/estimator.md's tables).

    python -m dcsim.estimate.accuracy [--topology leaf_spine|clos] [--cdf web_search|data_mining]
        [--scheme dctcp] [--load 0.5] [--flows 20000] [--workers N] [--no-cluster] [--seed 1]

`--workers 0` estimates in this process (no Dask); the exact run always
runs in this process, on one core."""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from ..metrics import PAPER_BINS


def compare(spec: dict, workers=None, cluster: bool = True) -> dict:
    """Estimate and run `spec` (a dict); per size bin of the papers, the
    mean and 99th-percentile slowdowns and their relative errors, and the
    wall times."""
    import dcsim
    from dcsim.spec import spec_from_dict

    from . import estimate

    t = time.perf_counter()
    e = estimate(spec_from_dict(spec), workers=workers, cluster=cluster)
    t_est = time.perf_counter() - t
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        exact = dcsim.run_all(spec_from_dict(spec)).flows.set_index("flow_id")
        t_exact = time.perf_counter() - t
    est = e.flows.set_index("flow_id").slowdown.loc[exact.index]
    rows = []
    for lo, hi in zip(PAPER_BINS[:-1], PAPER_BINS[1:]):
        m = ((exact.size_bytes > lo) & (exact.size_bytes <= hi)).to_numpy()
        if not m.any():
            continue
        x, y = exact.slowdown[m], est[m]
        rows.append({"bin": (lo, hi), "flows": int(m.sum()), "exact_mean": x.mean(), "est_mean": y.mean(),
                     "mean_err": y.mean() / x.mean() - 1, "exact_p99": x.quantile(0.99), "est_p99": y.quantile(0.99),
                     "p99_err": y.quantile(0.99) / x.quantile(0.99) - 1})
    return {"rows": rows, "estimate_s": t_est, "exact_s": t_exact, "summary": e.summary["estimate"]}


def _size(b: float) -> str:
    if not np.isfinite(b):
        return "inf"
    return f"{b / 1e6:g}MB" if b >= 1e6 else f"{b / 1e3:g}KB"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="The decomposed estimate against the exact run (docs/estimator.md).")
    ap.add_argument("--topology", default="leaf_spine", choices=["leaf_spine", "clos"])
    ap.add_argument("--cdf", default="web_search")
    ap.add_argument("--scheme", default="dctcp")
    ap.add_argument("--load", type=float, default=0.5)
    ap.add_argument("--flows", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None, help="Dask workers (default: one per core; 0: none)")
    ap.add_argument("--no-cluster", dest="cluster", action="store_false")
    a = ap.parse_args(argv)
    spec = {"seed": a.seed, "topology": {"kind": a.topology}, "routing": {"load_balancing": "ecmp"},
            "scheme": {"name": a.scheme}, "workload": {"cdf": a.cdf, "load": a.load, "flows": a.flows}}
    r = compare(spec, a.workers, a.cluster)
    s = r["summary"]
    print(f"{a.topology}, {a.cdf}, {a.scheme}, load {a.load}, {a.flows:,} flows, seed {a.seed}: "
          f"{s['links_simulated']:,} of {s['links_shared']:,} shared links simulated; estimate {r['estimate_s']:.1f} s "
          f"({s['workers']} workers), exact {r['exact_s']:.1f} s ({r['exact_s'] / r['estimate_s']:.2f}x)")
    print("| size | flows | mean exact | mean est. | error | p99 exact | p99 est. | error |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in r["rows"]:
        lo, hi = row["bin"]
        print(f"| {_size(lo)}-{_size(hi)} | {row['flows']:,} | {row['exact_mean']:.3f} | {row['est_mean']:.3f} | "
              f"{row['mean_err']:+.1%} | {row['exact_p99']:.3f} | {row['est_p99']:.3f} | {row['p99_err']:+.1%} |")


if __name__ == "__main__":
    main()
