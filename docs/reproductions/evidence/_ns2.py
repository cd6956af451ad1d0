"""What the ns-2 evidence scripts share: the stored output of a run of the
pFabric ns-2 scripts (peers/<run>/, PROVENANCE.md there says how it was
made), and dcsim on the same flows.

ns-2's per-flow log (flows.tr.xz; one line per finished flow, written by
the scripts' `TCP_pair fin_notify` with the edits in peers/<run>/
scripts.diff): the flow's start on ns-2's clock (the generators start at
1 s), source and destination hosts, size in bytes, FCT at the sender
(start to the ACK of its last byte), and over the flow the sender's
`nrexmit_` (timeouts), `ndatapack_` (data packets sent), `nrexmitpack_`
(packets sent again), `ndatabytes_` (data bytes sent), the connection's
index in its pair's pool, the connection's flow count (1: its first flow)
and the sender's `prob_cap_` at the flow's start.

The queue monitors' totals (qdump.tr.xz; one line every 5 ms of ns-2's
clock from 1 s, and one at the end): time, then in packets and again in
bytes: host->ToR drops, arrivals, departures; ToR->spine drops;
spine->ToR drops; ToR->host drops, arrivals, departures."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _points import point

import dcsim
from dcsim.bins import PAPER_BINS
from dcsim.spec import spec_from_dict

PEERS = Path(__file__).parent / "peers"
SMALL, LARGE = PAPER_BINS[1], PAPER_BINS[2]  # (0, 100KB], (100KB, 10MB], (10MB, inf)
NS2_START_S = 1.0
FLOW_COLUMNS = ["t_ns2", "src", "dst", "size_bytes", "fct_s", "timeouts", "data_pkts", "resent_pkts",
                "data_bytes", "conn", "conn_flows", "prob_cap"]
QDUMP_COLUMNS = [f"{u}_{v}" for u in ("pkts", "bytes")
                 for v in ("nic_drops", "nic_arrivals", "nic_departures", "up_drops", "down_drops",
                           "last_hop_drops", "last_hop_arrivals", "last_hop_departures")]
HOSTS, HOSTS_PER_LEAF = 144, 16


def ns2_flows(run: str) -> pd.DataFrame:
    """The run's flows by start time: its columns, `start_s` from the first
    generator's start (dcsim's clock) and `busy` (the previous flow of the
    host pair was still running at this one's start, by ns-2's own times)."""
    f = pd.read_csv(PEERS / run / "flows.tr.xz", sep=" ", header=None, names=FLOW_COLUMNS)
    f["start_s"] = f.t_ns2 - NS2_START_S
    f = f.sort_values(["start_s", "src", "dst"], kind="stable").reset_index(drop=True)
    f["busy"] = busy(f.src, f.dst, f.start_s, f.fct_s)
    return f


def qdump(run: str) -> pd.DataFrame:
    q = pd.read_csv(PEERS / run / "qdump.tr.xz", sep=" ", header=None, names=["t_ns2"] + QDUMP_COLUMNS)
    q["t_s"] = (q.t_ns2 - NS2_START_S).round(6)
    return q


def busy(src, dst, start, fct) -> np.ndarray:
    """For each flow, whether an earlier flow of the same (src, dst) pair had
    not finished when it started."""
    d = pd.DataFrame({"src": np.asarray(src), "dst": np.asarray(dst), "start": np.asarray(start),
                      "end": np.asarray(start) + np.asarray(fct)})
    d["i"] = np.arange(len(d))
    d = d.sort_values(["src", "dst", "start"], kind="stable")
    prev_end = d.groupby(["src", "dst"]).end.transform(lambda e: e.cummax().shift(1))
    out = np.zeros(len(d), dtype=bool)
    out[d.i.to_numpy()] = (prev_end > d.start).to_numpy()
    return out


def spec_for(variant: str, flows: int, scheme: dict | None = None, run: dict | None = None,
             trace: pd.DataFrame | None = None, tmp: Path | None = None) -> dict:
    """`pfabric-fig7-9`'s web search point at 80% load for `variant` (the
    scripts' set-up: leaf-spine, round-robin spraying, sizes in packets,
    FCT at the sender, connection pools, `span` windows), with the scripts'
    arrivals (`workload.arrivals = "ns2_scripts"`, their mean flow size for
    the rate) or, given `trace`, those flows as a dcsim trace."""
    spec = point("pfabric-fig7-9", variant=variant, workload__cdf="web_search", workload__load=0.8)
    if trace is None:
        spec["workload"].update(arrivals="ns2_scripts", rate_mean_bytes=1_661_480, flows=flows)
    else:
        path = Path(tmp) / "trace.txt"
        path.write_text("".join(f"{r.start_s:.12f} {r.src} {r.dst} {r.size_bytes}\n"
                                for r in trace.itertuples()))
        spec["workload"].update(matrix="trace", trace=str(path), trace_format="dcsim", flows=None)
    spec["scheme"].update(scheme or {})
    spec["run"].update(run or {})
    return spec


def run_dcsim(variant: str, flows: int, scheme: dict | None = None, run: dict | None = None,
              trace: pd.DataFrame | None = None, links: bool = False):
    """dcsim on the scripts' flows; returns (flows by start time, summary).
    `links`: report every host link (the NICs' and last hops' packets)."""
    with tempfile.TemporaryDirectory() as tmp:
        r = dict(run or {})
        if links:
            r["report_links"] = [[h, HOSTS + h // HOSTS_PER_LEAF] for h in range(HOSTS)]
        res = dcsim.run_all(spec_from_dict(spec_for(variant, flows, scheme, r, trace, tmp)))
    d = res.flows.sort_values(["start_s", "src", "dst"], kind="stable").reset_index(drop=True)
    return d, res.summary


def match(ns2: pd.DataFrame, d: pd.DataFrame) -> pd.DataFrame:
    """ns-2's flows with dcsim's (`d_` columns) side by side, matched by
    host pair and order of start within the pair (the same flows: checked
    on start and size)."""
    a = ns2.assign(k=ns2.groupby(["src", "dst"]).cumcount())
    b = d.assign(k=d.groupby(["src", "dst"]).cumcount())
    m = a.merge(b.add_prefix("d_"), left_on=["src", "dst", "k"], right_on=["d_src", "d_dst", "d_k"], how="inner")
    assert (m.size_bytes == m.d_size_bytes).all(), "not the same flows (sizes)"
    assert (m.start_s - m.d_start_s).abs().max() < 1e-9, "not the same flows (starts)"
    return m.sort_values("start_s", kind="stable").reset_index(drop=True)


def stats(size, slowdown, timeouts=None) -> dict:
    """The page's columns: overall, (0,100KB] average and p99, (100KB,10MB]
    and (10MB,inf) averages, timeouts per flow, small flows with a timeout."""
    size, sd = pd.Series(np.asarray(size)), pd.Series(np.asarray(slowdown, dtype=float))
    small, large = size <= SMALL, size > LARGE
    out = {"flows": len(sd), "overall": sd.mean(), "small_avg": sd[small].mean(),
           "small_p99": sd[small].quantile(0.99), "medium_avg": sd[~small & ~large].mean(),
           "large_avg": sd[large].mean()}
    if timeouts is not None:
        t = pd.Series(np.asarray(timeouts, dtype=float))
        out["timeouts_per_flow"] = t.mean()
        out["small_timeout_share"] = (t[small] > 0).mean()
    return out


def row(label: str, s: dict, cols: list[str], fmt: dict | None = None) -> str:
    fmt = fmt or {}
    cells = []
    for c in cols:
        v = s[c]
        f = fmt.get(c, "{:.3f}")
        cells.append(f.format(v))
    return f"| {label} | " + " | ".join(cells) + " |"


def read_provenance(run: str) -> str:
    return (PEERS / run / "PROVENANCE.md").read_text()
