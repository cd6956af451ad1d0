//! The engine's input: a fully resolved experiment, with every default
//! already filled in and every unit already converted (bits per second,
//! bytes, picoseconds). The Python layer validates user specs and produces
//! this as JSON; the engine only checks what it must to stay safe.

use serde::Deserialize;

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

/// How BFC's ports assign flows to queues (`queue/bfc.rs`).
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
    /// ExpressPass's port (`queue/xpass.rs`): credits through a token
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
    /// BFC (`queue/bfc.rs`, `backpressure.rs`).
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

/// The hosts' transport, by kind (one per scheme family).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TransportConfig {
    Tcp(TcpConfig),
    /// RDMA queue pairs (`schemes/rdma/`): paced, go-back-N, pulled by
    /// the NIC.
    Rdma(RdmaConfig),
    /// ExpressPass (`schemes/xpass/`): receiver-driven credits.
    Xpass(XpassConfig),
    /// Homa (`schemes/homa/`): unscheduled bytes, then grants, with
    /// network priorities.
    Homa(HomaConfig),
    /// A transport defined outside the engine, whose endpoints a factory
    /// given to `Simulation::with_transport` makes (docs/extending.md).
    Custom(CustomConfig),
}

/// What the engine needs to know of a transport defined outside it; its
/// own settings travel in `params`, for its factory to read.
#[derive(Clone, Debug, Deserialize)]
pub struct CustomConfig {
    pub mss_bytes: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    /// The NIC pulls its data (`Endpoint::poll`) instead of taking what it
    /// pushes (`start`, `on_ack`, `on_timer`).
    #[serde(default)]
    pub pulled: bool,
    #[serde(default)]
    pub params: serde_json::Value,
}

/// Homa's hosts (its OMNeT++ simulator's, as BFC App. A.2 ran it;
/// docs/schemes.md).
#[derive(Clone, Debug, Deserialize)]
pub struct HomaConfig {
    pub mss_bytes: u32,
    pub header_bytes: u32,
    /// A grant on the wire.
    pub grant_bytes: u32,
    /// Priority levels in all (switch queues).
    pub levels: u8,
    /// Levels of unscheduled packets (0: in proportion to the unscheduled
    /// bytes of `size_cdf`, BFC App. A.2; resolved before the run).
    #[serde(default)]
    pub unscheduled_levels: u8,
    /// Messages a receiver grants to at once (0: as many as there are
    /// scheduled levels, BFC App. A.2; resolved before the run).
    #[serde(default)]
    pub overcommit: u8,
    /// A message's unscheduled bytes and what its receiver keeps in flight
    /// (`None`: the BDP of the network's longest base RTT at the NICs'
    /// rate, resolved before the run).
    #[serde(default)]
    pub rtt_bytes: Option<u64>,
    /// The message sizes the unscheduled levels are computed for (the
    /// workload's CDF rows), and their quantum.
    pub size_cdf: Vec<(f64, f64)>,
    #[serde(default = "one_u64")]
    pub size_quantum_bytes: u64,
    /// The largest remaining size of each unscheduled level but the last
    /// (resolved before the run from `size_cdf`: `schemes/homa/levels.rs`).
    #[serde(default)]
    pub cutoffs: Vec<u64>,
}

fn one_u64() -> u64 {
    1
}

/// ExpressPass's hosts (the ns-2 `Agent/XPass` defaults and the BFC
/// co-author's scripts; docs/schemes.md).
#[derive(Clone, Debug, Deserialize)]
pub struct XpassConfig {
    pub mss_bytes: u32,
    /// Header bytes of a data packet on the wire (with preamble and gap).
    pub header_bytes: u32,
    /// Credit requests, CREDIT_STOP and NACKs: a minimum frame.
    pub control_bytes: u32,
    /// A credit's mean size, and the spread of a uniform size around it
    /// (0: every credit this size).
    pub credit_bytes: u32,
    #[serde(default)]
    pub credit_size_spread: u32,
    /// The receiver's top credit rate, in credit bits per second (its
    /// link's rate times credit / (credit + data frame)).
    pub max_credit_rate_bps: u64,
    /// First credit rate as a fraction of the top one.
    pub alpha: f64,
    pub w_init: f64,
    pub w_min: f64,
    pub w_max: f64,
    pub w_step: f64,
    /// Target credit loss at zero rate (it falls linearly to 0 at the top).
    pub target_loss: f64,
    /// Credit gaps vary uniformly by +- this fraction.
    pub jitter: f64,
    /// A credit request is sent again after this long without a credit.
    pub request_timeout_ps: u64,
}

/// An RDMA queue pair (the HPCC simulator's NIC model).
#[derive(Clone, Debug, Deserialize)]
pub struct RdmaConfig {
    pub mss_bytes: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    /// The NIC's rate: where a flow starts and the most it may send at.
    pub line_rate_bps: u64,
    /// Bytes in flight at most (`None`: no window).
    #[serde(default)]
    pub window_bytes: Option<u64>,
    /// Scale the window by the rate over the line rate.
    #[serde(default)]
    pub var_win: bool,
    /// `window_bytes` is the BDP of the network's longest base RTT at the
    /// line rate (filled in by the simulation; BFC - NIC's cap, App. A.8).
    #[serde(default)]
    pub window_bdp: bool,
    /// HPCC's T and W (and the window) from each flow's own base RTT, not
    /// the network's longest (the simulator's `GLOBAL_T 0`).
    #[serde(default)]
    pub pair_rtt: bool,
    /// Each data packet carries its flow's remaining size (BFC-SRF's
    /// header, App. A.2), and the NIC serves its flows shortest remaining
    /// first.
    #[serde(default)]
    pub srf: bool,
    /// Idealized retransmission (BFC §6.4's HPCC-PFC): a packet dropped
    /// in the network is known to its sender at once and sent again alone;
    /// the receiver keeps packets out of order (no go-back-N).
    #[serde(default)]
    pub perfect_retransmit: bool,
    /// At most one NACK per this interval for the same expected packet.
    pub nack_interval_ps: u64,
    /// A safety timeout (go back to the first unacknowledged packet).
    #[serde(default)]
    pub rto_ps: Option<u64>,
    pub cc: RdmaCc,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RdmaCc {
    /// Line rate, no reaction to congestion.
    None,
    /// DCQCN, Mellanox's version as the HPCC simulator has it.
    Dcqcn(DcqcnConfig),
    /// DCQCN as ns3-rdma has it (`schemes/rdma/cc/dcqcn_ns3.rs`): CNPs per
    /// interval from the receiver, cuts at once, timer and byte counts.
    DcqcnNs3(DcqcnNs3Config),
    /// HPCC (SIGCOMM'19): rate from the in-band telemetry of every hop.
    Hpcc(HpccConfig),
    /// DCTCP as the HPCC simulator runs it on RDMA NICs: a rate cut by
    /// alpha/2 per window with marks, additive increase per window.
    Dctcp(DctcpRdmaConfig),
    /// BFC's simple end-to-end control (App. A.1, Algorithm 1): a window
    /// that steers each ACK's RTT towards a target, at line rate.
    Delay(DelayCcConfig),
}

/// BFC App. A.1's delay-based window: `target_factor` x T is the target
/// RTT; the window starts at one BDP (T at the line rate).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct DelayCcConfig {
    pub target_factor: f64,
    /// T (`None`: the network's longest base RTT, as HPCC's).
    #[serde(default)]
    pub base_rtt_ps: Option<u64>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct DctcpRdmaConfig {
    /// Gain of alpha's average.
    pub g: f64,
    /// Additive increase per window without marks.
    pub rai_bps: u64,
    pub min_rate_bps: u64,
    /// Slow start from this many packets (`None`: start at line rate,
    /// a window of the BDP, as BFC §6.2.1 ran DCTCP).
    #[serde(default)]
    pub init_window_pkts: Option<u32>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct HpccConfig {
    /// Target utilization (eta).
    pub eta: f64,
    /// Additive increase steps before a multiplicative one (maxStage).
    pub max_stage: u32,
    pub rai_bps: u64,
    pub min_rate_bps: u64,
    /// T: the base RTT the utilization is averaged over (`None`: the
    /// network's longest, as the simulator's `GLOBAL_T 1`, filled in by
    /// the simulation).
    #[serde(default)]
    pub base_rtt_ps: Option<u64>,
    /// The window W the queue term is normalized by, bytes (`None`: T at
    /// the line rate, the simulator's `maxBdp`).
    #[serde(default)]
    pub window_bytes: Option<u64>,
    /// Units of the telemetry's byte and queue counters (the simulator's
    /// 128 and 80 bytes times its `INT_MULTI`); 1: exact.
    pub int_bytes_unit: u64,
    pub int_qlen_unit: u64,
    /// Bytes of the telemetry header on every data packet and ACK (the
    /// simulator's 5 hops x 8 B + 2 B), beyond the packets' usual headers:
    /// on the wire, not in a flow's ideal FCT (as the simulator counts it).
    #[serde(default)]
    pub int_header_bytes: u32,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct DcqcnConfig {
    pub alpha_interval_ps: u64,
    pub decrease_interval_ps: u64,
    pub increase_interval_ps: u64,
    pub g: f64,
    pub rate_on_first_cnp: f64,
    pub fast_recovery_times: u32,
    pub ai_bps: u64,
    pub hai_bps: u64,
    pub min_rate_bps: u64,
    pub clamp_target_rate: bool,
}

/// ns3-rdma's DCQCN (`schemes/rdma/cc/dcqcn_ns3.rs`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct DcqcnNs3Config {
    /// The receiver sends at most one CNP per flow per this interval.
    pub cnp_interval_ps: u64,
    pub alpha_interval_ps: u64,
    /// The rate-increase timer (half of it in hyper increase).
    pub increase_interval_ps: u64,
    /// Bytes sent per byte-counter step (half of it in hyper increase).
    pub byte_counter_bytes: u64,
    pub g: f64,
    pub initial_alpha: f64,
    pub fast_recovery_times: u32,
    pub ai_bps: u64,
    pub hai_bps: u64,
    pub min_rate_bps: u64,
    /// A CNP sets the target to the current rate (else only once the byte
    /// counter has counted).
    pub clamp_target_rate: bool,
}

impl TransportConfig {
    /// RDMA queue pairs with idealized retransmission.
    #[inline]
    pub fn perfect_retransmit(&self) -> bool {
        matches!(self, TransportConfig::Rdma(RdmaConfig { perfect_retransmit: true, .. }))
    }

    /// Payload bytes of a full data packet.
    pub fn mss_bytes(&self) -> u32 {
        match self {
            TransportConfig::Tcp(c) => c.mss_bytes,
            TransportConfig::Rdma(c) => c.mss_bytes,
            TransportConfig::Xpass(c) => c.mss_bytes,
            TransportConfig::Homa(c) => c.mss_bytes,
            TransportConfig::Custom(c) => c.mss_bytes,
        }
    }

    /// Header bytes of a data packet.
    pub fn header_bytes(&self) -> u32 {
        match self {
            TransportConfig::Tcp(c) => c.header_bytes,
            TransportConfig::Rdma(c) => c.header_bytes,
            TransportConfig::Xpass(c) => c.header_bytes,
            TransportConfig::Homa(c) => c.header_bytes,
            TransportConfig::Custom(c) => c.header_bytes,
        }
    }

    /// Bytes of an acknowledgement on the wire.
    pub fn ack_bytes(&self) -> u32 {
        match self {
            TransportConfig::Tcp(c) => c.ack_bytes,
            TransportConfig::Rdma(c) => c.ack_bytes,
            TransportConfig::Xpass(c) => c.control_bytes,
            TransportConfig::Homa(c) => c.grant_bytes,
            TransportConfig::Custom(c) => c.ack_bytes,
        }
    }

    /// Connections per host pair that flows reuse (`None`: a new one per flow).
    pub fn connections_per_pair(&self) -> Option<u32> {
        match self {
            TransportConfig::Tcp(c) => c.connections_per_pair,
            _ => None,
        }
    }

    /// The NIC pulls this transport's data packets when its line is free
    /// (`Transport::poll`) instead of taking what it pushes.
    pub fn pulled(&self) -> bool {
        matches!(self, TransportConfig::Rdma(_) | TransportConfig::Homa(_) | TransportConfig::Custom(CustomConfig { pulled: true, .. }))
    }

    /// Messages end at the receiver, with nothing sent back (Homa's): the
    /// FCT and its ideal are one-way whatever `fct_at` says.
    pub fn one_way(&self) -> bool {
        matches!(self, TransportConfig::Homa(_))
    }

    /// The NIC serves its flows shortest remaining first (Homa's sender),
    /// not round robin.
    pub fn nic_srpt(&self) -> bool {
        matches!(self, TransportConfig::Homa(_) | TransportConfig::Rdma(RdmaConfig { srf: true, .. }))
    }

    /// Flows take their base RTT from their own path (`RdmaConfig::pair_rtt`).
    pub fn pair_rtt(&self) -> bool {
        matches!(self, TransportConfig::Rdma(RdmaConfig { pair_rtt: true, .. }))
    }

    /// Switches stamp in-band telemetry on data packets (HPCC).
    pub fn telemetry(&self) -> bool {
        matches!(self, TransportConfig::Rdma(RdmaConfig { cc: RdmaCc::Hpcc(_), .. }))
    }
}

#[derive(Clone, Debug, Deserialize)]
pub struct TcpConfig {
    pub mss_bytes: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub init_cwnd_pkts: f64,
    #[serde(default)]
    pub max_cwnd_pkts: Option<f64>,
    pub min_rto_ps: u64,
    /// RTO before the first RTT sample.
    pub init_rto_ps: u64,
    pub max_rto_ps: u64,
    pub fast_retransmit: bool,
    pub dupack_threshold: u32,
    /// ECN: send ECT and react to echoes (how: `cc`).
    #[serde(default)]
    pub ecn: bool,
    /// The window's reaction to ECN echoes.
    #[serde(default)]
    pub cc: Cc,
    /// pFabric's rate control: the timeout is `min_rto_ps`, with no RTT
    /// estimate and no backoff.
    #[serde(default)]
    pub fixed_rto: bool,
    /// pFabric's probe mode: after this many timeouts in a row, send only
    /// minimal probes until the receiver answers.
    #[serde(default)]
    pub probe_after: Option<u32>,
    /// The priority stamped on data packets.
    #[serde(default)]
    pub prio: Prio,
    /// Flows reuse connections: this many per host pair (the ns-2 scripts'
    /// `connections_per_pair`); `None`: every flow on a new connection.
    #[serde(default)]
    pub connections_per_pair: Option<u32>,
    /// A connection a pool opens on the fly (all of its pair's busy) does
    /// ns-2 FullTcp's handshake before its first flow's data: a SYN, and
    /// the data at the SYN-ACK. The pool's first connections are open
    /// before the flows start (the scripts' warm-up transfers).
    #[serde(default)]
    pub handshake: bool,
    /// `Prio::Deadline`: the rate at which a deadline is judged reachable
    /// (the ns-2 code: the 10 Gb/s host link).
    #[serde(default = "ten_gbps")]
    pub edf_rate_bps: u64,
    /// RTT samples as ns-2's TCP without timestamps takes them: one timed
    /// segment per window, none retransmitted (Karn); otherwise a sample
    /// from every ACK's timestamp echo (RFC 7323).
    #[serde(default)]
    pub rtt_per_window: bool,
    /// What the congestion window bounds outside fast recovery. `false`
    /// (RFC 6675): the segments in flight, so SACKed segments free room and
    /// a sender behind a hole keeps sending new data. `true` (ns-2's
    /// FullTcp, `send_allowed` without `pipectrl_`): the span above the
    /// cumulative ACK, SACKed or not, so a sender behind a hole sends at
    /// most a window past it until the hole is filled.
    #[serde(default)]
    pub window_span: bool,
    /// Priority classes (PIAS's MLFQ, pFabric §6's few queues): when given,
    /// a data packet carries the index of the first threshold its `prio`
    /// value does not exceed (the number of thresholds if it exceeds them
    /// all) instead of the value; strict-priority ports serve class 0 first.
    #[serde(default)]
    pub prio_thresholds: Vec<u64>,
    /// The receiver acknowledges every `ack_every`-th in-order segment, or
    /// `ack_delay_ps` after the first it holds (`schemes/tcp/delayed_ack.rs`:
    /// Linux's receive offload and delayed ACKs); 1: every segment, as
    /// ns-2's sinks. Above 1, slow start grows by the segments an ACK
    /// covers, as Linux's `tcp_slow_start` does.
    #[serde(default = "every_segment")]
    pub ack_every: u32,
    #[serde(default)]
    pub ack_delay_ps: u64,
}

fn every_segment() -> u32 {
    1
}

fn ten_gbps() -> u64 {
    10_000_000_000
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cc {
    /// NewReno: halve on an echo (RFC 3168).
    #[default]
    Reno,
    /// DCTCP (SIGCOMM'10): cut by alpha/2, alpha the EWMA (gain g) of the
    /// fraction of marked bytes per window.
    Dctcp { g: f64 },
    /// L2DCT (INFOCOM'15), as the PIAS scripts run it: DCTCP's alpha, with
    /// a weight w from the bytes the flow has sent (w_max up to size_min,
    /// w_min from size_max, linear between): a cut by alpha^w / 2, and in
    /// congestion avoidance w / w_max packets per window of ACKs; with
    /// `ns2_double_count`, the PIAS ns-2 code's increase, which counts most
    /// ACKs twice (about two packets per window whatever w).
    L2dct { g: f64, w_min: f64, w_max: f64, size_min: u64, size_max: u64, ns2_double_count: bool },
    /// CUBIC (RFC 8312) as Linux 3.18 runs it (`schemes/tcp/cc/cubic.rs`): the
    /// window law of losses and echoes; slow start and recovery as Reno's.
    Cubic { c: f64, beta: f64, fast_convergence: bool, tcp_friendly: bool },
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Prio {
    /// None (0): for FIFO ports.
    #[default]
    None,
    /// pFabric's default (§4.2): the flow's bytes not yet acknowledged.
    RemainingSize,
    /// The flow's size (pFabric §5.4.3, Fig. 14).
    FlowSize,
    /// Bytes sent before this packet: least attained service (pFabric
    /// §5.4.3 "BytesSent"; LAS in the PIAS paper).
    BytesSent,
    /// pFabric-EDF (§5.4.2): a flow with a deadline sends in the first
    /// class with its deadline as priority (earliest deadline first) until
    /// the deadline can no longer be met at `edf_rate_bps`; then, and for
    /// flows without one, the remaining size in the second class.
    Deadline,
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
