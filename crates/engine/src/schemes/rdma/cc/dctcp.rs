//! DCTCP as the HPCC simulator runs it on RDMA NICs (`HandleAckDctcp`),
//! counted in packets where the simulator counts bytes: once per window
//! of packets, alpha moves towards the fraction of them that came back
//! marked (gain g); a mark outside a reduced window cuts the rate by
//! alpha/2 and starts one; a window without a cut adds `rai`. The window
//! follows the rate (W x rate / line rate).
//!
//! Slow start (not in the simulator; BFC App. A.6's DCTCP + SS): from an
//! initial window of `init_window_pkts`, each newly acknowledged packet
//! adds one to the window (it doubles every round trip) until the first
//! mark, a NACK or a timeout.

use super::{Feedback, Pacing, RateLaw};
use crate::config::{DctcpRdmaConfig, RdmaCc, RdmaConfig};
use crate::packet::flags;

#[derive(Clone, Copy, Debug)]
pub struct Dctcp {
    pub alpha: f64,
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
    pub slow_start: bool,
}

impl Dctcp {
    /// The law, and the rate it starts at: the line rate, or with slow
    /// start the rate whose window (W x rate / line rate) is the initial
    /// window, rounded up so that it holds all of it.
    pub fn new(d: &DctcpRdmaConfig, cfg: &RdmaConfig) -> (Dctcp, u64) {
        let line = cfg.line_rate_bps;
        let mut rate = line;
        if let (Some(iw), Some(w)) = (d.init_window_pkts, cfg.window_bytes) {
            let mss = cfg.mss_bytes as u128;
            rate = ((line as u128 * (iw as u128 * mss)).div_ceil(w.max(1) as u128) as u64).min(line);
        }
        // alpha starts at 1 (the simulator's `RdmaQueuePair`)
        let law = Dctcp { alpha: 1.0, marks: 0, batch: 0, last_update_seq: None, cwr: false, high_seq: 0, slow_start: rate < line };
        (law, rate)
    }
}

impl RateLaw for Dctcp {
    fn on_ack(&mut self, fb: &Feedback, p: &mut Pacing, cfg: &RdmaConfig) {
        let RdmaCc::Dctcp(d) = &cfg.cc else { return };
        let (ack, snd_nxt) = (fb.ack, fb.snd_nxt);
        let mark = ack.has(flags::ECE);
        self.marks += mark as u32;
        let mut new_batch = false;
        match self.last_update_seq {
            Some(last) if ack.seq > last => {
                new_batch = true;
                let frac = (self.marks as f64 / self.batch.max(1) as f64).min(1.0);
                self.alpha = (1.0 - d.g) * self.alpha + d.g * frac;
                self.last_update_seq = Some(snd_nxt);
                self.marks = 0;
                self.batch = snd_nxt.saturating_sub(ack.seq) + 1;
            }
            Some(_) => {}
            None => {
                // the first ACK: the first window ends at what is sent now
                new_batch = true;
                self.last_update_seq = Some(snd_nxt);
                self.batch = snd_nxt + 1;
            }
        }
        if self.cwr && ack.seq > self.high_seq {
            self.cwr = false;
        }
        if self.slow_start && (mark || ack.has(flags::NACK)) {
            self.slow_start = false;
        }
        let mut rate = p.rate_bps;
        if mark && !self.cwr {
            rate = d.min_rate_bps.max((rate as f64 * (1.0 - self.alpha / 2.0)) as u64);
            self.cwr = true;
            self.high_seq = snd_nxt;
        } else if self.slow_start {
            let w = cfg.window_bytes.expect("resolved before the run").max(1) as u128;
            let more = (p.line_bps as u128 * fb.newly_acked as u128 * cfg.mss_bytes as u128 / w) as u64;
            rate = rate.saturating_add(more).min(p.line_bps);
            self.slow_start = rate < p.line_bps;
        } else if !self.cwr && new_batch {
            rate = (rate + d.rai_bps).min(p.line_bps);
        }
        // set directly, as the simulator does for DCTCP (the packet already
        // paced keeps its time; `change_rate` is HPCC's)
        p.rate_bps = rate;
    }

    fn on_timeout(&mut self) {
        self.slow_start = false;
    }
}
