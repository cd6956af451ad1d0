"""Random specs, as a user's mistakes would make them, and what dcsim does
with each (issue 52: no input that crashes, no number that lies).

Each case is a small valid spec (a random scheme, topology and workload,
a few dozen flows) with zero to three fields changed to a value at or
just past its bounds, or of the wrong kind (infinity, NaN, a string for
a number, a number for a switch). A case must end in one of two ways:

- **ran**: packets and bytes are conserved, every finished flow's FCT is
  finite and no less than its paths allow (`summary["fct_bound_holds"]`),
  and its slowdown is at least 1 unless the run flags it (sprayed packets
  can beat the one-path ideal: docs/design.md, "Normalized FCT");
- **refused**: a `SpecError` (the command line's exit status 2) whose
  message is one line and names no internals of the validation library;
- **skipped**: valid, but estimated (`dcsim.cost`) to take longer than the
  case's time limit at the slowest schemes' rate: not run (past an hour
  `dcsim run` warns first).

Anything else is a failure: another exception (a traceback, an engine
panic), a run that takes longer than the time limit (a hang), or a run
whose numbers break an invariant. Cases are drawn from `--seed` alone,
one stream per case, so the same seed gives the same cases whatever
`--jobs` is.

    python -m dcsim.fuzz [--cases 300] [--seed 1] [--jobs N] [--timeout 60] [--keep DIR]

`--keep DIR` writes each failing case's spec (JSON) there, to be kept as
a regression test (tests/fuzz_cases/: the specs themselves, since a case
number draws another spec once a field's bounds change). Exit status 0 when every case
ran or was refused cleanly, 1 otherwise."""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import random
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Literal, Optional, Union, get_args, get_origin

#: words from inside the validation library that a user should never see
INTERNALS = ("function-after", "function-before", "function-wrap", "tagged-union", "json-or-python",
             "lax-or-strict", "line 1 column", "union[", "list[", "literal[", "[key]", "Traceback", "pydantic")

#: the shipped workloads a base spec draws its sizes from
CDFS = ("web_search", "data_mining", "fb_hadoop", "google_rpc")


@dataclass
class Outcome:
    case: int
    kind: str  # ran, refused, crash, hang, broken
    detail: str
    spec: dict
    changed: list

    @property
    def failed(self) -> bool:
        return self.kind not in ("ran", "refused", "skipped")


# ---- drawing cases ----------------------------------------------------------

def _topology(rng: random.Random) -> dict:
    kind = rng.choice(["star", "leaf_spine", "oversubscribed_leaf_spine", "fat_tree", "clos"])
    if kind == "star":
        return {"kind": kind, "hosts": rng.randint(2, 16)}
    if kind == "leaf_spine":
        return {"kind": kind, "leaves": rng.randint(1, 4), "spines": rng.randint(1, 4),
                "hosts_per_leaf": rng.randint(2, 8)}
    if kind == "oversubscribed_leaf_spine":
        return {"kind": kind, "leaves": rng.randint(2, 3), "spines": rng.randint(1, 2),
                "hosts_per_leaf": rng.randint(4, 8)}
    if kind == "fat_tree":
        return {"kind": kind, "k": 4}
    return {"kind": kind, "pods": 2, "racks_per_pod": 2, "hosts_per_rack": rng.randint(2, 4), "aggs_per_pod": 2}


def base_spec(rng: random.Random) -> dict:
    """A small valid spec: a random scheme on a random small fabric, a few
    dozen flows of a shipped workload."""
    from .spec.schemes import SCHEMES

    spec = {"seed": rng.randint(0, 1000), "topology": _topology(rng), "scheme": {"name": rng.choice(sorted(SCHEMES))},
            "workload": {"cdf": rng.choice(CDFS), "load": rng.choice([0.1, 0.3, 0.6, 0.9]), "flows": rng.randint(1, 40)}}
    if rng.random() < 0.25:
        spec["faults"] = [_fault(rng)]
    return spec


def _fault(rng: random.Random) -> dict:
    """A fault in the first milliseconds (docs/faults.md): a link, a switch
    or a selection, down or degraded, repaired or not."""
    target = rng.choice([{"select": rng.choice(["spine 0", "leaf 0 uplinks", "random leaf uplink", "random spine",
                                                 "core 0", "leaf 1 downlink"])},
                         {"switch": rng.randint(0, 200)}, {"link": [rng.randint(0, 200), rng.randint(0, 200)]}])
    fault = {"at_ms": rng.choice([0.0, 0.01, 0.1, 1.0]), **target, "detect_us": rng.choice([0.0, 10.0, 1000.0])}
    if rng.random() < 0.5:
        fault["until_ms"] = fault["at_ms"] + rng.choice([0.05, 0.5, 2.0])
    if rng.random() < 0.4:
        fault.update(kind="degrade", rate_fraction=rng.choice([0.1, 0.5, 1.0]), loss=rng.choice([0.0, 0.01, 0.5]))
    return fault


def _constraints(info) -> dict:
    out = {}
    for m in info.metadata:
        for bound in ("ge", "gt", "le", "lt"):
            if getattr(m, bound, None) is not None:
                out[bound] = getattr(m, bound)
    return out


def _plain(annotation) -> tuple[Any, bool]:
    """(the type inside Optional[...], whether None is allowed)."""
    if get_origin(annotation) is Union:
        args = [a for a in get_args(annotation) if a is not type(None)]
        return (args[0] if len(args) == 1 else annotation), len(args) < len(get_args(annotation))
    return annotation, False


def candidates(info) -> list:
    """Values to try in a field: at and just past its bounds, and of the
    wrong kind."""
    kind, optional = _plain(info.annotation)
    wrong = [math.inf, -math.inf, math.nan, "12", "yes", "", [], {"a": 1}]
    out: list = [None] if optional else []
    if get_origin(kind) is Literal:
        return out + list(get_args(kind)) + ["bogus", 1, True]
    if kind is bool:
        return out + [True, False, 1, 0, "yes", "true", 2.5]
    if kind in (int, float):
        c = _constraints(info)
        step = 1 if kind is int else 1e-9
        near = []
        for bound, v in c.items():
            near += [v, v - step, v + step] if bound in ("ge", "le") else [v, v + step if bound == "gt" else v - step]
        sizes = [0, 1, -1, 2**31, 2**32 + 7, 2**53, 1e19, 1e-12]
        return out + near + sizes + (wrong if kind is float else [*wrong, 2.5, True])
    if kind is str:
        return out + ["", "bogus", "../../etc/passwd", 12, True]
    return out + [1, "bogus", True]


def _fields(spec: dict) -> list[tuple[str, Any]]:
    """(dotted name, FieldInfo) of every plain field the spec's sections
    have, its scheme's and topology's own."""
    from .spec.buffer import SwitchBuffer
    from .spec.packets import Packets
    from .spec.schemes import SCHEMES
    from .spec.topology import TOPOLOGIES, Routing
    from .spec.workload import RunOptions, Workload

    models = {"scheme": SCHEMES[spec["scheme"]["name"]], "topology": TOPOLOGIES[spec["topology"]["kind"]],
              "workload": Workload, "run": RunOptions, "buffer": SwitchBuffer, "routing": Routing,
              "packets": Packets}
    out = []
    for section, model in models.items():
        for name, info in model.model_fields.items():
            kind, _ = _plain(info.annotation)
            if name in ("name", "kind") or hasattr(kind, "model_fields"):
                continue
            if name in ("trace", "path", "cdf", "reverse_cdf", "report_links"):  # files: their own cases
                continue
            out.append((f"{section}.{name}", info))
    if spec.get("faults"):
        from .spec.faults import Fault

        out += [(f"faults.{name}", info) for name, info in Fault.model_fields.items() if name != "link"]
    return out


def draw_case(seed: int, case: int) -> tuple[dict, list]:
    """The case's spec and the fields changed from its valid base."""
    rng = random.Random(f"{seed}:{case}")
    spec = base_spec(rng)
    changed = []
    fields = _fields(spec)
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        name, info = rng.choice(fields)
        value = rng.choice(candidates(info))
        section, field = name.split(".")
        if section == "faults":
            spec["faults"][0][field] = value
        else:
            spec.setdefault(section, {})[field] = value
        changed.append((name, value))
    return spec, changed


# ---- running a case -----------------------------------------------------------

def _limit_memory(gib: float) -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (int(gib * 2**30), int(gib * 2**30)))
    except (ImportError, ValueError, OSError):
        pass


def check_case(spec: dict, budget_s: float = math.inf, memory_bytes: float = math.inf) -> tuple[str, str]:
    """Run one spec in this process, unless its estimated cost is over
    `budget_s` or its queue samples would take half of `memory_bytes`:
    (kind, detail)."""
    import warnings

    from .cost import SAMPLE_BYTES, arrival_span_s, estimate, sample_rows
    from .errors import SpecError
    from .simulate import run_all
    from .spec import engine_config, spec_from_dict
    from .spec.experiment import caveats

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = spec_from_dict(spec)
            tables = s.scheme.state_bytes(s)
            if tables > memory_bytes / 2:
                # refused past the machine's memory; past the worker's, not built
                return "skipped", f"{tables / 1e9:,.1f} GB of the scheme's tables"
            caveats(s)
            cost = estimate(s)
            if cost.seconds > budget_s:
                return "skipped", cost.describe()
            samples = sample_rows(s, arrival_span_s(engine_config(s)["workload"])) * SAMPLE_BYTES
            if samples > memory_bytes / 2:
                # refused past the machine's memory; past the worker's, not run
                return "skipped", f"at least {samples / 1e9:,.1f} GB of queue samples"
            run = run_all(s)
    except SpecError as e:
        msg = str(e)
        if "\n" in msg.strip() or any(w in msg for w in INTERNALS):
            return "broken", f"unclear refusal: {msg!r}"
        return "refused", msg
    except MemoryError:
        return "crash", "MemoryError"
    except BaseException as e:  # an engine panic is a BaseException
        if isinstance(e, KeyboardInterrupt):
            raise
        return "crash", f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    summary, flows = run.summary, run.flows
    if not summary.get("conservation_holds", False):
        return "broken", f"conservation does not hold: {summary.get('conservation')}"
    done = flows[flows.fct_s.notna()]
    if len(done) and not done.fct_s.map(math.isfinite).all():
        return "broken", "a finished flow's FCT is not finite"
    if not summary["fct_bound_holds"]:
        return "broken", "a flow finished faster than its paths allow"
    low = done[done.slowdown < 1 - 1e-9]
    if len(low) and not summary.get("below_ideal"):
        return "broken", f"slowdown below 1, not flagged: {low.slowdown.min():.4f} ({len(low)} flows)"
    return "ran", f"{len(done)}/{len(flows)} flows finished"


def _worker(args):
    spec, gib, budget = args
    _limit_memory(gib)
    return check_case(spec, budget, gib * 2**30)


def run_cases(seed: int, cases: Iterable[int], jobs: int = 1, timeout: float = 60.0, memory_gib: float = 4.0):
    """Yield each case's Outcome (in case order). Each case runs in a worker
    process of the pool; one that exceeds `timeout` is a hang and the pool
    is replaced. A case estimated to need more than a third of `timeout`
    at the slowest schemes' rate is skipped (the estimate is an upper one:
    such a run is expected to finish in time)."""
    yield from run_specs({i: draw_case(seed, i) for i in cases}, jobs, timeout, memory_gib)


def run_specs(drawn: dict, jobs: int = 1, timeout: float = 60.0, memory_gib: float = 4.0):
    """`run_cases` for given specs: `drawn` maps a case number to its
    (spec, changed fields); Outcomes in the dict's order."""
    ctx = mp.get_context("spawn")
    pool = ctx.Pool(jobs, maxtasksperchild=20)
    cases = list(drawn)
    pending = {i: pool.apply_async(_worker, ((drawn[i][0], memory_gib, timeout / 3),)) for i in cases}
    try:
        for k, i in enumerate(cases):
            spec, changed = drawn[i]
            try:
                kind, detail = pending[i].get(timeout)
            except mp.TimeoutError:
                kind, detail = "hang", f"no result in {timeout:.0f} s"
                pool.terminate()
                pool = ctx.Pool(jobs, maxtasksperchild=20)
                pending.update({j: pool.apply_async(_worker, ((drawn[j][0], memory_gib, timeout / 3),))
                                for j in cases[k + 1:]})
            yield Outcome(i, kind, detail, spec, changed)
    finally:
        pool.terminate()


def _json(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dcsim.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--first", type=int, default=0, help="the first case's number")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a case may take")
    ap.add_argument("--keep", type=Path, help="write each failing case's spec here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    a = ap.parse_args(argv)
    import os

    jobs = a.jobs or os.cpu_count() or 1
    counts: dict[str, int] = {}
    failures = []
    for o in run_cases(a.seed, range(a.first, a.first + a.cases), jobs, a.timeout):
        counts[o.kind] = counts.get(o.kind, 0) + 1
        if o.failed or a.verbose:
            print(f"case {o.case}: {o.kind}: {o.detail}; changed {o.changed}", flush=True)
        if o.failed:
            failures.append(o)
            if a.keep:
                a.keep.mkdir(parents=True, exist_ok=True)
                (a.keep / f"seed{a.seed}-case{o.case}.json").write_text(json.dumps(
                    {"kind": o.kind, "detail": o.detail, "spec": o.spec}, default=_json, indent=1) + "\n")
    print(", ".join(f"{k} {n}" for k, n in sorted(counts.items())), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
