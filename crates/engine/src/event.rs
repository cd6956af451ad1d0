//! The event calendar. Events come out in time order; simultaneous events
//! in a canonical order that does not depend on when they were scheduled:
//! ports that finish serializing first (a packet whose last bit leaves at
//! `t` frees its buffer for a packet arriving at `t`), then link arrivals by
//! port index, then port timers by port and kind, then flow arrivals, then
//! flow timers by flow slot, timer kind and flow id, then the samplers, then the fault schedule's steps. No
//! two pending events share a key (a link or port has at most one event of
//! a kind pending, a flow one timer of a kind, the workload one arrival,
//! the samplers one sample, a fault step one event), so the order is total. Runs are therefore deterministic, and the FIFO fast path (no
//! serializer events) gives exactly the results of the general path.
//!
//! It is a calendar queue: a timing wheel of short slots holds the near
//! future, where almost every packet event falls, a binary heap holds the
//! far future (timers), and a second one the rare overflow of a full slot
//! (`Calendar::spill`). A wheel
//! slot is a fixed run of entries in one flat array, so scheduling a near
//! event is two stores and a bit set; only the slot being served is
//! sorted, and it holds a handful of events.

use crate::slot::{Slot, Sorter, EMPTY, SLOT_CAP};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Everything that can happen. Plain data; the simulation dispatches on it
/// with one `match`.
///
/// Room for the schemes to come is designed in: the kind takes three bits
/// (seven used), a port may have timers of its own (PFC pause expiry, credit
/// pacing: `PortTimer`), and a flow up to eight kinds of timer (the
/// retransmission timer, pacing, rate and probe timers: `FlowTimer`).
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
    /// A timer of output port `port` (the port's discipline knows which).
    PortTimer { port: u32, timer: u8 },
    /// The next flow of the workload starts.
    FlowArrival,
    /// Timer `timer` of the flow in `slot` may have expired (`flow` tells
    /// whether the slot still holds that flow).
    FlowTimer { slot: u32, flow: u32, timer: u8 },
    /// Time to record the samplers' next sample.
    Sample,
    /// Step `step` of the run's fault schedule (`faults::Faults::steps`):
    /// a fault begins or ends, or routing learns of it.
    Fault { step: u32 },
}

/// Kinds of flow timer.
pub mod timer {
    /// The retransmission timer.
    pub const RTO: u8 = 0;
    /// How many kinds a flow may have.
    pub const KINDS: u8 = 8;
}

/// The kind takes the top three bits of an event's code, then the port or
/// flow slot (with the timer kind in its low three bits for timers), then
/// the flow id. Port and slot indices are below 2^26 (2^29 for the events
/// of packets).
const KIND_SHIFT: u32 = 61;
const INDEX_BITS: u32 = 29;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
const TIMER_BITS: u32 = 3;

impl Event {
    /// The event packed into 64 bits whose order is the tie-break among
    /// simultaneous events (see the module comment).
    #[inline]
    fn code(self) -> u64 {
        let (kind, index, flow) = match self {
            Event::TxDone { port } => (0u64, port, 0),
            Event::LinkArrival { port } => (1, port, 0),
            Event::PortTimer { port, timer } => (2, port << TIMER_BITS | timer as u32, 0),
            Event::FlowArrival => (3, 0, 0),
            Event::FlowTimer { slot, flow, timer } => (4, slot << TIMER_BITS | timer as u32, flow),
            Event::Sample => (5, 0, 0),
            Event::Fault { step } => (6, step, 0),
        };
        debug_assert!((index as u64) <= INDEX_MASK);
        kind << KIND_SHIFT | (index as u64) << 32 | flow as u64
    }

    #[inline]
    fn decode(code: u64) -> Event {
        let index = (code >> 32 & INDEX_MASK) as u32;
        let timer = (index & ((1 << TIMER_BITS) - 1)) as u8;
        match code >> KIND_SHIFT {
            0 => Event::TxDone { port: index },
            1 => Event::LinkArrival { port: index },
            2 => Event::PortTimer { port: index >> TIMER_BITS, timer },
            3 => Event::FlowArrival,
            4 => Event::FlowTimer { slot: index >> TIMER_BITS, flow: code as u32, timer },
            5 => Event::Sample,
            _ => Event::Fault { step: index },
        }
    }
}

/// A heap entry, ordered by `(time, code)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    time: Time,
    code: u64,
}

const NO_ENTRY: Entry = Entry { time: Time::MAX, code: u64::MAX };

/// No wheel slot: later than any.
const NONE: u64 = u64::MAX;

/// A wheel entry: a port event (`TxDone` or `LinkArrival`, the events of
/// packets) in 32 bits whose order is its `(time, code)` order within a
/// slot: the time within the slot, then the kind, then the port. Ports from
/// `WHEEL_PORTS` on (fabrics far beyond what the routing tables hold) go to
/// the heap instead: slower, same order.
const PORT_BITS: u32 = 32 - MAX_SLOT_BITS - 1;
const WHEEL_PORTS: u64 = 1 << PORT_BITS;

#[inline]
fn near_key(time: Time, slot_mask: Time, code: u64) -> u32 {
    ((time & slot_mask) << (PORT_BITS + 1) | (code >> KIND_SHIFT) << PORT_BITS | (code >> 32 & INDEX_MASK)) as u32
}

/// The code of a wheel entry.
#[inline]
fn near_code(key: u32) -> u64 {
    ((key >> PORT_BITS & 1) as u64) << KIND_SHIFT | ((key as u64) & (WHEEL_PORTS - 1)) << 32
}

/// Width of one wheel slot: 2^10 .. 2^14 ps (1 .. 16.4 ns), chosen per
/// fabric (`slot_bits_for`). The time within a slot takes up to 14 bits of
/// a wheel key. The narrowest is 1 ns: on the 6,144-host fabric (about six
/// events per nanosecond) 0.5 ns slots held three events each, a cache line
/// of wheel per three events, and the wheel needed twice the slots for the
/// same span; 1 ns was 2-3% faster there (docs/performance.md).
pub const MIN_SLOT_BITS: u32 = 10;
pub const MAX_SLOT_BITS: u32 = 14;
/// The wheel has 2^6 .. 2^13 slots (a bitmap of up to 128 words finds the
/// next occupied one), sized to the simulation's horizon:
/// every packet event lands within one link's serialization, propagation
/// and host delay, twice over (`with_horizon`). Events beyond it (timers)
/// go to the heap. 2^13: a 6,144-host fabric's host links take 3.9 us a
/// packet (1.2 us of serialization, 2.7 us of delay), beyond the 2^12
/// slots of 0.5 ns it had then, and sent 3% of its events, every
/// host-bound arrival, through the heap (5% of the time;
/// docs/performance.md). With its 1 ns slots since, 2^12 would just span
/// the hop, and measured the same; 2^13 keeps the margin (a 512 KiB
/// wheel, where the cap held 256 KiB).
const MIN_WHEEL_BITS: u32 = 6;
const MAX_WHEEL_BITS: u32 = 13;
pub struct Calendar {
    /// log2 of the slot width in picoseconds, and the width minus one.
    slot_bits: u32,
    slot_mask: Time,
    /// Absolute slot (time >> slot_bits) being served, and its start time.
    cursor: u64,
    base: Time,
    /// The cursor's slot is served in place: its entries
    /// `wheel[at].0[head..end]` are sorted and not yet popped.
    at: usize,
    head: usize,
    end: usize,
    /// Slots cursor+1 .. cursor+wheel_size-1, by slot mod wheel_size: slot
    /// `i` holds `count[i]` entries at `wheel[i]`, unsorted.
    wheel: Vec<Slot>,
    count: Vec<u8>,
    wheel_size: u64,
    mask: u64,
    /// One bit per wheel slot (non-empty).
    occupied: Vec<u64>,
    /// The next occupied wheel slot after the cursor (absolute; `NONE` if
    /// none). It is found when a slot starts being served and lowered by
    /// `schedule`, so moving to the next slot does not read the bitmap:
    /// that read would wait for the bitmap stores of the events just
    /// processed, the end of their whole chain of cache misses. A lowered
    /// hint is a rare branch instead, which the CPU predicts and runs past.
    hint: u64,
    /// Flow arrivals, timers, port events beyond the wheel when they were
    /// scheduled, and the rare ones that find the slot being served full
    /// (or whose port is beyond `WHEEL_PORTS`); `far_top` is the least
    /// entry of `far` and `spill` (`NO_ENTRY` if none), kept at hand
    /// because every pop compares with it.
    far: BinaryHeap<Reverse<Entry>>,
    far_top: Entry,
    /// Port events that found their wheel slot full: a heap of their own,
    /// a few hundred entries that come due within the wheel's span, not
    /// pushed through the thousands of timers in `far` (on 6,144 hosts at
    /// 1 ns slots, 3% of all events; docs/performance.md).
    spill: BinaryHeap<Reverse<Entry>>,
    sorter: Sorter,
    stats: CalendarStats,
}

/// What the calendar did, counted where it is cheap (once per slot, on
/// the rare branches and the heaps' paths, never per wheel event): how
/// many events each slot sorts, and which events took another way
/// (docs/performance.md, issue 13's first item). Every scheduled event
/// is counted once: in the slot it was sorted in, as an insertion into
/// the slot being served, or as one of the heaps' three kinds.
/// `run_config` prints them with `CAL_STATS=1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CalendarStats {
    /// Wheel slots served, and the events in them when they were sorted.
    pub slots: u64,
    pub slot_events: u64,
    /// Port events scheduled into the slot being served, in order.
    pub in_place: u64,
    /// Port events into `far`: beyond the wheel's span, into the slot
    /// being served when it is full, or of a port beyond `WHEEL_PORTS`.
    pub far_port: u64,
    /// Other events into `far`: flow arrivals, timers, samples.
    pub far_other: u64,
    /// Port events that found their wheel slot full (`spill`).
    pub spilled: u64,
}

impl Default for Calendar {
    fn default() -> Self {
        Calendar::with_horizon(1 << (MAX_SLOT_BITS + MAX_WHEEL_BITS - 1), MAX_SLOT_BITS)
    }
}

/// The slot width for a fabric whose ports together serialize
/// `total_rate_bps` and whose largest packet is `mtu_bytes`: about eight
/// times the mean gap between packet departures across the whole fabric
/// at line rate, so a slot holds a few events at the loads studied and
/// rarely overflows its 16 entries into the heap. On pFabric's fabric
/// (144 hosts at 10 Gb/s, 40 Gb/s core, 1.5 KB packets) that is the 16 ns
/// slot the engine was tuned with; on BFC's (128 hosts and core at
/// 100 Gb/s, 1 KB packets), 2 ns, where a 16 ns slot sent 57% of the
/// events to the heap (docs/performance.md). The width changes no result:
/// events come out in `(time, code)` order whatever it is (tested).
pub fn slot_bits_for(total_rate_bps: u64, mtu_bytes: u64) -> u32 {
    if total_rate_bps == 0 {
        return MAX_SLOT_BITS;
    }
    let gap_ps = (mtu_bytes * 8) as f64 * 1e12 / total_rate_bps as f64;
    ((8.0 * gap_ps).log2().round().max(0.0) as u32).clamp(MIN_SLOT_BITS, MAX_SLOT_BITS)
}

impl Calendar {
    pub fn new() -> Self {
        Self::default()
    }

    /// A calendar of slots `2^slot_bits` ps wide whose wheel covers at
    /// least `horizon` picoseconds ahead (within the allowed sizes).
    pub fn with_horizon(horizon: Time, slot_bits: u32) -> Self {
        assert!((MIN_SLOT_BITS..=MAX_SLOT_BITS).contains(&slot_bits), "slot width out of range");
        let slots = (horizon >> slot_bits).max(1) * 2;
        let bits = (64 - (slots - 1).leading_zeros()).clamp(MIN_WHEEL_BITS, MAX_WHEEL_BITS);
        let size = 1u64 << bits;
        Calendar {
            slot_bits,
            slot_mask: (1 << slot_bits) - 1,
            cursor: 0,
            base: 0,
            at: 0,
            head: 0,
            end: 0,
            wheel: vec![EMPTY; size as usize],
            count: vec![0; size as usize],
            wheel_size: size,
            mask: size - 1,
            occupied: vec![0; (size / 64) as usize],
            hint: NONE,
            far: BinaryHeap::new(),
            spill: BinaryHeap::new(),
            far_top: NO_ENTRY,
            sorter: Sorter::detect(),
            stats: CalendarStats::default(),
        }
    }

    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: Event) {
        let code = event.code();
        if code >> (KIND_SHIFT + 1) == 0 && (code >> 32 & INDEX_MASK) < WHEEL_PORTS {
            // A port event: into the wheel if its slot is within reach.
            let slot = time >> self.slot_bits;
            let delta = slot.wrapping_sub(self.cursor);
            let key = near_key(time, self.slot_mask, code);
            if delta.wrapping_sub(1) < self.wheel_size - 1 {
                // 1 <= delta < wheel_size: the common case
                let i = (slot & self.mask) as usize;
                debug_assert!(i < self.wheel.len() && i < self.count.len() && i >> 6 < self.occupied.len());
                // SAFETY: `i <= mask`; `wheel` and `count` have `mask + 1`
                // entries and `occupied` `(mask + 1) / 64` (at least 64
                // slots). Once per packet-hop: the bounds checks were 3% of
                // all instructions.
                unsafe {
                    let n = *self.count.get_unchecked(i) as usize;
                    if n < SLOT_CAP {
                        self.wheel.get_unchecked_mut(i).0[n] = key;
                        *self.count.get_unchecked_mut(i) = n as u8 + 1;
                        *self.occupied.get_unchecked_mut(i >> 6) |= 1 << (i & 63);
                        if slot < self.hint {
                            self.hint = slot;
                        }
                        return;
                    }
                }
                return self.push_spill(Entry { time, code });
            } else if delta == 0 && self.end < SLOT_CAP {
                // The slot being served (a few percent of events): in order
                // among what is left.
                self.stats.in_place += 1;
                let slot = &mut self.wheel[self.at].0;
                let mut j = self.end;
                while j > self.head && slot[j - 1] > key {
                    slot[j] = slot[j - 1];
                    j -= 1;
                }
                slot[j] = key;
                self.end += 1;
                return;
            }
        }
        self.push_far(Entry { time, code });
    }

    fn push_far(&mut self, e: Entry) {
        let port_event = e.code >> (KIND_SHIFT + 1) == 0;
        self.stats.far_port += port_event as u64;
        self.stats.far_other += !port_event as u64;
        self.far.push(Reverse(e));
        self.far_top = self.far_top.min(e);
    }

    #[cold]
    fn push_spill(&mut self, e: Entry) {
        self.stats.spilled += 1;
        self.spill.push(Reverse(e));
        self.far_top = self.far_top.min(e);
    }

    fn pop_far(&mut self, limit: Time) -> Option<(Time, Event)> {
        let e = self.far_top;
        if e.time > limit {
            return None;
        }
        // (no two pending events share a key: equal is the same event)
        if self.spill.peek().is_some_and(|r| r.0 == e) {
            self.spill.pop();
        } else {
            self.far.pop();
        }
        let top = |h: &BinaryHeap<Reverse<Entry>>| h.peek().map_or(NO_ENTRY, |r| r.0);
        self.far_top = top(&self.far).min(top(&self.spill));
        Some((e.time, Event::decode(e.code)))
    }

    /// The next event, if it is not later than `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, Event)> {
        loop {
            if self.head < self.end {
                debug_assert!(self.at < self.wheel.len() && self.end <= SLOT_CAP);
                // SAFETY: `at` is a masked slot index (< wheel.len()) and
                // `head < end <= SLOT_CAP`; this runs once per event.
                let key = unsafe { *self.wheel.get_unchecked(self.at).0.get_unchecked(self.head) };
                let time = self.base | (key >> (PORT_BITS + 1)) as Time;
                if self.far_top.time <= time && self.far_top < (Entry { time, code: near_code(key) }) {
                    return self.pop_far(limit);
                }
                if time > limit {
                    return None;
                }
                self.head += 1;
                let port = key & (WHEEL_PORTS as u32 - 1);
                return Some((time, if key >> PORT_BITS & 1 == 0 { Event::TxDone { port } } else { Event::LinkArrival { port } }));
            }
            if self.far_top.time >> self.slot_bits == self.cursor {
                return self.pop_far(limit);
            }
            if !self.advance() {
                return None;
            }
        }
    }

    /// The port of the next event in the slot being served, if any: a
    /// hint that lets the simulation ask for that port's lines while it
    /// handles the current event (the order of events is not changed).
    #[inline(always)]
    pub fn peek_port(&self) -> Option<u32> {
        if self.head < self.end {
            // SAFETY: as in `pop_until`.
            let key = unsafe { *self.wheel.get_unchecked(self.at).0.get_unchecked(self.head) };
            Some(key & (WHEEL_PORTS as u32 - 1))
        } else {
            None
        }
    }

    /// The port of the event after the next one in the slot being served,
    /// if any (a hint, as `peek_port`).
    #[inline(always)]
    pub fn peek_port_2(&self) -> Option<u32> {
        if self.head + 1 < self.end {
            // SAFETY: as in `pop_until`.
            let key = unsafe { *self.wheel.get_unchecked(self.at).0.get_unchecked(self.head + 1) };
            Some(key & (WHEEL_PORTS as u32 - 1))
        } else {
            None
        }
    }

    /// The ports of the events in the next occupied wheel slot (at most
    /// `n`, in no order: the slot is sorted when served), for hints.
    #[inline(always)]
    pub fn next_slot_ports(&self, n: usize, mut f: impl FnMut(u32)) {
        if self.hint == NONE || self.hint - self.cursor >= self.wheel_size {
            return;
        }
        let i = (self.hint & self.mask) as usize;
        let slot = &self.wheel[i].0;
        for &key in &slot[..(self.count[i] as usize).min(n)] {
            f(key & (WHEEL_PORTS as u32 - 1));
        }
    }

    /// Move the cursor to the next slot holding events: the next occupied
    /// wheel slot, or the far heap's first slot if that is earlier.
    #[inline]
    fn advance(&mut self) -> bool {
        let next = self.hint;
        if next <= self.far_top.time >> self.slot_bits {
            self.serve(next, (next & self.mask) as usize);
            return true;
        }
        self.advance_slow()
    }

    #[cold]
    #[inline(never)]
    fn advance_slow(&mut self) -> bool {
        if self.far_top == NO_ENTRY {
            debug_assert!(self.hint == NONE && self.occupied.iter().all(|&w| w == 0));
            return false;
        }
        // The heap's first event comes before the wheel's. Nothing in the
        // wheel maps to its slot's storage (the wheel's entries are later
        // and within one turn), and the hint stays right.
        let far_slot = self.far_top.time >> self.slot_bits;
        self.cursor = far_slot;
        self.base = far_slot << self.slot_bits;
        self.wheel[self.at] = EMPTY;
        self.at = (far_slot & self.mask) as usize;
        self.head = 0;
        self.end = 0;
        true
    }

    /// Make absolute slot `next` (wheel index `i`) the one being served.
    #[inline(always)]
    fn serve(&mut self, next: u64, i: usize) {
        self.cursor = next;
        self.base = next << self.slot_bits;
        self.occupied[i >> 6] &= !(1 << (i & 63));
        // Its storage cannot be scheduled into until the cursor moves on
        // (that would take a slot a whole wheel ahead), so it is served
        // where it is. The slot left behind is emptied for its next turn.
        self.wheel[self.at] = EMPTY;
        self.at = i;
        self.head = 0;
        self.end = std::mem::take(&mut self.count[i]) as usize;
        self.stats.slots += 1;
        self.stats.slot_events += self.end as u64;
        self.sorter.sort(&mut self.wheel[self.at], self.end);
        // Needed only when this slot is done: off the critical path.
        self.hint = self.find_next();
    }

    /// The next occupied wheel slot after the cursor (absolute), or `NONE`.
    /// Usually in the same word of the bitmap as the cursor's successor (a
    /// word covers 1 us): one load and a bit scan.
    #[inline(always)]
    fn find_next(&self) -> u64 {
        let start = ((self.cursor + 1) & self.mask) as usize;
        let bits = self.occupied[start >> 6] & (!0u64 << (start & 63));
        if bits != 0 {
            let i = (start & !63) | bits.trailing_zeros() as usize;
            return self.cursor + 1 + (i - start) as u64;
        }
        self.next_occupied().unwrap_or(NONE)
    }

    /// The next occupied wheel slot after the cursor, as an absolute slot:
    /// a scan of the occupancy words from the cursor on, wrapping around
    /// (at most 128 words; this runs only when the next occupied slot is not
    /// in the cursor's word).
    #[cold]
    fn next_occupied(&self) -> Option<u64> {
        let start = ((self.cursor + 1) & self.mask) as usize;
        let words = self.occupied.len();
        let (w0, b0) = (start >> 6, start & 63);
        let found = (0..=words).find_map(|k| {
            let w = (w0 + k) % words;
            let mut bits = self.occupied[w];
            if k == 0 {
                bits &= !0u64 << b0;
            } else if k == words {
                bits &= !(!0u64 << b0); // the first word's bits before `start`
            }
            (bits != 0).then(|| w * 64 + bits.trailing_zeros() as usize)
        })?;
        let dist = (found as u64).wrapping_sub(self.cursor) & self.mask;
        Some(self.cursor + if dist == 0 { self.wheel_size } else { dist })
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_until(Time::MAX)
    }

    /// What the calendar has done so far (`CalendarStats`).
    pub fn stats(&self) -> CalendarStats {
        self.stats
    }

    /// Events pending (counted: for tests and reports, not the hot path).
    pub fn len(&self) -> usize {
        let wheel: usize = self.count.iter().map(|&n| n as usize).sum();
        self.end - self.head + wheel + self.far.len() + self.spill.len()
    }

    pub fn is_empty(&self) -> bool {
        self.head == self.end && self.far_top == NO_ENTRY && self.occupied.iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_width_follows_the_fabric() {
        // pFabric's fabric: 144 hosts at 10 Gb/s both ways, 9 x 4 links at
        // 40 Gb/s both ways, 1,540 B packets: the 16 ns slot.
        assert_eq!(slot_bits_for(2 * 144 * 10_000_000_000 + 2 * 36 * 40_000_000_000, 1540), 14);
        // BFC's: 128 hosts and 8 x 8 core links at 100 Gb/s, 1,048 B: 2 ns.
        assert_eq!(slot_bits_for(2 * (128 + 64) * 100_000_000_000, 1048), 11);
        // one slow link: the widest; a huge fabric: the narrowest
        assert_eq!(slot_bits_for(1_000_000_000, 1500), MAX_SLOT_BITS);
        assert_eq!(slot_bits_for(u64::MAX, 64), MIN_SLOT_BITS);
        assert_eq!(slot_bits_for(0, 1500), MAX_SLOT_BITS);
        // the 6,144-host leaf-spine (384 x 16 hosts at 10 Gb/s, 384 x 4
        // links at 40 Gb/s, both ways): 1 ns, and a wheel that holds its
        // longest hop (1,500 B at 10 Gb/s and 2.7 us of delay)
        let bits = slot_bits_for(2 * 6144 * 10_000_000_000 + 2 * 1536 * 40_000_000_000, 1500);
        assert_eq!(bits, 10);
        let hop = 1_200_000 + 2_700_000;
        let c = Calendar::with_horizon(hop, bits);
        assert!(c.wheel_size << bits > hop, "the longest hop goes through the heap");
    }

    #[test]
    fn stats_count_slots_heaps_and_spills() {
        // 16 ns slots, a wheel of 64 slots (about 1 us)
        let mut c = Calendar::with_horizon(1, MAX_SLOT_BITS);
        let slot = 1 << MAX_SLOT_BITS;
        // three events in slot 2, one in slot 5; a port event beyond the
        // wheel; a timer; SLOT_CAP + 2 in slot 9 (two spill)
        for t in [2 * slot, 2 * slot + 1, 2 * slot + 2, 5 * slot] {
            c.schedule(t, Event::LinkArrival { port: 1 });
        }
        c.schedule(10_000 * slot, Event::LinkArrival { port: 2 });
        c.schedule(3 * slot, Event::FlowTimer { slot: 0, flow: 1, timer: 0 });
        for i in 0..SLOT_CAP as u64 + 2 {
            c.schedule(9 * slot + i, Event::TxDone { port: 3 });
        }
        let mut popped = 0;
        while c.pop_until(Time::MAX).is_some() {
            popped += 1;
        }
        assert_eq!(popped, 4 + 1 + 1 + SLOT_CAP + 2);
        let s = c.stats();
        assert_eq!((s.far_port, s.far_other, s.spilled), (1, 1, 2));
        // slots 2, 5 and 9 came through the wheel, with 3, 1 and SLOT_CAP
        assert_eq!((s.slots, s.slot_events, s.in_place), (3, 4 + SLOT_CAP as u64, 0));
        // while slot 20 is served: one event into it, in place
        c.schedule(20 * slot, Event::LinkArrival { port: 4 });
        c.schedule(20 * slot + 2, Event::LinkArrival { port: 5 });
        assert_eq!(c.pop_until(Time::MAX).map(|(t, _)| t), Some(20 * slot));
        c.schedule(20 * slot + 1, Event::LinkArrival { port: 6 });
        assert_eq!(c.pop_until(Time::MAX).map(|(t, _)| t), Some(20 * slot + 1));
        assert_eq!(c.pop_until(Time::MAX).map(|(t, _)| t), Some(20 * slot + 2));
        assert_eq!(c.stats().in_place, 1);
    }

    #[test]
    fn stats_count_every_event_once() {
        // over a random schedule, each event in exactly one count
        let mut c = Calendar::with_horizon(20_000_000, 11);
        let (mut x, mut now, mut scheduled, mut popped) = (99u64, 0u64, 0u64, 0u64);
        for round in 0..50_000u64 {
            for _ in 0..(if round % 500 == 0 { 3 * SLOT_CAP } else { 2 }) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let t = now + [0, x % 3_000, x % 40_000_000, 0][(x % 4) as usize];
                let e = if x % 9 == 0 {
                    Event::FlowTimer { slot: 0, flow: scheduled as u32, timer: 0 }
                } else {
                    Event::LinkArrival { port: (scheduled % 1000) as u32 }
                };
                c.schedule(t, e);
                scheduled += 1;
            }
            if let Some((t, _)) = c.pop_until(Time::MAX) {
                now = t;
                popped += 1;
            }
        }
        while c.pop_until(Time::MAX).is_some() {
            popped += 1;
        }
        let s = c.stats();
        assert_eq!(popped, scheduled);
        assert!(s.in_place > 0 && s.far_port > 0 && s.far_other > 0 && s.spilled > 0, "{s:?}");
        assert_eq!(s.slot_events + s.in_place + s.far_port + s.far_other + s.spilled, scheduled);
    }

    #[test]
    fn matches_a_plain_heap_on_random_schedules() {
        for horizon in [1, 1_000_000, 20_000_000, 1 << 40] {
            for bits in [MIN_SLOT_BITS, 11, MAX_SLOT_BITS] {
                random_schedule_against_heap(Calendar::with_horizon(horizon, bits));
            }
        }
        // and with the slot sorts of a CPU without AVX2 / AVX-512
        let mut c = Calendar::with_horizon(20_000_000, MAX_SLOT_BITS);
        c.sorter = Sorter::scalar();
        random_schedule_against_heap(c);
    }

    fn random_schedule_against_heap(mut c: Calendar) {
        // Port events, flow arrivals and timers; near, far and same-slot
        // times; bursts that overflow a slot; all scheduled while popping:
        // the calendar must give the exact (time, code) order of one heap.
        let mut reference: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
        let mut seq = 0u32;
        let mut x = 12345u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut now = 0u64;
        let mut flow_pending = false;
        let mut spilled = false;
        for round in 0..200_000u64 {
            let n = if round % 1000 == 0 { 3 * SLOT_CAP } else { (rnd() % 3) as usize };
            let burst = rnd() % 20_000;
            for _ in 0..n {
                let delta = match rnd() % 5 {
                    0 => 0,
                    1 => rnd() % 5_000,
                    2 => rnd() % 20_000_000,
                    3 => burst,
                    _ => rnd() % 400_000_000,
                };
                seq += 1;
                let event = match rnd() % 8 {
                    0 => Event::FlowTimer { slot: seq % 7, flow: seq, timer: (seq % 3) as u8 },
                    5 => Event::PortTimer { port: seq % 11, timer: (seq % 8) as u8 },
                    1 if !flow_pending => {
                        flow_pending = true;
                        Event::FlowArrival
                    }
                    2..=4 => Event::LinkArrival { port: seq },
                    _ => Event::TxDone { port: seq },
                };
                c.schedule(now + delta, event);
                reference.push(Reverse((now + delta, event.code())));
            }
            spilled |= !c.spill.is_empty();
            if round % 2 == 0 || n == 0 {
                let a = c.pop();
                let b = reference.pop();
                match (a, b) {
                    (Some((t, e)), Some(Reverse((rt, code)))) => {
                        assert_eq!((t, e), (rt, Event::decode(code)));
                        assert!(t >= now);
                        now = t;
                        flow_pending &= e != Event::FlowArrival;
                    }
                    (None, None) => {}
                    other => panic!("diverged: {other:?}"),
                }
            }
            // (`len` counts the whole wheel: not every round)
            if round % 64 == 0 {
                assert_eq!(c.len(), reference.len());
            }
            assert_eq!(c.is_empty(), reference.is_empty());
        }
        // the bursts filled slots: their events went through `spill`
        assert!(spilled, "no slot overflowed");
    }

    #[test]
    fn peeks_name_the_events_to_come() {
        let mut c = Calendar::with_horizon(20_000_000, MIN_SLOT_BITS);
        let w = 1 << MIN_SLOT_BITS;
        // two events in the first slot, three in the fourth
        for (t, port) in [(1, 7), (2, 8), (3 * w + 5, 30), (3 * w + 1, 31), (3 * w + 9, 32)] {
            c.schedule(t, Event::LinkArrival { port });
        }
        assert_eq!(c.pop_until(Time::MAX), Some((1, Event::LinkArrival { port: 7 })));
        assert_eq!((c.peek_port(), c.peek_port_2()), (Some(8), None));
        let mut next = Vec::new();
        c.next_slot_ports(4, |p| next.push(p));
        next.sort();
        assert_eq!(next, vec![30, 31, 32]);
        let mut two = Vec::new();
        c.next_slot_ports(2, |p| two.push(p));
        assert_eq!(two.len(), 2);
        c.pop_until(Time::MAX);
        assert_eq!(c.pop_until(Time::MAX), Some((3 * w + 1, Event::LinkArrival { port: 31 })));
        assert_eq!((c.peek_port(), c.peek_port_2()), (Some(30), Some(32)));
    }

    #[test]
    fn events_survive_packing() {
        for e in [
            Event::TxDone { port: (1 << INDEX_BITS) - 1 },
            Event::LinkArrival { port: 0 },
            Event::FlowArrival,
            Event::FlowTimer { slot: 12345, flow: u32::MAX, timer: 7 },
            Event::FlowTimer { slot: (1 << (INDEX_BITS - TIMER_BITS)) - 1, flow: 0, timer: 0 },
            Event::PortTimer { port: (1 << (INDEX_BITS - TIMER_BITS)) - 1, timer: 5 },
            Event::Sample,
            Event::Fault { step: 77 },
        ] {
            assert_eq!(Event::decode(e.code()), e);
        }
    }

    #[test]
    fn canonical_order_among_ties() {
        let mut c = Calendar::new();
        let rto = timer::RTO;
        c.schedule(10, Event::FlowTimer { slot: 3, flow: 1, timer: rto });
        c.schedule(10, Event::FlowTimer { slot: 0, flow: 9, timer: 1 });
        c.schedule(10, Event::FlowTimer { slot: 0, flow: 9, timer: rto });
        c.schedule(10, Event::FlowArrival);
        c.schedule(10, Event::PortTimer { port: 1, timer: 0 });
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
                Event::PortTimer { port: 1, timer: 0 },
                Event::FlowArrival,
                Event::FlowTimer { slot: 0, flow: 9, timer: rto },
                Event::FlowTimer { slot: 0, flow: 9, timer: 1 },
                Event::FlowTimer { slot: 3, flow: 1, timer: rto },
            ]
        );
    }

    #[test]
    fn earliest_first_whatever_the_scheduling_order() {
        let mut c = Calendar::new();
        c.schedule(30, Event::TxDone { port: 3 });
        c.schedule(10, Event::TxDone { port: 2 });
        c.schedule(10, Event::TxDone { port: 1 });
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
