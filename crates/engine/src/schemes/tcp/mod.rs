//! The TCP family (tcp, dctcp, l2dct, pfabric, pias, las, prio_queues):
//! one socket, NewReno + SACK delivery in segments (`sender.rs`,
//! `receiver.rs`), with its window laws apart (`cc/`: Reno, DCTCP, L2DCT,
//! CUBIC), its retransmission timer (`rto.rs`, pFabric's minimal rate
//! control among them), what its data packets carry for priority ports
//! (`prio.rs`), delayed ACKs (`delayed_ack.rs`) and the connection pools
//! its hosts keep (`pool.rs`).
//!
//! Modeled: slow start and congestion avoidance (RFC 5681), NewReno fast
//! retransmit / fast recovery (RFC 6582) with a SACK scoreboard deciding
//! what to retransmit and how much is in flight (RFC 6675, simplified:
//! every un-SACKed segment below the highest SACKed one counts as lost),
//! RTO estimation with timestamps (RFC 6298, RFC 7323) and exponential
//! backoff. The handshake only where the ns-2 scripts do one: a connection
//! a pool opens on the fly sends a SYN and its data after the SYN-ACK. The
//! receiver acknowledges every segment (ns-2's sinks), or coalesces its
//! ACKs as Linux's does (`ack_every`). Not modeled: SACK reneging, receive
//! windows.

pub mod cc;
pub mod delayed_ack;
pub mod pool;
pub mod prio;
pub mod receiver;
pub mod rto;
pub mod sender;
#[cfg(test)]
mod tests;

pub use prio::class_of;
pub use receiver::TcpReceiver;
pub use sender::{AckInfo, Conn, TcpSender, PROBE, SYN};

use crate::config::TcpConfig;
use crate::packet::{flags, Kind, Packet};
use crate::time::Time;
use crate::transport::{Cx, Endpoint, NewFlow, Segment};
use delayed_ack::DelayedAck;
use prio::Stamp;

/// Both ends of a TCP flow. The sender and receiver count in segments;
/// this turns segment numbers into packets (sizes, flags, priorities).
#[derive(Debug)]
pub struct TcpFlow {
    size: u64,
    /// Absolute deadline, if the flow has one (pFabric-EDF).
    deadline: Option<Time>,
    pub snd: TcpSender,
    pub rcv: TcpReceiver,
    /// Segment numbers to send, reused between calls.
    segs: Vec<u32>,
    /// The ACK the receiver holds (`ack_every` > 1).
    delack: DelayedAck,
    coalesce: bool,
}

/// Timer kinds of a TCP flow.
pub mod timer {
    pub const RTO: u8 = 0;
    /// A receiver's held ACK (`ack_every` > 1).
    pub const DELACK: u8 = 1;
}

impl TcpFlow {
    /// A flow on a new connection, or on a reused one in state `conn`;
    /// `handshake`: the connection is opened now, so its first flow waits
    /// for a SYN-ACK.
    pub fn new(f: &NewFlow, cfg: &TcpConfig, conn: Option<Conn>, handshake: bool) -> TcpFlow {
        let n_segs = u32::try_from(f.spec.size.div_ceil(cfg.mss_bytes as u64)).expect("flow too large");
        assert!(n_segs < PROBE - 1, "flow too large");
        let mut snd = TcpSender::on_conn(n_segs, cfg, conn.unwrap_or_else(|| Conn::fresh(cfg)));
        snd.handshaking = handshake;
        TcpFlow {
            size: f.spec.size,
            deadline: f.deadline,
            snd,
            rcv: TcpReceiver::new(n_segs),
            segs: Vec::new(),
            delack: DelayedAck::default(),
            coalesce: cfg.ack_every > 1,
        }
    }

    /// A receiver that coalesces its ACKs (and so has a timer of its own).
    pub fn coalesces_acks(&self) -> bool {
        self.coalesce
    }

    #[inline(never)]
    fn on_data_coalescing(&mut self, now: Time, data: &Packet, cfg: &TcpConfig) -> Option<Packet> {
        let cum = self.rcv.cum;
        let ack = self.ack_for(data, cfg);
        // at once: anything but the next segment in order with no hole
        // behind it, and the flow's last segment (`delayed_ack.rs`)
        let bare = data.flags & (flags::PROBE | flags::SYN) != 0;
        let in_order = !bare && data.seq == cum && ack.seq == cum + 1 && self.rcv.ooo() == 0;
        let immediate = !in_order || self.rcv.complete();
        self.delack.on_ack(now, ack, immediate, cfg.ack_every, cfg.ack_delay_ps)
    }

    /// The ACK of `data`, which the receiver has taken: the data packet's
    /// fields, turned around. An ACK has priority 0, the most urgent
    /// (pFabric's ns-2 code stamps priorities on data only). A SYN gets a
    /// SYN-ACK.
    #[inline(always)]
    fn ack_for(&mut self, data: &Packet, cfg: &TcpConfig) -> Packet {
        let bare = data.flags & (flags::PROBE | flags::SYN) != 0;
        let (ackno, lo, hi) = if bare { (self.rcv.cum, 0, 0) } else { self.rcv.on_data(data.seq) };
        let mut fl = if data.has(flags::CE) { flags::ECE } else { 0 };
        fl |= data.flags & flags::SYN;
        Packet {
            seq: ackno,
            sack_lo: lo,
            sack_hi: hi,
            prio: 0,
            src: data.dst,
            dst: data.src,
            size: cfg.ack_bytes as u16,
            kind: Kind::Ack,
            flags: fl,
            ..*data
        }
    }

    /// Bytes of the flow not yet known to have arrived.
    fn remaining_bytes(&self, mss: u64) -> u64 {
        let last = self.snd.n_segs - 1;
        let short = if self.snd.arrived(last) { 0 } else { (last as u64 + 1) * mss - self.size };
        self.snd.remaining_segs() as u64 * mss - short
    }

    /// The segments the sender chose, as packets to build, with what the
    /// scheme stamps on them (`prio.rs`).
    fn emit(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        if self.segs.is_empty() {
            return;
        }
        let (mss, hdr) = (cfg.mss_bytes as u64, cfg.header_bytes as u64);
        let last = self.snd.n_segs - 1;
        let last_payload = self.size - last as u64 * mss;
        let stamp = Stamp::new(now, cfg, self.size, || self.remaining_bytes(mss), self.deadline);
        let ect = stamp.flags(cfg);
        out.extend(self.segs.drain(..).map(|seg| {
            if seg == SYN {
                // ns-2 stamps priorities on data only: a SYN has the
                // agent's default, 0, the most urgent (as an ACK)
                return Segment { seq: 0, size: hdr as u16, flags: (ect & flags::ECT) | flags::SYN, prio: 0, kind: Kind::Data };
            }
            let (seq, probe) = (seg & !PROBE, seg & PROBE != 0);
            let payload = if probe {
                1 // a one-byte probe (ns-2 MinTCP)
            } else if seq == last {
                last_payload
            } else {
                mss
            };
            let flags = if probe { ect | flags::PROBE } else { ect };
            Segment { seq, size: (payload + hdr) as u16, flags, prio: stamp.prio(cfg, seq, mss), kind: Kind::Data }
        }));
    }
}

impl Endpoint for TcpFlow {
    type Config = TcpConfig;

    /// The first window, or on a connection being opened, the SYN.
    fn start(&mut self, cx: &mut Cx<TcpConfig>) {
        self.snd.fill(cx.now, &mut self.segs);
        self.emit(cx.now, cx.cfg, cx.out);
    }

    #[inline]
    fn on_ack(&mut self, cx: &mut Cx<TcpConfig>, ack: &Packet) {
        let info = AckInfo {
            ackno: ack.seq,
            sack_lo: ack.sack_lo,
            sack_hi: ack.sack_hi,
            ts_echo: ack.ts,
            ece: ack.has(flags::ECE),
            syn: ack.has(flags::SYN),
        };
        self.snd.on_ack(cx.now, info, cx.cfg, &mut self.segs);
        self.emit(cx.now, cx.cfg, cx.out);
    }

    #[inline]
    fn on_data(&mut self, cx: &mut Cx<TcpConfig>, data: &Packet) -> Option<Packet> {
        if self.coalesce {
            return self.on_data_coalescing(cx.now, data, cx.cfg);
        }
        Some(self.ack_for(data, cx.cfg))
    }

    /// A receiver that holds ACKs has a timer of its own.
    #[inline]
    fn receiver_drives(&self) -> bool {
        self.coalesce
    }

    /// The held ACK, if its time has come.
    #[inline]
    fn take_reply(&mut self, now: Time) -> Option<Packet> {
        self.delack.take_due(now)
    }

    #[inline]
    fn timer_kinds(&self) -> u8 {
        1 + self.coalesce as u8
    }

    #[inline]
    fn deadline(&self, kind: u8) -> Option<Time> {
        match kind {
            timer::RTO => self.snd.rto_deadline,
            _ => self.delack.deadline(),
        }
    }

    /// A timeout; a held ACK's time (taken by `take_reply`).
    fn on_timer(&mut self, cx: &mut Cx<TcpConfig>, kind: u8) {
        if kind == timer::RTO {
            self.snd.on_timeout(cx.now, cx.cfg, &mut self.segs);
            self.emit(cx.now, cx.cfg, cx.out);
        }
    }

    #[inline]
    fn receiver_complete(&self) -> bool {
        self.rcv.complete()
    }

    #[inline]
    fn sender_done(&self) -> bool {
        self.snd.done()
    }

    fn delivered_bytes(&self, cfg: &TcpConfig) -> u64 {
        let mss = cfg.mss_bytes as u64;
        let n = self.rcv.n_segs;
        // every received segment is a full MSS except the last one
        let short = if self.rcv.has(n - 1) { n as u64 * mss - self.size } else { 0 };
        self.rcv.received() as u64 * mss - short
    }

    #[inline]
    fn retransmits(&self) -> u32 {
        self.snd.retx
    }

    fn duplicates(&self) -> u32 {
        self.rcv.dups
    }

    #[inline]
    fn timeouts(&self) -> u32 {
        self.snd.timeouts
    }
}
