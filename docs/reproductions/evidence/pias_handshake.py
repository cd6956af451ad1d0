"""What the pool's handshake moves in PIAS's simulations (docs/reproductions/
pias.md, "The pool's handshake"): `pias-fig14-16`'s point at web search 80%
cut to 20,000 flows, PIAS and the scripts' DCTCP, with `scheme.handshake`
off and on (the default). Prints, per run, the connections opened on the
fly and the average FCT (ms) of short flows (and their 99th percentile),
of all flows and of large flows. About six minutes on one core.

Usage: .venv/bin/python docs/reproductions/evidence/pias_handshake.py"""

from _points import bins, point, run

print(f"{'scheme':6s} {'handshake':>9s} {'opened':>7s} {'short avg':>10s} {'short p99':>10s} {'all avg':>8s} "
      f"{'large avg':>10s}")
for variant in ("pias", "dctcp"):
    spec = point("pias-fig14-16", workload__cdf="web_search", workload__load=0.8, variant=variant)
    spec["workload"]["flows"] = 20_000
    for handshake in (False, True):
        r = run(spec, handshake=handshake)
        b = bins(r.flows)
        print(f"{variant:6s} {str(handshake):>9s} {r.summary['counters']['connections_opened']:7,d} "
              f"{b['short']:10.3f} {b['short_p99']:10.3f} {b['all']:8.2f} {b['large']:10.1f}", flush=True)
