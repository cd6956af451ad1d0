"""Run one spec through the engine and turn its output into tables."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__
from ._core import Sim
from .errors import SpecError, warn
from .metrics import summarize
from .outdir import check_output_dir, replacing
from .results import Summary, read_flows  # noqa: F401 (read_flows: dcsim.simulate.read_flows, as before)
from .spec import Spec, engine_config_json
from .spec.experiment import as_spec, caveats, sampled_tables

if TYPE_CHECKING:
    import pandas as pd

# `dcsim run` writes its tables and statistics from numpy columns (a dict
# of column name -> array) without pandas, whose import alone takes about
# a third of a second; the Python API's `run` and `run_all` return
# DataFrames.
Columns = dict[str, np.ndarray]

PS = 1e-12
SLICE_EVENTS = 1 << 18
COLUMNS = [
    "flow_id",
    "src",
    "dst",
    "size_bytes",
    "start_s",
    "finish_s",
    "fct_s",
    "ideal_fct_s",
    "slowdown",
    "retransmits",
    "timeouts",
    "delivered_bytes",
    "deadline_s",
]


def _columns(cols: dict) -> Columns:
    """Engine columns (times in ps) as the flow table. Unfinished flows come
    without `finish_ps` and with `delivered_bytes`: their finish time, FCT
    and slowdown are NaN."""
    start = np.asarray(cols["start_ps"], dtype=np.int64)
    ideal = np.asarray(cols["ideal_ps"], dtype=np.int64)
    size = np.asarray(cols["size_bytes"], dtype=np.int64)
    if "finish_ps" in cols:
        finish_ps = np.asarray(cols["finish_ps"], dtype=np.int64)
        fct = (finish_ps - start).astype(np.float64)
        finish = finish_ps * PS
        delivered = np.asarray(cols.get("delivered_bytes", size), dtype=np.int64)
        # a flow its sender gave up (PDQ's Early Termination) never finished
        gave_up = delivered < size
        if gave_up.any():
            fct[gave_up] = np.nan
            finish = np.where(gave_up, np.nan, finish)
    else:
        fct = finish = np.full(len(start), np.nan)
        delivered = np.asarray(cols["delivered_bytes"], dtype=np.int64)
    deadline = np.asarray(cols["deadline_ps"], dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):  # (no rows: 0/0)
        slowdown = fct / ideal
    return {
        "flow_id": np.asarray(cols["flow_id"], dtype=np.int64),
        "src": np.asarray(cols["src"], dtype=np.int32),
        "dst": np.asarray(cols["dst"], dtype=np.int32),
        "size_bytes": size,
        "start_s": start * PS,
        "finish_s": np.asarray(finish, dtype=np.float64),
        "fct_s": fct * PS,
        "ideal_fct_s": ideal * PS,
        "slowdown": slowdown,
        "retransmits": np.asarray(cols["retransmits"], dtype=np.int32),
        "timeouts": np.asarray(cols["timeouts"], dtype=np.int32),
        "delivered_bytes": delivered,
        "deadline_s": np.where(deadline > 0, deadline * PS, np.nan),
        "fault_losses": np.asarray(cols["fault_losses"], dtype=np.int32),
    }


def _rows(table: Columns) -> int:
    return len(next(iter(table.values())))


def _concat(parts: list[Columns]) -> Columns:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _arrow(table: Columns, schema: Optional[pa.Schema] = None) -> pa.Table:
    """`table` for Parquet, NaN as null (as pyarrow's `from_pandas` has
    it). Built from the arrays' buffers: `pa.array` would import pandas
    to ask whether each array is a pandas object."""

    def column(a: np.ndarray) -> pa.Array:
        a = np.ascontiguousarray(a)
        validity, nulls = None, 0
        if a.dtype.kind == "f":
            ok = ~np.isnan(a)
            nulls = len(a) - int(ok.sum())
            if nulls:
                validity = pa.py_buffer(np.packbits(ok, bitorder="little"))
        return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [validity, pa.py_buffer(a)],
                                     null_count=nulls)

    arrays = [column(a) for a in table.values()]
    if schema is None:
        return pa.Table.from_arrays(arrays, names=list(table))
    return pa.Table.from_arrays(arrays, schema=schema)


def _frame(table: Columns) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(table, columns=list(table))


class _Progress:
    """tqdm on stderr, shown only for runs longer than a second, and only
    on a terminal unless forced."""

    def __init__(self, total: int, quiet: bool):
        self.bar = None
        if quiet or not sys.stderr.isatty():
            return
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="flow", delay=1.0, file=sys.stderr, ncols=110, leave=True)
        self.t0 = time.perf_counter()

    def update(self, sim_s: float, done: int, events: int) -> None:
        if self.bar is None:
            return
        self.bar.n = done
        rate = events / max(time.perf_counter() - self.t0, 1e-9)
        self.bar.set_postfix_str(f"sim {sim_s * 1e3:.2f} ms, {rate / 1e6:.1f} M events/s", refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            shown = time.perf_counter() - self.t0 > 1.0  # past tqdm's delay
            self.bar.close()
            if shown:
                sys.stderr.write("\n")  # tqdm leaves the cursor on the bar's line


#: The sampler's tables (run.sample_us), as they are written beside
#: flows.parquet, with their columns' types; `buffers` (every switch's
#: shared buffer) with buffer.model = "shared" only. A queue sample's
#: `flows` counts the flows with packets at the port (BFC ports; 0
#: elsewhere).
SAMPLE_TYPES: dict[str, dict[str, type]] = {
    "queues": {"time_s": np.float64, "port": np.int32, "node": np.int32, "peer": np.int32, "tier": np.int8,
               "pkts": np.int32, "bytes": np.int64, "flows": np.int32},
    "flow_samples": {"time_s": np.float64, "flow_id": np.int64, "delivered_bytes": np.int64},
    "buffers": {"time_s": np.float64, "node": np.int32, "bytes": np.int64},
}
SAMPLE_TABLES = {name: list(types) for name, types in SAMPLE_TYPES.items()}


def _empty(name: str) -> Columns:
    return {c: np.zeros(0, dtype=t) for c, t in SAMPLE_TYPES[name].items()}


class _Samples:
    """The sampler's records as tables: queue samples with their port's
    node, peer and tier; flow samples; switch buffers."""

    def __init__(self, sim: Sim):
        ports = json.loads(sim.summary_json())["ports"]
        self.ports = {k: np.array([p[k] for p in ports], dtype=SAMPLE_TYPES["queues"][k])
                      for k in ("node", "peer", "tier")}

    @staticmethod
    def table(name: str, cols: dict, extra: Optional[Columns] = None) -> Columns:
        """Engine columns as table `name`: time in seconds, the rest as
        `SAMPLE_TYPES` says, `extra` columns given."""
        data = {"time_s": np.asarray(cols["time_ps"], dtype=np.int64) * PS, **(extra or {})}
        return {c: data[c] if c in data else np.asarray(cols[c], dtype=t) for c, t in SAMPLE_TYPES[name].items()}

    def drain(self, sim: Sim) -> Iterator[tuple[str, Columns]]:
        q = sim.drain_queue_samples()
        port = np.asarray(q["port"], dtype=np.int32)
        yield "queues", self.table("queues", q, {k: v[port] for k, v in self.ports.items()})
        yield "flow_samples", self.table("flow_samples", sim.drain_flow_samples())
        yield "buffers", self.table("buffers", sim.drain_buffer_samples())


def _batches(sim: Sim, quiet: bool, on_samples: Optional[Callable[[str, Columns], None]] = None,
             on_progress: Optional[Callable[[int, int, float], None]] = None) -> Iterator[Columns]:
    """The flow table in batches as flows finish; at the end, the flows
    that started and did not finish (a run stopped by its stop time).
    Samples, if any, go to `on_samples(table name, rows)` as they are taken;
    `on_progress(flows finished, flows in all, simulated seconds)` hears
    after every slice."""
    _, _, total, _ = sim.progress()
    bar = _Progress(total, quiet)
    samples = _Samples(sim) if on_samples else None
    try:
        while True:
            status = sim.run(SLICE_EVENTS)
            sim_s, done, _, events = sim.progress()
            bar.update(sim_s, done, events)
            if on_progress is not None:
                on_progress(done, total, sim_s)
            if samples is not None:
                for name, rows in samples.drain(sim):
                    if _rows(rows):
                        on_samples(name, rows)
            batch = _columns(sim.drain())
            if _rows(batch):
                yield batch
            if status != "running":
                break
    finally:
        bar.close()
    batch = _columns(sim.unfinished())
    if _rows(batch):
        yield batch


def _no_flows(label: Callable[[Columns], Columns]) -> Columns:
    return label(_columns({k: [] for k in _ENGINE_COLS}))


class _Stats:
    """Collects the columns the run's statistics need while the flow table
    streams to disk: size, slowdown and start (24 bytes a flow; the start
    for `metrics.settling`), and with queries or pings also the times
    their statistics need."""

    def __init__(self, spec: Spec):
        w = spec.workload
        extra = ["flow_id", "finish_s", "fct_s"] if w.queries is not None or w.pings is not None \
            or w.incasts is not None else []
        incast = ["dst", "incast"] if w.incasts is not None else []
        self.columns = ["size_bytes", "slowdown", "start_s", "ideal_fct_s", *extra, *incast]
        self.parts: list[Columns] = []
        self.label = labeller(spec)

    def add(self, batch: Columns) -> Columns:
        self.parts.append({c: batch[c] for c in self.columns})
        return batch

    def table(self) -> Columns:
        if not self.parts:
            empty = _no_flows(self.label)
            return {c: empty[c] for c in self.columns}
        return _concat(self.parts)


def _summary(spec: Spec, sim: Sim, wall: float, flows: Columns | pd.DataFrame,
             overrides: Optional[dict] = None) -> dict:
    eng = json.loads(sim.summary_json())
    c = eng["counters"]
    total = sim.progress()[2]
    ports = eng.pop("ports")
    drops_by_tier: dict[str, int] = {}
    tier_names = {0: "host_nic", 1: "leaf_or_edge", 2: "spine_or_aggregation", 3: "core"}
    for p in ports:
        if p["drops"]:
            k = tier_names[p["tier"]]
            drops_by_tier[k] = drops_by_tier.get(k, 0) + p["drops"]
    out = {
        "name": spec.name,
        "version": __version__,
        "seed": spec.seed,
        "overrides": overrides or {},
        "spec": spec.model_dump(mode="json"),
        # what "auto" and the scheme's own defaults came to: schemes compared
        # side by side may run on different buffers and packet sizes
        "resolved": {"buffer_model": spec.buffer.resolved_model(spec.scheme),
                     "pfc": spec.buffer.resolved_model(spec.scheme) == "shared"
                     and spec.buffer.resolved_pfc(spec.scheme),
                     "mss_bytes": spec.scheme.mss_bytes, "header_bytes": spec.scheme.header_bytes},
        "status": eng["status"],
        "flows_total": total,
        "flows_finished": c["flows_finished"],
        "unfinished_flows": total - c["flows_finished"],
        "sim_time_s": eng["sim_time_ps"] * PS,
        "events": c["events"],
        "packet_hops": c["packet_hops"],
        "wall_time_s": wall,
        "events_per_s": c["events"] / wall if wall > 0 else None,
        "packet_hops_per_s": c["packet_hops"] / wall if wall > 0 else None,
        "counters": c,
        "conservation": eng["conservation"],
        "conservation_holds": eng["conservation_holds"],
        # no finished flow beat what its paths allow (idle.rs): an engine check
        "fct_bound_holds": eng["ideal_check"]["below_bound"] == 0,
        "drops_by_tier": drops_by_tier,
        "drops_by_port": [p for p in ports if p["drops"]],
    }
    if spec.run.report_links:
        out["links"] = _link_reports(spec.run.report_links, ports, eng["sim_time_ps"])
    if eng.get("deadlock") is not None:
        # the cycle of paused ports that stopped the run
        out["deadlock"] = {"since_s": eng["deadlock"]["since_ps"] * PS, "ports": eng["deadlock"]["ports"]}
    if eng["ideal_check"]["below_ideal"]:
        # only sprayed packets can beat the one-path ideal (docs/design.md)
        out["below_ideal"] = {"flows": eng["ideal_check"]["below_ideal"],
                              "min_slowdown": eng["ideal_check"]["min_slowdown"]}
    if eng.get("faults") is not None:
        # what each fault took down or degraded, what the links lost by
        # cause, and the flows that lost a packet (docs/faults.md)
        out["faults"] = eng["faults"]
    if spec.buffer.resolved_model(spec.scheme) == "shared":
        # PFC: how long each port was held by pauses, by tier of the port
        # held (host NICs, switch ports)
        t = max(eng["sim_time_ps"], 1)
        paused = [p for p in ports if p["paused_ps"]]
        out["pfc"] = {
            "frames": c["pfc_frames"],
            "paused_ports": len(paused),
            "paused_fraction_max": max((p["paused_ps"] / t for p in paused), default=0.0),
            "paused_fraction_mean": sum(p["paused_ps"] for p in ports) / t / max(len(ports), 1),
            "paused_s_by_tier": {tier_names[k]: sum(p["paused_ps"] for p in ports if p["tier"] == k) * PS
                                 for k in sorted({p["tier"] for p in paused})},
        }
    assigned = sum(p.get("bfc_assignments", 0) for p in ports)
    if assigned:
        # BFC's queue assignment: new flows given a queue that already held
        # packets (Fig. 27(b)), over all switch ports
        collided = sum(p["bfc_collisions"] for p in ports)
        out["bfc"] = {"assignments": assigned, "collisions": collided, "collision_fraction": collided / assigned}
    if eng.get("queueing_delay"):
        # data packets' queueing delays at switches, by tier, in us: all
        # of them, and those of one-packet flows ("<tier>_single")
        # by the switches' tier, "_up" for ports toward a higher tier (a
        # ToR's uplinks), and "_single" / "_scheduled" for those subsets
        out["queueing_delay"] = {tier_names[r["tier"]] + ("_up" if r["up"] else "")
                                 + ("" if r["subset"] == "all" else f"_{r['subset']}"): {
            "packets": r["packets"], **{k.replace("_ps", "_us"): v * 1e-6 for k, v in r.items() if k.endswith("_ps")}}
            for r in eng["queueing_delay"]}
    # what the scheme reports of itself, under its own key (Homa's levels
    # as resolved for this network and workload: "homa")
    out.update(eng.get("scheme_report") or {})
    if any(any(row) for row in eng["prio_losses"]["arrivals"]):
        out["prio_losses"] = eng["prio_losses"]  # ports that choose by priority
    out["stats"] = summarize(flows, out)
    return out


def _link_reports(pairs, ports: list, sim_time_ps: int) -> list:
    """Each asked-for link's traffic, both ways: bytes and packets sent,
    and utilization over the run."""
    out = []
    for a, b in pairs:
        ways = [p for p in ports if (p["node"], p["peer"]) in ((a, b), (b, a))]
        if not ways:
            raise SpecError(f"run.report_links: nodes {a} and {b} share no link")
        for p in sorted(ways, key=lambda p: (p["node"] != a, p["port"])):
            out.append({"from": p["node"], "to": p["peer"], "rate_bps": p["rate_bps"], "tx_bytes": p["tx_bytes"],
                        "tx_pkts": p["tx_pkts"],
                        "utilization": p["tx_bytes"] * 8 * 1e12 / (p["rate_bps"] * max(sim_time_ps, 1))})
    return out


# Sprayed flows beat the one-path ideal by up to about 2% on the papers'
# fabrics (a partial last packet overtaking: data mining's many two-packet
# flows); summary["below_ideal"] flags any, a warning the larger gaps.
BELOW_IDEAL_WARNING = 0.95


def _warn_unfinished(summary: dict, table: str) -> None:
    n = summary["unfinished_flows"]
    if n:
        why = {"stopped": "the stop time was reached", "deadlock": "a PFC deadlock stopped the run",
               "collapse": "a congestion collapse stopped the run"}.get(summary["status"], "the simulation stalled")
        started = summary["counters"]["flows_started"] - summary["flows_finished"]
        never = f" ({n - started} never started)" if n > started else ""
        warn(f"{n} of {summary['flows_total']} flows did not finish ({why}); {table} lists the "
             f"{started} that started with a NaN slowdown{never}, and the statistics leave them out")
    if summary.get("deadlock"):
        d = summary["deadlock"]
        ring = " -> ".join(f"{a}>{b}" for a, b in d["ports"])
        warn(f"PFC deadlock: switch ports paused in a cycle, each holding packets that wait for the next ({ring}; "
             f"node>peer), first seen at {d['since_s'] * 1e3:.3f} ms; the run stopped at "
             f"{summary['sim_time_s'] * 1e3:.3f} ms (docs/faults.md)")
    if summary["status"] == "collapse":
        c = summary["counters"]
        once = c["data_pkts"] - c["retransmitted_pkts"]
        warn(f"congestion collapse: the senders resent {c['retransmitted_pkts']:,} packets for {once:,} sent once "
             f"({c['retransmitted_pkts'] / max(once, 1):,.0f} each), past run.max_resends_per_packet = "
             f"{summary['spec']['run']['max_resends_per_packet']:g}, with {c['timeouts']:,} timeouts; the run stopped "
             f"at {summary['sim_time_s'] * 1e3:.3f} ms. Its numbers describe the collapse, not the scheme "
             "(docs/faults.md)")
    b = summary.get("below_ideal")
    if b and b["min_slowdown"] < BELOW_IDEAL_WARNING:
        warn(f"{b['flows']} flows finished faster than their ideal FCT (slowdown down to {b['min_slowdown']:.3f}): "
             "their packets were sprayed over several paths, where a partial last packet overtakes full ones "
             "and a slower core carries one flow on several links at once; slowdowns divide by the FCT on one "
             "path, as the papers' do (docs/design.md, \"Normalized FCT\")")
    if not summary["conservation_holds"]:
        print("dcsim: error: packet conservation violated: " + json.dumps(summary["conservation"]), file=sys.stderr)
    if not summary["fct_bound_holds"]:
        print("dcsim: error: a flow finished faster than its paths allow (an engine bug; docs/design.md, "
              "\"Normalized FCT\")", file=sys.stderr)


def build(spec: Spec) -> Sim:
    """Validate, resolve and build the engine simulation (no events run)."""
    try:
        sim = Sim(engine_config_json(spec))
    except ValueError as e:
        raise SpecError(str(e)) from None
    if spec.run.report_links:
        # every link asked for exists (before the run, not after it)
        _link_reports(spec.run.report_links, json.loads(sim.summary_json())["ports"], 1)
    return sim


@dataclass
class Run:
    """Everything a run produces: its flows (as `run` returns them), the
    sampler's queue, flow and switch-buffer samples (empty unless
    run.sample_us is set) and the summary."""

    flows: pd.DataFrame
    queues: pd.DataFrame
    flow_samples: pd.DataFrame
    summary: dict
    buffers: pd.DataFrame = None

    def __repr__(self) -> str:
        # (the summary, tens of KB, stays out of a notebook's view)
        s = self.summary
        return (f"Run({s.get('name')!r}: {s.get('flows_finished')} of {s.get('flows_total')} flows finished; "
                f"{len(self.flows)} flow rows, {len(self.queues)} queue samples, {len(self.flow_samples)} flow "
                f"samples, {0 if self.buffers is None else len(self.buffers)} buffer samples)")


def run(spec: Spec | dict | str | Path, *, quiet: bool = True) -> pd.DataFrame:
    """Run a spec (a `Spec`, a dict of sections or a TOML file's path);
    return one row per flow that started (the columns of flows.parquet,
    README). The run's summary (counters, conservation, wall time,
    statistics, ...) is in ``df.attrs["summary"]``. `quiet=False` shows a
    progress bar on a terminal. What the run leaves unfinished, or a
    setting that works against the scheme, is a `dcsim.DcsimWarning`.
    `run_all` also returns the sampler's tables."""
    return run_all(spec, quiet=quiet).flows


def run_all(spec: Spec | dict | str | Path, *, quiet: bool = True) -> Run:
    """Run a spec (as `run` takes it); return its flows, the sampler's
    tables and the summary."""
    spec = as_spec(spec)
    for w in caveats(spec):
        warn(w)
    sim = build(spec)
    t0 = time.perf_counter()
    samples: dict[str, list[Columns]] = {name: [] for name in SAMPLE_TABLES}
    sampling = spec.run.sample_us is not None
    label = labeller(spec)
    parts = [label(p) for p in _batches(sim, quiet, (lambda name, rows: samples[name].append(rows))
                                        if sampling else None)]
    wall = time.perf_counter() - t0
    table = _concat(parts) if parts else _no_flows(label)
    summary = _summary(spec, sim, wall, table)
    df = _frame(table)
    df.attrs["summary"] = Summary(summary)
    _warn_unfinished(summary, "the returned table")
    tables = {name: _frame(_concat(v) if v else _empty(name)) for name, v in samples.items()}
    return Run(df, tables["queues"], tables["flow_samples"], summary, tables["buffers"])


def labeller(spec: Spec) -> Callable[[Columns], Columns]:
    """What the flow table makes of the engine's columns for this spec:
    with `workload.incasts`, an `incast` column (the flow's incast, -1 for a
    background flow); `fault_losses` (the flow's packets lost to faults)
    only in runs with faults or lossy links (docs/faults.md)."""
    from .spec.faults import lossy

    keep = (lambda table: table) if lossy(spec) else (lambda table: {k: v for k, v in table.items() if k != "fault_losses"})
    if spec.workload.incasts is None:
        return keep
    from .spec.experiment import incast_ids

    ids = incast_ids(spec)
    return lambda table: {**keep(table), "incast": ids[table["flow_id"]].astype(np.int32)}


_ENGINE_COLS = ["flow_id", "src", "dst", "size_bytes", "start_ps", "finish_ps", "ideal_ps", "retransmits", "timeouts",
                "deadline_ps", "fault_losses"]


def run_to_dir(spec: Spec | dict | str | Path, out: Path, *, quiet: bool = False, force: bool = False,
               on_summary: Optional[Callable[[dict], None]] = None,
               overrides: Optional[dict] = None,
               on_progress: Optional[Callable[[float], None]] = None,
               warn_unfinished: bool = True) -> dict:
    """Run a spec and write ``out/flows.parquet`` and ``out/summary.json``.

    Output goes to a temporary directory beside ``out`` and is renamed into
    place only when complete, so ``out`` is never half-written. Flow records
    stream to Parquet as they finish. `overrides` (the command line's
    ``--set`` and friends) are recorded in the summary; `on_progress(share
    done)` is called as the run goes (a sweep's progress bar), the share
    being of the flows finished or, with a stop time, of the time simulated
    if that is more."""
    out = Path(out)
    spec = as_spec(spec)
    check_output_dir(out, force=force, replace=True)
    sim = build(spec)  # fails on bad input before anything is written
    with replacing(out) as tmp:
        stats = _Stats(spec)
        schema = _arrow(_no_flows(stats.label)).schema
        t0 = time.perf_counter()
        with pq.ParquetWriter(tmp / "flows.parquet", schema) as writer, _SampleWriters(tmp, spec) as sw:
            for batch in _batches(sim, quiet, sw.write if sw.tables else None, _share(spec, on_progress)):
                writer.write_table(_arrow(stats.add(stats.label(batch)), schema))
        summary = _summary(spec, sim, time.perf_counter() - t0, stats.table(), overrides)
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if warn_unfinished:
        _warn_unfinished(summary, "flows.parquet")
    if on_summary:
        on_summary(summary)
    return summary


def _share(spec: Spec, report: Optional[Callable[[float], None]]) -> Optional[Callable[[int, int, float], None]]:
    """`report` told the share of a run done: of its flows finished, or of
    its stop time simulated if that is more (a stopped run never finishes
    every flow)."""
    if report is None:
        return None
    stop = spec.run.stop_time_s

    def tell(done: int, total: int, sim_s: float) -> None:
        share = done / total if total > 0 else 0.0
        if stop:
            share = max(share, sim_s / stop)
        report(min(share, 1.0))

    return tell


class _SampleWriters:
    """Streams the sampler's tables to DIR/queues.parquet,
    DIR/flow_samples.parquet and DIR/buffers.parquet: those the spec asks
    for (`sampled_tables`), each written even if no sample came, so a
    file is there exactly when its samples were taken."""

    def __init__(self, tmp: Path, spec: Spec):
        self.tables = sampled_tables(spec)
        self.tmp = tmp
        self.writers: dict[str, pq.ParquetWriter] = {}

    def __enter__(self):
        return self

    def write(self, name: str, rows: Columns) -> None:
        table = _arrow(rows)
        if name not in self.writers:
            self.writers[name] = pq.ParquetWriter(self.tmp / f"{name}.parquet", table.schema)
        self.writers[name].write_table(table)

    def __exit__(self, *exc):
        for w in self.writers.values():
            w.close()
        if exc[0] is None:
            for name in self.tables:
                if name not in self.writers:
                    pq.write_table(_arrow(_empty(name)), self.tmp / f"{name}.parquet")
        return False


def _sampled(spec: Spec) -> dict:
    from ._core import sample_flows

    try:
        return sample_flows(engine_config_json(spec))
    except ValueError as e:
        raise SpecError(str(e)) from None


def generated_flows(spec: Spec | dict | str | Path) -> pd.DataFrame:
    """The flows a spec's workload would start (no simulation): start_s,
    src, dst, size_bytes."""
    import pandas as pd

    cols = _sampled(as_spec(spec))
    return pd.DataFrame(
        {
            "start_s": np.asarray(cols["start_ps"], dtype=np.int64) * PS,
            "src": np.asarray(cols["src"], dtype=np.int32),
            "dst": np.asarray(cols["dst"], dtype=np.int32),
            "size_bytes": np.asarray(cols["size_bytes"], dtype=np.int64),
        }
    )


def deadlines_for(spec: Spec, flows: pd.DataFrame) -> np.ndarray:
    """The `deadline_s` column that `flows` (a run's flow table) would have
    under `spec`'s deadlines, computed as the engine does
    (`Simulation::absolute_deadline`: the draw after the start, no sooner
    than `deadline_min_factor` ideal FCTs). Deadlines come from a random
    stream of their own, so the flows are the same at every deadline mean:
    a scheme that never reads deadlines can run once and be measured against
    each mean (the deadline figures do)."""
    cols = _sampled(spec)
    draw = np.asarray(cols["deadline_draw_ps"], dtype=np.int64)
    start = np.asarray(cols["start_ps"], dtype=np.int64)
    ids = flows.flow_id.to_numpy()
    in_range = not len(ids) or (ids.min() >= 0 and ids.max() < len(draw))
    if not in_range or not np.array_equal(start[ids] * PS, flows.start_s.to_numpy()):
        raise SpecError(f"deadlines_for: the flow table ({len(flows)} flows) is not from the spec's workload")
    draw, start = draw[ids], start[ids]
    ideal = np.rint(flows.ideal_fct_s.to_numpy() / PS).astype(np.int64)
    floor = np.ceil(ideal.astype(np.float64) * spec.workload.deadline_min_factor).astype(np.int64)
    return np.where(draw >= 0, (start + np.maximum(draw, floor)) * PS, np.nan)
