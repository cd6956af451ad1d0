//! HPCC (Li et al., SIGCOMM'19) as the HPCC simulator runs it
//! (`HandleAckHp`, `UpdateRateHp`, with fast reaction and one rate for all
//! hops): from the in-band telemetry each ACK carries back
//! (`../telemetry.rs`), the normalized in-flight bytes of each hop
//! (U = tx rate / link rate + queue / (link rate x T)), the most loaded
//! hop's folded into an average over T; the rate follows on every ACK, and
//! the reference rate and stage it starts from move once per RTT.

use super::{Feedback, Pacing, RateLaw};
use crate::config::{HpccConfig, RdmaCc, RdmaConfig};
use crate::schemes::rdma::telemetry::{IntHop, MAX_INT_HOPS};
use crate::time::Time;

#[derive(Clone, Copy, Debug)]
pub struct Hpcc {
    /// Updates of the reference rate wait for the ACK of this packet.
    last_update_seq: Option<u32>,
    hops: [IntHop; MAX_INT_HOPS],
    pub u: f64,
    cur_bps: u64,
    stage: u32,
    /// T and W: the flow's own base RTT and BDP (`RdmaConfig::pair_rtt`),
    /// else the network's (resolved before the run).
    t: Time,
    w: u64,
}

impl Hpcc {
    pub fn new(h: &HpccConfig, line_bps: u64, pair: Option<(Time, u64)>) -> Hpcc {
        let (t, w) = pair.unwrap_or_else(|| {
            (h.base_rtt_ps.expect("resolved before the run"), h.window_bytes.expect("resolved before the run"))
        });
        Hpcc { last_update_seq: None, hops: [IntHop::default(); MAX_INT_HOPS], u: 1.0, cur_bps: line_bps, stage: 0, t, w }
    }
}

impl RateLaw for Hpcc {
    fn on_ack(&mut self, fb: &Feedback, p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::Hpcc(h) = &cfg.cc else { return };
        let (int, ack_seq) = (fb.telemetry, fb.ack.seq);
        let n = int.len().min(MAX_INT_HOPS);
        let Some(last) = self.last_update_seq else {
            // the first ACK only keeps the telemetry
            self.last_update_seq = Some(fb.snd_nxt);
            self.hops[..n].copy_from_slice(&int[..n]);
            return;
        };
        let full = ack_seq > last;
        let (mut umax, mut dt) = (0.0f64, 0u64);
        for (i, hop) in int[..n].iter().enumerate() {
            let prev = self.hops[i];
            let tau = hop.ts.saturating_sub(prev.ts);
            let tx = (hop.tx_bytes.saturating_sub(prev.tx_bytes)) as f64 * 8.0 / (tau.max(1) as f64 * 1e-12);
            let q = hop.qlen.min(prev.qlen) as f64;
            let u = tx / hop.rate_bps as f64 + q * p.line_bps as f64 / hop.rate_bps as f64 / self.w as f64;
            if u > umax {
                umax = u;
                dt = tau;
            }
            self.hops[i] = *hop;
        }
        if n > 0 {
            let t = self.t;
            let dt = dt.min(t);
            self.u = (self.u * (t - dt) as f64 + umax * dt as f64) / t as f64;
            let max_c = self.u / h.eta;
            let (rate, stage) = if max_c >= 1.0 || self.stage >= h.max_stage {
                ((self.cur_bps as f64 / max_c) as u64 + h.rai_bps, 0)
            } else {
                (self.cur_bps + h.rai_bps, self.stage + 1)
            };
            let rate = rate.clamp(h.min_rate_bps.min(p.line_bps), p.line_bps);
            p.change_rate(rate);
            if full {
                self.cur_bps = rate;
                self.stage = stage;
            }
        }
        if full {
            self.last_update_seq = Some(fb.snd_nxt.max(last));
        }
    }
}
