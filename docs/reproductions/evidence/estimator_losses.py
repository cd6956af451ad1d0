"""Where the decomposed estimate's losses come from (docs/estimator.md,
"Where the estimate is off"): drops and timeouts of the exact run beside
those of every link's own simulation (no representatives), by tier of the
link, for one point of the accuracy grid.

    python docs/reproductions/evidence/estimator_losses.py [--topology leaf_spine] [--cdf web_search]
        [--scheme tcp] [--load 0.5] [--flows 20000]

Prints, per tier: the exact run's drops and ECN marks, and the links'
simulations'; then the flows that had a timeout in the exact run and in at least one
link's simulation, and the small flows' (<= 100 KB) share of them. About a
minute on the 144-host fabric at 20,000 flows; `--topology clos --flows
100000 --scheme dctcp` about 15 minutes (the exact run and every link)."""

from __future__ import annotations

import argparse
import json

import numpy as np

from dcsim._core import Sim, sample_flows
from dcsim.estimate import link_base, link_config
from dcsim.estimate.accuracy import FABRICS, point_spec
from dcsim.estimate.decompose import Decomposition
from dcsim.simulate import build
from dcsim.spec import engine_config, spec_from_dict

TIERS = {0: "host NIC", 1: "leaf/edge", 2: "spine/aggregation", 3: "core"}


def run(config: dict) -> tuple[dict, dict]:
    """The engine's summary and flow records of a run to its end."""
    sim = Sim(json.dumps(config))
    recs = []
    while sim.run(5_000_000) == "running":
        recs.append(sim.drain())
    recs.append(sim.drain())
    flows = {k: np.concatenate([np.asarray(r[k]) for r in recs]) for k in ("flow_id", "timeouts", "retransmits")}
    return json.loads(sim.summary_json()), flows


def channel_counts(ports: list[dict], topo: dict, first: bool, last: bool) -> tuple[int, int]:
    """Drops and marks at the channel's own port on its small fabric
    (`Decomposition.link_fabric`): from its one source into the switch (a
    NIC), from the switch into its one sink (the link into a host), or
    between its two switches; the sources' and sinks' own links are not
    the channel."""
    hosts = topo["hosts"]
    node, peer = (0, hosts) if first else (hosts, hosts - 1) if last else (hosts, hosts + 1)
    [p] = [p for p in ports if p["node"] == node and p["peer"] == peer]
    return p["drops"], p["marks"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topology", default="leaf_spine", choices=sorted(FABRICS))
    ap.add_argument("--cdf", default="web_search")
    ap.add_argument("--scheme", default="tcp")
    ap.add_argument("--load", type=float, default=0.5)
    ap.add_argument("--flows", type=int, default=20000)
    a = ap.parse_args(argv)
    spec = spec_from_dict(point_spec(a.topology, a.cdf, a.scheme, a.load, a.flows, 1))
    cfg = engine_config(spec)
    d = Decomposition.of(build(spec), sample_flows(json.dumps(cfg)), spec.topology.host_count())

    summary, exact = run(cfg)
    tier_of = {p["port"]: p["tier"] for p in summary["ports"]}
    exact_drops = {p["port"]: (p["drops"], p["marks"]) for p in summary["ports"]}
    timeouts_exact = np.zeros(len(d.flow_id), dtype=np.int64)
    timeouts_exact[exact["flow_id"]] = exact["timeouts"]

    base = link_base(cfg)
    link_drops: dict[int, tuple[int, int]] = {}
    timeouts_links = np.zeros(len(d.flow_id), dtype=np.int64)
    for c, idx in d.channels().items():
        if len(idx) < 2:
            continue
        fabric = d.link_fabric(c)
        topo = fabric[0]
        s, f = run(link_config(base, spec.seed, c, fabric))
        link_drops[c] = channel_counts(s["ports"], topo, bool(d.node[c] < d.hosts), bool(d.peer[c] < d.hosts))
        timeouts_links[idx[f["flow_id"]]] += f["timeouts"]

    print(f"{a.topology}, {a.cdf}, {a.scheme}, load {a.load}, {a.flows:,} flows")
    print("| link tier | drops, exact run | drops, links' simulations | marks, exact run | marks, links' simulations |")
    print("| --- | --- | --- | --- | --- |")
    for t, name in TIERS.items():
        ports = [p for p, k in tier_of.items() if k == t]
        if ports:
            cols = [sum(counts.get(p, (0, 0))[j] for p in ports) for j in (0, 1) for counts in (exact_drops, link_drops)]
            print(f"| {name} | " + " | ".join(f"{x:,}" for x in cols) + " |")
    small = d.size <= 100_000
    for name, t in (("exact run", timeouts_exact), ("links' simulations", timeouts_links)):
        print(f"{name}: {(t > 0).sum():,} flows with a timeout ({(t[small] > 0).sum():,} of them <= 100 KB), "
              f"{t.sum():,} timeouts")


if __name__ == "__main__":
    main()
