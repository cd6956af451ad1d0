"""Topologies (`[topology]`, chosen by `kind`)."""

from typing import Annotated, Literal, Optional, Union

from pydantic import Field, model_validator

from .base import Model, bps, field, ps

PFABRIC_51 = "pFabric §5.1 and its ns-2 scripts (docs/sources.md §1)"

#: the engine numbers hosts in 16 bits of a packet
MAX_HOSTS = 65535
#: what a link costs the engine, both ways (its two ports, their queues and
#: statistics): about 2 KB, measured building leaf-spines of 60,000 links
LINK_BYTES = 2048
#: what a packet costs the engine's pool (`Packet`: at most 48 bytes), and
#: the smallest packet the schemes send by default (a 40-byte ACK)
PACKET_BYTES = 48
SMALLEST_PACKET = 40


def _memory_bytes() -> int:
    import os

    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


class Fabric(Model):
    """What every generated topology checks: a size the engine can hold,
    refused before anything is built (issue 52: the fuzzer's 6.4 billion
    hosts ran the engine out of memory before its own check)."""

    @model_validator(mode="after")
    def _size(self):
        hosts = self.host_count()
        if hosts > MAX_HOSTS:
            raise ValueError(f"{hosts:,} hosts; at most {MAX_HOSTS:,} are supported")
        need, have = self.links() * LINK_BYTES, _memory_bytes()
        if need > have:
            raise ValueError(f"{self.links():,} links would need about {need / 1e9:,.1f} GB of memory (about "
                             f"{LINK_BYTES:,} B a link); this machine has {have / 1e9:,.1f} GB")
        # the packets its links can hold on the wire (rate x delay, both
        # ways): a sender without a window fills them (fuzz case 99: a
        # link delay of 10^6 s ran the packet pool out of memory)
        packets = self.wire_bits() / 8 / SMALLEST_PACKET
        need = packets * PACKET_BYTES
        if need > have:
            raise ValueError(f"its links hold up to {packets:,.3g} packets on the wire (rate x delay both ways, "
                             f"{SMALLEST_PACKET} B packets), about {need / 1e9:,.1f} GB of packet state; this "
                             f"machine has {have / 1e9:,.1f} GB")
        return self


class StarTopology(Fabric):
    """N hosts on one switch: one queue per host link, the simplest place to
    check a scheme against queueing theory or to run an incast."""

    kind: Literal["star"] = field("star", "the topology builder")
    hosts: int = field(16, "hosts on the switch", ge=2, le=65535)
    rate_gbps: float = field(10.0, "rate of every link, Gb/s", gt=0)
    link_delay_us: float = field(2.7, "one-way delay of every link, us (propagation plus host delay)",
                                 source=PFABRIC_51, ge=0)

    def engine(self) -> dict:
        return {"kind": "star", "hosts": self.hosts, "rate_bps": bps(self.rate_gbps), "delay_ps": ps(self.link_delay_us)}

    def host_count(self) -> int:
        return self.hosts

    def links(self) -> int:
        return self.hosts

    def wire_bits(self) -> float:
        return 2 * self.hosts * self.rate_gbps * 1e9 * self.link_delay_us * 1e-6

    def host_rate_bps(self) -> int:
        return bps(self.rate_gbps)

    def max_link_delay_us(self) -> float:
        return self.link_delay_us

    def core_capacity_bps(self) -> Optional[int]:
        return None


class LeafSpineTopology(Fabric):
    """Two-tier leaf-spine: every leaf connects to every spine. Defaults:
    pFabric §5.1 (9 leaves x 16 hosts at 10 Gb/s, 4 spines, 40 Gb/s
    uplinks). Host links carry 2.5 us of host delay on top of 0.2 us
    propagation, as the pFabric ns-2 setup does, which gives its ~14.6 us
    RTT across the spine and ~13.3 us under one leaf."""

    kind: Literal["leaf_spine"] = field("leaf_spine", "the topology builder")
    leaves: int = field(9, "leaf (top-of-rack) switches", source=PFABRIC_51, ge=1)
    spines: int = field(4, "spine switches; every leaf has one uplink to each", source=PFABRIC_51, ge=1)
    hosts_per_leaf: int = field(16, "hosts under each leaf", source=PFABRIC_51, ge=1)
    host_rate_gbps: float = field(10.0, "host link rate, Gb/s", source=PFABRIC_51, gt=0)
    spine_rate_gbps: float = field(40.0, "leaf-spine link rate, Gb/s", source=PFABRIC_51, gt=0)
    host_link_delay_us: float = field(2.7, "one-way delay of a host link, us: 0.2 propagation + 2.5 host delay",
                                      source=PFABRIC_51, ge=0)
    spine_link_delay_us: float = field(0.2, "one-way delay of a leaf-spine link, us", source=PFABRIC_51, ge=0)

    def spine_rate(self) -> float:
        return self.spine_rate_gbps

    def engine(self) -> dict:
        return {
            "kind": "leaf_spine",
            "leaves": self.leaves,
            "spines": self.spines,
            "hosts_per_leaf": self.hosts_per_leaf,
            "host_rate_bps": bps(self.host_rate_gbps),
            "spine_rate_bps": bps(self.spine_rate()),
            "host_delay_ps": ps(self.host_link_delay_us),
            "spine_delay_ps": ps(self.spine_link_delay_us),
        }

    def host_count(self) -> int:
        return self.leaves * self.hosts_per_leaf

    def links(self) -> int:
        return self.leaves * (self.hosts_per_leaf + self.spines)

    def wire_bits(self) -> float:
        return 2e3 * self.leaves * (self.hosts_per_leaf * self.host_rate_gbps * self.host_link_delay_us
                                    + self.spines * self.spine_rate() * self.spine_link_delay_us)

    def host_rate_bps(self) -> int:
        return bps(self.host_rate_gbps)

    def max_link_delay_us(self) -> float:
        return max(self.host_link_delay_us, self.spine_link_delay_us)

    def core_capacity_bps(self) -> Optional[int]:
        # BFC §6.2 load: a fraction of the leaves' aggregate uplink capacity.
        return self.leaves * self.spines * bps(self.spine_rate())


FIG20 = "pFabric §5.4.3, Fig. 20"


class OversubscribedLeafSpineTopology(LeafSpineTopology):
    """Leaf-spine whose uplinks carry 1/oversubscription of the host
    capacity. Defaults: pFabric §5.4.3 Fig. 20 (3 leaves x 48 hosts at
    10 Gb/s, 4 x 40 Gb/s uplinks = 3:1)."""

    kind: Literal["oversubscribed_leaf_spine"] = field("oversubscribed_leaf_spine", "the topology builder")  # type: ignore[assignment]
    leaves: int = field(3, "leaf (top-of-rack) switches", source=FIG20, ge=1)
    hosts_per_leaf: int = field(48, "hosts under each leaf", source=FIG20, ge=1)
    oversubscription: float = field(3.0, "host capacity of a leaf over its uplink capacity; sets the uplink rate",
                                    source=FIG20, ge=1.0)
    spine_rate_gbps: Optional[float] = field(  # type: ignore[assignment]
        None, "derived: hosts_per_leaf x host_rate_gbps / (spines x oversubscription); do not set", gt=0)

    @model_validator(mode="after")
    def _derived_rate(self):
        if self.spine_rate_gbps is not None:
            raise ValueError("spine_rate_gbps is derived from oversubscription; set oversubscription instead")
        return self

    def spine_rate(self) -> float:
        return self.hosts_per_leaf * self.host_rate_gbps / (self.spines * self.oversubscription)


class FatTreeTopology(Fabric):
    """k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge
    and k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts."""

    kind: Literal["fat_tree"] = field("fat_tree", "the topology builder")
    k: int = field(8, "switch radix (even): k^3/4 hosts", ge=2, le=40)
    host_rate_gbps: float = field(10.0, "host link rate, Gb/s", gt=0)
    fabric_rate_gbps: float = field(10.0, "rate of every switch-to-switch link, Gb/s", gt=0)
    host_link_delay_us: float = field(2.7, "one-way delay of a host link, us (propagation plus host delay)",
                                      source=PFABRIC_51, ge=0)
    fabric_link_delay_us: float = field(0.2, "one-way delay of a switch-to-switch link, us", source=PFABRIC_51, ge=0)

    @model_validator(mode="after")
    def _even(self):
        if self.k % 2:
            raise ValueError(f"k must be even, got {self.k}")
        return self

    def engine(self) -> dict:
        return {
            "kind": "fat_tree",
            "k": self.k,
            "host_rate_bps": bps(self.host_rate_gbps),
            "fabric_rate_bps": bps(self.fabric_rate_gbps),
            "host_delay_ps": ps(self.host_link_delay_us),
            "fabric_delay_ps": ps(self.fabric_link_delay_us),
        }

    def host_count(self) -> int:
        return self.k**3 // 4

    def links(self) -> int:
        return 3 * self.k**3 // 4  # hosts, edge-aggregation, aggregation-core

    def wire_bits(self) -> float:
        return 2e3 * self.k**3 / 4 * (self.host_rate_gbps * self.host_link_delay_us
                                      + 2 * self.fabric_rate_gbps * self.fabric_link_delay_us)

    def host_rate_bps(self) -> int:
        return bps(self.host_rate_gbps)

    def max_link_delay_us(self) -> float:
        return max(self.host_link_delay_us, self.fabric_link_delay_us)

    def core_capacity_bps(self) -> Optional[int]:
        # edge-switch uplinks: k pods x k/2 edges x k/2 uplinks
        return self.k * (self.k // 2) ** 2 * bps(self.fabric_rate_gbps)


PARSIMON = ("Parsimon (NSDI'23) §6, its cluster as parsimon-eval builds it (dhall/fb-fabric, "
            "workload/topologies/cluster_b.dhall)")


class ClosTopology(Fabric):
    """Three-tier Clos: pods of racks (a ToR and its hosts), a layer of
    aggregation switches per pod that every ToR of the pod connects to,
    and planes of core switches, one per aggregation switch of a pod
    (aggregation switch i of every pod connects to every core of plane i:
    Meta's fabric, and the k-ary fat-tree's wiring). Defaults: Parsimon's
    6,144-host cluster (8 pods x 48 racks x 16 hosts, 4 aggregation
    switches per pod, 4 planes of 48 cores; 10 Gb/s host links, 40 Gb/s
    fabric links, 1 us per link; 1:1). The HPCC simulator's `mix/fat.txt`:
    pods 5, racks_per_pod 4, cores_per_plane 4, host_rate_gbps 100,
    fabric rates 400. With one pod and cores_per_plane 0, a two-tier Clos
    whose aggregation switches are its spines: BFC's (§6.2.1): racks_per_pod
    8, hosts_per_rack 16, aggs_per_pod 8, every rate 100 Gb/s, as
    `leaf_spine` builds it."""

    kind: Literal["clos"] = field("clos", "the topology builder")
    pods: int = field(8, "pods", source=PARSIMON, ge=1)
    racks_per_pod: int = field(48, "racks (top-of-rack switches) per pod", source=PARSIMON, ge=1)
    hosts_per_rack: int = field(16, "hosts under each top-of-rack switch", source=PARSIMON, ge=1)
    aggs_per_pod: int = field(4, "aggregation switches per pod; also the number of core planes", source=PARSIMON,
                              ge=1)
    cores_per_plane: Optional[int] = field(
        None, "core switches per plane (default 48, Parsimon's 1:1 cluster; 24 is its 2:1 one); or set "
        "oversubscription instead; 0 with one pod: a two-tier Clos, the aggregation switches its spines "
        "(BFC's fabric: 1 pod x 8 racks x 16 hosts, 8 aggregation switches)", source=PARSIMON, ge=0)
    oversubscription: Optional[float] = field(
        None, "aggregation switches' downlink over uplink capacity; sets cores_per_plane (racks_per_pod x "
        "tor_rate_gbps / (oversubscription x core_rate_gbps), which must come out whole)", ge=1.0)
    host_rate_gbps: float = field(10.0, "host-ToR link rate, Gb/s", source=PARSIMON, gt=0)
    tor_rate_gbps: float = field(40.0, "ToR-aggregation link rate, Gb/s", source=PARSIMON, gt=0)
    core_rate_gbps: float = field(40.0, "aggregation-core link rate, Gb/s", source=PARSIMON, gt=0)
    host_link_delay_us: float = field(1.0, "one-way delay of a host link, us", source=PARSIMON, ge=0)
    tor_link_delay_us: float = field(1.0, "one-way delay of a ToR-aggregation link, us", source=PARSIMON, ge=0)
    core_link_delay_us: float = field(1.0, "one-way delay of an aggregation-core link, us", source=PARSIMON, ge=0)

    @model_validator(mode="after")
    def _cores(self):
        if self.cores_per_plane == 0 and self.pods > 1:
            raise ValueError(f"cores_per_plane = 0 (no core layer) leaves {self.pods} pods unconnected: "
                             "use one pod for a two-tier Clos")
        if self.oversubscription is None:
            return self
        if self.cores_per_plane is not None:
            raise ValueError("give cores_per_plane or oversubscription, not both")
        cores = self.racks_per_pod * self.tor_rate_gbps / (self.oversubscription * self.core_rate_gbps)
        if abs(cores - round(cores)) > 1e-9 or round(cores) < 1:
            raise ValueError(f"oversubscription {self.oversubscription} needs {cores:g} cores per plane; "
                             "choose one that gives a whole number")
        return self

    def planes(self) -> int:
        return self.aggs_per_pod

    def cores(self) -> int:
        """Core switches per plane."""
        if self.cores_per_plane is not None:
            return self.cores_per_plane
        if self.oversubscription is not None:
            return round(self.racks_per_pod * self.tor_rate_gbps / (self.oversubscription * self.core_rate_gbps))
        return 48

    def fabric(self):
        from ..clos import clos_fabric

        return clos_fabric(self.pods, self.racks_per_pod, self.hosts_per_rack, self.aggs_per_pod, self.cores(),
                           (bps(self.host_rate_gbps), bps(self.tor_rate_gbps), bps(self.core_rate_gbps)),
                           (ps(self.host_link_delay_us), ps(self.tor_link_delay_us), ps(self.core_link_delay_us)))

    def engine(self) -> dict:
        return self.fabric().engine()

    def host_count(self) -> int:
        return self.pods * self.racks_per_pod * self.hosts_per_rack

    def links(self) -> int:
        return self.pods * (self.racks_per_pod * (self.hosts_per_rack + self.aggs_per_pod)
                            + self.aggs_per_pod * self.cores())

    def wire_bits(self) -> float:
        racks = self.pods * self.racks_per_pod
        return 2e3 * (racks * self.hosts_per_rack * self.host_rate_gbps * self.host_link_delay_us
                      + racks * self.aggs_per_pod * self.tor_rate_gbps * self.tor_link_delay_us
                      + self.pods * self.aggs_per_pod * self.cores() * self.core_rate_gbps * self.core_link_delay_us)

    def host_rate_bps(self) -> int:
        return bps(self.host_rate_gbps)

    def max_link_delay_us(self) -> float:
        # (a two-tier Clos has no core links)
        core = (self.core_link_delay_us,) if self.cores() else ()
        return max(self.host_link_delay_us, self.tor_link_delay_us, *core)

    def core_capacity_bps(self) -> Optional[int]:
        # what the ToRs send up, as for the other fabrics
        return self.pods * self.racks_per_pod * self.aggs_per_pod * bps(self.tor_rate_gbps)


class FileTopology(Model):
    """Any fabric, from a file in the HPCC simulator's `topology.txt` format
    (first line: nodes, switches, links; second: the switch ids; then one
    link per line: `a b rate delay error_rate`, e.g. `0 4 100Gbps 0.001ms
    0`). Nodes not listed as switches are hosts, numbered 0.. in the order
    of their file ids (workload.src, dst, dcsim traces and the flow tables
    use these numbers; an HPCC flow file, `workload.trace_format = "hpcc"`,
    keeps the file's ids); each has one link. Parallel links are kept as equal-cost
    paths (the HPCC simulator keeps only the last). A link's error rate is
    the fraction of packets it loses each way, silently, for the whole run
    (docs/faults.md). Bad files fail naming file:line. Routing: every
    shortest path, per flow (ECMP) or per packet."""

    kind: Literal["file"] = field("file", "the topology builder")
    path: str = field("topology.txt", "the topology file; relative to the spec file")
    format: Literal["hpcc"] = field("hpcc", "the file's format: the HPCC simulator's topology.txt")

    def fabric(self):
        """The parsed file (read each time: files are small, and a cache
        would outlive an edit of the file)."""
        from ..topology_file import read_hpcc

        return read_hpcc(self.path)

    def engine(self) -> dict:
        f = self.fabric()
        if f.parallel:
            import sys

            print(f"dcsim: note: {self.path}: {f.parallel} parallel link(s) kept as equal-cost paths (the HPCC "
                  "simulator keeps only the last of them)", file=sys.stderr)
        return f.engine()

    def host_count(self) -> int:
        return self.fabric().hosts

    def links(self) -> int:
        return len(self.fabric().links)

    def host_rate_bps(self) -> int:
        return self.fabric().host_rate_bps()

    def max_link_delay_us(self) -> float:
        return self.fabric().max_link_delay_ps() / 1e6

    def core_capacity_bps(self) -> Optional[int]:
        return self.fabric().core_capacity_bps() or None


Topology = Annotated[
    Union[StarTopology, LeafSpineTopology, OversubscribedLeafSpineTopology, FatTreeTopology, ClosTopology,
          FileTopology],
    Field(discriminator="kind"),
]
TOPOLOGIES = {
    "star": StarTopology,
    "leaf_spine": LeafSpineTopology,
    "oversubscribed_leaf_spine": OversubscribedLeafSpineTopology,
    "fat_tree": FatTreeTopology,
    "clos": ClosTopology,
    "file": FileTopology,
}


class Routing(Model):
    """Load balancing over equal-cost paths. pFabric §5.1 sprays packets
    "among all shortest-path next hops in round-robin fashion"; PIAS's
    oversubscribed runs and BFC hash flows (ECMP)."""

    load_balancing: Literal["round_robin", "spray", "ecmp"] = field(
        "round_robin", "round_robin: each packet to the next equal-cost next hop in turn (one counter per switch, "
        "as ns-2); spray: each packet to a random one; ecmp: each flow hashed onto one path",
        source="pFabric §5.1 and its ns-2 scripts")
    symmetric: Union[bool, Literal["auto"]] = field(
        "auto", "ecmp: hash a flow by the tier of the switch, not the switch, so that packets its receiver sends "
        "back retrace its path (ns-2's symmetric multipath classifier); auto: on for expresspass, whose credits "
        "must take the data's path back, off otherwise", source="ExpressPass ns-2 scripts (symmetric_ true)")

    @model_validator(mode="after")
    def _symmetric_hashes_flows(self) -> "Routing":
        if self.symmetric is True and self.load_balancing != "ecmp":
            raise ValueError(f"routing.symmetric = true makes ECMP's hash retrace a flow's path; with "
                             f"load_balancing = {self.load_balancing!r} each packet picks its own path: set "
                             "load_balancing = \"ecmp\" or leave symmetric \"auto\"")
        return self

    def resolved_symmetric(self, scheme) -> bool:
        return scheme.symmetric_routing if self.symmetric == "auto" else bool(self.symmetric)

    def per_packet(self) -> bool:
        return self.load_balancing != "ecmp"
