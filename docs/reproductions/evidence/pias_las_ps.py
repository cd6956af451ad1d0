"""Ideal M/G/1 theory for the data mining gain of PIAS Figs. 5-7
(docs/reproductions/pias.md, Figs. 5-7, "Where we still differ": data
mining overall against DCTCP): least-attained-service (foreground-
background, what PIAS's levels approximate) against processor sharing
(what one fair queue approximates), one link, Poisson arrivals, the
shipped data mining sizes as the engine draws them (its 2^20-point grid
of the CDF, sizes in bytes). Prints, at each load, the mean response time
under LAS against PS by size band (as pias_series.py bands the runs)
and overall. Numerical, under a second.

Mean response time of a flow of size x (Kleinrock; rho_x = lambda
E[min(S, x)], m2_x = E[min(S, x)^2]):
    PS:  x / (1 - rho)
    LAS: lambda m2_x / (2 (1 - rho_x)^2) + x / (1 - rho_x)

Usage: .venv/bin/python docs/reproductions/evidence/pias_las_ps.py [--load 0.8 ...] [--cdf data_mining]"""

import argparse

import numpy as np

from _points import BANDS, band_masks
from dcsim.workloads import _grid, load_cdf

ap = argparse.ArgumentParser(description="M/G/1 LAS against processor sharing, by size band.")
ap.add_argument("--load", type=float, nargs="+", default=[0.5, 0.8])
ap.add_argument("--cdf", default="data_mining")
a = ap.parse_args()

x = load_cdf(a.cdf).quantile(_grid())  # sorted: the grid is
n = len(x)
tail = n - 1 - np.arange(n)  # flows larger than or tied after each
e_min = (np.cumsum(x) + x * tail) / n  # E[min(S, x)]
e_min2 = (np.cumsum(x * x) + x * x * tail) / n  # E[min(S, x)^2]
print(f"{a.cdf}: {n:,} sizes, mean {x.mean():,.0f} B; response times in units of 1 B of service")
for load in a.load:
    lam = load / x.mean()
    ps = x / (1 - load)
    rho_x = lam * e_min
    las = lam * e_min2 / (2 * (1 - rho_x) ** 2) + x / (1 - rho_x)
    print(f"load {load}: LAS against PS, mean response time")
    for name, m in band_masks(x).items():
        if m.any():
            print(f"  {name:12s} {m.mean():8.3%} of flows, {x[m].sum() / x.sum():6.1%} of bytes: "
                  f"{las[m].mean() / ps[m].mean() - 1:+7.1%}")
    print(f"  {'all':12s} {1:8.3%} of flows, {1:6.1%} of bytes: {las.mean() / ps.mean() - 1:+7.1%}")
print(f"(bands: {', '.join(BANDS)})")
