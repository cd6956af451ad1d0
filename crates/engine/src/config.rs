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
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LoadBalancing {
    /// Per-flow hashing onto one of the equal-cost next hops.
    Ecmp,
    /// Per-packet random choice among the equal-cost next hops.
    Spray,
}

#[derive(Clone, Debug, Deserialize)]
pub struct RoutingConfig {
    pub load_balancing: LoadBalancing,
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
    /// event). Off only to test it against the general path.
    #[serde(default = "yes")]
    pub fifo_fast_path: bool,
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

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Discipline {
    Fifo,
    Pfabric { starvation_prevention: bool },
}

fn yes() -> bool {
    true
}

/// The hosts' transport, by kind (one per scheme family).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TransportConfig {
    Tcp(TcpConfig),
}

impl TransportConfig {
    /// Payload bytes of a full data packet.
    pub fn mss_bytes(&self) -> u32 {
        match self {
            TransportConfig::Tcp(c) => c.mss_bytes,
        }
    }

    /// Header bytes of a data packet.
    pub fn header_bytes(&self) -> u32 {
        match self {
            TransportConfig::Tcp(c) => c.header_bytes,
        }
    }

    /// Bytes of an acknowledgement on the wire.
    pub fn ack_bytes(&self) -> u32 {
        match self {
            TransportConfig::Tcp(c) => c.ack_bytes,
        }
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
    /// RFC 3168 ECN: send ECT, halve the window on ECN echo.
    #[serde(default)]
    pub ecn: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MatrixConfig {
    /// Source uniform over hosts, destination uniform over the others.
    AllToAll,
    /// Every flow goes to `dst`; source uniform over the other hosts.
    ManyToOne { dst: u32 },
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
    },
    /// Flows read from a trace: `(start_ps, src, dst, size_bytes)`,
    /// sorted by start time.
    Trace { flows: Vec<(u64, u32, u32, u64)> },
}
