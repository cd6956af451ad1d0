//! Homa (Montazeri et al., SIGCOMM'18) as its OMNeT++ simulator runs it,
//! the code BFC NSDI'22 App. A.2 compared against (PlatformLab
//! `HomaSimulation`, branch `omnet_simulations`, `HomaTransport.cc`;
//! docs/schemes.md, `homa`). Receiver driven, with network priorities:
//!
//! - a message's first RTT bytes are *unscheduled*: sent at once, at line
//!   rate, each packet at the unscheduled priority level of the message's
//!   bytes remaining at that packet (the simulator's `STATIC_CBF_GRADUATED`
//!   levels, `unscheduled_levels`);
//! - the rest is *scheduled*: the receiver grants it, keeping at most RTT
//!   bytes of a message in flight, to the messages with the fewest bytes
//!   left to grant, at most one per sender and `overcommit` of them at
//!   once, each at a scheduled level by its rank (`schedule`);
//! - the sender sends, whenever its NIC is free, the next packet of the
//!   message with the fewest bytes left to send that has one it may send
//!   (shortest remaining first; the simulation's NIC, `Transport::bytes_left`);
//! - switches are strict-priority ports with unbounded buffers, so nothing
//!   is lost and there is no retransmission (the simulator has none).
//!
//! Sans-IO like the other transports. Homa's whole engine side is here:
//! the message's endpoints (this file), its priority levels (`levels.rs`,
//! resolved before the run), and its receivers' grant scheduler
//! (`grants.rs`, state of the hosts spanning messages); its switches are
//! strict-priority ports without a limit (`queue/prio.rs`).

use crate::config::HomaConfig;
use crate::packet::{Kind, Packet};
use crate::transport::{Cx, Endpoint, Poll, Segment};
use crate::workload::FlowSpec;
pub mod grants;
pub mod levels;
#[cfg(test)]
mod tests;

pub use levels::{levels, Levels};

/// Both ends of a Homa message.
#[derive(Debug)]
pub struct HomaFlow {
    size: u64,
    n_segs: u32,
    // ---- sender ----
    /// Next packet to send (in order: nothing is lost).
    next_seq: u32,
    /// Packets the sender may send: the unscheduled ones, then what grants
    /// allowed.
    granted: u32,
    /// The scheduled level of the last grant.
    sched_prio: u8,
    // ---- receiver ----
    received: u32,
    received_bytes: u64,
    /// Packets the receiver has allowed (unscheduled ones included).
    allowed: u32,
    /// The receiver lists the message among those it grants to.
    pub listed: bool,
}

impl HomaFlow {
    pub fn new(spec: &FlowSpec, cfg: &HomaConfig) -> HomaFlow {
        let mss = cfg.mss_bytes as u64;
        let n_segs = u32::try_from(spec.size.div_ceil(mss).max(1)).expect("flow too large");
        let unsched = n_segs.min(cfg.rtt_packets());
        HomaFlow {
            size: spec.size,
            n_segs,
            next_seq: 0,
            granted: unsched,
            sched_prio: cfg.levels - 1,
            received: 0,
            received_bytes: 0,
            allowed: unsched,
            listed: false,
        }
    }

    fn payload(&self, seq: u32, mss: u64) -> u64 {
        self.size.saturating_sub(seq as u64 * mss).clamp(1, mss)
    }

    /// The NIC asks for the next packet.
    pub fn poll(&mut self, cfg: &HomaConfig) -> Poll {
        if self.next_seq >= self.granted.min(self.n_segs) {
            return Poll::Blocked;
        }
        let (seq, mss) = (self.next_seq, cfg.mss_bytes as u64);
        let prio = if seq < cfg.rtt_packets() {
            cfg.level_of(self.size - seq as u64 * mss)
        } else {
            self.sched_prio
        };
        self.next_seq += 1;
        Poll::Send(Segment {
            seq,
            size: (self.payload(seq, mss) + cfg.header_bytes as u64) as u16,
            flags: 0,
            prio: prio as u64,
            kind: Kind::Data,
        })
    }

    /// Bytes the sender has not sent yet (what its NIC orders by).
    pub fn bytes_left(&self, cfg: &HomaConfig) -> u64 {
        self.size.saturating_sub(self.next_seq as u64 * cfg.mss_bytes as u64)
    }

    /// A grant reaches the sender: it may send up to packet `seq`, at the
    /// level the grant names (`sack_lo`).
    pub fn on_grant(&mut self, grant: &Packet) {
        debug_assert_eq!(grant.kind, Kind::Grant);
        if grant.seq > self.granted {
            self.granted = grant.seq.min(self.n_segs);
            self.sched_prio = grant.sack_lo as u8;
        }
    }

    /// A data packet reaches the receiver (no reply: grants are the
    /// host's decision, `schedule`).
    pub fn on_data(&mut self, data: &Packet, cfg: &HomaConfig) -> Option<Packet> {
        self.received += 1;
        self.received_bytes += self.payload(data.seq, cfg.mss_bytes as u64);
        None
    }

    pub fn receiver_complete(&self) -> bool {
        self.received >= self.n_segs
    }

    pub fn delivered_bytes(&self) -> u64 {
        self.received_bytes
    }

    /// The message has bytes the receiver has not granted yet.
    pub fn needs_grants(&self) -> bool {
        self.allowed < self.n_segs
    }

    /// Bytes the receiver has yet to grant (what it ranks messages by).
    pub fn to_grant(&self, cfg: &HomaConfig) -> u64 {
        self.size.saturating_sub(self.allowed as u64 * cfg.mss_bytes as u64)
    }

    /// The grant this message gets if it is among those granted: packets up
    /// to RTT beyond what has arrived (the simulator grants while fewer
    /// than RTT bytes are in flight), if that is more than allowed so far.
    pub fn grant_upto(&self, cfg: &HomaConfig) -> Option<u32> {
        let upto = self.n_segs.min(self.received + cfg.rtt_packets());
        (upto > self.allowed).then_some(upto)
    }

    /// The receiver grants up to packet `upto`.
    pub fn allow(&mut self, upto: u32) {
        self.allowed = self.allowed.max(upto);
    }
}

impl HomaConfig {
    /// Packets of RTT bytes (a message's unscheduled packets, and what the
    /// receiver keeps in flight).
    #[inline]
    pub fn rtt_packets(&self) -> u32 {
        self.rtt_bytes.unwrap_or(0).div_ceil(self.mss_bytes as u64).max(1) as u32
    }
}

/// No timers: nothing is lost.
impl Endpoint for HomaFlow {
    type Config = HomaConfig;

    fn poll(&mut self, cx: &mut Cx<HomaConfig>) -> Poll {
        HomaFlow::poll(self, cx.cfg)
    }

    fn on_ack(&mut self, _cx: &mut Cx<HomaConfig>, grant: &Packet) {
        self.on_grant(grant)
    }

    fn on_data(&mut self, cx: &mut Cx<HomaConfig>, pkt: &Packet) -> Option<Packet> {
        HomaFlow::on_data(self, pkt, cx.cfg)
    }

    /// The receiver ends the message when it holds every byte.
    fn receiver_drives(&self) -> bool {
        true
    }

    fn receiver_complete(&self) -> bool {
        HomaFlow::receiver_complete(self)
    }

    /// Nothing follows the last byte (no ACKs).
    fn sender_done(&self) -> bool {
        HomaFlow::receiver_complete(self)
    }

    fn delivered_bytes(&self, _cfg: &HomaConfig) -> u64 {
        HomaFlow::delivered_bytes(self)
    }

    fn bytes_left(&self, cfg: &HomaConfig) -> u64 {
        HomaFlow::bytes_left(self, cfg)
    }
}

