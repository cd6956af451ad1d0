//! TCP NewReno with SACK, in segments. Sans-IO (STYLE_ANCHORS, smoltcp):
//! the sender and receiver never touch the clock, the calendar or a port.
//! They take `now` and an ACK or a segment, and say which segments to send
//! and when their timer should fire; the simulation does the rest.
//!
//! Modeled: slow start and congestion avoidance (RFC 5681), NewReno fast
//! retransmit / fast recovery (RFC 6582) with a SACK scoreboard deciding
//! what to retransmit and how much is in flight (RFC 6675, simplified: every
//! un-SACKed segment below the highest SACKed one counts as lost), RTO
//! estimation with timestamps (RFC 6298, RFC 7323) and exponential backoff.
//! The handshake only where the ns-2 scripts do one: a connection a pool
//! opens on the fly sends a SYN and its data after the SYN-ACK. The window
//! law is NewReno's, DCTCP's, L2DCT's or CUBIC's (`cubic.rs`), by `Cc`.
//! The receiver acknowledges every segment (ns-2's sinks), or coalesces
//! its ACKs as Linux's does (`ack_every`, `delayed_ack.rs`).
//! Not modeled: SACK reneging, receive windows.

use super::cubic::{Cubic, CubicParams};
use super::delayed_ack::DelayedAck;
use super::Segment;
use crate::bitset::Bitset;
use crate::config::{Cc, Prio, TcpConfig};
use crate::packet::{flags, Kind, Packet};
use crate::time::Time;
use crate::workload::FlowSpec;

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

/// Timer kinds of a TCP flow (`event::timer`).
pub mod timer {
    pub const RTO: u8 = 0;
    /// A receiver's held ACK (`ack_every` > 1).
    pub const DELACK: u8 = 1;
}

impl TcpFlow {
    /// A flow on a new connection, or on a reused one in state `conn`;
    /// `handshake`: the connection is opened now, so its first flow waits
    /// for a SYN-ACK.
    pub fn new(spec: &FlowSpec, cfg: &TcpConfig, conn: Option<Conn>, deadline: Option<Time>, handshake: bool) -> TcpFlow {
        let n_segs = u32::try_from(spec.size.div_ceil(cfg.mss_bytes as u64)).expect("flow too large");
        assert!(n_segs < PROBE - 1, "flow too large");
        let mut snd = TcpSender::on_conn(n_segs, cfg, conn.unwrap_or_else(|| Conn::fresh(cfg)));
        snd.handshaking = handshake;
        TcpFlow {
            size: spec.size,
            deadline,
            snd,
            rcv: TcpReceiver::new(n_segs),
            segs: Vec::new(),
            delack: DelayedAck::default(),
            coalesce: cfg.ack_every > 1,
        }
    }

    /// The flow starts: its first window, or on a connection being opened,
    /// the SYN.
    pub fn start(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        self.snd.fill(now, &mut self.segs);
        self.emit(now, cfg, out);
    }

    /// The receiver takes a data packet; returns its ACK (the data
    /// packet's fields, turned around). An ACK has priority 0, the most
    /// urgent (pFabric's ns-2 code stamps priorities on data only). A SYN
    /// gets a SYN-ACK.
    #[inline]
    pub fn on_data(&mut self, now: Time, data: &Packet, cfg: &TcpConfig) -> Option<Packet> {
        if self.coalesce {
            return self.on_data_coalescing(now, data, cfg);
        }
        Some(self.ack_for(data, cfg))
    }

    #[inline(never)]
    fn on_data_coalescing(&mut self, now: Time, data: &Packet, cfg: &TcpConfig) -> Option<Packet> {
        let cum = self.rcv.cum;
        let ack = self.ack_for(data, cfg);
        // at once: anything but the next segment in order with no hole
        // behind it, and the flow's last segment (`delayed_ack.rs`)
        let bare = data.flags & (flags::PROBE | flags::SYN) != 0;
        let in_order = !bare && data.seq == cum && ack.seq == cum + 1 && self.rcv.ooo == 0;
        let immediate = !in_order || self.rcv.complete();
        self.delack.on_ack(now, ack, immediate, cfg.ack_every, cfg.ack_delay_ps)
    }

    /// A coalescing receiver's timers: its held ACK's.
    pub fn coalesces_acks(&self) -> bool {
        self.coalesce
    }

    /// When timer `kind` should fire.
    pub fn deadline(&self, kind: u8) -> Option<Time> {
        match kind {
            timer::RTO => self.snd.rto_deadline,
            _ => self.delack.deadline(),
        }
    }

    /// Timer `kind` fired: a timeout, or a held ACK's time (which the
    /// simulation takes with `take_due_ack`).
    pub fn on_timer(&mut self, now: Time, kind: u8, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        if kind == timer::RTO {
            self.on_timeout(now, cfg, out);
        }
    }

    /// The held ACK, if its time has come.
    pub fn take_due_ack(&mut self, now: Time) -> Option<Packet> {
        self.delack.take_due(now)
    }

    /// The ACK of `data`, which the receiver has taken.
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

    pub fn on_ack(&mut self, now: Time, ack: &Packet, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        let info = AckInfo {
            ackno: ack.seq,
            sack_lo: ack.sack_lo,
            sack_hi: ack.sack_hi,
            ts_echo: ack.ts,
            ece: ack.has(flags::ECE),
            syn: ack.has(flags::SYN),
        };
        self.snd.on_ack(now, info, cfg, &mut self.segs);
        self.emit(now, cfg, out);
    }

    pub fn on_timeout(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        self.snd.on_timeout(now, cfg, &mut self.segs);
        self.emit(now, cfg, out);
    }

    /// Payload bytes the receiver holds.
    pub fn delivered_bytes(&self, cfg: &TcpConfig) -> u64 {
        let mss = cfg.mss_bytes as u64;
        let n = self.rcv.n_segs;
        // every received segment is a full MSS except the last one
        let short = if self.rcv.has(n - 1) { n as u64 * mss - self.size } else { 0 };
        self.rcv.received() as u64 * mss - short
    }

    /// Bytes of the flow not yet known to have arrived.
    fn remaining_bytes(&self, mss: u64) -> u64 {
        let last = self.snd.n_segs - 1;
        let short = if self.snd.arrived(last) { 0 } else { (last as u64 + 1) * mss - self.size };
        self.snd.remaining_segs() as u64 * mss - short
    }

    /// The segments the sender chose, as packets to build, with the
    /// priority the scheme stamps (pFabric §4.2; ns-2 `set_prio`: computed
    /// when a packet is sent, retransmissions included).
    fn emit(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        if self.segs.is_empty() {
            return;
        }
        let (mss, hdr) = (cfg.mss_bytes as u64, cfg.header_bytes as u64);
        let last = self.snd.n_segs - 1;
        let last_payload = self.size - last as u64 * mss;
        let mut ect = if cfg.ecn { flags::ECT } else { 0 };
        let remaining = match cfg.prio {
            Prio::RemainingSize | Prio::Deadline => self.remaining_bytes(mss),
            _ => 0,
        };
        // pFabric-EDF: the deadline while it can be met (what is left, at
        // the line rate, fits before it), in the first class
        let edf = match (cfg.prio, self.deadline) {
            (Prio::Deadline, Some(d)) => {
                let need = crate::time::serialization(remaining, cfg.edf_rate_bps);
                (now + need <= d).then_some(d)
            }
            _ => None,
        };
        if edf.is_some() {
            ect |= flags::CLASS0;
        }
        let size = self.size;
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
            let prio = match cfg.prio {
                Prio::None => 0,
                Prio::RemainingSize => remaining,
                Prio::FlowSize => size,
                Prio::BytesSent => seq as u64 * mss,
                Prio::Deadline => edf.unwrap_or(remaining),
            };
            let prio = class_of(prio, &cfg.prio_thresholds);
            let flags = if probe { ect | flags::PROBE } else { ect };
            Segment { seq, size: (payload + hdr) as u16, flags, prio, kind: Kind::Data }
        }));
    }
}

/// The class of a packet whose priority value is `v` among classes split
/// at `thresholds` (ascending): the first threshold `v` does not exceed.
/// PIAS's tagging (ToN'17 §III-A; its ns-2 `piasPrio`): a packet whose
/// first byte is at offset `v` of its flow goes to queue i for the first
/// `v <= alpha_i`. Without thresholds, the value itself.
#[inline]
pub fn class_of(v: u64, thresholds: &[u64]) -> u64 {
    if thresholds.is_empty() {
        v
    } else {
        thresholds.partition_point(|&t| t < v) as u64
    }
}

/// A segment index with this bit set is a probe (pFabric §4.2: "probe
/// mode", a one-byte packet at the first unacknowledged byte).
pub const PROBE: u32 = 1 << 31;

/// The segment index of a SYN (never a probe's: a probe's index is below
/// `n_segs | PROBE`, and `n_segs < PROBE - 1`).
pub const SYN: u32 = u32::MAX;

/// What a connection keeps from one flow to the next when flows reuse
/// connections (the pFabric and PIAS ns-2 scripts: a pool of persistent
/// connections per host pair). Every flow starts from the initial window
/// (ns-2's `advance_bytes`), but ssthresh, the RTT estimate, DCTCP's alpha,
/// CUBIC's `W_max` and whether the last window cut was an ECN reaction
/// carry over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conn {
    pub ssthresh: f64,
    pub srtt: f64,
    pub rttvar: f64,
    pub rto: Time,
    pub alpha: f64,
    pub last_cut_ecn: bool,
    pub cubic_w_max: f64,
}

impl Conn {
    /// A new connection.
    pub fn fresh(cfg: &TcpConfig) -> Conn {
        Conn { ssthresh: f64::INFINITY, srtt: 0.0, rttvar: 0.0, rto: cfg.init_rto_ps, alpha: 0.0, last_cut_ecn: false, cubic_w_max: 0.0 }
    }
}

/// Sender state of one flow.
#[derive(Debug)]
pub struct TcpSender {
    pub n_segs: u32,
    /// Oldest unacknowledged segment.
    pub snd_una: u32,
    /// Next segment to send in sequence.
    pub snd_nxt: u32,
    /// One past the highest segment ever sent.
    pub high_tx: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    /// Congestion avoidance: ACKs counted towards the next +1 (ns-2's
    /// `count_`: one packet per window of ACKs).
    ca_acks: u32,
    dupacks: u32,
    in_recovery: bool,
    /// The recovery was entered by fast retransmit (ns-2's `pipectrl_`):
    /// only then does a span-limited window (`window_span`) count the pipe.
    pipe_recovery: bool,
    /// The window bounds the span above the cumulative ACK (ns-2 FullTcp),
    /// not the segments in flight (TcpConfig::window_span).
    window_span: bool,
    /// NewReno: recovery ends when this segment is acknowledged.
    recover: u32,
    /// Next hole to retransmit during recovery.
    rexmit_next: u32,
    sacked: Bitset,
    /// One past the highest SACKed segment.
    high_sacked: u32,
    srtt: f64,
    rttvar: f64,
    rto: Time,
    /// When the retransmission timer expires (None: not armed).
    pub rto_deadline: Option<Time>,
    /// ECN: react to an echo at most once per window (RFC 3168; DCTCP).
    ecn_recover: u32,
    /// The previous ACK carried an ECN echo (ns-2 `ecn_burst_`: an echoed
    /// ACK opens the window only if the one before it was echoed too).
    prev_ece: bool,
    /// The last window cut was an ECN reaction (a timeout after it leaves
    /// ssthresh alone, as in ns-2's `timeout_action`).
    last_cut_ecn: bool,
    /// DCTCP: the fraction of marked bytes, its window's counts, and the
    /// segment whose acknowledgement closes the window.
    alpha: f64,
    win_acked: u32,
    win_marked: u32,
    alpha_seq: u32,
    /// CUBIC's state (used only with `Cc::Cubic`).
    cubic: Cubic,
    /// ns-2's RTT timing (`rtt_per_window`): the segment being timed and
    /// when it was sent.
    timed: Option<(u32, Time)>,
    /// Timeouts since the last packet from the receiver (pFabric probe mode).
    timeouts_in_row: u32,
    probing: bool,
    /// The connection is being opened: a SYN is out, no data until the
    /// SYN-ACK (ns-2 FullTcp's SYN_SENT).
    pub handshaking: bool,
    pub retx: u32,
    pub timeouts: u32,
}

/// What an ACK carried.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub ackno: u32,
    pub sack_lo: u32,
    pub sack_hi: u32,
    pub ts_echo: Time,
    /// ECN echo: the acknowledged segment arrived with CE set.
    pub ece: bool,
    /// A SYN-ACK: the answer to the connection's SYN.
    pub syn: bool,
}

impl TcpSender {
    pub fn new(n_segs: u32, cfg: &TcpConfig) -> TcpSender {
        TcpSender::on_conn(n_segs, cfg, Conn::fresh(cfg))
    }

    /// A sender for a flow on a connection in state `conn`.
    pub fn on_conn(n_segs: u32, cfg: &TcpConfig, conn: Conn) -> TcpSender {
        TcpSender {
            n_segs,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            cwnd: cfg.init_cwnd_pkts,
            ssthresh: conn.ssthresh,
            ca_acks: 0,
            dupacks: 0,
            in_recovery: false,
            pipe_recovery: false,
            window_span: cfg.window_span,
            recover: 0,
            rexmit_next: 0,
            sacked: Bitset::new(n_segs),
            high_sacked: 0,
            srtt: conn.srtt,
            rttvar: conn.rttvar,
            rto: if cfg.fixed_rto { cfg.min_rto_ps } else { conn.rto },
            rto_deadline: None,
            ecn_recover: 0,
            prev_ece: false,
            last_cut_ecn: conn.last_cut_ecn,
            alpha: conn.alpha,
            win_acked: 0,
            win_marked: 0,
            alpha_seq: 0,
            cubic: Cubic::with_w_max(conn.cubic_w_max),
            timed: None,
            timeouts_in_row: 0,
            probing: false,
            handshaking: false,
            retx: 0,
            timeouts: 0,
        }
    }

    /// What the connection keeps for its next flow.
    pub fn conn(&self) -> Conn {
        Conn {
            ssthresh: self.ssthresh,
            srtt: self.srtt,
            rttvar: self.rttvar,
            rto: self.rto,
            alpha: self.alpha,
            last_cut_ecn: self.last_cut_ecn,
            cubic_w_max: self.cubic.w_max,
        }
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.n_segs
    }

    /// DCTCP's estimate of the fraction of marked packets.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Segments not yet known to have arrived: not cumulatively
    /// acknowledged and not SACKed (pFabric's priority, §4.2).
    pub fn remaining_segs(&self) -> u32 {
        let sacked = if self.high_sacked > self.snd_una { self.sacked.count(self.snd_una, self.high_sacked) } else { 0 };
        self.n_segs - self.snd_una.min(self.n_segs) - sacked
    }

    /// Whether segment `seg` is known to have arrived (acknowledged or SACKed).
    pub fn arrived(&self, seg: u32) -> bool {
        seg < self.snd_una || self.sacked.get(seg)
    }

    /// Segments in flight: sent, not cumulatively or selectively acked, and
    /// not deemed lost (RFC 6675 "pipe").
    fn pipe(&self) -> u32 {
        if self.high_sacked <= self.snd_una {
            // nothing SACKed in the window: the common, loss-free case
            return self.snd_nxt - self.snd_una;
        }
        let outstanding = self.snd_nxt - self.snd_una - self.sacked.count(self.snd_una, self.snd_nxt);
        if !self.in_recovery {
            return outstanding;
        }
        // Holes at or above `rexmit_next` and below the highest SACK are
        // lost and not yet retransmitted; those below it were retransmitted
        // and are in flight again.
        let from = self.rexmit_next.max(self.snd_una);
        let to = self.high_sacked.min(self.snd_nxt);
        let lost = if to > from { (to - from) - self.sacked.count(from, to) } else { 0 };
        outstanding - lost
    }

    /// Send what the window allows; pushes segment indices onto `out` (a
    /// probe as `snd_una | PROBE`).
    pub fn fill(&mut self, now: Time, out: &mut Vec<u32>) {
        if self.handshaking {
            // ns-2 FullTcp's `connect`: the SYN goes first, alone (no data
            // on the SYN); its timer is the retransmission timer
            if self.rto_deadline.is_none() {
                self.rto_deadline = Some(now + self.rto);
                out.push(SYN);
            }
            return;
        }
        if self.probing {
            // pFabric §4.2: in probe mode only a minimal probe goes out,
            // one per timeout, until the receiver answers.
            return;
        }
        // `as` truncates, which is the floor for a window (positive); it
        // avoids a call to libm's floor on every ACK.
        debug_assert!(self.cwnd >= 0.0);
        let window = (self.cwnd as u32).max(1);
        // ns-2's FullTcp outside fast recovery (`send_allowed`): a segment
        // may go if it lies within a window of the cumulative ACK
        let span = self.window_span && !(self.in_recovery && self.pipe_recovery);
        let limit = if span { self.snd_una.saturating_add(window) } else { u32::MAX };
        let mut pipe = self.pipe();
        if !self.in_recovery && self.snd_nxt >= self.high_tx && self.high_sacked <= self.snd_nxt {
            // New data only, none of it SACKed (the common case): what the
            // loop below would send, without asking the scoreboard per segment.
            let room = if span { limit.saturating_sub(self.snd_nxt) } else { window.saturating_sub(pipe) };
            let n = room.min(self.n_segs - self.snd_nxt);
            if n > 0 && self.timed.is_none() {
                self.timed = Some((self.snd_nxt, now));
            }
            out.extend(self.snd_nxt..self.snd_nxt + n);
            self.snd_nxt += n;
            self.high_tx = self.snd_nxt;
            pipe = window;
        }
        while span || pipe < window {
            let seg = match self.next_segment(limit) {
                Some(s) => s,
                None => break,
            };
            if seg < self.high_tx {
                self.retx += 1;
                if seg == self.snd_una {
                    // Linux (tcp_retransmit_skb): retransmitting the head
                    // re-arms the timer, so a retransmission queued behind
                    // a full buffer is not declared lost before it can be
                    // acknowledged.
                    self.rto_deadline = Some(now + self.rto);
                }
            }
            if seg >= self.high_tx && self.timed.is_none() {
                self.timed = Some((seg, now));
            }
            self.high_tx = self.high_tx.max(seg + 1);
            out.push(seg);
            pipe += 1;
        }
        if !out.is_empty() && self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto);
        }
    }

    /// The next segment to send, below `limit`.
    fn next_segment(&mut self, limit: u32) -> Option<u32> {
        if self.in_recovery {
            let from = self.rexmit_next.max(self.snd_una);
            let to = self.high_sacked.min(self.snd_nxt).min(limit);
            if let Some(hole) = self.sacked.next_clear(from, to) {
                self.rexmit_next = hole + 1;
                return Some(hole);
            }
            self.rexmit_next = self.rexmit_next.max(to);
        }
        // New data (or, after a timeout, data sent again), skipping what
        // the receiver has already SACKed.
        while self.snd_nxt < self.n_segs && self.sacked.get(self.snd_nxt) {
            self.snd_nxt += 1;
        }
        if self.snd_nxt >= self.n_segs.min(limit) {
            return None;
        }
        self.snd_nxt += 1;
        Some(self.snd_nxt - 1)
    }

    /// Process an ACK, then send what the window allows.
    pub fn on_ack(&mut self, now: Time, ack: AckInfo, cfg: &TcpConfig, out: &mut Vec<u32>) {
        if ack.syn {
            // The SYN-ACK (a second one, after a resent SYN, is ignored):
            // established, the data starts at the initial window (ns-2
            // `recv` in SYN_SENT: `cwnd_ = initial_window()`, no RTT sample)
            if self.handshaking {
                self.handshaking = false;
                self.timeouts_in_row = 0;
                self.rto_deadline = None;
                self.fill(now, out);
            }
            return;
        }
        // Anything from the receiver ends a run of timeouts and probe mode
        // (ns-2 MinTCP clears both on every packet it receives).
        self.timeouts_in_row = 0;
        let was_probing = std::mem::take(&mut self.probing);
        if !cfg.rtt_per_window {
            self.rtt_sample(now.saturating_sub(ack.ts_echo), cfg);
        } else if let Some((seq, sent)) = self.timed.filter(|&(seq, _)| ack.ackno > seq) {
            // one timed segment per window, never a retransmitted one (Karn)
            let _ = seq;
            self.timed = None;
            self.rtt_sample(now - sent, cfg);
        }
        if ack.sack_hi > ack.sack_lo {
            self.sacked.set_range(ack.sack_lo.max(self.snd_una), ack.sack_hi.min(self.n_segs));
            if ack.sack_hi > self.high_sacked {
                self.high_sacked = ack.sack_hi.min(self.n_segs);
            }
        }
        let advanced = ack.ackno > self.snd_una;
        let acked = ack.ackno.saturating_sub(self.snd_una);
        match cfg.cc {
            Cc::Dctcp { g } | Cc::L2dct { g, .. } => self.dctcp_observe(ack, g),
            Cc::Reno | Cc::Cubic { .. } => {}
        }
        // ns-2: an ACK carrying an echo opens the window only if the one
        // before it did too.
        let may_grow = !ack.ece || self.prev_ece;
        self.prev_ece = ack.ece;
        if advanced {
            self.snd_una = ack.ackno;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.dupacks = 0;
            if self.in_recovery {
                if self.snd_una >= self.recover {
                    // RFC 6582: full ACK ends recovery; deflate the window.
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh;
                }
            } else if may_grow {
                self.open_window(now, acked, cfg);
            }
            // RFC 6298 (5.3): restart the timer on an ACK of new data.
            self.rto_deadline = if self.done() { None } else { Some(now + self.rto) };
        } else if was_probing {
            // The probe's answer: in ns-2 it acknowledges the probe's byte,
            // a new ACK that opens the window by one.
            self.open_window(now, 1, cfg);
        } else if self.snd_nxt > self.snd_una {
            self.dupacks += 1;
            // RFC 6582 (3.2 step 1): no new recovery until `recover` is acked.
            if self.dupacks == cfg.dupack_threshold
                && cfg.fast_retransmit
                && !self.in_recovery
                && self.snd_una >= self.recover
            {
                self.enter_recovery(cfg);
            }
        }
        if ack.ece && self.snd_una >= self.ecn_recover {
            self.ecn_cut(cfg);
        }
        if !self.done() {
            self.fill(now, out);
        }
    }

    /// Slow start: one packet per ACK that acknowledges new data (RFC 5681
    /// without byte counting, as ns-2); congestion avoidance: one packet per
    /// window of such ACKs (ns-2 `windowOption_ 0`); CUBIC: one packet per
    /// the ACKs its curve asks for. At most `max_cwnd`.
    fn open_window(&mut self, now: Time, acked: u32, cfg: &TcpConfig) {
        if self.cwnd < self.ssthresh {
            if cfg.ack_every > 1 {
                // Linux 3.18 `tcp_slow_start`: by the segments acked, up
                // to one past ssthresh
                self.cwnd = (self.cwnd + acked.max(1) as f64).min(self.ssthresh + 1.0);
            } else {
                self.cwnd += 1.0;
            }
        } else if let Some(p) = CubicParams::of(&cfg.cc) {
            // Linux 3.18 `tcp_cong_avoid_ai` with the integer `cnt`: the
            // count is tested before it is raised, so +1 every cnt + 1 ACKs
            let cnt = self.cubic.acks_per_increase(now, self.cwnd, &p).floor();
            if self.ca_acks as f64 >= cnt {
                self.ca_acks = 0;
                self.cwnd += 1.0;
            } else {
                self.ca_acks += 1;
            }
        } else if let Cc::L2dct { w_max, ns2_double_count, .. } = cfg.cc {
            // w / w_max packets per window of ACKs (L2DCT §3); the PIAS
            // ns-2 code (tcp.cc `opencwnd`) counts the ACK again when that
            // test fails and then tests the count alone
            let gain = self.l2dct_weight(cfg) / w_max;
            self.ca_acks += 1;
            if self.ca_acks as f64 * gain >= self.cwnd {
                self.ca_acks = 0;
                self.cwnd += 1.0;
            } else if ns2_double_count {
                self.ca_acks += 1;
                if self.ca_acks as f64 >= self.cwnd {
                    self.ca_acks = 0;
                    self.cwnd += 1.0;
                }
            }
        } else {
            self.ca_acks += 1;
            if self.ca_acks as f64 >= self.cwnd {
                self.ca_acks = 0;
                self.cwnd += 1.0;
            }
        }
        if let Some(max) = cfg.max_cwnd_pkts {
            self.cwnd = self.cwnd.min(max);
        }
    }

    /// L2DCT's weight from the bytes this flow has sent, retransmissions
    /// included (ns-2 `ndatabytes_`, counted here in whole segments).
    fn l2dct_weight(&self, cfg: &TcpConfig) -> f64 {
        let Cc::L2dct { w_min, w_max, size_min, size_max, .. } = cfg.cc else { return 1.0 };
        let sent = (self.high_tx as u64 + self.retx as u64) * cfg.mss_bytes as u64;
        if sent <= size_min {
            w_max
        } else if sent >= size_max {
            w_min
        } else {
            w_max - (sent - size_min) as f64 * (w_max - w_min) / (size_max - size_min) as f64
        }
    }

    /// DCTCP (SIGCOMM'10 §3.1; ns-2 `ecnhat_`): count acknowledged and
    /// marked segments (a duplicate ACK counts one); once the ACKs pass the
    /// end of the window being measured, fold its fraction into alpha with
    /// gain g and start measuring the data sent since.
    fn dctcp_observe(&mut self, ack: AckInfo, g: f64) {
        let n = if ack.ackno > self.snd_una { ack.ackno - self.snd_una } else { 1 };
        self.win_acked += n;
        if ack.ece {
            self.win_marked += n;
        }
        if ack.ackno > self.alpha_seq {
            let frac = self.win_marked as f64 / self.win_acked.max(1) as f64;
            self.alpha = (1.0 - g) * self.alpha + g * frac;
            self.win_acked = 0;
            self.win_marked = 0;
            self.alpha_seq = self.snd_nxt;
        }
    }

    /// React to an ECN echo, once per window: NewReno with ECN halves the
    /// window (RFC 3168 §6.1.2); DCTCP cuts it by alpha/2 (SIGCOMM'10 §3.1).
    /// Either ends slow start. As in ns-2, the cut also starts SACK-based
    /// retransmission of the window's holes.
    fn ecn_cut(&mut self, cfg: &TcpConfig) {
        let cwnd = match cfg.cc {
            Cc::Reno => self.cwnd / 2.0,
            Cc::Dctcp { .. } => self.cwnd * (1.0 - self.alpha / 2.0),
            // L2DCT: small flows (w large) back off less, large ones more
            Cc::L2dct { .. } => self.cwnd * (1.0 - self.alpha.powf(self.l2dct_weight(cfg)) / 2.0),
            // Linux's CUBIC takes an echo as a loss: beta of the window
            Cc::Cubic { .. } => {
                // (Linux `tcp_init_cwnd_reduction` clears the count)
                self.ca_acks = 0;
                self.cubic.reduce(self.cwnd, &CubicParams::of(&cfg.cc).expect("cubic"))
            }
        };
        self.cwnd = cwnd.max(1.0);
        self.ssthresh = cwnd.floor().max(2.0);
        self.ecn_recover = self.snd_nxt;
        self.last_cut_ecn = true;
        if self.high_sacked > self.snd_una && !self.in_recovery {
            self.in_recovery = true;
            self.pipe_recovery = false;
            self.recover = self.snd_nxt;
            self.rexmit_next = self.snd_una;
        }
    }

    fn enter_recovery(&mut self, cfg: &TcpConfig) {
        let flight = (self.snd_nxt - self.snd_una) as f64;
        self.ssthresh = match CubicParams::of(&cfg.cc) {
            // Linux: beta of the window (`bictcp_recalc_ssthresh`)
            Some(p) => {
                self.ca_acks = 0;
                self.cubic.reduce(self.cwnd, &p).floor()
            }
            None => (flight / 2.0).max(2.0),
        };
        self.cwnd = self.ssthresh;
        self.in_recovery = true;
        self.pipe_recovery = true;
        self.recover = self.snd_nxt;
        self.rexmit_next = self.snd_una;
        self.last_cut_ecn = false;
        // RFC 3168 §6.1.2: one reduction per window, for a loss or a mark
        self.ecn_recover = self.snd_nxt;
    }

    /// The retransmission timer expired: go back to the oldest unacked
    /// segment with a window of one (RFC 5681 §3.1, RFC 6298 §5.5-5.7),
    /// ssthresh half the window (ns-2: of cwnd, at least 2; unchanged if the
    /// last cut was an ECN reaction). pFabric's fixed timeout does not back
    /// off, and after `probe_after` timeouts in a row only probes go out.
    pub fn on_timeout(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<u32>) {
        self.timeouts += 1;
        self.timeouts_in_row += 1;
        if self.handshaking {
            // the SYN or its answer was lost: send the SYN again
            self.retx += 1;
            if !cfg.fixed_rto {
                self.rto = (self.rto * 2).min(cfg.max_rto_ps);
            }
            self.rto_deadline = None;
            return self.fill(now, out);
        }
        let cubic = CubicParams::of(&cfg.cc);
        if let Some(p) = cubic {
            // Linux `tcp_enter_loss`: a new ssthresh from CUBIC only on the
            // first timeout since progress, outside a recovery or an ECN
            // cut's window (else the one set then stands); then CUBIC
            // starts over (`bictcp_state`, Loss)
            let reducing = self.in_recovery || self.snd_una < self.ecn_recover;
            if self.timeouts_in_row == 1 && !reducing {
                self.ssthresh = self.cubic.reduce(self.cwnd, &p).floor();
            }
            self.cubic.reset();
        } else if !self.last_cut_ecn {
            self.ssthresh = (self.cwnd / 2.0).floor().max(2.0);
        }
        self.cwnd = 1.0;
        self.ca_acks = 0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.high_tx;
        self.snd_nxt = self.snd_una;
        self.alpha_seq = self.snd_una;
        self.timed = None; // Karn: nothing sent before a timeout is timed
        // ns-2: after a timeout the next echo may cut the window again;
        // Linux ignores echoes until what was out at the timeout is acked
        self.ecn_recover = if cubic.is_some() { self.high_tx } else { 0 };
        if !cfg.fixed_rto {
            self.rto = (self.rto * 2).min(cfg.max_rto_ps);
        }
        self.rto_deadline = None;
        if cfg.probe_after.is_some_and(|n| self.timeouts_in_row >= n) {
            self.probing = true;
            self.retx += 1;
            self.rto_deadline = Some(now + self.rto);
            out.push(self.snd_una | PROBE);
            return;
        }
        self.fill(now, out);
    }

    fn rtt_sample(&mut self, r: Time, cfg: &TcpConfig) {
        if let Cc::Cubic { .. } = cfg.cc {
            self.cubic.rtt_sample(r);
        }
        if cfg.fixed_rto {
            return; // pFabric: the timeout is fixed, no estimate (§4.2)
        }
        let r = r as f64;
        if self.srtt == 0.0 {
            self.srtt = r;
            self.rttvar = r / 2.0;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
        let rto = (self.srtt + 4.0 * self.rttvar) as Time;
        self.rto = rto.clamp(cfg.min_rto_ps, cfg.max_rto_ps);
    }
}

/// Receiver state of one flow: which segments have arrived.
#[derive(Debug)]
pub struct TcpReceiver {
    pub n_segs: u32,
    /// Next segment expected in order.
    pub cum: u32,
    /// Segments held above `cum` (received out of order).
    ooo: u32,
    got: Bitset,
}

impl TcpReceiver {
    pub fn new(n_segs: u32) -> TcpReceiver {
        TcpReceiver { n_segs, cum: 0, ooo: 0, got: Bitset::new(n_segs) }
    }

    pub fn complete(&self) -> bool {
        self.cum >= self.n_segs
    }

    /// Distinct segments received so far (in order and above `cum`).
    pub fn received(&self) -> u32 {
        self.cum + self.ooo
    }

    /// Whether segment `seg` has arrived.
    pub fn has(&self, seg: u32) -> bool {
        seg < self.cum || self.got.get(seg)
    }

    /// Take segment `seg`; return the ACK to send: (cumulative ack, SACK
    /// block around `seg` when it arrived out of order).
    pub fn on_data(&mut self, seg: u32) -> (u32, u32, u32) {
        if seg == self.cum && self.ooo == 0 {
            // in order with nothing buffered: no reassembly state to touch
            self.cum += 1;
            return (self.cum, 0, 0);
        }
        if seg >= self.cum && !self.got.get(seg) {
            self.got.set(seg);
            if seg == self.cum {
                // the bits of [old cum, new cum) were counted in `ooo`
                // except `seg` itself
                let next = self.got.next_clear(seg, self.n_segs).unwrap_or(self.n_segs);
                self.ooo -= next - seg - 1;
                self.cum = next;
            } else {
                self.ooo += 1;
            }
        }
        if seg > self.cum && self.got.get(seg) {
            let (lo, hi) = self.got.run_around(seg, self.cum, self.n_segs);
            (self.cum, lo, hi)
        } else {
            (self.cum, 0, 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> TcpConfig {
        TcpConfig {
            mss_bytes: 1460,
            header_bytes: 40,
            ack_bytes: 40,
            init_cwnd_pkts: 4.0,
            max_cwnd_pkts: None,
            min_rto_ps: 200,
            init_rto_ps: 1000,
            max_rto_ps: 1_000_000,
            fast_retransmit: true,
            dupack_threshold: 3,
            ecn: false,
            cc: Cc::Reno,
            fixed_rto: false,
            probe_after: None,
            prio: Prio::None,
            connections_per_pair: None,
            edf_rate_bps: 10_000_000_000,
            rtt_per_window: false,
            window_span: false,
            prio_thresholds: vec![],
            handshake: false,
            ack_every: 1,
            ack_delay_ps: 0,
        }
    }

    #[test]
    fn a_connection_opened_now_sends_its_data_at_the_syn_ack() {
        let c = cfg();
        let mut s = TcpSender::new(100, &c);
        s.handshaking = true;
        let mut out = vec![];
        s.fill(0, &mut out);
        assert_eq!(out, vec![SYN]);
        assert_eq!(s.rto_deadline, Some(1000));
        // nothing more until the SYN-ACK, whatever asks
        out.clear();
        s.fill(10, &mut out);
        assert!(out.is_empty());
        // the SYN is lost: sent again at the timeout, with backoff
        s.on_timeout(1000, &c, &mut out);
        assert_eq!((out.clone(), s.rto_deadline, s.timeouts, s.retx), (vec![SYN], Some(3000), 1, 1));
        out.clear();
        // the SYN-ACK: the initial window, the timer re-armed for data
        s.on_ack(1500, AckInfo { syn: true, ..ack(0, 0, 0) }, &c, &mut out);
        assert_eq!(out, vec![0, 1, 2, 3]);
        assert!(!s.handshaking);
        assert_eq!(s.rto_deadline, Some(3500));
        // a second SYN-ACK (for the resent SYN) changes nothing
        out.clear();
        s.on_ack(1600, AckInfo { syn: true, ..ack(0, 0, 0) }, &c, &mut out);
        assert!(out.is_empty());
        assert_eq!((s.cwnd, s.dupacks), (4.0, 0));
    }

    #[test]
    fn a_syn_is_a_bare_urgent_packet_and_gets_a_syn_ack() {
        let c = TcpConfig { prio: Prio::RemainingSize, ..cfg() };
        let spec = FlowSpec { id: 0, src: 0, dst: 1, size: 5000, start: 0, deadline_draw: None };
        let mut f = TcpFlow::new(&spec, &c, None, None, true);
        let mut out = vec![];
        f.start(0, &c, &mut out);
        assert_eq!(out, vec![Segment { seq: 0, size: 40, flags: flags::SYN, prio: 0, kind: Kind::Data }]);
        let syn = Packet { kind: Kind::Data, flags: flags::SYN, size: 40, ..Packet::test_data(40, flags::SYN) };
        let reply = f.on_data(0, &syn, &c).expect("a SYN-ACK");
        assert_eq!((reply.kind, reply.flags, reply.seq, reply.sack_hi), (Kind::Ack, flags::SYN, 0, 0));
        assert_eq!(f.rcv.received(), 0);
        out.clear();
        f.on_ack(5, &reply, &c, &mut out);
        assert_eq!(out.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(out[0].prio, 5000);
    }

    #[test]
    fn a_coalescing_receiver_acks_every_kth_segment_out_of_order_and_the_last_at_once() {
        let c = TcpConfig { ack_every: 3, ack_delay_ps: 1000, ..cfg() };
        let spec = FlowSpec { id: 0, src: 0, dst: 1, size: 7 * 1460, start: 0, deadline_draw: None };
        let mut f = TcpFlow::new(&spec, &c, None, None, false);
        assert!(f.coalesces_acks());
        let seg = |seq: u32| Packet { seq, ts: seq as u64, ..Packet::test_data(1500, 0) };
        let mut acked = vec![];
        for seq in [0, 1, 2, 4, 3, 5, 6] {
            if let Some(a) = f.on_data(10, &seg(seq), &c) {
                acked.push((seq, a.seq, a.sack_lo, a.sack_hi, a.ts));
            }
        }
        assert_eq!(
            acked,
            vec![
                (2, 3, 0, 0, 0), // the third in order: covers 0-2, echoes 0's time
                (4, 3, 4, 5, 4), // out of order: at once, with SACK
                (3, 5, 0, 0, 3), // fills the hole: at once
                (6, 7, 0, 0, 5), // the last: at once, covering the held 5
            ]
        );
        assert_eq!(f.deadline(timer::DELACK), None);
        // every segment acknowledged by default
        let mut g = TcpFlow::new(&spec, &cfg(), None, None, false);
        assert!(!g.coalesces_acks());
        assert!((0..7).all(|s| g.on_data(10, &seg(s), &cfg()).is_some()));
    }

    #[test]
    fn with_coalesced_acks_slow_start_grows_by_the_segments_acked() {
        // Linux 3.18 tcp_slow_start: cwnd + acked, at most ssthresh + 1
        let c = TcpConfig { ack_every: 2, ..cfg() };
        let mut s = TcpSender::new(100, &c);
        let mut out = vec![];
        s.fill(0, &mut out);
        s.on_ack(10, ack(3, 0, 0), &c, &mut out);
        assert_eq!(s.cwnd, 7.0);
        s.ssthresh = 8.0;
        s.on_ack(20, ack(7, 0, 0), &c, &mut out);
        assert_eq!(s.cwnd, 9.0);
        // one per ACK without (ns-2)
        let mut r = TcpSender::new(100, &cfg());
        r.fill(0, &mut out);
        r.on_ack(10, ack(3, 0, 0), &cfg(), &mut out);
        assert_eq!(r.cwnd, 5.0);
    }

    #[test]
    fn classes_split_at_the_thresholds_inclusive() {
        // PIAS: offsets up to alpha_1 in queue 0, up to alpha_2 in queue 1...
        let t = [10, 20, 20, 40];
        let classes: Vec<u64> = [0, 10, 11, 20, 21, 40, 41, u64::MAX].iter().map(|&v| class_of(v, &t)).collect();
        assert_eq!(classes, vec![0, 0, 1, 1, 3, 3, 4, 4]);
        assert_eq!(class_of(12345, &[]), 12345);
    }

    fn ack(ackno: u32, lo: u32, hi: u32) -> AckInfo {
        AckInfo { ackno, sack_lo: lo, sack_hi: hi, ts_echo: 0, ece: false, syn: false }
    }

    /// A sender of 100 segments that has sent its initial window at time 0,
    /// and the segments it sent.
    fn started(c: &TcpConfig) -> (TcpSender, Vec<u32>) {
        let mut s = TcpSender::new(100, c);
        let mut out = vec![];
        s.fill(0, &mut out);
        (s, out)
    }

    #[test]
    fn slow_start_doubles_per_round() {
        let c = cfg();
        let (mut s, mut out) = started(&c);
        assert_eq!(out, vec![0, 1, 2, 3]);
        out.clear();
        for a in 1..=4 {
            s.on_ack(10, ack(a, 0, 0), &c, &mut out);
        }
        // each ACK frees one slot and grows cwnd by one: 8 segments sent
        assert_eq!(out, (4..12).collect::<Vec<_>>());
        assert_eq!(s.cwnd, 8.0);
    }

    #[test]
    fn three_dupacks_retransmit_the_hole_once() {
        let c = cfg();
        let (mut s, mut out) = started(&c);
        out.clear();
        // segment 0 lost; 1, 2, 3 arrive and are SACKed
        s.on_ack(10, ack(0, 1, 2), &c, &mut out);
        s.on_ack(10, ack(0, 1, 3), &c, &mut out);
        // SACKed segments leave the pipe, so new data keeps flowing
        assert_eq!(out, vec![4, 5]);
        out.clear();
        s.on_ack(10, ack(0, 1, 4), &c, &mut out);
        // recovery: ssthresh = flight/2 = 3; pipe = 6 - 3 sacked - 1 lost
        assert_eq!(out, vec![0], "hole retransmitted first");
        assert_eq!(s.retx, 1);
        assert_eq!(s.ssthresh, 3.0);
        // the full ACK ends recovery
        out.clear();
        s.on_ack(20, ack(4, 4, 6), &c, &mut out); // partial ACK: still recovering
        assert!(s.in_recovery);
        s.on_ack(20, ack(6, 0, 0), &c, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(s.retx, 1);
    }

    #[test]
    fn a_span_window_stops_a_window_past_the_hole_and_a_pipe_keeps_sending() {
        let no_fr = TcpConfig { fast_retransmit: false, ..cfg() };
        let span = TcpConfig { window_span: true, ..no_fr.clone() };
        let sent_after_sacks = |c: &TcpConfig| {
            let (mut s, mut out) = started(c); // 0..4 in flight, cwnd 4
            out.clear();
            // segment 0 lost; 1, 2, 3 arrive and are SACKed
            for hi in 2..=4 {
                s.on_ack(10, ack(0, 1, hi), c, &mut out);
            }
            out
        };
        // RFC 6675: each SACK frees a slot of the pipe for new data
        assert_eq!(sent_after_sacks(&no_fr), vec![4, 5, 6]);
        // ns-2 FullTcp: segments 1-3 still count against the window of 4
        assert_eq!(sent_after_sacks(&span), Vec::<u32>::new());
        // after the timeout the hole goes out alone (cwnd 1), and once it
        // is acknowledged the window counts from the new cumulative ACK
        let (mut s, mut out) = started(&span);
        for hi in 2..=4 {
            s.on_ack(10, ack(0, 1, hi), &span, &mut out);
        }
        out.clear();
        s.on_timeout(300, &span, &mut out);
        assert_eq!(out, vec![0]);
        out.clear();
        s.on_ack(310, ack(4, 0, 0), &span, &mut out);
        assert_eq!(out, vec![4, 5], "cwnd 2 from the cumulative ACK at 4");
    }

    #[test]
    fn a_span_window_uses_the_pipe_in_fast_recovery() {
        // ns-2 enters pipe control (`pipectrl_`) on fast retransmit only
        let span = TcpConfig { window_span: true, ..cfg() };
        let (mut s, mut out) = started(&span);
        out.clear();
        s.on_ack(10, ack(0, 1, 2), &span, &mut out);
        s.on_ack(10, ack(0, 1, 3), &span, &mut out);
        assert!(out.is_empty(), "before recovery the span bounds sending");
        s.on_ack(10, ack(0, 1, 4), &span, &mut out);
        // recovery: ssthresh = flight / 2 = 2 = cwnd; pipe = 4 - 3 SACKed - 1 lost = 0
        assert_eq!(out, vec![0, 4]);
    }

    #[test]
    fn ecn_echo_halves_once_per_window() {
        let c = cfg();
        let (mut s, mut out) = started(&c);
        s.cwnd = 10.0;
        s.ssthresh = 10.0;
        let ece = |a| AckInfo { ece: true, ..ack(a, 0, 0) };
        // the first echoed ACK does not open the window (ns-2 `ecn_burst_`)
        s.on_ack(10, ece(1), &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh), (5.0, 5.0));
        s.on_ack(10, ece(2), &c, &mut out); // same window: no second cut
        assert_eq!(s.cwnd, 5.0);
        // once the window of the cut is acknowledged, the next echo cuts again
        let sent = s.snd_nxt;
        for a in 3..=sent {
            s.on_ack(10, ack(a, 0, 0), &c, &mut out);
        }
        let before = s.cwnd;
        s.on_ack(10, ece(sent + 1), &c, &mut out);
        assert_eq!(s.cwnd, before / 2.0);
    }

    fn dctcp() -> TcpConfig {
        TcpConfig { ecn: true, cc: Cc::Dctcp { g: 1.0 / 16.0 }, ..cfg() }
    }

    fn l2dct(double: bool) -> TcpConfig {
        let cc = Cc::L2dct { g: 1.0 / 16.0, w_min: 0.125, w_max: 2.5, size_min: 204_800, size_max: 1_048_576,
                             ns2_double_count: double };
        TcpConfig { ecn: true, cc, ..cfg() }
    }

    /// Congestion-avoidance rounds: ACK a window at a time; the growth.
    fn ca_growth(c: &TcpConfig, sent_segs: u32, rounds: u32) -> f64 {
        let (mut s, mut out) = started(c);
        s.high_tx = sent_segs; // what the flow has sent so far sets w
        s.snd_nxt = sent_segs;
        s.ssthresh = 1.0;
        s.cwnd = 20.0;
        let start = s.cwnd;
        let mut ackno = s.snd_una;
        for _ in 0..rounds {
            for _ in 0..s.cwnd as u32 {
                ackno += 1;
                s.snd_una = ackno - 1;
                s.open_window(0, 1, c);
            }
        }
        out.clear();
        s.cwnd - start
    }

    #[test]
    fn l2dct_weights_the_increase_and_the_cut_by_bytes_sent() {
        // w = 2.5 (<= 200 KB sent): one packet per window, as DCTCP; w =
        // 0.125 (>= 1 MB): one per 20 windows
        let c = l2dct(false);
        assert_eq!(ca_growth(&c, 10, 20), 20.0);
        assert_eq!(ca_growth(&c, 1000, 20), 1.0);
        // the PIAS ns-2 code: about two per window whatever w
        let ns2 = l2dct(true);
        assert!((ca_growth(&ns2, 10, 20) - 40.0).abs() <= 2.0);
        assert!((ca_growth(&ns2, 1000, 20) - 40.0).abs() <= 2.0);
        // the cut: cwnd (1 - alpha^w / 2)
        let (mut s, _) = started(&c);
        s.cwnd = 100.0;
        s.alpha = 0.25;
        s.high_tx = 1000; // w = 0.125: alpha^w = 0.841
        s.ecn_cut(&c);
        assert!((s.cwnd - 100.0 * (1.0 - 0.25f64.powf(0.125) / 2.0)).abs() < 1e-9);
        let (mut small, _) = started(&c);
        small.cwnd = 100.0;
        small.alpha = 0.25; // w = 2.5: alpha^w = 0.031
        small.ecn_cut(&c);
        assert!(small.cwnd > s.cwnd);
    }

    #[test]
    fn dctcp_alpha_follows_the_marked_fraction_and_cuts_by_half_of_it() {
        let c = dctcp();
        let mut s = TcpSender::new(10_000, &c);
        let mut out = vec![];
        s.cwnd = 20.0;
        s.ssthresh = 20.0; // congestion avoidance
        s.fill(0, &mut out);
        assert_eq!(out.len(), 20);
        // a whole window acknowledged, one ACK in four echoing a mark:
        // alpha closes in on 1/4 window by window (g = 1/16)
        let mut acked = 0;
        for _window in 0..200 {
            let end = s.snd_nxt;
            while acked < end {
                acked += 1;
                let info = AckInfo { ece: acked % 4 == 0, ..ack(acked, 0, 0) };
                s.on_ack(10, info, &c, &mut out);
            }
        }
        assert!((s.alpha() - 0.25).abs() < 0.01, "alpha {}", s.alpha());
        // a cut takes cwnd (1 - alpha/2), once per window
        let (mut s, mut out) = (TcpSender::new(1000, &c), vec![]);
        s.alpha = 0.5;
        s.alpha_seq = 1000; // no alpha update on the next ACK
        s.cwnd = 16.0;
        s.fill(0, &mut out);
        s.on_ack(10, AckInfo { ece: true, ..ack(1, 0, 0) }, &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh), (12.0, 12.0));
        s.on_ack(10, AckInfo { ece: true, ..ack(2, 0, 0) }, &c, &mut out);
        assert_eq!(s.cwnd, 12.0);
        // a timeout after an ECN cut keeps ssthresh (ns-2 timeout_action)
        s.on_timeout(1000, &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 12.0));
    }

    fn cubic() -> TcpConfig {
        TcpConfig {
            fast_retransmit: true,
            cc: Cc::Cubic { c: 0.4, beta: 0.7, fast_convergence: true, tcp_friendly: true },
            ..cfg()
        }
    }

    #[test]
    fn cubic_cuts_to_beta_on_loss_and_echo_and_starts_over_at_a_timeout() {
        let c = cubic();
        // three duplicate ACKs with cwnd 20: ssthresh = cwnd = floor(0.7 x 20)
        let (mut s, mut out) = (TcpSender::new(1000, &c), vec![]);
        s.cwnd = 20.0;
        s.ssthresh = 20.0;
        s.fill(0, &mut out);
        for _ in 0..3 {
            s.on_ack(10, ack(0, 5, 6), &c, &mut out);
        }
        assert_eq!((s.cwnd, s.ssthresh), (14.0, 14.0));
        assert_eq!(s.conn().cubic_w_max, 20.0);
        // an echo with the window at 10: 7, and fast convergence lowers
        // W_max below the last one to 10 (1 + 0.7) / 2
        let (mut s, mut out) = (TcpSender::on_conn(1000, &c, s.conn()), vec![]);
        s.cwnd = 10.0;
        s.ssthresh = 10.0;
        s.fill(0, &mut out);
        s.on_ack(10, AckInfo { ece: true, ..ack(1, 0, 0) }, &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh), (7.0, 7.0));
        assert!((s.conn().cubic_w_max - 8.5).abs() < 1e-12);
        // a timeout inside the echo's window keeps its ssthresh (Linux: the
        // CWR state's), and so does a second one in a row; W_max forgotten
        s.cwnd = 30.0;
        s.on_timeout(1000, &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh, s.conn().cubic_w_max), (1.0, 7.0, 0.0));
        s.cwnd = 30.0;
        s.on_timeout(2000, &c, &mut out);
        assert_eq!(s.ssthresh, 7.0);
        // an echo before what was out at the timeout is acked: ignored
        s.on_ack(3000, AckInfo { ece: true, ..ack(2, 0, 0) }, &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh), (2.0, 7.0), "slow start, no cut");
        // a first timeout after progress: ssthresh 0.7 of the window
        let (mut s, mut out) = (TcpSender::new(1000, &c), vec![]);
        s.cwnd = 30.0;
        s.fill(0, &mut out);
        s.on_timeout(1000, &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 21.0));
    }

    #[test]
    fn cubic_in_congestion_avoidance_grows_slower_than_reno_at_a_short_rtt() {
        // 100 round trips of 135 us from cwnd 20 at ssthresh: Reno +1 per
        // window of ACKs, CUBIC (its curve flat at this RTT) about 0.53
        let grow = |c: &TcpConfig| {
            let (mut s, mut out) = (TcpSender::new(100_000, c), vec![]);
            s.cwnd = 20.0;
            s.ssthresh = 20.0;
            s.cubic = Cubic::with_w_max(40.0);
            s.fill(0, &mut out);
            let (mut acked, mut now) = (0, 0);
            for _ in 0..100 {
                now += 135_000_000;
                for _ in 0..s.cwnd as u32 {
                    acked += 1;
                    s.on_ack(now, AckInfo { ts_echo: now - 135_000_000, ..ack(acked, 0, 0) }, c, &mut out);
                }
            }
            s.cwnd - 20.0
        };
        assert_eq!(grow(&cfg()), 100.0);
        let cubic = grow(&cubic());
        assert!((cubic - 53.0).abs() < 4.0, "CUBIC grew {cubic} packets in 100 RTTs");
    }

    #[test]
    fn window_grows_by_one_per_ack_then_one_per_window() {
        let c = cfg();
        let (mut s, mut out) = started(&c);
        s.ssthresh = 6.0;
        // a cumulative ACK of three segments still opens the window by one
        s.on_ack(10, ack(3, 0, 0), &c, &mut out);
        assert_eq!(s.cwnd, 5.0);
        s.on_ack(10, ack(4, 0, 0), &c, &mut out);
        assert_eq!(s.cwnd, 6.0);
        // congestion avoidance: +1 after six more ACKs
        for a in 5..=10 {
            assert_eq!(s.cwnd, 6.0);
            s.on_ack(10, ack(a, 0, 0), &c, &mut out);
        }
        assert_eq!(s.cwnd, 7.0);
        // a timeout: ssthresh half of cwnd (floor), at least 2
        s.on_timeout(100, &c, &mut out);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 3.0));
        s.on_timeout(200, &c, &mut out);
        assert_eq!(s.ssthresh, 2.0);
    }

    fn pfabric() -> TcpConfig {
        TcpConfig { fixed_rto: true, min_rto_ps: 45, probe_after: Some(5), prio: Prio::RemainingSize, ..cfg() }
    }

    #[test]
    fn pfabric_timeouts_are_fixed_and_end_in_probes() {
        let c = pfabric();
        let (mut s, mut out) = started(&c);
        out.clear();
        let mut deadlines = vec![];
        for i in 1..=6u64 {
            s.on_timeout(100 * i, &c, &mut out);
            deadlines.push(s.rto_deadline.unwrap() - 100 * i);
        }
        // no backoff, no RTT estimate
        assert!(deadlines.iter().all(|&d| d == 45), "{deadlines:?}");
        // timeouts 1-4 resend the first segment, 5 and 6 send probes
        assert_eq!(out, vec![0, 0, 0, 0, PROBE, PROBE]);
        assert_eq!(s.cwnd, 1.0);
        // the probe's answer ends probe mode and opens the window by one
        out.clear();
        s.on_ack(700, ack(0, 0, 0), &c, &mut out);
        assert_eq!(out, vec![0, 1]);
        // RTT samples leave the timeout alone
        s.on_ack(10_000, ack(2, 0, 0), &c, &mut out);
        assert_eq!(s.rto_deadline, Some(10_045));
    }

    #[test]
    fn rtt_per_window_times_one_new_segment_and_never_a_retransmission() {
        let c = TcpConfig { rtt_per_window: true, min_rto_ps: 1, init_rto_ps: 1000, ..cfg() };
        let (mut s, mut out) = started(&c); // segments 0..4 sent at 0; 0 is timed
        s.on_ack(100, ack(1, 0, 0), &c, &mut out); // covers 0: a sample of 100
        assert_eq!(s.rto, 100 + 4 * 50);
        // the next timed segment is the first new one sent after: 4 (at 100)
        s.on_ack(130, ack(2, 0, 0), &c, &mut out);
        assert_eq!(s.rto, 300, "no sample from an untimed segment");
        s.on_timeout(500, &c, &mut out); // Karn: what was timed is forgotten
        s.on_ack(900, ack(6, 0, 0), &c, &mut out);
        assert_eq!(s.rto, 600, "no sample from a retransmission (only the backoff: 300 x 2)");
    }

    #[test]
    fn a_reused_connection_keeps_ssthresh_and_alpha_but_not_the_window() {
        let c = dctcp();
        let (mut s, mut out) = started(&c);
        s.on_timeout(100, &c, &mut out);
        s.on_timeout(200, &c, &mut out);
        s.alpha = 0.3;
        let conn = s.conn();
        let next = TcpSender::on_conn(50, &c, conn);
        assert_eq!((next.cwnd, next.ssthresh, next.alpha()), (c.init_cwnd_pkts, 2.0, 0.3));
        let fresh = TcpSender::new(50, &c);
        assert_eq!((fresh.ssthresh, fresh.alpha()), (f64::INFINITY, 0.0));
    }

    #[test]
    fn timeout_goes_back_and_skips_sacked() {
        let c = cfg();
        let mut s = TcpSender::new(6, &c);
        let mut out = vec![];
        s.fill(0, &mut out);
        s.on_ack(5, ack(0, 2, 3), &c, &mut out); // only 2 arrived
        out.clear();
        s.on_timeout(1000, &c, &mut out);
        assert_eq!(out, vec![0]);
        assert_eq!(s.cwnd, 1.0);
        out.clear();
        s.on_ack(1010, ack(1, 0, 0), &c, &mut out);
        // cwnd 2: segment 1, then 3 (2 is SACKed)
        assert_eq!(out, vec![1, 3]);
    }

    #[test]
    fn receiver_acks_cumulatively_and_sacks_out_of_order() {
        let mut r = TcpReceiver::new(10);
        assert_eq!(r.on_data(0), (1, 0, 0));
        assert_eq!(r.on_data(2), (1, 2, 3));
        assert_eq!(r.on_data(3), (1, 2, 4));
        assert_eq!(r.on_data(1), (4, 0, 0));
        assert_eq!(r.on_data(1), (4, 0, 0)); // duplicate
        assert_eq!(r.received(), 4);
        r.on_data(7);
        assert_eq!(r.received(), 5);
        assert!(r.has(7) && r.has(3) && !r.has(6));
        for s in 4..10 {
            r.on_data(s);
        }
        assert!(r.complete());
        assert_eq!(r.received(), 10);
    }
}
