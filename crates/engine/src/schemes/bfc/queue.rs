//! A BFC egress port (Goyal et al., NSDI'22 §3): a few physical FIFO
//! queues (32 by default) with flows assigned to them dynamically, served
//! by deficit round robin among the queues that are not paused, and a
//! control queue served first (pause and resume frames; ACKs).
//!
//! **Dynamic queue assignment** (§3.3.1). A flow table of `table_size`
//! entries (100x the queues, §3.3.1) indexed by a hash of the flow holds
//! the flow's queue and how many of its packets are in the switch. A
//! packet whose entry counts none (and has been idle for the sticky time,
//! 2 hop RTTs, §3.4) gets a new queue: an empty one if any, scanning from
//! a rotating start (§3.4: the pipelines' rotating start points), else a
//! random one. Variants: `Stochastic` (a static hash, as SFQ; Fig. 27) and
//! `Single` (one queue, like PFC; Fig. 8).
//!
//! **Traffic classes** (App. A.3): "queues at a port are statically
//! assigned to different priority levels. The switch performs dynamic
//! queue assignment for each class independently": class `c` of `k` owns
//! queues `c n / k .. (c + 1) n / k` and the same share of the flow table;
//! the classes are served in strict priority (class 0 first), and "queues
//! at the same priority level follow fair scheduling" (deficit round robin
//! within the class).
//!
//! **BFC-SRF** (App. A.2): "the switch schedules queues in order of
//! remaining size of the packet at the head of the queue" (the remaining
//! size a flow writes into each packet it sends; ties: the lower queue),
//! in place of deficit round robin (`set_srf`).
//!
//! **Backpressure** (§3.3.2) is the switch's (`switch.rs`, with the pause
//! counters): this port reports the queue it assigned, the queue's length
//! before the packet, and the number of active queues (non-empty and not
//! paused), from which the pause threshold follows. A pause from the
//! downstream port names one of these queues; the queue then sends nothing
//! until the resume.

use crate::bitset::Bitset;
use crate::packet::Hop;
use crate::ring::Ring;
use crate::time::Time;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// How flows are assigned to queues (a setting of the discipline: defined
/// with the configuration, which every module may read).
pub use crate::config::Assign;

#[derive(Clone, Copy, Debug, Default)]
struct TableEntry {
    queue: u16,
    /// Packets of the flows hashed here that are in the switch.
    size: u32,
    /// When one last entered or left.
    ts: Time,
}

#[derive(Debug)]
pub struct BfcQueues {
    queues: Vec<Ring<Hop>>,
    bytes: Vec<u64>,
    paused: Vec<bool>,
    deficit: Vec<u64>,
    quantum: u64,
    /// Per traffic class: the queue whose turn it is, and whether its turn
    /// has begun.
    turns: Vec<(usize, bool)>,
    /// Traffic classes: class `c` owns queues `bounds[c]..bounds[c + 1]`
    /// and `per_class` entries of the flow table.
    classes: usize,
    bounds: Vec<usize>,
    per_class: usize,
    control: Ring<Hop>,
    table: Vec<TableEntry>,
    assign: Assign,
    sticky_ps: Time,
    scan_start: usize,
    rng: Xoshiro256PlusPlus,
    /// Data queues with packets and not paused (kept as they change), and
    /// which they are.
    active: usize,
    eligible: Bitset,
    /// BFC-SRF: each data packet's remaining-size header, by queue in the
    /// queue's order (empty: deficit round robin).
    tags: Vec<Ring<u64>>,
    /// The data queue of the last packet `pop` returned (None: control).
    pub last_queue: Option<u16>,
    /// Flows given a queue (a flow-table entry with no packet in the
    /// switch and idle past the sticky time), and those of them whose queue
    /// already held packets (Fig. 27(b)).
    pub assignments: u64,
    pub collisions: u64,
    /// Flow-table entries holding packets (flows with packets here; flows
    /// sharing an entry count once): BFC Fig. 10(c)'s active flows. With
    /// sampling it counts the entries holding recirculated packets, as the
    /// table does.
    pub active_flows: u32,
}

impl BfcQueues {
    pub fn new(queues: usize, table_size: usize, assign: Assign, quantum: u64, sticky_ps: Time) -> BfcQueues {
        assert!((1..=u16::MAX as usize).contains(&queues), "1 to 65535 queues");
        BfcQueues {
            queues: (0..queues).map(|_| Ring::new()).collect(),
            bytes: vec![0; queues],
            paused: vec![false; queues],
            deficit: vec![0; queues],
            quantum: quantum.max(1),
            turns: vec![(0, false)],
            classes: 1,
            bounds: vec![0, queues],
            per_class: table_size.max(1),
            control: Ring::new(),
            table: vec![TableEntry::default(); table_size.max(1)],
            assign,
            sticky_ps,
            scan_start: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(0),
            active: 0,
            eligible: Bitset::new(queues as u32),
            tags: Vec::new(),
            last_queue: None,
            assignments: 0,
            collisions: 0,
            active_flows: 0,
        }
    }

    pub fn seed(&mut self, seed: u64) {
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    }

    /// Serve the queues shortest remaining first (BFC-SRF, App. A.2).
    pub fn set_srf(&mut self) {
        self.tags = (0..self.queues.len()).map(|_| Ring::new()).collect();
    }

    pub fn srf(&self) -> bool {
        !self.tags.is_empty()
    }

    /// Partition the queues (and the flow table) evenly among `classes`
    /// strict-priority classes.
    pub fn set_classes(&mut self, classes: u8) -> Result<(), String> {
        let (k, n) = (classes.max(1) as usize, self.queues.len());
        if k > n || k > self.table.len() {
            return Err(format!("{k} traffic classes need at least {k} BFC queues and flow-table entries per port"));
        }
        self.classes = k;
        self.bounds = (0..=k).map(|c| c * n / k).collect();
        self.turns = self.bounds[..k].iter().map(|&q| (q, false)).collect();
        self.per_class = self.table.len() / k;
        Ok(())
    }

    /// The traffic class of a data packet of flow `flow`.
    #[inline]
    pub fn class_of(&self, flow: u32) -> usize {
        crate::workload::traffic_class(flow, self.classes as u8) as usize
    }

    /// The flow-table entry of the flow with hash `h` in class `c` (each
    /// class has its share of the table).
    #[inline]
    fn entry(&self, h: u64, c: usize) -> usize {
        c * self.per_class + (h % self.per_class as u64) as usize
    }

    /// Whether the next packet is recirculated (App. A.8's sampling: with
    /// probability `p`; all of them, drawing nothing, at 1).
    pub fn sampled(&mut self, p: f64) -> bool {
        p >= 1.0 || self.rng.gen::<f64>() < p
    }

    /// The queue for a packet of the flow with hash `h` in traffic class
    /// `c`, arriving at `now`; the flow table counts the packet in if
    /// `counted` (sampling counts only recirculated packets, App. A.8: a
    /// flow whose counted packets have all left may get a new queue while
    /// others are still here).
    pub fn assign(&mut self, h: u64, c: usize, now: Time, counted: bool) -> usize {
        let (lo, n) = (self.bounds[c], self.bounds[c + 1] - self.bounds[c]);
        if self.assign == Assign::Single {
            return lo;
        }
        // the flow table tells a new flow apart for either assignment; the
        // stochastic one keeps it only to count collisions
        let i = self.entry(h, c);
        let e = self.table[i];
        let new = e.size == 0 && (e.ts == 0 || now >= e.ts + self.sticky_ps);
        let q = if self.assign == Assign::Stochastic {
            lo + (h % n as u64) as usize
        } else if !new {
            e.queue as usize
        } else {
            let empty = (0..n).map(|k| lo + (self.scan_start + k) % n).find(|&q| self.queues[q].is_empty());
            self.scan_start = (self.scan_start + 1) % n;
            empty.unwrap_or_else(|| lo + self.rng.gen_range(0..n))
        };
        if new {
            self.assignments += 1;
            self.collisions += !self.queues[q].is_empty() as u64;
        }
        self.active_flows += (counted && e.size == 0) as u32;
        self.table[i] = TableEntry { queue: q as u16, size: e.size + counted as u32, ts: now };
        q
    }

    /// A packet of the flow with hash `h` in class `c` left the switch at
    /// `now`.
    pub fn release(&mut self, h: u64, c: usize, now: Time) {
        if self.assign != Assign::Single {
            let i = self.entry(h, c);
            let e = &mut self.table[i];
            self.active_flows -= (e.size == 1) as u32;
            e.size = e.size.saturating_sub(1);
            e.ts = now;
        }
    }

    /// Bytes in data queue `q`.
    pub fn queue_bytes(&self, q: usize) -> u64 {
        self.bytes[q]
    }

    /// Data queues with packets that are not paused.
    #[inline]
    pub fn active(&self) -> usize {
        debug_assert_eq!(
            self.active,
            (0..self.queues.len()).filter(|&q| !self.queues[q].is_empty() && !self.paused[q]).count()
        );
        self.active
    }

    pub fn push_control(&mut self, hop: Hop) {
        self.control.push_back(hop);
    }

    pub fn push(&mut self, hop: Hop, q: usize) {
        self.push_tagged(hop, q, 0);
    }

    /// `push`, with the packet's remaining-size header (BFC-SRF's order;
    /// unused otherwise).
    pub fn push_tagged(&mut self, hop: Hop, q: usize, tag: u64) {
        if let Some(t) = self.tags.get_mut(q) {
            t.push_back(tag);
        }
        if self.queues[q].is_empty() && !self.paused[q] {
            self.active += 1;
            self.eligible.set(q as u32);
        }
        self.bytes[q] += hop.size as u64;
        self.queues[q].push_back(hop);
    }

    /// A pause or resume from the downstream port for queue `q`.
    pub fn set_paused(&mut self, q: usize, pause: bool) {
        let Some(p) = self.paused.get_mut(q) else { return };
        if *p != pause && !self.queues[q].is_empty() {
            if pause {
                self.active -= 1;
                self.eligible.clear(q as u32);
            } else {
                self.active += 1;
                self.eligible.set(q as u32);
            }
        }
        *p = pause;
    }

    /// The next packet: control first, then, in the first traffic class
    /// with a queue that has packets and is not paused, deficit round
    /// robin among such queues (quantum: one full packet, so fair queueing
    /// at packet granularity).
    pub fn pop(&mut self) -> Option<Hop> {
        if let Some(h) = self.control.pop_front() {
            self.last_queue = None;
            return Some(h);
        }
        if self.active == 0 {
            return None;
        }
        let (c, lo, hi) = if self.classes == 1 {
            (0, 0, self.queues.len() as u32)
        } else {
            let bounds = &self.bounds;
            let c = (0..self.classes).find(|&c| self.eligible.next_set(bounds[c] as u32, bounds[c + 1] as u32).is_some())?;
            (c, bounds[c] as u32, bounds[c + 1] as u32)
        };
        if !self.tags.is_empty() {
            // BFC-SRF: the queue whose head has the least left of its flow
            let mut best: Option<(u64, u32)> = None;
            let mut q = self.eligible.next_set(lo, hi);
            while let Some(i) = q {
                let tag = *self.tags[i as usize].front().expect("eligible queues have packets");
                if best.is_none_or(|(t, _)| tag < t) {
                    best = Some((tag, i));
                }
                q = self.eligible.next_set(i + 1, hi);
            }
            let q = best.expect("an eligible queue in the class").1 as usize;
            self.tags[q].pop_front();
            return Some(self.take(q));
        }
        // the class's turn, kept in locals and saved on the way out
        let (mut turn, mut started) = self.turns[c];
        let next = |turn: usize| if turn + 1 >= hi as usize { lo as usize } else { turn + 1 };
        let mut out = None;
        for _ in 0..=2 * (hi - lo) {
            // the class's next queue with packets and not paused, from its
            // turn on
            let Some(q) = self.eligible.next_set(turn as u32, hi).or_else(|| self.eligible.next_set(lo, hi)) else {
                break;
            };
            let q = q as usize;
            if q != turn {
                turn = q;
                started = false;
            }
            let head = *self.queues[q].front().expect("eligible queues have packets");
            if !started {
                self.deficit[q] += self.quantum;
                started = true;
            }
            if self.deficit[q] >= head.size as u64 {
                self.deficit[q] -= head.size as u64;
                out = Some(self.take(q));
                if self.queues[q].is_empty() {
                    (turn, started) = (next(turn), false);
                }
                break;
            }
            (turn, started) = (next(turn), false);
        }
        self.turns[c] = (turn, started);
        out
    }

    /// A data packet of `size` bytes assigned queue `q` at a port with
    /// nothing queued and the line free: leave the queues as pushing it and
    /// popping it at once would (the queue's deficit spent, the class's
    /// turn past it), if it may leave now (its queue is not paused, and one
    /// quantum covers it); false: queue it.
    pub fn pass(&mut self, q: usize, size: u64) -> bool {
        debug_assert!(self.active == 0 && self.control.is_empty() && self.bytes.iter().all(|&b| b == 0));
        if self.paused[q] || (self.tags.is_empty() && self.quantum < size) {
            return false;
        }
        if self.tags.is_empty() {
            let c = self.bounds.partition_point(|&b| b <= q) - 1;
            let (lo, hi) = (self.bounds[c], self.bounds[c + 1]);
            self.turns[c] = (if q + 1 >= hi { lo } else { q + 1 }, false);
            self.deficit[q] = 0;
        }
        self.last_queue = Some(q as u16);
        true
    }

    /// Take the head of data queue `q` (eligible).
    fn take(&mut self, q: usize) -> Hop {
        let head = self.queues[q].pop_front().expect("eligible queues have packets");
        self.bytes[q] -= head.size as u64;
        if self.queues[q].is_empty() {
            self.deficit[q] = 0;
            self.active -= 1;
            self.eligible.clear(q as u32);
        }
        self.last_queue = Some(q as u16);
        head
    }

    pub fn len(&self) -> usize {
        self.control.len() + self.queues.iter().map(Ring::len).sum::<usize>()
    }

    pub fn has_sendable(&self) -> bool {
        !self.control.is_empty() || self.active > 0
    }

    pub fn hops(&self) -> impl Iterator<Item = &Hop> + '_ {
        self.control.iter().chain(self.queues.iter().flat_map(Ring::iter))
    }

    /// Bytes in the data queues (what a shared buffer counts).
    pub fn data_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(id: u32, size: u16) -> Hop {
        Hop { id, size, dst: 0, flow: 0 }
    }

    #[test]
    fn new_flows_take_empty_queues_and_keep_them_while_they_have_packets() {
        let mut b = BfcQueues::new(4, 400, Assign::Dynamic, 1048, 4_000_000);
        let qa = b.assign(11, 0, 1, true);
        b.push(hop(0, 1000), qa);
        let qb = b.assign(22, 0, 2, true);
        b.push(hop(1, 1000), qb);
        assert_ne!(qa, qb);
        // flow 11 again: its packet is still here, same queue
        assert_eq!(b.assign(11, 0, 3, true), qa);
        b.push(hop(2, 1000), qa);
        // all four queues busy: a fifth flow collides with one of them
        for (h, id) in [(33, 3), (44, 4)] {
            let q = b.assign(h, 0, 4, true);
            b.push(hop(id, 1000), q);
        }
        assert_eq!(b.collisions, 0);
        let q = b.assign(55, 0, 5, true);
        assert!(q < 4);
        assert_eq!(b.collisions, 1);
        assert_eq!(b.assignments, 5, "flow 11's second packet is no new assignment");
        assert_eq!(b.active_flows, 5);
        // flow 22's packet leaves; within the sticky time it keeps its queue
        b.release(22, 0, 10);
        assert_eq!(b.active_flows, 4);
        assert_eq!(b.assign(22, 0, 11, true), qb);
        assert_eq!((b.assignments, b.active_flows), (5, 5));
    }

    #[test]
    fn stochastic_assignment_counts_new_flows_hashed_onto_busy_queues() {
        // the hash alone picks the queue; the flow table only tells new
        // flows apart, to count those that land on a queue with packets
        let mut b = BfcQueues::new(4, 400, Assign::Stochastic, 1048, 0);
        assert_eq!(b.assign(1, 0, 1, true), 1);
        b.push(hop(0, 1000), 1);
        assert_eq!(b.assign(5, 0, 2, true), 1); // 5 % 4: the busy queue
        b.push(hop(1, 1000), 1);
        assert_eq!(b.assign(2, 0, 3, true), 2);
        assert_eq!(b.assign(401, 0, 4, true), 1, "a flow sharing flow 1's table entry still goes by its hash");
        assert_eq!((b.assignments, b.collisions), (3, 1));
    }

    #[test]
    fn round_robin_among_unpaused_queues_and_control_first() {
        let mut b = BfcQueues::new(3, 300, Assign::Stochastic, 1048, 0);
        for i in 0..3 {
            b.push(hop(i, 1000), 0);
            b.push(hop(10 + i, 1000), 1);
            b.push(hop(20 + i, 1000), 2);
        }
        b.set_paused(1, true);
        b.push_control(hop(99, 64));
        let order: Vec<u32> = std::iter::from_fn(|| b.pop()).map(|h| h.id).collect();
        assert_eq!(order, vec![99, 0, 20, 1, 21, 2, 22]);
        assert!(!b.has_sendable() && b.len() == 3);
        b.set_paused(1, false);
        assert_eq!(b.pop().map(|h| h.id), Some(10));
        assert_eq!(b.last_queue, Some(1));
    }

    #[test]
    fn deficit_round_robin_shares_bytes_not_packets() {
        // queue 0 sends 1000 B packets, queue 1 100 B ones: per turn of
        // 1048 B, one large packet against ten small ones
        let mut b = BfcQueues::new(2, 200, Assign::Stochastic, 1048, 0);
        for i in 0..10 {
            b.push(hop(i, 1000), 0);
        }
        for i in 0..100 {
            b.push(hop(100 + i, 100), 1);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..44 {
            let h = b.pop().unwrap();
            bytes[(h.id >= 100) as usize] += h.size as u64;
        }
        assert!(bytes[0].abs_diff(bytes[1]) <= 1048, "{bytes:?}");
    }

    #[test]
    fn classes_own_their_queues_and_go_in_strict_priority() {
        // 8 queues, 2 classes: class 0 owns queues 0-3, class 1 queues 4-7
        let mut b = BfcQueues::new(8, 800, Assign::Dynamic, 1048, 0);
        b.set_classes(2).unwrap();
        let mut qs = [vec![], vec![]];
        for h in 0..12u64 {
            let c = (h % 2) as usize;
            let q = b.assign(h, c, 1, true);
            b.push(hop(h as u32, 1000), q);
            qs[c].push(q);
        }
        assert!(qs[0].iter().all(|&q| q < 4) && qs[1].iter().all(|&q| (4..8).contains(&q)), "{qs:?}");
        assert_eq!(b.collisions, 4, "six flows per class on four queues");
        // class 0 drains first, round robin among its queues
        let order: Vec<u32> = std::iter::from_fn(|| b.pop()).map(|h| h.id).collect();
        assert!(order[..6].iter().all(|id| id % 2 == 0) && order[6..].iter().all(|id| id % 2 == 1), "{order:?}");
        // a paused class-0 queue lets class 1 through
        let q0 = b.assign(100, 0, 2, true);
        b.push(hop(100, 1000), q0);
        let q1 = b.assign(101, 1, 2, true);
        b.push(hop(101, 1000), q1);
        b.set_paused(q0, true);
        assert_eq!(b.pop().map(|h| h.id), Some(101));
        assert_eq!(b.pop(), None);
        assert!(BfcQueues::new(2, 200, Assign::Dynamic, 1048, 0).set_classes(3).is_err());
    }

    #[test]
    fn srf_serves_the_queue_whose_head_has_least_left() {
        // BFC-SRF: three queues with heads of 50, 20 and 90 bytes left; a
        // paused queue waits whatever it holds; ties go to the lower queue
        let mut b = BfcQueues::new(4, 400, Assign::Dynamic, 1048, 0);
        b.set_srf();
        b.push_tagged(hop(0, 1000), 0, 50);
        b.push_tagged(hop(1, 1000), 0, 49);
        b.push_tagged(hop(2, 1000), 1, 20);
        b.push_tagged(hop(3, 1000), 2, 90);
        b.push_tagged(hop(4, 1000), 3, 5);
        b.set_paused(3, true);
        let order: Vec<u32> = std::iter::from_fn(|| b.pop()).map(|h| h.id).collect();
        // queue 1 (20), then queue 0's 50 and 49 in its FIFO order, then 90
        assert_eq!(order, vec![2, 0, 1, 3]);
        assert_eq!(b.last_queue, Some(2));
        b.set_paused(3, false);
        b.push_tagged(hop(5, 1000), 1, 5);
        assert_eq!(b.pop().map(|h| h.id), Some(5), "a tie: the lower queue");
        assert_eq!(b.pop().map(|h| h.id), Some(4));
        assert_eq!((b.active(), b.data_bytes()), (0, 0));
    }

    #[test]
    fn an_idle_port_passes_a_packet_as_push_then_pop_would() {
        for classes in [1u8, 2] {
            let (mut a, mut b) = (BfcQueues::new(8, 800, Assign::Dynamic, 1048, 0),
                                  BfcQueues::new(8, 800, Assign::Dynamic, 1048, 0));
            a.set_classes(classes).unwrap();
            b.set_classes(classes).unwrap();
            for q in [3usize, 7, 0] {
                assert!(a.pass(q, 1000));
                b.push(hop(q as u32, 1000), q);
                assert_eq!(b.pop().map(|h| h.id), Some(q as u32));
                assert_eq!((a.turns.clone(), a.deficit.clone(), a.last_queue),
                           (b.turns.clone(), b.deficit.clone(), b.last_queue));
            }
        }
        let mut a = BfcQueues::new(4, 400, Assign::Dynamic, 1048, 0);
        a.set_paused(2, true);
        assert!(!a.pass(2, 1000), "a paused queue holds it");
        assert!(!BfcQueues::new(4, 400, Assign::Dynamic, 500, 0).pass(1, 1000), "more than a quantum: queued");
    }
}
