//! DCTCP's window law (Alizadeh et al., SIGCOMM'10 §3.1; ns-2 `ecnhat_`):
//! alpha, the moving average (gain g) of the fraction of acknowledged
//! segments that came back marked, measured once per window; an echo cuts
//! the window by alpha/2 (once per window, as Reno's). Growth, losses and
//! timeouts are Reno's.

use super::{Kept, Sent, Window, WindowLaw};
use crate::schemes::tcp::AckInfo;

#[derive(Clone, Copy, Debug)]
pub struct Dctcp {
    g: f64,
    pub alpha: f64,
    /// The window being measured: segments acknowledged and marked, and
    /// the segment whose acknowledgement closes it.
    win_acked: u32,
    win_marked: u32,
    pub(crate) alpha_seq: u32,
}

impl Dctcp {
    /// DCTCP with gain `g`, from `alpha` (a reused connection keeps it).
    pub fn new(g: f64, alpha: f64) -> Dctcp {
        Dctcp { g, alpha, win_acked: 0, win_marked: 0, alpha_seq: 0 }
    }
}

impl WindowLaw for Dctcp {
    /// Count acknowledged and marked segments (a duplicate ACK counts one);
    /// once the ACKs pass the end of the window being measured, fold its
    /// fraction into alpha and start measuring the data sent since.
    #[inline]
    fn observe(&mut self, ack: &AckInfo, sent: &Sent) {
        let n = if ack.ackno > sent.snd_una { ack.ackno - sent.snd_una } else { 1 };
        self.win_acked += n;
        if ack.ece {
            self.win_marked += n;
        }
        if ack.ackno > self.alpha_seq {
            let frac = self.win_marked as f64 / self.win_acked.max(1) as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * frac;
            self.win_acked = 0;
            self.win_marked = 0;
            self.alpha_seq = sent.snd_nxt;
        }
    }

    /// A timeout: the window being measured ends where sending starts again.
    fn go_back(&mut self, snd_una: u32) {
        self.alpha_seq = snd_una;
    }

    fn echo_cut(&mut self, w: &mut Window, _sent: &Sent) -> f64 {
        w.cwnd * (1.0 - self.alpha / 2.0)
    }

    fn kept(&self) -> Kept {
        Kept { alpha: self.alpha, ..Kept::default() }
    }
}
