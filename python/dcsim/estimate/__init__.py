"""`dcsim estimate`: a decomposed estimate of a run's FCTs (issue 53;
docs/estimator.md), after Parsimon (Zhao et al., NSDI'23).

The fabric is cut into its directed links (`decompose`); each busy link,
or one representative of links whose workloads are alike (`combine.cluster`),
is simulated on its own small fabric by the engine, with the run's scheme;
so is each path's flow alone (`alone`). Every simulation is a Dask task
(`tasks.simulate`; Dask tasks run them in batches), on a local cluster of one worker per core by default
or on any scheduler. A flow's estimate is its FCT alone on its path plus
what each link of its path added (`combine`)."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..errors import SpecError
from . import alone, combine
from .decompose import Decomposition

PS = 1e-12


def refusal(spec) -> Optional[str]:
    """Why a spec cannot be estimated link by link, if it cannot."""
    s = spec.scheme
    if s.engine_model != "packets":
        return f"scheme {s.name} is a flow-level model: run it (`dcsim run`), it is fast already"
    if s.not_per_link:
        return f"scheme {s.name}: {s.not_per_link}"
    if spec.buffer.resolved_model(s) == "shared" and spec.buffer.resolved_pfc(s):
        return "PFC pauses carry congestion from link to link: set buffer.pfc = false, or run it (`dcsim run`)"
    if spec.routing.load_balancing != "ecmp":
        return (f"routing.load_balancing = {spec.routing.load_balancing!r} sprays a flow over several paths; the "
                "decomposition routes each flow on one (set it to \"ecmp\")")
    w = spec.workload
    if w.deadline_mean_us is not None or w.queries is not None or w.incasts is not None or w.pings is not None:
        return "deadlines, queries, incasts and pings are not estimated: their flows' times are not per link"
    if spec.faults:
        return "faults change the routes during the run: run it (`dcsim run`)"
    if spec.workload.traffic_classes > 1:
        return "traffic classes are not carried into the links' simulations"
    asked = spec.run.recorded() + (["run.stop_time_s"] if spec.run.stop_time_s is not None else [])
    if asked:
        return (f"{' and '.join(asked)} ask for what only a run of the whole fabric has (its samples, queueing "
                "delays, links, a time to stop at): unset them, or run it (`dcsim run`)")
    return None


def caveats(spec) -> list[str]:
    """What a user should know before estimating `spec`: its scheme's
    measured bias (`Scheme.estimate_caveat`) and links loaded past their
    capacity (`offered.overload_caveats`)."""
    from ..offered import overload_caveats

    if refusal(spec):
        return []
    why = spec.scheme.estimate_caveat(spec)
    return ([f"dcsim estimate: scheme {spec.scheme.name}: {why}"] if why else []) + overload_caveats(spec)


@dataclass
class Estimate:
    """An estimate's flow table (columns as `dcsim run` writes them, plus
    `estimated`) and summary."""

    flows: Any
    summary: dict


def _client(scheduler, workers: Optional[int]):
    """A Dask client: the scheduler's, or a local cluster of `workers`
    processes (default: one per core); and whether it is ours to close."""
    if scheduler is not None:
        from ..runner import connect

        return connect(scheduler)
    from dask.distributed import Client, LocalCluster

    n = workers or os.cpu_count() or 1
    # (its workers' logs below CRITICAL are Dask's own chatter: a heartbeat
    # that meets the closing scheduler prints a traceback)
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=logging.CRITICAL)
    return Client(cluster), True


#: Dask tasks per worker: enough to balance, few enough that Dask's own
#: cost per task stays small against the simulations'
TASKS_PER_WORKER = 8


class _Runner:
    """Runs simulations (`tasks.simulate`): in this process (`workers` 0,
    no scheduler), or as Dask tasks on a scheduler's cluster or a local
    one started at the first call and kept for the estimate's later
    passes (`close`)."""

    def __init__(self, scheduler, workers: Optional[int], quiet: bool):
        self.scheduler, self.workers, self.quiet = scheduler, workers, quiet
        self.client, self.owned = None, False

    def __call__(self, configs: list[dict]) -> list:
        """Each configuration's `tasks.simulate`, in order, in batches of
        about equal work (`tasks.batches`), `TASKS_PER_WORKER` for each
        worker."""
        from .tasks import batches, cost, simulate, simulate_batch

        bar = None
        if not self.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=len(configs), unit="link", file=sys.stderr, ncols=100)
        try:
            if self.workers == 0 and self.scheduler is None:
                out = []
                for c in configs:
                    out.append(simulate(c))
                    bar and bar.update(1)
                return out
            from dask.distributed import as_completed

            if self.client is None:
                self.client, self.owned = _client(self.scheduler, self.workers)
            n = sum(self.client.nthreads().values()) or 1
            groups = batches([cost(c) for c in configs], TASKS_PER_WORKER * n)
            futures = self.client.map(simulate_batch, [[configs[i] for i in g] for g in groups], pure=False)
            size = {f.key: len(g) for f, g in zip(futures, groups)}
            for f in as_completed(futures):
                bar and bar.update(size[f.key])
            out: list = [None] * len(configs)
            for g, res in zip(groups, self.client.gather(futures)):
                for i, r in zip(g, res):
                    out[i] = r
            return out
        finally:
            bar and bar.close()

    def describe(self):
        """Where the simulations ran (the summary's `estimate.workers`)."""
        if self.scheduler is not None:
            return str(self.scheduler)
        return "in process" if self.workers == 0 else self.workers or os.cpu_count()

    def close(self) -> None:
        if self.owned:
            cluster = self.client.cluster
            self.client.close()
            cluster and cluster.close()
        self.client, self.owned = None, False


def link_base(cfg: dict) -> dict:
    """The run's engine configuration as every link's simulation shares it:
    no faults, lossy links, sampling or stop time."""
    return {**cfg, "faults": [], "link_errors": [], "sampler": None, "stop_time_ps": None}


def link_config(base: dict, seed: int, channel: int, fabric: tuple) -> dict:
    """The engine configuration of `channel`'s simulation on its fabric
    (`Decomposition.link_fabric`), seeded by the run's seed and the link."""
    topology, trace, _ = fabric
    return {**base, "seed": (seed * 1_000_003 + channel) % 2**63, "topology": topology,
            "workload": {"kind": "trace", "flows": trace}}


#: passes over the links by default (docs/estimator.md, "Passes")
PASSES = 3
#: caps: rates a factor 2**(1/2) apart, down to the NIC's over 2**8
CAP_STEPS, CAP_MAX = 2, 16
#: flows of at most this many packets are never capped: they finish within
#: their first windows, and what delays them elsewhere is a wait, not a
#: share of a link's bandwidth
MIN_CAPPED = 64


def _caps(d, excess, packets, wire, channels=None) -> dict[int, dict[int, int]]:
    """For each busy channel (or each of `channels`), the flows that their
    other links held back in the pass before (`excess`: each channel's
    excess for its flows), and the rate that leaves them: their NIC's rate
    times their transmission time over it, over that time plus the largest
    excess of their other links, in steps of a factor 2**(1/2)."""
    pos = d.channel_positions()
    e = np.zeros(len(d.ports))
    for c, p in pos.items():
        if c in excess:
            e[p] = np.nan_to_num(excess[c])
    starts = d.offsets[:-1]
    flow_of = np.repeat(np.arange(len(d.flow_id)), np.diff(d.offsets))
    top = np.maximum.reduceat(e, starts)
    ties = np.add.reduceat((e == top[flow_of]).astype(np.int64), starts)
    second = np.maximum.reduceat(np.where(e == top[flow_of], -np.inf, e), starts)
    second = np.where(ties > 1, top, np.maximum(second, 0.0))
    other = np.where(e == top[flow_of], second[flow_of], top[flow_of])
    nic = d.rate_bps[d.ports[starts]].astype(np.float64)
    t = packets * wire * 8 / nic * 1e12  # ps
    share = t[flow_of] / (t[flow_of] + other)
    k = np.minimum(np.round(-CAP_STEPS * np.log2(np.maximum(share, 1e-9))), CAP_MAX).astype(np.int64)
    k[packets[flow_of] <= MIN_CAPPED] = 0
    out: dict[int, dict[int, int]] = {}
    for c in pos if channels is None else channels:
        p = pos[c]
        sel = k[p] > 0
        if sel.any():
            f = flow_of[p][sel]
            out[c] = {int(i): int(nic[i] * 2.0 ** (-kk / CAP_STEPS)) for i, kk in zip(f, k[p][sel])}
    return out


def estimate(spec, *, scheduler: Any = None, workers: Optional[int] = None, cluster: bool = True,
             quiet: bool = True, passes: Optional[int] = None) -> Estimate:
    """Estimate `spec`'s run. `workers`: local Dask workers (default one
    per core; 0: in this process, no Dask); `scheduler`: a Dask scheduler
    address or client instead; `cluster`: let representatives stand for
    links with alike workloads (else every busy link is simulated);
    `passes`: over the links (default `PASSES`), each after the first
    limiting a flow at a link to what its other links let it send in the
    pass before (`_caps`)."""
    runner = _Runner(scheduler, workers, quiet)
    try:
        return _estimate(spec, runner, cluster, passes)
    finally:
        runner.close()


def _estimate(spec, run_tasks: _Runner, cluster: bool, passes: Optional[int]) -> Estimate:
    from .._core import sample_flows
    from ..metrics import summarize
    from ..simulate import build
    from ..spec import engine_config
    from ..spec.experiment import as_spec

    spec = as_spec(spec)
    why = refusal(spec)
    if why:
        raise SpecError(f"dcsim estimate: {why}")
    passes = PASSES if passes is None else passes
    if passes < 1:
        raise SpecError(f"dcsim estimate: passes must be at least 1 (got {passes})")
    t0 = time.perf_counter()
    cfg = engine_config(spec)
    flows = sample_flows(json.dumps(cfg))
    sim = build(spec)
    if len(flows["flow_id"]) != sim.progress()[2]:
        raise SpecError("dcsim estimate: the workload starts flows when others end (a closed loop); its flows are "
                        "not known before the run")
    d = Decomposition.of(sim, flows, spec.topology.host_count())
    mss = spec.scheme.mss_bytes
    packets = np.maximum(1, -(-d.size.astype(np.int64) // mss))
    channels = d.channels()

    # which links are simulated: none that carries one flow (alone, it
    # adds nothing); of the others, every one or representatives
    busy = {c: idx for c, idx in channels.items() if len(idx) > 1}
    span = float(d.start_ps.max() - d.start_ps.min()) if len(d.start_ps) > 1 else 1.0
    feats = {c: combine.features((int(d.rate_bps[c]), int(d.delay_ps[c]), bool(d.node[c] < d.hosts),
                                  bool(d.peer[c] < d.hosts)), d.start_ps[idx], d.size[idx], int(d.rate_bps[c]), span)
             for c, idx in busy.items()}
    clusters = combine.cluster(feats) if cluster else {c: [c] for c in busy}
    reps = sorted(clusters)
    pool: dict[int, tuple] = {}  # each busy channel's representatives
    for r in reps:
        pool.setdefault(tuple(clusters[r]), []).append(r)
    pool = {m: tuple(rs) for members, rs in pool.items() for m in members}
    base = link_base(cfg)
    fabrics = {c: d.link_fabric(c) for c in reps}
    link_cfgs = [link_config(base, spec.seed, c, fabrics[c]) for c in reps]

    # alone, on every path a flow takes: its own, and its links' small fabrics'
    need: dict[tuple, set] = {}
    shapes, shape_of = d.path_shapes()
    for k, h in enumerate(shapes):
        need.setdefault(h, set()).update(np.unique(packets[shape_of == k]).tolist())
    for c in reps:
        for i, h in zip(channels[c], fabrics[c][2]):
            need.setdefault(h, set()).add(int(packets[i]))
    paths = sorted(need)
    grids = {h: alone.grid(np.fromiter(need[h], dtype=np.int64)) for h in paths}
    alone_cfgs = [alone.alone_config({**base, "seed": spec.seed}, h, grids[h], mss) for h in paths]

    t1 = time.perf_counter()
    results = run_tasks(link_cfgs + alone_cfgs)
    tasks = len(results)
    t2 = time.perf_counter()
    simulating = t2 - t1
    runs = dict(zip(reps, results[:len(reps)]))
    lone = {h: r for h, r in zip(paths, results[len(reps):])}

    def overhead(h: tuple, n: np.ndarray) -> np.ndarray:
        fct, ideal = lone[h]
        return alone.overhead(grids[h], fct, ideal, n)

    def link_excess(fabrics, runs) -> dict[int, np.ndarray]:
        """Each busy channel's excess for its flows: its own where it was
        simulated, else drawn from its representatives'."""
        excess: dict[int, np.ndarray] = {}
        for c in reps:
            idx = channels[c]
            fct, ideal = runs[c]
            hs = fabrics[c][2]
            o = np.empty(len(idx))
            for h in set(hs):
                m = np.array([x == h for x in hs])
                o[m] = overhead(h, packets[idx][m])
            excess[c] = np.where(fct >= 0, np.maximum(0.0, fct - ideal - o), np.nan)
        draws: dict[tuple, combine.Draws] = {}
        for rs in set(pool.values()):
            idx = np.concatenate([channels[r] for r in rs])
            ex = np.concatenate([excess[r] for r in rs])
            ok = ~np.isnan(ex)
            draws[rs] = combine.Draws.of(d.size[idx][ok], ex[ok], packets[idx][ok])
        for c, idx in busy.items():
            if c not in excess:
                excess[c] = draws[pool[c]].draw(d.size[idx].astype(np.int64),
                                                combine.keys(spec.seed, d.flow_id[idx], c)) * packets[idx]
        return excess

    excess = link_excess(fabrics, runs)
    held: dict = {}
    for _ in range(passes - 1):
        # another pass: each flow reaches a simulated link no faster than the
        # rest of its path let it send in the pass before (what it lost to
        # its slowest other link: `_caps`)
        caps = _caps(d, excess, packets, spec.scheme.mss_bytes + spec.scheme.header_bytes, reps)
        # (a link whose flows are held as in the pass before runs as it did)
        again = [k for k, c in enumerate(reps) if caps.get(c) != held.get(c)]
        if not again:
            break  # the holds stand: more passes would change nothing
        held = caps
        fabrics.update({reps[k]: d.link_fabric(reps[k], caps.get(reps[k])) for k in again})
        cfgs = [link_config(base, spec.seed, reps[k], fabrics[reps[k]]) for k in again]
        # alone again on each path whose flows are new to it
        more: dict[tuple, set] = {}
        for c in (reps[k] for k in again):
            for i, h in zip(channels[c], fabrics[c][2]):
                if int(packets[i]) not in need.get(h, ()):
                    more.setdefault(h, set()).add(int(packets[i]))
        new_paths = sorted(more)
        for h in new_paths:
            need.setdefault(h, set()).update(more[h])
            grids[h] = alone.grid(np.fromiter(need[h], dtype=np.int64))
        t = time.perf_counter()
        results2 = run_tasks(cfgs + [alone.alone_config({**base, "seed": spec.seed}, h, grids[h], mss)
                                     for h in new_paths])
        simulating += time.perf_counter() - t
        tasks += len(results2)
        runs.update({reps[k]: r for k, r in zip(again, results2)})
        lone.update(zip(new_paths, results2[len(again):]))
        excess = link_excess(fabrics, runs)

    n = len(d.flow_id)
    est = d.ideal_ps.astype(np.float64)
    for k, h in enumerate(shapes):
        sel = shape_of == k
        est[sel] += overhead(h, packets[sel])
    for c, idx in busy.items():
        est[idx] += excess[c]
    t3 = time.perf_counter()

    start_s = d.start_ps.astype(np.float64) * PS
    fct_s = est * PS
    ideal_s = d.ideal_ps.astype(np.float64) * PS
    table = {"flow_id": d.flow_id.astype(np.int64), "src": d.src.astype(np.int64), "dst": d.dst.astype(np.int64),
             "size_bytes": d.size.astype(np.int64), "start_s": start_s, "finish_s": start_s + fct_s, "fct_s": fct_s,
             "ideal_fct_s": ideal_s, "slowdown": fct_s / ideal_s, "estimated": np.ones(n, dtype=bool)}
    import pandas as pd

    df = pd.DataFrame(table)
    from .. import __version__

    summary = {
        "name": spec.name, "version": __version__, "seed": spec.seed, "overrides": {},
        "spec": spec.model_dump(mode="json"), "model": "decomposed", "estimated": True,
        "status": "done", "flows_total": n, "flows_finished": int(np.isfinite(fct_s).sum()),
        "unfinished_flows": int((~np.isfinite(fct_s)).sum()), "wall_time_s": t3 - t0,
        "estimate": {"links_used": len(channels), "links_shared": len(busy), "links_simulated": len(reps),
                     "alone_paths": len(lone), "passes": passes,
                     "tasks": tasks, "workers": run_tasks.describe(),
                     "prepare_s": t1 - t0, "simulate_s": simulating,
                     "combine_s": t3 - t1 - simulating,
                     "caveats": caveats(spec)},
    }
    summary["stats"] = summarize({k: df[k].to_numpy() for k in ("size_bytes", "slowdown", "start_s", "ideal_fct_s")},
                                 None)
    df.attrs["summary"] = summary
    return Estimate(df, summary)


def estimate_to_dir(spec, out, *, force: bool = False, overrides: Optional[dict] = None, **kw) -> dict:
    """`estimate(spec, **kw)`, written as `dcsim run` writes a run:
    ``out/flows.parquet`` and ``out/summary.json``, renamed into place
    when complete."""
    from pathlib import Path

    from ..outdir import check_output_dir, replacing

    out = Path(out)
    check_output_dir(out, force=force, replace=True)
    e = estimate(spec, **kw)
    e.summary["overrides"] = overrides or {}
    with replacing(out) as tmp:
        e.flows.to_parquet(tmp / "flows.parquet", index=False)
        (tmp / "summary.json").write_text(json.dumps(e.summary, indent=2) + "\n")
    return e.summary
