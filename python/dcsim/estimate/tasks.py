"""The estimator's unit of work: one small fabric simulated by the engine
(a link's, or the alone runs of one path); a Dask task runs a batch of
them (`simulate_batch`, `batches`)."""

from __future__ import annotations

import json

import numpy as np

#: events per engine call between checks for the end
BATCH = 5_000_000


def simulate(config: dict) -> tuple[np.ndarray, np.ndarray]:
    """Run an engine configuration whose workload is a trace to its end;
    each trace flow's FCT and ideal FCT (ps), by its place in the trace
    (FCT -1: did not finish)."""
    from .._core import Sim

    n = len(config["workload"]["flows"])
    fct = np.full(n, -1, dtype=np.int64)
    ideal = np.zeros(n, dtype=np.int64)
    sim = Sim(json.dumps(config))
    while True:
        status = sim.run(BATCH)
        rec = sim.drain()
        ids = np.asarray(rec["flow_id"], dtype=np.int64)
        done = np.asarray(rec["delivered_bytes"]) == np.asarray(rec["size_bytes"])
        fct[ids[done]] = (np.asarray(rec["finish_ps"], dtype=np.int64) - np.asarray(rec["start_ps"], dtype=np.int64))[done]
        ideal[ids] = np.asarray(rec["ideal_ps"], dtype=np.int64)
        if status != "running":
            return fct, ideal


def simulate_batch(configs: list[dict]) -> list[tuple[np.ndarray, np.ndarray]]:
    """`simulate` for each configuration, in order: one Dask task. A link's
    simulation takes a few milliseconds and Dask's per-task cost is about
    as much, so tasks carry many (6,144 hosts: 12,220 tasks of one link
    each took 5x as long as the same simulations in one process)."""
    return [simulate(c) for c in configs]


def cost(config: dict) -> int:
    """A configuration's work, for balancing batches: its flows' bytes."""
    return sum(int(f[3]) for f in config["workload"]["flows"]) if config["workload"]["kind"] == "trace" else 0


def batches(costs: list[int], n: int) -> list[list[int]]:
    """The indices of `costs` in `n` batches of about equal cost (the
    costliest first, each to the cheapest batch so far; ties to the lower
    batch): deterministic, so the same configurations make the same
    batches. Each simulation runs alone in its own engine, so the
    estimate does not depend on the batches either."""
    n = max(1, min(n, len(costs)))
    load = [0] * n
    out: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        b = min(range(n), key=lambda k: (load[k], k))
        out[b].append(i)
        load[b] += costs[i] + 1
    return [sorted(b) for b in out if b]
