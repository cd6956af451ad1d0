"""dcsim at datacenter scale (`make bench-scale`): does a packet-hop cost
the same on a 6,144-host fabric with thousands of flows in flight as on
pFabric's 144 hosts?

Every point runs TCP with ECMP at load 0.5, in a fresh process (so its
peak memory is its own), flow records drained and dropped as it goes:

- the reference: 144 hosts (9 leaves x 16, 4 spines at 40 Gb/s), web
  search sizes, 10,000 flows;
- 6,144 hosts (384 leaves x 16, 4 spines), web search, 30,000 and
  100,000 flows;
- Parsimon's cluster (`topology.kind = "clos"`: 8 pods x 48 racks x 16
  hosts, 10 / 40 Gb/s, 1 us links), Facebook Hadoop sizes, 30,000 flows.

It prints wall time, packet-hops and their rate, the most flows active at
once and peak memory, then the targets of the scale issue: the 30,000-flow
point at >= 0.6x the reference's packet-hops/s, the 100,000-flow point in
<= 100 s and <= 1 GB. `--sweep` adds the 6,144-host fabric at 1,000 to
100,000 flows and `--plot FILE` draws packet-hops/s against flows in flight.

    python -m dcsim.bench_scale                   # the four points (~15 min)
    python -m dcsim.bench_scale --quick           # a tenth of the flows
    python -m dcsim.bench_scale --sweep --plot scale.png --json scale.json
"""

from __future__ import annotations

import json
import subprocess
import sys

#: 6,144 hosts as a leaf-spine: pFabric's leaves and spines, 384 leaves
BIG = {"kind": "leaf_spine", "leaves": 384, "hosts_per_leaf": 16, "spines": 4}
REFERENCE = {"kind": "leaf_spine"}
PARSIMON = {"kind": "clos"}

#: (label, topology, flow sizes, flows)
POINTS = [
    ("144 hosts, web search", REFERENCE, "web_search", 10_000),
    ("6,144 hosts, web search", BIG, "web_search", 30_000),
    ("6,144 hosts, web search", BIG, "web_search", 100_000),
    ("Parsimon's cluster, FB Hadoop", PARSIMON, "fb_hadoop", 30_000),
]
SWEEP = [1_000, 3_000, 10_000, 30_000, 100_000]

#: the scale issue's targets
RATIO_TARGET, WALL_TARGET_S, MEMORY_TARGET_MIB = 0.6, 100.0, 1024.0


def spec(topology: dict, cdf: str, flows: int, load: float = 0.5, seed: int = 1):
    from .spec import Spec

    return Spec.model_validate({
        "name": "bench-scale", "seed": seed, "topology": topology, "routing": {"load_balancing": "ecmp"},
        "scheme": {"name": "tcp"}, "workload": {"cdf": cdf, "load": load, "flows": flows},
    })


def run_point(topology: dict, cdf: str, flows: int) -> dict:
    """One point, in a fresh interpreter."""
    code = ("import json; from dcsim.bench import measure_spec; from dcsim.bench_scale import spec; "
            f"print(json.dumps(measure_spec(spec({topology!r}, {cdf!r}, {flows}))))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def hosts(topology: dict) -> int:
    from .spec.experiment import spec_from_dict

    return spec_from_dict({"topology": topology}).topology.host_count()


def line(label: str, flows: int, r: dict) -> str:
    return (f"  {label:<30} {flows:>8,} flows  {r['wall_s']:8.1f} s  {r['packet_hops'] / 1e6:9.1f} M hops  "
            f"{r['packet_hops_per_s'] / 1e6:6.2f} M/s  {r['max_active_flows']:>6,} active  "
            f"{r['peak_rss_mib']:6.0f} MiB")


def plot(results: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dcsim.figures.core import plain_log_ticks

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for label in dict.fromkeys(r["label"] for r in results):
        pts = sorted((r["max_active_flows"], r["packet_hops_per_s"] / 1e6) for r in results if r["label"] == label)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label)
    ax.set_xscale("log")
    plain_log_ticks(ax.xaxis)
    ax.set_xlabel("flows active at peak")
    ax.set_ylabel("packet-hops per second (M), one core")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title("Cost per packet-hop as flows in flight grow (TCP, ECMP, load 0.5)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def run_points(todo: list[tuple]) -> list[dict]:
    """Measure each (label, topology, cdf, flows), printing a line each."""
    results = []
    for label, topo, cdf, flows in todo:
        r = run_point(topo, cdf, flows)
        r.update(label=label, flows=flows, hosts=hosts(topo))
        results.append(r)
        print(line(label, flows, r), flush=True)
    return results


def targets(ref: dict, big30: dict, big100: dict) -> list[str]:
    """The scale issue's targets against the measured points."""
    ratio = big30["packet_hops_per_s"] / ref["packet_hops_per_s"]
    fits = big100["wall_s"] <= WALL_TARGET_S and big100["peak_rss_mib"] <= MEMORY_TARGET_MIB
    return [
        f"{big30['hosts']:,} hosts at {big30['flows']:,} flows / {ref['hosts']:,} hosts at {ref['flows']:,}: "
        f"{ratio:.2f}x the packet-hops/s (target >= {RATIO_TARGET}x): {'met' if ratio >= RATIO_TARGET else 'NOT met'}",
        f"{big100['hosts']:,} hosts at {big100['flows']:,} flows: {big100['wall_s']:.0f} s (target <= "
        f"{WALL_TARGET_S:.0f} s), {big100['peak_rss_mib']:.0f} MiB (target <= {MEMORY_TARGET_MIB:.0f}): "
        f"{'met' if fits else 'NOT met'}",
    ]


def main(argv: list[str] | None = None) -> list[dict]:
    import argparse

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a tenth of the flows (a check, not the targets)")
    p.add_argument("--sweep", action="store_true", help="also the 6,144-host fabric at 1,000 to 100,000 flows")
    p.add_argument("--plot", metavar="FILE", help="draw packet-hops/s against flows in flight")
    p.add_argument("--json", metavar="FILE", help="write every point's measurements")
    a = p.parse_args(argv)
    scale = 10 if a.quick else 1
    todo = [(label, topo, cdf, flows // scale) for label, topo, cdf, flows in POINTS]
    if a.sweep:
        todo += [("6,144 hosts, web search", BIG, "web_search", n // scale) for n in SWEEP
                 if n not in {f for lb, t, _, f in POINTS if t is BIG}]
    print("dcsim at scale: TCP, ECMP, load 0.5, one core; each point in a fresh process")
    results = run_points(todo)
    print("targets" + (" (quick mode: a tenth of the flows, not the targets' points)" if a.quick else "") + ":")
    for t in targets(results[0], results[1], results[2]):
        print("  " + t)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if a.plot:
        plot(results, a.plot)
        print(f"plot: {a.plot}")
    return results


if __name__ == "__main__":
    main()
