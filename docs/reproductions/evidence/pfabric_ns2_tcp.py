"""TCP-DropTail in ns-2 and in dcsim on the same flows
(docs/reproductions/pfabric.md, "Why TCP-DropTail is above the paper's
axis at high load": "The same flows in ns-2 and in dcsim", "The scripts'
arrivals" and "ns-2 over a 20,000-flow run").

Reads the stored output of the pFabric authors' ns-2 scripts
(`run_baseline.sh 20000 0.8 8 search_CDF.tcl 1661480`: TCP-DropTail, web
search, 80% load, 8 connections per host pair, 20,000 flows) in ns-2.35
with the pfabric patch, in peers/ns2-tcp-ws80/ (PROVENANCE.md there: the
repository and commit, the build changes, the scripts' edits, which only
log each flow's start, size, FCT at the sender and the sender's counters).
Prints, with ns-2's FCTs divided by the same ideal FCT as dcsim's:

1. The first 9,653 flows (those the page's first, cut, ns-2 run had
   started, up to 114 ms) replayed in dcsim as a trace with the scripts'
   settings (`pfabric-fig7-9`'s TCP point: leaf-spine, round-robin
   spraying, sizes in packets, FCT at the sender, 8 connections per pair)
   with ns-2's window rule (`span`, the figure's) and RFC 6675's (`pipe`):
   small flows (<= 100 KB) started in the first 50/70/90 ms, their average
   and share with a timeout; the per-flow FCT ratio over the flows ns-2
   finished by then.
2. dcsim's own Poisson arrivals over the same first 50 ms (the figure's
   point, 9,653 flows): the small flows' average.
3. All 20,000 flows in dcsim (`workload.arrivals = "ns2_scripts"`, which
   draws the scripts' flows exactly; checked here), `span`: the whole run
   and the small flows by when they started.

About 3 minutes on one core (four runs).

Usage: .venv/bin/python docs/reproductions/evidence/pfabric_ns2_tcp.py"""

import warnings

import numpy as np
import pandas as pd
from _ns2 import SMALL, match, ns2_flows, run_dcsim, stats

RUN = "ns2-tcp-ws80"
FIRST = 9_653  # the flows the page's first ns-2 run had started when it was cut
f = ns2_flows(RUN)
N = len(f)
print(f"ns-2: {N:,} flows, the last started at {f.start_s.max() * 1e3:.1f} ms; ns-2's clock ran to "
      f"{(f.start_s + f.fct_s).max() * 1e3:.0f} ms\n")

# 1. the first 9,653 flows as a trace
head = f.iloc[:FIRST]
cut = head.start_s.max()
span, _ = run_dcsim("tcp", FIRST, trace=head)
pipe, _ = run_dcsim("tcp", FIRST, scheme={"window": "pipe"}, trace=head)
ms, mp = match(head, span), match(head, pipe)
ms["ns2_sd"] = ms.fct_s / ms.d_ideal_fct_s
small = ms.size_bytes <= SMALL
print(f"1. The first {FIRST:,} flows (started by {cut * 1e3:.1f} ms) as a dcsim trace")
print("| small flows started in the first | flows | ns-2: average | dcsim (`span`) | dcsim (`pipe`) "
      "| with a timeout: ns-2 / span / pipe | last finish: ns-2 / span / pipe |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for t in (0.05, 0.07, 0.09):
    s = small & (ms.start_s < t)
    end = lambda m, fct: (m.start_s + fct)[s].max() * 1e3
    print(f"| {t * 1e3:.0f} ms | {s.sum():,} | {ms.ns2_sd[s].mean():.2f} | {ms.d_slowdown[s].mean():.2f} "
          f"| {mp.d_slowdown[s].mean():.2f} | {(ms.timeouts[s] > 0).mean():.1%} / {(ms.d_timeouts[s] > 0).mean():.1%} "
          f"/ {(mp.d_timeouts[s] > 0).mean():.1%} | {end(ms, ms.fct_s):.0f} / {end(ms, ms.d_fct_s):.0f} / "
          f"{end(mp, mp.d_fct_s):.0f} ms |")
done = ms.start_s + ms.fct_s <= cut
for label, m in (("span", ms), ("pipe", mp)):
    r = m.d_fct_s[done] / m.fct_s[done]
    print(f"  {label}: over the {done.sum():,} flows ns-2 finished by {cut * 1e3:.0f} ms, dcsim's FCT / ns-2's: "
          f"median {r.median():.3f}; within 1%: {(r.sub(1).abs() <= 0.01).mean():.1%}")

# 2. dcsim's own Poisson arrivals over the same first 50 ms
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from _points import point
    import dcsim
    from dcsim.spec import spec_from_dict
    spec = point("pfabric-fig7-9", variant="tcp", workload__cdf="web_search", workload__load=0.8)
    spec["workload"]["flows"] = FIRST
    p = dcsim.run_all(spec_from_dict(spec)).flows
ps = (p.size_bytes <= SMALL) & (p.start_s < 0.05)
print(f"\n2. dcsim's Poisson arrivals (the figure's point, {FIRST:,} flows): small flows started in the first 50 ms: "
      f"{ps.sum():,}, average {p.slowdown[ps].mean():.2f} (the scripts' flows above: ns-2 "
      f"{ms.ns2_sd[small & (ms.start_s < 0.05)].mean():.2f})\n")

# 3. all the flows with the scripts' arrivals
d, s = run_dcsim("tcp", N)
m = match(f, d)
m["ns2_sd"] = m.fct_s / m.d_ideal_fct_s
small = m.size_bytes <= SMALL
a, b = stats(m.size_bytes, m.ns2_sd, m.timeouts), stats(m.size_bytes, m.d_slowdown, m.d_timeouts)
print(f"3. All {N:,} flows, dcsim with arrivals = \"ns2_scripts\" ({len(m):,} matched), `span`, whole run:")
print("| | overall | (0,100KB] avg | (0,100KB] p99 | small flows with a timeout | (100KB,10MB] avg | (10MB,inf) avg |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for label, x in (("ns-2 (the scripts)", a), ("dcsim, same flows", b)):
    print(f"| {label} | {x['overall']:.3g} | {x['small_avg']:.3g} | {x['small_p99']:.3g} "
          f"| {x['small_timeout_share']:.1%} | {x['medium_avg']:.3g} | {x['large_avg']:.3g} |")
print("\n| small flows started in the first | flows | ns-2: average / p99 | dcsim: average / p99 "
      "| with a timeout: ns-2 / dcsim |")
print("| --- | --- | --- | --- | --- |")
for t in (0.1, 0.15, 0.2, 0.22):
    sel = small & (m.start_s < t)
    print(f"| {t * 1e3:.0f} ms | {sel.sum():,} | {m.ns2_sd[sel].mean():.3g} / {m.ns2_sd[sel].quantile(0.99):.3g} "
          f"| {m.d_slowdown[sel].mean():.3g} / {m.d_slowdown[sel].quantile(0.99):.3g} "
          f"| {(m.timeouts[sel] > 0).mean():.1%} / {(m.d_timeouts[sel] > 0).mean():.1%} |")
print(f"\nns-2: {f.timeouts.sum():,} timeouts, {f.resent_pkts.sum():,} packets sent again; dcsim: "
      f"{s['counters']['timeouts']:,} timeouts, {s['counters']['retransmitted_pkts']:,} packets sent again; "
      f"connections opened on the fly: ns-2 {((f.conn >= 8) & (f.conn_flows == 1)).sum():,}, "
      f"dcsim {s['counters']['connections_opened']:,}")
