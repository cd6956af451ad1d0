//! BFC's simple end-to-end control (NSDI'22 App. A.1, Algorithm 1, BFC +
//! CC): a window that steers each ACK's RTT towards a target, at line
//! rate. Above the target (`target_factor` x the base RTT) the window falls
//! by (RTT - target) / RTT packets, below it grows by (target - RTT) / RTT,
//! so within an RTT it goes from w to about w x target / RTT. The paper
//! gives no bounds: we keep it between one packet and the target RTT's BDP
//! (more could not be in flight at the target RTT and line rate).

use super::{Feedback, Pacing, RateLaw};
use crate::config::{RdmaCc, RdmaConfig};

#[derive(Clone, Copy, Debug)]
pub struct Delay {
    /// The window, packets; it starts at one BDP (Algorithm 1).
    pub w: f64,
}

impl Delay {
    pub fn new(cfg: &RdmaConfig) -> Delay {
        Delay { w: cfg.window_bytes.unwrap_or(0) as f64 / cfg.mss_bytes as f64 }
    }
}

impl RateLaw for Delay {
    fn on_ack(&mut self, fb: &Feedback, _p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::Delay(d) = &cfg.cc else { return };
        let rtt = fb.now.saturating_sub(fb.ack.ts);
        let t = d.base_rtt_ps.expect("resolved before the run") as f64;
        let target = d.target_factor * t;
        let rtt = (rtt as f64).max(1.0);
        let bdp = cfg.window_bytes.expect("resolved before the run") as f64 / cfg.mss_bytes as f64;
        self.w = (self.w + (target - rtt) / rtt).clamp(1.0, (bdp * d.target_factor).max(1.0));
    }

    fn window_bytes(&self, cfg: &RdmaConfig) -> Option<u64> {
        Some(((self.w * cfg.mss_bytes as f64) as u64).max(1))
    }
}
