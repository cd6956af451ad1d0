//! A port that obeys PFC (IEEE 802.1Qbb), as the switches and RDMA NICs of
//! the HPCC simulator model it (the one BFC NSDI'22 §6.2 ran DCQCN, DCTCP
//! and HPCC on): a control queue served strictly first and never paused,
//! which carries PFC frames (and ACKs, when they ride at high priority, as
//! the simulator's `ACK_HIGH_PRIO` puts them for DCQCN), and one data queue,
//! FIFO, that a pause from the far end of the link stops (XOFF) until a
//! resume (XON). All data is in one priority class by default, as in the
//! simulator's runs (every flow in the same class), so one pause stops all
//! of it. With traffic classes (BFC App. A.3) there is a data queue per
//! class, served in strict priority (class 0 first), each paused by its own
//! PFC priority, and ECN marks on the arrival's class queue ("DCTCP marks
//! packets based on per-class queueing", Fig. 20). Or, as the HPCC
//! simulator's switches serve their data queues (`DoDequeueRR`: queue 0,
//! the control queue, first, then the others round robin, one packet per
//! turn), round robin among the classes that may send.
//!
//! A pause stops the *next* departure: the packet being serialized
//! finishes (a switch does not preempt a frame).

use super::Entry;
use crate::packet::LINK_LOCAL;
use crate::packet::Hop;
use crate::config::Red;
use crate::ring::Ring;
use crate::time::Time;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Debug)]
pub struct PfcQueue {
    control: Ring<Hop>,
    /// The data queue of class 0 and the bytes in it, and those of the
    /// other classes (none without classes: the common case stays inline).
    first: (Ring<Hop>, u64),
    rest: Vec<(Ring<Hop>, u64)>,
    data_bytes: u64,
    acks_high_priority: bool,
    /// Bit `c`: class `c` is paused (a pause from the far end holds its
    /// data queue); its data queue has packets; the port has class `c`.
    paused: u8,
    nonempty: u8,
    all: u8,
    /// When some class was last paused while none was, and the time with
    /// some class paused before that.
    paused_since: Time,
    paused_before: Time,
    /// The class of the last data packet `pop` returned.
    last_class: usize,
    /// Round robin among the classes instead of strict priority; the
    /// class whose turn is next.
    round_robin: bool,
    turn: u32,
    /// RED-style marking at dequeue (DCQCN's), with its own random stream.
    red: Option<(Red, Xoshiro256PlusPlus)>,
}

impl PfcQueue {
    pub fn new(acks_high_priority: bool, red: Option<Red>) -> PfcQueue {
        PfcQueue {
            red: red.map(|r| (r, Xoshiro256PlusPlus::seed_from_u64(0))),
            control: Ring::new(),
            first: (Ring::new(), 0),
            rest: Vec::new(),
            data_bytes: 0,
            acks_high_priority,
            paused: 0,
            nonempty: 0,
            all: 1,
            paused_since: 0,
            paused_before: 0,
            last_class: 0,
            round_robin: false,
            turn: 0,
        }
    }

    /// One data queue (and PFC priority) per traffic class, up to 8,
    /// served in strict priority or, with `round_robin`, in turn.
    pub fn set_classes(&mut self, classes: u8, round_robin: bool) {
        assert!(self.len() == 0, "classes are set on an empty port");
        assert!((1..=8).contains(&classes), "1 to 8 traffic classes");
        self.rest = (1..classes).map(|_| (Ring::new(), 0)).collect();
        self.all = (1u16 << classes).wrapping_sub(1) as u8;
        self.round_robin = round_robin && classes > 1;
    }

    pub fn classes(&self) -> u8 {
        1 + self.rest.len() as u8
    }

    /// Class `c`'s data queue and the bytes in it.
    #[inline]
    fn class_mut(&mut self, c: usize) -> &mut (Ring<Hop>, u64) {
        if c == 0 {
            &mut self.first
        } else {
            &mut self.rest[c - 1]
        }
    }

    /// A PFC frame for `class` arrives: pause (XOFF) or resume (XON). A
    /// pause while paused (or a resume while running) changes nothing: PFC
    /// is XON/XOFF here, as in the HPCC simulator, which ignores a pause's
    /// duration. A frame for a class the port does not have is ignored.
    pub fn set_paused(&mut self, class: usize, pause: bool, now: Time) {
        if class >= self.classes() as usize {
            return;
        }
        let before = self.paused;
        if pause {
            self.paused |= 1 << class;
        } else {
            self.paused &= !(1 << class);
        }
        match (before != 0, self.paused != 0) {
            (false, true) => self.paused_since = now,
            (true, false) => self.paused_before += now - self.paused_since,
            _ => {}
        }
    }

    /// Whether `class` is paused.
    #[inline]
    pub fn is_paused(&self, class: usize) -> bool {
        self.paused >> class & 1 == 1
    }

    /// Whether every class is paused (a NIC then asks no flow).
    #[inline]
    pub fn all_paused(&self) -> bool {
        self.paused == self.all
    }

    /// Time with some class paused, up to `now`.
    pub fn paused_ps(&self, now: Time) -> Time {
        self.paused_before + if self.paused != 0 { now - self.paused_since } else { 0 }
    }

    /// Whether an entry goes to the control queue: PFC frames always; ACKs
    /// (the odd flow numbers of `Entry`) when they ride at high priority.
    #[inline]
    pub fn is_control(&self, e: &Entry) -> bool {
        e.hop.dst == LINK_LOCAL || (self.acks_high_priority && e.flow & 1 == 1)
    }

    /// Queue an entry; the result says whether to mark it (a data-queue
    /// packet that finds at least `ecn_threshold` bytes of data queued
    /// ahead of it in its class, DCTCP's rule). Buffer admission is the
    /// switch's (`buffer.rs`), decided before.
    #[inline]
    pub fn push(&mut self, e: Entry, ecn_threshold: u64) -> bool {
        if self.is_control(&e) {
            self.control.push_back(e.hop);
            return false;
        }
        let c = if self.rest.is_empty() { 0 } else { crate::workload::traffic_class(e.flow >> 1, self.classes()) };
        self.data_bytes += e.hop.size as u64;
        self.nonempty |= 1 << c;
        let (q, bytes) = self.class_mut(c as usize);
        let mark = *bytes >= ecn_threshold;
        *bytes += e.hop.size as u64;
        q.push_back(e.hop);
        mark
    }

    /// An entry arriving at the port with nothing queued and the line
    /// free: what `push` then `pop` would do if it can leave now (control,
    /// or data of a class not paused), without queueing it; `None` if it
    /// must wait. Returns `push`'s marking decision.
    #[inline]
    pub fn pass(&mut self, e: &Entry, ecn_threshold: u64) -> Option<bool> {
        debug_assert!(self.control.is_empty() && self.data_bytes == 0);
        if self.is_control(e) {
            return Some(false);
        }
        let c = if self.rest.is_empty() { 0 } else { crate::workload::traffic_class(e.flow >> 1, self.classes()) };
        if self.paused & (1 << c) != 0 {
            return None;
        }
        if self.round_robin {
            self.turn = (c as u32 + 1) % 8;
        }
        self.last_class = c as usize;
        Some(ecn_threshold == 0)
    }

    /// The next packet to send: control first; then the data of the first
    /// class with data that is not paused (in round robin, the first such
    /// class from the one whose turn it is).
    #[inline]
    pub fn pop(&mut self) -> Option<Hop> {
        if let Some(h) = self.control.pop_front() {
            return Some(h);
        }
        let ready = self.nonempty & !self.paused;
        if ready == 0 {
            return None;
        }
        let c = if self.round_robin {
            // bits above the port's classes are clear, so a rotation of
            // all eight finds the next ready class cyclically
            let c = (self.turn + ready.rotate_right(self.turn).trailing_zeros()) % 8;
            self.turn = (c + 1) % 8;
            c as usize
        } else {
            ready.trailing_zeros() as usize
        };
        let (q, bytes) = self.class_mut(c);
        let h = q.pop_front().expect("non-empty");
        *bytes -= h.size as u64;
        let empty = q.is_empty();
        self.nonempty &= !((empty as u8) << c);
        self.data_bytes -= h.size as u64;
        self.last_class = c;
        Some(h)
    }

    /// Seed the marking's random stream (one per port).
    pub fn seed(&mut self, seed: u64) {
        if let Some((_, rng)) = &mut self.red {
            *rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        }
    }

    /// Whether to mark the data packet just dequeued: as the HPCC
    /// simulator's switches do for DCQCN (`ShouldSendCN`), on the bytes
    /// left in its data queue after it, always above `kmax`, with
    /// probability `pmax (q - kmin) / (kmax - kmin)` above `kmin`.
    pub fn mark_on_dequeue(&mut self) -> bool {
        if self.red.is_none() {
            return false;
        }
        let c = self.last_class;
        let q = self.class_mut(c).1;
        let Some((r, rng)) = &mut self.red else { return false };
        if q > r.kmax_bytes {
            return true;
        }
        if q > r.kmin_bytes {
            let p = r.pmax * (q - r.kmin_bytes) as f64 / (r.kmax_bytes - r.kmin_bytes) as f64;
            return rng.gen::<f64>() < p;
        }
        false
    }

    /// Bytes in the data queues: at a switch, what its shared buffer counts
    /// (and what HPCC's telemetry reports: the port's aggregate).
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    pub fn len(&self) -> usize {
        self.control.len() + self.first.0.len() + self.rest.iter().map(|r| r.0.len()).sum::<usize>()
    }

    /// Whether a packet could be sent now.
    #[inline]
    pub fn has_sendable(&self) -> bool {
        !self.control.is_empty() || self.nonempty & !self.paused != 0
    }

    pub fn hops(&self) -> impl Iterator<Item = &Hop> + '_ {
        self.control.iter().chain(self.first.0.iter()).chain(self.rest.iter().flat_map(|r| r.0.iter()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u32, dst: u16, ack: bool) -> Entry {
        Entry { hop: Hop { id, size: 1000, dst, flow: 0 }, flow: ack as u32, ..Default::default() }
    }

    #[test]
    fn an_idle_port_passes_what_push_then_pop_would_send() {
        // (pass is asked only with nothing queued and the line free)
        let mut q = PfcQueue::new(true, None);
        assert_eq!(q.pass(&entry(0, 1, false), u64::MAX), Some(false));
        assert_eq!(q.pass(&entry(1, 1, false), 0), Some(true), "push marks at a zero threshold");
        q.set_paused(0, true, 0);
        assert_eq!(q.pass(&entry(2, 1, false), u64::MAX), None, "a paused class waits");
        assert_eq!(q.pass(&entry(3, 1, true), u64::MAX), Some(false), "ACKs in the control queue go");
        assert_eq!(q.pass(&entry(4, LINK_LOCAL, false), u64::MAX), Some(false), "and PFC frames");
        // round robin between classes: the turn moves past the class sent,
        // as pop moves it
        let (mut a, mut b) = (PfcQueue::new(false, None), PfcQueue::new(false, None));
        a.set_classes(4, true);
        b.set_classes(4, true);
        let e = Entry { flow: 6 << 1, ..entry(5, 1, false) };
        assert_eq!(a.pass(&e, u64::MAX), Some(false));
        b.push(e, u64::MAX);
        assert_eq!(b.pop().map(|h| h.id), Some(5));
        assert_eq!((a.turn, a.last_class), (b.turn, b.last_class));
    }

    #[test]
    fn a_paused_queue_sends_only_control_frames() {
        let mut q = PfcQueue::new(false, None);
        q.push(entry(0, 1, false), u64::MAX);
        q.push(entry(1, 1, true), u64::MAX); // an ACK, at data priority
        q.set_paused(0, true, 0);
        q.push(entry(2, LINK_LOCAL, false), u64::MAX);
        assert!(q.has_sendable());
        assert_eq!(q.pop().map(|h| h.id), Some(2));
        assert_eq!(q.pop(), None);
        assert!(!q.has_sendable());
        q.set_paused(0, false, 0);
        assert_eq!(q.pop().map(|h| h.id), Some(0));
        assert_eq!(q.pop().map(|h| h.id), Some(1));
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn high_priority_acks_pass_a_pause_and_marks_count_data_only() {
        let mut q = PfcQueue::new(true, None);
        assert!(!q.push(entry(0, 1, false), 1000));
        assert!(q.push(entry(1, 1, false), 1000)); // 1000 B of data ahead
        assert!(!q.push(entry(2, 1, true), 0)); // ACKs ride in the control queue, unmarked
        q.set_paused(0, true, 0);
        assert_eq!(q.pop().map(|h| h.id), Some(2));
        assert_eq!(q.pop(), None);
    }

    /// An entry of flow `flow` (its data).
    fn of_flow(id: u32, flow: u32) -> Entry {
        Entry { hop: Hop { id, size: 1000, dst: 1, flow: 0 }, flow: flow << 1, ..Default::default() }
    }

    #[test]
    fn classes_go_in_strict_priority_and_pause_on_their_own() {
        let mut q = PfcQueue::new(false, None);
        q.set_classes(2, false);
        // flows of each class, by the workload's hash
        let of_class = |c| (0..).find(|&f| crate::workload::traffic_class(f, 2) == c).unwrap();
        let (f0, f1) = (of_class(0), of_class(1));
        // class 1 first in time, class 0 still leaves first
        assert!(!q.push(of_flow(0, f1), 1500));
        assert!(!q.push(of_flow(1, f1), 1500));
        assert!(!q.push(of_flow(2, f0), 1500), "ECN counts the arrival's class, not the port");
        assert!(q.push(of_flow(3, f1), 1500), "2000 B of its class ahead");
        assert_eq!(q.pop().map(|h| h.id), Some(2));
        // pausing class 0 leaves class 1 free, and the time counts as paused
        q.push(of_flow(4, f0), 1500);
        q.set_paused(0, true, 10);
        assert!(!q.all_paused() && q.is_paused(0));
        assert_eq!(q.pop().map(|h| h.id), Some(0));
        q.set_paused(1, true, 20);
        assert!(q.all_paused() && !q.has_sendable());
        assert_eq!(q.pop(), None);
        q.set_paused(0, false, 30);
        assert_eq!(q.pop().map(|h| h.id), Some(4));
        q.set_paused(1, false, 50);
        assert_eq!(q.paused_ps(100), 40, "some class paused from 10 to 50");
        assert_eq!((q.pop().map(|h| h.id), q.pop().map(|h| h.id), q.len()), (Some(1), Some(3), 0));
    }

    #[test]
    fn round_robin_takes_the_classes_in_turn_and_skips_paused_ones() {
        let mut q = PfcQueue::new(false, None);
        q.set_classes(3, true);
        let of_class = |c| (0..).find(|&f| crate::workload::traffic_class(f, 3) == c).unwrap();
        let f = [of_class(0), of_class(1), of_class(2)];
        // three packets of class 2, two of class 0, one of class 1, in that order
        for (id, c) in [(0, 2), (1, 2), (2, 2), (3, 0), (4, 0), (5, 1)] {
            q.push(of_flow(id, f[c]), u64::MAX);
        }
        q.push(entry(9, LINK_LOCAL, false), u64::MAX);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|h| h.id)).collect();
        assert_eq!(order, vec![9, 3, 5, 0, 4, 1, 2], "control first, then one packet per class in turn");
        // a paused class loses its turns, not its place
        for (id, c) in [(10, 0), (11, 1), (12, 1), (13, 2)] {
            q.push(of_flow(id, f[c]), u64::MAX);
        }
        q.set_paused(1, true, 0);
        // class 2 went last, so class 0's turn; class 1 is passed over
        assert_eq!((q.pop().map(|h| h.id), q.pop().map(|h| h.id)), (Some(10), Some(13)));
        assert_eq!(q.pop(), None);
        q.set_paused(1, false, 0);
        assert_eq!((q.pop().map(|h| h.id), q.pop().map(|h| h.id)), (Some(11), Some(12)));
    }
}
