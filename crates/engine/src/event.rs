//! The event calendar: a min-heap of events ordered by `(time, seq)`, where
//! `seq` is the insertion count. Equal-time events therefore run in the
//! order they were scheduled, which makes runs deterministic.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Everything that can happen. Plain data; the simulation dispatches on it
/// with one `match`.
#[derive(Clone, Copy, Debug)]
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

#[derive(Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// Width of one wheel slot: 2^12 ps = 4.1 ns.
const SLOT_BITS: u32 = 14;
/// Number of wheel slots: 2^12, so the wheel spans 16.8 us, more than any
/// serialization plus propagation delay of the fabrics we model.
const WHEEL_BITS: u32 = 12; // 64 x 64 bits: a two-level bitmap
const WHEEL: u64 = 1 << WHEEL_BITS;
const MASK: u64 = WHEEL - 1;

/// A calendar queue for a discrete-event simulation: a timing wheel of
/// short slots for the near future (where almost every packet event falls)
/// and a binary heap for the far future (timers). Scheduling a near event is
/// a push onto its slot's vector; only the slot being served is sorted.
/// Events come out in `(time, seq)` order exactly as from one big heap
/// (tested against one below).
pub struct Calendar {
    /// Absolute slot (time >> SLOT_BITS) being served.
    cursor: u64,
    /// Events of the cursor's slot, sorted by descending `(time, seq)`, so
    /// the next event is at the end.
    current: Vec<Entry>,
    /// Events of slots cursor+1 .. cursor+WHEEL-1, unsorted, by slot mod WHEEL.
    wheel: Vec<Vec<Entry>>,
    /// One bit per wheel slot (non-empty), and one bit per word of those.
    occupied: Vec<u64>,
    summary: u64,
    /// Events beyond the wheel when they were scheduled.
    far: BinaryHeap<Entry>,
    seq: u64,
    len: usize,
}

impl Default for Calendar {
    fn default() -> Self {
        Calendar {
            cursor: 0,
            current: Vec::new(),
            wheel: (0..WHEEL).map(|_| Vec::new()).collect(),
            occupied: vec![0; (WHEEL / 64) as usize],
            summary: 0,
            far: BinaryHeap::new(),
            seq: 0,
            len: 0,
        }
    }
}

impl Calendar {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        self.seq += 1;
        self.len += 1;
        let e = Entry { time, seq: self.seq, event };
        let slot = time >> SLOT_BITS;
        if slot <= self.cursor {
            // Same slot as the one being served (rare): sorted insert.
            let key = (time, e.seq);
            let at = self.current.partition_point(|c| (c.time, c.seq) > key);
            self.current.insert(at, e);
        } else if slot - self.cursor < WHEEL {
            let i = (slot & MASK) as usize;
            self.wheel[i].push(e);
            self.occupied[i >> 6] |= 1 << (i & 63);
            self.summary |= 1 << (i >> 6);
        } else {
            self.far.push(e);
        }
    }

    /// Make `current` hold the earliest slot's events, if any remain.
    #[inline]
    fn advance(&mut self) -> bool {
        if !self.current.is_empty() {
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
        if wheel_next == Some(next) {
            let i = (next & MASK) as usize;
            self.occupied[i >> 6] &= !(1 << (i & 63));
            if self.occupied[i >> 6] == 0 {
                self.summary &= !(1 << (i >> 6));
            }
            // Swap vectors: the slot keeps the (empty) buffer of `current`.
            std::mem::swap(&mut self.current, &mut self.wheel[i]);
        }
        while self.far.peek().is_some_and(|e| e.time >> SLOT_BITS == next) {
            let e = self.far.pop().expect("peeked");
            self.current.push(e);
        }
        if self.current.len() > 1 {
            self.current.sort_unstable_by(|a, b| (b.time, b.seq).cmp(&(a.time, a.seq)));
        }
    }

    /// The next occupied wheel slot after the cursor, as an absolute slot.
    fn next_occupied(&self) -> Option<u64> {
        if self.summary == 0 {
            return None;
        }
        let start = ((self.cursor + 1) & MASK) as usize;
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
            .or_else(|| {
                let w = self.summary.trailing_zeros() as usize;
                find_from(w, 0)
            })?;
        let dist = (found as u64).wrapping_sub(self.cursor) & MASK;
        Some(self.cursor + if dist == 0 { WHEEL } else { dist })
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        if !self.advance() {
            return None;
        }
        let e = self.current.pop()?;
        self.len -= 1;
        Some((e.time, e.event))
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        if !self.advance() {
            return None;
        }
        self.current.last().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_plain_heap_on_random_schedules() {
        // Near, far and same-slot events, scheduled while popping: the
        // calendar must give the exact (time, seq) order of one big heap.
        let mut c = Calendar::new();
        let mut reference: BinaryHeap<Entry> = BinaryHeap::new();
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
                reference.push(Entry { time: now + delta, seq, event: Event::TxDone { port: seq as u32 } });
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
