"""pFabric Fig. 16 in quick mode (2,500 web search flows; loads 0.2, 0.5,
0.8): starvation prevention's gain under each window rule (`pipe`,
`span`) with and without the pool's handshake, the flows with a timeout
at 0.2 and 0.8 with and without it, and the packets dropped without it
(docs/reproductions/pfabric.md, Fig. 16). About 3 minutes on one core."""

from _points import point, run

for window in ("pipe", "span"):
    for handshake in (False, True):
        gains, drops, timeouts = [], [], {"on": [], "off": []}
        for load in (0.2, 0.5, 0.8):
            mean = {}
            for variant in ("on", "off"):
                spec = point("pfabric-fig16", "quick", variant=variant, workload__load=load)
                r = run(spec, window=window, handshake=handshake)
                mean[variant] = r.flows.slowdown.mean()
                if load != 0.5:
                    timeouts[variant].append(f"{100 * (r.flows.timeouts > 0).mean():.1f}%")
                if variant == "off" and load != 0.5:
                    c = r.summary["counters"]
                    drops.append(f"{100 * c['dropped_pkts'] / c['data_pkts']:.2f}%")
            gains.append(f"{100 * (mean['off'] / mean['on'] - 1):.1f}%")
        print(f"{window}, handshake {'on' if handshake else 'off'}: gain at 0.2 / 0.5 / 0.8 {' / '.join(gains)}; "
              f"flows with a timeout at 0.2 / 0.8: with starvation prevention {' / '.join(timeouts['on'])}, "
              f"without {' / '.join(timeouts['off'])}; packets dropped without {' / '.join(drops)}", flush=True)
