//! CUBIC's window law (RFC 8312; Ha, Rhee and Xu, SIGOPS OSR 2008) as
//! Linux 3.18's `tcp_cubic.c` runs it, the kernel of the PIAS testbed
//! (PIAS ToN'17 §V-A): the TCP-DropTail baseline of its testbed figures ran
//! Linux's default congestion control, which is CUBIC.
//!
//! In congestion avoidance the window follows `W(t) = C (t - K)^3 + W_max`,
//! `t` the time since the last reduction plus the smallest RTT seen (Linux
//! aims one RTT ahead), `K` the time to climb back to `W_max`, the window
//! before that reduction. It grows by one packet per `cnt` ACKs, `cnt`
//! chosen to reach `W(t)` in about an RTT, and at least as fast as Reno
//! would with CUBIC's backoff (the TCP-friendly estimate, RFC 8312 §4.2).
//! A loss or an ECN echo multiplies the window by `beta`; with fast
//! convergence a flow that lost below its last `W_max` lowers it further
//! (§4.6). A timeout forgets everything (Linux `bictcp_reset` on entering
//! the Loss state).
//!
//! What differs from the kernel (docs/schemes.md, `tcp`, lists each with
//! its effect): time is the simulation's picoseconds, not jiffies, and
//! `W(t)` is recomputed on every ACK (Linux skips the update for 1/32 s
//! while the window does not change, so after a cut at datacenter RTTs its
//! window sits flat for milliseconds and then jumps); every ACK
//! acknowledges one packet here and `cnt` is not divided by the kernel's
//! estimate of packets per ACK; HyStart is not modelled (slow start ends
//! at a loss, as Reno's). At datacenter RTTs `K` is seconds long, so the
//! cubic term moves the window by a tiny fraction of a packet per round
//! trip, and the long-run growth is the TCP-friendly estimate's (tested
//! below).

use super::{Kept, Sent, Window, WindowLaw};
use crate::time::{Time, PS_PER_S};

/// CUBIC's constants (RFC 8312 §5; Linux: `bic_scale` 41 gives C = 0.4,
/// `beta` 717/1024).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    /// Scaling constant C, packets per second cubed.
    pub c: f64,
    /// Multiplicative decrease: the window after a reduction, as a fraction.
    pub beta: f64,
    /// RFC 8312 §4.6: a flow reduced below its last `W_max` lowers it further.
    pub fast_convergence: bool,
    /// RFC 8312 §4.2: grow at least as fast as the Reno-friendly estimate.
    pub tcp_friendly: bool,
}

/// CUBIC's state for one sender. Plain data: the sender calls it at each
/// ACK in congestion avoidance, at each reduction and at a timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cubic {
    /// The window before the last reduction (Linux `last_max_cwnd`); zero
    /// after a timeout or at the start.
    pub w_max: f64,
    /// When the current epoch of growth began (None: at the next ACK).
    epoch_start: Option<Time>,
    /// Seconds from the epoch's start to `w_max`, and the window there.
    k_s: f64,
    origin: f64,
    /// The Reno-friendly estimate and the ACKs counted towards it.
    w_est: f64,
    est_acks: f64,
    /// The smallest RTT seen, seconds (Linux `delay_min`).
    rtt_min_s: f64,
}

impl Cubic {
    /// A sender's state on a connection that kept `w_max` from its last
    /// flow (a new epoch starts at the first ACK in congestion avoidance).
    pub fn with_w_max(w_max: f64) -> Cubic {
        Cubic { w_max, ..Cubic::default() }
    }

    /// An RTT sample (the kernel's `delay_min`, kept from every ACK).
    pub fn rtt_sample(&mut self, rtt: Time) {
        let s = rtt as f64 / PS_PER_S as f64;
        if s > 0.0 && (self.rtt_min_s == 0.0 || s < self.rtt_min_s) {
            self.rtt_min_s = s;
        }
    }

    /// ACKs per one-packet increase of a window of `cwnd` packets in
    /// congestion avoidance at `now` (Linux `bictcp_update`'s `cnt`).
    pub fn acks_per_increase(&mut self, now: Time, cwnd: f64, p: &CubicParams) -> f64 {
        let epoch = match self.epoch_start {
            Some(t) => {
                self.est_acks += 1.0;
                t
            }
            None => {
                self.epoch_start = Some(now);
                self.est_acks = 1.0;
                self.w_est = cwnd;
                if self.w_max <= cwnd {
                    (self.k_s, self.origin) = (0.0, cwnd);
                } else {
                    (self.k_s, self.origin) = (((self.w_max - cwnd) / p.c).cbrt(), self.w_max);
                }
                now
            }
        };
        let t = (now - epoch) as f64 / PS_PER_S as f64 + self.rtt_min_s;
        let target = self.origin + p.c * (t - self.k_s).powi(3);
        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100.0 * cwnd };
        if self.w_max == 0.0 {
            // no loss yet: at least 5% a round trip while the bandwidth is unknown
            cnt = cnt.min(20.0);
        }
        if p.tcp_friendly {
            // Reno with CUBIC's backoff: 3 (1 - beta) / (1 + beta) packets per RTT
            let per_increase = cwnd * (1.0 + p.beta) / (3.0 * (1.0 - p.beta));
            while self.est_acks > per_increase {
                self.est_acks -= per_increase;
                self.w_est += 1.0;
            }
            if self.w_est > cwnd {
                cnt = cnt.min(cwnd / (self.w_est - cwnd));
            }
        }
        cnt.max(1.0)
    }

    /// A loss or an ECN echo with the window at `cwnd`: the new ssthresh
    /// (`cwnd` times beta, at least 2), and a new epoch from it.
    pub fn reduce(&mut self, cwnd: f64, p: &CubicParams) -> f64 {
        self.epoch_start = None;
        self.w_max = if p.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + p.beta) / 2.0 } else { cwnd };
        (cwnd * p.beta).max(2.0)
    }

    /// A retransmission timeout: everything is forgotten (Linux resets
    /// CUBIC on entering the Loss state, after taking its ssthresh).
    pub fn reset(&mut self) {
        *self = Cubic::default();
    }
}

/// CUBIC as a sender's window law: its constants and state.
#[derive(Clone, Copy, Debug)]
pub struct CubicLaw {
    pub p: CubicParams,
    pub state: Cubic,
}

impl WindowLaw for CubicLaw {
    /// Linux 3.18 `tcp_cong_avoid_ai` with the integer `cnt`: the count is
    /// tested before it is raised, so +1 every cnt + 1 ACKs.
    fn grow(&mut self, now: Time, w: &mut Window, _sent: &Sent) {
        let cnt = self.state.acks_per_increase(now, w.cwnd, &self.p).floor();
        if w.ca_acks as f64 >= cnt {
            w.ca_acks = 0;
            w.cwnd += 1.0;
        } else {
            w.ca_acks += 1;
        }
    }

    /// Linux's CUBIC takes an echo as a loss: beta of the window (and
    /// `tcp_init_cwnd_reduction` clears the count).
    fn echo_cut(&mut self, w: &mut Window, _sent: &Sent) -> f64 {
        w.ca_acks = 0;
        self.state.reduce(w.cwnd, &self.p)
    }

    /// Linux: beta of the window (`bictcp_recalc_ssthresh`).
    fn loss_ssthresh(&mut self, w: &mut Window, _flight: f64) -> f64 {
        w.ca_acks = 0;
        self.state.reduce(w.cwnd, &self.p).floor()
    }

    /// Linux `tcp_enter_loss`: a new ssthresh from CUBIC only on the first
    /// timeout since progress, outside a recovery or an echo's window
    /// (else the one set then stands); then CUBIC starts over
    /// (`bictcp_state`, Loss).
    fn timeout_ssthresh(&mut self, cwnd: f64, first: bool, reducing: bool, _last_cut_echo: bool) -> Option<f64> {
        let ssthresh = (first && !reducing).then(|| self.state.reduce(cwnd, &self.p).floor());
        self.state.reset();
        ssthresh
    }

    fn ignores_echoes_after_timeout(&self) -> bool {
        true
    }

    fn rtt_sample(&mut self, rtt: Time) {
        self.state.rtt_sample(rtt);
    }

    fn kept(&self) -> Kept {
        Kept { w_max: self.state.w_max, ..Kept::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINUX: CubicParams = CubicParams { c: 0.4, beta: 0.7, fast_convergence: true, tcp_friendly: true };
    const US: Time = 1_000_000;

    /// Grow a window from `cwnd` for `rtts` round trips of `rtt`, one ACK
    /// per packet, as a sender in congestion avoidance would.
    fn grow(c: &mut Cubic, mut cwnd: f64, rtt: Time, rtts: u32, p: &CubicParams) -> f64 {
        let mut now = 0;
        let mut count = 0.0;
        c.rtt_sample(rtt);
        for _ in 0..rtts {
            let acks = cwnd as u32;
            for i in 0..acks {
                let t = now + rtt * i as Time / acks as Time;
                count += 1.0;
                if count >= c.acks_per_increase(t, cwnd, p) {
                    count = 0.0;
                    cwnd += 1.0;
                }
            }
            now += rtt;
        }
        cwnd
    }

    #[test]
    fn a_reduction_keeps_beta_of_the_window_and_fast_convergence_lowers_w_max() {
        let mut c = Cubic::default();
        assert_eq!(c.reduce(100.0, &LINUX), 70.0);
        assert_eq!(c.w_max, 100.0);
        // lost again below W_max: W_max = 80 (1 + 0.7) / 2 = 68
        assert_eq!(c.reduce(80.0, &LINUX), 56.0);
        assert!((c.w_max - 68.0).abs() < 1e-12);
        let no_fc = CubicParams { fast_convergence: false, ..LINUX };
        c.reduce(50.0, &no_fc);
        assert_eq!(c.w_max, 50.0);
        assert_eq!(c.reduce(1.0, &LINUX), 2.0, "ssthresh at least 2");
        c.reset();
        assert_eq!(c, Cubic::default());
    }

    #[test]
    fn at_wide_area_rtts_the_window_follows_the_cubic_curve() {
        // W_max 1000, reduced to 700: K = cbrt(300 / 0.4) = 9.09 s; at a
        // 100 ms RTT, after 5 s the curve gives 1000 - 0.4 (9.09 - 5.1)^3
        let p = CubicParams { tcp_friendly: false, ..LINUX };
        let mut c = Cubic::default();
        let w = c.reduce(1000.0, &p);
        let got = grow(&mut c, w, 100_000 * US, 50, &p);
        let k = (300.0f64 / 0.4).cbrt();
        let want = 1000.0 - 0.4 * (k - 5.0 - 0.1).powi(3);
        assert!((got - want).abs() < 0.02 * want, "window {got}, curve {want}");
        // and it plateaus at W_max: at K (91 RTTs) it is there
        let mut c = Cubic::default();
        let w = c.reduce(1000.0, &p);
        let at_k = grow(&mut c, w, 100_000 * US, 91, &p);
        assert!(at_k > 990.0 && at_k < 1010.0, "window {at_k} near W_max 1000 at K");
    }

    #[test]
    fn a_reduction_starts_a_new_epoch() {
        // Back at W_max 1000 after K; a loss there: the curve starts again
        // from about 700 with K about 9 s, so one RTT ahead it asks for
        // about 10 packets more (some 70 ACKs per increase), where the old
        // epoch, past its K, would ask for 300 (2.3: measured by taking the
        // epoch's restart out)
        let p = CubicParams { tcp_friendly: false, ..LINUX };
        let mut c = Cubic::default();
        let w = c.reduce(1000.0, &p);
        let back = grow(&mut c, w, 100_000 * US, 91, &p);
        let w = c.reduce(back, &p);
        let cnt = c.acks_per_increase(91 * 100_000 * US, w, &p);
        let k = ((c.w_max - w) / 0.4f64).cbrt();
        let want = w / (c.w_max - 0.4 * (k - 0.1).powi(3) - w);
        assert!((cnt - want).abs() < 0.01 * want && cnt > 50.0, "cnt {cnt}, a new epoch gives {want}");
    }

    #[test]
    fn at_datacenter_rtts_growth_is_the_reno_friendly_rate() {
        // 135 us RTT (the PIAS testbed): K is seconds, so the cubic term
        // adds nothing in 100 round trips; the TCP-friendly estimate grows
        // 3 (1 - 0.7) / (1 + 0.7) = 0.53 packets per RTT
        let mut c = Cubic::default();
        let w = c.reduce(100.0, &LINUX);
        let got = grow(&mut c, w, 135 * US, 100, &LINUX);
        let per_rtt = (got - w) / 100.0;
        assert!((per_rtt - 0.53).abs() < 0.05, "{per_rtt} packets per RTT");
        // without the estimate, almost nothing
        let p = CubicParams { tcp_friendly: false, ..LINUX };
        let mut c = Cubic::default();
        let w = c.reduce(100.0, &p);
        assert!(grow(&mut c, w, 135 * US, 100, &p) - w < 2.0);
    }

    #[test]
    fn before_any_loss_the_window_grows_at_least_five_percent_per_rtt() {
        let p = CubicParams { tcp_friendly: false, ..LINUX };
        let mut c = Cubic::default();
        let got = grow(&mut c, 100.0, 135 * US, 10, &p);
        // one packet per 20 ACKs: 1.05x per round trip, compounded
        assert!((got / 100.0 - 1.05f64.powi(10)).abs() < 0.05, "{got}");
    }
}
