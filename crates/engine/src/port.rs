//! An output port: the buffer and serializer at one end of a link. The port
//! owns buffer accounting and serialization; the discipline (`Queue`, in
//! `queue/`) only decides what to admit, drop and send next (STYLE_ANCHORS:
//! composition, not inheritance).

use crate::config::QueueConfig;
pub use crate::packet::Hop;
use crate::packet::{flags, Packet};
use crate::queue::{Admit, Entry, Queue};
use crate::ring::Ring;
use crate::time::Time;
use std::hint::select_unpredictable;

/// A packet on a link and when it reaches the far end: 24 bytes, so a
/// link's FIFO stays dense in cache.
#[derive(Clone, Copy, Debug, Default)]
pub struct OnWire {
    pub arrival: Time,
    pub hop: Hop,
}

/// Why a packet was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drop {
    /// The buffer limit would be exceeded (drop-tail).
    Overflow,
}

/// What a port has sent. Kept apart from the port, in a dense array (four
/// ports to a cache line), because every packet-hop adds to it: in the
/// port, it was a second cache line touched per packet, and on a 6,144-host
/// fabric one of the commonest cache misses (docs/performance.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct Transmitted {
    pub pkts: u64,
    pub bytes: u64,
}

impl Transmitted {
    #[inline(always)]
    pub fn add(&mut self, size: u16) {
        self.pkts += 1;
        self.bytes += size as u64;
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PortStats {
    pub drops: u64,
    pub drop_bytes: u64,
    pub marks: u64,
    pub max_bytes: u64,
}

/// A port's fields in the order of how often they are touched: what the
/// FIFO fast path reads for every packet (admission, serialization, the
/// link) is in the first cache line; the second holds statistics, which
/// are only written, and what the slow paths read. With a few hundred
/// ports, the first lines of all of them fit in the L1 cache (this layout
/// cut the L1 misses per packet-hop by about 40%).
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    // ---- first line: every packet ----
    /// The serializer is busy until this time.
    pub busy_until: Time,
    /// Propagation delay plus the delay added on arrival at `peer` (host
    /// processing when it is a host).
    fixed_ps: Time,
    /// Packets serialized onto the link and not yet at the far end, with
    /// their arrival times (in order: a link does not reorder). Its `aux`
    /// word is the head packet's hint (`head_hint`).
    pub wire: Ring<OnWire>,
    /// Bytes queued (not counting the packet being serialized). On the
    /// FIFO fast path this is an upper bound, made exact by `settle` when
    /// it matters (see `admit_fifo`).
    pub bytes: u64,
    /// FIFO fast path: a waiting packet that would bring `bytes` above this
    /// might set a new maximum or be marked, so the count is made exact
    /// first. It is `min(max_bytes, ecn_threshold)`, saturated to 32 bits
    /// (beyond that every waiting packet settles: slower, same answer), and
    /// kept here so that admission reads only this cache line.
    settle_above: u32,
    /// FIFO fast path: the departure order of a FIFO is fixed when a packet
    /// is admitted, so its departure time is known then and it goes straight
    /// onto `wire`; no "serializer free" event is needed. The packets of
    /// `wire` from index `started` on were admitted to the buffer and are
    /// counted in `bytes`; some may have started serializing since, which
    /// `settle` finds out. Disciplines that choose the next packet at
    /// departure time use `queue` and `TxDone` instead.
    started: u32,
    pub peer: u32,
    /// Picoseconds per byte when the rate divides 8e12 exactly (10, 25,
    /// 40, 100, 400 Gb/s all do): serialization is then one multiply.
    /// Zero otherwise.
    ps_per_byte: u32,
    // ---- second line: statistics and the rest of buffer accounting ----
    pub limit_bytes: u64,
    /// Mark CE on arrival when at least this many bytes are queued. Set
    /// once, at construction: `settle_above` is derived from it.
    ecn_threshold: u64,
    max_bytes: u64,
    drops: u64,
    drop_bytes: u64,
    marks: u64,
    /// A `TxDone` event is in the calendar for this port.
    pub wake_pending: bool,
    /// A general-path port that does not obey pauses: its departures are
    /// made lazily, by the arrivals at it and at the far end of its link
    /// (`Simulation::on_link_arrival`), with no events of its own.
    pub lazy: bool,
    /// A lazy pFabric port that sends an ACK at once when nothing queued
    /// can go before it: its departure is fixed at admission, on `wire`
    /// from `started` on and counted in `bytes` until `settle` or
    /// `pop_wire` finds it started, as on the FIFO fast path
    /// (`Simulation::offer_lazy`).
    pub fixes_acks: bool,
    // ---- the rest ----
    pub rate_bps: u64,
    pub delay_ps: Time,
    pub queue: Queue,
    /// Makes a port an odd number of cache lines (9). Ports sit in one
    /// array; with a power-of-two size every port's first line would fall
    /// in the same few cache sets (a 512-byte stride uses one set in eight)
    /// and evict the others' long before the cache is full: on 6,144 hosts
    /// that made a third of the last-level misses (docs/performance.md).
    _pad: [u8; 64],
}

// An odd number of cache lines per port (see `_pad`): adjust the padding
// when the port's fields change.
const _: () = assert!(std::mem::size_of::<Port>() % 128 == 64, "a Port must be an odd number of cache lines");

/// Picoseconds per byte at `rate_bps` when that is a whole number that fits
/// (`Port::ps_per_byte`), else zero.
fn ps_per_byte(rate_bps: u64) -> u32 {
    let per_byte = 8 * crate::time::PS_PER_S / rate_bps;
    let exact = (8 * crate::time::PS_PER_S).is_multiple_of(rate_bps) && per_byte <= u32::MAX as u64;
    if exact { per_byte as u32 } else { 0 }
}

/// No hint (`Port::head_hint`); a new ring's word.
pub const NO_HINT: u32 = u32::MAX;

/// Ask for port `i`'s first cache line (a hint: nothing changes).
#[inline(always)]
pub fn prefetch_port(ports: &[Port], i: u32) {
    if let Some(p) = ports.get(i as usize) {
        crate::prefetch::prefetch(p);
    }
}

impl Port {
    pub fn new(rate_bps: u64, delay_ps: Time, peer: u32, cfg: &QueueConfig) -> Port {
        let mut p = Port::fifo(rate_bps, delay_ps, peer, cfg.limit_bytes.unwrap_or(u64::MAX), cfg.ecn_threshold_bytes);
        p.queue = Queue::new(cfg, rate_bps);
        p
    }

    /// A drop-tail FIFO port.
    pub fn fifo(rate_bps: u64, delay_ps: Time, peer: u32, limit_bytes: u64, ecn_threshold: Option<u64>) -> Port {
        Port {
            busy_until: 0,
            fixed_ps: delay_ps,
            // (a new ring's word is `u32::MAX`: `NO_HINT`)
            wire: Ring::new(),
            bytes: 0,
            settle_above: 0,
            started: 0,
            peer,
            ps_per_byte: ps_per_byte(rate_bps),
            limit_bytes,
            ecn_threshold: ecn_threshold.unwrap_or(u64::MAX),
            max_bytes: 0,
            drops: 0,
            drop_bytes: 0,
            marks: 0,
            wake_pending: false,
            lazy: false,
            fixes_acks: false,
            rate_bps,
            delay_ps,
            queue: Queue::Fifo(Ring::new()),
            _pad: [0; 64],
        }
    }

    /// Serialize at `rate_bps` from now on (a degraded link: `faults.rs`).
    /// What the port's discipline derived from its rate at construction
    /// stays as it was.
    pub fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.ps_per_byte = ps_per_byte(rate_bps);
    }

    /// What the head packet of the link touches first at the far end: at
    /// a switch, with ECMP, the output port it leaves by, fixed before it
    /// gets there (a single next hop, or the flow's hash); at a host, the
    /// packet (its id); else `NO_HINT`. Kept in the port's first line, so
    /// the event loop can ask for those lines one event ahead: they are the
    /// second link of a packet-hop's chain of cache misses, which the
    /// head's cell would only name when it is read (docs/performance.md).
    #[inline(always)]
    pub fn head_hint(&self) -> u32 {
        self.wire.aux
    }

    #[inline(always)]
    pub fn set_head_hint(&mut self, hint: u32) {
        self.wire.aux = hint;
    }

    /// Delay added on arrival at the peer (host processing at a host).
    pub fn set_arrival_extra(&mut self, ps: Time) {
        self.fixed_ps = self.delay_ps + ps;
    }

    /// Propagation plus arrival delay: what a packet takes after its last
    /// bit is serialized.
    pub fn fixed_ps(&self) -> Time {
        self.fixed_ps
    }

    pub fn stats(&self) -> PortStats {
        PortStats {
            drops: self.drops,
            drop_bytes: self.drop_bytes,
            marks: self.marks,
            max_bytes: self.max_bytes,
        }
    }

    /// Serialize a packet from `start` (now, or when the port frees up;
    /// `buffered` in the latter case on the fast path) and put it on the
    /// link. Returns its arrival time at the far end and whether the link
    /// was idle (then the caller schedules that arrival).
    #[inline(always)]
    pub fn transmit(&mut self, hop: Hop, start: Time, buffered: bool) -> (Time, bool) {
        let end = start + self.serialization(hop.size as u64);
        self.busy_until = end;
        let arrival = end + self.fixed_ps;
        let was_idle = self.wire.is_empty();
        self.wire.push_back(OnWire { arrival, hop });
        // A packet that starts now was never buffered, nor any before it.
        self.started = select_unpredictable(buffered, self.started, self.wire.len() as u32);
        (arrival, was_idle)
    }

    /// When the packet of a wire entry started serializing.
    #[inline]
    fn start_of(&self, w: &OnWire) -> Time {
        w.arrival - self.fixed_ps - self.serialization(w.hop.size as u64)
    }

    /// FIFO fast path: release the buffer space of packets that have
    /// started serializing by `now`.
    pub fn settle(&mut self, now: Time) {
        while let Some(w) = self.wire.get(self.started as usize) {
            if self.start_of(w) > now {
                break;
            }
            self.bytes -= w.hop.size as u64;
            self.started += 1;
        }
    }

    /// FIFO fast path, buffer admission of a packet offered at `now` that
    /// starts serializing at `start` (`now` if the port is idle). A packet
    /// that waits is counted in `bytes`, which may still count packets that
    /// have started since: it is made exact only when the answer could
    /// depend on it, when the packet might not fit, might be marked, or
    /// might set a new maximum. Otherwise the exact occupancy, being no
    /// larger, gives the same answer, and the scan of the wire is skipped.
    /// An idle port's buffer is empty.
    ///
    /// Whether a port is busy is close to a coin toss, so the common cases
    /// select with conditional moves instead of branching on it (a
    /// mispredicted branch costs more than both sides).
    #[inline]
    pub fn admit_fifo(&mut self, now: Time, start: Time, size: u16) -> Result<bool, Drop> {
        let waits = start > now;
        let base = select_unpredictable(waits, self.bytes, 0);
        let after = base + size as u64;
        if waits & (after > self.settle_above as u64) {
            self.settle(now);
            return self.admit(size);
        }
        // Fits, unmarked, no new maximum (the answer `admit` would give),
        // or starts at once.
        self.bytes = select_unpredictable(waits, after, 0);
        Ok(false)
    }

    /// Packets on the link that may not have started (`settle` tells).
    #[inline(always)]
    pub fn unsettled(&self) -> bool {
        (self.started as usize) < self.wire.len()
    }

    /// Take the packet at the head of the link (it has arrived).
    #[inline]
    pub fn pop_wire(&mut self) -> Option<OnWire> {
        let e = self.wire.pop_front()?;
        // If it was still counted as buffered (lazily), it has left the
        // buffer. Arithmetic rather than a branch, which mispredicts.
        let lazy = 0u64.wrapping_sub((self.started == 0) as u64);
        debug_assert!(self.bytes >= e.hop.size as u64 & lazy);
        self.bytes -= e.hop.size as u64 & lazy;
        self.started = self.started.saturating_sub(1);
        Some(e)
    }

    /// Time to serialize `bytes` onto this port's link.
    #[inline]
    pub fn serialization(&self, bytes: u64) -> Time {
        match self.ps_per_byte {
            0 => crate::time::serialization(bytes, self.rate_bps),
            p => bytes * p as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Buffer admission: drop-tail at the byte limit. On success the bytes
    /// are accounted for, and the result says whether the queue is at the
    /// ECN threshold, in which case the caller marks the packet with
    /// `mark` (DCTCP §3.1: mark when the queue exceeds K on arrival).
    #[inline]
    pub fn admit(&mut self, size: u16) -> Result<bool, Drop> {
        let size = size as u64;
        if self.bytes + size > self.limit_bytes {
            self.count_drop(size);
            return Err(Drop::Overflow);
        }
        let mark = self.bytes >= self.ecn_threshold;
        self.add_bytes(size);
        Ok(mark)
    }

    /// Count a packet dropped here (by this port or its switch's buffer).
    pub fn count_drop(&mut self, size: u64) {
        self.drops += 1;
        self.drop_bytes += size;
    }

    /// Count `size` bytes queued by the switch itself (BFC's data).
    pub fn add_bytes(&mut self, size: u64) {
        self.bytes += size;
        self.max_bytes = self.max_bytes.max(self.bytes);
        self.settle_above = self.max_bytes.min(self.ecn_threshold).min(u32::MAX as u64) as u32;
    }

    /// Bytes queued at or above which an arrival is marked (`u64::MAX`:
    /// never).
    #[inline]
    pub fn ecn_threshold(&self) -> u64 {
        self.ecn_threshold
    }

    /// Set CE on an ECN-capable packet admitted above the threshold.
    #[inline]
    pub fn mark(&mut self, pkt: &mut Packet) {
        if pkt.has(flags::ECT) {
            pkt.flags |= flags::CE;
            self.marks += 1;
        }
    }

    /// Offer a packet to the buffer (general path). On success it is
    /// queued; the result says whether to mark it, as for `admit`, and
    /// which buffered packet was dropped to make room for it, if any (the
    /// caller releases that one).
    #[inline(always)]
    pub fn enqueue(&mut self, e: Entry) -> Result<(bool, Option<Hop>), Drop> {
        let (admit, mark) = match &mut self.queue {
            Queue::Fifo(_) => {
                let mark = self.admit(e.hop.size)?;
                if let Queue::Fifo(q) = &mut self.queue {
                    q.push_back(e.hop);
                }
                return Ok((mark, None));
            }
            Queue::PFabric(q) => (q.offer(e, self.bytes, self.limit_bytes), false),
            Queue::PFabricEdf(q) => (q.offer(e, self.limit_bytes), false),
            Queue::Prio(q) => q.offer(e.hop, e.prio, self.bytes, self.ecn_threshold),
            Queue::Pfc(q) => (Admit::Queued, q.push(e, self.ecn_threshold)),
            Queue::Xpass(q) => (q.offer(e, self.limit_bytes), false),
            Queue::Fq(q) => {
                q.push(e);
                (Admit::Queued, false)
            }
            // data packets are assigned a queue by the switch (`sim/switches.rs`)
            Queue::Bfc(q) => {
                q.push_control(e.hop);
                (Admit::Queued, false)
            }
        };
        match admit {
            Admit::Queued => {
                self.add_bytes(e.hop.size as u64);
                Ok((mark, None))
            }
            Admit::Dropped => {
                self.count_drop(e.hop.size as u64);
                Err(Drop::Overflow)
            }
            Admit::Replaced(victim) => self.replaced(e, victim),
        }
    }

    /// `e` was queued and `victim` dropped to make room for it.
    fn replaced(&mut self, e: Entry, victim: Hop) -> Result<(bool, Option<Hop>), Drop> {
        self.count_drop(victim.size as u64);
        self.bytes -= victim.size as u64;
        self.add_bytes(e.hop.size as u64);
        Ok((false, Some(victim)))
    }

    /// Take the next packet to serialize.
    #[inline]
    pub fn dequeue(&mut self) -> Option<Hop> {
        let hop = self.queue.pop()?;
        self.bytes -= hop.size as u64;
        Some(hop)
    }

    /// `(queued packets, queued bytes, in-flight packets, in-flight bytes)`
    /// at `now`: buffered and not yet serializing, versus on the link.
    pub fn occupancy(&self, now: Time) -> (u64, u64, u64, u64) {
        let sum = |it: &mut dyn Iterator<Item = u64>| it.fold((0, 0), |(n, b), x| (n + 1, b + x));
        let (qp, qb) = sum(&mut self.queue.sizes());
        // Fast-path packets that have not started are on `wire` already.
        let (bp, bb) =
            sum(&mut self.wire.iter().skip(self.started as usize).filter(|w| self.start_of(w) > now).map(|w| w.hop.size as u64));
        let (wp, wb) = sum(&mut self.wire.iter().map(|w| w.hop.size as u64));
        (qp + bp, qb + bb, wp - bp, wb - bb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_entries_stay_small() {
        // a link's ring is read and written once per packet-hop: keep its
        // cells dense (three to a pair of cache lines)
        assert_eq!(std::mem::size_of::<OnWire>(), 24);
    }

    fn pkt(size: u16, ect: bool) -> Packet {
        Packet::test_data(size, if ect { flags::ECT } else { 0 })
    }

    #[test]
    fn serialization_fast_path_agrees_with_division() {
        for rate in [10_000_000_000u64, 40_000_000_000, 100_000_000_000, 3, 12_345_678_901] {
            let p = Port::fifo(rate, 0, 1, 1, None);
            for bytes in [1u64, 40, 1500, 9000] {
                assert_eq!(p.serialization(bytes), crate::time::serialization(bytes, rate));
            }
        }
    }

    #[test]
    fn drop_tail_at_the_byte_limit() {
        let mut p = Port::fifo(10, 0, 1, 3000, None);
        let hop = |id, size| Hop { id, size, dst: 1, flow: 0 };
        let entry = |id, size| Entry { hop: hop(id, size), ..Default::default() };
        assert_eq!(p.enqueue(entry(0, 1500)), Ok((false, None)));
        assert_eq!(p.enqueue(entry(1, 1500)), Ok((false, None)));
        assert_eq!(p.enqueue(entry(2, 40)), Err(Drop::Overflow));
        assert_eq!(p.stats().drops, 1);
        assert_eq!(p.bytes, 3000);
        assert_eq!(p.dequeue(), Some(hop(0, 1500)));
        assert_eq!(p.bytes, 1500);
    }

    #[test]
    fn marks_ect_packets_above_threshold_only() {
        let mut p = Port::fifo(10, 0, 1, 100_000, Some(3000));
        let mut pkts = [pkt(1500, true), pkt(1500, true), pkt(1500, false), pkt(1500, true)];
        for (i, x) in pkts.iter_mut().enumerate() {
            // the third is not ECT: never marked; the fourth sees 4500 B queued
            let e = Entry { hop: Hop { id: i as u32, size: x.size, dst: 1, flow: 0 }, ..Default::default() };
            if p.enqueue(e).unwrap().0 {
                p.mark(x);
            }
        }
        let marked: Vec<bool> = pkts.iter().map(|x| x.has(flags::CE)).collect();
        assert_eq!(marked, vec![false, false, false, true]);
        assert_eq!(p.stats().marks, 1);
    }
}
