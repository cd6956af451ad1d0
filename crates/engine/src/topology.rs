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
}
