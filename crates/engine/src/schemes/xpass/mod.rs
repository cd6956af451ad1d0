//! ExpressPass (Cho, Jang and Han, SIGCOMM'17) as its public ns-2 code
//! runs it, the code BFC NSDI'22 §6.2 compared against (kaist-ina
//! `ns2-xpass`, `xpass.cc`; docs/schemes.md, `expresspass`). Receiver
//! driven: the sender asks for credits (a credit request); the receiver
//! paces credits towards the sender; switch ports rate-limit credits
//! (`queue.rs`) and drop the excess; each credit that reaches the
//! sender lets one data packet out. The receiver learns the credit loss
//! from the credit numbers the data echoes and sets its credit rate by the
//! feedback control of the paper's Algorithm 1.
//!
//! Sans-IO like the other transports: segments out, timers as deadlines.
//! Segments of kind `Credit` (and NACKs, kind `Ack`) go from the receiver
//! to the sender; `Data` and `CreditStop` from the sender to the receiver.

pub mod queue;

use crate::config::XpassConfig;
use crate::packet::{flags, Kind, Packet};
use crate::time::{Time, PS_PER_S};
use crate::transport::{Cx, Endpoint, Segment};
use crate::workload::FlowSpec;

/// Timer kinds of an ExpressPass flow.
pub mod timer {
    /// The receiver's next credit.
    pub const CREDIT: u8 = 0;
    /// The sender's credit request, sent again until a credit comes.
    pub const REQUEST: u8 = 1;
    /// Two sender RTTs after a CREDIT_STOP: data still left (an early stop
    /// whose credits were lost) asks for credits again.
    pub const STOP_CHECK: u8 = 2;
    /// The receiver's NACK, sent again while the packet it asks for has
    /// not come (every `request_timeout_ps`, as ns-2's retransmit timer).
    pub const NACK: u8 = 3;
}

/// `xpass.cc`: the credit request tells the receiver how many packets the
/// flow has; fewer than this many start at a proportionally lower rate.
const SHORT_FLOW_PKTS: f64 = 40.0;

/// Both ends of an ExpressPass flow.
#[derive(Debug)]
pub struct XpassFlow {
    n_segs: u32,
    size: u64,
    // ---- sender ----
    /// Next data packet to send (go-back-N rewinds it on a NACK).
    next_seq: u32,
    /// A credit request is out and no credit has come yet; when to send it
    /// again.
    request_deadline: Option<Time>,
    request_sent: Time,
    /// The sender has sent CREDIT_STOP (and not asked again since), and
    /// when it looks whether data is still left.
    stopped: bool,
    stop_check: Option<Time>,
    /// Early stop: the request-to-first-credit time, and the credits
    /// counted since the current interval began.
    sender_rtt: Option<Time>,
    interval_start: Time,
    interval_credits: u32,
    /// Credits that found nothing to send.
    pub wasted: u32,
    pub retx: u32,
    pub timeouts: u32,
    // ---- receiver ----
    /// Next data packet expected in order; packets beyond it are dropped
    /// (go-back-N) and NACKed once per expected number.
    expected: u32,
    nacked: Option<u32>,
    nack_deadline: Option<Time>,
    /// Credits are being sent: the next at this time.
    credit_deadline: Option<Time>,
    /// The receiver got CREDIT_STOP.
    stop_heard: bool,
    /// Credit rate (credit bytes per second) and its bounds.
    rate: f64,
    max_rate: f64,
    w: f64,
    increasing: bool,
    /// Next credit number, and the send times of the credits in flight
    /// (by number, from `sent_base`).
    credit_seq: u32,
    sent_base: u32,
    sent_at: std::collections::VecDeque<Time>,
    /// Credits echoed back since the last update (data received), and
    /// those found lost by the gaps in the echoes.
    got: u32,
    lost: u32,
    last_echo: Option<u32>,
    last_update: Time,
    /// Smoothed credit-to-data time (0: no sample yet).
    rtt: f64,
    rng: u64,
}

impl XpassFlow {
    pub fn new(spec: &FlowSpec, cfg: &XpassConfig, seed: u64) -> XpassFlow {
        let n_segs = u32::try_from(spec.size.div_ceil(cfg.mss_bytes as u64).max(1)).expect("flow too large");
        let max_rate = cfg.max_credit_rate_bps as f64 / 8.0;
        XpassFlow {
            n_segs,
            size: spec.size,
            next_seq: 0,
            request_deadline: None,
            request_sent: 0,
            stopped: false,
            stop_check: None,
            sender_rtt: None,
            interval_start: 0,
            interval_credits: 0,
            wasted: 0,
            retx: 0,
            timeouts: 0,
            expected: 0,
            nacked: None,
            nack_deadline: None,
            credit_deadline: None,
            stop_heard: false,
            rate: 0.0,
            max_rate,
            w: cfg.w_init,
            increasing: false,
            credit_seq: 0,
            sent_base: 0,
            sent_at: std::collections::VecDeque::new(),
            got: 0,
            lost: 0,
            last_echo: None,
            last_update: 0,
            rtt: 0.0,
            rng: crate::routing::splitmix(seed ^ 0x5850_4153_5300_0000 ^ (spec.id as u64) << 8),
        }
    }

    fn uniform(&mut self) -> f64 {
        self.rng = crate::routing::splitmix(self.rng);
        (self.rng >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The sender asks for credits (`advance-bytes`: a credit request
    /// carrying the packets it has to send).
    pub fn start(&mut self, now: Time, cfg: &XpassConfig, out: &mut Vec<Segment>) {
        self.request(now, cfg, out);
    }

    fn request(&mut self, now: Time, cfg: &XpassConfig, out: &mut Vec<Segment>) {
        self.request_sent = now;
        self.request_deadline = Some(now + cfg.request_timeout_ps);
        self.stopped = false;
        self.stop_check = None;
        let remaining = self.n_segs - self.next_seq;
        out.push(Segment { seq: remaining, size: cfg.control_bytes as u16, flags: flags::SYN, prio: 0, kind: Kind::Data });
    }

    /// The credit's size on the wire: fixed, or uniform over a range
    /// around it (the large-scale scripts: 76-92 B, to break
    /// synchronization).
    fn credit_size(&mut self, cfg: &XpassConfig) -> u16 {
        if cfg.credit_size_spread == 0 {
            return cfg.credit_bytes as u16;
        }
        let span = 2 * cfg.credit_size_spread as u64 + 1;
        let k = (self.uniform() * span as f64) as u64;
        (cfg.credit_bytes as u64 - cfg.credit_size_spread as u64 + k.min(span - 1)) as u16
    }

    // ---- the receiver ----------------------------------------------------

    /// The receiving end takes a data packet, a credit request or a
    /// CREDIT_STOP; returns a NACK to send back, if any.
    pub fn on_data(&mut self, now: Time, pkt: &Packet, cfg: &XpassConfig) -> Option<Packet> {
        if pkt.kind == Kind::CreditStop {
            self.stop_heard = true;
            self.credit_deadline = None;
            return None;
        }
        if pkt.has(flags::SYN) {
            // a credit request (`recv_credit_request`): start over, a
            // credit now at alpha of the maximum (less for a flow of fewer
            // than 40 packets left), w and the feedback from scratch
            self.stop_heard = false;
            let remaining = pkt.seq as f64;
            let frac = if remaining < SHORT_FLOW_PKTS { remaining / SHORT_FLOW_PKTS } else { 1.0 };
            self.rate = cfg.alpha * frac * self.max_rate;
            self.w = cfg.w_init;
            self.increasing = false;
            self.last_update = now;
            self.got = 0;
            self.lost = 0;
            self.credit_deadline = Some(now);
            return None;
        }
        self.on_echo(now, pkt.prio as u32);
        if pkt.seq == self.expected {
            self.expected += 1;
            self.nacked = None;
            self.nack_deadline = None;
            None
        } else if pkt.seq > self.expected && self.nacked != Some(self.expected) {
            self.nacked = Some(self.expected);
            self.nack_deadline = Some(now + cfg.request_timeout_ps);
            Some(Packet {
                seq: self.expected,
                sack_lo: 0,
                sack_hi: 0,
                prio: 0,
                src: pkt.dst,
                dst: pkt.src,
                size: cfg.control_bytes as u16,
                kind: Kind::Ack,
                flags: flags::NACK,
                ..*pkt
            })
        } else {
            None
        }
    }

    /// Data echoing credit `c` arrived: count it, the credits lost before
    /// it, and the time from the credit to its data.
    fn on_echo(&mut self, now: Time, c: u32) {
        match self.last_echo {
            Some(last) if c <= last => return, // a resent packet's old echo
            Some(last) => self.lost += c - last - 1,
            None => self.lost += c,
        }
        self.last_echo = Some(c);
        self.got += 1;
        if c >= self.sent_base {
            let skip = (c - self.sent_base) as usize;
            if let Some(&sent) = self.sent_at.get(skip) {
                let sample = now.saturating_sub(sent) as f64;
                self.rtt = if self.rtt == 0.0 { sample } else { 0.8 * self.rtt + 0.2 * sample };
            }
            self.sent_at.drain(..(skip + 1).min(self.sent_at.len()));
            self.sent_base = c + 1;
        }
    }

    /// Algorithm 1 (`credit_feedback_control`), at most once per RTT,
    /// before a credit is sent.
    fn feedback(&mut self, now: Time, cfg: &XpassConfig) {
        if self.rtt == 0.0 || ((now - self.last_update) as f64) < self.rtt {
            return;
        }
        let total = self.got + self.lost;
        if total == 0 {
            return;
        }
        let avg = cfg.credit_bytes as f64;
        let elapsed = (now - self.last_update) as f64 / PS_PER_S as f64;
        let min_rate = avg / (self.rtt / PS_PER_S as f64);
        let target = (1.0 - self.rate / self.max_rate) * cfg.target_loss;
        let loss = self.lost as f64 / total as f64;
        if loss > target {
            let measured = avg * self.got as f64 / elapsed * (1.0 + target);
            self.rate = if self.got == 0 { min_rate } else { measured.min(self.rate) };
            self.w = (self.w / 2.0).max(cfg.w_min);
            self.increasing = false;
        } else {
            if self.increasing {
                self.w = (self.w + cfg.w_step).min(cfg.w_max);
            } else {
                self.increasing = true;
            }
            self.rate = self.w * self.max_rate + (1.0 - self.w) * self.rate;
        }
        self.rate = self.rate.clamp(min_rate.min(self.max_rate), self.max_rate);
        self.got = 0;
        self.lost = 0;
        self.last_update = now;
    }

    /// The receiver's credit timer: the feedback check, one credit, and
    /// the next credit's time (the gap at the current rate, +-10% jitter).
    fn send_credit(&mut self, now: Time, cfg: &XpassConfig, out: &mut Vec<Segment>) {
        self.feedback(now, cfg);
        let size = self.credit_size(cfg);
        out.push(Segment { seq: self.credit_seq, size, flags: flags::CLASS0, prio: 0, kind: Kind::Credit });
        if self.sent_at.is_empty() {
            self.sent_base = self.credit_seq;
        }
        self.sent_at.push_back(now);
        self.credit_seq += 1;
        let gap_s = cfg.credit_bytes as f64 / self.rate;
        let jitter = 1.0 + cfg.jitter * (2.0 * self.uniform() - 1.0);
        self.credit_deadline = Some(now + ((gap_s * jitter * PS_PER_S as f64) as Time).max(1));
    }

    // ---- the sender --------------------------------------------------------

    /// A credit (or a NACK) reached the sender: one data packet per credit
    /// while there is data; CREDIT_STOP once there is none, or early, when
    /// the credits of the last interval (one request-to-credit time) cover
    /// what is left.
    pub fn on_ack(&mut self, now: Time, pkt: &Packet, cfg: &XpassConfig, out: &mut Vec<Segment>) {
        if pkt.kind == Kind::Ack {
            // a NACK: go back to the packet the receiver expects
            if pkt.has(flags::NACK) && pkt.seq < self.next_seq {
                self.retx += self.next_seq - pkt.seq;
                self.next_seq = pkt.seq;
                if self.stopped {
                    self.request(now, cfg, out);
                }
            }
            return;
        }
        if self.request_deadline.take().is_some() {
            // the first credit since a request: the sender's RTT, measured
            // again after every request, and a new counting interval
            self.sender_rtt = Some(now - self.request_sent);
            self.interval_start = now;
            self.interval_credits = 0;
        }
        if self.next_seq >= self.n_segs {
            self.wasted += 1;
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let payload = if seq + 1 == self.n_segs { self.size - seq as u64 * cfg.mss_bytes as u64 } else { cfg.mss_bytes as u64 };
        let size = (payload + cfg.header_bytes as u64).max(cfg.control_bytes as u64) as u16;
        // the data echoes the credit's number, in `prio` (the ports of
        // this scheme schedule by no priority)
        out.push(Segment { seq, size, flags: 0, prio: pkt.seq as u64, kind: Kind::Data });
        self.interval_credits += 1;
        if self.stopped {
            return;
        }
        let remaining = self.n_segs - self.next_seq;
        let early = match self.sender_rtt {
            Some(rtt) if now - self.interval_start >= rtt => {
                let covered = self.interval_credits >= remaining;
                self.interval_start = now;
                self.interval_credits = 0;
                covered
            }
            _ => false,
        };
        if remaining == 0 || early {
            self.stopped = true;
            // `xpass.cc`: the credit-stop timer, two sender RTTs
            self.stop_check = Some(now + 2 * self.sender_rtt.unwrap_or(cfg.request_timeout_ps));
            out.push(Segment { seq: 0, size: cfg.control_bytes as u16, flags: 0, prio: 0, kind: Kind::CreditStop });
        }
    }

    // ---- timers and state --------------------------------------------------

    pub fn deadline(&self, kind: u8) -> Option<Time> {
        match kind {
            timer::CREDIT => self.credit_deadline,
            timer::REQUEST => self.request_deadline,
            timer::STOP_CHECK => self.stop_check,
            timer::NACK => self.nack_deadline,
            _ => None,
        }
    }

    pub fn on_timer(&mut self, now: Time, kind: u8, cfg: &XpassConfig, out: &mut Vec<Segment>) {
        match kind {
            timer::CREDIT => self.send_credit(now, cfg, out),
            timer::STOP_CHECK => {
                self.stop_check = None;
                if self.stopped && self.next_seq < self.n_segs {
                    self.request(now, cfg, out);
                }
            }
            timer::NACK => {
                // the packet asked for has not come: ask again
                self.nack_deadline = Some(now + cfg.request_timeout_ps);
                let seq = self.expected;
                out.push(Segment { seq, size: cfg.control_bytes as u16, flags: flags::NACK, prio: 0, kind: Kind::Ack });
            }
            _ => {
                // no credit came: ask again
                self.timeouts += 1;
                self.request(now, cfg, out);
            }
        }
    }

    /// The receiver holds every packet and has heard CREDIT_STOP: the flow
    /// is over (ns-2 logs its FCT at the stop's arrival).
    pub fn closed(&self) -> bool {
        self.stop_heard && self.expected >= self.n_segs
    }

    pub fn receiver_complete(&self) -> bool {
        self.expected >= self.n_segs
    }

    pub fn delivered_bytes(&self, cfg: &XpassConfig) -> u64 {
        (self.expected as u64 * cfg.mss_bytes as u64).min(self.size)
    }

    /// Credit bytes per second the receiver sends at.
    pub fn credit_rate(&self) -> f64 {
        self.rate
    }
}

impl Endpoint for XpassFlow {
    type Config = XpassConfig;

    fn start(&mut self, cx: &mut Cx<XpassConfig>) {
        XpassFlow::start(self, cx.now, cx.cfg, cx.out)
    }

    /// A credit or a NACK reaches the sender.
    fn on_ack(&mut self, cx: &mut Cx<XpassConfig>, pkt: &Packet) {
        XpassFlow::on_ack(self, cx.now, pkt, cx.cfg, cx.out)
    }

    /// Data or a CREDIT_STOP reaches the receiver.
    fn on_data(&mut self, cx: &mut Cx<XpassConfig>, pkt: &Packet) -> Option<Packet> {
        XpassFlow::on_data(self, cx.now, pkt, cx.cfg)
    }

    /// The receiver's credits run on its timers, and it ends the flow.
    fn receiver_drives(&self) -> bool {
        true
    }

    fn timer_kinds(&self) -> u8 {
        4
    }

    fn deadline(&self, kind: u8) -> Option<Time> {
        XpassFlow::deadline(self, kind)
    }

    fn on_timer(&mut self, cx: &mut Cx<XpassConfig>, kind: u8) {
        XpassFlow::on_timer(self, cx.now, kind, cx.cfg, cx.out)
    }

    fn receiver_complete(&self) -> bool {
        XpassFlow::receiver_complete(self)
    }

    /// The flow is over (see `closed`).
    fn sender_done(&self) -> bool {
        self.closed()
    }

    fn delivered_bytes(&self, cfg: &XpassConfig) -> u64 {
        XpassFlow::delivered_bytes(self, cfg)
    }

    fn retransmits(&self) -> u32 {
        self.retx
    }

    fn timeouts(&self) -> u32 {
        self.timeouts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn cfg() -> XpassConfig {
        XpassConfig {
            mss_bytes: 1460,
            header_bytes: 78,
            control_bytes: 84,
            credit_bytes: 84,
            credit_size_spread: 0,
            max_credit_rate_bps: 10_000_000_000 * 84 / (84 + 1538),
            alpha: 0.5,
            w_init: 0.0625,
            w_min: 0.01,
            w_max: 0.5,
            w_step: 0.05,
            target_loss: 0.125,
            jitter: 0.1,
            request_timeout_ps: 100_000_000,
        }
    }

    fn spec(size: u64) -> FlowSpec {
        FlowSpec { id: 7, src: 0, dst: 1, size, start: 0, deadline_draw: None }
    }

    fn packet(seg: &Segment, from: u16, to: u16) -> Packet {
        Packet {
            flow: 7,
            slot: 0,
            seq: seg.seq,
            sack_lo: seg.prio as u32,
            sack_hi: 0,
            prio: seg.prio,
            ts: 0,
            src: from,
            dst: to,
            size: seg.size,
            kind: seg.kind,
            flags: seg.flags,
            ingress: 0,
        }
    }

    #[test]
    fn request_credits_data_and_stop() {
        let c = cfg();
        let mut f = XpassFlow::new(&spec(3 * 1460 + 100), &c, 1);
        let mut out = vec![];
        f.start(0, &c, &mut out);
        assert_eq!((out[0].kind, out[0].seq, out[0].size, out[0].flags), (Kind::Data, 4, 84, flags::SYN));
        assert_eq!(f.deadline(timer::REQUEST), Some(100_000_000));
        // the receiver starts crediting at once, at alpha x 4/40 of the max
        assert!(f.on_data(1000, &packet(&out[0], 0, 1), &c).is_none());
        assert_eq!(f.deadline(timer::CREDIT), Some(1000));
        assert!((f.credit_rate() - 0.5 * 0.1 * f.max_rate).abs() < 1e-6);
        let (mut credits, mut times) = (vec![], vec![]);
        for _ in 0..6 {
            let t = f.deadline(timer::CREDIT).unwrap();
            times.push(t);
            f.on_timer(t, timer::CREDIT, &c, &mut credits);
        }
        assert!(credits.iter().all(|s| s.kind == Kind::Credit && s.size == 84 && s.flags == flags::CLASS0));
        assert_eq!(credits.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
        // gaps: 84 B at the rate, +-10%
        let gap = 84.0 / f.credit_rate() * 1e12;
        for w in times.windows(2) {
            let g = (w[1] - w[0]) as f64;
            assert!(g > 0.89 * gap && g < 1.11 * gap, "{g} vs {gap}");
        }
        // each credit lets one packet out; the last one is short; then the stop
        let mut sent = vec![];
        for cr in &credits {
            f.on_ack(2000, &packet(cr, 1, 0), &c, &mut sent);
        }
        let kinds: Vec<_> = sent.iter().map(|s| (s.kind, s.seq, s.size)).collect();
        assert_eq!(
            kinds,
            vec![(Kind::Data, 0, 1538), (Kind::Data, 1, 1538), (Kind::Data, 2, 1538), (Kind::Data, 3, 178), (Kind::CreditStop, 0, 84)]
        );
        assert_eq!((f.wasted, f.deadline(timer::REQUEST)), (2, None));
        // the data echoes its credit; the receiver completes, then closes at the stop
        for s in &sent[..4] {
            assert!(f.on_data(3000, &packet(s, 0, 1), &c).is_none());
        }
        assert!(f.receiver_complete() && !f.closed());
        f.on_data(3500, &packet(&sent[4], 0, 1), &c);
        assert!(f.closed() && f.deadline(timer::CREDIT).is_none());
        assert_eq!(f.delivered_bytes(&c), 3 * 1460 + 100);
    }

    #[test]
    fn feedback_cuts_on_loss_and_climbs_without() {
        let c = cfg();
        let mut f = XpassFlow::new(&spec(10_000_000), &c, 1);
        f.rate = f.max_rate / 2.0;
        f.rtt = 10e6; // 10 us
        f.got = 50;
        f.lost = 50; // half the credits lost: far above the target
        f.last_update = 0;
        f.feedback(20_000_000, &c);
        // the rate the echoes show: 50 credits of 84 B in 20 us, +target
        let target = 0.5 * 0.125;
        let expect: f64 = 84.0 * 50.0 / 20e-6 * (1.0 + target);
        assert!((f.rate - expect.min(f.max_rate / 2.0)).abs() < 1.0, "{} vs {expect}", f.rate);
        assert_eq!((f.w, f.increasing), (0.0625 / 2.0, false));
        // no loss: first only the flag, then w grows by 0.05 each update
        let before = f.rate;
        f.got = 10;
        f.feedback(40_000_000, &c);
        assert!(f.increasing && f.w == 0.03125);
        assert!((f.rate - (0.03125 * f.max_rate + (1.0 - 0.03125) * before)).abs() < 1.0);
        f.got = 10;
        f.feedback(60_000_000, &c);
        assert!((f.w - 0.08125).abs() < 1e-12);
        // not before an RTT has passed
        f.got = 10;
        let r = f.rate;
        f.feedback(65_000_000, &c);
        assert_eq!(f.rate, r);
    }

    #[test]
    fn a_gap_in_the_data_is_nacked_once_and_the_sender_goes_back() {
        let c = cfg();
        let mut f = XpassFlow::new(&spec(10 * 1460), &c, 1);
        let mk = |seq: u32, echo: u32| Packet { seq, prio: echo as u64, ..packet(&Segment { seq, size: 1538, flags: 0, prio: echo as u64, kind: Kind::Data }, 0, 1) };
        assert!(f.on_data(0, &mk(0, 0), &c).is_none());
        let nack = f.on_data(0, &mk(2, 2), &c).expect("a gap");
        assert_eq!((nack.kind, nack.seq, nack.flags, nack.src, nack.dst), (Kind::Ack, 1, flags::NACK, 1, 0));
        assert!(f.on_data(0, &mk(3, 3), &c).is_none(), "one NACK per expected packet");
        // a lost data packet looks like a lost credit (its echo is missing), as in ns-2
        assert_eq!(f.lost, 1);
        // the NACK is sent again until the packet comes
        assert_eq!(f.deadline(timer::NACK), Some(100_000_000));
        let mut again = vec![];
        f.on_timer(100_000_000, timer::NACK, &c, &mut again);
        assert_eq!((again[0].kind, again[0].seq, again[0].flags), (Kind::Ack, 1, flags::NACK));
        f.next_seq = 4;
        let mut out = vec![];
        f.on_ack(10, &nack, &c, &mut out);
        assert_eq!((f.next_seq, f.retx), (1, 3));
        assert!(f.on_data(200_000_000, &mk(1, 4), &c).is_none());
        assert_eq!((f.expected, f.deadline(timer::NACK)), (2, None));
    }

    #[test]
    fn an_early_stop_whose_credits_were_lost_asks_again() {
        let c = cfg();
        let mut f = XpassFlow::new(&spec(100 * 1460), &c, 1);
        let mut out = vec![];
        f.start(0, &c, &mut out);
        let credit = |seq| Packet { seq, ..packet(&Segment { seq, size: 84, flags: 0, prio: 0, kind: Kind::Credit }, 1, 0) };
        // the first credit at 10 us (the sender's RTT), then one every 200 ns
        out.clear();
        f.on_ack(10_000_000, &credit(0), &c, &mut out);
        let mut k = 0;
        while out.last().map(|s| s.kind) != Some(Kind::CreditStop) {
            k += 1;
            f.on_ack(10_000_000 + k as u64 * 200_000, &credit(k), &c, &mut out);
        }
        // an RTT on (20 us), the 51 credits of the interval cover the 49
        // packets left: an early stop
        assert_eq!((k, f.next_seq), (50, 51));
        assert_eq!(f.deadline(timer::STOP_CHECK), Some(20_000_000 + 20_000_000));
        out.clear();
        // the credits in flight were lost: at the check, ask again
        f.on_timer(40_000_000, timer::STOP_CHECK, &c, &mut out);
        assert_eq!((out[0].kind, out[0].flags, out[0].seq), (Kind::Data, flags::SYN, 49));
        assert_eq!(f.deadline(timer::REQUEST), Some(140_000_000));
    }

    #[test]
    fn credit_sizes_spread_uniformly() {
        let c = XpassConfig { credit_size_spread: 8, ..cfg() };
        let mut f = XpassFlow::new(&spec(1460), &c, 3);
        let sizes: Vec<u16> = (0..4000).map(|_| f.credit_size(&c)).collect();
        assert_eq!((*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap()), (76, 92));
        let mean = sizes.iter().map(|&s| s as f64).sum::<f64>() / sizes.len() as f64;
        assert!((mean - 84.0).abs() < 0.3, "{mean}");
    }
}
