//! The engine's input: a fully resolved experiment, with every default
//! already filled in and every unit already converted (bits per second,
//! bytes, picoseconds). The Python layer validates user specs and produces
//! this as JSON; the engine only checks what it must to stay safe.

use serde::Deserialize;

mod transport;

pub use transport::*;

#[derive(Clone, Debug, Deserialize)]
pub struct Config {
    pub seed: u64,
    pub topology: TopologyConfig,
    pub routing: RoutingConfig,
    pub port: PortConfig,
    pub transport: TransportConfig,
    pub workload: WorkloadConfig,
    /// Delay from a packet's arrival at a host to its delivery to the
    /// transport (host stack processing).
    #[serde(default)]
    pub host_delay_ps: u64,
    /// Stop the run at this simulated time even if flows are unfinished.
    #[serde(default)]
    pub stop_time_ps: Option<u64>,
    /// When a flow counts as finished.
    #[serde(default)]
    pub fct_at: FctAt,
    /// Packets, or the flow-level Ideal scheduler (pFabric §3).
    #[serde(default)]
    pub model: Model,
    /// Record queues and flows at regular intervals.
    #[serde(default)]
    pub sampler: Option<Sampler>,
    /// Every switch's ports share one buffer (`buffer.rs`), with or without
    /// PFC; the switch ports' discipline must then be `pfc`.
    #[serde(default)]
    pub shared_buffer: Option<SharedBufferConfig>,
    /// BFC's backpressure, when the switch ports are BFC's.
    #[serde(default)]
    pub bfc: Option<BfcConfig>,
    /// Keep every data packet's queueing delay at the switches (shared
    /// buffers only; `metrics::QueueingDelay`).
    #[serde(default)]
    pub queueing_delay: bool,
    /// Strict-priority traffic classes (BFC App. A.3): flows are split
    /// among them by `workload::traffic_class`; ports with PFC or BFC's
    /// queues keep a queue (or a partition of BFC's queues) per class and
    /// serve class 0 first, and PFC pauses each class on its own.
    #[serde(default = "one")]
    pub traffic_classes: u8,
    /// How ports with PFC serve their classes' data queues: strict
    /// priority (class 0 first) or round robin, a packet at a time (the
    /// HPCC simulator's `DoDequeueRR`). BFC's ports always use strict
    /// priority between classes (App. A.3).
    #[serde(default)]
    pub class_scheduling: ClassScheduling,
    /// Links and switches that fail or degrade during the run (`faults.rs`).
    #[serde(default)]
    pub faults: Vec<crate::faults::FaultConfig>,
    /// Links that lose a fraction of their packets each way for the whole
    /// run, `(a, b, fraction)` (a topology file's error rates).
    #[serde(default)]
    pub link_errors: Vec<(u32, u32, f64)>,
    /// Look for a PFC deadlock this often (`sim/deadlock.rs`); runs with
    /// PFC only.
    #[serde(default)]
    pub deadlock_check_ps: Option<u64>,
    /// Stop (status `Collapse`) once the packets sent again exceed this
    /// many times the data packets sent once (`Simulation::collapsed`).
    #[serde(default)]
    pub max_resends_per_packet: Option<f64>,
}

/// The order in which a PFC port serves its traffic classes.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClassScheduling {
    #[default]
    Strict,
    RoundRobin,
}

/// A switch's shared buffer and its PFC (`buffer.rs`).
#[derive(Clone, Debug, Deserialize)]
pub struct SharedBufferConfig {
    /// Bytes of buffer per switch.
    pub bytes: u64,
    /// Switches with another buffer size, as (node, bytes) (BFC's
    /// cross-datacenter gateways, App. A.9).
    #[serde(default)]
    pub bytes_at: Vec<(u32, u64)>,
    /// Bytes each ingress may hold before it takes from the shared pool.
    pub reserve_bytes: u64,
    /// An ingress resumes its upstream this far below its threshold.
    pub resume_offset_bytes: u64,
    /// PFC headroom per ingress (`None`: three one-way delays of the link
    /// at its rate).
    #[serde(default)]
    pub headroom_bytes: Option<u64>,
    /// Pause the upstream of a congested ingress (else drop when full).
    pub pfc: bool,
    /// PFC threshold alpha = 2^-alpha_shift of the free pool, for ports at
    /// the hosts' rate (halved for each doubling of a port's rate).
    pub alpha_shift: u8,
    /// Optional dynamic threshold on each output queue: at most alpha
    /// (`[num, den]`) times the free buffer.
    #[serde(default)]
    pub egress_alpha: Option<[u32; 2]>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Sampler {
    pub interval_ps: u64,
    /// The ports whose queues to record, if any.
    #[serde(default)]
    pub ports: Option<SamplePorts>,
    /// Record every active flow's delivered bytes.
    #[serde(default)]
    pub flows: bool,
}

/// Which ports a queue sampler records.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SamplePorts {
    All,
    /// Host NICs.
    HostNics,
    /// The last hop: switch ports towards a host.
    ToHosts,
    /// Every switch port.
    Switches,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// Packet-level: the transport and the port disciplines.
    #[default]
    Packets,
    /// Flow-level: pFabric's Ideal (`ideal.rs`).
    Ideal,
    /// Flow-level: max-min fair sharing over each flow's path
    /// (`fair_share.rs`, BFC's Ideal-FQ).
    IdealFq,
}

/// When a flow counts as finished, and so what its ideal FCT includes.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FctAt {
    /// When the receiver holds every byte; the ideal is one way.
    #[default]
    Receiver,
    /// When the sender gets the acknowledgement of the last byte, as the
    /// pFabric and PIAS ns-2 scripts log it; the ideal adds the ACK's way
    /// back.
    Sender,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologyConfig {
    /// `hosts` hosts on one switch.
    Star { hosts: u32, rate_bps: u64, delay_ps: u64 },
    /// Two-tier leaf-spine: every leaf connects to every spine.
    LeafSpine {
        leaves: u32,
        spines: u32,
        hosts_per_leaf: u32,
        host_rate_bps: u64,
        spine_rate_bps: u64,
        host_delay_ps: u64,
        spine_delay_ps: u64,
    },
    /// k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2
    /// aggregation switches, (k/2)^2 cores, k^3/4 hosts.
    FatTree { k: u32, host_rate_bps: u64, fabric_rate_bps: u64, host_delay_ps: u64, fabric_delay_ps: u64 },
    /// Any fabric: hosts `0..hosts`, switches `hosts..hosts + switches`,
    /// full-duplex links `(a, b, rate_bps, delay_ps)` (parallel links are
    /// equal-cost paths). Each host has exactly one link.
    Graph { hosts: u32, switches: u32, links: Vec<(u32, u32, u64, u64)> },
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalancing {
    /// Per-flow hashing onto one of the equal-cost next hops.
    Ecmp,
    /// Per-packet random choice among the equal-cost next hops.
    Spray,
    /// Per-packet round robin over the equal-cost next hops, one counter
    /// per node (ns-2's multipath routing, which the pFabric and PIAS
    /// simulations used).
    RoundRobin,
}

#[derive(Clone, Debug, Deserialize)]
pub struct RoutingConfig {
    pub load_balancing: LoadBalancing,
    /// ECMP: a flow's packets going back retrace its path (`Routes::symmetric`).
    #[serde(default)]
    pub symmetric: bool,
}

/// The disciplines of the ports: host NICs, switch ports, and optionally
/// other ones for the switches above the leaves (pFabric §5.4.3, Fig. 17:
/// pFabric at the leaves only).
#[derive(Clone, Debug, Deserialize)]
pub struct PortConfig {
    pub host: QueueConfig,
    pub switch: QueueConfig,
    /// Spine, aggregation and core switch ports, if not as `switch`.
    #[serde(default)]
    pub upper_tiers: Option<QueueConfig>,
    /// Compute FIFO departures at arrival (no per-packet "serializer free"
    /// event), and the departures of ACKs at pFabric's ports where nothing
    /// can overtake them (`Port::fixes_acks`). Off only to test both
    /// against the general path.
    #[serde(default = "yes")]
    pub fifo_fast_path: bool,
    /// Keep head-packet hints on links (`Port::head_hint`): `None` decides
    /// by the fabric's size. A hint never changes results; set only to
    /// test that.
    #[serde(default)]
    pub head_hints: Option<bool>,
}

/// One port's buffer and discipline.
#[derive(Clone, Debug, Deserialize)]
pub struct QueueConfig {
    pub discipline: Discipline,
    /// Buffer limit in bytes (`None`: unlimited).
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// Mark CE on arrival when this many bytes are already queued.
    #[serde(default)]
    pub ecn_threshold_bytes: Option<u64>,
}

/// How BFC's ports assign flows to queues (`schemes/bfc/queue.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assign {
    /// BFC's dynamic assignment (an empty queue, else a random one).
    Dynamic,
    /// A static hash of the flow (stochastic fair queueing).
    Stochastic,
    /// Every flow in one queue.
    Single,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Discipline {
    Fifo,
    /// pFabric; with 2 classes, pFabric-EDF's strict-priority pair.
    Pfabric {
        starvation_prevention: bool,
        #[serde(default = "one")]
        classes: u8,
    },
    /// `queues` strict-priority FIFO queues; each may hold `reserved_bytes`
    /// of its own, the rest of the buffer is shared; ECN against the
    /// arrival's queue or, with `ecn_per_port`, the whole port.
    Prio {
        queues: u8,
        #[serde(default)]
        reserved_bytes: u64,
        #[serde(default)]
        ecn_per_port: bool,
        /// Dynamic thresholds (Choudhury-Hahne, as Broadcom's dynamic
        /// buffer management): a queue may take from the shared part at
        /// most alpha times what is free of it; alpha as `[num, den]`.
        #[serde(default)]
        dt_alpha: Option<[u32; 2]>,
    },
    /// A data queue that PFC pauses and a control queue served first
    /// (`queue/pfc.rs`); buffer admission is the switch's shared buffer's.
    Pfc {
        #[serde(default)]
        acks_high_priority: bool,
        /// Mark ECN at dequeue on the data queue's length (DCQCN's RED).
        #[serde(default)]
        red: Option<Red>,
    },
    /// ExpressPass's port (`schemes/xpass/queue.rs`): credits through a token
    /// bucket at `credit_share` of the link, served before data; data in a
    /// drop-tail FIFO of the port's limit.
    Xpass {
        credit_queue_bytes: u64,
        bucket_bytes: u64,
        /// Credit bytes per link byte, `[num, den]` (84 / (84 + 1538)).
        credit_share: [u64; 2],
    },
    /// Per-flow fair queueing with unbounded queues (`queue/fq.rs`): BFC's
    /// Ideal-FQ.
    Fq {
        quantum_bytes: u64,
        /// Shortest remaining first instead of round robin (IdealSRF).
        #[serde(default)]
        srf: bool,
    },
    /// BFC (`schemes/bfc/queue.rs`, `schemes/bfc/backpressure.rs`).
    Bfc {
        queues: u16,
        table_size: u32,
        assign: Assign,
        quantum_bytes: u64,
        sticky_ps: u64,
        /// BFC-SRF: queues served by their head's remaining size.
        #[serde(default)]
        srf: bool,
    },
}

/// What the engine asks of a discipline before it builds the ports
/// (`queue::Queue` answers the same at run time).
impl Discipline {
    pub fn is_fifo(&self) -> bool {
        matches!(self, Discipline::Fifo)
    }

    /// PFC's port: a data queue that pause frames stop by class.
    pub fn is_pfc(&self) -> bool {
        matches!(self, Discipline::Pfc { .. })
    }

    /// In a switch's shared buffer (PFC's, BFC's and fair queueing's).
    pub fn in_shared_buffer(&self) -> bool {
        matches!(self, Discipline::Pfc { .. } | Discipline::Bfc { .. } | Discipline::Fq { .. })
    }

    /// Per-flow state released as packets leave a shared buffer.
    pub fn needs_shared_buffer(&self) -> bool {
        matches!(self, Discipline::Bfc { .. } | Discipline::Fq { .. })
    }

    /// Keeps a queue (or a share of its queues) per traffic class.
    pub fn has_classes(&self) -> bool {
        matches!(self, Discipline::Pfc { .. } | Discipline::Bfc { .. })
    }

    /// Decides its departures at timers of its own (ExpressPass's).
    pub fn self_timed(&self) -> bool {
        matches!(self, Discipline::Xpass { .. })
    }

    /// Orders by the packets' remaining-size header (BFC-SRF, IdealSRF).
    pub fn orders_by_remaining_size(&self) -> bool {
        matches!(self, Discipline::Bfc { srf: true, .. } | Discipline::Fq { srf: true, .. })
    }
}

/// BFC's backpressure: the pause threshold, and the variants of its
/// appendix.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct BfcConfig {
    /// HRTT: one hop's round trip (`None`: twice the longest link delay at
    /// the switch).
    #[serde(default)]
    pub hrtt_ps: Option<u64>,
    /// A fixed pause threshold instead of HRTT x rate / active queues.
    #[serde(default)]
    pub pause_threshold_bytes: Option<u64>,
    /// Whether host NICs take pauses (false: BFC - NIC, App. A.8: the
    /// first switch counts nothing against a NIC and sends it no frames).
    #[serde(default = "yes")]
    pub nic_pauses: bool,
    /// The fraction of packets a switch recirculates (App. A.8's
    /// sampling): only those count in the flow table and pause counters.
    #[serde(default = "all")]
    pub sample: f64,
    /// Flows labelled by their sender (BFC + IncastLabel, App. A.7): at
    /// every port they share one flow-table entry, hence one queue.
    #[serde(default)]
    pub labelled_flows: Vec<u32>,
}

fn all() -> f64 {
    1.0
}

/// RED-style ECN marking on a queue's length (DCQCN's switches).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct Red {
    pub kmin_bytes: u64,
    pub kmax_bytes: u64,
    pub pmax: f64,
}

fn one() -> u8 {
    1
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MatrixConfig {
    /// Source uniform over hosts, destination uniform over the others.
    AllToAll,
    /// Every flow goes to `dst`; source uniform over the other hosts.
    ManyToOne { dst: u32 },
    /// PIAS Fig. 19: flows from host i to j draw their size from the
    /// workload's CDF when i < j and from `reverse_cdf` when i > j; a
    /// `forward_share` of the flows go forward (each direction's pairs
    /// uniform).
    Heterogeneous { reverse_cdf: Vec<(f64, f64)>, forward_share: f64 },
    /// BFC App. A.5's spatial locality: source uniform; a `local_share` of
    /// the flows go to another host of the source's rack (racks of
    /// `rack_hosts` consecutive hosts), the rest to a host of another
    /// rack, uniformly.
    RackLocal { rack_hosts: u32, local_share: f64 },
}

/// pFabric §5.4.2: a flow below `below_bytes` gets a deadline, its start
/// plus an exponential draw of mean `mean_ps`, but no sooner than
/// `min_factor` times its FCT on the idle network.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct DeadlineConfig {
    pub mean_ps: f64,
    pub below_bytes: u64,
    pub min_factor: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadConfig {
    /// Poisson arrivals of flows with sizes drawn from a CDF.
    Generated {
        /// `(size_bytes, cumulative probability)`, non-decreasing, ending at 1.
        cdf: Vec<(f64, f64)>,
        /// Sizes are rounded up to a multiple of this (1 = whole bytes).
        size_quantum_bytes: u64,
        /// Aggregate arrival rate over the whole network, flows per second.
        arrival_rate_per_s: f64,
        matrix: MatrixConfig,
        flows: u64,
        #[serde(default)]
        start_ps: u64,
        /// Deadlines for the flows below a size (pFabric §5.4.2).
        #[serde(default)]
        deadlines: Option<DeadlineConfig>,
        /// Lognormal inter-arrival times with this sigma (of the
        /// logarithm) and the same mean (BFC §6.2.1: sigma = 2); none:
        /// exponential (Poisson arrivals).
        #[serde(default)]
        lognormal_sigma: Option<f64>,
    },
    /// Requests striped over `senders` hosts towards `dst` (pFabric §5.3,
    /// Fig. 6): each of `requests` requests is one flow of `bytes_each`
    /// from every sender, all starting together; the next request starts
    /// when every flow of the last has finished (a closed loop). With one
    /// request it is N simultaneous flows to one host (Fig. 5).
    Incast { senders: Vec<u32>, dst: u32, bytes_each: u64, requests: u64, #[serde(default)] start_ps: u64 },
    /// Flows read from a trace: `(start_ps, src, dst, size_bytes)`,
    /// sorted by start time.
    Trace { flows: Vec<(u64, u32, u32, u64)> },
}
