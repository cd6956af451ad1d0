//! Nodes, links and the builders of the paper topologies. Hosts are nodes
//! `0..hosts` so a host id is also its node id; switches follow.
//!
//! A link is two output ports, one at each end (htsim's Queue/Pipe split:
//! the port serializes and buffers, the link only delays).

use crate::config::TopologyConfig;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    /// Output ports of this node (indices into `Network::links`).
    pub ports: Vec<u32>,
    /// Tier for reporting: 0 host, 1 leaf/edge, 2 spine/aggregation, 3 core.
    pub tier: u8,
}

/// One direction of a link: the output port at `node` towards `peer`.
#[derive(Clone, Copy, Debug)]
pub struct LinkEnd {
    pub node: u32,
    pub peer: u32,
    pub rate_bps: u64,
    pub delay_ps: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<LinkEnd>,
    pub hosts: u32,
}

impl Network {
    fn with_hosts(hosts: u32) -> Self {
        let mut n = Network { hosts, ..Default::default() };
        for _ in 0..hosts {
            n.nodes.push(Node { kind: NodeKind::Host, ports: vec![], tier: 0 });
        }
        n
    }

    fn add_switch(&mut self, tier: u8) -> u32 {
        self.nodes.push(Node { kind: NodeKind::Switch, ports: vec![], tier });
        (self.nodes.len() - 1) as u32
    }

    /// A full-duplex link: one output port at each end.
    fn connect(&mut self, a: u32, b: u32, rate_bps: u64, delay_ps: u64) {
        for (x, y) in [(a, b), (b, a)] {
            self.links.push(LinkEnd { node: x, peer: y, rate_bps, delay_ps });
            let id = (self.links.len() - 1) as u32;
            self.nodes[x as usize].ports.push(id);
        }
    }

    pub fn is_host(&self, node: u32) -> bool {
        node < self.hosts
    }

    /// The NIC port of a host (hosts have exactly one).
    pub fn nic(&self, host: u32) -> u32 {
        self.nodes[host as usize].ports[0]
    }

    pub fn build(cfg: &TopologyConfig) -> Result<Network, String> {
        match *cfg {
            TopologyConfig::Graph { hosts, switches, ref links } => Network::graph(hosts, switches, links),
            TopologyConfig::Star { hosts, rate_bps, delay_ps } => {
                need(hosts >= 2, "star needs at least 2 hosts")?;
                let mut n = Network::with_hosts(hosts);
                let sw = n.add_switch(1);
                for h in 0..hosts {
                    n.connect(h, sw, rate_bps, delay_ps);
                }
                Ok(n)
            }
            TopologyConfig::LeafSpine {
                leaves,
                spines,
                hosts_per_leaf,
                host_rate_bps,
                spine_rate_bps,
                host_delay_ps,
                spine_delay_ps,
            } => {
                need(leaves >= 1 && spines >= 1 && hosts_per_leaf >= 1, "leaf-spine sizes must be >= 1")?;
                need(leaves * hosts_per_leaf >= 2, "leaf-spine needs at least 2 hosts")?;
                let mut n = Network::with_hosts(leaves * hosts_per_leaf);
                let leaf_ids: Vec<u32> = (0..leaves).map(|_| n.add_switch(1)).collect();
                let spine_ids: Vec<u32> = (0..spines).map(|_| n.add_switch(2)).collect();
                for (l, &leaf) in leaf_ids.iter().enumerate() {
                    for i in 0..hosts_per_leaf {
                        n.connect(l as u32 * hosts_per_leaf + i, leaf, host_rate_bps, host_delay_ps);
                    }
                    for &spine in &spine_ids {
                        n.connect(leaf, spine, spine_rate_bps, spine_delay_ps);
                    }
                }
                Ok(n)
            }
            TopologyConfig::FatTree { k, host_rate_bps, fabric_rate_bps, host_delay_ps, fabric_delay_ps } => {
                need(k >= 2 && k % 2 == 0, "fat-tree k must be an even number >= 2")?;
                let half = k / 2;
                let mut n = Network::with_hosts(k * half * half);
                let cores: Vec<u32> = (0..half * half).map(|_| n.add_switch(3)).collect();
                for pod in 0..k {
                    let edges: Vec<u32> = (0..half).map(|_| n.add_switch(1)).collect();
                    let aggs: Vec<u32> = (0..half).map(|_| n.add_switch(2)).collect();
                    for (e, &edge) in edges.iter().enumerate() {
                        for i in 0..half {
                            let host = (pod * half + e as u32) * half + i;
                            n.connect(host, edge, host_rate_bps, host_delay_ps);
                        }
                        for &agg in &aggs {
                            n.connect(edge, agg, fabric_rate_bps, fabric_delay_ps);
                        }
                    }
                    // Aggregation switch a of every pod connects to cores
                    // a*k/2 .. (a+1)*k/2.
                    for (a, &agg) in aggs.iter().enumerate() {
                        for c in 0..half {
                            n.connect(agg, cores[a * half as usize + c as usize], fabric_rate_bps, fabric_delay_ps);
                        }
                    }
                }
                Ok(n)
            }
        }
    }
}

impl Network {
    /// A fabric given link by link (`TopologyConfig::Graph`). A switch's
    /// tier is its distance in hops from the nearest host (1: next to
    /// hosts), as a leaf-spine's or fat-tree's tiers are.
    fn graph(hosts: u32, switches: u32, links: &[(u32, u32, u64, u64)]) -> Result<Network, String> {
        need(hosts >= 2, "a fabric needs at least 2 hosts")?;
        let n = hosts + switches;
        let mut net = Network::with_hosts(hosts);
        for _ in 0..switches {
            net.add_switch(1);
        }
        for (i, &(a, b, rate, delay)) in links.iter().enumerate() {
            if a >= n || b >= n || a == b {
                return Err(format!("link {i}: nodes {a} and {b} (a fabric of {n} nodes, no self-links)"));
            }
            if rate == 0 {
                return Err(format!("link {i}: rate 0"));
            }
            net.connect(a, b, rate, delay);
        }
        for h in 0..hosts {
            let k = net.nodes[h as usize].ports.len();
            if k != 1 {
                return Err(format!("host {h} has {k} links; a host has one NIC"));
            }
        }
        // tiers, and connectedness: breadth-first from every host at once
        let mut dist = vec![u32::MAX; n as usize];
        let mut queue: std::collections::VecDeque<u32> = (0..hosts).collect();
        (0..hosts as usize).for_each(|h| dist[h] = 0);
        while let Some(u) = queue.pop_front() {
            for &p in &net.nodes[u as usize].ports {
                let v = net.links[p as usize].peer;
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        if let Some(s) = dist.iter().position(|&d| d == u32::MAX) {
            return Err(format!("the fabric is not connected: switch {s} reaches no host"));
        }
        let mut seen = vec![false; n as usize];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(u) = stack.pop() {
            for &p in &net.nodes[u as usize].ports {
                let v = net.links[p as usize].peer as usize;
                if !seen[v] {
                    seen[v] = true;
                    stack.push(v as u32);
                }
            }
        }
        if let Some(v) = seen.iter().position(|&x| !x) {
            return Err(format!("the fabric is not connected: node {v} cannot reach host 0"));
        }
        for s in hosts..n {
            net.nodes[s as usize].tier = dist[s as usize].min(u8::MAX as u32) as u8;
        }
        Ok(net)
    }
}

fn need(cond: bool, msg: &str) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(msg.to_string())
    }
}

/// Small networks for unit tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    pub fn leaf_spine(leaves: u32, spines: u32, hosts_per_leaf: u32) -> Network {
        Network::build(&TopologyConfig::LeafSpine {
            leaves,
            spines,
            hosts_per_leaf,
            host_rate_bps: 10_000_000_000,
            spine_rate_bps: 40_000_000_000,
            host_delay_ps: 2_700_000,
            spine_delay_ps: 200_000,
        })
        .unwrap()
    }

    pub fn fat_tree(k: u32) -> Network {
        Network::build(&TopologyConfig::FatTree {
            k,
            host_rate_bps: 1,
            fabric_rate_bps: 1,
            host_delay_ps: 0,
            fabric_delay_ps: 0,
        })
        .unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{fat_tree, leaf_spine};

    #[test]
    fn pfabric_leaf_spine_shape() {
        let n = leaf_spine(9, 4, 16);
        assert_eq!(n.hosts, 144);
        assert_eq!(n.nodes.len(), 144 + 9 + 4);
        // 144 host links + 36 leaf-spine links, two ports each
        assert_eq!(n.links.len(), 2 * (144 + 36));
        assert!(n.nodes[..144].iter().all(|h| h.ports.len() == 1));
    }

    #[test]
    fn fat_tree_counts() {
        let n = fat_tree(4);
        assert_eq!(n.hosts, 16);
        assert_eq!(n.nodes.len(), 16 + 4 + 16);
        // every switch has k ports
        assert!(n.nodes[16..].iter().all(|s| s.ports.len() == 4));
    }

    use super::Network;
    use crate::config::TopologyConfig;

    fn graph(hosts: u32, switches: u32, links: &[(u32, u32)]) -> Result<Network, String> {
        let links = links.iter().map(|&(a, b)| (a, b, 100_000_000_000, 1_000_000)).collect();
        Network::build(&TopologyConfig::Graph { hosts, switches, links })
    }

    #[test]
    fn a_graph_gets_tiers_by_distance_from_hosts() {
        // BFC's testbed (Fig. 6): hosts 0-1 on switch 5, host 2 on switch
        // 7, hosts 3-4 on switch 6; 5 -> 6 <- 7
        let n = graph(5, 3, &[(0, 5), (1, 5), (2, 7), (3, 6), (4, 6), (5, 6), (7, 6)]).unwrap();
        assert_eq!(n.nodes.iter().map(|x| x.tier).collect::<Vec<_>>(), vec![0, 0, 0, 0, 0, 1, 1, 1]);
        // a switch with no host of its own is one tier up
        let n = graph(2, 3, &[(0, 2), (1, 3), (2, 4), (3, 4)]).unwrap();
        assert_eq!(n.nodes[4].tier, 2);
    }

    #[test]
    fn a_graph_refuses_what_it_cannot_run() {
        assert!(graph(2, 1, &[(0, 2), (1, 2), (0, 2)]).unwrap_err().contains("host 0 has 2 links"));
        assert!(graph(2, 1, &[(0, 2)]).unwrap_err().contains("host 1 has 0 links"));
        assert!(graph(2, 2, &[(0, 2), (1, 2)]).unwrap_err().contains("not connected"));
        assert!(graph(2, 2, &[(0, 2), (1, 3)]).unwrap_err().contains("not connected"));
        assert!(graph(2, 1, &[(0, 2), (1, 5)]).unwrap_err().contains("nodes 1 and 5"));
    }
}
