//! A port that obeys PFC (IEEE 802.1Qbb), as the switches and RDMA NICs of
//! the HPCC simulator model it (the one BFC NSDI'22 §6.2 ran DCQCN, DCTCP
//! and HPCC on): a control queue served strictly first and never paused,
//! which carries PFC frames (and ACKs, when they ride at high priority, as
//! the simulator's `ACK_HIGH_PRIO` puts them for DCQCN), and one data queue,
//! FIFO, that a pause from the far end of the link stops (XOFF) until a
//! resume (XON). All data is in one priority class, as in the simulator's
//! runs (every flow in the same class), so one pause stops all of it.
//!
//! A pause stops the *next* departure: the packet being serialized
//! finishes (a switch does not preempt a frame).

use super::Entry;
use crate::packet::LINK_LOCAL;
use crate::port::Hop;
use crate::config::Red;
use crate::ring::Ring;
use crate::time::Time;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Debug)]
pub struct PfcQueue {
    control: Ring<Hop>,
    data: Ring<Hop>,
    data_bytes: u64,
    acks_high_priority: bool,
    /// A pause from the far end holds the data queue.
    pub paused: bool,
    /// When the current pause began, and the paused time before it.
    paused_since: Time,
    paused_before: Time,
    /// RED-style marking at dequeue (DCQCN's), with its own random stream.
    red: Option<(Red, Xoshiro256PlusPlus)>,
}

impl PfcQueue {
    pub fn new(acks_high_priority: bool, red: Option<Red>) -> PfcQueue {
        PfcQueue {
            red: red.map(|r| (r, Xoshiro256PlusPlus::seed_from_u64(0))),
            control: Ring::new(),
            data: Ring::new(),
            data_bytes: 0,
            acks_high_priority,
            paused: false,
            paused_since: 0,
            paused_before: 0,
        }
    }

    /// A PFC frame arrives: pause (XOFF) or resume (XON). A pause while
    /// paused (or a resume while running) changes nothing: PFC is XON/XOFF
    /// here, as in the HPCC simulator, which ignores a pause's duration.
    pub fn set_paused(&mut self, pause: bool, now: Time) {
        match (self.paused, pause) {
            (false, true) => self.paused_since = now,
            (true, false) => self.paused_before += now - self.paused_since,
            _ => {}
        }
        self.paused = pause;
    }

    /// Time spent paused up to `now`.
    pub fn paused_ps(&self, now: Time) -> Time {
        self.paused_before + if self.paused { now - self.paused_since } else { 0 }
    }

    /// Whether an entry goes to the control queue: PFC frames always; ACKs
    /// (the odd flow numbers of `Entry`) when they ride at high priority.
    #[inline]
    pub fn is_control(&self, e: &Entry) -> bool {
        e.hop.dst == LINK_LOCAL || (self.acks_high_priority && e.flow & 1 == 1)
    }

    /// Queue an entry; the result says whether to mark it (a data-queue
    /// packet that finds at least `ecn_threshold` bytes of data queued
    /// ahead of it, DCTCP's rule). Buffer admission is the switch's
    /// (`buffer.rs`), decided before.
    pub fn push(&mut self, e: Entry, ecn_threshold: u64) -> bool {
        if self.is_control(&e) {
            self.control.push_back(e.hop);
            return false;
        }
        let mark = self.data_bytes >= ecn_threshold;
        self.data_bytes += e.hop.size as u64;
        self.data.push_back(e.hop);
        mark
    }

    /// The next packet to send: control first; data unless paused.
    pub fn pop(&mut self) -> Option<Hop> {
        if let Some(h) = self.control.pop_front() {
            return Some(h);
        }
        if self.paused {
            return None;
        }
        let h = self.data.pop_front()?;
        self.data_bytes -= h.size as u64;
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
    /// left in the data queue after it, always above `kmax`, with
    /// probability `pmax (q - kmin) / (kmax - kmin)` above `kmin`.
    pub fn mark_on_dequeue(&mut self) -> bool {
        let Some((r, rng)) = &mut self.red else { return false };
        let q = self.data_bytes;
        if q > r.kmax_bytes {
            return true;
        }
        if q > r.kmin_bytes {
            let p = r.pmax * (q - r.kmin_bytes) as f64 / (r.kmax_bytes - r.kmin_bytes) as f64;
            return rng.gen::<f64>() < p;
        }
        false
    }

    /// Bytes in the data queue: at a switch, what its shared buffer counts.
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    pub fn len(&self) -> usize {
        self.control.len() + self.data.len()
    }

    /// Whether a packet could be sent now.
    pub fn has_sendable(&self) -> bool {
        !self.control.is_empty() || (!self.paused && !self.data.is_empty())
    }

    pub fn hops(&self) -> impl Iterator<Item = &Hop> + '_ {
        self.control.iter().chain(self.data.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u32, dst: u16, ack: bool) -> Entry {
        Entry { hop: Hop { id, size: 1000, dst }, flow: ack as u32, ..Default::default() }
    }

    #[test]
    fn a_paused_queue_sends_only_control_frames() {
        let mut q = PfcQueue::new(false, None);
        q.push(entry(0, 1, false), u64::MAX);
        q.push(entry(1, 1, true), u64::MAX); // an ACK, at data priority
        q.paused = true;
        q.push(entry(2, LINK_LOCAL, false), u64::MAX);
        assert!(q.has_sendable());
        assert_eq!(q.pop().map(|h| h.id), Some(2));
        assert_eq!(q.pop(), None);
        assert!(!q.has_sendable());
        q.paused = false;
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
        q.paused = true;
        assert_eq!(q.pop().map(|h| h.id), Some(2));
        assert_eq!(q.pop(), None);
    }
}
