"""Three-tier Clos fabrics: pods of racks, each rack a top-of-rack switch
(ToR) with its hosts; in every pod a layer of aggregation switches that
every ToR of the pod connects to; and core switches in planes, one plane
per aggregation switch of a pod: aggregation switch i of every pod connects
to every core switch of plane i.

That is the wiring of Meta's data center fabric (Andreyev, "Introducing
data center fabric", 2014: "fabric switches" and "spine planes"), which
Parsimon (NSDI'23) simulates at 8 pods x 48 racks x 16 hosts, and of the
k-ary fat-tree (k pods of k/2 aggregation switches, k/2 planes of k/2
cores). The HPCC simulator's default `mix/fat.txt` is the same shape: 5
pods x 4 racks x 16 hosts, 4 aggregation switches per pod, 4 planes of 4
cores (320 servers, 56 switches, 480 links). One pod without cores
(`cores_per_plane` 0) is a two-tier Clos, its aggregation switches the
spines: BFC's fabric (8 racks x 16 hosts, 8 spines).

The fabric is built as a graph (`Fabric`, as topology files are), numbered
as the engine expects: hosts 0.. rack by rack, then the ToRs, then the
aggregation switches pod by pod, then the cores plane by plane.
"""

from __future__ import annotations

from .topology_file import Fabric


def clos_fabric(pods: int, racks_per_pod: int, hosts_per_rack: int, aggs_per_pod: int, cores_per_plane: int,
                rates_bps: tuple[int, int, int], delays_ps: tuple[int, int, int]) -> Fabric:
    """The fabric; `rates_bps` and `delays_ps` are (host-ToR, ToR-aggregation,
    aggregation-core) links."""
    racks = pods * racks_per_pod
    hosts = racks * hosts_per_rack
    tor0 = hosts
    agg0 = tor0 + racks
    core0 = agg0 + pods * aggs_per_pod
    switches = racks + pods * aggs_per_pod + aggs_per_pod * cores_per_plane
    (host_rate, tor_rate, core_rate), (host_delay, tor_delay, core_delay) = rates_bps, delays_ps
    links = [(h, tor0 + h // hosts_per_rack, host_rate, host_delay) for h in range(hosts)]
    for rack in range(racks):
        pod = rack // racks_per_pod
        links += [(tor0 + rack, agg0 + pod * aggs_per_pod + a, tor_rate, tor_delay) for a in range(aggs_per_pod)]
    for pod in range(pods):
        for a in range(aggs_per_pod):
            links += [(agg0 + pod * aggs_per_pod + a, core0 + a * cores_per_plane + c, core_rate, core_delay)
                      for c in range(cores_per_plane)]
    return Fabric(hosts=hosts, switches=switches, links=links,
                  node_id={h: h for h in range(hosts + switches)})

