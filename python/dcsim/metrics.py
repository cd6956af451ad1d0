"""Flow-level metrics: slowdown (normalized FCT) by flow-size bin.

Unfinished flows (a run stopped by ``run.stop_time_s``) are rows of the
flow table with no finish time and a NaN slowdown. The statistics here are
over *finished* flows only; each bin also counts the flows that did not
finish, so a reader sees how many were left out (their slowdown is unknown:
at least their time so far over their ideal FCT)."""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from .bins import PAPER_BINS, check, labels

__all__ = ["PAPER_BINS", "slowdown_by_size", "summarize", "settling", "query_times", "ping_times", "extra_stats",
           "SUMMARY_PERCENTILES"]

#: The percentiles `dcsim run` and `dcsim show` report.
SUMMARY_PERCENTILES: tuple[float, ...] = (50, 99, 99.9)


def slowdown_by_size(
    flows: pd.DataFrame,
    bins: Optional[Sequence[float]] = None,
    percentiles: Sequence[float] = (99,),
    column: str = "slowdown",
) -> pd.DataFrame:
    """Mean and percentile slowdown per size bin, plus an ``all`` row (or of
    another column of the flow table, e.g. ``fct_s``).

    ``bins`` are edges of right-closed intervals; the default is
    :data:`PAPER_BINS`. Percentiles use linear interpolation. ``flows``
    counts finished flows, over which the statistics are taken;
    ``unfinished`` counts the bin's flows that did not finish."""
    edges = check(PAPER_BINS if bins is None else bins)
    size = flows.size_bytes.to_numpy()
    sd = flows[column].to_numpy(dtype=np.float64)
    done = ~np.isnan(sd)
    groups = [(lab, (size > lo) & (size <= hi)) for lab, lo, hi in zip(labels(edges), edges, edges[1:])]
    groups.append(("all", np.ones(len(size), dtype=bool)))
    rows = []
    for lab, mask in groups:
        s = sd[mask & done]
        row = {"bin": lab, "flows": int(len(s)), "unfinished": int((mask & ~done).sum()),
               "mean": float(s.mean()) if len(s) else math.nan}
        for p in percentiles:
            row[f"p{p:g}"] = float(np.percentile(s, p)) if len(s) else math.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("bin")


#: A bin has not settled when the mean slowdown of its later half of flows
#: differs from its earlier half's by more than this fraction...
SETTLING_CHANGE = 0.10
#: ...and by more than this many standard errors (so that noise in a bin
#: of few flows does not count).
SETTLING_Z = 3.0


def settling(flows: pd.DataFrame, bins: Optional[Sequence[float]] = None) -> list[dict]:
    """Whether each size bin's mean slowdown holds over the run: the mean
    over the earlier and over the later half of the bin's finished flows
    (by start time), their relative change and its size in standard errors
    of the difference. A bin whose mean moves by more than
    `SETTLING_CHANGE` and `SETTLING_Z` standard errors has not settled: the
    run is shorter than the time the fabric takes to reach its steady state
    (pFabric's large flows on the 3:1 fabric of its Fig. 20: 2.56 in the
    first tenth of 100,000 flows, about 3.0 after), or the load is more
    than it can carry (the mean keeps growing). Its statistics depend on
    the run's length, and more flows may change them."""
    edges = check(PAPER_BINS if bins is None else bins)
    size = flows.size_bytes.to_numpy()
    done = flows.slowdown.notna().to_numpy()
    order = np.argsort(flows.start_s.to_numpy(), kind="stable")
    sd = flows.slowdown.to_numpy(dtype=np.float64)[order]
    size, done = size[order], done[order]
    groups = [(lab, (size > lo) & (size <= hi)) for lab, lo, hi in zip(labels(edges), edges, edges[1:])]
    groups.append(("all", np.ones(len(size), dtype=bool)))
    rows = []
    for lab, mask in groups:
        s = sd[mask & done]
        half = len(s) // 2
        if half < 2:
            continue
        a, b = s[:half], s[half:]
        se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        change = b.mean() / a.mean() - 1
        z = (b.mean() - a.mean()) / se if se > 0 else 0.0
        rows.append({"bin": lab, "earlier_mean": float(a.mean()), "later_mean": float(b.mean()),
                     "change": float(change), "z": float(z),
                     "settled": not (abs(change) > SETTLING_CHANGE and abs(z) > SETTLING_Z)})
    return rows


def _extra_flows(flows: pd.DataFrame, spec, kind: int, what: str) -> pd.DataFrame:
    """The rows of `flows` that are queries' answers or pings (`kind`),
    with their query or ping number in column `n`."""
    from .spec.experiment import extra_ids

    ids = extra_ids(spec, kind)
    if ids is None:
        raise ValueError(f"the spec has no workload.{what}")
    n = ids[flows.flow_id.to_numpy()]
    return flows.assign(n=n)[n >= 0]


def traffic_classes(flows: pd.DataFrame, spec) -> np.ndarray:
    """The traffic class of each row of `flows` under the spec's
    `workload.traffic_classes` (0 is served first): the engine's hash of
    the flow id (BFC App. A.3, Fig. 20)."""
    from . import _core

    ids = flows.flow_id.to_numpy(dtype=np.uint32)
    return np.frombuffer(_core.traffic_classes(ids.tolist(), spec.workload.traffic_classes), dtype=np.uint8).astype(np.int8)


def query_times(flows: pd.DataFrame, spec) -> pd.DataFrame:
    """One row per query of the spec's `workload.queries`: its start, the
    finish of its last answer and the query completion time (QCT; NaN if
    an answer did not finish), and its answers (PIAS §V-B, Figs. 8-9)."""
    from .spec.experiment import QUERY

    g = _extra_flows(flows, spec, QUERY, "queries").groupby("n")
    out = pd.DataFrame({"start_s": g.start_s.min(), "finish_s": g.finish_s.max(), "answers": g.size(),
                        "unfinished": g.finish_s.apply(lambda s: int(s.isna().sum()))})
    out.loc[out.unfinished > 0, "finish_s"] = math.nan
    out["qct_s"] = out.finish_s - out.start_s
    return out.rename_axis("query")


def ping_times(flows: pd.DataFrame, spec) -> pd.DataFrame:
    """One row per ping of the spec's `workload.pings`: its start and its
    round-trip time (the ping flow's FCT; NaN if it did not finish)."""
    from .spec.experiment import PING

    f = _extra_flows(flows, spec, PING, "pings").set_index("n").sort_index()
    return pd.DataFrame({"start_s": f.start_s, "rtt_s": f.fct_s}).rename_axis("ping")


def extra_stats(flows: pd.DataFrame, summary: dict, percentiles: Sequence[float] = SUMMARY_PERCENTILES) -> dict:
    """Query completion and ping round-trip times (us) of a run whose spec
    has `workload.queries` or `workload.pings`: count, unfinished, mean and
    percentiles ({} without them)."""
    from .spec import spec_from_dict

    spec = spec_from_dict(summary["spec"])
    out = {}
    for key, on, table, column in (("queries", spec.workload.queries, query_times, "qct_s"),
                                   ("pings", spec.workload.pings, ping_times, "rtt_s")):
        if on is None:
            continue
        t = table(flows, spec)[column]
        v = t.dropna().to_numpy() * 1e6
        row = {"count": int(len(t)), "unfinished": int(t.isna().sum()),
               "mean_us": float(v.mean()) if len(v) else None}
        for p in percentiles:
            row[f"p{p:g}_us"] = float(np.percentile(v, p)) if len(v) else None
        out[key] = row
    return out


def summarize(flows: pd.DataFrame, summary: Optional[dict] = None,
              bins: Optional[Sequence[float]] = None,
              percentiles: Sequence[float] = SUMMARY_PERCENTILES) -> dict:
    """The statistics `dcsim run` prints and writes to summary.json:
    slowdown by size bin (finished flows; unfinished counted per bin) and,
    given the run's summary, drops, timeouts and retransmissions."""
    table = slowdown_by_size(flows, bins=bins, percentiles=percentiles)
    out: dict = {
        "bin_edges_bytes": [e if math.isfinite(e) else "inf" for e in check(PAPER_BINS if bins is None else bins)],
        "percentiles": [float(p) for p in percentiles],
        "unfinished_flows": "excluded from the statistics; counted per bin",
        "by_size": [{k: _num(v) for k, v in row.items()} for row in table.reset_index().to_dict("records")],
    }
    if "start_s" in flows:
        out["settling"] = settling(flows, bins)
    if summary is not None and "flow_id" in flows:
        out.update(extra_stats(flows, summary, percentiles))
    if summary is not None:
        c = summary["counters"]
        data = max(c["data_pkts"], 1)
        out["drops"] = {"packets": c["dropped_pkts"], "of_data_packets": c["dropped_pkts"] / data}
        out["timeouts"] = c["timeouts"]
        out["retransmitted_packets"] = c["retransmitted_pkts"]
    return out


def _num(v):
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and math.isnan(v) else v
