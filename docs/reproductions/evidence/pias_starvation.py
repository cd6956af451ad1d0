"""Where PIAS's starved flows wait, with an ACK per segment and with the
model's offload (docs/reproductions/pias.md, "Starvation (§III, the
testbed measurement)"): `pias-fig5-7`'s point at web search 80% (its
10,000 flows, seed 1), PIAS with `scheme.ack_every` 1 and 5 (the
figure's), sampled every 500 us (`run.sample_us`, every port and every
active flow's delivered bytes).

Prints per ACK pattern: the timeouts (flows with two or more), the share
of data packets marked; the stalls of the flows above 3 MB (the size of
every starved flow): runs of consecutive samples in which the flow
delivered no byte, counted at 5 ms or more and 10 ms or more, and the
longest; the bytes queued at the client's switch port
(mean and 99th percentile over the samples) and at the servers' NICs
(mean, and the largest 99th percentile of one NIC). About two minutes
on one core.

Usage: .venv/bin/python docs/reproductions/evidence/pias_starvation.py [--ack-every 1 5] [--flows 10000] [--seed 1]"""

import argparse

from _points import point, run

ap = argparse.ArgumentParser(description="PIAS's starved flows by ACK pattern, sampled every 500 us.")
ap.add_argument("--ack-every", type=int, nargs="+", default=[1, 5])
ap.add_argument("--flows", type=int, default=10_000)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()

SAMPLE_S, STARVED = 500e-6, 3_000_000
spec = point("pias-fig5-7", workload__cdf="web_search", workload__load=0.8, variant="pias", seed=a.seed)
spec["workload"]["flows"] = a.flows
spec["run"].update(sample_us=SAMPLE_S * 1e6, sample_flows=True, sample_queues="all")
for every in a.ack_every:
    r = run(spec, ack_every=every)
    f, c = r.flows, r.summary["counters"]
    # stalls: runs of consecutive samples of a flow without progress
    s = r.flow_samples[r.flow_samples.flow_id.isin(f.flow_id[f.size_bytes > STARVED])].sort_values(["flow_id", "time_s"])
    moved = s.groupby("flow_id").delivered_bytes.diff().fillna(1) > 0
    run_id = moved.groupby(s.flow_id).cumsum()
    stalls = (~moved).groupby([s.flow_id, run_id]).sum() * SAMPLE_S * 1e3  # ms
    q = r.queues
    port = q[(q.tier > 0) & (q.peer == 0)].bytes  # the switch's port to the client (host 0)
    nics = q[(q.tier == 0) & (q.node != 0)]
    print(f"ACK per {every}: timeouts {int(f.timeouts.sum())} ({int((f.timeouts >= 2).sum())} flows with 2+), "
          f"marked {c['marked_pkts'] / c['data_pkts']:.1%} of data packets; stalls of flows above 3 MB: "
          f"{int((stalls >= 5).sum())} of 5 ms or more, {int((stalls >= 10).sum())} of 10 ms or more, "
          f"longest {stalls.max():.1f} ms; client's port {port.mean() / 1e3:.1f} KB on average, "
          f"{port.quantile(0.99) / 1e3:.1f} KB at the 99th percentile; servers' NICs {nics.bytes.mean() / 1e3:.2f} KB "
          f"on average, {nics.groupby('node').bytes.quantile(0.99).max() / 1e3:.1f} KB at the largest 99th percentile",
          flush=True)
