"""pFabric's small flows' tail in ns-2 and in dcsim on the same 20,000
flows: connections opened on the fly (docs/reproductions/pfabric.md, "The
small flows' tail against ns-2: connections opened on the fly").

Reads the same stored ns-2 run as pfabric_ns2_drops.py (the pFabric
authors' `run_pfabric.sh 20000 0.8 1 search_CDF.tcl 1661480` in ns-2.35
with the pfabric patch; peers/ns2-pfabric-ws80/PROVENANCE.md) and runs
dcsim on the same flows (`workload.arrivals = "ns2_scripts"`, the scripts'
settings, `scheme.window = "span"`) with the pool's handshake (the
default) and without it, and Ideal. Prints:

- the small flows (<= 100 KB) that ns-2 makes slow (slowdown above 1.5)
  without a timeout, and how many of them arrive while the previous flow
  of their host pair is still running (a "busy" pair: the scripts open a
  new FullTcp connection for it, with a SYN/SYN-ACK before the data);
- for those, how much longer ns-2's FCT is than dcsim's without the
  handshake;
- the small flows' average / p99 split by idle and busy pairs (busy by
  each run's own flow times; the middle column by ns-2's);
- the whole run (overall, small average and p99, medium and large
  averages, timeouts per flow) and the small flows' p99 by size in
  packets; Ideal's small-flow p99 on these flows.

About 2 minutes on a shared 2-core machine (three whole runs of the
20,000 flows). The stored ns-2 run: peers/ns2-pfabric-ws80/PROVENANCE.md
(built with peers/ns2-build/build_ns2.sh; 1 h 26 min, 2026-11-29).

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_ns2_handshake.py"""

import numpy as np
import pandas as pd
from _ns2 import SMALL, busy, match, ns2_flows, run_dcsim, stats

RUN = "ns2-pfabric-ws80"
f = ns2_flows(RUN)
N = len(f)

with_hs, s_with = run_dcsim("pfabric", N)
without_hs, s_without = run_dcsim("pfabric", N, scheme={"handshake": False})
ideal, _ = run_dcsim("ideal", N)
mw, mo, mi = match(f, with_hs), match(f, without_hs), match(f, ideal)
for m in (mw, mo, mi):
    m["ns2_sd"] = m.fct_s / m.d_ideal_fct_s
    m["d_busy"] = busy(m.d_src, m.d_dst, m.d_start_s, m.d_fct_s)
small = mw.size_bytes <= SMALL

opened = ((f.conn >= 1) & (f.conn_flows == 1)).sum()
print(f"{N:,} flows; ns-2 opened {opened:,} connections on the fly (a pair's connection index >= 1, first flow); "
      f"dcsim with the handshake {s_with['counters']['connections_opened']:,}, without "
      f"{s_without['counters']['connections_opened']:,}\n")

slow = small & (mw.ns2_sd > 1.5) & (mw.timeouts == 0)
print(f"small flows slower than 1.5 in ns-2 without a timeout: {slow.sum():,}; of them on a busy pair: "
      f"{mw.busy[slow].sum():,} ({mw.busy[slow].mean():.0%})")
new = (mw.conn >= 1) & (mw.conn_flows == 1)
for label, sel in (("on a busy pair", small & mw.busy), ("on a connection ns-2 opened for them", small & new)):
    sel = sel & (mw.timeouts == 0) & (mo.d_timeouts == 0)
    extra = (mo.fct_s - mo.d_fct_s)[sel] * 1e6
    print(f"small flows {label}, no timeout in either: {sel.sum():,}; ns-2's FCT minus dcsim's without the "
          f"handshake: median {extra.median():.1f} us, 10th-90th percentile {extra.quantile(0.1):.1f}-"
          f"{extra.quantile(0.9):.1f} us, min-max {extra.min():.1f}-{extra.max():.1f} us")
print("(one leaf-spine round trip of propagation: 11.6 us)\n")


def avg_p99(sd: pd.Series) -> str:
    return f"{sd.mean():.2f} / {sd.quantile(0.99):.2f}"


print("| small flows: average / p99 | ns-2 | dcsim without the handshake (split by ns-2's busy) "
      "| dcsim with it (`handshake`, the default) |")
print("| --- | --- | --- | --- |")
for label, want in (("pair idle", False), ("pair busy (a new connection)", True)):
    a = small & (mw.busy == want)
    c = small & (mw.d_busy == want)
    print(f"| {label} | {avg_p99(mw.ns2_sd[a])} ({a.sum():,} flows) | {avg_p99(mo.d_slowdown[a])} "
          f"| {avg_p99(mw.d_slowdown[c])} ({c.sum():,}) |")

cols = ["overall", "small_avg", "small_p99", "medium_avg", "large_avg", "timeouts_per_flow"]
fmt = lambda s: " | ".join(f"{s[c]:.3g}" if c != "timeouts_per_flow" else f"{s[c]:.1f}" for c in cols)
print("\n| | overall | (0,100KB] avg | (0,100KB] p99 | (100KB,10MB] avg | (10MB,inf) avg | timeouts per flow |")
print("| --- | --- | --- | --- | --- | --- | --- |")
print(f"| ns-2 (the scripts) | {fmt(stats(mw.size_bytes, mw.ns2_sd, mw.timeouts))} |")
print(f"| dcsim, same flows, with the handshake | {fmt(stats(mw.size_bytes, mw.d_slowdown, mw.d_timeouts))} |")
print(f"| dcsim, same flows, without it | {fmt(stats(mo.size_bytes, mo.d_slowdown, mo.d_timeouts))} |")

pk = mw.size_bytes // 1460
print("\nSmall flows' p99 by size in packets: ns-2 / dcsim with the handshake / without")
for lo, hi in ((6, 10), (11, 20), (21, 40), (41, 70)):
    s = small & (pk >= lo) & (pk <= hi)
    print(f"  {lo}-{hi} packets ({s.sum():,} flows): {mw.ns2_sd[s].quantile(0.99):.2f} / "
          f"{mw.d_slowdown[s].quantile(0.99):.2f} / {mo.d_slowdown[s].quantile(0.99):.2f}")

ip99 = mi.d_slowdown[small].quantile(0.99)
n99, d99 = mw.ns2_sd[small].quantile(0.99), mw.d_slowdown[small].quantile(0.99)
print(f"\nIdeal's small-flow p99 on these flows: {ip99:.2f}; ns-2 {n99:.2f} ({n99 / ip99 - 1:+.0%}), "
      f"dcsim {d99:.2f} ({d99 / ip99 - 1:+.0%})")
