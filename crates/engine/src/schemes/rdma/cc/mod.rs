//! The RDMA queue pair's rate laws, apart from its delivery (`../mod.rs`:
//! pacing, window, go-back-N). A law decides the flow's sending rate (and
//! the window, where it has one of its own) from what comes back, and may
//! keep timers of its own (kinds 1-3 beside the queue pair's safety
//! timeout, kind 0):
//! - `dcqcn`: DCQCN, Mellanox's version as the HPCC simulator has it;
//! - `dcqcn_ns3`: DCQCN as ns3-rdma has it (CNPs from the receiver);
//! - `hpcc`: HPCC (SIGCOMM'19), from in-band telemetry;
//! - `dctcp`: DCTCP as the HPCC simulator runs it on RDMA NICs;
//! - `delay`: BFC's delay-based window (App. A.1, BFC + CC);
//! - none: line rate (BFC's own hosts).
//!
//! A law is a module here with one type and one arm of `Law` (chosen by
//! `config::RdmaCc`); its hooks default to doing nothing.

pub mod dcqcn;
pub mod dcqcn_ns3;
pub mod dctcp;
pub mod delay;
pub mod hpcc;

use super::telemetry::IntHop;
use crate::config::{RdmaCc, RdmaConfig};
use crate::packet::Packet;
use crate::time::{serialization, Time};

/// The flow's pacing, which a law moves: the line and current rates, when
/// the next packet may leave, and the size of the last one sent.
#[derive(Clone, Copy, Debug)]
pub struct Pacing {
    pub line_bps: u64,
    pub rate_bps: u64,
    pub next_avail: Time,
    pub last_size: u16,
}

impl Pacing {
    /// A new rate that also re-paces the packet already waiting (the
    /// simulator's `ChangeRate`, HPCC's): the next one may leave as if the
    /// last had been sent at the new rate.
    pub fn change_rate(&mut self, rate: u64) {
        if self.last_size > 0 {
            let (old, new) = (serialization(self.last_size as u64, self.rate_bps), serialization(self.last_size as u64, rate));
            self.next_avail = (self.next_avail + new).saturating_sub(old);
        }
        self.rate_bps = rate;
    }
}

/// An ACK or NACK as a law sees it.
#[derive(Clone, Copy, Debug)]
pub struct Feedback<'a> {
    pub now: Time,
    pub ack: &'a Packet,
    /// Packets this ACK newly acknowledges.
    pub newly_acked: u32,
    /// The next packet the flow will send.
    pub snd_nxt: u32,
    /// The telemetry the ACK carries back (HPCC).
    pub telemetry: &'a [IntHop],
}

/// A rate law's hooks, each doing nothing by default.
pub trait RateLaw {
    /// An ACK or a NACK reaches the sender.
    fn on_ack(&mut self, _fb: &Feedback, _p: &mut Pacing, _cfg: &RdmaConfig) {}

    /// A packet of `size` bytes left the NIC (already paced).
    fn on_sent(&mut self, _size: u16, _p: &mut Pacing, _cfg: &RdmaConfig) {}

    /// A data packet reaches the receiver.
    fn on_receive(&mut self, _now: Time, _data: &Packet, _cfg: &RdmaConfig) {}

    /// The receiver's ACKs echo CE marks (else the law sends its own
    /// notifications).
    fn echoes_marks(&self) -> bool {
        true
    }

    /// A window of the law's own, bytes (else the queue pair's).
    fn window_bytes(&self, _cfg: &RdmaConfig) -> Option<u64> {
        None
    }

    /// The safety timeout fired.
    fn on_timeout(&mut self) {}

    /// Timer kinds the flow uses (1: the safety timeout alone).
    fn timer_kinds(&self) -> u8 {
        1
    }

    /// When timer `kind` (1-3) fires.
    fn deadline(&self, _kind: u8) -> Option<Time> {
        None
    }

    /// Timer `kind` (1-3) fired; `expected`: the receiver's next expected
    /// packet.
    fn on_timer(&mut self, _now: Time, _kind: u8, _expected: u32, _p: &mut Pacing, _cfg: &RdmaConfig) {}

    /// The receiver has a timer of its own.
    fn receiver_has_timer(&self) -> bool {
        false
    }

    /// A notification the receiver's timer released, to send now.
    fn take_reply(&mut self) -> Option<Packet> {
        None
    }
}

/// No reaction to congestion: the line rate.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineRate;

impl RateLaw for LineRate {}

/// The law a queue pair runs, by `RdmaCc` (enum dispatch).
#[derive(Debug)]
pub enum Law {
    None(LineRate),
    Dcqcn(dcqcn::Dcqcn),
    /// (boxed: only its flows pay for its size)
    DcqcnNs3(Box<dcqcn_ns3::Ns3Dcqcn>),
    Hpcc(hpcc::Hpcc),
    Dctcp(dctcp::Dctcp),
    Delay(delay::Delay),
}

macro_rules! each_law {
    ($self:expr, $l:ident => $body:expr) => {
        each_arm!($self, Law[None, Dcqcn, DcqcnNs3, Hpcc, Dctcp, Delay], $l => $body)
    };
}

impl Law {
    /// The law of `cfg` for a flow whose base RTT and BDP are `pair` (with
    /// `RdmaConfig::pair_rtt`), and the rate it starts at.
    pub fn new(cfg: &RdmaConfig, pair: Option<(Time, u64)>) -> (Law, u64) {
        let line = cfg.line_rate_bps;
        match &cfg.cc {
            RdmaCc::None => (Law::None(LineRate), line),
            RdmaCc::Dcqcn(_) => (Law::Dcqcn(dcqcn::Dcqcn::new()), line),
            RdmaCc::DcqcnNs3(c) => (Law::DcqcnNs3(Box::new(dcqcn_ns3::Ns3Dcqcn::new(c, line))), line),
            RdmaCc::Hpcc(h) => (Law::Hpcc(hpcc::Hpcc::new(h, line, pair)), line),
            RdmaCc::Dctcp(d) => {
                let (law, rate) = dctcp::Dctcp::new(d, cfg);
                (Law::Dctcp(law), rate)
            }
            RdmaCc::Delay(_) => (Law::Delay(delay::Delay::new(cfg)), line),
        }
    }
}

impl RateLaw for Law {
    #[inline]
    fn on_ack(&mut self, fb: &Feedback, p: &mut Pacing, cfg: &RdmaConfig) {
        each_law!(self, l => l.on_ack(fb, p, cfg))
    }
    #[inline]
    fn on_sent(&mut self, size: u16, p: &mut Pacing, cfg: &RdmaConfig) {
        each_law!(self, l => l.on_sent(size, p, cfg))
    }
    #[inline]
    fn on_receive(&mut self, now: Time, data: &Packet, cfg: &RdmaConfig) {
        each_law!(self, l => l.on_receive(now, data, cfg))
    }
    #[inline]
    fn echoes_marks(&self) -> bool {
        each_law!(self, l => l.echoes_marks())
    }
    #[inline]
    fn window_bytes(&self, cfg: &RdmaConfig) -> Option<u64> {
        each_law!(self, l => l.window_bytes(cfg))
    }
    fn on_timeout(&mut self) {
        each_law!(self, l => l.on_timeout())
    }
    #[inline]
    fn timer_kinds(&self) -> u8 {
        each_law!(self, l => l.timer_kinds())
    }
    #[inline]
    fn deadline(&self, kind: u8) -> Option<Time> {
        each_law!(self, l => l.deadline(kind))
    }
    fn on_timer(&mut self, now: Time, kind: u8, expected: u32, p: &mut Pacing, cfg: &RdmaConfig) {
        each_law!(self, l => l.on_timer(now, kind, expected, p, cfg))
    }
    fn receiver_has_timer(&self) -> bool {
        each_law!(self, l => l.receiver_has_timer())
    }
    fn take_reply(&mut self) -> Option<Packet> {
        each_law!(self, l => l.take_reply())
    }
}

/// Timer kinds of an RDMA flow.
pub mod timer {
    /// The queue pair's safety timeout.
    pub const RTO: u8 = 0;
    /// DCQCN's alpha update, rate decrease check and rate increase.
    pub const ALPHA: u8 = 1;
    pub const DECREASE: u8 = 2;
    pub const INCREASE: u8 = 3;
    /// ns3-rdma's DCQCN cuts at once (no decrease timer): its receiver's
    /// CNP tick takes that slot.
    pub const CNP: u8 = DECREASE;
}
