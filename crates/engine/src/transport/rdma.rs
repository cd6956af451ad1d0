//! An RDMA queue pair as the HPCC simulator models RoCE NICs (the
//! simulator BFC NSDI'22 §6.2 ran DCQCN, DCTCP and HPCC on; its
//! `rdma-hw.cc` and `rdma-queue-pair.cc`): a rate-paced sender with an
//! optional window, go-back-N loss recovery, and a receiver that ACKs every
//! packet. Rate control is a congestion-control variant (`RdmaCc`): none
//! (line rate: BFC's hosts), DCQCN (Mellanox's version, the simulator's
//! `--cc dcqcn`), DCQCN as ns3-rdma has it (`dcqcn_ns3.rs`), HPCC (`--cc hp`), DCTCP (`--cc dctcp`, rate-based, with
//! an optional slow start of our own for BFC's Fig. 23) or BFC's own
//! delay-based window (App. A.1, BFC + CC).
//!
//! The NIC pulls packets (`Transport::poll`): when its line is free it
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
//! sender that heard nothing for that long, and counts as a timeout.

use super::dcqcn_ns3::{NotificationPoint, ReactionPoint};
use super::Segment;
use crate::bitset::Bitset;
use crate::config::{DctcpRdmaConfig, DelayCcConfig, HpccConfig, RdmaCc, RdmaConfig};
use crate::packet::{flags, Kind, Packet};
use crate::time::{serialization, Time};
use crate::workload::FlowSpec;

/// Timer kinds of an RDMA flow (`event::timer`).
pub mod timer {
    pub const RTO: u8 = 0;
    /// DCQCN's alpha update, rate decrease check and rate increase.
    pub const ALPHA: u8 = 1;
    pub const DECREASE: u8 = 2;
    pub const INCREASE: u8 = 3;
    /// ns3-rdma's DCQCN cuts at once (no decrease timer): its receiver's
    /// CNP tick takes that slot, so every RDMA flow has the same 4 kinds.
    pub const CNP: u8 = DECREASE;
}

/// Bytes of HPCC's telemetry header on each packet (none for the others).
fn int_header(cfg: &RdmaConfig) -> u32 {
    match &cfg.cc {
        RdmaCc::Hpcc(h) => h.int_header_bytes,
        _ => 0,
    }
}

/// What a flow says when the NIC asks it for a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poll {
    Send(Segment),
    /// Paced: ask again at this time.
    At(Time),
    /// Window full or nothing to send: wait for an ACK, a NACK or a timer.
    Blocked,
}

/// DCQCN's state (the simulator's `mlx` fields).
#[derive(Clone, Copy, Debug, Default)]
struct Dcqcn {
    target_bps: u64,
    alpha: f64,
    alpha_cnp: bool,
    decrease_cnp: bool,
    first_cnp: bool,
    stage: u32,
    next_alpha: Option<Time>,
    next_decrease: Option<Time>,
    next_increase: Option<Time>,
}

/// ns3-rdma's DCQCN: both ends' state, and the CNP the receiver owes.
#[derive(Debug)]
struct Ns3Dcqcn {
    rp: ReactionPoint,
    np: NotificationPoint,
    /// The receiver's CNP, made from the flow's first data packet.
    template: Option<Packet>,
    due: Option<Packet>,
}

/// DCTCP's state (the simulator's `dctcp` fields), counted in packets
/// where the simulator counts bytes.
#[derive(Clone, Copy, Debug)]
struct Dctcp {
    alpha: f64,
    /// Marked ACKs since the last alpha update, and the packets that
    /// update covers.
    marks: u32,
    batch: u32,
    /// alpha next moves when this packet is acknowledged (`None`: no ACK
    /// yet).
    last_update_seq: Option<u32>,
    /// Congestion window reduced: no further cut until `high_seq` is
    /// acknowledged.
    cwr: bool,
    high_seq: u32,
    slow_start: bool,
}

/// One hop's in-band telemetry (the HPCC simulator's `IntHop`), stamped by
/// a switch port as a data packet leaves it: when, the port's bytes sent
/// before it, the bytes queued behind it, and the link's rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    pub ts: Time,
    pub tx_bytes: u64,
    pub qlen: u64,
    pub rate_bps: u64,
}

/// Hops a packet's telemetry holds (the simulator's `IntHeader::maxHop`).
pub const MAX_INT_HOPS: usize = 5;

/// A packet's telemetry, in a side table of the packet pool: an ACK reuses
/// its data packet's slot, so it carries the data packet's telemetry back.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntStack {
    pub n: u8,
    pub hops: [IntHop; MAX_INT_HOPS],
}

impl IntStack {
    pub fn push(&mut self, hop: IntHop) {
        if (self.n as usize) < MAX_INT_HOPS {
            self.hops[self.n as usize] = hop;
            self.n += 1;
        }
    }

    pub fn hops(&self) -> &[IntHop] {
        &self.hops[..self.n as usize]
    }
}

/// HPCC's state (the simulator's `hp` fields).
#[derive(Clone, Copy, Debug)]
struct Hpcc {
    /// Updates of the reference rate wait for the ACK of this packet.
    last_update_seq: Option<u32>,
    hops: [IntHop; MAX_INT_HOPS],
    u: f64,
    cur_bps: u64,
    stage: u32,
}

#[derive(Debug)]
pub struct RdmaFlow {
    /// Packets of the flow, and the payload of its last one.
    n_pkts: u32,
    last_payload: u32,
    line_bps: u64,
    rate_bps: u64,
    /// Next packet to send, first unacknowledged.
    snd_nxt: u32,
    snd_una: u32,
    next_avail: Time,
    /// Safety timeout deadline, while packets are unacknowledged.
    rto_deadline: Option<Time>,
    dcqcn: Dcqcn,
    /// ns3-rdma's DCQCN (boxed: only its flows pay for it).
    ns3: Option<Box<Ns3Dcqcn>>,
    hpcc: Hpcc,
    dctcp: Dctcp,
    /// The delay-based window (`RdmaCc::Delay`), packets.
    delay_w: f64,
    /// The flow's own base RTT and BDP (`RdmaConfig::pair_rtt`).
    pair: Option<(Time, u64)>,
    /// Timer kinds in use (`timer`): DCQCN's three beside the RTO, or the
    /// RTO alone (the others' deadlines are never set; not asking for them
    /// saves the simulation three looks per packet sent).
    kinds: u8,
    /// Bytes of the last packet sent (to re-pace it when the rate changes).
    last_size: u16,
    pub retx: u32,
    pub timeouts: u32,
    /// Highest packet ever sent + 1 (what is a retransmission).
    high: u32,
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
    pub fn new(spec: &FlowSpec, cfg: &RdmaConfig) -> RdmaFlow {
        Self::with_rtt(spec, cfg, None)
    }

    /// A flow whose HPCC takes T = `pair_rtt` and W = its BDP at the line
    /// rate (`RdmaConfig::pair_rtt`), else the configuration's.
    pub fn with_rtt(spec: &FlowSpec, cfg: &RdmaConfig, pair_rtt: Option<Time>) -> RdmaFlow {
        let mss = cfg.mss_bytes as u64;
        let n = spec.size.div_ceil(mss).max(1);
        let n_pkts = u32::try_from(n).expect("flow too large");
        let mut rate_bps = cfg.line_rate_bps;
        let mut slow_start = false;
        if let (RdmaCc::Dctcp(DctcpRdmaConfig { init_window_pkts: Some(iw), .. }), Some(w)) = (&cfg.cc, cfg.window_bytes) {
            // slow start: the rate whose window (W x rate / line rate) is
            // the initial window, rounded up so that it holds all of it
            rate_bps = ((cfg.line_rate_bps as u128 * (*iw as u128 * mss as u128)).div_ceil(w.max(1) as u128) as u64)
                .min(cfg.line_rate_bps);
            slow_start = rate_bps < cfg.line_rate_bps;
        }
        RdmaFlow {
            n_pkts,
            last_payload: (spec.size - (n - 1) * mss) as u32,
            line_bps: cfg.line_rate_bps,
            rate_bps,
            snd_nxt: 0,
            snd_una: 0,
            next_avail: 0,
            rto_deadline: None,
            dcqcn: Dcqcn { first_cnp: true, ..Dcqcn::default() },
            ns3: match &cfg.cc {
                RdmaCc::DcqcnNs3(c) => Some(Box::new(Ns3Dcqcn {
                    rp: ReactionPoint::new(c, cfg.line_rate_bps),
                    np: NotificationPoint::default(),
                    template: None,
                    due: None,
                })),
                _ => None,
            },
            hpcc: Hpcc {
                last_update_seq: None,
                hops: [IntHop::default(); MAX_INT_HOPS],
                u: 1.0,
                cur_bps: cfg.line_rate_bps,
                stage: 0,
            },
            // alpha starts at 1 (the simulator's `RdmaQueuePair`)
            dctcp: Dctcp { alpha: 1.0, marks: 0, batch: 0, last_update_seq: None, cwr: false, high_seq: 0, slow_start },
            // Algorithm 1: w = 1 BDP
            delay_w: cfg.window_bytes.unwrap_or(0) as f64 / mss as f64,
            pair: pair_rtt.map(|t| (t, (t as u128 * cfg.line_rate_bps as u128 / 8 / crate::time::PS_PER_S as u128) as u64)),
            kinds: if matches!(cfg.cc, RdmaCc::Dcqcn(_) | RdmaCc::DcqcnNs3(_)) { 4 } else { 1 },
            last_size: 0,
            retx: 0,
            timeouts: 0,
            high: 0,
            resend: Default::default(),
            expected: 0,
            last_nack: u32::MAX,
            nack_after: 0,
            got: None,
        }
    }

    /// Packet `seq` was dropped in the network (perfect retransmission):
    /// it goes again before any new packet.
    pub fn lost(&mut self, seq: u32) {
        if seq >= self.snd_una && !self.resend.contains(&seq) {
            self.resend.push_back(seq);
        }
    }

    fn wire(&self, seq: u32, cfg: &RdmaConfig) -> u16 {
        let payload = if seq + 1 == self.n_pkts { self.last_payload } else { cfg.mss_bytes };
        (payload + cfg.header_bytes + int_header(cfg)) as u16
    }

    /// The window in packets (0: none): `window_bytes` scaled by the rate
    /// over the line rate with `var_win` (the simulator's `GetWin`).
    fn window(&self, cfg: &RdmaConfig) -> u64 {
        if let RdmaCc::Delay(_) = cfg.cc {
            return ((self.delay_w * cfg.mss_bytes as f64) as u64).max(1);
        }
        let Some(w) = cfg.window_bytes else { return 0 };
        let w = self.pair.map_or(w, |(_, bdp)| bdp);
        let w = if cfg.var_win { (w as u128 * self.rate_bps as u128 / self.line_bps as u128) as u64 } else { w };
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
        if self.next_avail > now {
            return Poll::At(self.next_avail);
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
        self.next_avail = now + serialization(size as u64, self.rate_bps);
        self.last_size = size;
        if let (Some(n), RdmaCc::DcqcnNs3(c)) = (self.ns3.as_deref_mut(), &cfg.cc) {
            // ns3-rdma counts bytes at dequeue, after pacing this packet
            self.rate_bps = n.rp.sent(size as u32, self.rate_bps, self.line_bps, c);
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = cfg.rto_ps.map(|r| now + r);
        }
        Poll::Send(Segment { seq, size, flags: flags::ECT, prio: 0, kind: Kind::Data })
    }

    /// The receiver takes a data packet: an ACK of the next expected packet
    /// (echoing CE as a CNP), a NACK, or nothing (a duplicate, or a NACK
    /// held back by the NACK interval).
    pub fn on_data(&mut self, now: Time, data: &Packet, cfg: &RdmaConfig) -> Option<Packet> {
        if let (Some(n), RdmaCc::DcqcnNs3(c)) = (self.ns3.as_deref_mut(), &cfg.cc) {
            // every packet counts towards the CNP, duplicates too; ACKs do
            // not echo marks (the CNP does)
            n.np.on_data(now, data.has(flags::CE), c);
            self.dcqcn.next_decrease = n.np.next_tick;
            n.template.get_or_insert(Packet {
                seq: 0,
                sack_lo: 0,
                sack_hi: 0,
                prio: 0,
                src: data.dst,
                dst: data.src,
                size: cfg.ack_bytes as u16,
                kind: Kind::Ack,
                flags: flags::ECE,
                ..*data
            });
        }
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
        } else {
            return None;
        };
        let mut f = if data.has(flags::CE) && self.ns3.is_none() { flags::ECE } else { 0 };
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
            size: (cfg.ack_bytes + int_header(cfg).saturating_sub(14)) as u16,
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
        match &cfg.cc {
            RdmaCc::Dcqcn(_) if ack.has(flags::ECE) => self.cnp(now, cfg),
            RdmaCc::DcqcnNs3(c) if ack.has(flags::ECE) => {
                let n = self.ns3.as_deref_mut().expect("made with the flow");
                self.rate_bps = n.rp.cnp(now, self.rate_bps, c);
                self.sync_ns3();
            }
            RdmaCc::Hpcc(h) => self.hpcc_ack(ack.seq, int, h),
            RdmaCc::Dctcp(d) => self.dctcp_ack(ack, newly_acked, d, cfg),
            RdmaCc::Delay(d) => self.delay_ack(now.saturating_sub(ack.ts), d, cfg),
            _ => {}
        }
    }

    /// BFC's simple end-to-end control (App. A.1, Algorithm 1), on every
    /// ACK with its RTT sample: above the target (`target_factor` x the
    /// base RTT) the window falls by (RTT - target) / RTT packets, below it
    /// grows by (target - RTT) / RTT, so within an RTT it goes from w to
    /// about w x target / RTT. The paper gives no bounds: we keep it
    /// between one packet and the target RTT's BDP (more could not be in
    /// flight at the target RTT and line rate).
    fn delay_ack(&mut self, rtt: Time, d: &DelayCcConfig, cfg: &RdmaConfig) {
        let t = d.base_rtt_ps.expect("resolved by the simulation") as f64;
        let target = d.target_factor * t;
        let rtt = (rtt as f64).max(1.0);
        let bdp = cfg.window_bytes.expect("resolved by the simulation") as f64 / cfg.mss_bytes as f64;
        self.delay_w = (self.delay_w + (target - rtt) / rtt).clamp(1.0, (bdp * d.target_factor).max(1.0));
    }

    /// DCTCP on an ACK (the simulator's `HandleAckDctcp`): once per window
    /// of packets, alpha moves towards the fraction of them that came back
    /// marked (gain g); a mark outside a reduced window cuts the rate by
    /// alpha/2 and starts one; a window without a cut adds `rai`. The
    /// window follows the rate (W x rate / line rate).
    ///
    /// Slow start (not in the simulator; BFC App. A.6's DCTCP + SS): from
    /// an initial window of `init_window_pkts`, each newly acknowledged
    /// packet adds one to the window (it doubles every round trip) until
    /// the first mark, a NACK or a timeout.
    fn dctcp_ack(&mut self, ack: &Packet, newly_acked: u32, d: &DctcpRdmaConfig, cfg: &RdmaConfig) {
        let mark = ack.has(flags::ECE);
        let s = &mut self.dctcp;
        s.marks += mark as u32;
        let mut new_batch = false;
        match s.last_update_seq {
            Some(last) if ack.seq > last => {
                new_batch = true;
                let frac = (s.marks as f64 / s.batch.max(1) as f64).min(1.0);
                s.alpha = (1.0 - d.g) * s.alpha + d.g * frac;
                s.last_update_seq = Some(self.snd_nxt);
                s.marks = 0;
                s.batch = self.snd_nxt.saturating_sub(ack.seq) + 1;
            }
            Some(_) => {}
            None => {
                // the first ACK: the first window ends at what is sent now
                new_batch = true;
                s.last_update_seq = Some(self.snd_nxt);
                s.batch = self.snd_nxt + 1;
            }
        }
        if s.cwr && ack.seq > s.high_seq {
            s.cwr = false;
        }
        if s.slow_start && (mark || ack.has(flags::NACK)) {
            s.slow_start = false;
        }
        let mut rate = self.rate_bps;
        if mark && !s.cwr {
            rate = d.min_rate_bps.max((rate as f64 * (1.0 - s.alpha / 2.0)) as u64);
            s.cwr = true;
            s.high_seq = self.snd_nxt;
        } else if s.slow_start {
            let w = cfg.window_bytes.expect("resolved by the simulation").max(1) as u128;
            let more = (self.line_bps as u128 * newly_acked as u128 * cfg.mss_bytes as u128 / w) as u64;
            rate = rate.saturating_add(more).min(self.line_bps);
            s.slow_start = rate < self.line_bps;
        } else if !s.cwr && new_batch {
            rate = (rate + d.rai_bps).min(self.line_bps);
        }
        // set directly, as the simulator does for DCTCP (the packet already
        // paced keeps its time; `change_rate` is HPCC's)
        self.rate_bps = rate;
    }

    /// HPCC on an ACK (the simulator's `HandleAckHp`, `UpdateRateHp`, with
    /// fast reaction and one rate for all hops): the normalized in-flight
    /// bytes of each hop from its telemetry and the last (U = tx rate /
    /// link rate + queue / (link rate x T)), the most loaded hop's folded
    /// into an average over T; the rate follows on every ACK, and the
    /// reference rate and stage it starts from move once per RTT.
    fn hpcc_ack(&mut self, ack_seq: u32, int: &[IntHop], h: &HpccConfig) {
        let n = int.len().min(MAX_INT_HOPS);
        let Some(last) = self.hpcc.last_update_seq else {
            // the first ACK only keeps the telemetry
            self.hpcc.last_update_seq = Some(self.snd_nxt);
            self.hpcc.hops[..n].copy_from_slice(&int[..n]);
            return;
        };
        let full = ack_seq > last;
        let (mut umax, mut dt) = (0.0f64, 0u64);
        for (i, hop) in int[..n].iter().enumerate() {
            let prev = self.hpcc.hops[i];
            let tau = hop.ts.saturating_sub(prev.ts);
            let tx = (hop.tx_bytes.saturating_sub(prev.tx_bytes)) as f64 * 8.0 / (tau.max(1) as f64 * 1e-12);
            let q = hop.qlen.min(prev.qlen) as f64;
            let w = self.pair.map_or_else(|| h.window_bytes.expect("resolved by the simulation"), |(_, bdp)| bdp) as f64;
            let u = tx / hop.rate_bps as f64 + q * self.line_bps as f64 / hop.rate_bps as f64 / w;
            if u > umax {
                umax = u;
                dt = tau;
            }
            self.hpcc.hops[i] = *hop;
        }
        if n > 0 {
            let t = self.pair.map_or_else(|| h.base_rtt_ps.expect("resolved by the simulation"), |(t, _)| t);
            let dt = dt.min(t);
            self.hpcc.u = (self.hpcc.u * (t - dt) as f64 + umax * dt as f64) / t as f64;
            let max_c = self.hpcc.u / h.eta;
            let (rate, stage) = if max_c >= 1.0 || self.hpcc.stage >= h.max_stage {
                ((self.hpcc.cur_bps as f64 / max_c) as u64 + h.rai_bps, 0)
            } else {
                (self.hpcc.cur_bps + h.rai_bps, self.hpcc.stage + 1)
            };
            let rate = rate.clamp(h.min_rate_bps.min(self.line_bps), self.line_bps);
            self.change_rate(rate);
            if full {
                self.hpcc.cur_bps = rate;
                self.hpcc.stage = stage;
            }
        }
        if full {
            self.hpcc.last_update_seq = Some(self.snd_nxt.max(last));
        }
    }

    /// A new rate also re-paces the packet already waiting (the simulator's
    /// `ChangeRate`): the next one may leave as if the last had been sent at
    /// the new rate.
    fn change_rate(&mut self, rate: u64) {
        if self.last_size > 0 {
            let (old, new) = (serialization(self.last_size as u64, self.rate_bps), serialization(self.last_size as u64, rate));
            self.next_avail = (self.next_avail + new).saturating_sub(old);
        }
        self.rate_bps = rate;
    }

    /// When the flow may send next (pacing), for the NIC.
    /// Bytes not yet sent (what a NIC that serves shortest remaining first
    /// orders by; go-back-N counts the packets to send again).
    pub fn bytes_left(&self, cfg: &RdmaConfig) -> u64 {
        if self.snd_nxt >= self.n_pkts {
            return 0;
        }
        (self.n_pkts - self.snd_nxt - 1) as u64 * cfg.mss_bytes as u64 + self.last_payload as u64
    }

    pub fn next_avail(&self) -> Time {
        self.next_avail
    }

    /// DCQCN: a congestion notification (the simulator's
    /// `cnp_received_mlx`): on the first, alpha = 1 and the alpha and
    /// decrease timers start; the rate is cut at the next decrease check.
    fn cnp(&mut self, now: Time, cfg: &RdmaConfig) {
        let RdmaCc::Dcqcn(d) = &cfg.cc else { return };
        let s = &mut self.dcqcn;
        s.alpha_cnp = true;
        s.decrease_cnp = true;
        if s.first_cnp {
            s.alpha = 1.0;
            s.alpha_cnp = false;
            s.next_alpha = Some(now + d.alpha_interval_ps);
            // 1 ns later, so that a decrease follows the alpha update
            s.next_decrease = Some(now + d.decrease_interval_ps + 1000);
            self.rate_bps = (self.rate_bps as f64 * d.rate_on_first_cnp) as u64;
            s.target_bps = self.rate_bps;
            s.first_cnp = false;
        }
    }

    /// Timer kinds `0..timer_kinds()` may be armed.
    pub fn timer_kinds(&self) -> u8 {
        self.kinds
    }

    pub fn deadline(&self, kind: u8) -> Option<Time> {
        // ns3-rdma's DCQCN keeps its deadlines in `dcqcn` too
        // (`sync_ns3`), so that other flows pay nothing for it here
        match kind {
            timer::RTO => self.rto_deadline,
            timer::ALPHA => self.dcqcn.next_alpha,
            timer::DECREASE => self.dcqcn.next_decrease,
            _ => self.dcqcn.next_increase,
        }
    }

    pub fn on_timer(&mut self, now: Time, kind: u8, cfg: &RdmaConfig) {
        if kind == timer::RTO {
            // nothing heard for the safety timeout: go back to the first
            // unacknowledged packet
            self.timeouts += 1;
            self.dctcp.slow_start = false;
            // going back covers the packets known lost too
            self.resend.clear();
            self.snd_nxt = self.snd_una;
            self.next_avail = now;
            self.rto_deadline = None;
            return;
        }
        if let (Some(n), RdmaCc::DcqcnNs3(c)) = (self.ns3.as_deref_mut(), &cfg.cc) {
            match kind {
                timer::ALPHA => n.rp.alpha_timer(now, c),
                timer::INCREASE => self.rate_bps = n.rp.increase_timer(now, self.rate_bps, self.line_bps, c),
                _ => {
                    // timer::CNP
                    if n.np.tick() {
                        let t = n.template.expect("a tick follows a data packet");
                        n.due = Some(Packet { seq: self.expected, ..t });
                    }
                }
            }
            self.sync_ns3();
            return;
        }
        let RdmaCc::Dcqcn(d) = &cfg.cc else { return };
        let line = self.line_bps;
        let s = &mut self.dcqcn;
        match kind {
            timer::ALPHA => {
                s.alpha = (1.0 - d.g) * s.alpha + if s.alpha_cnp { d.g } else { 0.0 };
                s.alpha_cnp = false;
                s.next_alpha = Some(now + d.alpha_interval_ps);
            }
            timer::DECREASE => {
                s.next_decrease = Some(now + d.decrease_interval_ps);
                if s.decrease_cnp {
                    if d.clamp_target_rate || s.stage != 0 {
                        s.target_bps = self.rate_bps;
                    }
                    self.rate_bps = d.min_rate_bps.max((self.rate_bps as f64 * (1.0 - s.alpha / 2.0)) as u64);
                    s.stage = 0;
                    s.decrease_cnp = false;
                    s.next_increase = Some(now + d.increase_interval_ps);
                }
            }
            _ => {
                s.next_increase = Some(now + d.increase_interval_ps);
                // fast recovery, then additive, then hyper increase
                if s.stage == d.fast_recovery_times {
                    s.target_bps = (s.target_bps + d.ai_bps).min(line);
                } else if s.stage > d.fast_recovery_times {
                    s.target_bps = (s.target_bps + d.hai_bps).min(line);
                }
                self.rate_bps = self.rate_bps / 2 + s.target_bps / 2;
                s.stage += 1;
            }
        }
    }

    pub fn receiver_complete(&self) -> bool {
        self.expected >= self.n_pkts
    }

    /// ns3-rdma's DCQCN: the receiver has a timer of its own (its CNP
    /// tick) and sends CNPs apart from its ACKs.
    pub fn receiver_has_timer(&self) -> bool {
        self.ns3.is_some()
    }

    /// The deadlines of ns3-rdma's DCQCN, where `deadline` reads the
    /// Mellanox version's (which such a flow does not use).
    fn sync_ns3(&mut self) {
        if let Some(n) = &self.ns3 {
            self.dcqcn.next_alpha = n.rp.next_alpha;
            self.dcqcn.next_increase = n.rp.next_increase;
            self.dcqcn.next_decrease = n.np.next_tick;
        }
    }

    /// The CNP a tick released, to send from the receiver now.
    pub fn take_cnp(&mut self) -> Option<Packet> {
        self.ns3.as_deref_mut()?.due.take()
    }

    pub fn sender_done(&self) -> bool {
        self.snd_una >= self.n_pkts
    }

    pub fn delivered_bytes(&self, cfg: &RdmaConfig) -> u64 {
        if self.expected == 0 {
            return 0;
        }
        (self.expected as u64 - 1) * cfg.mss_bytes as u64
            + if self.expected >= self.n_pkts { self.last_payload as u64 } else { cfg.mss_bytes as u64 }
    }

    /// The current sending rate.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }
}

/// Bits per second as picoseconds per byte, for tests.
#[cfg(test)]
fn ps_per_byte(bps: u64) -> Time {
    8 * crate::time::PS_PER_S / bps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DcqcnConfig;

    fn cfg(cc: RdmaCc, window: Option<u64>) -> RdmaConfig {
        RdmaConfig {
            mss_bytes: 1000,
            header_bytes: 48,
            ack_bytes: 60,
            line_rate_bps: 100_000_000_000,
            window_bytes: window,
            var_win: false,
            window_bdp: false,
            srf: false,
            pair_rtt: false,
            perfect_retransmit: false,
            nack_interval_ps: 500_000_000,
            rto_ps: None,
            cc,
        }
    }

    fn spec(size: u64) -> FlowSpec {
        FlowSpec { id: 0, src: 0, dst: 1, size, start: 0, deadline_draw: None }
    }

    fn data(seq: u32) -> Packet {
        Packet { seq, ..Packet::test_data(1048, flags::ECT) }
    }

    #[test]
    fn paced_at_line_rate_and_blocked_by_the_window() {
        let c = cfg(RdmaCc::None, Some(3000));
        let mut f = RdmaFlow::new(&spec(10_500), &c);
        let Poll::Send(s) = f.poll(0, &c) else { panic!() };
        assert_eq!((s.seq, s.size), (0, 1048));
        // the next one when the first has left at 100 Gb/s
        assert_eq!(f.poll(0, &c), Poll::At(1048 * ps_per_byte(100_000_000_000)));
        let t = 1048 * ps_per_byte(100_000_000_000);
        assert!(matches!(f.poll(t, &c), Poll::Send(_)));
        assert!(matches!(f.poll(2 * t, &c), Poll::Send(_)));
        assert_eq!(f.poll(3 * t, &c), Poll::Blocked); // 3 packets in flight = 3000 B
        f.on_ack(3 * t, &Packet { seq: 1, kind: Kind::Ack, ..data(0) }, &[], &c);
        assert!(matches!(f.poll(3 * t, &c), Poll::Send(Segment { seq: 3, .. })));
    }

    #[test]
    fn go_back_n_on_a_nack() {
        let c = cfg(RdmaCc::None, None);
        let mut f = RdmaFlow::new(&spec(5000), &c);
        let mut r = RdmaFlow::new(&spec(5000), &c);
        for _ in 0..5 {
            f.next_avail = 0;
            assert!(matches!(f.poll(0, &c), Poll::Send(_)));
        }
        assert_eq!(f.poll(0, &c), Poll::Blocked);
        // packet 1 is lost: 2 draws a NACK for 1, 3 and 4 are discarded
        // silently within the NACK interval
        let a0 = r.on_data(0, &data(0), &c).unwrap();
        assert!(!a0.has(flags::NACK) && a0.seq == 1);
        let n = r.on_data(10, &data(2), &c).unwrap();
        assert!(n.has(flags::NACK) && n.seq == 1);
        assert!(r.on_data(20, &data(3), &c).is_none());
        f.on_ack(30, &a0, &[], &c);
        f.on_ack(40, &n, &[], &c);
        f.next_avail = 0;
        let Poll::Send(s) = f.poll(40, &c) else { panic!() };
        assert_eq!(s.seq, 1);
        assert_eq!(f.retx, 1);
        for seq in 1..5 {
            let a = r.on_data(50, &data(seq), &c).unwrap();
            assert!(!a.has(flags::NACK));
        }
        assert!(r.receiver_complete());
        assert_eq!(r.delivered_bytes(&c), 5000);
        assert!(r.on_data(60, &data(4), &c).is_none()); // a duplicate
    }

    #[test]
    fn perfect_retransmission_resends_only_the_lost_packet() {
        let c = RdmaConfig { perfect_retransmit: true, ..cfg(RdmaCc::None, None) };
        let mut f = RdmaFlow::new(&spec(5000), &c);
        let mut r = RdmaFlow::new(&spec(5000), &c);
        for _ in 0..4 {
            f.next_avail = 0;
            assert!(matches!(f.poll(0, &c), Poll::Send(_)));
        }
        // packet 1 is dropped; 0, 2 and 3 arrive and are kept
        f.lost(1);
        let acks: Vec<u32> = [0, 2, 3].iter().map(|&s| r.on_data(0, &data(s), &c).unwrap()).map(|a| {
            assert!(!a.has(flags::NACK));
            a.seq
        }).collect();
        assert_eq!(acks, vec![1, 1, 1]);
        // the sender sends 1 again before its next new packet (4), once
        f.next_avail = 0;
        assert!(matches!(f.poll(0, &c), Poll::Send(Segment { seq: 1, .. })));
        f.next_avail = 0;
        assert!(matches!(f.poll(0, &c), Poll::Send(Segment { seq: 4, .. })));
        assert_eq!((f.retx, f.snd_nxt), (1, 5));
        assert_eq!(r.on_data(0, &data(1), &c).unwrap().seq, 4);
        assert_eq!(r.on_data(0, &data(4), &c).unwrap().seq, 5);
        assert!(r.receiver_complete());
        // a loss already acknowledged (a late notice) is not sent again
        f.on_ack(0, &ack(5, 0), &[], &c);
        f.lost(2);
        assert_eq!(f.poll(0, &c), Poll::Blocked);
        // a timeout goes back over everything unacknowledged, the packets
        // known lost included: they are not sent a second time
        let mut g = RdmaFlow::new(&spec(3000), &c);
        for _ in 0..3 {
            g.next_avail = 0;
            assert!(matches!(g.poll(0, &c), Poll::Send(_)));
        }
        g.lost(1);
        g.on_timer(10, timer::RTO, &c);
        let sent: Vec<u32> = (0..4).filter_map(|_| match g.poll(g.next_avail(), &c) {
            Poll::Send(s) => Some(s.seq),
            _ => None,
        }).collect();
        assert_eq!(sent, vec![0, 1, 2]);
    }

    #[test]
    fn late_acks_after_a_timeout_move_the_next_packet_on() {
        // a timeout rewinds to the first unacknowledged packet; ACKs of the
        // packets that were only late then overtake it
        let c = RdmaConfig { rto_ps: Some(1000), ..cfg(RdmaCc::None, Some(4000)) };
        let mut f = RdmaFlow::new(&spec(10_000), &c);
        for _ in 0..4 {
            f.next_avail = 0;
            assert!(matches!(f.poll(0, &c), Poll::Send(_)));
        }
        f.on_timer(1000, timer::RTO, &c);
        f.on_ack(1100, &Packet { seq: 3, kind: Kind::Ack, ..data(0) }, &[], &c);
        f.next_avail = 0;
        assert!(matches!(f.poll(1100, &c), Poll::Send(Segment { seq: 3, .. })));
        assert_eq!(f.timeouts, 1);
    }

    #[test]
    fn hpcc_aims_at_eta_of_the_bottleneck() {
        let h = HpccConfig {
            eta: 0.95,
            max_stage: 5,
            rai_bps: 40_000_000,
            min_rate_bps: 1_000_000_000,
            base_rtt_ps: Some(8_000_000),
            window_bytes: Some(100_000),
            int_bytes_unit: 1,
            int_qlen_unit: 1,
            int_header_bytes: 0,
        };
        let c = RdmaConfig { window_bytes: Some(100_000), var_win: true, ..cfg(RdmaCc::Hpcc(h), None) };
        let mut f = RdmaFlow::new(&spec(10_000_000), &c);
        for _ in 0..20 {
            f.next_avail = 0;
            assert!(matches!(f.poll(0, &c), Poll::Send(_)));
        }
        let hop = |ts: Time, tx: u64, q: u64| IntHop { ts, tx_bytes: tx, qlen: q, rate_bps: 100_000_000_000 };
        let ack = |seq| Packet { seq, kind: Kind::Ack, ..data(0) };
        // the first ACK only keeps the telemetry
        f.on_ack(0, &ack(1), &[hop(0, 0, 0)], &c);
        assert_eq!(f.rate_bps(), 100_000_000_000);
        // the link sent at its full rate for a whole T with no queue: U = 1,
        // so the rate becomes eta x the reference rate + R_AI
        f.on_ack(8_000_000, &ack(21), &[hop(8_000_000, 100_000, 0)], &c);
        assert_eq!(f.rate_bps(), 95_000_000_000 + 40_000_000);
        // the window follows the rate
        assert_eq!(f.window(&c), 100_000 * 95_040 / 100_000);
        // a link at 50% with no queue: U averages down; below eta the rate
        // grows additively from the (committed) reference rate
        f.on_ack(16_000_000, &ack(22), &[hop(16_000_000, 150_000, 0)], &c);
        assert!(f.hpcc.u < 0.95);
        assert_eq!(f.rate_bps(), 95_040_000_000 + 40_000_000);
        // a standing queue of a whole W (the smaller of this queue and the
        // last counts) on a full link doubles U: the rate about halves
        let before = f.rate_bps();
        f.on_ack(24_000_000, &ack(23), &[hop(24_000_000, 250_000, 100_000)], &c);
        f.on_ack(32_000_000, &ack(24), &[hop(32_000_000, 350_000, 100_000)], &c);
        assert!(f.rate_bps() < before * 6 / 10, "{}", f.rate_bps());
    }

    #[test]
    fn delay_window_moves_by_the_rtt_against_its_target() {
        // BFC App. A.1, Algorithm 1: T = 8 us, target 2.5 T = 20 us, w
        // starts at the BDP (100 packets of 1000 B)
        let d = DelayCcConfig { target_factor: 2.5, base_rtt_ps: Some(8_000_000) };
        let c = cfg(RdmaCc::Delay(d), Some(100_000));
        let mut f = RdmaFlow::new(&spec(10_000_000), &c);
        assert_eq!(f.window(&c), 100_000);
        assert_eq!(send(&mut f, 200, &c), 100, "one BDP in flight");
        // an ACK whose packet took 40 us (twice the target): w -= 0.5
        let sent_at = |t: Time| Packet { ts: t, ..ack(1, 0) };
        f.on_ack(40_000_000, &sent_at(0), &[], &c);
        assert!((f.delay_w - 99.5).abs() < 1e-9, "{}", f.delay_w);
        // at 10 us (half the target): w += 1
        f.on_ack(50_000_000, &Packet { seq: 2, ..sent_at(40_000_000) }, &[], &c);
        assert!((f.delay_w - 100.5).abs() < 1e-9);
        // a whole window of ACKs at 25 us takes w to about w x 20/25
        let w0 = f.delay_w;
        for k in 0..100u32 {
            f.on_ack(100_000_000, &Packet { seq: 3 + k, ..sent_at(75_000_000) }, &[], &c);
        }
        assert!((f.delay_w / w0 - 0.8).abs() < 0.03, "{} -> {}", w0, f.delay_w);
        // bounded: never below one packet, never above the target's BDP
        for k in 0..10_000u32 {
            f.on_ack(1_000_000_000, &Packet { seq: 103 + k, ..sent_at(0) }, &[], &c);
        }
        assert_eq!(f.delay_w, 1.0);
        for k in 0..10_000u32 {
            f.on_ack(1_000_000_000, &Packet { seq: 103 + k, ..sent_at(999_999_000) }, &[], &c);
        }
        assert_eq!(f.delay_w, 250.0);
    }

    fn dctcp(iw: Option<u32>) -> RdmaConfig {
        let d = DctcpRdmaConfig { g: 1.0 / 16.0, rai_bps: 615_000_000, min_rate_bps: 1_000_000_000, init_window_pkts: iw };
        RdmaConfig { var_win: true, ..cfg(RdmaCc::Dctcp(d), Some(100_000)) }
    }

    fn ack(seq: u32, f: u8) -> Packet {
        Packet { seq, kind: Kind::Ack, flags: f, ..data(0) }
    }

    fn send(f: &mut RdmaFlow, n: u32, c: &RdmaConfig) -> u32 {
        let mut sent = 0;
        for _ in 0..n {
            match f.poll(f.next_avail(), c) {
                Poll::Send(_) => sent += 1,
                _ => break,
            }
        }
        sent
    }

    #[test]
    fn dctcp_cuts_by_half_alpha_once_per_window() {
        let c = dctcp(None);
        let mut f = RdmaFlow::new(&spec(10_000_000), &c);
        assert_eq!(f.rate_bps(), 100_000_000_000); // line rate, window = W
        assert_eq!(send(&mut f, 200, &c), 100); // the window: 100 KB of payload
        // the first ACK starts the first window (to packet 100)
        f.on_ack(0, &ack(1, 0), &[], &c);
        assert_eq!(f.rate_bps(), 100_000_000_000);
        // a mark: alpha is still 1, the rate halves, and the window reduced
        f.on_ack(0, &ack(2, flags::ECE), &[], &c);
        assert_eq!(f.rate_bps(), 50_000_000_000);
        f.on_ack(0, &ack(3, flags::ECE), &[], &c);
        assert_eq!(f.rate_bps(), 50_000_000_000, "one cut per window");
        // the window ends (ACK beyond packet 100): alpha = 15/16 + 2 marks
        // of 101 packets / 16; no cut, and one additive step
        f.on_ack(0, &ack(101, 0), &[], &c);
        let alpha = 15.0 / 16.0 + (2.0 / 101.0) / 16.0;
        assert!((f.dctcp.alpha - alpha).abs() < 1e-12, "{}", f.dctcp.alpha);
        assert_eq!(f.rate_bps(), 50_615_000_000);
        // everything sent is acknowledged, so the next ACK closes another
        // window (of one packet, marked) before its mark cuts by alpha / 2
        f.on_ack(0, &ack(102, flags::ECE), &[], &c);
        let alpha = 15.0 / 16.0 * alpha + 1.0 / 16.0;
        assert_eq!(f.rate_bps(), (50_615_000_000f64 * (1.0 - alpha / 2.0)) as u64);
    }

    #[test]
    fn dctcp_slow_start_doubles_until_the_first_mark() {
        let c = dctcp(Some(10));
        let mut f = RdmaFlow::new(&spec(10_000_000), &c);
        assert_eq!(f.rate_bps(), 10_000_000_000); // 10 packets of a 100 KB window
        assert_eq!(send(&mut f, 100, &c), 10);
        // each ACK opens the window by one packet: 20 after ten ACKs
        for k in 1..=10 {
            f.on_ack(0, &ack(k, 0), &[], &c);
        }
        assert_eq!(f.rate_bps(), 20_000_000_000);
        assert_eq!(send(&mut f, 100, &c), 20);
        // a mark ends slow start with a cut; the first window (11 packets,
        // one marked) closes with it: alpha = 15/16 + 1/11/16
        f.on_ack(0, &ack(11, flags::ECE), &[], &c);
        assert!(!f.dctcp.slow_start);
        let cut = (20e9 * (1.0 - (15.0 / 16.0 + 1.0 / 176.0) / 2.0)) as u64;
        assert_eq!(f.rate_bps(), cut);
        // and unmarked ACKs no longer grow it per packet
        f.on_ack(0, &ack(12, 0), &[], &c);
        assert_eq!(f.rate_bps(), cut);
    }

    #[test]
    fn dcqcn_cuts_on_notifications_and_recovers() {
        let d = DcqcnConfig {
            alpha_interval_ps: 1_000_000,
            decrease_interval_ps: 4_000_000,
            increase_interval_ps: 300_000_000,
            g: 1.0 / 256.0,
            rate_on_first_cnp: 1.0,
            fast_recovery_times: 1,
            ai_bps: 20_000_000,
            hai_bps: 200_000_000,
            min_rate_bps: 1_000_000_000,
            clamp_target_rate: false,
        };
        let c = cfg(RdmaCc::Dcqcn(d), None);
        let mut f = RdmaFlow::new(&spec(100_000_000), &c);
        let cnp = Packet { seq: 0, kind: Kind::Ack, flags: flags::ECE, ..data(0) };
        f.on_ack(0, &cnp, &[], &c);
        assert_eq!(f.rate_bps(), 100_000_000_000); // no cut on the first
        assert_eq!(f.deadline(timer::ALPHA), Some(1_000_000));
        assert_eq!(f.deadline(timer::DECREASE), Some(4_001_000));
        // alpha decays from 1 without notifications: 4 updates
        for k in 1..=4 {
            f.on_timer(k * 1_000_000, timer::ALPHA, &c);
        }
        let alpha = (1.0 - 1.0 / 256.0f64).powi(4);
        f.on_timer(4_001_000, timer::DECREASE, &c);
        assert_eq!(f.rate_bps(), (100e9 * (1.0 - alpha / 2.0)) as u64);
        // stage 0: the target is the rate before (no clamp at stage 0 of a fresh
        // flow: the target stays the line rate)
        assert_eq!(f.dcqcn.target_bps, 100_000_000_000);
        let cut = f.rate_bps();
        // fast recovery halves the distance to the target, then the target grows
        f.on_timer(304_001_000, timer::INCREASE, &c);
        assert_eq!(f.rate_bps(), cut / 2 + 50_000_000_000);
        f.on_timer(604_001_000, timer::INCREASE, &c);
        assert_eq!(f.dcqcn.target_bps, 100_000_000_000); // capped at line rate
        // no notification since: the next check leaves the rate alone
        let r = f.rate_bps();
        f.on_timer(608_001_000, timer::DECREASE, &c);
        assert_eq!(f.rate_bps(), r);
    }
}
