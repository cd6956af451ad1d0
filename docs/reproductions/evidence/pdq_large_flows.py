"""PDQ's large flows at 80% web search (docs/reproductions/pfabric.md,
"PDQ against pFabric", the statement "PDQ's large flows more than 75%
worse than pFabric's"): the full-scale figure's point, with its first
FLOWS flows (default 20,000), run by pFabric, Ideal and PDQ with each of
its mechanisms changed in turn, to see which of them moves the large
flows' (10MB, inf) average normalized FCT, and how far. About 10 minutes
on one core at 20,000 flows.

Usage: .venv/bin/python docs/reproductions/evidence/pdq_large_flows.py [FLOWS]"""

import sys

from _points import point, run

from dcsim.bins import PAPER_BINS

flows = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
LARGE = PAPER_BINS[2]  # the figure's (10MB, inf) bin
PDQ = {
    "pdq (Table 1)": {},
    "no Early Start (K = 0)": {"early_start_k": 0.0},
    "Early Start K = 1": {"early_start_k": 1.0},
    "no Dampening": {"dampening_us": 0.0},
    "Dampening 60 us": {"dampening_us": 60.0},
    "no Suppressed Probing": {"suppressed_probing": False},
    "probing every 60 us": {"probe_interval_us": 60.0},
    "rate controller every RTT": {"rate_update_rtts": 1.0},
    "list bound 8 flows": {"max_flows": 8},
}


def stats(spec: dict, **change) -> tuple[float, float, int]:
    f = run(spec, **change).flows.dropna(subset=["slowdown"])
    large = f[f.size_bytes > LARGE]
    return f.slowdown.mean(), large.slowdown.mean(), len(large)


def spec_of(variant: str) -> dict:
    s = point("pfabric-fig7-9", "full", workload__cdf="web_search", workload__load=0.8, variant=variant)
    s["workload"]["flows"] = flows
    return s


ref = {}
for name in ("pfabric", "ideal"):
    ref[name] = stats(spec_of(name))
    print(f"{name:28s} overall {ref[name][0]:.2f}  large {ref[name][1]:.2f}  ({ref[name][2]} large flows)", flush=True)
base = spec_of("pdq")
for label, change in PDQ.items():
    overall, large, n = stats(base, **change)
    print(f"{label:28s} overall {overall:.2f}  large {large:.2f}  large / pFabric's {large / ref['pfabric'][1]:.2f}"
          f"  / Ideal's {large / ref['ideal'][1]:.2f}", flush=True)
