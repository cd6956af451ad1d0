"""PIAS Figs. 8-9: how much of DCTCP's extra query time the marking
threshold explains (docs/reproductions/pias.md, "Figs. 8-9", the paragraph
on the absolute times: the model's idle QCT is 204 us, DCTCP adds 72-120
us of queueing to it where the testbed's added 364-548 us). Runs the
figure's point at 20 queries/s and 80% load for DCTCP and PIAS with the
port's marking threshold at 20 KB (the figure's), 30 KB and 40 KB, and
prints each one's mean and 99th-percentile QCT, the queueing over the idle
204 us, and PIAS's gain over DCTCP at the same threshold.

About two minutes on one core (six runs of 10,000 flows at 1 Gb/s).

Usage: .venv/bin/python docs/reproductions/evidence/pias_fig8_9_marking.py"""

from _points import point

import dcsim
from dcsim.metrics import query_times
from dcsim.spec import spec_from_dict

IDLE_US = 204.0  # the model's idle QCT (tests/test_workloads.py)

print("20 queries/s, 80% load: mean / p99 QCT (us), queueing over the idle 204 us; PIAS's gain on the mean")
for kb in (20, 30, 40):
    means = {}
    for variant in ("dctcp", "pias"):
        spec = point("pias-fig8-9", variant=variant, workload__queries__per_s=20, workload__load=0.8)
        spec["scheme"]["ecn_threshold_bytes"] = kb * 1000
        s = spec_from_dict(spec)
        q = query_times(dcsim.run_all(s).flows, s).qct_s * 1e6
        means[variant] = q.mean()
        print(f"  {kb} KB {variant:6s} {q.mean():7.1f} / {q.quantile(0.99):7.1f}   queueing {q.mean() - IDLE_US:6.1f}")
    print(f"  {kb} KB PIAS below DCTCP by {1 - means['pias'] / means['dctcp']:.1%}")
