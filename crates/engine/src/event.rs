//! The event calendar. Events come out in time order; simultaneous events
//! in a canonical order that does not depend on when they were scheduled:
//! ports that finish serializing first (a packet whose last bit leaves at
//! `t` frees its buffer for a packet arriving at `t`), then link arrivals by
//! port index, then flow arrivals and timers in the order they were
//! scheduled. Runs are therefore deterministic, and the FIFO fast path (no
//! serializer events) gives exactly the results of the general path.
//!
//! It is a calendar queue: a timing wheel of short slots holds the near
//! future, where almost every packet event falls, and a binary heap holds
//! the far future (timers). Scheduling a near event is a push onto its
//! slot's vector; only the slot being served is ever sorted, and it holds a
//! handful of events.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen. Plain data; the simulation dispatches on it
/// with one `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The oldest packet on the link of output port `port` reaches the far
    /// end. A link delivers in order, so each link keeps its packets in a
    /// FIFO and only the head's arrival is in the calendar: the calendar
    /// holds one entry per busy link, not one per packet in flight.
    LinkArrival { port: u32 },
    /// The output port `port` finished serializing a packet and has a
    /// backlog to serve.
    TxDone { port: u32 },
    /// The next flow of the workload starts.
    FlowArrival,
    /// A retransmission timer of the flow in `slot` may have expired.
    Rto { slot: u32, flow: u32 },
}

impl Event {
    /// Tie-break among simultaneous events (see the module comment). Port
    /// indices are below 2^30.
    #[inline]
    fn rank(&self) -> u32 {
        match *self {
            Event::TxDone { port } => port,
            Event::LinkArrival { port } => 1 << 30 | port,
            Event::FlowArrival => 2 << 30,
            Event::Rto { .. } => 3 << 30,
        }
    }
}

/// A wheel entry. Among entries of equal `(time, rank)` its insertion order
/// is its position in the slot vector, so it needs no sequence number (see
/// `Calendar::advance_slow`).
#[derive(Clone, Copy, Debug)]
struct Near {
    time: Time,
    rank: u32,
    event: Event,
}

impl Near {
    #[inline]
    fn key(&self) -> (Time, u32) {
        (self.time, self.rank)
    }
}

/// A far-future entry, ordered by `(time, seq)` in a max-heap turned around.
#[derive(Debug)]
struct Far {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Far {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Far {}
impl PartialOrd for Far {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Far {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.event.rank(), other.seq).cmp(&(self.time, self.event.rank(), self.seq))
    }
}

/// Width of one wheel slot: 2^14 ps = 16.4 ns.
const SLOT_BITS: u32 = 14;
/// The wheel has 2^6 .. 2^12 slots (a two-level bitmap of up to 64 x 64
/// bits finds the next occupied one), sized to the simulation's horizon:
/// every packet event lands within one link's serialization, propagation
/// and host delay. A small wheel stays in cache; events beyond it (timers)
/// go to the heap.
const MIN_WHEEL_BITS: u32 = 6;
const MAX_WHEEL_BITS: u32 = 12;

pub struct Calendar {
    /// Absolute slot (time >> SLOT_BITS) being served.
    cursor: u64,
    /// Events of the cursor's slot sorted by `(time, insertion)`; the next
    /// one is at `head`.
    current: Vec<Near>,
    head: usize,
    /// Events of slots cursor+1 .. cursor+wheel_size-1 in insertion order,
    /// by slot mod wheel_size.
    wheel: Vec<Vec<Near>>,
    wheel_size: u64,
    mask: u64,
    /// One bit per wheel slot (non-empty), and one bit per word of those.
    occupied: Vec<u64>,
    summary: u64,
    /// Events beyond the wheel when they were scheduled.
    far: BinaryHeap<Far>,
    seq: u64,
    len: usize,
}

impl Default for Calendar {
    fn default() -> Self {
        Calendar::with_horizon(1 << (SLOT_BITS + MAX_WHEEL_BITS - 1))
    }
}

impl Calendar {
    pub fn new() -> Self {
        Self::default()
    }

    /// A calendar whose wheel covers at least `horizon` picoseconds ahead
    /// (within the allowed sizes).
    pub fn with_horizon(horizon: Time) -> Self {
        let slots = (horizon >> SLOT_BITS).max(1) * 2;
        let bits = (64 - (slots - 1).leading_zeros()).clamp(MIN_WHEEL_BITS, MAX_WHEEL_BITS);
        let size = 1u64 << bits;
        Calendar {
            cursor: 0,
            current: Vec::new(),
            head: 0,
            wheel: (0..size).map(|_| Vec::with_capacity(8)).collect(),
            wheel_size: size,
            mask: size - 1,
            occupied: vec![0; (size / 64) as usize],
            summary: 0,
            far: BinaryHeap::new(),
            seq: 0,
            len: 0,
        }
    }

    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: Event) {
        self.len += 1;
        let slot = time >> SLOT_BITS;
        let delta = slot.wrapping_sub(self.cursor);
        if delta.wrapping_sub(1) < self.wheel_size - 1 {
            // 1 <= delta < wheel_size: the common case
            let i = (slot & self.mask) as usize;
            self.wheel[i].push(Near { time, rank: event.rank(), event });
            self.occupied[i >> 6] |= 1 << (i & 63);
            self.summary |= 1 << (i >> 6);
        } else if delta == 0 || slot < self.cursor {
            // The slot being served (rare): after every entry not later.
            let e = Near { time, rank: event.rank(), event };
            let at = self.head + self.current[self.head..].partition_point(|c| c.key() <= e.key());
            self.current.insert(at, e);
        } else {
            self.seq += 1;
            self.far.push(Far { time, seq: self.seq, event });
        }
    }

    /// Make `current` hold the earliest slot's events, if any remain.
    #[inline]
    fn advance(&mut self) -> bool {
        if self.head < self.current.len() {
            return true;
        }
        if self.len == 0 {
            return false;
        }
        self.advance_slow();
        true
    }

    fn advance_slow(&mut self) {
        let wheel_next = self.next_occupied();
        let far_next = self.far.peek().map(|e| e.time >> SLOT_BITS);
        let next = match (wheel_next, far_next) {
            (Some(w), Some(f)) => w.min(f),
            (Some(w), None) => w,
            (None, Some(f)) => f,
            (None, None) => unreachable!("len > 0 but no event"),
        };
        self.cursor = next;
        self.current.clear();
        self.head = 0;
        // Far entries of this slot were scheduled before any wheel entry of
        // it (an event enters the wheel only once its slot is within reach,
        // which is later), so they go first, in (time, seq) order ...
        while self.far.peek().is_some_and(|e| e.time >> SLOT_BITS == next) {
            let e = self.far.pop().expect("peeked");
            self.current.push(Near { time: e.time, rank: e.event.rank(), event: e.event });
        }
        if wheel_next == Some(next) {
            let i = (next & self.mask) as usize;
            self.occupied[i >> 6] &= !(1 << (i & 63));
            if self.occupied[i >> 6] == 0 {
                self.summary &= !(1 << (i >> 6));
            }
            if self.current.is_empty() {
                // Swap vectors: the slot keeps the (empty) buffer of `current`.
                std::mem::swap(&mut self.current, &mut self.wheel[i]);
            } else {
                self.current.append(&mut self.wheel[i]);
            }
        }
        // ... and a stable sort keeps insertion order among ties.
        insertion_sort(&mut self.current);
    }

    /// The next occupied wheel slot after the cursor, as an absolute slot.
    fn next_occupied(&self) -> Option<u64> {
        if self.summary == 0 {
            return None;
        }
        let start = ((self.cursor + 1) & self.mask) as usize;
        let (w0, b0) = (start >> 6, start & 63);
        let find_from = |w: usize, b: usize| -> Option<usize> {
            let bits = self.occupied[w] & (!0u64 << b);
            (bits != 0).then(|| w * 64 + bits.trailing_zeros() as usize)
        };
        // the rest of the first word, then later words, then wrap around
        let found = find_from(w0, b0)
            .or_else(|| {
                let later = if w0 + 1 < 64 { self.summary & (!0u64 << (w0 + 1)) } else { 0 };
                (later != 0).then(|| find_from(later.trailing_zeros() as usize, 0)).flatten()
            })
            .or_else(|| find_from(self.summary.trailing_zeros() as usize, 0))?;
        let dist = (found as u64).wrapping_sub(self.cursor) & self.mask;
        Some(self.cursor + if dist == 0 { self.wheel_size } else { dist })
    }

    /// The next event, if it is not later than `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, Event)> {
        if !self.advance() {
            return None;
        }
        let e = self.current[self.head];
        if e.time > limit {
            return None;
        }
        self.head += 1;
        self.len -= 1;
        Some((e.time, e.event))
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_until(Time::MAX)
    }

    pub fn peek_time(&mut self) -> Option<Time> {
        if !self.advance() {
            return None;
        }
        Some(self.current[self.head].time)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Stable sort of a slot's few entries (usually already in order).
#[inline]
fn insertion_sort(v: &mut [Near]) {
    for i in 1..v.len() {
        let e = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].key() > e.key() {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_plain_heap_on_random_schedules() {
        for horizon in [1, 1_000_000, 20_000_000, 1 << 40] {
            random_schedule_against_heap(Calendar::with_horizon(horizon));
        }
    }

    fn random_schedule_against_heap(mut c: Calendar) {
        // Near, far and same-slot events, scheduled while popping: the
        // calendar must give the exact (time, seq) order of one big heap.
        let mut reference: BinaryHeap<Far> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 12345u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut now = 0u64;
        for round in 0..200_000u64 {
            let n = (rnd() % 3) as usize;
            for _ in 0..n {
                let delta = match rnd() % 4 {
                    0 => 0,
                    1 => rnd() % 5_000,
                    2 => rnd() % 20_000_000,
                    _ => rnd() % 400_000_000,
                };
                seq += 1;
                c.schedule(now + delta, Event::TxDone { port: seq as u32 });
                reference.push(Far { time: now + delta, seq, event: Event::TxDone { port: seq as u32 } });
            }
            if round % 2 == 0 || n == 0 {
                let a = c.pop();
                let b = reference.pop();
                match (a, b) {
                    (Some((t, Event::TxDone { port })), Some(e)) => {
                        assert_eq!((t, port as u64), (e.time, e.seq));
                        assert!(t >= now);
                        now = t;
                    }
                    (None, None) => {}
                    other => panic!("diverged: {other:?}"),
                }
            }
            assert_eq!(c.len(), reference.len());
        }
    }

    #[test]
    fn canonical_order_among_ties() {
        let mut c = Calendar::new();
        c.schedule(10, Event::Rto { slot: 0, flow: 0 });
        c.schedule(10, Event::LinkArrival { port: 7 });
        c.schedule(10, Event::LinkArrival { port: 2 });
        c.schedule(10, Event::TxDone { port: 9 });
        let order: Vec<Event> = std::iter::from_fn(|| c.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::TxDone { port: 9 },
                Event::LinkArrival { port: 2 },
                Event::LinkArrival { port: 7 },
                Event::Rto { slot: 0, flow: 0 }
            ]
        );
    }

    #[test]
    fn earliest_first_and_fifo_among_ties() {
        let mut c = Calendar::new();
        c.schedule(30, Event::TxDone { port: 3 });
        c.schedule(10, Event::TxDone { port: 1 });
        c.schedule(10, Event::TxDone { port: 2 });
        c.schedule(20, Event::FlowArrival);
        let order: Vec<(Time, String)> = std::iter::from_fn(|| c.pop())
            .map(|(t, e)| (t, format!("{e:?}")))
            .collect();
        assert_eq!(order[0], (10, "TxDone { port: 1 }".to_string()));
        assert_eq!(order[1], (10, "TxDone { port: 2 }".to_string()));
        assert_eq!(order[2].0, 20);
        assert_eq!(order[3].0, 30);
    }
}
