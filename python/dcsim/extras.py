"""Flows on top of a workload (PIAS §V-B): partition-aggregate queries
(`[workload.queries]`, Figs. 8-9) and pings (`[workload.pings]`, Fig.
10). The engine's generator gives the workload's own flows; the extra
flows are merged in by start time and the engine runs the result as a
trace. `spec.experiment.extra_ids` recomputes which flow is which."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import numpy as np

#: The seed stream of Poisson query times (apart from the engine's streams).
QUERY_STREAM = 0x7175657279


def _times(per_s: float, count: Optional[int], start: int, horizon: int, poisson: bool, rng) -> "np.ndarray":
    """Times (ps) of a periodic or Poisson stream from `start`: `count` of
    them, or as many as start before `horizon` (at least one)."""
    import numpy as np

    gap = 1e12 / per_s
    n = count if count is not None else max(math.ceil((horizon - start) / gap) - 1, 1)
    if not poisson:
        return start + np.round(gap * np.arange(1, n + 1)).astype(np.int64)
    t = start + np.round(np.cumsum(rng.exponential(gap, n if count is not None else 2 * n + 16))).astype(np.int64)
    if count is None:
        t = t[t < horizon] if (t < horizon).any() else t[:1]
    return t


def with_extras(config: dict, spec) -> tuple[dict, "np.ndarray", "np.ndarray"]:
    """The workload of `config` (a resolved engine configuration without
    queries or pings) with the spec's queries and pings on top (PIAS
    §V-B): merged by start time (the workload's flow first on a tie, then
    queries, then pings; a query's answers in host order). Returns the
    engine's trace workload and, per flow id, its kind (0: the workload's,
    1: a query's answer, 2: a ping) and its query or ping number (-1 for
    the workload's)."""
    import json

    import numpy as np

    from ._core import sample_flows

    w, hosts, seed = spec.workload, spec.topology.host_count(), spec.seed
    bg = sample_flows(json.dumps(config))
    t_bg = np.asarray(bg["start_ps"], dtype=np.int64)
    start = round(w.start_us * 1e6)
    stop = round(spec.run.stop_time_s * 1e12) if spec.run.stop_time_s else None
    last = int(t_bg[-1]) if len(t_bg) else start
    # by default the extra flows run while the workload's do, and stop with the run
    horizon = min(last, stop) if stop else last
    cols = [(t_bg, np.asarray(bg["src"], dtype=np.int64), np.asarray(bg["dst"], dtype=np.int64),
             np.asarray(bg["size_bytes"], dtype=np.int64), np.full(len(t_bg), -1, dtype=np.int64), 0)]
    if w.queries is not None:
        q = w.queries
        t = _times(q.per_s, q.count, start, horizon, q.spacing == "poisson",
                   np.random.default_rng([seed, QUERY_STREAM]))
        servers = np.array([h for h in range(hosts) if h != w.dst], dtype=np.int64)
        k = len(servers)
        cols.append((np.repeat(t, k), np.tile(servers, len(t)), np.full(len(t) * k, w.dst, dtype=np.int64),
                     np.full(len(t) * k, q.response_bytes, dtype=np.int64), np.repeat(np.arange(len(t)), k), 1))
    if w.pings is not None:
        p = w.pings
        t = _times(p.per_s, p.count, start, stop or last, False, None)
        n = len(t)
        cols.append((t, np.full(n, p.src, dtype=np.int64), np.full(n, p.dst, dtype=np.int64),
                     np.full(n, p.bytes, dtype=np.int64), np.arange(n), 2))
    start_ps, src, dst, size, group = (np.concatenate([c[i] for c in cols]) for i in range(5))
    kind = np.concatenate([np.full(len(c[0]), c[5], dtype=np.int64) for c in cols])
    order = np.lexsort((kind, start_ps))  # by time, then kind; stable otherwise
    flows = np.stack([start_ps, src, dst, size], axis=1)[order].tolist()
    return {"kind": "trace", "flows": flows}, kind[order], group[order]
