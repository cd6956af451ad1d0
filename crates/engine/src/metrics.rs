//! What a run reports: one record per finished flow, and counters.

use crate::time::Time;
use serde::Serialize;

/// A finished flow. Times in picoseconds; the Python layer converts to
/// seconds and computes the slowdown `fct / ideal`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowRecord {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub size: u64,
    pub start: Time,
    /// When the receiver held every byte.
    pub finish: Time,
    /// FCT of the flow alone on the idle network (DESIGN.md, "Normalized FCT").
    pub ideal: Time,
    /// Data packets sent more than once.
    pub retx: u32,
    pub timeouts: u32,
    /// Absolute deadline (0: none).
    pub deadline: Time,
}

/// A flow that started but had not finished when the run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnfinishedRecord {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub size: u64,
    pub start: Time,
    /// Payload bytes the receiver holds (in order or not).
    pub delivered: u64,
    pub ideal: Time,
    pub retx: u32,
    pub timeouts: u32,
    /// Absolute deadline (0: none).
    pub deadline: Time,
}

/// One port's queue at one time (a queue sampler's record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSample {
    pub time: Time,
    pub port: u32,
    /// Packets and bytes buffered, not counting the one being serialized.
    pub pkts: u32,
    pub bytes: u64,
}

/// The buffer of one switch at one time (a sampler's record, with shared
/// buffers): every byte it holds, all ports together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSample {
    pub time: Time,
    pub node: u32,
    pub bytes: u64,
}

/// One active flow's progress at one time (a flow sampler's record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSample {
    pub time: Time,
    pub flow: u32,
    /// Payload bytes the receiver holds.
    pub delivered: u64,
}

/// Packets arriving at, and dropped by, the ports that choose by priority
/// (pFabric's, strict-priority queues), by where the port is (`PLACES`) and
/// by the packet's priority bucket: for pFabric's ports bucket 0 holds
/// priorities under one 1460-byte packet (ACKs), and bucket b >= 1 those
/// from 2^(b-1) to 2^b packets (pFabric Fig. 13); with `by_class` (the
/// network's priority ports are strict-priority queues) the bucket is the
/// packet's class.
#[derive(Clone, Debug, Serialize)]
pub struct PrioLosses {
    pub places: [&'static str; 3],
    pub by_class: bool,
    pub arrivals: Vec<Vec<u64>>,
    pub drops: Vec<Vec<u64>>,
}

/// Where a port is: a host's NIC (the first hop), a switch port towards a
/// host (the last hop), or a switch port towards a switch.
pub const PLACES: [&str; 3] = ["host_nic", "last_hop", "fabric"];
pub const PRIO_BUCKETS: usize = 40;

impl Default for PrioLosses {
    fn default() -> Self {
        PrioLosses {
            places: PLACES,
            by_class: false,
            arrivals: vec![vec![0; PRIO_BUCKETS]; 3],
            drops: vec![vec![0; PRIO_BUCKETS]; 3],
        }
    }
}

impl PrioLosses {
    pub fn bucket(&self, prio: u64) -> usize {
        if self.by_class {
            return (prio as usize).min(PRIO_BUCKETS - 1);
        }
        let pkts = prio / 1460;
        ((64 - pkts.leading_zeros()) as usize).min(PRIO_BUCKETS - 1)
    }
}

/// Whole-run counters. Conservation: `host_tx = delivered + dropped +
/// queued + in_flight`, in packets and in bytes (see `Simulation::conservation`).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Counters {
    pub events: u64,
    /// One packet crossing one link.
    pub packet_hops: u64,
    pub host_tx_pkts: u64,
    pub host_tx_bytes: u64,
    pub delivered_pkts: u64,
    pub delivered_bytes: u64,
    pub dropped_pkts: u64,
    pub dropped_bytes: u64,
    pub marked_pkts: u64,
    /// Packets senders sent: data, and ExpressPass's credit requests and
    /// CREDIT_STOPs.
    pub data_pkts: u64,
    /// Packets receivers sent back: ACKs (and NACKs).
    pub ack_pkts: u64,
    /// ExpressPass credits the receivers sent.
    pub credit_pkts: u64,
    pub retransmitted_pkts: u64,
    pub timeouts: u64,
    /// Packets delivered to a host after their flow had ended.
    pub stale_pkts: u64,
    pub flows_started: u64,
    pub flows_finished: u64,
    pub max_active_flows: u64,
    /// Connections a pool opened because all of a pair's were busy (each
    /// with a handshake, if the transport does one).
    pub connections_opened: u64,
    /// PFC frames (pauses and resumes) that switches sent, and their
    /// bytes: they count as injected, and as delivered when they arrive.
    pub pfc_frames: u64,
    pub pfc_bytes: u64,
}

/// End-of-run packet and byte accounting.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Conservation {
    pub injected_pkts: u64,
    pub delivered_pkts: u64,
    pub dropped_pkts: u64,
    pub queued_pkts: u64,
    pub in_flight_pkts: u64,
    pub injected_bytes: u64,
    pub delivered_bytes: u64,
    pub dropped_bytes: u64,
    pub queued_bytes: u64,
    pub in_flight_bytes: u64,
}

impl Conservation {
    pub fn holds(&self) -> bool {
        self.injected_pkts == self.delivered_pkts + self.dropped_pkts + self.queued_pkts + self.in_flight_pkts
            && self.injected_bytes
                == self.delivered_bytes + self.dropped_bytes + self.queued_bytes + self.in_flight_bytes
    }
}

/// Per-port statistics for reports (drops by node and port).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PortReport {
    pub port: u32,
    pub node: u32,
    pub peer: u32,
    /// 0 host NIC, 1 leaf/edge, 2 spine/aggregation, 3 core.
    pub tier: u8,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub marks: u64,
    pub max_queue_bytes: u64,
    /// Time the port was held by PFC pauses from its link's far end.
    pub paused_ps: Time,
    /// BFC ports: flows given a queue, and those whose queue already held
    /// packets (collisions).
    pub bfc_assignments: u64,
    pub bfc_collisions: u64,
}
