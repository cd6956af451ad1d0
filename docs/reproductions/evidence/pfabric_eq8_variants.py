"""Other readings of pFabric App. A's Eq. 8 for Fig. 22's two queues
(docs/reproductions/pfabric.md, Fig. 22: "Nor is it a different reading
of Eq. 1"): the threshold between two strict-priority queues that
minimizes the objective, at 10% and 80% load, web search sizes in whole
packets, searched over every whole number of packets (a 1-D search), for
- the objective as `dcsim thresholds --method pfabric-eq8` has it;
- the low queue's drain rate from the fraction of *flows* below the
  threshold instead of the fraction of bytes;
- the low-priority queue's wait without its (1 - rho) factor (its drain
  rate after it taken as 1);
- the high-priority queue's wait without its 1 / (1 - rho B(t)) factor.
The paper's Fig. 22 has ~880 KB at 10% and ~1,740 KB at 80%. Seconds.

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_eq8_variants.py"""

import numpy as np

from dcsim.thresholds import _sizes
from dcsim.workloads import load_cdf

cdf = load_cdf("web_search")
z = _sizes(cdf, 1460)


def terms(load: float, a: np.ndarray, b: np.ndarray, reading: str) -> np.ndarray:
    """Eq. 8's term of the queue of sizes in (s[a], s[b]] (`thresholds._eq8_terms`), read as `reading`."""
    below = (lambda i: i / z.n) if reading == "flows" else (lambda i: z.c1[i] / z.c1[-1])
    mu_i, mu_next = 1.0 - load * below(a), 1.0 - load * below(b)
    if reading == "no_1_minus_rho":
        mu_next = np.where(b == z.n, 1.0, mu_next)
    wait_next = np.where(a == 0, 1.0, mu_next) if reading == "no_first_drain" else mu_next
    count, x2, inv = (b - a) / z.n, (z.c2[b] - z.c2[a]) / z.n, (z.cinv[b] - z.cinv[a]) / z.n
    return count / mu_i + load / z.mean / (2.0 * wait_next * mu_i) * x2 * inv


packets = np.arange(1, int(z.s[-1] // 1460) + 1) * 1460.0
edge = z.index(packets)
READINGS = {"Eq. 8 as dcsim has it": "eq8", "drain rate from flows, not bytes": "flows",
            "low queue's wait without (1 - rho)": "no_1_minus_rho",
            "high queue's wait without 1 / (1 - rho B(t))": "no_first_drain"}
print("two queues' best threshold, web search in whole packets (KB): 10% / 80% load")
for label, reading in READINGS.items():
    best = []
    for load in (0.1, 0.8):
        total = terms(load, np.zeros_like(edge), edge, reading) + terms(load, edge, np.full_like(edge, z.n), reading)
        best.append(packets[int(np.argmin(total))] / 1000)
    print(f"  {label:50s} {best[0]:7,.0f} / {best[1]:7,.0f}")
