//! TCP's window laws, apart from delivery (STYLE_ANCHORS: ns-3's and
//! smoltcp's congestion controllers). The sender (`sender.rs`) owns
//! sequence numbers, the SACK scoreboard, recovery, slow start and timers;
//! a law decides only what the window does in congestion avoidance, on an
//! ECN echo, on a loss and on a timeout, from what the sender tells it.
//!
//! A law is a module here with one type, and one arm of `Law` (chosen by
//! `config::Cc`); its hooks default to Reno's behaviour:
//! - `reno`: NewReno (RFC 5681, RFC 3168 for echoes), ns-2's counting;
//! - `dctcp`: DCTCP's alpha and its cut (SIGCOMM'10 §3.1);
//! - `l2dct`: L2DCT's weighted DCTCP (INFOCOM'15), as the PIAS scripts run it;
//! - `cubic`: CUBIC (RFC 8312) as Linux 3.18 runs it.
//!
//! pFabric's minimal rate control is not a window law: it is Reno's window
//! with pFabric's timer (a fixed timeout, no backoff, probe mode: `rto.rs`).

pub mod cubic;
pub mod dctcp;
pub mod l2dct;
pub mod line_rate;
pub mod reno;

use super::AckInfo;
use crate::config::Cc;
use crate::time::Time;

/// What the sender tells a law when it asks it something.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    /// The oldest unacknowledged segment, before the ACK at hand moves it.
    pub snd_una: u32,
    /// The next segment to send in sequence.
    pub snd_nxt: u32,
    /// Payload bytes the flow has sent, retransmissions included (ns-2's
    /// `ndatabytes_`, in whole segments).
    pub bytes: u64,
}

/// The window and its congestion-avoidance count (ns-2's `count_`: ACKs
/// towards the next one-packet increase), which a law may change.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub cwnd: f64,
    pub ca_acks: u32,
}

/// What a law keeps from one flow to the next on a reused connection.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Kept {
    /// DCTCP's (and L2DCT's) alpha.
    pub alpha: f64,
    /// CUBIC's window before its last reduction.
    pub w_max: f64,
}

/// A window law's hooks. Each has Reno's behaviour by default.
pub trait WindowLaw {
    /// Every ACK (before the sender acts on it).
    fn observe(&mut self, _ack: &AckInfo, _sent: &Sent) {}

    /// An ACK of new data in congestion avoidance, at `now`.
    fn grow(&mut self, _now: Time, w: &mut Window, _sent: &Sent) {
        reno::grow(w);
    }

    /// An ECN echo, at most once per window: the new window (before its
    /// floor of one packet).
    fn echo_cut(&mut self, w: &mut Window, _sent: &Sent) -> f64 {
        w.cwnd / 2.0
    }

    /// Fast retransmit with `flight` segments out: the new ssthresh.
    fn loss_ssthresh(&mut self, _w: &mut Window, flight: f64) -> f64 {
        (flight / 2.0).max(2.0)
    }

    /// A retransmission timeout: the new ssthresh, or None to keep it.
    /// `first`: the first timeout since progress; `reducing`: in a
    /// recovery or an echo's window; `last_cut_echo`: the last cut was an
    /// ECN reaction.
    fn timeout_ssthresh(&mut self, cwnd: f64, _first: bool, _reducing: bool, last_cut_echo: bool) -> Option<f64> {
        // ns-2 `timeout_action`: half the window, unless the last cut was
        // an ECN reaction
        (!last_cut_echo).then(|| (cwnd / 2.0).floor().max(2.0))
    }

    /// The window a timeout leaves (`cwnd` before it): one packet, slow
    /// start again (RFC 5681 §3.1).
    fn timeout_window(&self, _cwnd: f64) -> f64 {
        1.0
    }

    /// After a timeout, echoes are ignored until what was out is
    /// acknowledged (Linux); ns-2 lets the next echo cut again.
    fn ignores_echoes_after_timeout(&self) -> bool {
        false
    }

    /// A timeout sends again from `snd_una`.
    fn go_back(&mut self, _snd_una: u32) {}

    /// An RTT sample.
    fn rtt_sample(&mut self, _rtt: Time) {}

    /// What the connection keeps for its next flow.
    fn kept(&self) -> Kept {
        Kept::default()
    }
}

/// The law a sender runs, by `Cc` (enum dispatch: no `dyn` on the ACK path).
#[derive(Clone, Debug)]
pub enum Law {
    Reno(reno::Reno),
    Dctcp(dctcp::Dctcp),
    L2dct(l2dct::L2dct),
    Cubic(cubic::CubicLaw),
    LineRate(line_rate::LineRate),
}

macro_rules! each_law {
    ($self:expr, $l:ident => $body:expr) => {
        each_arm!($self, Law[Reno, Dctcp, L2dct, Cubic, LineRate], $l => $body)
    };
}

impl Law {
    /// The law `cc` on a connection that kept `kept` from its last flow.
    pub fn new(cc: &Cc, kept: Kept) -> Law {
        match *cc {
            Cc::Reno => Law::Reno(reno::Reno),
            Cc::Dctcp { g } => Law::Dctcp(dctcp::Dctcp::new(g, kept.alpha)),
            Cc::L2dct { g, w_min, w_max, size_min, size_max, ns2_double_count } => Law::L2dct(l2dct::L2dct {
                dctcp: dctcp::Dctcp::new(g, kept.alpha),
                w_min,
                w_max,
                size_min,
                size_max,
                ns2_double_count,
            }),
            Cc::Cubic { c, beta, fast_convergence, tcp_friendly } => Law::Cubic(cubic::CubicLaw {
                p: cubic::CubicParams { c, beta, fast_convergence, tcp_friendly },
                state: cubic::Cubic::with_w_max(kept.w_max),
            }),
            Cc::LineRate => Law::LineRate(line_rate::LineRate),
        }
    }

    /// DCTCP's (and L2DCT's) estimate of the fraction of marked packets.
    pub fn alpha(&self) -> f64 {
        self.kept().alpha
    }
}

impl WindowLaw for Law {
    #[inline]
    fn observe(&mut self, ack: &AckInfo, sent: &Sent) {
        each_law!(self, l => l.observe(ack, sent))
    }
    #[inline]
    fn grow(&mut self, now: Time, w: &mut Window, sent: &Sent) {
        each_law!(self, l => l.grow(now, w, sent))
    }
    fn echo_cut(&mut self, w: &mut Window, sent: &Sent) -> f64 {
        each_law!(self, l => l.echo_cut(w, sent))
    }
    fn loss_ssthresh(&mut self, w: &mut Window, flight: f64) -> f64 {
        each_law!(self, l => l.loss_ssthresh(w, flight))
    }
    fn timeout_ssthresh(&mut self, cwnd: f64, first: bool, reducing: bool, last_cut_echo: bool) -> Option<f64> {
        each_law!(self, l => l.timeout_ssthresh(cwnd, first, reducing, last_cut_echo))
    }
    fn ignores_echoes_after_timeout(&self) -> bool {
        each_law!(self, l => l.ignores_echoes_after_timeout())
    }
    fn go_back(&mut self, snd_una: u32) {
        each_law!(self, l => l.go_back(snd_una))
    }
    #[inline]
    fn rtt_sample(&mut self, rtt: Time) {
        each_law!(self, l => l.rtt_sample(rtt))
    }
    fn kept(&self) -> Kept {
        each_law!(self, l => l.kept())
    }
    fn timeout_window(&self, cwnd: f64) -> f64 {
        each_law!(self, l => l.timeout_window(cwnd))
    }
}
