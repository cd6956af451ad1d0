//! TCP's receiver: which segments have arrived, and the cumulative ACK and
//! SACK block each one gets (ns-2's sinks: an ACK per segment; coalescing
//! is `delayed_ack.rs`'s). Not modeled: SACK reneging, receive windows.

use crate::bitset::Bitset;

/// Receiver state of one flow: which segments have arrived.
#[derive(Debug)]
pub struct TcpReceiver {
    pub n_segs: u32,
    /// Next segment expected in order.
    pub cum: u32,
    /// Segments held above `cum` (received out of order).
    ooo: u32,
    got: Bitset,
    /// Segments taken that were held already (sent again, the first copy
    /// having arrived).
    pub dups: u32,
}

impl TcpReceiver {
    pub fn new(n_segs: u32) -> TcpReceiver {
        TcpReceiver { n_segs, cum: 0, ooo: 0, got: Bitset::new(n_segs), dups: 0 }
    }

    pub fn complete(&self) -> bool {
        self.cum >= self.n_segs
    }

    /// Segments held above `cum` (received out of order).
    pub fn ooo(&self) -> u32 {
        self.ooo
    }

    /// Distinct segments received so far (in order and above `cum`).
    pub fn received(&self) -> u32 {
        self.cum + self.ooo
    }

    /// Whether segment `seg` has arrived.
    pub fn has(&self, seg: u32) -> bool {
        seg < self.cum || self.got.get(seg)
    }

    /// Take segment `seg`; return the ACK to send: (cumulative ack, SACK
    /// block around `seg` when it arrived out of order).
    pub fn on_data(&mut self, seg: u32) -> (u32, u32, u32) {
        if seg == self.cum && self.ooo == 0 {
            // in order with nothing buffered: no reassembly state to touch
            self.cum += 1;
            return (self.cum, 0, 0);
        }
        if self.has(seg) {
            self.dups += 1;
        }
        if seg >= self.cum && !self.got.get(seg) {
            self.got.set(seg);
            if seg == self.cum {
                // the bits of [old cum, new cum) were counted in `ooo`
                // except `seg` itself
                let next = self.got.next_clear(seg, self.n_segs).unwrap_or(self.n_segs);
                self.ooo -= next - seg - 1;
                self.cum = next;
            } else {
                self.ooo += 1;
            }
        }
        if seg > self.cum && self.got.get(seg) {
            let (lo, hi) = self.got.run_around(seg, self.cum, self.n_segs);
            (self.cum, lo, hi)
        } else {
            (self.cum, 0, 0)
        }
    }
}

