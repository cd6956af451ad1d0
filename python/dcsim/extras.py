"""Flows on top of a workload: partition-aggregate queries
(`[workload.queries]`, PIAS §V-B, Figs. 8-9), pings (`[workload.pings]`,
PIAS Fig. 10), BFC's incast mix (`[workload.incasts]`, BFC §6.2.1) and
long-lived flows (`[workload.long_flows]`, BFC Table 1). The engine's generator gives the workload's own flows; the extra
flows are merged in by start time and the engine runs the result as a
trace. `spec.experiment.extra_ids` recomputes which flow is which."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import numpy as np

#: The seed stream of Poisson query times (apart from the engine's streams).
QUERY_STREAM = 0x7175657279
#: The seed stream of the incasts' receivers and senders.
INCAST_STREAM = 0x696e63617374


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


def with_extras(config: dict, spec, capacity_bps: float = 0.0) -> tuple[dict, "np.ndarray", "np.ndarray"]:
    """The workload of `config` (a resolved engine configuration without
    extra flows) with the spec's queries, pings and incasts on top: merged
    by start time (the workload's flow first on a tie, then queries, then
    pings, then incasts, then long flows; a query's answers in host order,
    an incast's in the order its senders were drawn). Returns the engine's
    trace workload and, per flow id, its kind (0: the workload's, 1: a
    query's answer, 2: a ping, 3: an incast's flow, 4: a long flow) and its
    query, ping, incast or long flow number (-1 for the workload's). `capacity_bps`: what workload.load is a fraction
    of (for the incasts' interval)."""
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
    if w.incasts is not None:
        c = w.incasts
        if hosts < 2:
            from .errors import SpecError

            raise SpecError("workload.incasts need at least two hosts")
        if c.receiver is not None and c.receiver >= hosts:
            from .errors import SpecError

            raise SpecError(f"workload.incasts.receiver: host {c.receiver} is not in the topology "
                            f"(hosts 0-{hosts - 1})")
        per_s = 1e6 / c.interval_us if c.interval_us else c.load_share * capacity_bps / (8 * c.total_bytes)
        t = _times(per_s, c.count, start, horizon, False, None)
        rng = np.random.default_rng([seed, INCAST_STREAM])
        dsts = rng.integers(0, hosts, len(t))  # (drawn even when fixed: the senders' stream stays the same)
        if c.receiver is not None:
            dsts[:] = c.receiver
        # the senders: hosts other than the receiver in a random order,
        # distinct up to hosts - 1 flows, then round the same order again
        # (BFC Fig. 13's degrees up to 2,000 on 128 hosts)
        turn = np.arange(c.senders) % (hosts - 1)
        srcs = np.stack([(d + 1 + rng.permutation(hosts - 1)[turn]) % hosts for d in dsts]) \
            if len(t) else np.zeros((0, c.senders), dtype=np.int64)
        k = c.senders
        cols.append((np.repeat(t, k), srcs.reshape(-1), np.repeat(dsts, k), np.full(len(t) * k, c.flow_bytes()),
                     np.repeat(np.arange(len(t)), k), 3))
    if w.pings is not None:
        p = w.pings
        t = _times(p.per_s, p.count, start, stop or last, False, None)
        n = len(t)
        cols.append((t, np.full(n, p.src, dtype=np.int64), np.full(n, p.dst, dtype=np.int64),
                     np.full(n, p.bytes, dtype=np.int64), np.arange(n), 2))
    if w.long_flows is not None:
        lf = w.long_flows
        ends = np.array(lf.endpoints(), dtype=np.int64).reshape(-1, 2)
        n = len(ends)
        cols.append((np.full(n, start, dtype=np.int64), ends[:, 0], ends[:, 1], np.full(n, lf.bytes, dtype=np.int64),
                     np.arange(n), 4))
    start_ps, src, dst, size, group = (np.concatenate([c[i] for c in cols]) for i in range(5))
    kind = np.concatenate([np.full(len(c[0]), c[5], dtype=np.int64) for c in cols])
    order = np.lexsort((np.where(kind == 3, 2.5, kind), start_ps))  # by time, then kind (pings before incasts)
    flows = np.stack([start_ps, src, dst, size], axis=1)[order].tolist()
    return {"kind": "trace", "flows": flows}, kind[order], group[order]
