//! PDQ's scheduling header (Hong, Caesar, Godfrey, SIGCOMM'12, §3.1), as
//! it rides in the fields of a packet that PDQ's packets leave free (its
//! ports are drop-tail FIFOs without a shared buffer, and its ACKs need no
//! SACK blocks):
//!
//! | field | on packets from the sender | on ACKs |
//! | --- | --- | --- |
//! | `prio` | criticality: deadline (D_H), then expected transmission time (T_H) | the data packet acknowledged |
//! | `sack_lo` | rate R_H, kb/s | R_H as the path left it |
//! | `sack_hi` | pauser P_H (24 bits: port + 1, 0 = none), inter-probe time I_H (8 bits, tenths of an RTT) | the same, echoed |
//! | `ingress` | the sender's RTT estimate (RTT_H), ns | unused |
//!
//! The criticality key orders flows as PDQ's switches do (§3.2: earliest
//! deadline first, then shortest expected transmission time): the
//! absolute deadline in units of 100 ns (all ones for a flow without one)
//! in the high 32 bits, T_H in units of 10 ns in the low 31 (21 s: a 260 MB
//! flow at 100 Mb/s).

use crate::packet::{flags, Packet};
use crate::time::Time;

/// FIN: the flow's last data packet (switches drop the flow from their
/// lists), or with `PROBE` and no payload a TERM (Early Termination,
/// §3.3.2). NACK's bit: only ACKs carry a NACK, only senders a FIN.
pub const FIN: u8 = flags::NACK;

/// No pauser.
pub const NONE: u32 = 0;

const PAUSER_BITS: u32 = 24;
const PAUSER_MASK: u32 = (1 << PAUSER_BITS) - 1;
const T_BITS: u32 = 31;

/// The header's fields a switch reads and rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// R_H, b/s (kept in kb/s on the packet).
    pub rate_bps: u64,
    /// P_H: the port that paused the flow, + 1 (`NONE`: none).
    pub pauser: u32,
    /// I_H in tenths of an RTT.
    pub interval: u8,
}

impl Header {
    #[inline]
    pub fn read(pkt: &Packet) -> Header {
        Header {
            rate_bps: pkt.sack_lo as u64 * 1000,
            pauser: pkt.sack_hi & PAUSER_MASK,
            interval: (pkt.sack_hi >> PAUSER_BITS) as u8,
        }
    }

    #[inline]
    pub fn write(&self, pkt: &mut Packet) {
        pkt.sack_lo = (self.rate_bps / 1000).min(u32::MAX as u64) as u32;
        pkt.sack_hi = (self.pauser & PAUSER_MASK) | ((self.interval as u32) << PAUSER_BITS);
    }

    /// Paused: by a switch, or at no rate.
    #[inline]
    pub fn paused(&self) -> bool {
        self.pauser != NONE || self.rate_bps == 0
    }
}

/// The criticality key of a flow with absolute deadline `deadline` (if
/// any) that needs `expected` ps more at its top rate: lower is more
/// critical.
#[inline]
pub fn key(deadline: Option<Time>, expected: Time) -> u64 {
    let d = deadline.map_or(u32::MAX as u64, |d| (d / 100_000).min(u32::MAX as u64 - 1));
    let t = (expected / 10_000).min((1 << T_BITS) - 1);
    d << T_BITS | t
}

/// T_H of a key, ps (its last 31 bits, 10 ns each).
#[inline]
pub fn expected(key: u64) -> Time {
    (key & ((1 << T_BITS) - 1)) * 10_000
}

/// The sender's RTT estimate a packet carries, ps.
#[inline]
pub fn rtt(pkt: &Packet) -> Time {
    pkt.ingress as Time * 1000
}

/// Carry RTT estimate `rtt` (ps).
#[inline]
pub fn set_rtt(pkt: &mut Packet, rtt: Time) {
    pkt.ingress = (rtt / 1000).clamp(1, u32::MAX as u64) as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_survives_the_packet_fields() {
        let mut p = Packet::test_data(40, 0);
        let h = Header { rate_bps: 9_876_543_000, pauser: 70_001, interval: 13 };
        h.write(&mut p);
        assert_eq!(Header::read(&p), h);
        set_rtt(&mut p, 14_600_000);
        assert_eq!(rtt(&p), 14_600_000);
    }

    #[test]
    fn deadlines_come_first_then_the_shortest_expected_time() {
        let us = 1_000_000;
        // an earlier deadline beats a shorter job; any deadline beats none
        assert!(key(Some(100 * us), 50 * us) < key(Some(200 * us), 1 * us));
        assert!(key(Some(10_000 * us), 500 * us) < key(None, 1 * us));
        assert!(key(None, 1 * us) < key(None, 2 * us));
        assert!(key(Some(100 * us), 1 * us) < key(Some(100 * us), 2 * us));
        assert_eq!(expected(key(Some(100 * us), 7 * us)), 7 * us);
    }
}
