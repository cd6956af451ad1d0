"""The CS244 '13 set-up's star against the pFabric paper's fabric
(docs/reproductions/pfabric.md, "The CS244 '13 reproduction"): pFabric,
sized as its §4.2 sizes it, on the 15-host star at 100 Mb/s with no added
delay (the figure's own point), then with the paper's 2.7 us host links,
then at the paper's 10 Gb/s with its Table 1 settings (qSize 36 KB, RTO
45 us, initial window 12). Overall and small-flow average normalized FCT
per load, quick mode's 2,000 flows. Then, for the 10 Gb/s star against
the paper's fabric (web search): pFabric and Ideal on both, the fabric
with quick mode's 2,500 flows and with as many flows per host as the
star's (FLOWS x 144 / 15), since a run's length moves the heavy tail's
share at high load (evidence/pfabric_fig7_9_run_length.py). About five
minutes on one core.

Usage: .venv/bin/python docs/reproductions/evidence/cs244_star.py [FLOWS]"""

import sys

from _points import point, run

flows = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
variants = {
    "star, 100 Mb/s, no delay (the figure's)": {},
    "star, 100 Mb/s, 2.7 us links": {"topology": {"link_delay_us": 2.7}},
    "star, 10 Gb/s, 2.7 us links, Table 1": {"topology": {"rate_gbps": 10.0, "link_delay_us": 2.7},
                                              "scheme": {"init_cwnd_pkts": 12, "rto_us": 45, "queue_bytes": 36_000}},
}
for cdf in ("web_search", "data_mining"):
    for load in (0.2, 0.5, 0.8):
        base = point("cs244-fig2-4", "quick", workload__cdf=cdf, workload__load=load, variant="pfabric")
        base["workload"]["flows"] = flows
        cells = []
        for label, change in variants.items():
            spec = {k: (dict(v, **change.get(k, {})) if isinstance(v, dict) else v) for k, v in base.items()}
            r = run(spec)
            f = r.flows.dropna(subset=["slowdown"])
            small = f[f.size_bytes <= 100_000]
            cells.append(f"{label}: {f.slowdown.mean():.2f} (small {small.slowdown.mean():.2f})")
        print(f"{cdf} {load}: " + "; ".join(cells))

print("\nweb search, overall (small-flow) average: the 10 Gb/s star against the paper's fabric")
star = variants["star, 10 Gb/s, 2.7 us links, Table 1"]
for load in (0.2, 0.5, 0.8):
    cells = []
    for scheme in ("pfabric", "ideal"):
        s = point("cs244-fig2-4", "quick", workload__cdf="web_search", workload__load=load, variant="pfabric")
        s["workload"]["flows"] = flows
        s = {k: (dict(v, **star.get(k, {})) if isinstance(v, dict) else v) for k, v in s.items()}
        if scheme == "ideal":
            s["scheme"] = {"name": "ideal"}
        runs = {f"star ({flows})": s}
        for n in (2500, round(flows * 144 / 15)):
            fab = point("pfabric-fig7-9", "full", workload__cdf="web_search", workload__load=load, variant=scheme)
            fab["workload"]["flows"] = n
            runs[f"fabric ({n})"] = fab
        for label, spec in runs.items():
            f = run(spec).flows.dropna(subset=["slowdown"])
            small = f[f.size_bytes <= 100_000]
            cells.append(f"{scheme} {label} {f.slowdown.mean():.2f} ({small.slowdown.mean():.2f})")
    print(f"{load}: " + "; ".join(cells), flush=True)
