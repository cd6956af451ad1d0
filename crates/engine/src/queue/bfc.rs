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
//! **Backpressure** (§3.3.2) is the switch's (`sim.rs`, with the pause
//! counters): this port reports the queue it assigned, the queue's length
//! before the packet, and the number of active queues (non-empty and not
//! paused), from which the pause threshold follows. A pause from the
//! downstream port names one of these queues; the queue then sends nothing
//! until the resume.

use super::Entry;
use crate::bitset::Bitset;
use crate::packet::LINK_LOCAL;
use crate::port::Hop;
use crate::ring::Ring;
use crate::time::Time;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// How flows are assigned to queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assign {
    /// BFC's dynamic assignment (an empty queue, else a random one).
    Dynamic,
    /// A static hash of the flow (stochastic fair queueing).
    Stochastic,
    /// Every flow in one queue.
    Single,
}

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
    /// The queue whose turn it is, and whether its turn has begun.
    turn: usize,
    turn_started: bool,
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
            turn: 0,
            turn_started: false,
            control: Ring::new(),
            table: vec![TableEntry::default(); table_size.max(1)],
            assign,
            sticky_ps,
            scan_start: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(0),
            active: 0,
            eligible: Bitset::new(queues as u32),
            last_queue: None,
            assignments: 0,
            collisions: 0,
            active_flows: 0,
        }
    }

    pub fn seed(&mut self, seed: u64) {
        self.rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    }

    /// Control frames and ACKs go first, unassigned and never paused.
    #[inline]
    pub fn is_control(e: &Entry) -> bool {
        e.hop.dst == LINK_LOCAL || e.flow & 1 == 1
    }

    /// Whether the next packet is recirculated (App. A.8's sampling: with
    /// probability `p`; all of them, drawing nothing, at 1).
    pub fn sampled(&mut self, p: f64) -> bool {
        p >= 1.0 || self.rng.gen::<f64>() < p
    }

    /// The queue for a packet of the flow with hash `h`, arriving at `now`;
    /// the flow table counts the packet in if `counted` (sampling counts
    /// only recirculated packets, App. A.8: a flow whose counted packets
    /// have all left may get a new queue while others are still here).
    pub fn assign(&mut self, h: u64, now: Time, counted: bool) -> usize {
        let n = self.queues.len();
        if self.assign == Assign::Single {
            return 0;
        }
        // the flow table tells a new flow apart for either assignment; the
        // stochastic one keeps it only to count collisions
        let i = (h % self.table.len() as u64) as usize;
        let e = self.table[i];
        let new = e.size == 0 && (e.ts == 0 || now >= e.ts + self.sticky_ps);
        let q = if self.assign == Assign::Stochastic {
            (h % n as u64) as usize
        } else if !new {
            e.queue as usize
        } else {
            let empty = (0..n).map(|k| (self.scan_start + k) % n).find(|&q| self.queues[q].is_empty());
            self.scan_start = (self.scan_start + 1) % n;
            empty.unwrap_or_else(|| self.rng.gen_range(0..n))
        };
        if new {
            self.assignments += 1;
            self.collisions += !self.queues[q].is_empty() as u64;
        }
        self.active_flows += (counted && e.size == 0) as u32;
        self.table[i] = TableEntry { queue: q as u16, size: e.size + counted as u32, ts: now };
        q
    }

    /// A packet of the flow with hash `h` left the switch at `now`.
    pub fn release(&mut self, h: u64, now: Time) {
        if self.assign != Assign::Single {
            let i = (h % self.table.len() as u64) as usize;
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

    /// The next packet: control first, then deficit round robin among the
    /// data queues that have packets and are not paused (quantum: one
    /// full packet, so fair queueing at packet granularity).
    pub fn pop(&mut self) -> Option<Hop> {
        if let Some(h) = self.control.pop_front() {
            self.last_queue = None;
            return Some(h);
        }
        let n = self.queues.len() as u32;
        for _ in 0..=2 * n {
            // the next queue with packets and not paused, from the turn on
            let q = self.eligible.next_set(self.turn as u32, n).or_else(|| self.eligible.next_set(0, n))? as usize;
            if q != self.turn {
                self.turn = q;
                self.turn_started = false;
            }
            let head = *self.queues[q].front().expect("eligible queues have packets");
            if !self.turn_started {
                self.deficit[q] += self.quantum;
                self.turn_started = true;
            }
            if self.deficit[q] >= head.size as u64 {
                self.deficit[q] -= head.size as u64;
                self.queues[q].pop_front();
                self.bytes[q] -= head.size as u64;
                if self.queues[q].is_empty() {
                    self.deficit[q] = 0;
                    self.active -= 1;
                    self.eligible.clear(q as u32);
                    self.next_turn();
                }
                self.last_queue = Some(q as u16);
                return Some(head);
            }
            self.next_turn();
        }
        None
    }

    fn next_turn(&mut self) {
        self.turn = (self.turn + 1) % self.queues.len();
        self.turn_started = false;
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
        Hop { id, size, dst: 0 }
    }

    #[test]
    fn new_flows_take_empty_queues_and_keep_them_while_they_have_packets() {
        let mut b = BfcQueues::new(4, 400, Assign::Dynamic, 1048, 4_000_000);
        let qa = b.assign(11, 1, true);
        b.push(hop(0, 1000), qa);
        let qb = b.assign(22, 2, true);
        b.push(hop(1, 1000), qb);
        assert_ne!(qa, qb);
        // flow 11 again: its packet is still here, same queue
        assert_eq!(b.assign(11, 3, true), qa);
        b.push(hop(2, 1000), qa);
        // all four queues busy: a fifth flow collides with one of them
        for (h, id) in [(33, 3), (44, 4)] {
            let q = b.assign(h, 4, true);
            b.push(hop(id, 1000), q);
        }
        assert_eq!(b.collisions, 0);
        let q = b.assign(55, 5, true);
        assert!(q < 4);
        assert_eq!(b.collisions, 1);
        assert_eq!(b.assignments, 5, "flow 11's second packet is no new assignment");
        assert_eq!(b.active_flows, 5);
        // flow 22's packet leaves; within the sticky time it keeps its queue
        b.release(22, 10);
        assert_eq!(b.active_flows, 4);
        assert_eq!(b.assign(22, 11, true), qb);
        assert_eq!((b.assignments, b.active_flows), (5, 5));
    }

    #[test]
    fn stochastic_assignment_counts_new_flows_hashed_onto_busy_queues() {
        // the hash alone picks the queue; the flow table only tells new
        // flows apart, to count those that land on a queue with packets
        let mut b = BfcQueues::new(4, 400, Assign::Stochastic, 1048, 0);
        assert_eq!(b.assign(1, 1, true), 1);
        b.push(hop(0, 1000), 1);
        assert_eq!(b.assign(5, 2, true), 1); // 5 % 4: the busy queue
        b.push(hop(1, 1000), 1);
        assert_eq!(b.assign(2, 3, true), 2);
        assert_eq!(b.assign(401, 4, true), 1, "a flow sharing flow 1's table entry still goes by its hash");
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
}
