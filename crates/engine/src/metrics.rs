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
    /// Payload bytes the receiver held: the flow's size, unless its sender
    /// gave it up (`Endpoint::terminated`).
    pub delivered: u64,
    /// Its packets (data and the receiver's) lost to faults (`faults.rs`).
    pub fault_losses: u32,
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
    /// Its packets lost to faults so far (`faults.rs`).
    pub fault_losses: u32,
}

/// One port's queue at one time (a queue sampler's record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSample {
    pub time: Time,
    pub port: u32,
    /// Packets and bytes buffered, not counting the one being serialized.
    pub pkts: u32,
    pub bytes: u64,
    /// Flows with packets at the port, where the port keeps them (BFC's
    /// flow table: entries holding packets; 0 elsewhere).
    pub flows: u32,
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
/// packet's class. What `Simulation::prio_losses` reports.
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

/// The counts behind `PrioLosses`, as every arrival at a pFabric port adds
/// to them: by place and by a key the bucket is derived from when the
/// counts are read (the leading zeros of the priority in whole packets, or
/// the class), so that counting is one load and one add in a fixed table
/// (the buckets' arithmetic and a table of tables cost pFabric's
/// packet-hop about 30 instructions: docs/performance.md).
#[derive(Clone, Debug)]
pub struct PrioCounts {
    by_class: bool,
    /// Indexed `[place][key]`; places beyond the three are never written
    /// (4 rows and 65 keys: no bounds check on the hot path).
    arrivals: Box<[[u64; 65]; 4]>,
    drops: Box<[[u64; 65]; 4]>,
}

impl PrioCounts {
    pub fn new(by_class: bool) -> PrioCounts {
        PrioCounts { by_class, arrivals: Box::new([[0; 65]; 4]), drops: Box::new([[0; 65]; 4]) }
    }

    /// The key of priority `prio`: at most 64.
    #[inline(always)]
    pub fn key(&self, prio: u64) -> usize {
        if self.by_class {
            return prio.min(64) as usize;
        }
        (prio / 1460).leading_zeros() as usize
    }

    #[inline(always)]
    pub fn arrive(&mut self, place: u8, key: usize) {
        self.arrivals[(place & 3) as usize][key.min(64)] += 1;
    }

    #[inline(always)]
    pub fn drop(&mut self, place: u8, key: usize) {
        self.drops[(place & 3) as usize][key.min(64)] += 1;
    }

    fn bucket(&self, key: usize) -> usize {
        if self.by_class {
            key.min(PRIO_BUCKETS - 1)
        } else {
            (64 - key).min(PRIO_BUCKETS - 1)
        }
    }

    pub fn report(&self) -> PrioLosses {
        let fold = |t: &[[u64; 65]; 4]| -> Vec<Vec<u64>> {
            (0..PLACES.len())
                .map(|place| {
                    let mut row = vec![0; PRIO_BUCKETS];
                    for (key, &n) in t[place].iter().enumerate() {
                        row[self.bucket(key)] += n;
                    }
                    row
                })
                .collect()
        };
        PrioLosses { places: PLACES, by_class: self.by_class, arrivals: fold(&self.arrivals), drops: fold(&self.drops) }
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
    /// Data packets a receiver took that it already held: retransmissions
    /// whose first copy had arrived (reordering taken for loss, a timeout
    /// that fired early).
    pub duplicate_pkts: u64,
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

/// How finished flows compare with their ideal FCT and with what no flow
/// can beat (`sim/reports.rs`, `idle.rs`).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct IdealCheck {
    /// Finished flows checked (a flow its sender gave up is not).
    pub flows: u64,
    /// Flows faster than their ideal FCT (slowdown below 1), and the
    /// lowest slowdown among them: possible only where packets are
    /// sprayed over several paths.
    pub below_ideal: u64,
    pub min_slowdown: Option<f64>,
    /// Flows faster than their lower bound: none may be (an engine bug).
    pub below_bound: u64,
    /// Packets of a flow may take different paths (spraying).
    pub multipath: bool,
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

/// Queueing delays of data packets at switch ports (from arrival at the
/// port to the start of departure), by the tier of the switch, for all
/// data packets and for those of one-packet flows (a short message's wait:
/// BFC Table 1's "single packet" queueing delay): log histograms with 32
/// bins per doubling (values within 2.2%), exact count, mean and maximum.
/// Kept when `queueing_delay` is on.
#[derive(Clone, Debug, Default)]
pub struct QueueingDelay {
    /// Arrival time by packet id of the packets in a switch queue
    /// (`Time::MAX`: none), and the subsets it belongs to (`delay_subset`).
    entered: Vec<(Time, u8)>,
    /// By switch tier, direction (toward a higher tier or not) and subset
    /// (all data packets, then each of `delay_subset`'s).
    hist: [[[DelayHist; 3]; 2]; 4],
}

/// The subsets of data packets whose delays are also kept apart: those of
/// one-packet flows (a short message's wait, BFC Table 1) and Homa's
/// scheduled packets (BFC Table 2).
pub mod delay_subset {
    pub const SINGLE: u8 = 1;
    pub const SCHEDULED: u8 = 2;
    pub const NAMES: [&str; 3] = ["all", "single", "scheduled"];
}

#[derive(Clone, Debug, Default)]
struct DelayHist {
    bins: Vec<u64>,
    count: u64,
    sum_ps: u128,
    max_ps: Time,
}

/// Bins per doubling of the delay histogram.
const BINS_PER_OCTAVE: u32 = 32;

impl DelayHist {
    fn bin(d: Time) -> usize {
        if d == 0 {
            return 0;
        }
        let e = 63 - d.leading_zeros();
        let frac = if e >= 5 { (d >> (e - 5)) & 31 } else { (d << (5 - e)) & 31 };
        1 + (e * BINS_PER_OCTAVE) as usize + frac as usize
    }

    /// The middle of bin `b` (its geometric centre).
    fn value(b: usize) -> f64 {
        if b == 0 {
            return 0.0;
        }
        let (e, f) = ((b - 1) as u32 / BINS_PER_OCTAVE, (b - 1) as u32 % BINS_PER_OCTAVE);
        let lo = (1u64 << e) as f64 * (1.0 + f as f64 / BINS_PER_OCTAVE as f64);
        let hi = (1u64 << e) as f64 * (1.0 + (f + 1) as f64 / BINS_PER_OCTAVE as f64);
        (lo * hi).sqrt()
    }

    fn add(&mut self, d: Time) {
        let b = Self::bin(d);
        if self.bins.len() <= b {
            self.bins.resize(b + 1, 0);
        }
        self.bins[b] += 1;
        self.count += 1;
        self.sum_ps += d as u128;
        self.max_ps = self.max_ps.max(d);
    }

    fn quantile(&self, q: f64) -> f64 {
        let rank = (q * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (b, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Self::value(b).min(self.max_ps as f64);
            }
        }
        self.max_ps as f64
    }
}

/// One tier's queueing delays, in the summary (picoseconds).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct DelayReport {
    pub tier: u8,
    /// Ports toward a higher tier (a ToR's uplinks), else the rest.
    pub up: bool,
    /// Which packets: "all" data packets, "single" (one-packet flows') or
    /// "scheduled" (Homa's scheduled ones).
    pub subset: &'static str,
    pub packets: u64,
    pub mean_ps: f64,
    pub p50_ps: f64,
    pub p95_ps: f64,
    pub p99_ps: f64,
    pub p999_ps: f64,
    pub max_ps: Time,
}

impl QueueingDelay {
    /// Packet `id` (in the subsets `subsets`, `delay_subset`) enters a
    /// switch queue at `now`.
    #[inline]
    pub fn enter(&mut self, id: u32, now: Time, subsets: u8) {
        if self.entered.len() <= id as usize {
            self.entered.resize(id as usize + 1, (Time::MAX, 0));
        }
        self.entered[id as usize] = (now, subsets);
    }

    /// Packet `id` was dropped: it left no queue.
    #[inline]
    pub fn forget(&mut self, id: u32) {
        if let Some(e) = self.entered.get_mut(id as usize) {
            e.0 = Time::MAX;
        }
    }

    /// Packet `id` starts leaving a port of a tier-`tier` switch at
    /// `start`, `up` toward a higher tier (nothing if it never entered a
    /// queue).
    #[inline]
    pub fn leave(&mut self, id: u32, start: Time, tier: u8, up: bool) {
        let Some(e) = self.entered.get_mut(id as usize) else { return };
        let (t, subsets) = *e;
        if t != Time::MAX {
            let d = start.saturating_sub(t);
            let h = &mut self.hist[tier.min(3) as usize][up as usize];
            h[0].add(d);
            for (i, bit) in [delay_subset::SINGLE, delay_subset::SCHEDULED].into_iter().enumerate() {
                if subsets & bit != 0 {
                    h[i + 1].add(d);
                }
            }
            e.0 = Time::MAX;
        }
    }

    pub fn reports(&self) -> Vec<DelayReport> {
        let mut out = Vec::new();
        for (subset, name) in delay_subset::NAMES.iter().enumerate() {
            for (tier, by_dir) in self.hist.iter().enumerate() {
                for (up, h) in by_dir.iter().enumerate() {
                    if h[subset].count > 0 {
                        out.push((tier, up == 1, *name, &h[subset]));
                    }
                }
            }
        }
        out.into_iter()
            .map(|(tier, up, subset, h)| DelayReport {
                tier: tier as u8,
                up,
                subset,
                packets: h.count,
                mean_ps: h.sum_ps as f64 / h.count as f64,
                p50_ps: h.quantile(0.5),
                p95_ps: h.quantile(0.95),
                p99_ps: h.quantile(0.99),
                p999_ps: h.quantile(0.999),
                max_ps: h.max_ps,
            })
            .collect()
    }
}

#[cfg(test)]
mod prio_count_tests {
    use super::*;

    /// pFabric Fig. 13's buckets: 0 under one packet, b from 2^(b-1) to
    /// 2^b packets, the last one open.
    fn bucket_by_definition(prio: u64) -> usize {
        let pkts = prio / 1460;
        ((64 - pkts.leading_zeros()) as usize).min(PRIO_BUCKETS - 1)
    }

    #[test]
    fn counts_land_in_the_buckets_of_their_priority_or_class() {
        let prios = [0, 1, 1459, 1460, 2919, 2920, 5840, 1 << 20, 1460 << 30, 1460 << 38, 1460 << 39, u64::MAX];
        let mut c = PrioCounts::new(false);
        for (i, &p) in prios.iter().enumerate() {
            let k = c.key(p);
            c.arrive((i % 3) as u8, k);
            c.drop(2, k);
        }
        let r = c.report();
        let (mut arrivals, mut drops) = (vec![vec![0u64; PRIO_BUCKETS]; 3], vec![0u64; PRIO_BUCKETS]);
        for (i, &p) in prios.iter().enumerate() {
            arrivals[i % 3][bucket_by_definition(p)] += 1;
            drops[bucket_by_definition(p)] += 1;
        }
        assert_eq!(r.arrivals, arrivals);
        assert_eq!(r.drops[2], drops);
        assert!(r.drops[0].iter().chain(&r.drops[1]).all(|&n| n == 0));
        // by class: the class itself, the last bucket holding the rest
        let mut c = PrioCounts::new(true);
        for class in [0, 1, 7, 39, 40, 1000] {
            let k = c.key(class);
            c.arrive(1, k);
        }
        let r = c.report();
        assert!(r.by_class);
        assert_eq!((r.arrivals[1][0], r.arrivals[1][1], r.arrivals[1][7], r.arrivals[1][39]), (1, 1, 1, 3));
    }
}

#[cfg(test)]
mod delay_tests {
    use super::*;

    #[test]
    fn delay_quantiles_within_the_bins_precision() {
        let mut q = QueueingDelay::default();
        // 1..=1000 ns, one packet each, in tier 1; a packet that never
        // entered a queue is not counted
        for i in 1..=1000u32 {
            q.enter(i, 0, if i == 7 { delay_subset::SINGLE } else { 0 });
            q.leave(i, i as Time * 1000, 1, false);
        }
        q.leave(5000, 7, 1, false);
        q.enter(1, 10, delay_subset::SCHEDULED);
        q.leave(1, 10, 2, true); // no wait at all
        let r = q.reports();
        assert_eq!(r.len(), 4);
        let s = r[2];
        assert!(s.subset == "single" && s.tier == 1 && !s.up && s.packets == 1 && s.max_ps == 7000);
        assert!(r[3].subset == "scheduled" && r[3].tier == 2 && r[3].up && r[3].max_ps == 0);
        assert!(r[1].subset == "all" && r[1].tier == 2 && r[1].up);
        let t1 = r[0];
        assert_eq!((t1.tier, t1.packets, t1.max_ps), (1, 1000, 1_000_000));
        assert!((t1.mean_ps - 500_500.0).abs() < 1e-6);
        for (got, want) in [(t1.p50_ps, 500_000.0), (t1.p95_ps, 950_000.0), (t1.p99_ps, 990_000.0)] {
            assert!((got / want - 1.0).abs() < 0.022, "{got} vs {want}");
        }
        assert_eq!((r[1].tier, r[1].packets, r[1].p99_ps), (2, 1, 0.0));
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
    pub rate_bps: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub marks: u64,
    pub max_queue_bytes: u64,
    /// Time the port was held by PFC pauses from its link's far end.
    pub paused_ps: Time,
    /// BFC ports: flows given a queue, and those whose queue already held
    /// packets (collisions).
    /// (named by BFC's in the summary, the only discipline that assigns)
    #[serde(rename = "bfc_assignments")]
    pub queue_assignments: u64,
    #[serde(rename = "bfc_collisions")]
    pub queue_collisions: u64,
}
