"""dcsim's own figure of a failure (docs/faults.md): on the default fabric
(pFabric's 144-host leaf-spine, web search at 50% load), spine 1 fails and
is repaired later; each flow's slowdown by when it started, small and large
flows apart, for TCP, DCTCP, pFabric and DCQCN (lossless, with PFC), with
ECMP and with per-packet spraying. Registered as `dcsim-faults`: `dcsim
reproduce dcsim-faults [--full]`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import SpecError
from .core import register
from .single import run_points, save

SCHEMES = {"tcp": ("TCP", {"name": "tcp"}), "dctcp": ("DCTCP", {"name": "dctcp"}),
           "pfabric": ("pFabric", {"name": "pfabric"}),
           # lossless: nothing is lost but on the failed links, and a
           # timeout recovers what is (the HPCC simulator has none)
           "dcqcn": ("DCQCN (PFC)", {"name": "dcqcn", "rto_us": 1000.0})}
ROUTINGS = {"ecmp": "ECMP", "spray": "per-packet spraying"}
SMALL, LARGE = 100e3, 1e6


@dataclass(frozen=True)
class Window:
    """A mode: how many flows, when the spine fails and is repaired (ms),
    and the width of the time bins (ms)."""

    flows: int
    fail_ms: float
    repair_ms: float
    bin_ms: float


@dataclass(frozen=True)
class FaultFigure:
    name: str
    title: str
    source: str
    description: str
    quick: Window
    full: Window
    detect_us: float = 1000.0
    notes: str = ""
    paper: tuple = ()

    def mode(self, mode: str) -> Window:
        if mode not in ("quick", "full"):
            raise SpecError(f"mode must be quick or full, got {mode!r}")
        return self.quick if mode == "quick" else self.full

    def sweep(self, mode: str):
        from ..sweep import Sweep

        w = self.mode(mode)
        base = {"name": self.name, "workload": {"cdf": "web_search", "load": 0.5, "flows": w.flows},
                "faults": [{"at_ms": w.fail_ms, "until_ms": w.repair_ms, "select": "spine 1",
                            "detect_us": self.detect_us}]}
        variants = {k: {"scheme": s} for k, (_, s) in SCHEMES.items()}
        return Sweep(name=f"{self.name}-{mode}", base=base,
                     grid={"variant": list(SCHEMES), "routing.load_balancing": list(ROUTINGS)}, variants=variants)

    def reproduce(self, out: Path, mode: str, redraw: bool = False, **run):
        import pandas as pd

        out = Path(out)
        result, points = run_points(self, out, mode, redraw, **run)
        runs = {(params["variant"], params["routing.load_balancing"]):
                (pd.read_parquet(d / "flows.parquet"), json.loads((d / "summary.json").read_text()))
                for params, d in points.values()}
        w = self.mode(mode)
        table = over_time(runs, w)
        stats = phase_stats(runs, w, self.detect_us)
        phases = pd.DataFrame([{"scheme": k.split("/")[0], "routing": k.split("/")[1], k.split("/")[2]: v}
                               for k, v in stats.items()]).groupby(["scheme", "routing"], sort=False).first()
        phases.to_csv(out / f"{self.name}-phases.csv")
        save(self, out, mode, stats, table, draw(table, w, self.detect_us), len(result.points) - len(result.failed),
             result.failed)
        return result, table


def over_time(runs: dict, w: Window):
    """Mean slowdown of the flows started in each time bin, by size (small
    up to 100 KB, large above 1 MB), per scheme and routing."""
    import numpy as np
    import pandas as pd

    rows = []
    for (scheme, lb), (f, _) in sorted(runs.items()):
        t = (f.start_s * 1e3 // w.bin_ms) * w.bin_ms
        for size, sel in (("small", f.size_bytes <= SMALL), ("large", f.size_bytes > LARGE)):
            g = f[sel].groupby(t[sel]).slowdown
            for start, mean in g.mean().items():
                rows.append({"scheme": scheme, "routing": lb, "size": size, "start_ms": float(start),
                             "mean_slowdown": float(mean), "flows": int(g.size()[start]),
                             "unfinished": int(f[sel & (t == start)].slowdown.isna().sum())})
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=["scheme", "routing", "size", "start_ms"])


def phase_stats(runs: dict, w: Window, detect_us: float) -> dict:
    """Per scheme and routing: the small flows' mean slowdown before the
    failure, from it to the repair, and after; packets lost to it; flows
    touched; flows unfinished."""
    stats = {}
    for (scheme, lb), (f, s) in sorted(runs.items()):
        small = f[f.size_bytes <= SMALL]
        t = small.start_s * 1e3
        key = f"{scheme}/{lb}"
        stats[f"{key}/small_before"] = float(small[t < w.fail_ms].slowdown.mean())
        stats[f"{key}/small_during"] = float(small[(t >= w.fail_ms) & (t < w.repair_ms)].slowdown.mean())
        stats[f"{key}/small_after"] = float(small[t >= w.repair_ms + detect_us / 1e3].slowdown.mean())
        faults = s.get("faults") or {}
        stats[f"{key}/lost_pkts"] = float(sum((faults.get("lost_pkts") or {}).values()))
        stats[f"{key}/flows_touched"] = float(faults.get("flows_touched", 0))
        stats[f"{key}/unfinished"] = float(s.get("unfinished_flows", 0))
    return stats


def draw(table, w: Window, detect_us: float):
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(2, 2, figsize=(10, 6.2), sharex=True, constrained_layout=True)
    colors = {s: c for s, c in zip(SCHEMES, ("#d62728", "#1f77b4", "#2ca02c", "#9467bd"))}
    for i, size in enumerate(("small", "large")):
        for j, lb in enumerate(ROUTINGS):
            ax = axes[i][j]
            ax.axvspan(w.fail_ms, w.repair_ms, color="0.9", zorder=0)
            for at in (w.fail_ms + detect_us / 1e3, w.repair_ms + detect_us / 1e3):
                ax.axvline(at, color="0.5", lw=0.8, ls=":")
            for scheme, (label, _) in SCHEMES.items():
                d = table[(table.scheme == scheme) & (table.routing == lb) & (table["size"] == size)]
                ax.plot(d.start_ms + w.bin_ms / 2, d.mean_slowdown, "-o", ms=2.5, lw=1.2, color=colors[scheme],
                        label=label)
            ax.set_yscale("log")
            ax.grid(alpha=0.3, which="both")
            what = "small flows (<= 100 KB)" if size == "small" else "large flows (> 1 MB)"
            ax.set_title(f"{ROUTINGS[lb]}: {what}", fontsize=10)
            if j == 0:
                ax.set_ylabel("mean slowdown")
            if i == 1:
                ax.set_xlabel("flow start (ms); grey: spine 1 down; dotted: routing learns")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(SCHEMES), fontsize=9, frameon=False)
    return figure


register(FaultFigure(
    name="dcsim-faults",
    title="A spine fails and is repaired: slowdown by flow start (pFabric's fabric, web search, 50% load)",
    source="dcsim (docs/faults.md); issue 52's figure",
    description="Spine 1 of the 144-host leaf-spine goes down, and comes back; routing learns of each after 1 ms. "
                "Each flow's slowdown, averaged over the flows started in each time bin, small and large flows "
                "apart, for TCP, DCTCP, pFabric and DCQCN over PFC (with a 1 ms timeout), with ECMP and spraying.",
    quick=Window(flows=2_500, fail_ms=15.0, repair_ms=30.0, bin_ms=2.5),
    full=Window(flows=10_000, fail_ms=60.0, repair_ms=120.0, bin_ms=5.0),
    notes="The slowdown's ideal is the fabric without the failure. Flows that lost packets to it: "
          "summary['faults']['flows_touched'] of each run.",
))
