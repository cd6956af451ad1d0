//! Port disciplines: which arriving packets a port's buffer takes, which
//! it drops, and in what order it sends them. The port (`port.rs`) owns
//! serialization and byte accounting; a discipline only decides. A new
//! discipline is a module here and one arm of `Queue`; the event loop does
//! not change.
//!
//! A FIFO's departure order is fixed on arrival, so FIFO ports take the
//! fast path (departures computed at admission, no per-packet "serializer
//! free" event); the other disciplines choose the next packet when the
//! serializer frees up (`TxDone`).

pub mod bfc;
pub mod fq;
pub mod pfabric;
pub mod pfc;
pub mod prio;
pub mod xpass;

use crate::config::{Discipline, QueueConfig};
use crate::packet::{Kind, Packet};
use crate::packet::Hop;
use crate::ring::Ring;

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
    pub fn new(cfg: &QueueConfig) -> Queue {
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
            Discipline::Xpass { credit_queue_bytes, bucket_bytes, .. } => {
                Queue::Xpass(xpass::XpassQueue::new(credit_queue_bytes, bucket_bytes))
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
