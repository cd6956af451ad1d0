//! No rate control: pFabric "at line rate", the HotNets'12 version's
//! second curve (Alizadeh et al., "Deconstructing Datacenter Packet
//! Transport"; the CS244 '13 reproduction's Fig. 2). A flow keeps its
//! initial window (pFabric's one BDP, what fills the line alone) from its
//! first packet to its last: no growth (its window cap is that window), no
//! cut on an echo, and no slow start after a timeout, which only sends
//! again what is missing (docs/schemes.md, pfabric).

use super::{Window, WindowLaw};

#[derive(Clone, Copy, Debug, Default)]
pub struct LineRate;

impl WindowLaw for LineRate {
    fn grow(&mut self, _now: crate::time::Time, _w: &mut Window, _sent: &super::Sent) {}

    fn echo_cut(&mut self, w: &mut Window, _sent: &super::Sent) -> f64 {
        w.cwnd
    }

    fn timeout_ssthresh(&mut self, _cwnd: f64, _first: bool, _reducing: bool, _last_cut_echo: bool) -> Option<f64> {
        None
    }

    fn timeout_window(&self, cwnd: f64) -> f64 {
        cwnd
    }
}
