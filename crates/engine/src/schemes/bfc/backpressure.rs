//! BFC's per-hop, per-flow backpressure (NSDI'22 §3.3.2), the switch's
//! half: pause counters indexed by (ingress, upstream queue). A packet
//! that finds its queue longer than the pause threshold is counted against
//! the upstream queue it came from (the `upstreamQ` header each hop
//! writes); the first such packet pauses that upstream queue, and the
//! upstream queue resumes when the last counted packet has left. The
//! threshold is Th = HRTT x port rate / N_active (§3.3.2): one hop's
//! bandwidth-delay product shared among the queues the port is serving,
//! so that a resumed queue's first packets arrive before the port runs
//! dry (App. C).

use crate::bitset::Bitset;
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct Backpressure {
    /// Packets counted, by (the switch's port on the ingress link, the
    /// upstream queue).
    counters: HashMap<(u32, u32), u32>,
    /// HRTT x rate of each port, bytes (`u64::MAX` for ports without BFC).
    bdp: Vec<u64>,
    /// A fixed threshold instead (BFC Fig. 7's sweep).
    fixed: Option<u64>,
    pub pauses: u64,
    /// Whether NICs take pauses (App. A.8's BFC - NIC: false).
    pub nic_pauses: bool,
    /// The fraction of packets recirculated (App. A.8's sampling; 1: all).
    pub sample: f64,
    /// Flows labelled by their sender (App. A.7's IncastLabel), by id.
    labelled: Bitset,
    any_labelled: bool,
    /// Packets passed over by sampling, by packet id, while in a switch.
    unsampled: Vec<bool>,
    /// The NICs (by host) whose queue of labelled flows is paused.
    label_paused: Vec<bool>,
}

/// The hash BFC's flow tables index a flow by (the same at every switch;
/// each egress port has its own table).
#[inline]
pub fn flow_key(flow: u32) -> u64 {
    crate::routing::splitmix(0xbfc0_0000_0000_0000 ^ flow as u64)
}

/// The upstream queue a NIC's labelled flows share (their `upstreamQ`):
/// a pause naming it stops them all.
pub const LABEL_QUEUE: u32 = u32::MAX - 1;

/// The flow-table key all labelled flows share.
const LABEL_KEY: u64 = 0x1abe_11ed_0000_0000;

impl Backpressure {
    pub fn new(bdp: Vec<u64>, fixed: Option<u64>) -> Backpressure {
        Backpressure { bdp, fixed, nic_pauses: true, sample: 1.0, ..Backpressure::default() }
    }

    /// Flows `ids` share one flow-table entry at every port.
    pub fn label(&mut self, ids: &[u32]) {
        let n = ids.iter().max().map_or(0, |&m| m + 1);
        self.labelled = Bitset::new(n);
        for &i in ids {
            self.labelled.set(i);
        }
        self.any_labelled = !ids.is_empty();
    }

    /// Whether flow `flow` is labelled (IncastLabel).
    #[inline]
    pub fn labelled(&self, flow: u32) -> bool {
        self.any_labelled && flow < self.labelled.capacity() && self.labelled.get(flow)
    }

    /// The hash a port's flow table indexes flow `flow` by: its own, or
    /// the label's (one entry, hence one queue, for all labelled flows).
    #[inline]
    pub fn key(&self, flow: u32) -> u64 {
        if self.labelled(flow) {
            crate::routing::splitmix(LABEL_KEY)
        } else {
            flow_key(flow)
        }
    }

    /// Note whether packet `id` was passed over by sampling at the switch
    /// it is entering.
    pub fn set_unsampled(&mut self, id: u32, unsampled: bool) {
        if self.unsampled.len() <= id as usize {
            if !unsampled {
                return;
            }
            self.unsampled.resize(id as usize + 1, false);
        }
        self.unsampled[id as usize] = unsampled;
    }

    /// Whether packet `id` was passed over (and forget it).
    pub fn take_unsampled(&mut self, id: u32) -> bool {
        self.unsampled.get_mut(id as usize).is_some_and(std::mem::take)
    }

    /// The pause threshold of `port` with `active` queues being served.
    #[inline]
    pub fn threshold(&self, port: u32, active: usize) -> u64 {
        self.fixed.unwrap_or_else(|| self.bdp[port as usize] / active.max(1) as u64)
    }

    /// Count a packet against (ingress, upstream queue): true when the
    /// upstream queue is to be paused (the first counted packet).
    pub fn count(&mut self, ingress: u32, upstream: u32) -> bool {
        let c = self.counters.entry((ingress, upstream)).or_insert(0);
        *c += 1;
        if *c == 1 {
            self.pauses += 1;
        }
        *c == 1
    }

    /// A counted packet left: true when the upstream queue is to be
    /// resumed (the last one).
    pub fn uncount(&mut self, ingress: u32, upstream: u32) -> bool {
        let Some(c) = self.counters.get_mut(&(ingress, upstream)) else { return false };
        *c -= 1;
        if *c == 0 {
            self.counters.remove(&(ingress, upstream));
            return true;
        }
        false
    }

    /// A frame pauses or resumes the labelled flows' queue at `host`'s NIC.
    pub fn pause_labelled(&mut self, host: u32, pause: bool) {
        if self.label_paused.len() <= host as usize {
            self.label_paused.resize(host as usize + 1, false);
        }
        self.label_paused[host as usize] = pause;
    }

    /// Flow `flow` waits at `host`'s NIC: it is labelled and the labelled
    /// flows' queue there is paused.
    #[inline]
    pub fn held_at_nic(&self, host: u32, flow: u32) -> bool {
        self.label_paused.get(host as usize).copied().unwrap_or(false) && self.labelled(flow)
    }

    /// Upstream queues paused now.
    pub fn paused(&self) -> usize {
        self.counters.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_queue_is_paused_while_any_counted_packet_remains() {
        let mut b = Backpressure::new(vec![25_000], None);
        assert_eq!(b.threshold(0, 0), 25_000);
        assert_eq!(b.threshold(0, 4), 6_250);
        assert!(b.count(3, 7));
        assert!(!b.count(3, 7));
        assert!(b.count(3, 8)); // another upstream queue on the same ingress
        assert!(!b.uncount(3, 7));
        assert!(b.uncount(3, 7));
        assert_eq!(b.paused(), 1);
        assert!(b.uncount(3, 8));
        assert_eq!((b.paused(), b.pauses), (0, 2));
        assert_eq!(Backpressure::new(vec![25_000], Some(10_000)).threshold(0, 4), 10_000);
    }
}
