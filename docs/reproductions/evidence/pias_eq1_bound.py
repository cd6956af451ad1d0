"""PIAS Eq. 1 read literally, E[L_i] as its upper bound (alpha_i -
alpha_{i-1})(1 - F(alpha_{i-1})) with alpha_K the largest flow size: its
8-queue optimum (coordinate descent from 300 random starts over the exact
solver's candidates) and its value at the scripts' tables
(docs/reproductions/pias.md, "Thresholds"). A few minutes."""

import numpy as np

from dcsim import thresholds as T
from dcsim.workloads import load_cdf

PKT = 1460


def bound_objective(z, load, th):
    a = np.concatenate([[0.0], th, [z.s[-1]]])
    above = 1 - z.index(a[:-1]) / z.n
    left = 1 - load * np.cumsum((a[1:] - a[:-1]) * above) / z.mean
    return float(np.sum(above / left)) if np.all(left > 0) else np.inf


def descend(z, load, c, idx):
    cur = bound_objective(z, load, c[idx])
    while True:
        moved = False
        for k in range(len(idx)):
            lo, hi = (idx[k - 1] if k else 0), (idx[k + 1] if k + 1 < len(idx) else len(c) - 1)
            for j in range(lo, hi + 1):
                trial = idx.copy()
                trial[k] = j
                v = bound_objective(z, load, c[trial])
                if v < cur - 1e-12:
                    cur, idx, moved = v, trial, True
        if not moved:
            return cur, idx


rng = np.random.default_rng(1)
for name, load in (("web_search", 0.5), ("web_search", 0.8), ("data_mining", 0.5), ("data_mining", 0.8)):
    cdf = load_cdf(name)
    z = T._sizes(cdf, PKT)
    c = z.candidates(cdf, quantum=PKT)
    best = min((descend(z, load, c, np.sort(rng.choice(len(c), 7, replace=False))) for _ in range(300)),
               key=lambda r: r[0])
    table = np.array(T.paper(name, load).thresholds, dtype=float)
    at = "none feasible" if np.isinf(best[0]) else f"{best[0]:.3f} at {[round(x / PKT) for x in c[best[1]]]} packets"
    print(f"{name} {load}: optimum {at}; at the scripts' table {bound_objective(z, load, table):.3f}", flush=True)
