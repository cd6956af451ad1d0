//! DCQCN as ns3-rdma has it: the simulator of the DCQCN authors, which
//! BFC NSDI'22 §6.2.1 names as the one it ran DCQCN on (its ref. [5]).
//! Read in `qbb-net-device.cc` (`CheckandSendQCN`, `rpr_cnm_received`,
//! `rpr_*_time`, `rpr_*_byte`, `AdjustRates`, `ResumeAlpha`); it differs
//! from the Mellanox version of the HPCC simulator (`RdmaCc::Dcqcn`) in
//! where the decisions are taken:
//!
//! - the receiver (notification point) sends at most one CNP per flow per
//!   `cnp_interval`: a tick at the flow's first packet and every interval
//!   after it, each sending a CNP if a marked packet came since the last;
//! - the sender (reaction point) cuts at once on each CNP, updating alpha
//!   first (binary feedback), and sets the target to the current rate
//!   (`clamp_target_rate`, on in the shipped configuration);
//! - increases count timer periods and byte-counter periods separately:
//!   fast recovery while both counts are below F, additive increase once
//!   either reaches F, hyper increase only when both have (by HAI times
//!   the smaller count past F, on a halved timer);
//! - a target more than 10x the rate at the first step of a count is cut
//!   to an eighth instead of raised.

use super::timer;
use super::{Feedback, Pacing, RateLaw};
use crate::config::{DcqcnNs3Config, RdmaCc, RdmaConfig};
use crate::packet::{flags, Kind, Packet};
use crate::time::Time;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Stage {
    /// No CNP yet: no timers, the byte counter held full.
    #[default]
    Idle,
    Fast,
    Active,
    Hyper,
}

/// The sender's state (the simulator's `m_rp*`, `m_targetRate`,
/// `m_alpha`, `m_txBytes`).
#[derive(Clone, Copy, Debug)]
pub struct ReactionPoint {
    target_bps: u64,
    alpha: f64,
    byte_stage: u32,
    time_stage: u32,
    stage: Stage,
    /// Bytes left before the byte counter's next event.
    bytes_left: i64,
    pub next_alpha: Option<Time>,
    pub next_increase: Option<Time>,
}

impl ReactionPoint {
    pub fn new(c: &DcqcnNs3Config, line_bps: u64) -> ReactionPoint {
        ReactionPoint {
            target_bps: line_bps,
            alpha: c.initial_alpha,
            byte_stage: 0,
            time_stage: 0,
            stage: Stage::Idle,
            bytes_left: c.byte_counter_bytes as i64,
            next_alpha: None,
            next_increase: None,
        }
    }

    /// A CNP (`rpr_cnm_received`): the new rate.
    pub fn cnp(&mut self, now: Time, rate: u64, c: &DcqcnNs3Config) -> u64 {
        if c.clamp_target_rate || self.byte_stage != 0 {
            self.target_bps = rate;
            self.bytes_left = c.byte_counter_bytes as i64;
        }
        self.byte_stage = 0;
        self.time_stage = 0;
        self.alpha = (1.0 - c.g) * self.alpha + c.g;
        self.next_alpha = Some(now + c.alpha_interval_ps);
        self.next_increase = Some(now + c.increase_interval_ps);
        self.stage = Stage::Fast;
        c.min_rate_bps.max((rate as f64 * (1.0 - self.alpha / 2.0)) as u64)
    }

    /// The alpha timer (`ResumeAlpha`): alpha decays, forever after the
    /// first CNP.
    pub fn alpha_timer(&mut self, now: Time, c: &DcqcnNs3Config) {
        self.alpha *= 1.0 - c.g;
        self.next_alpha = Some(now + c.alpha_interval_ps);
    }

    /// The rate-increase timer (`rpr_timer_wrapper`): the new rate.
    pub fn increase_timer(&mut self, now: Time, rate: u64, line: u64, c: &DcqcnNs3Config) -> u64 {
        self.time_stage += 1;
        let period = if self.stage == Stage::Hyper { c.increase_interval_ps / 2 } else { c.increase_interval_ps };
        self.next_increase = Some(now + period);
        match self.stage {
            Stage::Idle => {
                self.next_increase = None;
                rate
            }
            Stage::Fast if self.time_stage < c.fast_recovery_times => self.adjust(rate, 0, line),
            Stage::Fast | Stage::Active => self.select(rate, line, c),
            Stage::Hyper => self.hyper(rate, line, c),
        }
    }

    /// A packet of `bytes` left the NIC (the byte counter, counted at
    /// dequeue): the new rate.
    pub fn sent(&mut self, bytes: u32, rate: u64, line: u64, c: &DcqcnNs3Config) -> u64 {
        let full = c.byte_counter_bytes as i64;
        if self.stage == Stage::Idle {
            self.bytes_left = full;
            return rate;
        }
        self.bytes_left -= bytes as i64;
        if self.bytes_left >= 0 {
            return rate;
        }
        self.byte_stage += 1;
        match self.stage {
            Stage::Fast => {
                self.bytes_left = full;
                if self.byte_stage < c.fast_recovery_times {
                    self.adjust(rate, 0, line)
                } else {
                    self.select(rate, line, c)
                }
            }
            // the byte path of the active stage never turns hyper
            Stage::Active => {
                self.bytes_left = full;
                self.stage = Stage::Active;
                self.adjust(rate, c.ai_bps, line)
            }
            _ => {
                self.bytes_left = full / 2;
                self.hyper(rate, line, c)
            }
        }
    }

    /// `rpr_active_select`: additive increase until both counts reach F.
    fn select(&mut self, rate: u64, line: u64, c: &DcqcnNs3Config) -> u64 {
        if self.byte_stage < c.fast_recovery_times || self.time_stage < c.fast_recovery_times {
            self.stage = Stage::Active;
            self.adjust(rate, c.ai_bps, line)
        } else {
            self.hyper(rate, line, c)
        }
    }

    fn hyper(&mut self, rate: u64, line: u64, c: &DcqcnNs3Config) -> u64 {
        self.stage = Stage::Hyper;
        let steps = self.byte_stage.min(self.time_stage) + 1 - c.fast_recovery_times;
        self.adjust(rate, c.hai_bps * steps as u64, line)
    }

    /// `AdjustRates`: raise the target (or cut a far-off one to an
    /// eighth at a count's first step), then halve the distance to it.
    /// The target itself has no cap; the rate has the line's.
    fn adjust(&mut self, rate: u64, increase: u64, line: u64) -> u64 {
        if (self.byte_stage == 1 || self.time_stage == 1) && self.target_bps > rate.saturating_mul(10) {
            self.target_bps /= 8;
        } else {
            self.target_bps = self.target_bps.saturating_add(increase);
        }
        (rate / 2 + self.target_bps / 2).min(line)
    }
}

/// The receiver's CNP ticks (`CheckandSendQCN`): the first at the flow's
/// first packet (after counting it), then every `cnp_interval`. Kept
/// lazily: a tick is scheduled only when a mark waits for it.
#[derive(Clone, Copy, Debug, Default)]
pub struct NotificationPoint {
    first: Option<Time>,
    marked: bool,
    pub next_tick: Option<Time>,
}

impl NotificationPoint {
    /// A data packet arrives, with CE or not.
    pub fn on_data(&mut self, now: Time, ce: bool, c: &DcqcnNs3Config) {
        let first = *self.first.get_or_insert(now);
        if !ce || self.marked {
            return;
        }
        self.marked = true;
        // the tick at the first packet sees it; later marks wait for the
        // next tick after them
        let i = c.cnp_interval_ps.max(1);
        self.next_tick = Some(if now == first { now } else { first + ((now - first) / i + 1) * i });
    }

    /// The tick: whether a CNP goes.
    pub fn tick(&mut self) -> bool {
        self.next_tick = None;
        std::mem::take(&mut self.marked)
    }
}

/// ns3-rdma's DCQCN as a queue pair's law: both ends' state, and the CNP
/// the receiver owes.
#[derive(Debug)]
pub struct Ns3Dcqcn {
    rp: ReactionPoint,
    np: NotificationPoint,
    /// The receiver's CNP, made from the flow's first data packet.
    template: Option<Packet>,
    due: Option<Packet>,
}

impl Ns3Dcqcn {
    pub fn new(c: &DcqcnNs3Config, line_bps: u64) -> Ns3Dcqcn {
        Ns3Dcqcn { rp: ReactionPoint::new(c, line_bps), np: NotificationPoint::default(), template: None, due: None }
    }
}

impl RateLaw for Ns3Dcqcn {
    fn on_ack(&mut self, fb: &Feedback, p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::DcqcnNs3(c) = &cfg.cc else { return };
        if fb.ack.has(flags::ECE) {
            p.rate_bps = self.rp.cnp(fb.now, p.rate_bps, c);
        }
    }

    /// ns3-rdma counts bytes at dequeue, after pacing this packet.
    fn on_sent(&mut self, size: u16, p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::DcqcnNs3(c) = &cfg.cc else { return };
        p.rate_bps = self.rp.sent(size as u32, p.rate_bps, p.line_bps, c);
    }

    /// Every packet counts towards the CNP, duplicates too.
    fn on_receive(&mut self, now: Time, data: &Packet, cfg: &RdmaConfig) {
        let RdmaCc::DcqcnNs3(c) = &cfg.cc else { return };
        self.np.on_data(now, data.has(flags::CE), c);
        self.template.get_or_insert(Packet {
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

    /// ACKs do not echo marks: the CNP does.
    fn echoes_marks(&self) -> bool {
        false
    }

    fn timer_kinds(&self) -> u8 {
        4
    }

    fn deadline(&self, kind: u8) -> Option<Time> {
        match kind {
            timer::ALPHA => self.rp.next_alpha,
            timer::CNP => self.np.next_tick,
            _ => self.rp.next_increase,
        }
    }

    fn on_timer(&mut self, now: Time, kind: u8, expected: u32, p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::DcqcnNs3(c) = &cfg.cc else { return };
        match kind {
            timer::ALPHA => self.rp.alpha_timer(now, c),
            timer::INCREASE => p.rate_bps = self.rp.increase_timer(now, p.rate_bps, p.line_bps, c),
            _ => {
                // timer::CNP
                if self.np.tick() {
                    let t = self.template.expect("a tick follows a data packet");
                    self.due = Some(Packet { seq: expected, ..t });
                }
            }
        }
    }

    /// The receiver's CNP tick.
    fn receiver_has_timer(&self) -> bool {
        true
    }

    fn take_reply(&mut self) -> Option<Packet> {
        self.due.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Time = 1_000_000;
    const LINE: u64 = 100_000_000_000;

    /// `n` steps of a 10 KB byte counter: 11 packets of 1000 B each (the
    /// count passes 10 KB on the 11th); returns the rate after them.
    fn byte_steps(rp: &mut ReactionPoint, n: usize, mut rate: u64, c: &DcqcnNs3Config) -> u64 {
        for _ in 0..n * 11 {
            rate = rp.sent(1000, rate, LINE, c);
        }
        rate
    }

    fn cfg() -> DcqcnNs3Config {
        DcqcnNs3Config {
            cnp_interval_ps: 50 * US,
            alpha_interval_ps: 55 * US,
            increase_interval_ps: 60 * US,
            byte_counter_bytes: 300_000_000,
            g: 1.0 / 256.0,
            initial_alpha: 0.5,
            fast_recovery_times: 5,
            ai_bps: 40_000_000,
            hai_bps: 200_000_000,
            min_rate_bps: 100_000_000,
            clamp_target_rate: true,
        }
    }

    #[test]
    fn one_cnp_per_interval_at_most_from_the_first_packet() {
        let c = cfg();
        let mut np = NotificationPoint::default();
        np.on_data(10 * US, false, &c);
        assert_eq!(np.next_tick, None, "no mark, no tick kept");
        np.on_data(12 * US, true, &c);
        assert_eq!(np.next_tick, Some(60 * US), "the tick 50 us after the first packet");
        np.on_data(30 * US, true, &c);
        assert_eq!(np.next_tick, Some(60 * US), "one CNP for the interval's marks");
        assert!(np.tick());
        assert!(!np.tick(), "nothing since");
        np.on_data(115 * US, true, &c);
        assert_eq!(np.next_tick, Some(160 * US), "ticks stay on the first packet's grid");
        // a first packet that is marked: the tick at it sends at once
        let mut np = NotificationPoint::default();
        np.on_data(7 * US, true, &c);
        assert_eq!(np.next_tick, Some(7 * US));
    }

    #[test]
    fn a_cnp_cuts_at_once_and_fast_recovery_halves_the_gap_four_times() {
        let c = cfg();
        let mut rp = ReactionPoint::new(&c, LINE);
        let r = rp.cnp(0, LINE, &c);
        // alpha = 0.5 (1 - g) + g, the rate cut by alpha / 2
        let alpha = 0.5 * (1.0 - c.g) + c.g;
        assert_eq!(r, (LINE as f64 * (1.0 - alpha / 2.0)) as u64);
        assert_eq!((rp.next_alpha, rp.next_increase), (Some(55 * US), Some(60 * US)));
        let mut rate = r;
        for step in 1..=4u64 {
            let gap = LINE - rate;
            rate = rp.increase_timer(step * 60 * US, rate, LINE, &c);
            assert!((LINE - rate).abs_diff(gap / 2) <= 1, "step {step}: the gap halves");
        }
        // the fifth timer step leaves fast recovery: the target (clamped at
        // the cut to the line rate here) rises by AI
        let before = rate;
        rate = rp.increase_timer(300 * US, rate, LINE, &c);
        assert_eq!(rate, (before / 2 + (LINE + c.ai_bps) / 2).min(LINE));
        assert_eq!(rp.stage, Stage::Active);
        // the byte counter is too large to count (300 MB): never hyper
        for step in 6..100u64 {
            for _ in 0..100 {
                rate = rp.sent(1048, rate, LINE, &c);
            }
            rate = rp.increase_timer(step * 60 * US, rate, LINE, &c);
        }
        assert_eq!((rp.stage, rp.byte_stage), (Stage::Active, 0));
    }

    #[test]
    fn the_target_follows_the_rate_down_and_climbs_by_ai() {
        let c = cfg();
        let mut rp = ReactionPoint::new(&c, LINE);
        let mut rate = rp.cnp(0, LINE, &c);
        for step in 1..=4u64 {
            rate = rp.increase_timer(step * 60 * US, rate, LINE, &c);
        }
        // a second CNP: the target becomes the rate now, below the line
        let t = rate;
        rate = rp.cnp(250 * US, rate, &c);
        assert_eq!(rp.target_bps, t);
        assert!(rate < t);
        // fast recovery back towards t, then t + AI per 60 us
        let cut_gap = t - rate;
        for step in 1..=4u64 {
            rate = rp.increase_timer(250 * US + step * 60 * US, rate, LINE, &c);
        }
        assert!(rate < t && t - rate <= cut_gap / 16 + 2, "four halvings of the gap");
        rate = rp.increase_timer(250 * US + 300 * US, rate, LINE, &c);
        assert_eq!(rp.target_bps, t + c.ai_bps);
        assert!(rate < t + c.ai_bps);
        // alpha decays by (1 - g) per alpha period
        let a = rp.alpha;
        rp.alpha_timer(400 * US, &c);
        assert_eq!(rp.alpha, a * (1.0 - c.g));
    }

    #[test]
    fn both_counts_past_f_turn_hyper_on_a_halved_timer() {
        let c = DcqcnNs3Config { byte_counter_bytes: 10_000, ..cfg() };
        let mut rp = ReactionPoint::new(&c, LINE);
        let mut rate = rp.cnp(0, LINE / 2, &c);
        // five byte events (10 KB each) and five timer steps
        rate = byte_steps(&mut rp, 5, rate, &c);
        assert_eq!(rp.byte_stage, 5);
        assert_eq!(rp.stage, Stage::Active, "the byte count alone reaches F: additive");
        for step in 1..=5u64 {
            rate = rp.increase_timer(step * 60 * US, rate, LINE, &c);
        }
        assert_eq!(rp.stage, Stage::Hyper);
        // the step that turned hyper set a full period; hyper's own steps
        // run at half of it
        assert_eq!(rp.next_increase, Some(360 * US));
        let target = rp.target_bps;
        rp.increase_timer(360 * US, rate, LINE, &c);
        assert_eq!(rp.next_increase, Some(390 * US));
        // 6 timer steps and 5 byte events: HAI x (min(5, 6) - 5 + 1)
        assert_eq!(rp.target_bps, target + c.hai_bps);
    }

    #[test]
    fn without_clamping_the_target_follows_a_cnp_only_after_a_byte_step() {
        let c = DcqcnNs3Config { clamp_target_rate: false, byte_counter_bytes: 10_000, ..cfg() };
        let mut rp = ReactionPoint::new(&c, LINE);
        let r = rp.cnp(0, LINE / 2, &c);
        assert_eq!(rp.target_bps, LINE, "no byte step yet: the target stays");
        // a byte step, then a CNP: now the target is the rate
        byte_steps(&mut rp, 1, r, &c);
        assert_eq!(rp.byte_stage, 1);
        rp.cnp(10 * US, r, &c);
        assert_eq!((rp.target_bps, rp.byte_stage, rp.time_stage), (r, 0, 0));
        // the CNP restarted both timers from its time
        assert_eq!((rp.next_alpha, rp.next_increase), (Some(65 * US), Some(70 * US)));
    }

    #[test]
    fn the_active_byte_path_stays_additive_and_hyper_counts_half() {
        let c = DcqcnNs3Config { byte_counter_bytes: 10_000, ..cfg() };
        let mut rp = ReactionPoint::new(&c, LINE);
        let mut rate = rp.cnp(0, LINE / 2, &c);
        // five byte steps make the stage active; more byte steps, with
        // the timer count still 0, only add AI
        rate = byte_steps(&mut rp, 8, rate, &c);
        assert_eq!((rp.stage, rp.byte_stage), (Stage::Active, 8));
        // five timer steps turn it hyper; then a byte step comes after
        // half the counter (5,000 bytes: 6 packets of 1,000)
        for step in 1..=5u64 {
            rate = rp.increase_timer(step * 60 * US, rate, LINE, &c);
        }
        assert_eq!(rp.stage, Stage::Hyper);
        rate = byte_steps(&mut rp, 1, rate, &c);
        assert_eq!(rp.byte_stage, 9);
        for _ in 0..6 {
            rate = rp.sent(1000, rate, LINE, &c);
        }
        assert_eq!(rp.byte_stage, 10, "hyper's byte counter is half");
    }

    #[test]
    fn a_far_target_is_cut_to_an_eighth_at_a_first_step() {
        // (unreachable with the target clamped at each CNP, which keeps it
        // within 2x the rate: set by hand)
        let c = DcqcnNs3Config { min_rate_bps: 1_000_000_000, ..cfg() };
        let mut rp = ReactionPoint::new(&c, LINE);
        rp.target_bps = LINE;
        rp.stage = Stage::Fast;
        let rate = rp.increase_timer(60 * US, 1_000_000_000, LINE, &c);
        assert_eq!(rp.target_bps, LINE / 8);
        assert_eq!(rate, 1_000_000_000 / 2 + LINE / 16);
    }
}
