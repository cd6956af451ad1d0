//! Per-flow fair queueing with unbounded queues: BFC's Ideal-FQ (NSDI'22
//! §6.2.1: "we simulate ideal fair queuing with infinite buffering at each
//! switch"), the bound on what per-flow scheduling could give. Every flow
//! with packets at the port has a FIFO of its own (created when its first
//! packet arrives, recycled when its last leaves), served by deficit round
//! robin with a one-packet quantum, after a control queue (ACKs) served
//! first. Unlike BFC's queues (`bfc.rs`) there is no limit on the number
//! of queues, so flows never share one, and nothing pauses.
//!
//! With `srf` it is BFC App. A.2's IdealSRF: the same unlimited queues,
//! served shortest remaining first (the queue whose head packet carries
//! the least left of its flow, `Entry::prio`; ties: the queue that became
//! busy first) instead of round robin.

use super::Entry;
use crate::packet::Hop;
use crate::ring::Ring;
use std::collections::{HashMap, VecDeque};

#[derive(Debug, Default)]
struct FlowQueue {
    hops: Ring<Hop>,
    /// With `srf`: each packet's remaining-size header.
    tags: Ring<u64>,
    deficit: u64,
}

#[derive(Debug)]
pub struct FqQueues {
    control: Ring<Hop>,
    /// The queue of each flow with packets here, by `Entry::flow`.
    of_flow: HashMap<u32, usize>,
    queues: Vec<FlowQueue>,
    /// The flow of each queue in use, and the unused queues.
    flow_of: Vec<u32>,
    free: Vec<usize>,
    /// Queues with packets, in round-robin order; the head's turn has
    /// begun when `started`.
    ring: VecDeque<usize>,
    started: bool,
    quantum: u64,
    srf: bool,
    data_bytes: u64,
    len: usize,
}

impl FqQueues {
    pub fn new(quantum: u64) -> FqQueues {
        FqQueues {
            control: Ring::new(),
            of_flow: HashMap::new(),
            queues: Vec::new(),
            flow_of: Vec::new(),
            free: Vec::new(),
            ring: VecDeque::new(),
            started: false,
            quantum: quantum.max(1),
            srf: false,
            data_bytes: 0,
            len: 0,
        }
    }

    /// Serve shortest remaining first (IdealSRF).
    pub fn set_srf(&mut self) {
        self.srf = true;
    }

    pub fn srf(&self) -> bool {
        self.srf
    }

    pub fn push(&mut self, e: Entry) {
        self.len += 1;
        // control frames and ACKs go first (as at BFC's ports)
        if e.is_control() {
            self.control.push_back(e.hop);
            return;
        }
        self.data_bytes += e.hop.size as u64;
        let q = match self.of_flow.get(&e.flow) {
            Some(&q) => q,
            None => {
                let q = self.free.pop().unwrap_or_else(|| {
                    self.queues.push(FlowQueue::default());
                    self.flow_of.push(0);
                    self.queues.len() - 1
                });
                self.of_flow.insert(e.flow, q);
                self.flow_of[q] = e.flow;
                self.ring.push_back(q);
                q
            }
        };
        self.queues[q].hops.push_back(e.hop);
        if self.srf {
            self.queues[q].tags.push_back(e.prio);
        }
    }

    /// The next packet: control first, then deficit round robin over the
    /// flows with packets.
    pub fn pop(&mut self) -> Option<Hop> {
        if let Some(h) = self.control.pop_front() {
            self.len -= 1;
            return Some(h);
        }
        if self.srf {
            return self.pop_srf();
        }
        loop {
            let &q = self.ring.front()?;
            let fq = &mut self.queues[q];
            if !self.started {
                fq.deficit += self.quantum;
                self.started = true;
            }
            let head = *fq.hops.front().expect("queues in the ring have packets");
            if fq.deficit < head.size as u64 {
                // its turn is over: to the back, with what is left
                self.ring.rotate_left(1);
                self.started = false;
                continue;
            }
            fq.deficit -= head.size as u64;
            fq.hops.pop_front();
            self.len -= 1;
            self.data_bytes -= head.size as u64;
            if fq.hops.is_empty() {
                fq.deficit = 0;
                self.ring.pop_front();
                self.started = false;
                self.of_flow.remove(&self.flow_of[q]);
                self.free.push(q);
            }
            return Some(head);
        }
    }

    /// IdealSRF's choice: the flow whose head packet has the least left.
    fn pop_srf(&mut self) -> Option<Hop> {
        let (pos, _) = self
            .ring
            .iter()
            .enumerate()
            .min_by_key(|&(i, &q)| (*self.queues[q].tags.front().expect("queues in the ring have packets"), i))?;
        let q = self.ring[pos];
        let fq = &mut self.queues[q];
        let head = fq.hops.pop_front().expect("queues in the ring have packets");
        fq.tags.pop_front();
        self.len -= 1;
        self.data_bytes -= head.size as u64;
        if fq.hops.is_empty() {
            self.ring.remove(pos);
            self.of_flow.remove(&self.flow_of[q]);
            self.free.push(q);
        }
        Some(head)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Flows with packets here.
    pub fn active_flows(&self) -> usize {
        self.ring.len()
    }

    /// Bytes of data queued (what a shared buffer counts).
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    pub fn hops(&self) -> impl Iterator<Item = &Hop> + '_ {
        self.control.iter().chain(self.ring.iter().flat_map(|&q| self.queues[q].hops.iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u32, flow: u32, size: u16) -> Entry {
        Entry { hop: Hop { id, size, dst: 0, flow: 0 }, flow: flow << 1, ..Default::default() }
    }

    #[test]
    fn every_flow_gets_its_own_queue_and_an_equal_share_of_bytes() {
        // 40 flows, far more than any fixed set of queues: one packet each
        // in turn; a flow of small packets gets as many bytes as one of
        // large packets
        let mut q = FqQueues::new(1048);
        for f in 0..40 {
            for i in 0..3 {
                q.push(entry(f * 10 + i, f, 1000));
            }
        }
        let first: Vec<u32> = (0..40).map(|_| q.pop().unwrap().id).collect();
        assert_eq!(first, (0..40).map(|f| f * 10).collect::<Vec<_>>());
        assert_eq!((q.len(), q.active_flows()), (80, 40));
        let mut q = FqQueues::new(1048);
        for i in 0..100 {
            q.push(entry(i, 1, 100));
        }
        for i in 0..10 {
            q.push(entry(100 + i, 2, 1000));
        }
        let mut bytes = [0u64; 2];
        for _ in 0..55 {
            let h = q.pop().unwrap();
            bytes[(h.id >= 100) as usize] += h.size as u64;
        }
        // deficit round robin's bound: a quantum and a packet apart
        assert!(bytes[0].abs_diff(bytes[1]) <= 1048 + 1000, "{bytes:?}");
    }

    #[test]
    fn acks_go_first_and_drained_flows_free_their_queue() {
        let mut q = FqQueues::new(1048);
        q.push(entry(0, 7, 1000));
        q.push(Entry { hop: Hop { id: 1, size: 64, dst: 0, flow: 0 }, flow: 9 << 1 | 1, ..Default::default() });
        assert_eq!(q.pop().map(|h| h.id), Some(1));
        assert_eq!(q.pop().map(|h| h.id), Some(0));
        assert_eq!((q.pop(), q.len(), q.data_bytes(), q.active_flows()), (None, 0, 0, 0));
        // flow 7's queue is reused by the next flow
        q.push(entry(2, 8, 1000));
        assert_eq!(q.queues.len(), 1);
        assert_eq!(q.hops().count(), 1);
    }

    #[test]
    fn srf_serves_the_flow_whose_head_has_least_left() {
        // IdealSRF: flows 1, 2, 3 with heads of 300, 100 and 100 bytes
        // left: flow 2 (busy before flow 3) first, each flow's packets in
        // order; control first
        let mut q = FqQueues::new(1048);
        q.set_srf();
        let tagged = |id, flow, left| Entry { prio: left, ..entry(id, flow, 1000) };
        q.push(tagged(0, 1, 300));
        q.push(tagged(1, 2, 100));
        q.push(tagged(2, 3, 100));
        q.push(tagged(3, 2, 50));
        q.push(tagged(4, 1, 200));
        q.push(Entry { flow: 9 << 1 | 1, ..entry(5, 0, 60) });
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|h| h.id).collect();
        assert_eq!(order, vec![5, 1, 3, 2, 0, 4]);
        assert_eq!((q.len(), q.active_flows(), q.data_bytes()), (0, 0, 0));
    }
}
