"""DCQCN with per-packet spraying, with and without the spine failure
(docs/faults.md, "A spine failure, by scheme and load balancing"):
`dcsim-faults`' full DCQCN point cut to its first 3,000 flows (about the
first 60 ms of arrivals), spraying with the failure taken out, and ECMP
beside it; then the first 4,000 flows with the failure (spine 1 down at
60 ms), stopped at 100 ms. Prints, per run, the packets resent over the
data packets sent, the timeouts, and the large flows' (over 1 MB) mean
slowdown by when they started, in 10 ms bins (finished flows), with the
resent share in each 10 ms of the run from the flow table. About five
minutes on one core.

Usage: .venv/bin/python docs/reproductions/evidence/faults_dcqcn_spray.py"""

import json
import warnings

import numpy as np

import dcsim
from dcsim.figures.core import get
from dcsim.spec import spec_from_dict

warnings.simplefilter("ignore")
[p] = [p for p in get("dcsim-faults").sweep("full").points()
       if p.params.get("variant") == "dcqcn" and p.params.get("routing.load_balancing") == "spray"]
base = json.loads(p.spec.model_dump_json())
base["workload"]["flows"] = 3000
runs = (("spraying, no failure", [], "spray", 3000, None), ("ECMP, no failure", [], "ecmp", 3000, None),
        ("spraying, the failure", base["faults"], "spray", 4000, 0.1))
for name, faults, routing, flows, stop in runs:
    spec = json.loads(json.dumps(base))
    spec["faults"], spec["routing"]["load_balancing"] = faults, routing
    spec["workload"]["flows"], spec["run"]["stop_time_s"] = flows, stop
    r = dcsim.run_all(spec_from_dict(spec))
    c = r.summary["counters"]
    f = r.flows[r.flows.size_bytes > 1e6]
    by = f.groupby((f.start_s * 100).astype(int)).slowdown.mean()
    bins = "  ".join(f"{int(k) * 10}-{int(k) * 10 + 10} ms: {v:.1f}" for k, v in by.items())
    print(f"{name}: resent {c['retransmitted_pkts'] / c['data_pkts']:.1%} of {c['data_pkts']:,} data packets, "
          f"{c['timeouts']:,} timeouts; large flows' mean slowdown by start: {bins}", flush=True)
