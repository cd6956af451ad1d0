"""pFabric's drops in ns-2 and in dcsim on the same 20,000 flows
(docs/reproductions/pfabric.md, "pFabric's drops against ns-2's, on the
same flows", and the whole-run table of "The small flows' tail against
ns-2").

Reads the stored output of the pFabric authors' ns-2 scripts
(`run_pfabric.sh 20000 0.8 1 search_CDF.tcl 1661480`: web search, 80%
load, one connection per host pair, 20,000 flows) in ns-2.35 with the
pfabric patch, in peers/ns2-pfabric-ws80/ (PROVENANCE.md there: the
repository and commit, the build changes, the scripts' edits, which only
log: each flow's start, size, FCT and the sender's counters, and the
scripts' own queue monitors every 5 ms). Runs dcsim on the same flows
(`workload.arrivals = "ns2_scripts"`, which draws them as the scripts do;
checked here flow by flow) with the scripts' settings (`pfabric-fig7-9`'s
web search point at 80%: leaf-spine, round-robin spraying, sizes in
packets, FCT at the sender, one connection per pair with the handshake,
`scheme.window = "span"`), and prints side by side:

- packets dropped at the source NICs (% of their arrivals) and in the
  fabric (% of the packets leaving the NICs), cumulative from the first
  flow, at 20, 80 and 180 ms, ACKs included, for dcsim with probe mode
  (its default) and without (`scheme.probe_mode = false`);
- bytes sent out of the NICs and dropped, first 10/20/30/50 ms;
- the whole run's normalized FCT (ns-2's FCTs divided by the same ideal
  FCT as dcsim's), timeouts per flow, packets sent again, drops and bytes
  into the NICs, for dcsim with the handshake (its default), without it,
  and without probe mode;
- the probe evidence: ns-2's data bytes against 1,460 x its data
  packets, and the `prob_cap_` values its pFabric agents ran with.

About 4 minutes on a shared 2-core machine (3 whole runs and 7 runs
stopped at 10-180 ms of the 20,000 flows). The stored ns-2 run was made
with peers/ns2-build/build_ns2.sh and the command in PROVENANCE.md; it
took 1 h 26 min (2026-11-29).

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_ns2_drops.py"""

import functools
import warnings

import numpy as np
from _ns2 import HOSTS, match, ns2_flows, qdump, run_dcsim, spec_for, stats

import dcsim
from dcsim.spec import spec_from_dict

RUN = "ns2-pfabric-ws80"
warnings.filterwarnings("ignore", message=".*did not finish.*")  # the runs stopped at 10-180 ms

f = ns2_flows(RUN)
q = qdump(RUN)
N = len(f)
q0 = q.iloc[0]  # ns-2's counters at 1 s, before the first flow (the scripts' warm-up before it)

# the same flows: dcsim's generator against every flow ns-2 logged
g = dcsim.generated_flows(spec_from_dict(spec_for("pfabric", N))).sort_values(
    ["start_s", "src", "dst"], kind="stable").reset_index(drop=True)
gm = match(f, g.assign(flow_id=np.arange(len(g))))
print(f"ns-2 logged {N:,} finished flows; dcsim's ns2_scripts arrivals give the same {len(gm):,} "
      f"(source, destination, size; starts within {np.abs(gm.start_s - gm.d_start_s).max():.1e} s)\n")


def ns2_at(t: float) -> dict:
    r = q[np.isclose(q.t_s, t)].iloc[0] - q0
    return {"nic_drop": r.pkts_nic_drops / r.pkts_nic_arrivals,
            "fabric_drop": (r.pkts_up_drops + r.pkts_down_drops + r.pkts_last_hop_drops) / r.pkts_nic_departures,
            "last_hop_share": r.pkts_last_hop_drops / max(1, r.pkts_up_drops + r.pkts_down_drops + r.pkts_last_hop_drops),
            "nic_mb": r.bytes_nic_departures / 1e6,
            "fabric_drop_bytes": (r.bytes_up_drops + r.bytes_down_drops + r.bytes_last_hop_drops) / r.bytes_nic_departures,
            "all_drop_bytes": (r.bytes_up_drops + r.bytes_down_drops + r.bytes_last_hop_drops + r.bytes_nic_drops)
            / r.bytes_nic_departures}


def dcsim_counts(summary: dict) -> dict:
    nic_tx = sum(l["tx_pkts"] for l in summary["links"] if l["from"] < HOSTS)
    nic_tx_b = sum(l["tx_bytes"] for l in summary["links"] if l["from"] < HOSTS)
    tiers = summary["drops_by_tier"]
    nic = tiers.get("host_nic", 0)
    fabric = sum(tiers.values()) - nic
    c = summary["counters"]
    return {"nic_drop": nic / (nic_tx + nic), "fabric_drop": fabric / nic_tx,
            "last_hop_share": tiers.get("leaf_or_edge", 0) / max(1, fabric), "nic_mb": nic_tx_b / 1e6,
            "all_drop_bytes": c["dropped_bytes"] / nic_tx_b, "drops": sum(tiers.values()),
            "nic_in_bytes": c["host_tx_bytes"]}


@functools.lru_cache(maxsize=None)
def dcsim_at(t: float, **scheme) -> dict:
    _, s = run_dcsim("pfabric", N, scheme=scheme, run={"stop_time_s": t}, links=True)
    return dcsim_counts(s)


last = float(q.t_s.iloc[-1])
times = [t for t in (0.02, 0.08, 0.18) if t <= last]
print("Packets (ACKs included), cumulative from the first flow:")
print("| first | dropped at the source NICs, % of their arrivals: ns-2 / dcsim / dcsim without probe mode "
      "| dropped in the fabric, % of the packets leaving the NICs: ns-2 / dcsim / dcsim without probe mode |")
print("| --- | --- | --- |")
for t in times:
    a, b, c = ns2_at(t), dcsim_at(t), dcsim_at(t, probe_mode=False)
    print(f"| {t * 1e3:.0f} ms | {a['nic_drop']:.2%} / {b['nic_drop']:.2%} / {c['nic_drop']:.2%} "
          f"| {a['fabric_drop']:.2%} / {b['fabric_drop']:.2%} / {c['fabric_drop']:.2%} |")

print("\nBytes: sent out of the NICs (MB) and dropped anywhere (% of those bytes; in the fabric only for ns-2 "
      "in brackets):")
print("| first | ns-2 MB | dcsim MB | ns-2 dropped | dcsim dropped |")
print("| --- | --- | --- | --- | --- |")
for t in (0.01, 0.02, 0.03, 0.05):
    if t > last:
        continue
    a, b = ns2_at(t), dcsim_at(t)
    print(f"| {t * 1e3:.0f} ms | {a['nic_mb']:,.0f} | {b['nic_mb']:,.0f} | {a['all_drop_bytes']:.1%} "
          f"({a['fabric_drop_bytes']:.1%}) | {b['all_drop_bytes']:.1%} |")

# the whole run
runs = {"dcsim, same flows (the handshake, the default)": {},
        "dcsim, same flows, without the handshake": {"handshake": False},
        "dcsim, same flows, `probe_mode = false`": {"probe_mode": False}}
short = dict(zip(runs, ["dcsim", "without the handshake", "probe_mode = false"]))
cols = ["overall", "small_avg", "small_p99", "medium_avg", "large_avg", "timeouts_per_flow"]
print("\nWhole run, normalized FCT (ns-2's FCTs over dcsim's ideal FCT of the same flow), FCT at the sender:")
print("| | overall | (0,100KB] avg | (0,100KB] p99 | (100KB,10MB] avg | (10MB,inf) avg | timeouts per flow |")
print("| --- | --- | --- | --- | --- | --- | --- |")
out = {}
for label, scheme in runs.items():
    d, s = run_dcsim("pfabric", N, scheme=scheme, links=True)
    out[label] = (match(f, d), s)
m0 = next(iter(out.values()))[0]
ns = stats(m0.size_bytes, m0.fct_s / m0.d_ideal_fct_s, m0.timeouts)
print(f"| ns-2 (the scripts) | " + " | ".join(f"{ns[c]:.3g}" if c != "timeouts_per_flow" else f"{ns[c]:.1f}"
                                             for c in cols) + " |")
for label, (m, s) in out.items():
    st = stats(m.d_size_bytes, m.d_slowdown, m.d_timeouts)
    print(f"| {label} | " + " | ".join(f"{st[c]:.3g}" if c != "timeouts_per_flow" else f"{st[c]:.1f}"
                                       for c in cols) + " |")

end = (q.iloc[-1] - q0).round().astype(np.int64)
ns_drops = end.pkts_nic_drops + end.pkts_up_drops + end.pkts_down_drops + end.pkts_last_hop_drops
print("\nWhole run, counts (ns-2: the flows' sender counters and the queue monitors):")
# ns-2's `nrexmitpack_` counts one packet per timeout here (the SACK agent's
# hole fills after it are not flagged): its resends are its data packets
# beyond the flow's own
print(f"  packets sent again: ns-2 {(f.data_pkts - f.size_bytes // 1460).sum():,}; "
      + "; ".join(f"{short[k]} {s['counters']['retransmitted_pkts']:,}" for k, (m, s) in out.items()))
print(f"  timeouts: ns-2 {f.timeouts.sum():,}; "
      + "; ".join(f"{short[k]} {s['counters']['timeouts']:,}" for k, (m, s) in out.items()))
print(f"  packets dropped: ns-2 {ns_drops:,} ({end.pkts_nic_drops:,} at the NICs, {end.pkts_last_hop_drops:,} at "
      f"the last hop, {end.pkts_up_drops + end.pkts_down_drops:,} elsewhere); "
      + "; ".join(f"{short[k]} {dcsim_counts(s)['drops']:,} ({s['drops_by_tier']})" for k, (m, s) in out.items()))
print(f"  bytes into the NICs: ns-2 {end.bytes_nic_arrivals / 1e9:.2f} GB ({(end + q0).bytes_nic_arrivals / 1e9:.2f} "
      f"with the warm-up before 1 s); "
      + "; ".join(f"{short[k]} {s['counters']['host_tx_bytes'] / 1e9:.2f} GB" for k, (m, s) in out.items()))
nd = end.bytes_nic_drops + end.bytes_up_drops + end.bytes_down_drops + end.bytes_last_hop_drops
print(f"  ns-2's dropped bytes per dropped packet: {nd / ns_drops:,.1f} (a full data packet is 1,500 B)")

# probe mode in ns-2
print(f"\nns-2's data bytes = 1,460 x its data packets, every one of the {N:,} flows: "
      f"{bool((f.data_bytes == 1460 * f.data_pkts).all())} (no 1-byte probes)")
pc = f.prob_cap
print(f"prob_cap_ at the flows' starts: 0 for {(pc == 0).sum():,} flows, other values for {(pc != 0).sum():,} "
      f"({sorted(set(pc[pc != 0]))}); timeouts of senders with prob_cap_ 0: {f.timeouts[pc == 0].sum():,} "
      f"of {f.timeouts.sum():,}")
