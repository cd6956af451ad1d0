//! The retransmission timer: RFC 6298's estimate from RTT samples, with a
//! floor and a ceiling and exponential backoff; or pFabric's minimal rate
//! control (§4.2; ns-2's MinTCP agent, which the PIAS scripts run for
//! every scheme): a fixed timeout, no RTT estimate, no backoff. pFabric's
//! other half, probe mode (after `probe_after` timeouts in a row only a
//! one-byte probe per timeout until the receiver answers), is the
//! sender's (`sender.rs`).

use crate::config::TcpConfig;
use crate::time::Time;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rto {
    pub srtt: f64,
    pub rttvar: f64,
    /// The timeout.
    pub rto: Time,
}

impl Rto {
    /// A new connection's: the initial timeout, no estimate yet.
    pub fn fresh(cfg: &TcpConfig) -> Rto {
        Rto { srtt: 0.0, rttvar: 0.0, rto: cfg.init_rto_ps }
    }

    /// What a flow starts from on a connection that kept this one.
    pub fn on_conn(self, cfg: &TcpConfig) -> Rto {
        Rto { rto: if cfg.fixed_rto { cfg.min_rto_ps } else { self.rto }, ..self }
    }

    /// An RTT sample of `r` (RFC 6298 (2.2), (2.3)).
    pub fn sample(&mut self, r: Time, cfg: &TcpConfig) {
        if cfg.fixed_rto {
            return; // pFabric: the timeout is fixed, no estimate (§4.2)
        }
        let r = r as f64;
        if self.srtt == 0.0 {
            self.srtt = r;
            self.rttvar = r / 2.0;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
        let rto = (self.srtt + 4.0 * self.rttvar) as Time;
        self.rto = rto.clamp(cfg.min_rto_ps, cfg.max_rto_ps);
    }

    /// A timeout doubles the next one (RFC 6298 (5.5)), up to the ceiling;
    /// pFabric's does not move.
    pub fn back_off(&mut self, cfg: &TcpConfig) {
        if !cfg.fixed_rto {
            self.rto = (self.rto * 2).min(cfg.max_rto_ps);
        }
    }
}
