//! A receiver that coalesces its ACKs, as Linux's does (receive offload
//! merges back-to-back segments and acknowledges the batch; delayed ACKs
//! acknowledge every second segment): one ACK per `every` in-order
//! segments, or when `delay` has passed since the first one it holds.
//! With a sender that sends what each ACK allows at once, this also gives
//! the bursts of segmentation offload: an ACK of k segments lets k (or
//! more) out back to back. ns-2's TCP sinks in the pFabric and PIAS
//! scripts acknowledge every segment (`every` = 1: not used then).
//!
//! What is acknowledged at once, whatever is held (RFC 5681 §4.2: "an
//! ACK SHOULD be generated for at least every second full-sized segment"
//! and at once for out-of-order data; Linux `__tcp_ack_snd_check`): a
//! segment out of order or one that fills a hole, a duplicate, a SYN or
//! probe, and the flow's last segment. DCTCP's receiver (Linux
//! `dctcp_ce_state_0_to_1` and back): when the CE mark of the arriving
//! segment differs from what the held ACK echoes, the held ACK leaves at
//! once with its own echo and the segment starts a new hold, so the echoes
//! count the marked segments exactly. (If that segment must itself be
//! acknowledged at once, only its ACK leaves, covering both: two ACKs for
//! one segment are not modelled.)

use crate::packet::{flags, Packet};
use crate::time::Time;

#[derive(Clone, Copy, Debug)]
struct Held {
    /// The ACK to send (the newest: cumulative ACKs supersede), with the
    /// timestamp echo of the first segment held (RFC 7323 §4.3: the echo
    /// of a delayed ACK is the earliest unacknowledged segment's).
    ack: Packet,
    count: u32,
    deadline: Time,
}

/// The ACK a receiver holds, if any.
#[derive(Clone, Copy, Debug, Default)]
pub struct DelayedAck {
    held: Option<Held>,
}

impl DelayedAck {
    /// The receiver built `ack` for a segment that arrived at `now`;
    /// `immediate`: the segment must be acknowledged at once (see the
    /// module's comment). Returns the ACK to send now, if any.
    pub fn on_ack(&mut self, now: Time, mut ack: Packet, immediate: bool, every: u32, delay: Time) -> Option<Packet> {
        let held = self.held.take();
        if let Some(h) = held {
            if h.ack.has(flags::ECE) != ack.has(flags::ECE) && !immediate {
                // DCTCP: the held ACK leaves with its echo; this segment
                // starts a new hold
                self.held = Some(Held { ack, count: 1, deadline: now + delay });
                return Some(h.ack);
            }
            ack.ts = h.ack.ts;
        }
        let count = held.map_or(0, |h| h.count) + 1;
        if immediate || count >= every {
            return Some(ack);
        }
        let deadline = held.map_or(now + delay, |h| h.deadline);
        self.held = Some(Held { ack, count, deadline });
        None
    }

    /// When the held ACK must leave.
    pub fn deadline(&self) -> Option<Time> {
        self.held.map(|h| h.deadline)
    }

    /// The held ACK, if its time has come.
    pub fn take_due(&mut self, now: Time) -> Option<Packet> {
        match self.held {
            Some(h) if h.deadline <= now => {
                self.held = None;
                Some(h.ack)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ACK a receiver builds for a segment sent at `ts`: `cum` next
    /// expected, `ece` echoing a CE mark.
    fn ack(cum: u32, ts: Time, ece: bool) -> Packet {
        let mut p = Packet::test_data(40, if ece { flags::ECE } else { 0 });
        (p.seq, p.ts) = (cum, ts);
        p
    }

    #[test]
    fn every_second_segment_with_the_first_ones_timestamp() {
        let mut d = DelayedAck::default();
        assert!(d.on_ack(100, ack(1, 10, false), false, 2, 50).is_none());
        assert_eq!(d.deadline(), Some(150));
        let a = d.on_ack(120, ack(2, 20, false), false, 2, 50).expect("the second segment's ACK");
        // cumulative to the second, echoing the first (RFC 7323 §4.3)
        assert_eq!((a.seq, a.ts), (2, 10));
        assert_eq!(d.deadline(), None);
    }

    #[test]
    fn a_held_ack_leaves_at_its_deadline_not_before() {
        let mut d = DelayedAck::default();
        assert!(d.on_ack(100, ack(1, 10, false), false, 4, 50).is_none());
        assert!(d.on_ack(130, ack(2, 20, false), false, 4, 50).is_none());
        // the deadline is the first held segment's, not moved by later ones
        assert_eq!(d.deadline(), Some(150));
        assert!(d.take_due(149).is_none());
        let a = d.take_due(150).expect("due");
        assert_eq!((a.seq, a.ts), (2, 10));
        assert!(d.take_due(200).is_none());
    }

    #[test]
    fn what_must_be_acknowledged_at_once_supersedes_what_is_held() {
        let mut d = DelayedAck::default();
        assert!(d.on_ack(100, ack(1, 10, false), false, 4, 50).is_none());
        // e.g. an out-of-order segment: its ACK (a duplicate with SACK)
        let a = d.on_ack(110, ack(1, 30, false), true, 4, 50).expect("at once");
        assert_eq!((a.seq, a.ts), (1, 10));
        assert_eq!(d.deadline(), None);
    }

    #[test]
    fn a_change_of_ce_sends_the_held_ack_with_its_own_echo() {
        // DCTCP's receiver: the echoes count the marked segments exactly
        let mut d = DelayedAck::default();
        assert!(d.on_ack(100, ack(1, 10, false), false, 2, 50).is_none());
        let a = d.on_ack(110, ack(2, 20, true), false, 2, 50).expect("the held ACK");
        assert_eq!((a.seq, a.has(flags::ECE), a.ts), (1, false, 10));
        // the marked segment starts a new hold, with its own timestamp
        assert_eq!(d.deadline(), Some(160));
        let b = d.on_ack(120, ack(3, 30, true), false, 2, 50).expect("two marked segments");
        assert_eq!((b.seq, b.has(flags::ECE), b.ts), (3, true, 20));
    }
}
