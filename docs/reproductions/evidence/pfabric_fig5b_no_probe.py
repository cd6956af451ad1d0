"""pFabric Fig. 5(b) without probe mode, measured (docs/reproductions/
pfabric.md, Fig. 5(b); issue 51): 50 long-lived flows into one host,
`pfabric-fig5b`'s point (quick: 10 ms), probe mode off. The page's
back-of-the-envelope says the 49 starved flows each resend a 1500-byte
packet every timeout (45 us, no backoff) and lose it, 13.1 Gb/s lost of
23.1 Gb/s sent: 57%. This measures each term: the timeouts per starved
flow per ms (so the interval between resends), the bytes the starved
flows and the served one send, and the loss. Then the same with a longer
timeout (90 and 135 us), to see what resend interval the paper's 38.5%
would need.

About a minute on one core.

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_fig5b_no_probe.py [--full]"""

import argparse
import json
import warnings

import dcsim
from dcsim.figures.core import get

warnings.simplefilter("ignore", dcsim.DcsimWarning)
ap = argparse.ArgumentParser(description="Fig. 5(b) without probe mode, measured.")
ap.add_argument("--full", action="store_true", help="the figure's full length (50 ms) instead of 10 ms")
a = ap.parse_args()

fig = get("pfabric-fig5b")
point = next(p for p in fig.sweep("full" if a.full else "quick").points()
             if p.params["variant"] == "no_probe" and p.params["workload.senders"] == 50)
spec = json.loads(point.spec.model_dump_json())
print(f"Fig. 5(b), 50 flows, probe mode off, {spec['run']['stop_time_s'] * 1e3:g} ms")
print(f"{'rto':>6s} {'loss':>6s} {'timeouts/starved flow/ms':>25s} {'resend every':>13s} "
      f"{'served Gb/s':>12s} {'starved Gb/s':>13s} {'estimate':>9s}")
for rto in (45, 90, 135):
    spec["scheme"]["rto_us"] = rto
    r = dcsim.run_all(spec)
    f, c, t = r.flows, r.summary["counters"], r.summary["sim_time_s"]
    sent = f.delivered_bytes  # (each flow's payload delivered so far)
    served = f.loc[sent.idxmax()]
    starved = f.drop(index=sent.idxmax())
    per_ms = starved.timeouts.mean() / (t * 1e3)
    # bytes on the wire: delivered payload plus headers, and what was dropped
    wire_served = served.delivered_bytes * 1500 / 1460 * 8 / t / 1e9
    loss = 100 * c["dropped_bytes"] / max(c["host_tx_bytes"], 1)
    starved_gbps = (c["host_tx_bytes"] * 8 / t / 1e9) - wire_served
    # the page's estimate: 49 resends of 1500 B per interval, all lost
    interval_us = 1e3 / per_ms if per_ms > 0 else float("inf")
    lost = 49 * 1500 * 8 / (interval_us * 1e-6) / 1e9
    estimate = 100 * lost / (lost + 10)
    print(f"{rto:4d}us {loss:5.1f}% {per_ms:25.2f} {interval_us:10.1f} us {wire_served:12.2f} "
          f"{starved_gbps:13.2f} {estimate:8.1f}%")
