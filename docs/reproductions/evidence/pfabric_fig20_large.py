"""pFabric Fig. 20 (3:1 oversubscribed fabric, web search, edge load 0.4):
why pFabric's large flows (> 10 MB) end above TCP-DropTail's and DCTCP's
at full scale (docs/reproductions/pfabric.md, Fig. 20).

Part 1 reruns the point with 20,000 flows: pFabric as the figure runs it,
then with 2 MB buffers (fewer drops), a 200 us RTO (fewer timeouts) and
no probe mode, beside DCTCP, TCP-DropTail and Ideal. About 3 minutes on
one core. Part 2, given the figure's full-scale output directory
(`dcsim reproduce pfabric-fig20 --full --out DIR`), prints the large
flows' average slowdown by tenth of the run (by start time)."""

import sys
from pathlib import Path

import pandas as pd

from _points import point, run

LARGE = 10e6  # the paper's (10MB, inf) bin


def large(flows):
    return flows[flows.size_bytes > LARGE]


print("20,000 flows, edge load 0.4: large flows' average slowdown, timeouts and retransmissions per large flow, "
      "packets dropped")
cases = [("pfabric", "pFabric (36 KB buffers, RTO 45 us)", {}),
         ("pfabric", "pFabric, 2 MB buffers", {"queue_bytes": 2_000_000}),
         ("pfabric", "pFabric, RTO 200 us", {"rto_us": 200.0}),
         ("pfabric", "pFabric, no probe mode", {"probe_mode": False}),
         ("dctcp", "DCTCP", {}), ("tcp", "TCP-DropTail", {}), ("ideal", "Ideal", {})]
for variant, label, scheme in cases:
    spec = point("pfabric-fig20", "full", variant=variant, workload__load=0.4)
    spec["workload"]["flows"] = 20_000
    r = run(spec, **scheme)
    big = large(r.flows)
    print(f"  {label:36s} {big.slowdown.mean():.2f}  timeouts {big.timeouts.mean():6.1f}  "
          f"retransmissions {big.retransmits.mean():5.0f}  dropped {r.summary['counters']['dropped_pkts']:,}",
          flush=True)

if len(sys.argv) > 1:
    import json

    out = Path(sys.argv[1])
    print(f"\n{out}, edge load 0.4, 100,000 flows: large flows' average slowdown by tenth of the run")
    for d in sorted((out / "points").iterdir()):
        params = json.loads((d / "summary.json").read_text())["point"]["params"]
        if params["workload.load"] != 0.4:
            continue
        big = large(pd.read_parquet(d / "flows.parquet"))
        tenth = pd.qcut(big.start_s, 10, labels=False)
        means = big.groupby(tenth).slowdown.mean()
        print(f"  {params['variant']:8s} {' '.join(f'{x:.2f}' for x in means)}  (all {big.slowdown.mean():.2f})")
