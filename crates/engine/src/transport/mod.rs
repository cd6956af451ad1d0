//! Host transports: both endpoints of a flow. Sans-IO (STYLE_ANCHORS,
//! smoltcp): a transport never touches the clock, the calendar or a port.
//! It takes `now` and a packet or a timer, says which packets to send
//! (`Segment`s, or the reply to a data packet) and when its timers should
//! fire; the simulation does the rest. A new transport is a module here and
//! one arm of `Transport`; the event loop does not change.

pub mod cubic;
pub mod dcqcn_ns3;
pub mod delayed_ack;
pub mod homa;
pub mod rdma;
pub mod tcp;
pub mod xpass;

pub use rdma::{IntHop, IntStack, Poll};

use crate::config::TransportConfig;
use crate::packet::Packet;
use crate::time::Time;
use crate::workload::FlowSpec;

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
    pub kind: crate::packet::Kind,
}

/// The state a reused connection carries from flow to flow, by transport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Conn {
    Tcp(tcp::Conn),
}

/// Both endpoints of one flow, by transport.
#[derive(Debug)]
pub enum Transport {
    /// The TCP family: NewReno + SACK (TCP-DropTail), with ECN.
    Tcp(tcp::TcpFlow),
    /// An RDMA queue pair: paced, go-back-N, pulled by the NIC.
    Rdma(rdma::RdmaFlow),
    /// ExpressPass: the receiver's credits let the sender's data out.
    Xpass(xpass::XpassFlow),
    /// Homa: unscheduled bytes, then the receiver's grants.
    Homa(homa::HomaFlow),
}

/// A flow and its configuration, by transport (a flow's transport is the
/// configuration's: other pairs cannot occur).
macro_rules! with_cfg {
    ($self:expr, $cfg:expr, $t:ident, $c:ident => $tcp:expr, $rdma:expr, $xpass:expr, $homa:expr) => {
        match ($self, $cfg) {
            (Transport::Tcp($t), TransportConfig::Tcp($c)) => $tcp,
            (Transport::Rdma($t), TransportConfig::Rdma($c)) => $rdma,
            (Transport::Xpass($t), TransportConfig::Xpass($c)) => $xpass,
            (Transport::Homa($t), TransportConfig::Homa($c)) => $homa,
            _ => unreachable!("a flow's transport is its configuration's"),
        }
    };
}

impl Transport {
    /// A flow's endpoints; on a reused connection, `conn` is what the
    /// connection kept from its last flow; `opened_now`: a pool opened the
    /// flow's connection for it (a handshake first, if so configured);
    /// `pair_rtt`: the flow's own base RTT, where its transport uses it.
    pub fn new(
        spec: &FlowSpec,
        cfg: &TransportConfig,
        conn: Option<Conn>,
        deadline: Option<Time>,
        opened_now: bool,
        seed: u64,
        pair_rtt: Option<Time>,
    ) -> Transport {
        match cfg {
            TransportConfig::Tcp(c) => {
                let handshake = opened_now && c.handshake;
                Transport::Tcp(tcp::TcpFlow::new(spec, c, conn.map(|Conn::Tcp(x)| x), deadline, handshake))
            }
            TransportConfig::Rdma(c) => Transport::Rdma(rdma::RdmaFlow::with_rtt(spec, c, pair_rtt)),
            TransportConfig::Xpass(c) => Transport::Xpass(xpass::XpassFlow::new(spec, c, seed)),
            TransportConfig::Homa(c) => Transport::Homa(homa::HomaFlow::new(spec, c)),
        }
    }

    /// What the flow's connection keeps for the next flow (transports
    /// that reuse connections only).
    pub fn conn(&self) -> Conn {
        match self {
            Transport::Tcp(t) => Conn::Tcp(t.snd.conn()),
            Transport::Rdma(_) | Transport::Xpass(_) | Transport::Homa(_) => {
                unreachable!("only TCP flows reuse connections")
            }
        }
    }

    /// The flow starts: what to send first (a transport the NIC pulls
    /// sends nothing here; see `poll`).
    pub fn start(&mut self, now: Time, cfg: &TransportConfig, out: &mut Vec<Segment>) {
        with_cfg!(self, cfg, t, c => t.start(now, c, out), { let _ = (t, c); }, t.start(now, c, out), { let _ = (t, c); })
    }

    /// A transport the NIC pulls: the next packet, or when to ask again,
    /// or that it is blocked until an ACK or a timer.
    #[inline]
    pub fn poll(&mut self, now: Time, cfg: &TransportConfig) -> Poll {
        with_cfg!(self, cfg, t, c => { let _ = (t, c); Poll::Blocked }, t.poll(now, c), { let _ = (t, c); Poll::Blocked },
                  t.poll(c))
    }

    /// A flow the NIC serves shortest remaining first: the bytes it has
    /// yet to send.
    #[inline]
    pub fn bytes_left(&self, cfg: &TransportConfig) -> u64 {
        with_cfg!(self, cfg, t, c => { let _ = (t, c); 0 }, t.bytes_left(c), { let _ = (t, c); 0 }, t.bytes_left(c))
    }

    /// The receiving end takes a data packet (or another packet the
    /// sender sent it); returns the reply to send back, if any.
    #[inline]
    pub fn on_data(&mut self, now: Time, data: &Packet, cfg: &TransportConfig) -> Option<Packet> {
        with_cfg!(self, cfg, t, c => t.on_data(now, data, c), t.on_data(now, data, c), t.on_data(now, data, c),
                  t.on_data(data, c))
    }

    /// The receiver has timers of its own or ends the flow (ExpressPass:
    /// its credits, and the CREDIT_STOP): after it takes a packet, the
    /// simulation arms its timers and checks whether the flow is over.
    #[inline]
    pub fn receiver_drives(&self) -> bool {
        match self {
            // the receiver ends the flow when it holds every byte
            Transport::Xpass(_) | Transport::Homa(_) => true,
            // a receiver that holds ACKs has a timer of its own
            Transport::Tcp(t) => t.coalesces_acks(),
            // ns3-rdma's DCQCN ticks at the receiver
            Transport::Rdma(t) => t.receiver_has_timer(),
        }
    }

    /// The sending end takes an acknowledgement (or other feedback), with
    /// the in-band telemetry it carries (HPCC; empty otherwise).
    #[inline]
    pub fn on_ack(&mut self, now: Time, ack: &Packet, int: &[IntHop], cfg: &TransportConfig, out: &mut Vec<Segment>) {
        with_cfg!(self, cfg, t, c => { let _ = int; t.on_ack(now, ack, c, out) }, t.on_ack(now, ack, int, c), {
            let _ = int;
            t.on_ack(now, ack, c, out)
        }, {
            let _ = (int, c, now, out);
            t.on_grant(ack)
        })
    }

    /// A data packet of this flow was dropped in the network, and the
    /// transport retransmits perfectly (`RdmaConfig::perfect_retransmit`):
    /// send it again.
    pub fn lost(&mut self, seq: u32) {
        if let Transport::Rdma(t) = self {
            t.lost(seq);
        }
    }

    /// A pulled flow: when its pacing lets it send next.
    #[inline]
    pub fn next_avail(&self) -> Time {
        match self {
            Transport::Tcp(_) | Transport::Xpass(_) | Transport::Homa(_) => 0,
            Transport::Rdma(t) => t.next_avail(),
        }
    }

    /// How many kinds of timer (`event::timer`) this transport uses; kinds
    /// `0..timer_kinds()`.
    #[inline]
    pub fn timer_kinds(&self) -> u8 {
        match self {
            Transport::Tcp(t) => 1 + t.coalesces_acks() as u8,
            Transport::Rdma(t) => t.timer_kinds(),
            Transport::Xpass(_) => 4,
            Transport::Homa(_) => 0,
        }
    }

    /// When timer `kind` should fire (None: not armed). The simulation
    /// keeps at most one calendar entry per flow and kind, and re-arms it
    /// lazily when it fires early.
    #[inline]
    pub fn deadline(&self, kind: u8) -> Option<Time> {
        match self {
            Transport::Tcp(t) => t.deadline(kind),
            Transport::Rdma(t) => t.deadline(kind),
            Transport::Xpass(t) => t.deadline(kind),
            Transport::Homa(_) => homa::deadline(kind),
        }
    }

    /// Timer `kind` fired at its deadline.
    pub fn on_timer(&mut self, now: Time, kind: u8, cfg: &TransportConfig, out: &mut Vec<Segment>) {
        with_cfg!(self, cfg, t, c => t.on_timer(now, kind, c, out), t.on_timer(now, kind, c), t.on_timer(now, kind, c, out), {
            let _ = (t, c, out);
            unreachable!("Homa has no timers")
        })
    }

    /// A reply the receiver held and a timer released (TCP's coalesced
    /// ACKs, ns3-rdma DCQCN's CNPs), to send from the receiver now.
    pub fn take_reply(&mut self, now: Time) -> Option<Packet> {
        match self {
            Transport::Tcp(t) => t.take_due_ack(now),
            Transport::Rdma(t) => t.take_cnp(),
            Transport::Xpass(_) | Transport::Homa(_) => None,
        }
    }

    /// The receiver holds every byte.
    #[inline]
    pub fn receiver_complete(&self) -> bool {
        match self {
            Transport::Tcp(t) => t.rcv.complete(),
            Transport::Rdma(t) => t.receiver_complete(),
            Transport::Xpass(t) => t.receiver_complete(),
            Transport::Homa(t) => t.receiver_complete(),
        }
    }

    /// The sender has nothing left to do (every byte acknowledged; for
    /// ExpressPass, the flow is over: see `receiver_drives`).
    #[inline]
    pub fn sender_done(&self) -> bool {
        match self {
            Transport::Tcp(t) => t.snd.done(),
            Transport::Rdma(t) => t.sender_done(),
            Transport::Xpass(t) => t.closed(),
            // nothing follows the last byte (no ACKs)
            Transport::Homa(t) => t.receiver_complete(),
        }
    }

    /// Data packets sent more than once, so far.
    #[inline]
    pub fn retransmits(&self) -> u32 {
        match self {
            Transport::Tcp(t) => t.snd.retx,
            Transport::Rdma(t) => t.retx,
            Transport::Xpass(t) => t.retx,
            Transport::Homa(_) => 0,
        }
    }

    /// Retransmission timeouts, so far.
    #[inline]
    pub fn timeouts(&self) -> u32 {
        match self {
            Transport::Tcp(t) => t.snd.timeouts,
            Transport::Rdma(t) => t.timeouts,
            Transport::Xpass(t) => t.timeouts,
            Transport::Homa(_) => 0,
        }
    }

    /// Payload bytes the receiver holds.
    pub fn delivered_bytes(&self, cfg: &TransportConfig) -> u64 {
        with_cfg!(self, cfg, t, c => t.delivered_bytes(c), t.delivered_bytes(c), t.delivered_bytes(c), {
            let _ = c;
            t.delivered_bytes()
        })
    }
}
