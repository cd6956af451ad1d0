//! L2DCT (Munir et al., INFOCOM'15) as the PIAS ns-2 scripts run it:
//! DCTCP's alpha, with a weight w from the bytes the flow has sent (w_max
//! up to size_min, w_min from size_max, linear between): an echo cuts the
//! window by alpha^w / 2 (small flows back off less), and congestion
//! avoidance adds w / w_max packets per window of ACKs; with
//! `ns2_double_count`, the PIAS ns-2 code's increase, which counts most
//! ACKs twice (about two packets per window whatever w).

use super::dctcp::Dctcp;
use super::{Kept, Sent, Window, WindowLaw};
use crate::schemes::tcp::AckInfo;
use crate::time::Time;

#[derive(Clone, Copy, Debug)]
pub struct L2dct {
    pub dctcp: Dctcp,
    pub w_min: f64,
    pub w_max: f64,
    pub size_min: u64,
    pub size_max: u64,
    pub ns2_double_count: bool,
}

impl L2dct {
    /// The weight of a flow that has sent `sent` bytes (ns-2
    /// `ndatabytes_`, retransmissions included).
    fn weight(&self, sent: u64) -> f64 {
        if sent <= self.size_min {
            self.w_max
        } else if sent >= self.size_max {
            self.w_min
        } else {
            self.w_max - (sent - self.size_min) as f64 * (self.w_max - self.w_min) / (self.size_max - self.size_min) as f64
        }
    }
}

impl WindowLaw for L2dct {
    #[inline]
    fn observe(&mut self, ack: &AckInfo, sent: &Sent) {
        self.dctcp.observe(ack, sent);
    }

    /// w / w_max packets per window of ACKs (L2DCT §3); the PIAS ns-2 code
    /// (tcp.cc `opencwnd`) counts the ACK again when that test fails and
    /// then tests the count alone.
    fn grow(&mut self, _now: Time, w: &mut Window, sent: &Sent) {
        let gain = self.weight(sent.bytes) / self.w_max;
        w.ca_acks += 1;
        if w.ca_acks as f64 * gain >= w.cwnd {
            w.ca_acks = 0;
            w.cwnd += 1.0;
        } else if self.ns2_double_count {
            w.ca_acks += 1;
            if w.ca_acks as f64 >= w.cwnd {
                w.ca_acks = 0;
                w.cwnd += 1.0;
            }
        }
    }

    fn go_back(&mut self, snd_una: u32) {
        self.dctcp.go_back(snd_una);
    }

    fn echo_cut(&mut self, w: &mut Window, sent: &Sent) -> f64 {
        w.cwnd * (1.0 - self.dctcp.alpha.powf(self.weight(sent.bytes)) / 2.0)
    }

    fn kept(&self) -> Kept {
        self.dctcp.kept()
    }
}
