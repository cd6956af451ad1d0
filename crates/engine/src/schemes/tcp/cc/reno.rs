//! NewReno's window law (RFC 5681, RFC 6582) as ns-2 counts it: in
//! congestion avoidance one packet per window of ACKs of new data (ns-2
//! `windowOption_ 0`, no byte counting); an ECN echo halves the window
//! (RFC 3168 §6.1.2); a loss halves the flight; a timeout halves the window
//! unless the last cut was an ECN reaction (ns-2 `timeout_action`). Every
//! hook is the trait's default: Reno is the baseline the other laws change.

use super::{Window, WindowLaw};

#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

impl WindowLaw for Reno {}

/// One packet per window of ACKs (ns-2's `count_`), the increase Reno and
/// DCTCP share.
#[inline]
pub fn grow(w: &mut Window) {
    w.ca_acks += 1;
    if w.ca_acks as f64 >= w.cwnd {
        w.ca_acks = 0;
        w.cwnd += 1.0;
    }
}
