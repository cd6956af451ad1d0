//! The Ideal scheduler of pFabric §3 (Algorithm 1): a flow-level reference,
//! no packets. The fabric is one big switch; at every flow arrival and
//! departure, the active flows are visited in increasing order of remaining
//! size, and a flow is scheduled if its source's uplink and its
//! destination's downlink are both still free. A scheduled flow sends at
//! its host links' rate; the others wait. This is greedy shortest remaining
//! processing time over a bipartite matching of senders to receivers, "an
//! approximation to the ... optimal" (§3), which pFabric is measured
//! against.
//!
//! The simulation runs it on the same flow sequence as the packet-level
//! schemes (same spec, same seed) and normalizes by the same ideal FCT: a
//! flow's FCT is when its service ends, plus what the idle network adds to
//! serialization (propagation and store-and-forward, and with `FctAt::Sender`
//! the ACK's way back), so a flow alone has slowdown 1. Ties in remaining
//! size go to the earlier flow.

use crate::time::Time;
use crate::workload::FlowSpec;

/// An active flow of the Ideal schedule.
#[derive(Clone, Copy, Debug)]
pub struct Active {
    pub spec: FlowSpec,
    /// Service time at the flow's rate, and what is left of it.
    pub service: Time,
    pub left: Time,
    /// The flow's FCT on the idle network, and what it adds to the service
    /// time (`ideal - service`).
    pub ideal: Time,
    pub extra: Time,
    on: bool,
}

impl Active {
    pub fn new(spec: FlowSpec, service: Time, ideal: Time) -> Active {
        Active { spec, service, left: service, ideal, extra: ideal.saturating_sub(service), on: false }
    }

    /// Payload bytes served so far.
    pub fn delivered(&self) -> u64 {
        if self.service == 0 {
            return self.spec.size;
        }
        (self.spec.size as u128 * (self.service - self.left) as u128 / self.service as u128) as u64
    }
}

pub struct Ideal {
    /// Active flows, in the order of the last schedule (remaining size,
    /// then id).
    flows: Vec<Active>,
    src_busy: Vec<bool>,
    dst_busy: Vec<bool>,
}

impl Ideal {
    pub fn new(hosts: u32) -> Ideal {
        Ideal { flows: Vec::new(), src_busy: vec![false; hosts as usize], dst_busy: vec![false; hosts as usize] }
    }

    pub fn flows(&self) -> &[Active] {
        &self.flows
    }

    pub fn add(&mut self, a: Active) {
        self.flows.push(a);
    }

    /// How long until the first scheduled flow finishes.
    pub fn next_departure(&self) -> Option<Time> {
        self.flows.iter().filter(|a| a.on).map(|a| a.left).min()
    }

    /// Serve the scheduled flows for `elapsed`; flows that finish move to
    /// `done` (in schedule order).
    pub fn advance(&mut self, elapsed: Time, done: &mut Vec<Active>) {
        for a in self.flows.iter_mut().filter(|a| a.on) {
            debug_assert!(a.left >= elapsed, "served past a departure");
            a.left -= elapsed;
        }
        done.extend(self.flows.iter().filter(|a| a.left == 0).copied());
        self.flows.retain(|a| a.left > 0);
    }

    /// Algorithm 1: in increasing order of remaining size, schedule each
    /// flow whose source and destination are both free.
    pub fn schedule(&mut self) {
        self.flows.sort_unstable_by_key(|a| (a.left, a.spec.id));
        self.src_busy.fill(false);
        self.dst_busy.fill(false);
        for a in self.flows.iter_mut() {
            let (s, d) = (a.spec.src as usize, a.spec.dst as usize);
            a.on = !self.src_busy[s] && !self.dst_busy[d];
            if a.on {
                self.src_busy[s] = true;
                self.dst_busy[d] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: u32, src: u32, dst: u32, size: Time) -> Active {
        Active::new(FlowSpec { id, start: 0, src, dst, size, deadline_draw: None }, size, size)
    }

    /// Run flows that all arrive at 0 to completion; their finish times.
    fn finish_times(flows: &[Active], hosts: u32) -> Vec<(u32, Time)> {
        let mut ideal = Ideal::new(hosts);
        for &f in flows {
            ideal.add(f);
        }
        crate::flow_level::FlowLevel::Srpt(ideal).finish_all()
    }

    #[test]
    fn one_receiver_is_served_shortest_first() {
        // three senders to one receiver: SRPT on one link
        let t = finish_times(&[flow(0, 1, 0, 30), flow(1, 2, 0, 10), flow(2, 3, 0, 20)], 4);
        assert_eq!(t, vec![(0, 60), (1, 10), (2, 30)]);
    }

    #[test]
    fn disjoint_pairs_run_at_once_and_a_busy_source_waits() {
        // 0->1 and 2->3 share nothing; 0->3 needs both busy ends
        let t = finish_times(&[flow(0, 0, 1, 10), flow(1, 2, 3, 15), flow(2, 0, 3, 5)], 4);
        // shortest first: 2 (0->3) takes source 0 and receiver 3; 0 (0->1)
        // waits for source 0, 1 (2->3) for receiver 3
        assert_eq!(t, vec![(0, 15), (1, 20), (2, 5)]);
    }
}
