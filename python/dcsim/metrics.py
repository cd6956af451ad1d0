"""Flow-level metrics: slowdown (normalized FCT) by flow-size bin.

Unfinished flows (a run stopped by ``run.stop_time_s``) are rows of the
flow table with no finish time and a NaN slowdown. The statistics here are
over *finished* flows only; each bin also counts the flows that did not
finish, so a reader sees how many were left out (their slowdown is unknown:
at least their time so far over their ideal FCT)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Mapping, Optional, Sequence, Union

import numpy as np

from .bins import PAPER_BINS, check, labels

if TYPE_CHECKING:
    import pandas as pd

#: A flow table: a DataFrame, or (as `dcsim run` summarizes without
#: importing pandas) a mapping of column name to array.
Flows = Union["pd.DataFrame", Mapping[str, np.ndarray]]

__all__ = ["PAPER_BINS", "slowdown_by_size", "summarize", "settling", "query_times", "ping_times", "extra_stats",
           "SUMMARY_PERCENTILES"]

#: The percentiles `dcsim run` and `dcsim show` report.
SUMMARY_PERCENTILES: tuple[float, ...] = (50, 99, 99.9)


def slowdown_by_size(
    flows: Flows,
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
    import pandas as pd

    return pd.DataFrame(_by_size(flows, bins, percentiles, column)).set_index("bin")


def _by_size(flows: Flows, bins: Optional[Sequence[float]], percentiles: Sequence[float],
             column: str = "slowdown") -> list[dict]:
    """`slowdown_by_size`'s rows."""
    edges = check(PAPER_BINS if bins is None else bins)
    size = np.asarray(flows["size_bytes"])
    sd = np.asarray(flows[column], dtype=np.float64)
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
    return rows


#: A bin has not settled when the mean slowdown of its later half of flows
#: differs from its earlier half's by more than this fraction...
SETTLING_CHANGE = 0.10
#: ...and by more than this many standard errors of the difference (so
#: that noise in a bin of few flows does not count).
SETTLING_Z = 3.0
#: The standard errors come from the means of this many consecutive
#: batches of each half, or from the spread of single flows if that is
#: larger: flows that overlap in time see the same queues, so their
#: slowdowns are correlated and the single flows' spread alone would
#: understate the error (by a factor of 1.65 on the README's example),
#: while a few batches of few flows can understate it by chance.
SETTLING_BATCHES = 10


def _split(start: np.ndarray) -> Optional[int]:
    """Where to cut flows sorted by start time into an earlier and a later
    half without splitting flows that started together (an incast's, a
    trace's bursts): their order is the order they finished in, which
    would put the fast ones first. None if no cut leaves two on each side."""
    n = len(start)
    lo = int(np.searchsorted(start, start[n // 2], side="left")) if n else 0
    hi = int(np.searchsorted(start, start[n // 2], side="right")) if n else 0
    cuts = [c for c in (lo, hi) if 2 <= c <= n - 2]
    return min(cuts, key=lambda c: abs(c - n / 2)) if cuts else None


def _mean_and_var(x: np.ndarray) -> tuple[float, float]:
    """A half's mean and the variance of that mean (`SETTLING_BATCHES`)."""
    k = min(SETTLING_BATCHES, len(x) // 2)
    means = np.array([b.mean() for b in np.array_split(x, k)])
    return float(x.mean()), float(max(means.var(ddof=1) / k, x.var(ddof=1) / len(x)))


def settling(flows: Flows, bins: Optional[Sequence[float]] = None) -> list[dict]:
    """Whether each size bin's mean slowdown held over the run. A bin's
    flows that started are split by start time into an earlier and a later
    half; for each half, the mean slowdown of its finished flows and how
    many did not finish; the relative change of the mean and its size in
    standard errors of the difference (`SETTLING_BATCHES`). A bin whose
    mean moved by more than `SETTLING_CHANGE` and `SETTLING_Z` standard
    errors is not settled (`settled` false): a sign that the run is shorter
    than the fabric takes to reach a steady state (pFabric's large flows on
    the 3:1 fabric of its Fig. 20 average 2.56 in the first tenth of
    100,000 flows, about 3.0 after), or that the load is more than the
    fabric carries (the mean keeps growing), so that more flows would give
    other statistics. It is a screen, not a proof either way: a run that
    passes may still be short of its steady state, and the later half's
    mean leaves out its unfinished flows (with a stop time, often the
    slowest) and includes the flows that finish after the last arrival, on
    an emptying fabric, which lowers it. Bins with fewer than four finished
    flows on a side, or whose flows all started together, have
    `settled` None."""
    edges = check(PAPER_BINS if bins is None else bins)
    start = np.asarray(flows["start_s"])
    order = np.argsort(start, kind="stable")
    start = start[order]
    size = np.asarray(flows["size_bytes"])[order]
    sd = np.asarray(flows["slowdown"], dtype=np.float64)[order]
    groups = [(lab, (size > lo) & (size <= hi)) for lab, lo, hi in zip(labels(edges), edges, edges[1:])]
    groups.append(("all", np.ones(len(size), dtype=bool)))
    rows = []
    for lab, mask in groups:
        row: dict = {"bin": lab, "settled": None}
        rows.append(row)
        cut = _split(start[mask])
        if cut is None:
            continue
        s = sd[mask]
        a, b = s[:cut], s[cut:]
        row.update(earlier_unfinished=int(np.isnan(a).sum()), later_unfinished=int(np.isnan(b).sum()))
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
        if min(len(a), len(b)) < 4:
            continue
        (ma, va), (mb, vb) = _mean_and_var(a), _mean_and_var(b)
        change, se = mb / ma - 1, math.sqrt(va + vb)
        # equal batch means on a side and different means: a move, however small the spread
        z = (mb - ma) / se if se > 0 else (0.0 if mb == ma else None)
        moved = abs(change) > SETTLING_CHANGE and (z is None or abs(z) > SETTLING_Z)
        row.update(earlier_mean=ma, later_mean=mb, change=change, z=z, settled=not moved)
    return rows


def _extra_flows(flows: pd.DataFrame, spec, kind: int, what: str) -> pd.DataFrame:
    """The rows of `flows` that are queries' answers or pings (`kind`),
    with their query or ping number in column `n`."""
    from .spec.experiment import INCAST, as_spec, extra_ids

    if kind == INCAST and "incast" in flows:  # the run's own column
        return flows.assign(n=flows.incast)[flows.incast >= 0]
    ids = extra_ids(as_spec(spec), kind)
    if ids is None:
        raise ValueError(f"the spec has no workload.{what}")
    n = ids[flows.flow_id.to_numpy()]
    return flows.assign(n=n)[n >= 0]


def traffic_classes(flows: pd.DataFrame, spec) -> np.ndarray:
    """The traffic class of each row of `flows` under the spec's
    `workload.traffic_classes` (0 is served first): the engine's hash of
    the flow id (BFC App. A.3, Fig. 20)."""
    from . import _core
    from .spec.experiment import as_spec

    ids = flows.flow_id.to_numpy(dtype=np.uint32)
    classes = as_spec(spec).workload.traffic_classes
    return np.frombuffer(_core.traffic_classes(ids.tolist(), classes), dtype=np.uint8).astype(np.int8)


def query_times(flows: pd.DataFrame, spec) -> pd.DataFrame:
    """One row per query of the spec's `workload.queries`: its start, the
    finish of its last answer and the query completion time (QCT; NaN if
    an answer did not finish), and its answers (PIAS §V-B, Figs. 8-9)."""
    import pandas as pd

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
    import pandas as pd

    from .spec.experiment import PING

    f = _extra_flows(flows, spec, PING, "pings").set_index("n").sort_index()
    return pd.DataFrame({"start_s": f.start_s, "rtt_s": f.fct_s}).rename_axis("ping")


def incast_times(flows: pd.DataFrame, spec) -> pd.DataFrame:
    """One row per incast of the spec's `workload.incasts`: its receiver,
    start (its flows start together), the finish of its last flow and the
    incast completion time (NaN if a flow did not finish), and its flows."""
    import pandas as pd

    from .spec.experiment import INCAST

    g = _extra_flows(flows, spec, INCAST, "incasts").groupby("n")
    out = pd.DataFrame({"receiver": g.dst.first(), "start_s": g.start_s.min(), "finish_s": g.finish_s.max(),
                        "flows": g.size(), "unfinished": g.finish_s.apply(lambda s: int(s.isna().sum()))})
    out.loc[out.unfinished > 0, "finish_s"] = math.nan
    out["ict_s"] = out.finish_s - out.start_s
    return out.rename_axis("incast")


def extra_stats(flows: Flows, summary: dict, percentiles: Sequence[float] = SUMMARY_PERCENTILES) -> dict:
    """Query completion, ping round-trip and incast completion times (us)
    of a run whose spec has `workload.queries`, `workload.pings` or
    `workload.incasts`: count, unfinished, mean and percentiles ({}
    without them)."""
    from .spec import spec_from_dict

    spec = spec_from_dict(summary["spec"])
    w = spec.workload
    if w.queries is None and w.pings is None and w.incasts is None:
        return {}
    import pandas as pd

    flows = pd.DataFrame(flows) if not isinstance(flows, pd.DataFrame) else flows
    out = {}
    for key, on, table, column in (("queries", spec.workload.queries, query_times, "qct_s"),
                                   ("pings", spec.workload.pings, ping_times, "rtt_s"),
                                   ("incasts", spec.workload.incasts, incast_times, "ict_s")):
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


def summarize(flows: Flows, summary: Optional[dict] = None,
              bins: Optional[Sequence[float]] = None,
              percentiles: Sequence[float] = SUMMARY_PERCENTILES) -> dict:
    """The statistics `dcsim run` prints and writes to summary.json:
    slowdown by size bin (finished flows; unfinished counted per bin),
    whether each bin's mean settled over the run (`settling`, given the
    flows' start times) and, given the run's summary, drops, timeouts and
    retransmissions. With incasts (an `incast` column), the slowdown
    table and its settling are the background flows' (`background`), the
    incasts' completion times apart (`extra_stats`)."""
    everything = flows
    if "incast" in flows:
        background = np.asarray(flows["incast"]) < 0
        flows = {k: np.asarray(flows[k])[background] for k in flows}
    out: dict = {
        "bin_edges_bytes": [e if math.isfinite(e) else "inf" for e in check(PAPER_BINS if bins is None else bins)],
        "percentiles": [float(p) for p in percentiles],
        "unfinished_flows": "excluded from the statistics; counted per bin",
        "by_size": [{k: _num(v) for k, v in row.items()} for row in _by_size(flows, bins, percentiles)],
    }
    if "start_s" in flows:
        out["settling"] = settling(flows, bins)
        start = np.asarray(flows["start_s"])
        if "ideal_fct_s" in flows and len(start) > 1:
            span, largest = float(start.max() - start.min()), float(np.max(flows["ideal_fct_s"]))
            if span < largest:
                # the largest flows outlast the arrivals on their own
                out["short_span"] = {"arrivals_s": span, "largest_ideal_fct_s": largest}
    if flows is not everything:
        out["background"] = "the slowdown table is the background flows' (incast flows apart: incasts)"
    if summary is not None and "flow_id" in flows:
        out.update(extra_stats(everything, summary, percentiles))
    if summary is not None:
        c = summary["counters"]
        data = max(c["data_pkts"], 1)
        out["drops"] = {"packets": c["dropped_pkts"], "of_data_packets": c["dropped_pkts"] / data}
        out["timeouts"] = c["timeouts"]
        out["retransmitted_packets"] = c["retransmitted_pkts"]
        if "duplicate_pkts" in c:  # (runs from before it was counted have none)
            out["spurious_retransmissions"] = c["duplicate_pkts"]
    return out


def _num(v):
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and math.isnan(v) else v
