//! An RDMA queue pair as the HPCC simulator models RoCE NICs (the
//! simulator BFC NSDI'22 §6.2 ran DCQCN, DCTCP and HPCC on; its
//! `rdma-hw.cc` and `rdma-queue-pair.cc`): a rate-paced sender with an
//! optional window, go-back-N loss recovery, and a receiver that ACKs every
//! packet. The rate is its law's (`cc/`: none, DCQCN in two versions, HPCC
//! with its telemetry (`telemetry.rs`), DCTCP, BFC's delay-based window).
//! The schemes of this family: dcqcn, dcqcn_ns3rdma, hpcc, dctcp_rdma,
//! ideal_fq_packet, ideal_srf_packet, and the hosts of bfc.
//!
//! The NIC pulls packets (`Endpoint::poll`): when its line is free it
//! asks its flows in turn for the next packet; a flow answers with one, or
//! with when its pacing allows the next (`next_avail`: its last packet's
//! size at its current rate after that packet left), or that it is blocked
//! (window full, or nothing left to send until an ACK or a NACK).
//!
//! Go-back-N (the simulator's, with `L2_BACK_TO_ZERO 0`): a packet beyond
//! the next expected one is discarded and answered with a NACK for the
//! expected one (at most one per `nack_interval` for the same expected
//! packet); a NACK rewinds the sender to it. The simulator has no
//! retransmission timeout (a lost last packet would stall its flow, which
//! PFC makes moot); here an optional safety timeout (`rto_ps`) rewinds a
//! sender that heard nothing for that long, and counts as a timeout. With
//! `answer_duplicates` (runs with faults), the packets it sends again then
//! ask for an ACK (`flags::PROBE`), which the receiver gives even for a
//! packet it holds, as an InfiniBand responder acknowledges a duplicate
//! request: the simulator's receiver ignores duplicates, so a last ACK
//! lost on a failed link would otherwise leave the sender resending
//! forever. Without faults nothing changes (results as the simulator's).

pub mod cc;
pub mod srf;
pub mod telemetry;
#[cfg(test)]
mod tests;

pub use cc::timer;

use crate::bitset::Bitset;
use crate::config::{RdmaCc, RdmaConfig};
use crate::packet::{flags, Kind, Packet};
use crate::time::{serialization, Time};
use crate::transport::{Cx, Endpoint, NewFlow, Poll, Segment};
use cc::{Feedback, Law, Pacing, RateLaw};
use telemetry::IntHop;

#[derive(Debug)]
pub struct RdmaFlow {
    /// Packets of the flow, and the payload of its last one.
    n_pkts: u32,
    last_payload: u32,
    pacing: Pacing,
    /// Next packet to send, first unacknowledged.
    snd_nxt: u32,
    snd_una: u32,
    /// Safety timeout deadline, while packets are unacknowledged.
    rto_deadline: Option<Time>,
    /// The rate law (`cc/`).
    law: Law,
    /// The flow's own base RTT and BDP (`RdmaConfig::pair_rtt`).
    pair: Option<(Time, u64)>,
    /// Timer kinds in use: the law's three beside the RTO, or the RTO
    /// alone (not asking for the others saves the simulation three looks
    /// per packet sent).
    kinds: u8,
    pub retx: u32,
    pub timeouts: u32,
    /// Highest packet ever sent + 1 (what is a retransmission).
    high: u32,
    /// Packets below this, sent again after a timeout, ask the receiver
    /// for an ACK even if it holds them (`flags::PROBE`).
    probe_below: u32,
    /// Packets dropped in the network, to send again first (perfect
    /// retransmission).
    resend: std::collections::VecDeque<u32>,
    // receiver
    expected: u32,
    last_nack: u32,
    nack_after: Time,
    /// Packets held out of order (perfect retransmission only).
    got: Option<Bitset>,
}

impl RdmaFlow {
    /// A flow whose HPCC takes T = `pair_rtt` and W = its BDP at the line
    /// rate (`RdmaConfig::pair_rtt`), else the configuration's.
    pub fn with_rtt(size: u64, cfg: &RdmaConfig, pair_rtt: Option<Time>) -> RdmaFlow {
        let mss = cfg.mss_bytes as u64;
        let n = size.div_ceil(mss).max(1);
        let n_pkts = u32::try_from(n).expect("flow too large");
        let pair = pair_rtt.map(|t| (t, (t as u128 * cfg.line_rate_bps as u128 / 8 / crate::time::PS_PER_S as u128) as u64));
        let (law, rate_bps) = Law::new(cfg, pair);
        RdmaFlow {
            n_pkts,
            last_payload: (size - (n - 1) * mss) as u32,
            pacing: Pacing { line_bps: cfg.line_rate_bps, rate_bps, next_avail: 0, last_size: 0 },
            snd_nxt: 0,
            snd_una: 0,
            rto_deadline: None,
            kinds: law.timer_kinds(),
            law,
            pair,
            retx: 0,
            timeouts: 0,
            high: 0,
            probe_below: 0,
            resend: Default::default(),
            expected: 0,
            last_nack: u32::MAX,
            nack_after: 0,
            got: None,
        }
    }

    fn wire(&self, seq: u32, cfg: &RdmaConfig) -> u16 {
        let payload = if seq + 1 == self.n_pkts { self.last_payload } else { cfg.mss_bytes };
        (payload + cfg.header_bytes + telemetry::header_bytes(cfg)) as u16
    }

    /// The window in bytes (0: none): the law's, or `window_bytes` scaled
    /// by the rate over the line rate with `var_win` (the simulator's
    /// `GetWin`).
    fn window(&self, cfg: &RdmaConfig) -> u64 {
        if let Some(w) = self.law.window_bytes(cfg) {
            return w;
        }
        let Some(w) = cfg.window_bytes else { return 0 };
        let w = self.pair.map_or(w, |(_, bdp)| bdp);
        let p = &self.pacing;
        let w = if cfg.var_win { (w as u128 * p.rate_bps as u128 / p.line_bps as u128) as u64 } else { w };
        w.max(1)
    }

    /// The NIC asks for the next packet.
    pub fn poll(&mut self, now: Time, cfg: &RdmaConfig) -> Poll {
        while self.resend.front().is_some_and(|&s| s < self.snd_una) {
            self.resend.pop_front();
        }
        // a lost packet goes again first, in place of itself in the window
        let again = self.resend.front().copied();
        if again.is_none() {
            if self.snd_nxt >= self.n_pkts {
                return Poll::Blocked;
            }
            let w = self.window(cfg);
            let mss = cfg.mss_bytes as u64;
            if w != 0 && (self.snd_nxt - self.snd_una) as u64 * mss >= w {
                return Poll::Blocked;
            }
        }
        if self.pacing.next_avail > now {
            return Poll::At(self.pacing.next_avail);
        }
        let seq = match again {
            Some(seq) => {
                self.resend.pop_front();
                self.retx += 1;
                seq
            }
            None => {
                let seq = self.snd_nxt;
                self.snd_nxt += 1;
                if seq < self.high {
                    self.retx += 1;
                }
                self.high = self.high.max(self.snd_nxt);
                seq
            }
        };
        let size = self.wire(seq, cfg);
        // the next packet may leave once this one has, at the flow's rate
        // (the simulator's `UpdateNextAvail`, no interframe gap)
        self.pacing.next_avail = now + serialization(size as u64, self.pacing.rate_bps);
        self.pacing.last_size = size;
        self.law.on_sent(size, &mut self.pacing, cfg);
        if self.rto_deadline.is_none() {
            self.rto_deadline = cfg.rto_ps.map(|r| now + r);
        }
        let probe = if seq < self.probe_below { flags::PROBE } else { 0 };
        Poll::Send(Segment { seq, size, flags: flags::ECT | probe, prio: 0, kind: Kind::Data })
    }

    /// The receiver takes a data packet: an ACK of the next expected packet
    /// (echoing CE), a NACK, or nothing (a duplicate, or a NACK held back
    /// by the NACK interval).
    pub fn on_data(&mut self, now: Time, data: &Packet, cfg: &RdmaConfig) -> Option<Packet> {
        self.law.on_receive(now, data, cfg);
        let nack = if cfg.perfect_retransmit {
            // selective: keep what comes out of order, acknowledge the
            // first packet still missing, never NACK
            if data.seq >= self.expected {
                let n = self.n_pkts;
                let got = self.got.get_or_insert_with(|| Bitset::new(n));
                got.set(data.seq);
                while self.expected < n && got.get(self.expected) {
                    self.expected += 1;
                }
            }
            false
        } else if data.seq == self.expected {
            self.expected += 1;
            false
        } else if data.seq > self.expected {
            if now < self.nack_after && self.last_nack == self.expected {
                return None;
            }
            self.nack_after = now + cfg.nack_interval_ps;
            self.last_nack = self.expected;
            true
        } else if data.has(flags::PROBE) {
            // a duplicate sent again after a timeout: acknowledge what is held
            false
        } else {
            return None;
        };
        let mut f = if data.has(flags::CE) && self.law.echoes_marks() { flags::ECE } else { 0 };
        if nack {
            f |= flags::NACK;
        }
        Some(Packet {
            seq: self.expected,
            sack_lo: 0,
            sack_hi: 0,
            prio: 0,
            src: data.dst,
            dst: data.src,
            // HPCC's ACK carries the telemetry header in place of 14 bytes
            // of the padding of a minimum frame (the simulator's 48 -> 76 B)
            size: (cfg.ack_bytes + telemetry::header_bytes(cfg).saturating_sub(14)) as u16,
            kind: Kind::Ack,
            flags: f,
            ..*data
        })
    }

    /// The sender takes an ACK or a NACK, with the telemetry it carries.
    pub fn on_ack(&mut self, now: Time, ack: &Packet, int: &[IntHop], cfg: &RdmaConfig) {
        let newly_acked = ack.seq.saturating_sub(self.snd_una);
        if ack.seq > self.snd_una {
            self.snd_una = ack.seq;
            // after a timeout rewound it, ACKs of packets that were only
            // late can overtake the next packet to send
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.rto_deadline = cfg.rto_ps.filter(|_| self.snd_una < self.snd_nxt).map(|r| now + r);
        }
        if ack.has(flags::NACK) {
            self.snd_nxt = self.snd_una;
        }
        let fb = Feedback { now, ack, newly_acked, snd_nxt: self.snd_nxt, telemetry: int };
        self.law.on_ack(&fb, &mut self.pacing, cfg);
    }

    pub fn on_timer(&mut self, now: Time, kind: u8, cfg: &RdmaConfig) {
        if kind == timer::RTO {
            // nothing heard for the safety timeout: go back to the first
            // unacknowledged packet
            self.timeouts += 1;
            self.law.on_timeout();
            // going back covers the packets known lost too
            self.resend.clear();
            if cfg.answer_duplicates {
                self.probe_below = self.high;
            }
            self.snd_nxt = self.snd_una;
            self.pacing.next_avail = now;
            self.rto_deadline = None;
            return;
        }
        self.law.on_timer(now, kind, self.expected, &mut self.pacing, cfg);
    }

    /// The current sending rate.
    pub fn rate_bps(&self) -> u64 {
        self.pacing.rate_bps
    }
}

impl Endpoint for RdmaFlow {
    type Config = RdmaConfig;

    #[inline]
    fn poll(&mut self, cx: &mut Cx<RdmaConfig>) -> Poll {
        RdmaFlow::poll(self, cx.now, cx.cfg)
    }

    #[inline]
    fn on_ack(&mut self, cx: &mut Cx<RdmaConfig>, pkt: &Packet) {
        RdmaFlow::on_ack(self, cx.now, pkt, cx.telemetry, cx.cfg)
    }

    /// Packet `seq` was dropped in the network (perfect retransmission):
    /// it goes again before any new packet.
    fn on_loss(&mut self, seq: u32) {
        if seq >= self.snd_una && !self.resend.contains(&seq) {
            self.resend.push_back(seq);
        }
    }

    #[inline]
    fn on_data(&mut self, cx: &mut Cx<RdmaConfig>, pkt: &Packet) -> Option<Packet> {
        RdmaFlow::on_data(self, cx.now, pkt, cx.cfg)
    }

    /// ns3-rdma's DCQCN ticks at the receiver.
    #[inline]
    fn receiver_drives(&self) -> bool {
        self.law.receiver_has_timer()
    }

    /// The notification a receiver's tick released (ns3-rdma's CNP).
    fn take_reply(&mut self, _now: Time) -> Option<Packet> {
        self.law.take_reply()
    }

    #[inline]
    fn timer_kinds(&self) -> u8 {
        self.kinds
    }

    #[inline]
    fn deadline(&self, kind: u8) -> Option<Time> {
        match kind {
            timer::RTO => self.rto_deadline,
            _ => self.law.deadline(kind),
        }
    }

    fn on_timer(&mut self, cx: &mut Cx<RdmaConfig>, kind: u8) {
        RdmaFlow::on_timer(self, cx.now, kind, cx.cfg)
    }

    #[inline]
    fn receiver_complete(&self) -> bool {
        self.expected >= self.n_pkts
    }

    #[inline]
    fn sender_done(&self) -> bool {
        self.snd_una >= self.n_pkts
    }

    fn delivered_bytes(&self, cfg: &RdmaConfig) -> u64 {
        if self.expected == 0 {
            return 0;
        }
        (self.expected as u64 - 1) * cfg.mss_bytes as u64
            + if self.expected >= self.n_pkts { self.last_payload as u64 } else { cfg.mss_bytes as u64 }
    }

    #[inline]
    fn retransmits(&self) -> u32 {
        self.retx
    }

    #[inline]
    fn timeouts(&self) -> u32 {
        self.timeouts
    }

    /// Bytes not yet sent (go-back-N counts the packets to send again).
    #[inline]
    fn bytes_left(&self, cfg: &RdmaConfig) -> u64 {
        if self.snd_nxt >= self.n_pkts {
            return 0;
        }
        (self.n_pkts - self.snd_nxt - 1) as u64 * cfg.mss_bytes as u64 + self.last_payload as u64
    }

    #[inline]
    fn next_avail(&self) -> Time {
        self.pacing.next_avail
    }
}

/// Fill in what the configuration leaves to the network: T and W as the
/// HPCC simulator takes them, the longest base RTT in the network (`rtt`:
/// two ways' propagation and one payload's serialization per hop) and T at
/// the line rate (`maxBdp`, the window of HPCC and of DCTCP).
pub fn resolve(r: &mut RdmaConfig, rtt: Time) {
    let bdp = |t: Time| (t as u128 * r.line_rate_bps as u128 / 8 / crate::time::PS_PER_S as u128) as u64;
    match &mut r.cc {
        RdmaCc::Hpcc(h) => {
            let t = *h.base_rtt_ps.get_or_insert(rtt);
            let w = *h.window_bytes.get_or_insert(bdp(t));
            r.window_bytes.get_or_insert(w);
        }
        RdmaCc::Delay(d) => {
            let t = *d.base_rtt_ps.get_or_insert(rtt);
            r.window_bytes.get_or_insert(bdp(t));
        }
        RdmaCc::Dctcp(_) => r.window_bdp = true,
        _ => {}
    }
    if r.window_bdp {
        r.window_bytes.get_or_insert(bdp(rtt));
    }
}

/// A flow's queue pair.
pub fn new_flow(f: &NewFlow, cfg: &RdmaConfig) -> RdmaFlow {
    RdmaFlow::with_rtt(f.spec.size, cfg, cfg.pair_rtt.then_some(f.base_rtt))
}
