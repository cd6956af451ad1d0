"""PIAS Figs. 5-7 on the testbed model, data mining at 80% load: PIAS's
gain over DCTCP with three threshold sets (docs/reproductions/pias.md,
Figs. 5-7). About 10 minutes on one core."""

from _points import bins, point, run

spec = lambda v: point("pias-fig5-7", workload__cdf="data_mining", workload__load=0.8, variant=v)
d = bins(run(spec("dctcp")).flows)
print(f"DCTCP: all {d['all']:.2f} ms, short {d['short']:.3f} ms")
for label, thresholds in [("the scripts' table", "paper"), ("Eq. 1's optimum", "pias"), ("equal split", "equal_split")]:
    p = bins(run(spec("pias"), thresholds=thresholds).flows)
    print(f"PIAS, {label}: all {p['all']:.2f} ({100 * (p['all'] / d['all'] - 1):+.1f}%), "
          f"short {p['short']:.3f} ({100 * (p['short'] / d['short'] - 1):+.1f}%)", flush=True)
