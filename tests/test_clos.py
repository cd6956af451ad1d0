"""Three-tier Clos fabrics (`topology.kind = "clos"`, `dcsim.clos`): node,
link and path counts, and flows spread over every equal-cost path."""

from collections import deque

import pytest

from dcsim.errors import SpecError
from dcsim.simulate import run_all
from dcsim.spec import Spec, spec_from_dict
from dcsim.spec.topology import ClosTopology

#: a small Clos: 3 pods x 2 racks x 2 hosts, 2 aggregation switches per
#: pod (so 2 planes) of 3 cores each
SMALL = {"kind": "clos", "pods": 3, "racks_per_pod": 2, "hosts_per_rack": 2, "aggs_per_pod": 2,
         "cores_per_plane": 3}


def shortest_paths(fabric, a, b):
    """The number of shortest paths from host `a` to host `b` (hosts are
    not transit), counted by breadth-first search."""
    adj = {}
    for x, y, *_ in fabric.links:
        adj.setdefault(x, []).append(y)
        adj.setdefault(y, []).append(x)
    dist, count, queue = {a: 0}, {a: 1}, deque([a])
    while queue:
        u = queue.popleft()
        if u != a and u < fabric.hosts:
            continue
        for v in adj[u]:
            if v not in dist:
                dist[v], count[v] = dist[u] + 1, 0
                queue.append(v)
            if dist[v] == dist[u] + 1:
                count[v] += count[u]
    return count[b]


def test_parsimons_cluster():
    topo = ClosTopology()
    f = topo.fabric()
    # 8 pods x 48 racks x 16 hosts; 384 ToRs, 32 aggregation switches, 4
    # planes of 48 cores
    assert (f.hosts, f.switches) == (6144, 384 + 32 + 192)
    assert len(f.links) == 6144 + 384 * 4 + 32 * 48
    rates = sorted({r for *_, r, _ in f.links})
    assert rates == [10_000_000_000, 40_000_000_000]
    assert {d for *_, d in f.links} == {1_000_000}
    # 1:1 at the ToR (16 x 10 = 4 x 40) and at the aggregation layer
    # (48 x 40 down, 48 x 40 up)
    assert topo.core_capacity_bps() == 384 * 4 * 40_000_000_000 == 6144 * 10_000_000_000
    # 2:1 as Parsimon's cluster_b_2_to_1: 24 cores per plane
    assert ClosTopology(oversubscription=2).cores() == 24
    assert ClosTopology(oversubscription=2).fabric().switches == 384 + 32 + 96


def test_the_hpcc_simulators_fat_tree():
    # mix/fat.txt: 320 servers, 56 switches, 480 links; 100 Gb/s servers,
    # 400 Gb/s between switches, 1 us every link
    topo = ClosTopology(pods=5, racks_per_pod=4, cores_per_plane=4, host_rate_gbps=100, tor_rate_gbps=400,
                        core_rate_gbps=400)
    f = topo.fabric()
    assert (f.hosts, f.switches, len(f.links)) == (320, 56, 480)
    # every switch has 8 links (ToR: 16 hosts + 4 up; aggregation: 4 down,
    # 4 up; core: one per pod)
    degree = {}
    for a, b, *_ in f.links:
        for n in (a, b):
            degree[n] = degree.get(n, 0) + 1
    tors, aggs, cores = range(320, 340), range(340, 360), range(360, 376)
    assert {degree[t] for t in tors} == {20} and {degree[a] for a in aggs} == {8} and {degree[c] for c in cores} == {5}


@pytest.mark.parametrize("a, b, paths", [(0, 1, 1), (0, 2, 2), (0, 5, 2 * 3), (3, 11, 2 * 3)])
def test_equal_cost_paths(a, b, paths):
    # same rack: 1; same pod: one per aggregation switch; across pods:
    # one per (plane, core)
    assert shortest_paths(ClosTopology(**SMALL).fabric(), a, b) == paths


def test_flows_spread_over_every_path(write_trace):
    # 64 flows from host 0 (pod 0) to host 11 (pod 2): hashed (ECMP) or
    # sprayed, the data leaves pod 0's two aggregation switches and the
    # ACKs pod 2's over all 3 cores of each one's plane; pod 1 sends
    # nothing up
    import json

    from dcsim._core import Sim
    from dcsim.spec import engine_config_json

    rows = [(i * 1e-6, 0, 11, 20_000) for i in range(64)]
    aggs, cores = range(18, 24), range(24, 30)
    for lb in ("ecmp", "spray"):
        spec = Spec.model_validate({"topology": SMALL, "routing": {"load_balancing": lb}, "scheme": {"name": "tcp"},
                                    "workload": {"matrix": "trace", "trace": write_trace(rows)}})
        sim = Sim(engine_config_json(spec))
        while sim.run(1 << 20) == "running":
            pass
        s = json.loads(sim.summary_json())
        assert s["counters"]["flows_finished"] == 64
        up = {(p["node"], p["peer"]) for p in s["ports"] if p["node"] in aggs and p["peer"] in cores and p["tx_pkts"]}
        plane = {0: cores[:3], 1: cores[3:]}
        assert up == {(a, c) for a in (18, 19, 22, 23) for c in plane[(a - 18) % 2]}, lb
        # links: 12 hosts, 6 ToRs x 2 aggregation switches, 6 of those x 3
        # cores; two ports each
        assert len(s["ports"]) == 2 * (12 + 12 + 18)


def test_bfcs_two_tier_clos(write_trace):
    # BFC §6.2.1: 8 ToRs x 16 hosts, 8 spines, 100 Gb/s, 1 us links: one
    # pod without cores; 128 hosts, 16 switches, 128 + 64 links, 8 paths
    # between racks
    bfc = {"kind": "clos", "pods": 1, "racks_per_pod": 8, "hosts_per_rack": 16, "aggs_per_pod": 8,
           "cores_per_plane": 0, "host_rate_gbps": 100, "tor_rate_gbps": 100}
    f = ClosTopology(**bfc).fabric()
    assert (f.hosts, f.switches, len(f.links)) == (128, 16, 192)
    # the core's fields do not apply (its links' delay sets BFC's HRTT)
    assert ClosTopology(**bfc, core_link_delay_us=10).max_link_delay_us() == 1.0
    assert shortest_paths(f, 0, 1) == 1 and shortest_paths(f, 0, 16) == 8
    # the same fabric as leaf_spine builds it: the same flows, the same
    # results, packet for packet
    rows = [(i * 2e-6, (7 * i) % 128, (7 * i + 37) % 128, 50_000 + 1_000 * i) for i in range(40)]
    leaf_spine = {"kind": "leaf_spine", "leaves": 8, "spines": 8, "hosts_per_leaf": 16, "host_rate_gbps": 100,
                  "spine_rate_gbps": 100, "host_link_delay_us": 1, "spine_link_delay_us": 1}
    out = []
    for topo in (bfc, leaf_spine):
        spec = Spec.model_validate({"topology": topo, "routing": {"load_balancing": "ecmp"},
                                    "scheme": {"name": "dctcp"},
                                    "workload": {"matrix": "trace", "trace": write_trace(rows)}})
        r = run_all(spec)
        out.append((r.flows.sort_values("flow_id")[["flow_id", "fct_s"]].to_numpy().tolist(), r.summary["packet_hops"]))
    assert out[0] == out[1] and len(out[0][0]) == 40
    with pytest.raises(SpecError, match="leaves 2 pods unconnected"):
        spec_from_dict({"topology": dict(bfc, pods=2)})


def test_bad_clos_specs():
    with pytest.raises(SpecError, match="cores_per_plane or oversubscription"):
        spec_from_dict({"topology": {"kind": "clos", "cores_per_plane": 24, "oversubscription": 2}})
    with pytest.raises(SpecError, match="needs 6.4 cores per plane"):
        spec_from_dict({"topology": {"kind": "clos", "racks_per_pod": 16, "oversubscription": 2.5}})
