//! Shortest-path routing: for every node and destination host, the group of
//! output ports on a shortest path. The load balancer picks one member per
//! flow (ECMP) or per packet (spraying).

use crate::config::LoadBalancing;
use crate::topology::Network;
use std::collections::{HashMap, VecDeque};

/// Flag of a `groups` entry that is a port, not a set index.
const DIRECT: u32 = 1 << 31;

#[derive(Clone)]
pub struct Routes {
    hosts: usize,
    /// The tables (shortest paths, less the ports known dead).
    t: Tables,
    /// 0, 1, 2, ...: every port id, to hand out a direct route as a slice.
    all_ports: Vec<u32>,
    nics: Vec<u32>,
    lb: LoadBalancing,
    /// One spraying RNG state (SplitMix64 stream) or round-robin counter
    /// per node.
    spray_state: Vec<u64>,
    salt: u64,
    /// What ECMP hashes a flow with at each node: the node (so tiers do
    /// not all choose alike), or, symmetric, the node's tier.
    hash_key: Vec<u64>,
}

impl Routes {
    /// Shortest paths to every host. Hosts are grouped by the switch they
    /// hang off (a host has one link): every shortest path to a host goes
    /// through that switch (hosts are never transit), so from any other
    /// switch its next hops are those towards its siblings, and one
    /// column of the table serves them all. On a 6,144-host fabric that
    /// is 384 columns instead of 6,144: a table that stays in cache, where
    /// one column per host (9.5 MB) cost a cache miss per switch hop.
    pub fn build(net: &Network, lb: LoadBalancing, seed: u64) -> Routes {
        let n = net.nodes.len();
        Routes {
            hosts: net.hosts as usize,
            t: Tables::build(net, &[]),
            all_ports: (0..net.links.len() as u32).collect(),
            nics: (0..net.hosts).map(|h| net.nic(h)).collect(),
            lb,
            spray_state: (0..n as u64)
                .map(|i| if lb == LoadBalancing::RoundRobin { u64::MAX } else { splitmix(seed ^ 0x5eed_5a7a ^ i) })
                .collect(),
            salt: splitmix(seed ^ 0xec3f),
            hash_key: (0..n as u64).collect(),
        }
    }

    /// Shortest paths again, leaving out the ports `dead` marks (a fault
    /// that routing has learned of: `faults.rs`). The load balancers keep
    /// their state and hashes: ECMP rehashes a flow only where its group
    /// changed. A switch with no path left to a host has an empty group
    /// (`reachable`).
    pub fn reroute(&mut self, net: &Network, dead: &[bool]) {
        self.t = Tables::build(net, dead);
    }

    /// Whether switch `node` has a next hop towards host `dst`.
    pub fn reachable(&self, node: u32, dst: u32) -> bool {
        let g = self.entry(node, dst);
        g & DIRECT != 0 || self.t.sets[g as usize].1 > 0
    }
    /// The `groups` entry of switch `node` towards host `dst`, or the port
    /// to `dst` when `node` is the switch it hangs off.
    #[inline(always)]
    fn entry(&self, node: u32, dst: u32) -> u32 {
        let class = self.t.dest_class[dst as usize];
        if node == self.t.attach[class as usize] {
            // the switch's port on the host's link (links are port pairs)
            return DIRECT | (self.nics[dst as usize] ^ 1);
        }
        let u = self.t.uniform[node as usize - self.hosts];
        if u != 0 {
            return u;
        }
        self.t.groups[self.group_index(node, class)]
    }

    /// Where switch `node`'s entry for destination class `class` sits in
    /// `groups`.
    #[inline(always)]
    fn group_index(&self, node: u32, class: u32) -> usize {
        (node as usize - self.hosts) * self.t.classes + class as usize
    }

    /// Ask for the table entry `next_port(node, dst, _)` will read (a hint).
    #[inline(always)]
    pub fn prefetch(&self, node: u32, dst: u32) {
        if let Some(&class) = self.t.dest_class.get(dst as usize).filter(|&&c| self.t.attach[c as usize] != node && self.t.uniform[node as usize - self.hosts] == 0) {
            crate::prefetch::prefetch(self.t.groups.as_ptr().wrapping_add(self.group_index(node, class)));
        }
    }

    /// Symmetric ECMP (ns-2's multipath classifier with `symmetric_`, which
    /// ExpressPass needs): the hash of a flow depends on the tier of the
    /// switch, not on the switch, so a packet going back (a credit, from
    /// the flow's receiver) takes the same choice at the same tier and, on
    /// fabrics whose switches list their uplinks in the same order, the
    /// flow's path in reverse.
    pub fn symmetric(mut self, net: &Network) -> Routes {
        self.hash_key = net.nodes.iter().map(|n| 0x7165_7200 | n.tier as u64).collect();
        self
    }

    /// All shortest-path output ports of `node` towards host `dst`.
    pub fn group(&self, node: u32, dst: u32) -> &[u32] {
        if (node as usize) < self.hosts {
            return std::slice::from_ref(&self.nics[node as usize]);
        }
        let g = self.entry(node, dst);
        if g & DIRECT != 0 {
            let p = (g & !DIRECT) as usize;
            return &self.all_ports[p..p + 1];
        }
        let (off, len) = self.t.sets[g as usize];
        &self.t.ports[off as usize..off as usize + len as usize]
    }

    /// The NIC (output port) of host `host`.
    #[inline]
    pub fn nic(&self, host: u32) -> u32 {
        self.nics[host as usize]
    }

    /// Whether `next_port` uses the flow (ECMP) or not (spraying).
    #[inline]
    pub fn hashes_flows(&self) -> bool {
        self.lb == LoadBalancing::Ecmp
    }

    /// The output port a packet of `flow` takes at `node` towards `dst`.
    #[inline(always)]
    pub fn next_port(&mut self, node: u32, dst: u32, flow: u32) -> u32 {
        debug_assert!(node as usize >= self.hosts, "hosts send through their NIC, not a route");
        let g = self.entry(node, dst);
        if g & DIRECT != 0 {
            return g & !DIRECT;
        }
        let (off, len) = self.t.sets[g as usize];
        debug_assert!(len > 1, "no route from node {node} to host {dst}");
        let pick = match self.lb {
            LoadBalancing::Ecmp => self.ecmp_hash(node, flow),
            LoadBalancing::Spray => {
                let s = &mut self.spray_state[node as usize];
                *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
                splitmix(*s)
            }
            LoadBalancing::RoundRobin => {
                // ns-2's multipath classifier (the pFabric and PIAS
                // scripts): one counter per node, over every flow
                let s = &mut self.spray_state[node as usize];
                *s = s.wrapping_add(1);
                return self.t.ports[off as usize + (*s % len as u64) as usize];
            }
        };
        self.pick(off, len, pick)
    }

    /// What `next_port` will return for this packet, when that is fixed
    /// before the packet gets there: a single next hop, or ECMP's hash.
    /// `None` when spraying decides at the packet's turn. Changes nothing.
    #[inline(always)]
    pub fn fixed_port(&self, node: u32, dst: u32, flow: u32) -> Option<u32> {
        let g = self.entry(node, dst);
        if g & DIRECT != 0 {
            return Some(g & !DIRECT);
        }
        if self.lb != LoadBalancing::Ecmp {
            return None;
        }
        let (off, len) = self.t.sets[g as usize];
        if len == 0 {
            return None; // no route left (a fault): the packet is lost on arrival
        }
        Some(self.pick(off, len, self.ecmp_hash(node, flow)))
    }

    /// ECMP's hash of (flow, node): salting with the node avoids every tier
    /// making the same choice (hash polarization).
    #[inline(always)]
    fn ecmp_hash(&self, node: u32, flow: u32) -> u64 {
        splitmix(self.salt ^ ((flow as u64) << 20) ^ self.hash_key[node as usize])
    }

    /// Port `pick` of the group at `off` of `len` ports, by multiply-shift:
    /// a uniform index in 0..len without a division.
    #[inline(always)]
    fn pick(&self, off: u32, len: u16, pick: u64) -> u32 {
        let i = ((pick as u128 * len as u128) >> 64) as usize;
        self.t.ports[off as usize + i]
    }
}

/// The routing tables of `Routes`, for a fabric whose ports `dead` marks
/// are left out.
#[derive(Clone)]
struct Tables {
    /// Each destination host's class: the column of `groups`, the switch
    /// it hangs off (`attach`). Four bytes a host, so the column read at
    /// every switch hop stays in the L1 cache on 6,144 hosts (24 KB); the
    /// switch's port to the host is its NIC's link partner (`nics[h] ^ 1`).
    dest_class: Vec<u32>,
    /// The switch each class hangs off.
    attach: Vec<u32>,
    /// Columns of `groups`: one per switch that hosts hang off.
    classes: usize,
    /// `groups[(switch - hosts) * classes + class]`: the output port with
    /// `DIRECT` set when there is one next hop (one load on the hot path),
    /// else an index into `sets`. Hosts have one route, their NIC, and are
    /// not stored.
    groups: Vec<u32>,
    /// Per switch, its `groups` row when every destination not hanging
    /// off it shares one entry (a leaf's or a rack switch's: all of them
    /// go up), else 0, which no entry is (`sets[0]`, the empty set, is a
    /// switch's entry only where no path is left: `reachable`). Such a row
    /// is then never read: on 6,144 hosts the leaves' rows are 0.6 MB,
    /// read once per packet at its first switch, a cache miss each time,
    /// where this is 1.5 KB.
    uniform: Vec<u32>,
    /// Distinct next-hop sets, as (offset, len) into `ports`: the same set
    /// serves many destinations (e.g. every remote host, seen from a leaf),
    /// so the table stays small on large fabrics.
    sets: Vec<(u32, u16)>,
    ports: Vec<u32>,
}

impl Tables {
    /// Hosts are grouped by the switch they hang off (a host has one
    /// link): every shortest path to a host goes through that switch (hosts
    /// are never transit), so from any other switch its next hops are those
    /// towards its siblings, and one column of the table serves them all.
    fn build(net: &Network, dead: &[bool]) -> Tables {
        let alive = |p: u32| !dead.get(p as usize).copied().unwrap_or(false);
        let n = net.nodes.len();
        let hosts = net.hosts as usize;
        // a class per switch that hosts hang off, with a representative host
        let mut class_of_switch: HashMap<u32, u32> = HashMap::new();
        let mut reps: Vec<usize> = Vec::new();
        let mut dest_class = Vec::with_capacity(hosts);
        let mut attach = Vec::new();
        for h in 0..hosts {
            let nic = net.nic(h as u32);
            debug_assert_eq!(net.nodes[h].ports.len(), 1, "a host has one link (topology.rs)");
            let sw = net.links[nic as usize].peer;
            // the switch's port on the host's link is the NIC's partner
            // (links are port pairs): what `entry` returns at that switch
            debug_assert_eq!(net.links[(nic ^ 1) as usize].peer, h as u32);
            let class = *class_of_switch.entry(sw).or_insert_with(|| {
                reps.push(h);
                attach.push(sw);
                (reps.len() - 1) as u32
            });
            dest_class.push(class);
        }
        let classes = reps.len();
        let mut groups = vec![0u32; (n - hosts) * classes];
        let mut sets: Vec<(u32, u16)> = vec![(0, 0)];
        let mut interned: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut ports = Vec::new();
        let mut set = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for (class, &dst) in reps.iter().enumerate() {
            // Breadth-first search from the destination over reversed
            // links. Hosts other than the destination are never transit.
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst] = 0;
            queue.push_back(dst as u32);
            while let Some(u) = queue.pop_front() {
                if u as usize != dst && net.is_host(u) {
                    continue;
                }
                for &p in &net.nodes[u as usize].ports {
                    let v = net.links[p as usize].peer as usize;
                    // v reaches u by the other direction of this link
                    if dist[v] == u32::MAX && alive(p ^ 1) {
                        dist[v] = dist[u as usize] + 1;
                        queue.push_back(v as u32);
                    }
                }
            }
            for u in hosts..n {
                if dist[u] == u32::MAX {
                    continue;
                }
                set.clear();
                for &p in &net.nodes[u].ports {
                    let v = net.links[p as usize].peer as usize;
                    if dist[v] != u32::MAX && dist[v] + 1 == dist[u] && (v == dst || !net.is_host(v as u32)) && alive(p) {
                        set.push(p);
                    }
                }
                let idx = *interned.entry(set.clone()).or_insert_with(|| {
                    sets.push((ports.len() as u32, set.len() as u16));
                    ports.extend_from_slice(&set);
                    (sets.len() - 1) as u32
                });
                groups[(u - hosts) * classes + class] = if set.len() == 1 { DIRECT | set[0] } else { idx };
            }
        }
        let uniform = (hosts..n)
            .map(|u| {
                let row = &groups[(u - hosts) * classes..(u - hosts + 1) * classes];
                let mut others = (0..classes).filter(|&c| attach[c] != u as u32).map(|c| row[c]);
                let first = others.next().unwrap_or(0);
                if others.all(|g| g == first) { first } else { 0 }
            })
            .collect();
        Tables { dest_class, attach, classes, groups, uniform, sets, ports }
    }
}

/// SplitMix64 finalizer: a cheap, well-mixed 64-bit hash.
#[inline]
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixtures;

    fn leaf_spine() -> Network {
        fixtures::leaf_spine(3, 4, 2)
    }

    #[test]
    fn leaf_has_one_port_per_spine_towards_remote_hosts() {
        let net = leaf_spine();
        let r = Routes::build(&net, LoadBalancing::Ecmp, 1);
        let leaf0 = 6;
        assert_eq!(r.group(leaf0, 5).len(), 4); // host 5 is under leaf 2
        assert_eq!(r.group(leaf0, 1).len(), 1); // host 1 is local
        assert_eq!(r.group(0, 5).len(), 1); // a host has only its NIC
    }

    #[test]
    fn rerouting_leaves_out_dead_ports_and_says_what_cannot_be_reached() {
        // 3 leaves (6-8), 4 spines (9-12), 2 hosts a leaf
        let net = leaf_spine();
        let mut r = Routes::build(&net, LoadBalancing::Ecmp, 1);
        let leaf0 = 6;
        let up = |spine: u32| net.nodes[leaf0 as usize].ports.iter().copied().find(|&p| net.links[p as usize].peer == spine).unwrap();
        // spine 9's link to leaf 0 dies one way (leaf 0 -> spine 9)
        let mut dead = vec![false; net.links.len()];
        dead[up(9) as usize] = true;
        r.reroute(&net, &dead);
        assert_eq!(r.group(leaf0, 5).len(), 3);
        assert!(!r.group(leaf0, 5).contains(&up(9)));
        // the other direction still carries spine 9's traffic to leaf 0
        assert!(r.group(9, 0).contains(&(up(9) ^ 1)));
        for f in 0..64 {
            assert_ne!(r.next_port(leaf0, 5, f), up(9));
        }
        // every uplink of leaf 0 dead: remote hosts cannot be reached from it,
        // and no spine reaches leaf 0's hosts
        for s in 9..13 {
            dead[up(s) as usize] = true;
            dead[(up(s) ^ 1) as usize] = true;
        }
        r.reroute(&net, &dead);
        assert!(!r.reachable(leaf0, 5) && r.reachable(leaf0, 1));
        assert!(!r.reachable(9, 0) && r.reachable(9, 5));
        assert_eq!(r.fixed_port(leaf0, 5, 3), None);
        // repaired: as built
        r.reroute(&net, &vec![false; net.links.len()]);
        let fresh = Routes::build(&net, LoadBalancing::Ecmp, 1);
        for (node, dst) in [(leaf0, 5), (9, 0), (7, 0)] {
            assert_eq!(r.group(node, dst), fresh.group(node, dst));
        }
    }

    #[test]
    fn ecmp_is_per_flow_and_spray_spreads() {
        let net = leaf_spine();
        let mut r = Routes::build(&net, LoadBalancing::Ecmp, 1);
        let first = r.next_port(6, 5, 42);
        assert!((0..100).all(|_| r.next_port(6, 5, 42) == first));
        let mut s = Routes::build(&net, LoadBalancing::Spray, 1);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..100 {
            seen.insert(s.next_port(6, 5, 42));
        }
        assert_eq!(seen.len(), 4);
        // round robin: every next hop in turn, whatever the flow
        let mut rr = Routes::build(&net, LoadBalancing::RoundRobin, 1);
        let turns: Vec<u32> = (0..8).map(|f| rr.next_port(6, 5, f)).collect();
        assert_eq!(&turns[..4], &turns[4..]);
        assert_eq!(turns[..4].iter().collect::<std::collections::HashSet<_>>().len(), 4);
        assert_eq!(turns[0], r.group(6, 5)[0]);
    }

    #[test]
    fn a_fixed_port_is_the_next_port_and_spraying_fixes_none_ahead() {
        let net = fixtures::fat_tree(4);
        let mut ecmp = Routes::build(&net, LoadBalancing::Ecmp, 1);
        let rr = Routes::build(&net, LoadBalancing::RoundRobin, 1);
        let (mut fixed, mut direct) = (0, 0);
        for node in net.hosts..net.nodes.len() as u32 {
            for dst in 0..net.hosts {
                for flow in 0..8 {
                    let f = ecmp.fixed_port(node, dst, flow);
                    assert_eq!(f, Some(ecmp.next_port(node, dst, flow)));
                    fixed += 1;
                    // spraying knows ahead only where there is one next hop
                    match rr.fixed_port(node, dst, flow) {
                        Some(p) => {
                            assert_eq!(rr.group(node, dst), &[p]);
                            direct += 1;
                        }
                        None => assert!(rr.group(node, dst).len() > 1),
                    }
                }
            }
        }
        assert!(direct > 0 && direct < fixed, "{direct} of {fixed}");
    }

    #[test]
    fn next_hop_sets_are_shared() {
        // A k=8 fat-tree has 80 switches x 128 hosts routes but only a
        // handful of distinct next-hop sets per switch.
        let net = fixtures::fat_tree(8);
        let r = Routes::build(&net, LoadBalancing::Ecmp, 1);
        assert!(r.t.sets.len() < 80 * 8, "{} sets", r.t.sets.len());
    }

    #[test]
    fn fat_tree_paths_have_the_expected_diversity() {
        let net = fixtures::fat_tree(4);
        let r = Routes::build(&net, LoadBalancing::Ecmp, 1);
        // edge switch of host 0 towards a host in another pod: 2 aggs
        let edge0 = net.links[net.nic(0) as usize].peer;
        assert_eq!(r.group(edge0, 15).len(), 2);
        // towards the other host on the same edge: the direct port only
        assert_eq!(r.group(edge0, 1).len(), 1);
    }

    #[test]
    fn a_graph_routes_over_every_shortest_path_and_parallel_links() {
        // hosts 0, 1; switches 2 (host 0's) and 5 (host 1's) joined through
        // 3 and 4, and 3 by two parallel links to 2: three equal-cost first
        // hops at 2 (two to 3, one to 4), one at 3 and 4
        let links = [(0, 2), (1, 5), (2, 3), (2, 3), (2, 4), (3, 5), (4, 5), (2, 6)]
            .iter()
            .map(|&(a, b)| (a, b, 10_000_000_000, 1_000_000))
            .collect();
        let net = Network::build(&crate::config::TopologyConfig::Graph { hosts: 2, switches: 5, links }).unwrap();
        let mut r = Routes::build(&net, LoadBalancing::Ecmp, 1);
        assert_eq!(r.group(2, 1).len(), 3);
        assert_eq!((r.group(3, 1).len(), r.group(4, 1).len(), r.group(6, 1).len()), (1, 1, 1));
        // flows spread over the three: every first hop taken
        let firsts: std::collections::HashSet<u32> = (0..200).map(|f| r.next_port(2, 1, f)).collect();
        assert_eq!(firsts.len(), 3);
    }

    /// Every shortest-path next hop of `u` towards host `dst`, from a
    /// breadth-first search of its own (hosts other than `dst` are not
    /// transit): what one table column per host would hold.
    fn next_hops_by_search(net: &Network, u: u32, dst: u32) -> Vec<u32> {
        let mut dist = vec![u32::MAX; net.nodes.len()];
        dist[dst as usize] = 0;
        let mut queue = std::collections::VecDeque::from([dst]);
        while let Some(x) = queue.pop_front() {
            if x != dst && net.is_host(x) {
                continue;
            }
            for &p in &net.nodes[x as usize].ports {
                let v = net.links[p as usize].peer;
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[x as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        let on_path = |p: &&u32| {
            let v = net.links[**p as usize].peer;
            dist[v as usize] + 1 == dist[u as usize] && (v == dst || !net.is_host(v))
        };
        net.nodes[u as usize].ports.iter().filter(on_path).copied().collect()
    }

    #[test]
    fn one_column_per_switch_gives_every_host_its_own_shortest_paths() {
        // hosts 0-3: 0 and 1 on switch 4, 2 on 5, 3 on 7; 4 reaches 7
        // over 5 and 6, and over two parallel links to 6
        let links = [(0, 4), (1, 4), (2, 5), (3, 7), (4, 5), (4, 6), (4, 6), (5, 7), (6, 7), (5, 6)]
            .iter()
            .map(|&(a, b)| (a, b, 10_000_000_000, 1_000_000))
            .collect();
        let graph = Network::build(&crate::config::TopologyConfig::Graph { hosts: 4, switches: 4, links }).unwrap();
        for net in [fixtures::leaf_spine(5, 4, 3), fixtures::fat_tree(4), graph] {
            let r = Routes::build(&net, LoadBalancing::Ecmp, 1);
            let switches: std::collections::HashSet<u32> =
                (0..net.hosts).map(|h| net.links[net.nic(h) as usize].peer).collect();
            assert_eq!(r.t.classes, switches.len());
            for u in net.hosts..net.nodes.len() as u32 {
                for dst in 0..net.hosts {
                    assert_eq!(r.group(u, dst), next_hops_by_search(&net, u, dst), "switch {u} to host {dst}");
                }
            }
        }
    }

    #[test]
    fn rows_of_one_entry_are_kept_once() {
        // (the test above checks every lookup through them)
        let uniform = |net: &Network| Routes::build(net, LoadBalancing::Ecmp, 1).t.uniform.iter().filter(|&&u| u != 0).count();
        // every leaf sends all remote hosts to its spines; no spine does
        assert_eq!(uniform(&fixtures::leaf_spine(5, 4, 3)), 5);
        // k = 4: the 8 edge switches go up for every other edge's hosts;
        // aggregation and core switches go down for some
        assert_eq!(uniform(&fixtures::fat_tree(4)), 8);
    }

    /// The nodes a packet of `flow` visits from host `src` to host `dst`.
    fn nodes(r: &mut Routes, net: &Network, src: u32, dst: u32, flow: u32) -> Vec<u32> {
        let mut out = vec![src];
        let mut node = net.links[r.nic(src) as usize].peer;
        while node != dst {
            out.push(node);
            node = net.links[r.next_port(node, dst, flow) as usize].peer;
        }
        out.push(dst);
        out
    }

    #[test]
    fn symmetric_ecmp_sends_the_reverse_packets_back_along_the_path() {
        for net in [fixtures::leaf_spine(8, 8, 4), fixtures::fat_tree(4)] {
            let mut sym = Routes::build(&net, LoadBalancing::Ecmp, 1).symmetric(&net);
            let mut plain = Routes::build(&net, LoadBalancing::Ecmp, 1);
            let hosts = net.hosts;
            let (mut same, mut plain_same, mut paths) = (0, 0, std::collections::HashSet::new());
            let mut pairs = std::collections::HashSet::new();
            for flow in 0..400u32 {
                let (src, dst) = (flow % hosts, (flow * 7 + 3) % hosts);
                if src == dst {
                    continue;
                }
                let fwd = nodes(&mut sym, &net, src, dst, flow);
                let mut back = nodes(&mut sym, &net, dst, src, flow);
                back.reverse();
                same += (fwd == back) as u32;
                paths.insert(fwd.clone());
                pairs.insert((src, dst));
                let mut pb = nodes(&mut plain, &net, dst, src, flow);
                pb.reverse();
                plain_same += (nodes(&mut plain, &net, src, dst, flow) == pb) as u32;
                assert_eq!(fwd, back, "flow {flow}: {src} -> {dst}");
            }
            // flows of a pair still spread over its paths, and plain ECMP
            // is not symmetric
            assert!(paths.len() > pairs.len() * 3 / 2, "{} paths, {} pairs", paths.len(), pairs.len());
            assert!(plain_same < same, "{plain_same} vs {same}");
        }
    }
}
