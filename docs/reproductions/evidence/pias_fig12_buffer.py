"""PIAS Fig. 12 on the testbed model at 80% load with a smaller buffer per
queue (dynamic-threshold alpha 1/31: 125 KB for a queue alone), to see
whether the buffer decides the ECN reversal (docs/reproductions/pias.md,
Fig. 12). A few minutes on one core."""

from _points import bins, point, run

for variant in ("mismatch", "mismatch_noecn", "dctcp"):
    r = run(point("pias-fig12", workload__load=0.8, variant=variant), buffer_alpha=1 / 31)
    b = bins(r.flows)
    print(f"{variant}: short {b['short']:.3f} ms, medium {b['medium']:.1f} ms, "
          f"timeouts {int(r.flows.timeouts.sum())}", flush=True)
