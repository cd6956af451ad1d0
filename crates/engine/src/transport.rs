//! The per-flow seam: both endpoints of a flow, behind one interface.
//!
//! Sans-IO (STYLE_ANCHORS, smoltcp): an endpoint never touches the clock,
//! the calendar or a port. Each hook gets a context (`Cx`: the time, its
//! transport's configuration, what the packet brought beside its header,
//! and where to put the segments it sends) and says what to send and when
//! its timers should fire; the simulation does the rest. Every hook has
//! the same shape for every transport and does nothing by default, so a
//! transport implements only what it uses.
//!
//! The transports are enum arms (`schemes::Transport`: no `dyn` on the
//! packet path), one per family, each in its folder under `schemes/`; a
//! transport defined outside the engine (a researcher's own, or a test's)
//! runs as `Transport::Custom`, a boxed endpoint made by a factory the
//! embedding program gives the simulation (`Simulation::with_transport`;
//! docs/extending.md).

use crate::config::CustomConfig;
use crate::packet::{Kind, Packet};
use crate::time::Time;
use crate::workload::FlowSpec;

pub use crate::schemes::rdma::telemetry::IntHop;

/// A packet an endpoint asks to send: the simulation builds the packet
/// (flow, endpoints, timestamp) around it. Mostly data from the sender;
/// kinds `Kind::from_receiver` go from the receiver to the sender
/// (ExpressPass's credits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u32,
    /// Bytes on the wire.
    pub size: u16,
    pub flags: u8,
    /// The packet's scheduling priority (lower is more urgent).
    pub prio: u64,
    pub kind: Kind,
}

/// What a flow says when its NIC asks it for a packet (transports the NIC
/// pulls: `Endpoint::poll`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poll {
    Send(Segment),
    /// Paced: ask again at this time.
    At(Time),
    /// Window full or nothing to send: wait for an ACK, a grant or a timer.
    Blocked,
}

/// What a hook of an endpoint is given.
pub struct Cx<'a, C: ?Sized> {
    pub now: Time,
    /// The flow's transport configuration.
    pub cfg: &'a C,
    /// What the packet at hand brought beside its header: the in-band
    /// telemetry of the hops it crossed (HPCC); empty otherwise.
    pub telemetry: &'a [IntHop],
    /// The segments to send.
    pub out: &'a mut Vec<Segment>,
}

/// What a flow's endpoints are made from, beside their configuration.
#[derive(Clone, Copy, Debug)]
pub struct NewFlow<'a> {
    pub spec: &'a FlowSpec,
    /// The flow's absolute deadline, if it has one.
    pub deadline: Option<Time>,
    /// The run's seed (for endpoints that draw random numbers).
    pub seed: u64,
    /// The flow's base RTT: both ways' propagation and one MSS's
    /// serialization per hop on its path (the HPCC simulator's `pairRtt`).
    pub base_rtt: Time,
}

/// Both endpoints of one flow: the hooks the simulation calls, each doing
/// nothing by default. `Config` is the transport's configuration.
pub trait Endpoint {
    type Config: ?Sized;

    // ---- the sender ----

    /// The flow starts: what to send first (a transport its NIC pulls sends
    /// nothing here; see `poll`).
    fn start(&mut self, _cx: &mut Cx<Self::Config>) {}

    /// A transport its NIC pulls: the NIC's line is free; the next packet,
    /// or when to ask again, or that the flow is blocked.
    fn poll(&mut self, _cx: &mut Cx<Self::Config>) -> Poll {
        Poll::Blocked
    }

    /// An acknowledgement, credit or grant reaches the sender.
    fn on_ack(&mut self, _cx: &mut Cx<Self::Config>, _pkt: &Packet) {}

    /// A data packet of this flow was dropped in the network and the
    /// transport learns it at once (idealized retransmission).
    fn on_loss(&mut self, _seq: u32) {}

    // ---- the receiver ----

    /// A data packet (or another packet the sender sent) reaches the
    /// receiver; returns the reply to send back, if any.
    fn on_data(&mut self, _cx: &mut Cx<Self::Config>, _pkt: &Packet) -> Option<Packet> {
        None
    }

    /// The receiver has timers of its own or ends the flow: after it takes
    /// a packet, the simulation arms its timers and checks whether the
    /// flow is over.
    fn receiver_drives(&self) -> bool {
        false
    }

    /// A reply the receiver held and a timer released, to send from the
    /// receiver now.
    fn take_reply(&mut self, _now: Time) -> Option<Packet> {
        None
    }

    // ---- timers: kinds 0..timer_kinds() ----

    /// How many kinds of timer the flow uses (at most 8).
    fn timer_kinds(&self) -> u8 {
        0
    }

    /// When timer `kind` should fire (None: not armed). The simulation
    /// keeps at most one calendar entry per flow and kind, and re-arms it
    /// when it fires early.
    fn deadline(&self, _kind: u8) -> Option<Time> {
        None
    }

    /// Timer `kind` fired at its deadline.
    fn on_timer(&mut self, _cx: &mut Cx<Self::Config>, _kind: u8) {}

    // ---- what the simulation reads ----

    /// The receiver holds every byte.
    fn receiver_complete(&self) -> bool;

    /// The sender has nothing left to do (the flow is over when both ends
    /// are).
    fn sender_done(&self) -> bool;

    /// Payload bytes the receiver holds.
    fn delivered_bytes(&self, cfg: &Self::Config) -> u64;

    /// The sender gave the flow up before the receiver held every byte
    /// (PDQ's Early Termination): it is recorded as unfinished.
    fn terminated(&self) -> bool {
        false
    }

    /// Data packets sent more than once, so far.
    fn retransmits(&self) -> u32 {
        0
    }

    /// Data packets the receiver took that it already held (a copy sent
    /// again whose first had arrived: a spurious retransmission), so far.
    fn duplicates(&self) -> u32 {
        0
    }

    /// Retransmission timeouts, so far.
    fn timeouts(&self) -> u32 {
        0
    }

    /// Bytes the sender has yet to send (a NIC that serves its flows
    /// shortest remaining first orders by it).
    fn bytes_left(&self, _cfg: &Self::Config) -> u64 {
        0
    }

    /// A pulled flow: when its pacing lets it send next.
    fn next_avail(&self) -> Time {
        0
    }
}

/// A transport defined outside the engine: its endpoints, boxed.
pub type CustomEndpoint = Box<dyn Endpoint<Config = CustomConfig> + Send + Sync>;

/// Makes the endpoints of a transport defined outside the engine.
pub trait Factory: Send + Sync {
    fn new_flow(&mut self, f: &NewFlow, cfg: &CustomConfig) -> CustomEndpoint;
}

/// A boxed endpoint is an endpoint (`Transport::Custom`).
impl<E: Endpoint + ?Sized> Endpoint for Box<E> {
    type Config = E::Config;

    fn start(&mut self, cx: &mut Cx<Self::Config>) {
        (**self).start(cx)
    }
    fn poll(&mut self, cx: &mut Cx<Self::Config>) -> Poll {
        (**self).poll(cx)
    }
    fn on_ack(&mut self, cx: &mut Cx<Self::Config>, pkt: &Packet) {
        (**self).on_ack(cx, pkt)
    }
    fn on_loss(&mut self, seq: u32) {
        (**self).on_loss(seq)
    }
    fn on_data(&mut self, cx: &mut Cx<Self::Config>, pkt: &Packet) -> Option<Packet> {
        (**self).on_data(cx, pkt)
    }
    fn receiver_drives(&self) -> bool {
        (**self).receiver_drives()
    }
    fn take_reply(&mut self, now: Time) -> Option<Packet> {
        (**self).take_reply(now)
    }
    fn timer_kinds(&self) -> u8 {
        (**self).timer_kinds()
    }
    fn deadline(&self, kind: u8) -> Option<Time> {
        (**self).deadline(kind)
    }
    fn on_timer(&mut self, cx: &mut Cx<Self::Config>, kind: u8) {
        (**self).on_timer(cx, kind)
    }
    fn receiver_complete(&self) -> bool {
        (**self).receiver_complete()
    }
    fn sender_done(&self) -> bool {
        (**self).sender_done()
    }
    fn delivered_bytes(&self, cfg: &Self::Config) -> u64 {
        (**self).delivered_bytes(cfg)
    }
    fn terminated(&self) -> bool {
        (**self).terminated()
    }
    fn retransmits(&self) -> u32 {
        (**self).retransmits()
    }
    fn duplicates(&self) -> u32 {
        (**self).duplicates()
    }
    fn timeouts(&self) -> u32 {
        (**self).timeouts()
    }
    fn bytes_left(&self, cfg: &Self::Config) -> u64 {
        (**self).bytes_left(cfg)
    }
    fn next_avail(&self) -> Time {
        (**self).next_avail()
    }
}
