//! The NIC of a host whose transport it pulls (RDMA queue pairs, as the
//! HPCC simulator's NIC serves them, `RdmaEgressQueue::GetNextQindex`):
//! when its line is free it sends what its port has queued first (ACKs,
//! NACKs), then asks its flows, round robin from the one after the last
//! served, for their next packet. A flow whose pacing holds it stays in
//! the round robin; if none can send, the NIC wakes at the earliest time
//! one may. A blocked flow (window full, nothing to send) leaves the round
//! robin until an ACK, a NACK or a timer changes that. The simulation
//! drives it (`Simulation::nic_pump`); this holds its state.

use crate::time::Time;
use std::collections::VecDeque;

/// Where a pulled flow stands with its NIC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NicState {
    /// Not in the round robin: blocked (window, nothing to send) or new.
    #[default]
    Idle,
    /// In the round robin (ready, or paced until a time).
    Listed,
}

/// One host's NIC: the round robin of flows that have or will have a
/// packet to send, as (flow slot, flow id), and the times of the wake-ups
/// (`TxDone` of its port) it has in the calendar, latest first. A wake-up
/// is added only if earlier than all pending ones (the earliest does
/// whatever a later one would), so they are distinct and the next to fire
/// is the last.
#[derive(Debug, Default)]
pub struct Nic {
    pub ready: VecDeque<(u32, u32)>,
    pub wakes: Vec<Time>,
}

impl Nic {
    /// Whether a wake-up at `t` is needed; if so it counts as pending.
    pub fn wake_at(&mut self, t: Time) -> bool {
        if self.wakes.last().is_some_and(|&w| w <= t) {
            return false;
        }
        self.wakes.push(t);
        true
    }

    /// The wake-up at `now` fired.
    pub fn woken(&mut self, now: Time) {
        let w = self.wakes.pop();
        debug_assert_eq!(w, Some(now), "the earliest wake-up fires first");
    }
}
