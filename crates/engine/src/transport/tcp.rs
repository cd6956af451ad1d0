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
//! Not modeled: the handshake, delayed ACKs (every segment is ACKed), SACK
//! reneging, receive windows.

use super::Segment;
use crate::bitset::Bitset;
use crate::config::TcpConfig;
use crate::packet::{flags, Kind, Packet};
use crate::time::Time;
use crate::workload::FlowSpec;

/// Both ends of a TCP flow. The sender and receiver count in segments;
/// this turns segment numbers into packets (sizes, flags, priorities).
#[derive(Debug)]
pub struct TcpFlow {
    size: u64,
    pub snd: TcpSender,
    pub rcv: TcpReceiver,
    /// Segment numbers to send, reused between calls.
    segs: Vec<u32>,
}

impl TcpFlow {
    pub fn new(spec: &FlowSpec, cfg: &TcpConfig) -> TcpFlow {
        let n_segs = u32::try_from(spec.size.div_ceil(cfg.mss_bytes as u64)).expect("flow too large");
        TcpFlow { size: spec.size, snd: TcpSender::new(n_segs, cfg), rcv: TcpReceiver::new(n_segs), segs: Vec::new() }
    }

    pub fn start(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        self.snd.fill(now, &mut self.segs);
        self.emit(cfg, out);
    }

    /// The receiver takes a data packet; returns its ACK (the data
    /// packet's fields, turned around).
    pub fn on_data(&mut self, data: &Packet, cfg: &TcpConfig) -> Packet {
        let (ackno, lo, hi) = self.rcv.on_data(data.seq);
        Packet {
            seq: ackno,
            sack_lo: lo,
            sack_hi: hi,
            src: data.dst,
            dst: data.src,
            size: cfg.ack_bytes as u16,
            kind: Kind::Ack,
            flags: if data.has(flags::CE) { flags::ECE } else { 0 },
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
        };
        self.snd.on_ack(now, info, cfg, &mut self.segs);
        self.emit(cfg, out);
    }

    pub fn on_timeout(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        self.snd.on_timeout(now, cfg, &mut self.segs);
        self.emit(cfg, out);
    }

    /// Payload bytes the receiver holds.
    pub fn delivered_bytes(&self, cfg: &TcpConfig) -> u64 {
        let mss = cfg.mss_bytes as u64;
        let n = self.rcv.n_segs;
        // every received segment is a full MSS except the last one
        let short = if self.rcv.has(n - 1) { n as u64 * mss - self.size } else { 0 };
        self.rcv.received() as u64 * mss - short
    }

    /// The segments the sender chose, as packets to build.
    fn emit(&mut self, cfg: &TcpConfig, out: &mut Vec<Segment>) {
        let (mss, hdr) = (cfg.mss_bytes as u64, cfg.header_bytes as u64);
        let last = self.snd.n_segs - 1;
        let last_payload = self.size - last as u64 * mss;
        let ect = if cfg.ecn { flags::ECT } else { 0 };
        out.extend(self.segs.drain(..).map(|seq| {
            let payload = if seq == last { last_payload } else { mss };
            Segment { seq, size: (payload + hdr) as u16, flags: ect, prio: 0 }
        }));
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
    dupacks: u32,
    in_recovery: bool,
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
    /// A timer event is in the calendar (the simulation keeps at most one
    /// per flow and re-arms it lazily when it fires early).
    pub timer_pending: bool,
    /// RFC 3168: react to ECN echo at most once per window.
    ecn_recover: u32,
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
}

impl TcpSender {
    pub fn new(n_segs: u32, cfg: &TcpConfig) -> TcpSender {
        TcpSender {
            n_segs,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            cwnd: cfg.init_cwnd_pkts,
            ssthresh: f64::INFINITY,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            rexmit_next: 0,
            sacked: Bitset::new(n_segs),
            high_sacked: 0,
            srtt: 0.0,
            rttvar: 0.0,
            rto: cfg.init_rto_ps,
            rto_deadline: None,
            timer_pending: false,
            ecn_recover: 0,
            retx: 0,
            timeouts: 0,
        }
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.n_segs
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

    /// Send what the window allows; pushes segment indices onto `out`.
    pub fn fill(&mut self, now: Time, out: &mut Vec<u32>) {
        // `as` truncates, which is the floor for a window (positive); it
        // avoids a call to libm's floor on every ACK.
        debug_assert!(self.cwnd >= 0.0);
        let window = (self.cwnd as u32).max(1);
        let mut pipe = self.pipe();
        if !self.in_recovery && self.snd_nxt >= self.high_tx && self.high_sacked <= self.snd_nxt {
            // New data only, none of it SACKed (the common case): what the
            // loop below would send, without asking the scoreboard per segment.
            let n = window.saturating_sub(pipe).min(self.n_segs - self.snd_nxt);
            out.extend(self.snd_nxt..self.snd_nxt + n);
            self.snd_nxt += n;
            self.high_tx = self.snd_nxt;
            pipe = window;
        }
        while pipe < window {
            let seg = match self.next_segment() {
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
            self.high_tx = self.high_tx.max(seg + 1);
            out.push(seg);
            pipe += 1;
        }
        if !out.is_empty() && self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto);
        }
    }

    fn next_segment(&mut self) -> Option<u32> {
        if self.in_recovery {
            let from = self.rexmit_next.max(self.snd_una);
            let to = self.high_sacked.min(self.snd_nxt);
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
        if self.snd_nxt >= self.n_segs {
            return None;
        }
        self.snd_nxt += 1;
        Some(self.snd_nxt - 1)
    }

    /// Process an ACK, then send what the window allows.
    pub fn on_ack(&mut self, now: Time, ack: AckInfo, cfg: &TcpConfig, out: &mut Vec<u32>) {
        self.rtt_sample(now.saturating_sub(ack.ts_echo), cfg);
        if ack.sack_hi > ack.sack_lo {
            self.sacked.set_range(ack.sack_lo.max(self.snd_una), ack.sack_hi.min(self.n_segs));
            if ack.sack_hi > self.high_sacked {
                self.high_sacked = ack.sack_hi.min(self.n_segs);
            }
        }

        if ack.ece && !self.in_recovery && ack.ackno >= self.ecn_recover {
            // RFC 3168 §6.1.2: halve the window once per window of data.
            self.ssthresh = (self.cwnd / 2.0).max(2.0);
            self.cwnd = self.ssthresh;
            self.ecn_recover = self.snd_nxt;
        }
        if ack.ackno > self.snd_una {
            let acked = (ack.ackno - self.snd_una) as f64;
            self.snd_una = ack.ackno;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.dupacks = 0;
            if self.in_recovery {
                if self.snd_una >= self.recover {
                    // RFC 6582: full ACK ends recovery; deflate the window.
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh;
                }
            } else if self.cwnd < self.ssthresh {
                self.cwnd += acked; // slow start
            } else {
                self.cwnd += acked / self.cwnd; // congestion avoidance
            }
            if let Some(max) = cfg.max_cwnd_pkts {
                self.cwnd = self.cwnd.min(max);
            }
            // RFC 6298 (5.3): restart the timer on an ACK of new data.
            self.rto_deadline = if self.done() { None } else { Some(now + self.rto) };
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
        if !self.done() {
            self.fill(now, out);
        }
    }

    fn enter_recovery(&mut self) {
        let flight = (self.snd_nxt - self.snd_una) as f64;
        self.ssthresh = (flight / 2.0).max(2.0);
        self.cwnd = self.ssthresh;
        self.in_recovery = true;
        self.recover = self.snd_nxt;
        self.rexmit_next = self.snd_una;
    }

    /// The retransmission timer expired: go back to the oldest unacked
    /// segment with a window of one (RFC 5681 §3.1, RFC 6298 §5.5-5.7).
    pub fn on_timeout(&mut self, now: Time, cfg: &TcpConfig, out: &mut Vec<u32>) {
        self.timeouts += 1;
        let flight = (self.snd_nxt - self.snd_una) as f64;
        self.ssthresh = (flight / 2.0).max(2.0);
        self.cwnd = 1.0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.high_tx;
        self.snd_nxt = self.snd_una;
        self.rto = (self.rto * 2).min(cfg.max_rto_ps);
        self.rto_deadline = None;
        self.fill(now, out);
    }

    fn rtt_sample(&mut self, r: Time, cfg: &TcpConfig) {
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
        }
    }

    fn ack(ackno: u32, lo: u32, hi: u32) -> AckInfo {
        AckInfo { ackno, sack_lo: lo, sack_hi: hi, ts_echo: 0, ece: false }
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
    fn ecn_echo_halves_once_per_window() {
        let c = cfg();
        let (mut s, mut out) = started(&c);
        s.cwnd = 10.0;
        s.ssthresh = 10.0;
        let ece = |a| AckInfo { ece: true, ..ack(a, 0, 0) };
        s.on_ack(10, ece(1), &c, &mut out);
        assert_eq!(s.cwnd, 5.0 + 1.0 / 5.0);
        s.on_ack(10, ece(2), &c, &mut out); // same window: no second cut
        assert!(s.cwnd > 5.0);
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
