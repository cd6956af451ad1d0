//! Ideal fair sharing ("Ideal-FQ", the comparison line of the BFC paper's
//! figures, BFC §6.2): flow level, no packets. At every flow arrival and
//! departure each active flow gets its max-min fair rate over the links of
//! its path, found by progressive filling (water-filling): the link whose
//! capacity left, split among its flows not yet fixed, gives the smallest
//! share fixes those flows at that share, and so on. Between events every
//! flow is served at its rate.
//!
//! Like `ideal.rs` it runs on the same flow sequence as the packet-level
//! schemes and keeps a flow's progress as service time at its nominal rate
//! (the slower of its two host links), so a flow alone finishes after its
//! idle-network FCT. A flow's path is the one its packets would take (its
//! ECMP hash at every switch). Rates are f64: the same inputs give the same
//! bits on every IEEE-754 machine.

use crate::ideal::Active;
use crate::time::Time;

/// Links a path may have (a three-tier fabric needs 6).
pub const MAX_HOPS: usize = 8;

/// A flow's path: the output ports its packets leave by, host NIC first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Path {
    pub ports: [u32; MAX_HOPS],
    pub len: u8,
}

impl Path {
    pub fn links(&self) -> &[u32] {
        &self.ports[..self.len as usize]
    }
}

/// What fair sharing keeps of a flow besides its `Active` record.
#[derive(Clone, Copy, Debug)]
struct Share {
    path: Path,
    /// The rate its service time is counted at (bits/s).
    nominal: f64,
    /// Service time left at the nominal rate (ps), and the fraction of the
    /// nominal rate the flow gets now.
    left: f64,
    fraction: f64,
}

pub struct FairShare {
    /// Active flows and their shares, in arrival order (parallel vectors:
    /// `flows` is what the simulation reads).
    flows: Vec<Active>,
    shares: Vec<Share>,
    /// Per port: its rate, and while filling, the capacity not yet given
    /// out, the flows not yet fixed and which flows cross it.
    rate: Vec<f64>,
    spare: Vec<f64>,
    open: Vec<u32>,
    crossing: Vec<Vec<u32>>,
    touched: Vec<u32>,
}

/// A flow whose service time left is below this (ps) has finished: what
/// floating-point steps leave of a departure.
const DONE_PS: f64 = 1e-3;

impl FairShare {
    pub fn new(port_rates: &[u64]) -> FairShare {
        let n = port_rates.len();
        FairShare {
            flows: Vec::new(),
            shares: Vec::new(),
            rate: port_rates.iter().map(|&r| r as f64).collect(),
            spare: vec![0.0; n],
            open: vec![0; n],
            crossing: vec![Vec::new(); n],
            touched: Vec::new(),
        }
    }

    pub fn flows(&self) -> &[Active] {
        &self.flows
    }

    /// A new flow on `path`, whose `a.service` is counted at `nominal_bps`.
    pub fn add(&mut self, a: Active, path: Path, nominal_bps: u64) {
        debug_assert!(path.len > 0, "a path has at least the sender's NIC");
        self.shares.push(Share { path, nominal: nominal_bps as f64, left: a.left as f64, fraction: 0.0 });
        self.flows.push(a);
    }

    /// How long until the first flow finishes at the current rates.
    pub fn next_departure(&self) -> Option<Time> {
        self.shares
            .iter()
            .map(|s| (s.left / s.fraction).ceil().max(0.0) as Time)
            .min()
    }

    /// Serve every flow at its rate for `elapsed`; flows that finish move to
    /// `done`.
    pub fn advance(&mut self, elapsed: Time, done: &mut Vec<Active>) {
        let dt = elapsed as f64;
        let mut i = 0;
        while i < self.flows.len() {
            let s = &mut self.shares[i];
            s.left -= s.fraction * dt;
            if s.left < DONE_PS {
                done.push(self.flows.remove(i));
                self.shares.remove(i);
                continue;
            }
            self.flows[i].left = s.left.ceil() as Time;
            i += 1;
        }
    }

    /// Max-min fair rates by progressive filling. Ties between bottleneck
    /// links go to the link seen first (flows in arrival order, links in
    /// path order): deterministic.
    pub fn schedule(&mut self) {
        for &l in &self.touched {
            self.crossing[l as usize].clear();
        }
        self.touched.clear();
        for (i, s) in self.shares.iter().enumerate() {
            for &l in s.path.links() {
                let l = l as usize;
                if self.crossing[l].is_empty() {
                    self.touched.push(l as u32);
                    self.spare[l] = self.rate[l];
                    self.open[l] = 0;
                }
                self.crossing[l].push(i as u32);
                self.open[l] += 1;
            }
        }
        let mut fixed = vec![false; self.shares.len()];
        let mut left = self.shares.len();
        while left > 0 {
            // the bottleneck: the smallest fair share among open links
            let mut best: Option<(f64, usize)> = None;
            for &l in &self.touched {
                let l = l as usize;
                if self.open[l] > 0 {
                    let share = self.spare[l].max(0.0) / self.open[l] as f64;
                    if best.is_none_or(|(b, _)| share < b) {
                        best = Some((share, l));
                    }
                }
            }
            let (share, l) = best.expect("an unfixed flow crosses an open link");
            for k in 0..self.crossing[l].len() {
                let i = self.crossing[l][k] as usize;
                if fixed[i] {
                    continue;
                }
                fixed[i] = true;
                left -= 1;
                let s = &mut self.shares[i];
                s.fraction = (share / s.nominal).min(1.0);
                for &m in s.path.links() {
                    self.spare[m as usize] -= share;
                    self.open[m as usize] -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::FlowSpec;

    const G10: u64 = 10_000_000_000;

    fn path(ports: &[u32]) -> Path {
        let mut p = Path::default();
        p.ports[..ports.len()].copy_from_slice(ports);
        p.len = ports.len() as u8;
        p
    }

    /// Flows that all start at 0 with `service` ps at 10 Gb/s on `paths`
    /// over ports of `rates`; their finish times.
    fn finish_times(rates: &[u64], flows: &[(Time, &[u32])]) -> Vec<(u32, Time)> {
        let mut fs = FairShare::new(rates);
        for (id, &(service, p)) in flows.iter().enumerate() {
            let spec = FlowSpec { id: id as u32, start: 0, src: 0, dst: 0, size: service, deadline_draw: None };
            fs.add(Active::new(spec, service, service), path(p), G10);
        }
        crate::flow_level::FlowLevel::Fair(fs).finish_all()
    }

    #[test]
    fn one_link_is_processor_sharing() {
        // three flows on one 10G link: each at a third until the shortest
        // ends (3 x 10 = 30), then halves (+ 2 x 10 = 50), then alone (+10)
        let t = finish_times(&[G10], &[(30, &[0]), (10, &[0]), (20, &[0])]);
        assert_eq!(t, vec![(0, 60), (1, 30), (2, 50)]);
    }

    #[test]
    fn max_min_over_two_bottlenecks() {
        // flows 0 and 1 share port 0 (10G); flow 1 also crosses port 1, a
        // 2.5G link, which it shares with flow 2: max-min gives flows 1 and
        // 2 1.25G each and flow 0 the rest of port 0, 8.75G
        let mut fs = FairShare::new(&[G10, G10 / 4, G10]);
        for (id, p) in [&[0u32][..], &[0, 1], &[2, 1]].iter().enumerate() {
            let spec = FlowSpec { id: id as u32, start: 0, src: 0, dst: 0, size: 1000, deadline_draw: None };
            fs.add(Active::new(spec, 1000, 1000), path(p), G10);
        }
        fs.schedule();
        let f: Vec<f64> = fs.shares.iter().map(|s| s.fraction).collect();
        assert_eq!(f, vec![0.875, 0.125, 0.125]);
    }
}
