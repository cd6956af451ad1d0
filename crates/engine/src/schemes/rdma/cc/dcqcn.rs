//! DCQCN (Zhu et al., SIGCOMM'15), Mellanox's version as the HPCC
//! simulator has it (`rdma-hw.cc`, the `mlx` fields and
//! `cnp_received_mlx`, `UpdateAlphaMlx`, `CheckRateDecreaseMlx`,
//! `RateIncEventTimerMlx`): an echoed mark is a notification; alpha, the
//! rate decrease and the rate increase each run on a timer of their own.

use super::timer;
use super::{Feedback, Pacing, RateLaw};
use crate::config::{RdmaCc, RdmaConfig};
use crate::packet::flags;
use crate::time::Time;

#[derive(Clone, Copy, Debug, Default)]
pub struct Dcqcn {
    pub target_bps: u64,
    alpha: f64,
    alpha_cnp: bool,
    decrease_cnp: bool,
    first_cnp: bool,
    stage: u32,
    next_alpha: Option<Time>,
    next_decrease: Option<Time>,
    next_increase: Option<Time>,
}

impl Dcqcn {
    pub fn new() -> Dcqcn {
        Dcqcn { first_cnp: true, ..Dcqcn::default() }
    }
}

impl RateLaw for Dcqcn {
    /// A notification (`cnp_received_mlx`): on the first, alpha = 1 and
    /// the alpha and decrease timers start; the rate is cut at the next
    /// decrease check.
    fn on_ack(&mut self, fb: &Feedback, p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::Dcqcn(d) = &cfg.cc else { return };
        if !fb.ack.has(flags::ECE) {
            return;
        }
        self.alpha_cnp = true;
        self.decrease_cnp = true;
        if self.first_cnp {
            self.alpha = 1.0;
            self.alpha_cnp = false;
            self.next_alpha = Some(fb.now + d.alpha_interval_ps);
            // 1 ns later, so that a decrease follows the alpha update
            self.next_decrease = Some(fb.now + d.decrease_interval_ps + 1000);
            p.rate_bps = (p.rate_bps as f64 * d.rate_on_first_cnp) as u64;
            self.target_bps = p.rate_bps;
            self.first_cnp = false;
        }
    }

    fn timer_kinds(&self) -> u8 {
        4
    }

    fn deadline(&self, kind: u8) -> Option<Time> {
        match kind {
            timer::ALPHA => self.next_alpha,
            timer::DECREASE => self.next_decrease,
            _ => self.next_increase,
        }
    }

    fn on_timer(&mut self, now: Time, kind: u8, _expected: u32, p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::Dcqcn(d) = &cfg.cc else { return };
        match kind {
            timer::ALPHA => {
                self.alpha = (1.0 - d.g) * self.alpha + if self.alpha_cnp { d.g } else { 0.0 };
                self.alpha_cnp = false;
                self.next_alpha = Some(now + d.alpha_interval_ps);
            }
            timer::DECREASE => {
                self.next_decrease = Some(now + d.decrease_interval_ps);
                if self.decrease_cnp {
                    if d.clamp_target_rate || self.stage != 0 {
                        self.target_bps = p.rate_bps;
                    }
                    p.rate_bps = d.min_rate_bps.max((p.rate_bps as f64 * (1.0 - self.alpha / 2.0)) as u64);
                    self.stage = 0;
                    self.decrease_cnp = false;
                    self.next_increase = Some(now + d.increase_interval_ps);
                }
            }
            _ => {
                self.next_increase = Some(now + d.increase_interval_ps);
                // fast recovery, then additive, then hyper increase
                if self.stage == d.fast_recovery_times {
                    self.target_bps = (self.target_bps + d.ai_bps).min(p.line_bps);
                } else if self.stage > d.fast_recovery_times {
                    self.target_bps = (self.target_bps + d.hai_bps).min(p.line_bps);
                }
                p.rate_bps = p.rate_bps / 2 + self.target_bps / 2;
                self.stage += 1;
            }
        }
    }
}
