//! The hosts' transports, by family, as the engine takes them (the rest of
//! the configuration: `mod.rs`).

use serde::Deserialize;

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
    /// PDQ (`schemes/pdq/`): rates and pauses agreed by every link.
    Pdq(PdqConfig),
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

/// PDQ's hosts and links (SIGCOMM'12; the pFabric paper's Table 1;
/// docs/schemes.md).
#[derive(Clone, Debug, Deserialize)]
pub struct PdqConfig {
    pub mss_bytes: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    /// The sender's top rate, the R_H it asks for (its NIC's; 0: filled in
    /// from the network's host links).
    #[serde(default)]
    pub line_rate_bps: u64,
    /// The fixed retransmission timeout.
    pub rto_ps: u64,
    /// A paused sender probes at least this far apart.
    pub probe_interval_ps: u64,
    /// Early Start's K, in RTTs (0: off).
    pub early_start_k: f64,
    pub early_termination: bool,
    /// Dampening: after accepting a paused flow, a link accepts no other
    /// for this long (0: off).
    pub dampening_ps: u64,
    pub suppressed_probing: bool,
    /// The most flows a link's list holds (the paper's 2 kappa, capped).
    pub max_flows: u32,
    /// The rate controller updates every this many RTTs.
    pub rate_update_rtts: f64,
}

impl PdqConfig {
    /// Table 1's settings on 10 Gb/s hosts, for unit tests.
    #[cfg(test)]
    pub fn test_default() -> PdqConfig {
        PdqConfig {
            mss_bytes: 1460,
            header_bytes: 40,
            ack_bytes: 40,
            line_rate_bps: 10_000_000_000,
            rto_ps: 200_000_000,
            probe_interval_ps: 15_000_000,
            early_start_k: 2.0,
            early_termination: true,
            dampening_ps: 15_000_000,
            suppressed_probing: true,
            max_flows: 64,
            rate_update_rtts: 2.0,
        }
    }
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
    /// After a safety timeout, the packets sent again ask for an ACK and
    /// the receiver answers even a duplicate (`schemes/rdma`): runs with
    /// faults, whose lost ACKs would otherwise stall a flow for good.
    #[serde(default)]
    pub answer_duplicates: bool,
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
            TransportConfig::Pdq(c) => c.mss_bytes,
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
            TransportConfig::Pdq(c) => c.header_bytes,
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
            TransportConfig::Pdq(c) => c.ack_bytes,
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
    /// (`Endpoint::poll`) instead of taking what it pushes.
    pub fn pulled(&self) -> bool {
        matches!(
            self,
            TransportConfig::Rdma(_) | TransportConfig::Homa(_) | TransportConfig::Pdq(_) | TransportConfig::Custom(CustomConfig { pulled: true, .. })
        )
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
    /// No rate control (pFabric at line rate): the initial window, kept.
    LineRate,
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
