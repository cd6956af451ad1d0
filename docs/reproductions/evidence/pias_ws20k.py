"""PIAS Figs. 14-16, web search at 90% load with 20,000 flows: PIAS, DCTCP
and LAS, and PIAS with one field changed each (docs/reproductions/pias.md,
"A larger run"). About 10 minutes on one core."""

from _points import bins, point, run

runs = [("PIAS", "pias", {}), ("DCTCP", "dctcp", {}), ("LAS", "las", {}),
        ("PIAS, dynamic thresholds alpha = 1", "pias", {"buffer_alpha": 1.0}),
        ("PIAS, 4x the buffer", "pias", {"queue_bytes": 1_440_000}),
        ("PIAS, initial window 12", "pias", {"init_cwnd_pkts": 12})]
for label, variant, scheme in runs:
    spec = point("pias-fig14-16", workload__cdf="web_search", workload__load=0.9, variant=variant)
    spec["workload"]["flows"] = 20_000
    r = run(spec, **scheme)
    f, b = r.flows, bins(r.flows)
    short = f.size_bytes <= 100 * 1024
    losses = r.summary.get("prio_losses")
    drops = f"drops {sum(map(sum, losses['drops']))}, class-0 at last hops {losses['drops'][1][0]}" if losses else ""
    print(f"{label}: all {b['all']:.2f} ms, short {b['short']:.3f} (99th {b['short_p99']:.3f}), large {b['large']:.1f}; "
          f"timeouts {int(f.timeouts.sum())}, short flows with one {100 * (f.timeouts[short] > 0).mean():.2f}%; {drops}",
          flush=True)
