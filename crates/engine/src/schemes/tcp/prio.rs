//! What a TCP data packet carries for the switches to schedule by (pFabric
//! §4.2; ns-2 `set_prio`: computed when a packet is sent, retransmissions
//! included): nothing (FIFO ports), its flow's remaining size (pFabric),
//! its flow's size, the bytes sent before it (LAS), or, for
//! pFabric-EDF (§5.4.2), its deadline while it can still be met; and with
//! thresholds, the class that value falls in (PIAS's MLFQ tagging, pFabric
//! §6's few queues).

use crate::config::{Prio, TcpConfig};
use crate::packet::flags;
use crate::time::{serialization, Time};

/// How a flow's packets are stamped at one sending moment: the values
/// every segment sent then shares.
#[derive(Clone, Copy, Debug)]
pub struct Stamp {
    /// Bytes of the flow not yet known to have arrived.
    remaining: u64,
    /// pFabric-EDF: the deadline, while it can be met.
    edf: Option<Time>,
    size: u64,
}

impl Stamp {
    /// The stamp at `now` of a flow of `size` bytes with `remaining` not
    /// yet known to have arrived (asked for only when the priority uses
    /// it) and an absolute `deadline`.
    #[inline]
    pub fn new(now: Time, cfg: &TcpConfig, size: u64, remaining: impl FnOnce() -> u64, deadline: Option<Time>) -> Stamp {
        let remaining = match cfg.prio {
            Prio::RemainingSize | Prio::Deadline => remaining(),
            _ => 0,
        };
        // pFabric-EDF: the deadline while it can be met (what is left, at
        // the line rate, fits before it), in the first class
        let edf = match (cfg.prio, deadline) {
            (Prio::Deadline, Some(d)) => {
                let need = serialization(remaining, cfg.edf_rate_bps);
                (now + need <= d).then_some(d)
            }
            _ => None,
        };
        Stamp { remaining, edf, size }
    }

    /// Flags every data packet carries: ECT with ECN; the first class with
    /// a deadline that can be met.
    pub fn flags(&self, cfg: &TcpConfig) -> u8 {
        let ect = if cfg.ecn { flags::ECT } else { 0 };
        if self.edf.is_some() {
            ect | flags::CLASS0
        } else {
            ect
        }
    }

    /// The priority of segment `seq` (of `mss` payload bytes each).
    #[inline]
    pub fn prio(&self, cfg: &TcpConfig, seq: u32, mss: u64) -> u64 {
        let prio = match cfg.prio {
            Prio::None => 0,
            Prio::RemainingSize => self.remaining,
            Prio::FlowSize => self.size,
            Prio::BytesSent => seq as u64 * mss,
            Prio::Deadline => self.edf.unwrap_or(self.remaining),
        };
        class_of(prio, &cfg.prio_thresholds)
    }
}

/// The class of a packet whose priority value is `v` among classes split
/// at `thresholds` (ascending): the first threshold `v` does not exceed.
/// PIAS's tagging (ToN'17 §III-A; its ns-2 `piasPrio`): a packet whose
/// first byte is at offset `v` of its flow goes to queue i for the first
/// `v <= alpha_i`. Without thresholds, the value itself.
#[inline]
pub fn class_of(v: u64, thresholds: &[u64]) -> u64 {
    if thresholds.is_empty() {
        v
    } else {
        thresholds.partition_point(|&t| t < v) as u64
    }
}
