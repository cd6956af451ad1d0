"""The estimator's unit of work, a Dask task: one small fabric simulated
by the engine (a link's, or the alone runs of one path)."""

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
