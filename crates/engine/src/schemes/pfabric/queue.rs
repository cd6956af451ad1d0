//! pFabric's switch port (SIGCOMM'13 §4.1): "priority scheduling" sends the
//! most urgent packet (lowest priority number) and "priority dropping"
//! drops the least urgent when the buffer is full. The buffer is tiny (two
//! bandwidth-delay products), so a linear scan per operation is the right
//! data structure (§4.1: "the switch ... decide[s] which packet to
//! dequeue/drop ... with a small number of packets").
//!
//! The details follow the ns-2 code the paper ran (pfabric.patch, the
//! patched `queue/drop-tail.cc`; docs/schemes.md):
//! - the buffer is full when the bytes queued plus the arriving packet's
//!   reach the limit; then the arrival joins and exactly one packet leaves:
//!   among those whose removal brings the bytes below the limit, the one
//!   with the largest priority number, the one nearest the tail on a tie (so
//!   the arrival loses every tie);
//! - the next packet sent is the first with the smallest number; with
//!   starvation prevention (§4.1, "keep_order"), the earliest queued packet
//!   of that packet's flow is sent instead.

use crate::queue::{Admit, Entry};
use crate::packet::Hop;

/// No node: the end of a list, or an empty group.
const NIL: u32 = u32::MAX;

/// A buffered packet: what the port decides by, the order it arrived in,
/// and the next packet of its flow here.
#[derive(Clone, Copy, Debug)]
struct Node {
    hop: Hop,
    prio: u64,
    /// Arrival order at this port (ties: the earliest is sent first, the
    /// latest dropped first).
    seq: u64,
    next: u32,
}

/// The buffered packets of one flow, in arrival order, and the first of
/// them with the smallest priority number: a flow's best packet.
#[derive(Clone, Copy, Debug)]
struct Group {
    min_prio: u64,
    min_seq: u64,
    min_node: u32,
    flow: u32,
    head: u32,
    tail: u32,
}

/// The queue keeps its packets by flow. The decisions are those of a scan
/// of all packets in arrival order (the ns-2 code's; `Reference` in the
/// tests is that scan, and a random test holds the two equal), but the
/// next packet is found among flows, not packets. That matters: a flow
/// the fabric starves keeps sending probes every RTO (§4.2), and they
/// wait at its bottleneck, hundreds of them at high load, while the port
/// rarely holds packets of more than two or three flows
/// (docs/performance.md).
#[derive(Debug)]
pub struct PFabricQueue {
    nodes: Vec<Node>,
    /// Unused nodes, linked by `next`.
    free: u32,
    groups: Vec<Group>,
    len: usize,
    seq: u64,
    starvation_prevention: bool,
}

impl PFabricQueue {
    pub fn new(starvation_prevention: bool) -> PFabricQueue {
        PFabricQueue {
            nodes: Vec::with_capacity(32),
            free: NIL,
            groups: Vec::with_capacity(4),
            len: 0,
            seq: 0,
            starvation_prevention,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffered packets (by flow, not in arrival order).
    pub fn hops(&self) -> impl Iterator<Item = Hop> + '_ {
        self.groups.iter().flat_map(move |g| self.list(g.head).map(move |n| self.nodes[n as usize].hop))
    }

    /// The nodes of a list from `head` on.
    fn list(&self, head: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(head).filter(|&n| n != NIL), move |&n| {
            Some(self.nodes[n as usize].next).filter(|&m| m != NIL)
        })
    }

    /// Admission of `e` when `queued` bytes are buffered under a limit of
    /// `limit` bytes. The caller keeps the byte count (`queued < limit`
    /// holds before and after). Inlined, as are `pop` and what they call,
    /// into the event loop: at pFabric's ports the calls' own cost was 3% of
    /// the instructions (docs/performance.md); a full buffer is rare and
    /// stays out of line.
    #[inline(always)]
    pub fn offer(&mut self, e: Entry, queued: u64, limit: u64) -> Admit {
        let node = self.push(e);
        if queued + (e.hop.size as u64) < limit {
            return Admit::Queued;
        }
        self.evict(node, queued + e.hop.size as u64, limit)
    }

    /// Whether some buffered packet has priority number 0 (a SYN, or LAS's
    /// first packets): none does, and an ACK (number 0, the latest) goes
    /// before every buffered packet.
    #[inline(always)]
    pub fn holds_zero(&self) -> bool {
        self.groups.iter().any(|g| g.min_prio == 0)
    }

    /// The buffer is full with `node` (just queued) in it, `total` bytes:
    /// among the packets whose removal brings the bytes below the limit
    /// (the arrival always does), the largest number goes, the latest on a
    /// tie.
    #[cold]
    #[inline(never)]
    fn evict(&mut self, node: u32, total: u64, limit: u64) -> Admit {
        let (mut victim, mut vg, mut key) = (node, 0, (0, 0));
        for (gi, g) in self.groups.iter().enumerate() {
            for n in self.list(g.head) {
                let x = &self.nodes[n as usize];
                if total - (x.hop.size as u64) < limit && (x.prio, x.seq) >= key {
                    (victim, vg, key) = (n, gi, (x.prio, x.seq));
                }
            }
        }
        let gone = self.unlink(vg, victim);
        if victim == node {
            Admit::Dropped
        } else {
            Admit::Replaced(gone)
        }
    }

    /// The next packet to send: the first of the smallest number, or with
    /// starvation prevention the earliest packet of that packet's flow.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Hop> {
        let first = self.groups.first()?;
        let (mut best, mut key) = (0, (first.min_prio, first.min_seq));
        for (gi, g) in self.groups.iter().enumerate().skip(1) {
            if (g.min_prio, g.min_seq) < key {
                (best, key) = (gi, (g.min_prio, g.min_seq));
            }
        }
        let g = &self.groups[best];
        let node = if self.starvation_prevention { g.head } else { g.min_node };
        Some(self.unlink(best, node))
    }

    /// Buffer `e` at the tail of its flow's list.
    #[inline(always)]
    fn push(&mut self, e: Entry) -> u32 {
        let seq = self.seq;
        self.seq += 1;
        let node = Node { hop: e.hop, prio: e.prio, seq, next: NIL };
        let n = if self.free == NIL {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        } else {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        };
        self.len += 1;
        match self.groups.iter().position(|g| g.flow == e.flow) {
            Some(gi) => {
                let g = &mut self.groups[gi];
                self.nodes[g.tail as usize].next = n;
                g.tail = n;
                if e.prio < g.min_prio {
                    (g.min_prio, g.min_seq, g.min_node) = (e.prio, seq, n);
                }
            }
            None => self.groups.push(Group {
                min_prio: e.prio,
                min_seq: seq,
                min_node: n,
                flow: e.flow,
                head: n,
                tail: n,
            }),
        }
        n
    }

    /// Take node `n` out of group `gi`'s list and the buffer.
    #[inline(always)]
    fn unlink(&mut self, gi: usize, n: u32) -> Hop {
        let next = self.nodes[n as usize].next;
        let g = self.groups[gi];
        if g.head == n {
            self.groups[gi].head = next;
        } else {
            let prev = self.list(g.head).find(|&m| self.nodes[m as usize].next == n).expect("a node of the group");
            self.nodes[prev as usize].next = next;
            if g.tail == n {
                self.groups[gi].tail = prev;
            }
        }
        if next == NIL && g.head == n {
            self.groups.swap_remove(gi);
        } else if g.min_node == n {
            self.refresh_min(gi);
        }
        let hop = self.nodes[n as usize].hop;
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.len -= 1;
        hop
    }

    /// Find group `gi`'s best packet again (its best one left).
    fn refresh_min(&mut self, gi: usize) {
        let head = self.groups[gi].head;
        let h = &self.nodes[head as usize];
        let mut best = (h.prio, h.seq, head);
        for n in self.list(h.next) {
            let x = &self.nodes[n as usize];
            if x.prio < best.0 {
                best = (x.prio, x.seq, n);
            }
        }
        let g = &mut self.groups[gi];
        (g.min_prio, g.min_seq, g.min_node) = best;
    }
}

/// pFabric-EDF's port (§5.4.2): "deadline-constrained flows ... in a
/// separate queue with strict priority"; each queue is a pFabric queue
/// with the port's whole buffer (36 KB each).
#[derive(Debug)]
pub struct TwoClasses {
    classes: [PFabricQueue; 2],
    bytes: [u64; 2],
}

impl TwoClasses {
    pub fn new(starvation_prevention: bool) -> TwoClasses {
        TwoClasses {
            classes: [PFabricQueue::new(starvation_prevention), PFabricQueue::new(starvation_prevention)],
            bytes: [0, 0],
        }
    }

    pub fn len(&self) -> usize {
        self.classes[0].len() + self.classes[1].len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn hops(&self) -> impl Iterator<Item = Hop> + '_ {
        self.classes[0].hops().chain(self.classes[1].hops())
    }

    /// Admission into the packet's class, whose buffer holds `limit` bytes.
    pub fn offer(&mut self, e: Entry, limit: u64) -> Admit {
        let c = e.class.min(1) as usize;
        let size = e.hop.size as u64;
        let r = self.classes[c].offer(e, self.bytes[c], limit);
        match r {
            Admit::Queued => self.bytes[c] += size,
            Admit::Replaced(h) => self.bytes[c] = self.bytes[c] + size - h.size as u64,
            Admit::Dropped => {}
        }
        r
    }

    pub fn pop(&mut self) -> Option<Hop> {
        for c in 0..2 {
            if let Some(h) = self.classes[c].pop() {
                self.bytes[c] -= h.size as u64;
                return Some(h);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: u32, size: u16, prio: u64, flow: u32) -> Entry {
        Entry { hop: Hop { id, size, dst: 0, flow: 0 }, prio, flow, class: 1 }
    }

    fn ids(q: &mut PFabricQueue) -> Vec<u32> {
        std::iter::from_fn(|| q.pop()).map(|h| h.id).collect()
    }

    #[test]
    fn sends_the_most_urgent_first_earliest_on_ties() {
        let mut q = PFabricQueue::new(false);
        for (id, prio) in [(0, 50), (1, 10), (2, 30), (3, 10), (4, 70)] {
            assert_eq!(q.offer(e(id, 100, prio, id), 0, u64::MAX), Admit::Queued);
        }
        assert_eq!(ids(&mut q), vec![1, 3, 2, 0, 4]);
    }

    #[test]
    fn starvation_prevention_sends_the_best_flows_earliest_packet() {
        // flow 7's packets were stamped as its remaining size fell: its
        // oldest packet carries the largest number, yet goes first
        let mut q = PFabricQueue::new(true);
        for (id, prio, flow) in [(0, 900, 7), (1, 20, 3), (2, 800, 7), (3, 5, 7), (4, 30, 3)] {
            q.offer(e(id, 100, prio, flow), 0, u64::MAX);
        }
        assert_eq!(ids(&mut q), vec![0, 2, 3, 1, 4]);
        let mut plain = PFabricQueue::new(false);
        for (id, prio, flow) in [(0, 900, 7), (1, 20, 3), (2, 800, 7), (3, 5, 7), (4, 30, 3)] {
            plain.offer(e(id, 100, prio, flow), 0, u64::MAX);
        }
        assert_eq!(ids(&mut plain), vec![3, 1, 4, 2, 0]);
    }

    #[test]
    fn a_full_buffer_drops_the_least_urgent_and_the_arrival_loses_ties() {
        let limit = 3 * 1500;
        let mut q = PFabricQueue::new(false);
        let mut queued = 0;
        for (id, prio) in [(0, 40), (1, 90), (2, 60)] {
            // the third reaches the limit: full, and it is the least urgent
            // of the candidates? no: 90 is; it replaces packet 1
            let r = q.offer(e(id, 1500, prio, id), queued, limit);
            match r {
                Admit::Queued => queued += 1500,
                Admit::Replaced(h) => assert_eq!(h.id, 1),
                Admit::Dropped => panic!("{id} dropped"),
            }
        }
        assert_eq!(queued, 3000);
        // an arrival tied with the worst buffered one is the one dropped
        assert_eq!(q.offer(e(3, 1500, 60, 3), queued, limit), Admit::Dropped);
        // a more urgent arrival replaces the worst
        assert_eq!(q.offer(e(4, 1500, 10, 4), queued, limit), Admit::Replaced(Hop { id: 2, size: 1500, dst: 0, flow: 0 }));
        assert_eq!(ids(&mut q), vec![4, 0]);
    }

    /// The decisions as the ns-2 code makes them: one array in arrival
    /// order, scanned for every choice.
    struct Reference {
        entries: Vec<Entry>,
        starvation_prevention: bool,
    }

    impl Reference {
        fn offer(&mut self, e: Entry, queued: u64, limit: u64) -> Admit {
            self.entries.push(e);
            let total = queued + e.hop.size as u64;
            if total < limit {
                return Admit::Queued;
            }
            let (mut victim, mut worst) = (self.entries.len() - 1, 0);
            for (i, x) in self.entries.iter().enumerate() {
                if total - (x.hop.size as u64) < limit && x.prio >= worst {
                    (victim, worst) = (i, x.prio);
                }
            }
            let gone = self.entries.remove(victim);
            if victim == self.entries.len() {
                Admit::Dropped
            } else {
                Admit::Replaced(gone.hop)
            }
        }

        fn pop(&mut self) -> Option<Hop> {
            let mut best = 0;
            for (i, x) in self.entries.iter().enumerate() {
                if x.prio < self.entries[best].prio {
                    best = i;
                }
            }
            let flow = self.entries.get(best)?.flow;
            if self.starvation_prevention {
                best = self.entries.iter().position(|x| x.flow == flow).unwrap();
            }
            Some(self.entries.remove(best).hop)
        }
    }

    #[test]
    fn decides_as_a_scan_of_every_packet_in_arrival_order() {
        use rand::{Rng, SeedableRng};
        for seed in 0..200u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let sp = seed % 2 == 0;
            let limit = rng.gen_range(1500..12_000u64);
            let (mut q, mut r) = (PFabricQueue::new(sp), Reference { entries: vec![], starvation_prevention: sp });
            let mut queued = 0u64;
            for id in 0..2_000u32 {
                if rng.gen_bool(0.45) {
                    let (a, b) = (q.pop(), r.pop());
                    assert_eq!(a, b, "seed {seed}, pop at {id}");
                    queued -= a.map_or(0, |h| h.size as u64);
                    continue;
                }
                // few flows, few distinct numbers (ties), probes and ACKs
                let size = [40u16, 41, 1500, 1500, 1500, 700][rng.gen_range(0..6)];
                let prio = [0u64, 10, 10, 500, 500, 9_000][rng.gen_range(0..6)] + rng.gen_range(0..3);
                let x = Entry { hop: Hop { id, size, dst: 0, flow: 0 }, prio, flow: rng.gen_range(0..5), class: 1 };
                let (a, b) = (q.offer(x, queued, limit), r.offer(x, queued, limit));
                assert_eq!(a, b, "seed {seed}, offer {id}");
                match a {
                    Admit::Queued => queued += size as u64,
                    Admit::Replaced(h) => queued = queued + size as u64 - h.size as u64,
                    Admit::Dropped => {}
                }
                assert_eq!(q.len(), r.entries.len());
                assert_eq!(q.hops().map(|h| h.size as u64).sum::<u64>(), queued);
            }
        }
    }

    #[test]
    fn only_packets_whose_removal_makes_room_are_dropped() {
        // 3,000 of 4,000 bytes queued: a worse 40-byte ACK cannot make room
        // for an arriving full packet, so the worst full packet goes
        let limit = 4000;
        let mut q = PFabricQueue::new(false);
        q.offer(e(0, 40, 1000, 0), 0, limit);
        q.offer(e(1, 1500, 500, 1), 40, limit);
        q.offer(e(2, 1460, 100, 2), 1540, limit);
        assert_eq!(q.offer(e(3, 1500, 200, 3), 3000, limit), Admit::Replaced(Hop { id: 1, size: 1500, dst: 0, flow: 0 }));
    }
}

#[cfg(test)]
mod edf_tests {
    use super::*;

    #[test]
    fn the_deadline_class_goes_first_and_has_its_own_buffer() {
        let mut q = TwoClasses::new(true);
        let e = |id, prio, class| Entry { hop: Hop { id, size: 1500, dst: 0, flow: 0 }, prio, flow: id, class };
        // the rest's buffer (3,000 B) fills with two packets...
        assert_eq!(q.offer(e(0, 9, 1), 3000), Admit::Queued);
        assert_eq!(q.offer(e(1, 5, 1), 3000), Admit::Replaced(Hop { id: 0, size: 1500, dst: 0, flow: 0 }));
        // ...which does not stop deadline packets, earliest deadline first
        assert_eq!(q.offer(e(2, 700, 0), 3000), Admit::Queued);
        assert_eq!(q.offer(e(3, 600, 0), 3000), Admit::Replaced(Hop { id: 2, size: 1500, dst: 0, flow: 0 }));
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|h| h.id).collect();
        assert_eq!(order, vec![3, 1]);
        assert!(q.is_empty());
    }
}
