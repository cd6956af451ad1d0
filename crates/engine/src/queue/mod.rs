//! Port disciplines: which arriving packets a port's buffer takes, which
//! it drops, and in what order it sends them. The port (`port.rs`) owns
//! serialization and byte accounting; a discipline only decides. A new
//! discipline is a module (here, or in its scheme's folder: pFabric's,
//! BFC's and ExpressPass's are in `schemes/`) and one arm of `Queue`; the
//! event loop does not change: it asks the discipline what it needs
//! through the methods below, never by its name.
//!
//! A FIFO's departure order is fixed on arrival, so FIFO ports take the
//! fast path (departures computed at admission, no per-packet "serializer
//! free" event); the other disciplines choose the next packet when the
//! serializer frees up (`TxDone`).

pub mod fq;
pub mod pfc;
pub mod prio;

pub use crate::schemes::bfc::queue as bfc;
pub use crate::schemes::pfabric::queue as pfabric;
pub use crate::schemes::xpass::queue as xpass;

use crate::config::{Discipline, QueueConfig};
use crate::packet::Hop;
use crate::packet::{Kind, Packet};
use crate::ring::Ring;
use crate::time::Time;

/// What a discipline knows of a buffered packet: its handle, size and
/// destination, and, for disciplines that choose by it, its priority and
/// flow (a flow's data and its ACKs count as two flows, as they do for
/// ns-2's pFabric queue, which tells flows apart by source and
/// destination address).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub hop: Hop,
    pub prio: u64,
    pub flow: u32,
    /// Traffic class (0 is served first by disciplines with classes).
    pub class: u8,
}

impl Entry {
    /// Not data (an ACK, a credit, a grant).
    #[inline(always)]
    pub fn is_ack(&self) -> bool {
        self.flow & 1 == 1
    }

    /// A PFC or pause frame, or an ACK: what ports with a control queue
    /// (BFC's, fair queueing's) serve first, unassigned and never paused.
    #[inline]
    pub fn is_control(&self) -> bool {
        self.hop.dst == crate::packet::LINK_LOCAL || self.flow & 1 == 1
    }

    pub fn of(hop: Hop, pkt: &Packet) -> Entry {
        Entry {
            hop,
            prio: pkt.prio,
            flow: pkt.flow << 1 | (pkt.kind != Kind::Data) as u32,
            class: if pkt.has(crate::packet::flags::CLASS0) { 0 } else { 1 },
        }
    }
}

/// What a discipline decided about an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Queued; nothing dropped.
    Queued,
    /// The arriving packet was dropped.
    Dropped,
    /// The arriving packet was queued and this buffered one dropped to
    /// make room (pFabric's priority dropping).
    Replaced(Hop),
}

#[derive(Debug)]
pub enum Queue {
    /// Drop-tail FIFO, optionally marking ECN when the queue is long.
    Fifo(Ring<Hop>),
    /// pFabric (§4.1): send the most urgent packet, drop the least urgent.
    PFabric(pfabric::PFabricQueue),
    /// pFabric-EDF (§5.4.2): two pFabric queues, each with the port's
    /// buffer, the first (deadline flows) served strictly first.
    PFabricEdf(pfabric::TwoClasses),
    /// A few strict-priority FIFO queues sharing the buffer (PIAS,
    /// pFabric §6).
    Prio(prio::PrioQueues),
    /// A control queue and a data queue that PFC pauses.
    Pfc(pfc::PfcQueue),
    /// BFC: queues assigned to flows, paused one by one.
    Bfc(bfc::BfcQueues),
    /// Ideal fair queueing: a queue per flow, as many as there are flows.
    Fq(fq::FqQueues),
    /// ExpressPass: credits rate-limited, before data.
    Xpass(xpass::XpassQueue),
}

impl Queue {
    /// The discipline of `cfg` on a port of `rate_bps`.
    pub fn new(cfg: &QueueConfig, rate_bps: u64) -> Queue {
        match cfg.discipline {
            Discipline::Fifo => Queue::Fifo(Ring::new()),
            Discipline::Pfabric { starvation_prevention, classes: 1 } => {
                Queue::PFabric(pfabric::PFabricQueue::new(starvation_prevention))
            }
            Discipline::Pfabric { starvation_prevention, .. } => {
                Queue::PFabricEdf(pfabric::TwoClasses::new(starvation_prevention))
            }
            Discipline::Prio { queues, reserved_bytes, ecn_per_port, dt_alpha } => Queue::Prio(
                prio::PrioQueues::new(
                    queues as usize,
                    cfg.limit_bytes.unwrap_or(u64::MAX / 2),
                    reserved_bytes,
                    if ecn_per_port { prio::EcnScope::Port } else { prio::EcnScope::Queue },
                )
                .with_dynamic_threshold(dt_alpha),
            ),
            Discipline::Pfc { acks_high_priority, red } => Queue::Pfc(pfc::PfcQueue::new(acks_high_priority, red)),
            Discipline::Xpass { credit_queue_bytes, bucket_bytes, credit_share } => {
                let mut q = xpass::XpassQueue::new(credit_queue_bytes, bucket_bytes);
                q.set_rate(rate_bps, credit_share);
                Queue::Xpass(q)
            }
            Discipline::Fq { quantum_bytes, srf } => {
                let mut q = fq::FqQueues::new(quantum_bytes);
                if srf {
                    q.set_srf();
                }
                Queue::Fq(q)
            }
            Discipline::Bfc { queues, table_size, assign, quantum_bytes, sticky_ps, srf } => {
                let mut q = bfc::BfcQueues::new(queues as usize, table_size as usize, assign, quantum_bytes, sticky_ps);
                if srf {
                    q.set_srf();
                }
                Queue::Bfc(q)
            }
        }
    }

    /// Orders by the packets' remaining-size header (BFC-SRF, IdealSRF).
    pub fn orders_by_remaining_size(&self) -> bool {
        match self {
            Queue::Bfc(b) => b.srf(),
            Queue::Fq(f) => f.srf(),
            _ => false,
        }
    }

    /// FIFO: departures can be computed on arrival (the fast path).
    #[inline]
    pub fn is_fifo(&self) -> bool {
        matches!(self, Queue::Fifo(_))
    }

    pub fn len(&self) -> usize {
        match self {
            Queue::Fifo(q) => q.len(),
            Queue::PFabric(q) => q.len(),
            Queue::PFabricEdf(q) => q.len(),
            Queue::Prio(q) => q.len(),
            Queue::Pfc(q) => q.len(),
            Queue::Bfc(q) => q.len(),
            Queue::Fq(q) => q.len(),
            Queue::Xpass(q) => q.len(),
        }
    }

    /// Whether a packet could be sent now (a PFC-paused queue may hold
    /// data it cannot send).
    #[inline]
    pub fn has_sendable(&self) -> bool {
        match self {
            Queue::Pfc(q) => q.has_sendable(),
            Queue::Bfc(q) => q.has_sendable(),
            q => !q.is_empty(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sizes of the buffered packets.
    pub fn sizes(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        match self {
            Queue::Fifo(q) => Box::new(q.iter().map(|h| h.size as u64)),
            Queue::PFabric(q) => Box::new(q.hops().map(|h| h.size as u64)),
            Queue::PFabricEdf(q) => Box::new(q.hops().map(|h| h.size as u64)),
            Queue::Prio(q) => Box::new(q.hops().map(|h| h.size as u64)),
            Queue::Pfc(q) => Box::new(q.hops().map(|h| h.size as u64)),
            Queue::Bfc(q) => Box::new(q.hops().map(|h| h.size as u64)),
            Queue::Fq(q) => Box::new(q.hops().map(|h| h.size as u64)),
            Queue::Xpass(q) => Box::new(q.hops().map(|h| h.size as u64)),
        }
    }

    /// Take the next packet to serialize.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Hop> {
        match self {
            Queue::Fifo(q) => q.pop_front(),
            Queue::PFabric(q) => q.pop(),
            Queue::PFabricEdf(q) => q.pop(),
            Queue::Prio(q) => q.pop(),
            Queue::Pfc(q) => q.pop(),
            Queue::Bfc(q) => q.pop(),
            Queue::Fq(q) => q.pop(),
            Queue::Xpass(q) => q.pop(),
        }
    }
}

/// What the packet path asks of a discipline beside admission and order.
impl Queue {
    /// The port sits in a switch's shared buffer (or obeys pause frames at
    /// a NIC): its admission is the buffer's, and it makes its departures
    /// at events of its own (PFC's, BFC's, fair queueing's).
    #[inline]
    pub fn in_shared_buffer(&self) -> bool {
        matches!(self, Queue::Pfc(_) | Queue::Bfc(_) | Queue::Fq(_))
    }

    /// Per-flow state released as packets leave a switch's shared buffer
    /// (BFC's flow table, fair queueing's queues): needs one.
    pub fn needs_shared_buffer(&self) -> bool {
        matches!(self, Queue::Bfc(_) | Queue::Fq(_))
    }

    /// Assigns queues to flows as their data arrives (BFC's dynamic queue
    /// assignment: `Nodes::assign_queue`).
    #[inline]
    pub fn assigns_queues(&self) -> bool {
        matches!(self, Queue::Bfc(_))
    }

    /// Strict priority among a few queues: losses are counted by class.
    pub fn by_class(&self) -> bool {
        matches!(self, Queue::Prio(_))
    }

    /// The port decides its departures itself, at timers of its own
    /// (ExpressPass's credit bucket).
    #[inline]
    pub fn self_timed(&self) -> bool {
        matches!(self, Queue::Xpass(_))
    }

    /// An ACK may be sent ahead of the queue when nothing queued can go
    /// before it (pFabric: ACKs have the smallest priority number).
    pub fn acks_go_ahead(&self) -> bool {
        matches!(self, Queue::PFabric(_))
    }

    /// With `acks_go_ahead`: no buffered packet goes before an ACK now.
    #[inline]
    pub fn ack_may_go_ahead(&self) -> bool {
        match self {
            Queue::PFabric(q) => !q.holds_zero(),
            _ => false,
        }
    }

    /// Served first, unassigned and never paused: PFC frames and, at ports
    /// that say so, ACKs.
    #[inline]
    pub fn is_control(&self, e: &Entry) -> bool {
        match self {
            Queue::Pfc(q) => q.is_control(e),
            _ => e.is_control(),
        }
    }

    /// An idle port with nothing queued: whether the packet leaves at once
    /// (and is marked), or `None` if the discipline must queue it first.
    #[inline]
    pub fn pass_idle(&mut self, e: &Entry, ecn_threshold: u64) -> Option<bool> {
        match self {
            Queue::Pfc(q) => q.pass(e, ecn_threshold),
            Queue::Bfc(b) => {
                // a control frame or ACK: served first, no queue of its own
                b.last_queue = None;
                Some(false)
            }
            _ => None,
        }
    }

    /// Mark at dequeue (RED on the data queue's length: DCQCN's switches).
    pub fn mark_on_dequeue(&mut self) -> bool {
        match self {
            Queue::Pfc(q) => q.mark_on_dequeue(),
            _ => false,
        }
    }

    /// The queue the last packet taken left by (BFC's assigned queues).
    pub fn last_queue(&self) -> Option<u16> {
        match self {
            Queue::Bfc(b) => b.last_queue,
            _ => None,
        }
    }

    /// Traffic classes and the seed of its random draws, once at the start.
    pub fn set_up(&mut self, seed: u64, classes: u8, round_robin: bool) -> Result<(), String> {
        match self {
            Queue::Pfc(q) => {
                q.seed(seed);
                q.set_classes(classes, round_robin);
            }
            Queue::Bfc(q) => {
                q.seed(seed);
                q.set_classes(classes)?;
            }
            _ if classes > 1 => return Err("traffic classes need the pfc or bfc discipline on every port".into()),
            _ => {}
        }
        Ok(())
    }

    // ---- pauses: PFC's traffic classes, BFC's queues ----

    /// Traffic classes a NIC's port serves.
    pub fn classes(&self) -> u8 {
        match self {
            Queue::Pfc(q) => q.classes(),
            _ => 1,
        }
    }

    /// Traffic class `c` is paused.
    pub fn class_paused(&self, c: usize) -> bool {
        matches!(self, Queue::Pfc(q) if q.is_paused(c))
    }

    /// Every class is paused.
    pub fn all_paused(&self) -> bool {
        matches!(self, Queue::Pfc(q) if q.all_paused())
    }

    /// A PFC frame pauses or resumes class `c`; false if the port has no
    /// classes to pause.
    pub fn pause_class(&mut self, c: usize, pause: bool, now: Time) -> bool {
        match self {
            Queue::Pfc(q) => {
                q.set_paused(c, pause, now);
                true
            }
            _ => false,
        }
    }

    /// A frame pauses or resumes queue `q` (BFC's); false if the port has
    /// no such queues.
    pub fn pause_queue(&mut self, q: usize, pause: bool) -> bool {
        match self {
            Queue::Bfc(b) => {
                b.set_paused(q, pause);
                true
            }
            _ => false,
        }
    }

    // ---- what a run reports ----

    /// Data bytes the port holds in its switch's shared buffer.
    pub fn shared_bytes(&self) -> u64 {
        match self {
            Queue::Pfc(q) => q.data_bytes(),
            Queue::Bfc(q) => q.data_bytes(),
            Queue::Fq(q) => q.data_bytes(),
            _ => 0,
        }
    }

    /// Flows with packets at the port (per-flow disciplines; 0 elsewhere).
    pub fn flows_held(&self) -> u32 {
        match self {
            Queue::Bfc(b) => b.active_flows,
            Queue::Fq(q) => q.active_flows() as u32,
            _ => 0,
        }
    }

    /// Time spent paused, up to `now`.
    /// A PFC port that holds data it may not send (every class it holds
    /// data of is paused): the packets it holds, which the deadlock
    /// detector follows back to their ingress (`sim/deadlock.rs`).
    pub fn pfc_held(&self) -> Option<impl Iterator<Item = &Hop> + '_> {
        match self {
            Queue::Pfc(q) if q.data_bytes() > 0 && !q.has_sendable() => Some(q.hops()),
            _ => None,
        }
    }

    pub fn paused_ps(&self, now: Time) -> Time {
        match self {
            Queue::Pfc(q) => q.paused_ps(now),
            _ => 0,
        }
    }

    /// Flows assigned to queues, and assignments to a queue already in use
    /// (BFC's collisions).
    pub fn assignments(&self) -> (u64, u64) {
        match self {
            Queue::Bfc(b) => (b.assignments, b.collisions),
            _ => (0, 0),
        }
    }

    // ---- self-timed ports ----

    /// The port decides its next departure at `now`.
    pub fn set_clock(&mut self, now: Time) {
        if let Queue::Xpass(q) = self {
            q.clock = now;
        }
    }

    /// When a self-timed port free at `free` must look again, if that
    /// needs a new timer (none pending at or before it).
    pub fn next_wake(&mut self, free: Time, now: Time) -> Option<Time> {
        let Queue::Xpass(q) = self else { return None };
        let t = q.next_look(free)?;
        if q.timer_at.is_none_or(|at| t < at || at < now) {
            q.timer_at = Some(t);
            return Some(t);
        }
        None
    }

    /// A self-timed port's timer fired at `now`.
    pub fn woken(&mut self, now: Time) {
        if let Queue::Xpass(q) = self {
            if q.timer_at == Some(now) {
                q.timer_at = None;
            }
        }
    }
}
