//! A port of commodity switches with a few strict-priority FIFO queues
//! sharing one buffer: what PIAS (ToN'17 §IV) and pFabric's §6
//! approximation run on. Queue 0 is served first; a packet's queue is its
//! priority number, the last queue for anything larger (hosts tag it).
//!
//! Buffer: each queue may hold up to `reserved` bytes of its own (pFabric
//! §6.2: "We reserve 15KB (10 packets) of buffer per queue and the rest is
//! shared dynamically on a first-come-first-serve basis"); what a queue
//! holds beyond its reserve comes from the shared rest of the port's
//! buffer. With no reserve the whole buffer is shared (PIAS: 360 KB per
//! port). An arrival that fits neither is dropped (drop-tail).
//!
//! ECN on the instantaneous queue, per queue (the arrival's queue against
//! the threshold) or per port (PIAS §IV: the bytes of all the port's queues
//! against one threshold). As PIAS's ns-2 queue does it (`prio.cc`), the
//! arrival is counted: an ECT packet is marked when the bytes queued,
//! itself included, exceed the threshold; and the arrival is dropped when
//! it does not fit, whatever its priority (no push-out).
//!
//! With dynamic thresholds (Choudhury and Hahne's rule, which Broadcom's
//! "dynamic buffer management" implements, as on the PIAS testbed's
//! switch, ToN'17 §V-A), a queue may take from the shared part at most
//! alpha times what is free of it before the arrival; a queue alone thus
//! settles at alpha / (1 + alpha) of the shared buffer and leaves the rest
//! to the others, where first come, first served lets one queue take all.

use super::Admit;
use crate::packet::Hop;
use crate::ring::Ring;

/// What the ECN threshold is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnScope {
    /// The arriving packet's queue.
    Queue,
    /// All the port's queues together.
    Port,
}

#[derive(Debug)]
pub struct PrioQueues {
    queues: Vec<Ring<Hop>>,
    bytes: Vec<u64>,
    /// Bytes each queue may hold without touching the shared part.
    reserved: u64,
    /// Bytes of the shared part in use, and its size.
    shared_used: u64,
    shared_cap: u64,
    scope: EcnScope,
    /// Dynamic thresholds: alpha as (numerator, denominator).
    dt_alpha: Option<(u64, u64)>,
}

/// Bytes of a queue holding `bytes` that come out of the shared part.
#[inline]
fn beyond(bytes: u64, reserved: u64) -> u64 {
    bytes.saturating_sub(reserved)
}

impl PrioQueues {
    /// `k` queues in a buffer of `limit` bytes, `reserved` of them each
    /// queue's own (`k * reserved <= limit`, checked by the caller).
    pub fn new(k: usize, limit: u64, reserved: u64, scope: EcnScope) -> PrioQueues {
        assert!(k >= 1, "at least one queue");
        let own = reserved.saturating_mul(k as u64);
        assert!(own <= limit, "the reserves ({own} B) exceed the buffer ({limit} B)");
        PrioQueues {
            queues: (0..k).map(|_| Ring::new()).collect(),
            bytes: vec![0; k],
            reserved,
            shared_used: 0,
            shared_cap: limit - own,
            scope,
            dt_alpha: None,
        }
    }

    /// Dynamic thresholds with alpha = `[num, den]` (none: first come,
    /// first served).
    pub fn with_dynamic_threshold(mut self, alpha: Option<[u32; 2]>) -> PrioQueues {
        self.dt_alpha = alpha.map(|[n, d]| {
            assert!(n > 0 && d > 0, "alpha must be a positive fraction");
            (n as u64, d as u64)
        });
        self
    }

    pub fn len(&self) -> usize {
        self.queues.iter().map(Ring::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(Ring::is_empty)
    }

    pub fn hops(&self) -> impl Iterator<Item = &Hop> + '_ {
        self.queues.iter().flat_map(Ring::iter)
    }

    /// The queue of a packet with priority number `prio`.
    #[inline]
    pub fn queue_of(&self, prio: u64) -> usize {
        prio.min(self.queues.len() as u64 - 1) as usize
    }

    /// Admission of `hop` into the queue for `prio` when the port holds
    /// `total` bytes: `(decision, mark)`, where `mark` says the queue (or
    /// the port), the arrival included, holds more than `ecn_threshold`.
    pub fn offer(&mut self, hop: Hop, prio: u64, total: u64, ecn_threshold: u64) -> (Admit, bool) {
        let q = self.queue_of(prio);
        let size = hop.size as u64;
        let more = beyond(self.bytes[q] + size, self.reserved) - beyond(self.bytes[q], self.reserved);
        if self.shared_used + more > self.shared_cap {
            return (Admit::Dropped, false);
        }
        if let Some((num, den)) = self.dt_alpha {
            // the queue's take of the shared part, the arrival included,
            // against alpha x the free shared part before it
            let take = beyond(self.bytes[q] + size, self.reserved);
            if more > 0 && take as u128 * den as u128 > num as u128 * (self.shared_cap - self.shared_used) as u128 {
                return (Admit::Dropped, false);
            }
        }
        let seen = size
            + match self.scope {
                EcnScope::Queue => self.bytes[q],
                EcnScope::Port => total,
            };
        self.shared_used += more;
        self.bytes[q] += size;
        self.queues[q].push_back(hop);
        (Admit::Queued, seen > ecn_threshold)
    }

    /// The head of the first non-empty queue.
    pub fn pop(&mut self) -> Option<Hop> {
        let q = self.queues.iter().position(|r| !r.is_empty())?;
        let hop = self.queues[q].pop_front().expect("non-empty");
        let size = hop.size as u64;
        self.shared_used -= beyond(self.bytes[q], self.reserved) - beyond(self.bytes[q] - size, self.reserved);
        self.bytes[q] -= size;
        Some(hop)
    }

    /// Bytes of the shared part in use (for tests and checks).
    pub fn shared_used(&self) -> u64 {
        self.shared_used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(id: u32) -> Hop {
        Hop { id, size: 1500, dst: 0, flow: 0 }
    }

    #[test]
    fn strict_priority_fifo_within_a_queue() {
        let mut q = PrioQueues::new(3, u64::MAX / 2, 0, EcnScope::Queue);
        for (id, prio) in [(0, 2), (1, 1), (2, 0), (3, 1), (4, 9), (5, 0)] {
            assert_eq!(q.offer(hop(id), prio, 0, u64::MAX).0, Admit::Queued);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|h| h.id).collect();
        // priorities beyond the last queue go to the last queue
        assert_eq!(order, vec![2, 5, 1, 3, 0, 4]);
    }

    #[test]
    fn reserves_first_then_the_shared_part_first_come_first_served() {
        // pFabric §6.2 in miniature: 10 packets, 2 reserved per queue, 4 queues
        let mut q = PrioQueues::new(4, 15_000, 3000, EcnScope::Queue);
        // queue 3 takes its 2 and all 2 shared packets; a 5th is dropped
        for id in 0..4 {
            assert_eq!(q.offer(hop(id), 3, 0, u64::MAX).0, Admit::Queued);
        }
        assert_eq!(q.shared_used(), 3000);
        assert_eq!(q.offer(hop(4), 3, 0, u64::MAX).0, Admit::Dropped);
        // queue 0 still has its reserve, but no more
        assert_eq!(q.offer(hop(5), 0, 0, u64::MAX).0, Admit::Queued);
        assert_eq!(q.offer(hop(6), 0, 0, u64::MAX).0, Admit::Queued);
        assert_eq!(q.offer(hop(7), 0, 0, u64::MAX).0, Admit::Dropped);
        // sending queue 0's packets frees its reserve only
        assert_eq!(q.pop().map(|h| h.id), Some(5));
        assert_eq!(q.shared_used(), 3000);
        assert_eq!(q.offer(hop(8), 3, 0, u64::MAX).0, Admit::Dropped);
        assert_eq!(q.offer(hop(9), 0, 0, u64::MAX).0, Admit::Queued);
    }

    #[test]
    fn dynamic_thresholds_keep_room_for_other_queues() {
        // 12 packets shared, alpha = 1/2: a queue alone stops at 1/3 of the
        // buffer (4 packets: a 5th would take 5 > 1/2 x 8 free before it)
        let mut q = PrioQueues::new(2, 18_000, 0, EcnScope::Queue).with_dynamic_threshold(Some([1, 2]));
        let admitted = (0..12).filter(|&id| q.offer(hop(id), 1, 0, u64::MAX).0 == Admit::Queued).count();
        assert_eq!(admitted, 4);
        // the other queue still gets in, up to half of what is then free
        let high = (20..32).filter(|&id| q.offer(hop(id), 0, 0, u64::MAX).0 == Admit::Queued).count();
        assert_eq!(high, 3); // a 4th would take 4 > 1/2 x 5 free before it
        // first come, first served lets the low queue take everything
        let mut fcfs = PrioQueues::new(2, 18_000, 0, EcnScope::Queue);
        let all = (0..12).filter(|&id| fcfs.offer(hop(id), 1, 0, u64::MAX).0 == Admit::Queued).count();
        assert_eq!(all, 12);
        assert_eq!(fcfs.offer(hop(99), 0, 0, u64::MAX).0, Admit::Dropped);
        // reserves come first and are not subject to the threshold: with 2
        // packets reserved per queue and 6 shared, alpha = 1/2, a queue
        // alone holds its 2 and then 2 shared (a 3rd would take 3 > 1/2 x 4)
        let mut r = PrioQueues::new(2, 15_000, 3000, EcnScope::Queue).with_dynamic_threshold(Some([1, 2]));
        let low = (0..10).filter(|&id| r.offer(hop(id), 1, 0, u64::MAX).0 == Admit::Queued).count();
        assert_eq!((low, r.shared_used()), (4, 3000));
        // the other queue's reserve is still whole
        assert_eq!(r.offer(hop(20), 0, 0, u64::MAX).0, Admit::Queued);
        assert_eq!(r.offer(hop(21), 0, 0, u64::MAX).0, Admit::Queued);
        assert_eq!(r.shared_used(), 3000);
    }

    /// The port as the module doc describes it, written plainly: per queue
    /// a FIFO of (id, size); admission from the bytes held.
    struct Model {
        queues: Vec<std::collections::VecDeque<(u32, u64)>>,
        cap: u64,
        reserved: u64,
        alpha: Option<(u64, u64)>,
    }

    impl Model {
        fn held(&self, q: usize) -> u64 {
            self.queues[q].iter().map(|x| x.1).sum()
        }
        fn shared(&self) -> u64 {
            (0..self.queues.len()).map(|q| self.held(q).saturating_sub(self.reserved)).sum()
        }
        fn offer(&mut self, id: u32, size: u64, q: usize) -> bool {
            let before = self.held(q).saturating_sub(self.reserved);
            let after = (self.held(q) + size).saturating_sub(self.reserved);
            let shared_cap = self.cap - self.reserved * self.queues.len() as u64;
            let free = shared_cap - self.shared();
            let fits = after - before <= free;
            let under = match self.alpha {
                Some((n, d)) if after > before => after * d <= n * free,
                _ => true,
            };
            if fits && under {
                self.queues[q].push_back((id, size));
            }
            fits && under
        }
        fn pop(&mut self) -> Option<u32> {
            self.queues.iter_mut().find(|x| !x.is_empty()).and_then(|x| x.pop_front()).map(|x| x.0)
        }
    }

    #[test]
    fn random_admission_and_service_match_the_model() {
        use rand::{Rng, SeedableRng};
        for seed in 0..40u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let k = rng.gen_range(1..=8usize);
            let reserved = [0u64, 1500, 3000][rng.gen_range(0..3)];
            let cap = reserved * k as u64 + rng.gen_range(0..40u64) * 1000;
            let alpha = [None, Some([1u32, 3]), Some([1, 1]), Some([4, 1])][rng.gen_range(0..4)];
            let per_port = rng.gen_bool(0.5);
            let scope = if per_port { EcnScope::Port } else { EcnScope::Queue };
            let ecn_threshold = rng.gen_range(0..20_000u64);
            let mut port = PrioQueues::new(k, cap, reserved, scope).with_dynamic_threshold(alpha);
            let mut model =
                Model { queues: vec![Default::default(); k], cap, reserved, alpha: alpha.map(|[n, d]| (n as u64, d as u64)) };
            for id in 0..2000u32 {
                if rng.gen_bool(0.55) {
                    let (size, prio) = (rng.gen_range(40..=1500u16), rng.gen_range(0..12u64));
                    let q = port.queue_of(prio);
                    let total: u64 = (0..k).map(|i| model.held(i)).sum();
                    // ECN on the instantaneous queue (or port), the arrival included
                    let seen = size as u64 + if per_port { total } else { model.held(q) };
                    let (admit, mark) = port.offer(Hop { id, size, dst: 0, flow: 0 }, prio, total, ecn_threshold);
                    let admitted = admit == Admit::Queued;
                    assert_eq!(admitted, model.offer(id, size as u64, q), "seed {seed}, packet {id}");
                    assert_eq!(mark, admitted && seen > ecn_threshold, "seed {seed}, packet {id}: marking");
                } else {
                    // strict priority, FIFO within a queue
                    assert_eq!(port.pop().map(|h| h.id), model.pop(), "seed {seed}, step {id}");
                }
                assert_eq!(port.shared_used(), model.shared(), "seed {seed}, step {id}");
                assert!(port.shared_used() <= cap - reserved * k as u64);
            }
        }
    }

    #[test]
    fn ecn_per_queue_or_per_port() {
        let mut per_q = PrioQueues::new(2, 1 << 20, 0, EcnScope::Queue);
        let mut per_p = PrioQueues::new(2, 1 << 20, 0, EcnScope::Port);
        let mut total = 0;
        for id in 0..3 {
            // 3 packets in the low queue: 4,500 B at the port
            per_q.offer(hop(id), 1, total, 3000);
            per_p.offer(hop(id), 1, total, 3000);
            total += 1500;
        }
        // a high-priority arrival sees an empty queue of its own but a full port
        assert!(!per_q.offer(hop(9), 0, total, 3000).1);
        assert!(per_p.offer(hop(9), 0, total, 3000).1);
        // the arrival counts, and the threshold itself is not exceeded
        let mut q = PrioQueues::new(1, 1 << 20, 0, EcnScope::Queue);
        assert!(!q.offer(hop(0), 0, 0, 3000).1);
        assert!(!q.offer(hop(1), 0, 1500, 3000).1);
        assert!(q.offer(hop(2), 0, 3000, 3000).1);
    }
}
