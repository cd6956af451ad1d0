//! TCP's delivery: the sender of NewReno with SACK, in segments (RFC
//! 5681, RFC 6582, RFC 6675 simplified: every un-SACKed segment below the
//! highest SACKed one counts as lost). It owns sequence numbers, the SACK
//! scoreboard, fast retransmit and recovery, slow start and the
//! retransmission timer (`rto.rs`); what the window does in congestion
//! avoidance and on echoes, losses and timeouts is its law's (`cc/`).

use super::cc::{Kept, Law, Sent, Window, WindowLaw};
use super::rto::Rto;
use crate::bitset::Bitset;
use crate::config::TcpConfig;
use crate::time::Time;

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
    pub rto: Rto,
    pub law: Kept,
    pub last_cut_ecn: bool,
}

impl Conn {
    /// A new connection.
    pub fn fresh(cfg: &TcpConfig) -> Conn {
        Conn { ssthresh: f64::INFINITY, rto: Rto::fresh(cfg), law: Kept::default(), last_cut_ecn: false }
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
    pub(crate) ca_acks: u32,
    pub(crate) dupacks: u32,
    pub(crate) in_recovery: bool,
    /// The recovery was entered by fast retransmit (ns-2's `pipectrl_`):
    /// only then does a span-limited window (`window_span`) count the pipe.
    pub(crate) pipe_recovery: bool,
    /// The window bounds the span above the cumulative ACK (ns-2 FullTcp),
    /// not the segments in flight (TcpConfig::window_span).
    pub(crate) window_span: bool,
    /// NewReno: recovery ends when this segment is acknowledged.
    pub(crate) recover: u32,
    /// Next hole to retransmit during recovery.
    pub(crate) rexmit_next: u32,
    pub(crate) sacked: Bitset,
    /// One past the highest SACKed segment.
    pub(crate) high_sacked: u32,
    pub(crate) rto: Rto,
    /// When the retransmission timer expires (None: not armed).
    pub rto_deadline: Option<Time>,
    /// ECN: react to an echo at most once per window (RFC 3168; DCTCP).
    pub(crate) ecn_recover: u32,
    /// The previous ACK carried an ECN echo (ns-2 `ecn_burst_`: an echoed
    /// ACK opens the window only if the one before it was echoed too).
    pub(crate) prev_ece: bool,
    /// The last window cut was an ECN reaction (a timeout after it leaves
    /// ssthresh alone, as in ns-2's `timeout_action`).
    pub(crate) last_cut_ecn: bool,
    /// The window law (`cc/`).
    pub(crate) law: Law,
    pub(crate) mss: u64,
    /// ns-2's RTT timing (`rtt_per_window`): the segment being timed and
    /// when it was sent.
    pub(crate) timed: Option<(u32, Time)>,
    /// Timeouts since the last packet from the receiver (pFabric probe mode).
    pub(crate) timeouts_in_row: u32,
    pub(crate) probing: bool,
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
            rto: conn.rto.on_conn(cfg),
            rto_deadline: None,
            ecn_recover: 0,
            prev_ece: false,
            last_cut_ecn: conn.last_cut_ecn,
            law: Law::new(&cfg.cc, conn.law),
            mss: cfg.mss_bytes as u64,
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
        Conn { ssthresh: self.ssthresh, rto: self.rto, law: self.law.kept(), last_cut_ecn: self.last_cut_ecn }
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.n_segs
    }

    /// DCTCP's estimate of the fraction of marked packets.
    pub fn alpha(&self) -> f64 {
        self.law.alpha()
    }

    /// DCTCP's state, for tests that set alpha.
    #[cfg(test)]
    pub(crate) fn dctcp_mut(&mut self) -> &mut super::cc::dctcp::Dctcp {
        match &mut self.law {
            Law::Dctcp(d) => d,
            Law::L2dct(l) => &mut l.dctcp,
            _ => panic!("not a DCTCP sender"),
        }
    }

    /// What the law is told of what was sent.
    #[inline]
    fn sent(&self) -> Sent {
        Sent { snd_una: self.snd_una, snd_nxt: self.snd_nxt, bytes: (self.high_tx as u64 + self.retx as u64) * self.mss }
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
                self.rto_deadline = Some(now + self.rto.rto);
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
                    self.rto_deadline = Some(now + self.rto.rto);
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
            self.rto_deadline = Some(now + self.rto.rto);
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
        let sent = self.sent();
        self.law.observe(&ack, &sent);
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
            self.rto_deadline = if self.done() { None } else { Some(now + self.rto.rto) };
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
                self.enter_recovery();
            }
        }
        if ack.ece && self.snd_una >= self.ecn_recover {
            self.ecn_cut();
        }
        if !self.done() {
            self.fill(now, out);
        }
    }

    /// Slow start: one packet per ACK that acknowledges new data (RFC 5681
    /// without byte counting, as ns-2); congestion avoidance: the law's. At
    /// most `max_cwnd`.
    pub(crate) fn open_window(&mut self, now: Time, acked: u32, cfg: &TcpConfig) {
        if self.cwnd < self.ssthresh {
            if cfg.ack_every > 1 {
                // Linux 3.18 `tcp_slow_start`: by the segments acked, up
                // to one past ssthresh
                self.cwnd = (self.cwnd + acked.max(1) as f64).min(self.ssthresh + 1.0);
            } else {
                self.cwnd += 1.0;
            }
        } else {
            let sent = self.sent();
            let mut w = Window { cwnd: self.cwnd, ca_acks: self.ca_acks };
            self.law.grow(now, &mut w, &sent);
            (self.cwnd, self.ca_acks) = (w.cwnd, w.ca_acks);
        }
        if let Some(max) = cfg.max_cwnd_pkts {
            self.cwnd = self.cwnd.min(max);
        }
    }

    /// React to an ECN echo, once per window, as the law says (NewReno
    /// with ECN halves the window, RFC 3168 §6.1.2). It ends slow start. As
    /// in ns-2, the cut also starts SACK-based retransmission of the
    /// window's holes.
    pub(crate) fn ecn_cut(&mut self) {
        let sent = self.sent();
        let mut w = Window { cwnd: self.cwnd, ca_acks: self.ca_acks };
        let cwnd = self.law.echo_cut(&mut w, &sent);
        self.ca_acks = w.ca_acks;
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

    fn enter_recovery(&mut self) {
        let flight = (self.snd_nxt - self.snd_una) as f64;
        let mut w = Window { cwnd: self.cwnd, ca_acks: self.ca_acks };
        self.ssthresh = self.law.loss_ssthresh(&mut w, flight);
        self.ca_acks = w.ca_acks;
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
            self.rto.back_off(cfg);
            self.rto_deadline = None;
            return self.fill(now, out);
        }
        let reducing = self.in_recovery || self.snd_una < self.ecn_recover;
        let first = self.timeouts_in_row == 1;
        if let Some(ssthresh) = self.law.timeout_ssthresh(self.cwnd, first, reducing, self.last_cut_ecn) {
            self.ssthresh = ssthresh;
        }
        self.cwnd = self.law.timeout_window(self.cwnd);
        self.ca_acks = 0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.high_tx;
        self.snd_nxt = self.snd_una;
        self.law.go_back(self.snd_una);
        self.timed = None; // Karn: nothing sent before a timeout is timed
        // ns-2: after a timeout the next echo may cut the window again;
        // Linux ignores echoes until what was out at the timeout is acked
        self.ecn_recover = if self.law.ignores_echoes_after_timeout() { self.high_tx } else { 0 };
        self.rto.back_off(cfg);
        self.rto_deadline = None;
        if cfg.probe_after.is_some_and(|n| self.timeouts_in_row >= n) {
            self.probing = true;
            self.retx += 1;
            self.rto_deadline = Some(now + self.rto.rto);
            out.push(self.snd_una | PROBE);
            return;
        }
        self.fill(now, out);
    }

    fn rtt_sample(&mut self, r: Time, cfg: &TcpConfig) {
        self.law.rtt_sample(r);
        self.rto.sample(r, cfg);
    }
}

