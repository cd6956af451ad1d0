//! The schemes, one folder per family, and the registry that ties them to
//! the engine: the one place that names every family.
//!
//! - `tcp`: tcp, dctcp, l2dct, pfabric, pias, las, prio_queues (and the
//!   transport of pFabric's few-queue and deadline variants);
//! - `rdma`: dcqcn, dcqcn_ns3rdma, hpcc, dctcp_rdma, ideal_fq_packet,
//!   ideal_srf_packet, and the hosts of bfc;
//! - `homa`, `xpass` (expresspass): receiver-driven;
//! - `pdq`: its hosts and the flow lists of every link;
//! - `bfc`, `pfabric`: their switches.
//!
//! A scheme plugs in at two seams (docs/design.md, "The scheme seam";
//! docs/extending.md): per flow, its endpoints (`transport::Endpoint`, one
//! arm of `Transport`); per node, what it keeps across flows at hosts or
//! switches, reached through hooks that the packet path calls at fixed
//! points (`Hosts` here; `hooks.rs` for the switches). The flow-level
//! models (Ideal, Ideal-FQ) are models of the run, not transports
//! (`flow_level.rs`).

pub mod bfc;
pub mod homa;
pub mod pdq;
pub mod pfabric;
pub mod rdma;
pub mod tcp;
pub mod xpass;

use crate::config::{Config, QueueConfig, RdmaConfig, TransportConfig};
pub use pdq::switch::LinkNow;
use crate::flows::FlowTable;
use crate::packet::{Hop, Kind, Packet, PacketId};
use crate::port::Port;
use crate::time::Time;
use crate::topology::Network;
use crate::transport::CustomEndpoint;
use crate::transport::{Cx, Endpoint, Factory, IntHop, NewFlow, Poll, Segment};
use crate::workload::FlowSpec;

/// Both endpoints of one flow, by transport family.
pub enum Transport {
    /// The TCP family: NewReno + SACK delivery, its window laws.
    Tcp(tcp::TcpFlow),
    /// An RDMA queue pair: paced, go-back-N, pulled by the NIC.
    Rdma(rdma::RdmaFlow),
    /// ExpressPass: the receiver's credits let the sender's data out.
    Xpass(xpass::XpassFlow),
    /// Homa: unscheduled bytes, then the receiver's grants.
    Homa(homa::HomaFlow),
    /// PDQ: the rate and pauses every link on the path agreed on.
    Pdq(pdq::PdqFlow),
    /// A transport defined outside the engine.
    Custom(CustomEndpoint),
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Transport::Tcp(t) => t.fmt(f),
            Transport::Rdma(t) => t.fmt(f),
            Transport::Xpass(t) => t.fmt(f),
            Transport::Homa(t) => t.fmt(f),
            Transport::Pdq(t) => t.fmt(f),
            Transport::Custom(_) => f.write_str("Custom"),
        }
    }
}

/// A flow's endpoint and its configuration, by transport (a flow's
/// transport is the configuration's: other pairs cannot occur); `$body`
/// is written once for every arm.
macro_rules! each {
    ($ep:expr, $cfg:expr, |$t:ident, $c:ident| $body:expr) => {
        match ($ep, $cfg) {
            (Transport::Tcp($t), TransportConfig::Tcp($c)) => $body,
            (Transport::Rdma($t), TransportConfig::Rdma($c)) => $body,
            (Transport::Xpass($t), TransportConfig::Xpass($c)) => $body,
            (Transport::Homa($t), TransportConfig::Homa($c)) => $body,
            (Transport::Pdq($t), TransportConfig::Pdq($c)) => $body,
            (Transport::Custom($t), TransportConfig::Custom($c)) => $body,
            _ => unreachable!("a flow's transport is its configuration's"),
        }
    };
}

/// A query that needs no configuration, for every arm.
macro_rules! each_ep {
    ($ep:expr, |$t:ident| $body:expr) => {
        each_arm!($ep, Transport[Tcp, Rdma, Xpass, Homa, Pdq, Custom], $t => $body)
    };
}

/// The `Cx` of one hook call on a family's configuration.
macro_rules! cx {
    ($now:expr, $c:expr, $tel:expr, $out:expr) => {
        &mut Cx { now: $now, cfg: $c, telemetry: $tel, out: $out }
    };
}

/// The hooks of `Endpoint`, on whichever transport a flow runs.
impl Transport {
    #[inline]
    pub fn start(&mut self, now: Time, cfg: &TransportConfig, out: &mut Vec<Segment>) {
        each!(self, cfg, |t, c| Endpoint::start(t, cx!(now, c, &[], out)))
    }

    #[inline]
    pub fn poll(&mut self, now: Time, cfg: &TransportConfig, out: &mut Vec<Segment>) -> Poll {
        each!(self, cfg, |t, c| Endpoint::poll(t, cx!(now, c, &[], out)))
    }

    #[inline]
    pub fn on_ack(&mut self, now: Time, pkt: &Packet, telemetry: &[IntHop], cfg: &TransportConfig, out: &mut Vec<Segment>) {
        each!(self, cfg, |t, c| Endpoint::on_ack(t, cx!(now, c, telemetry, out), pkt))
    }

    #[inline]
    pub fn on_loss(&mut self, seq: u32) {
        each_ep!(self, |t| Endpoint::on_loss(t, seq))
    }

    #[inline]
    pub fn on_data(&mut self, now: Time, pkt: &Packet, cfg: &TransportConfig, out: &mut Vec<Segment>) -> Option<Packet> {
        each!(self, cfg, |t, c| Endpoint::on_data(t, cx!(now, c, &[], out), pkt))
    }

    #[inline]
    pub fn receiver_drives(&self) -> bool {
        each_ep!(self, |t| Endpoint::receiver_drives(t))
    }

    pub fn take_reply(&mut self, now: Time) -> Option<Packet> {
        each_ep!(self, |t| Endpoint::take_reply(t, now))
    }

    #[inline]
    pub fn timer_kinds(&self) -> u8 {
        each_ep!(self, |t| Endpoint::timer_kinds(t))
    }

    #[inline]
    pub fn deadline(&self, kind: u8) -> Option<Time> {
        each_ep!(self, |t| Endpoint::deadline(t, kind))
    }

    pub fn on_timer(&mut self, now: Time, kind: u8, cfg: &TransportConfig, out: &mut Vec<Segment>) {
        each!(self, cfg, |t, c| Endpoint::on_timer(t, cx!(now, c, &[], out), kind))
    }

    #[inline]
    pub fn receiver_complete(&self) -> bool {
        each_ep!(self, |t| Endpoint::receiver_complete(t))
    }

    #[inline]
    pub fn sender_done(&self) -> bool {
        each_ep!(self, |t| Endpoint::sender_done(t))
    }

    pub fn delivered_bytes(&self, cfg: &TransportConfig) -> u64 {
        each!(self, cfg, |t, c| Endpoint::delivered_bytes(t, c))
    }

    #[inline]
    pub fn terminated(&self) -> bool {
        each_ep!(self, |t| Endpoint::terminated(t))
    }

    #[inline]
    pub fn retransmits(&self) -> u32 {
        each_ep!(self, |t| Endpoint::retransmits(t))
    }

    #[inline]
    pub fn duplicates(&self) -> u32 {
        each_ep!(self, |t| Endpoint::duplicates(t))
    }

    #[inline]
    pub fn timeouts(&self) -> u32 {
        each_ep!(self, |t| Endpoint::timeouts(t))
    }

    #[inline]
    pub fn bytes_left(&self, cfg: &TransportConfig) -> u64 {
        each!(self, cfg, |t, c| Endpoint::bytes_left(t, c))
    }

    #[inline]
    pub fn next_avail(&self) -> Time {
        each_ep!(self, |t| Endpoint::next_avail(t))
    }
}

impl homa::grants::AsHoma for Transport {
    #[inline]
    fn homa(&mut self) -> Option<&mut homa::HomaFlow> {
        match self {
            Transport::Homa(h) => Some(h),
            _ => None,
        }
    }
}

/// What a transport family keeps at the hosts across flows: the hooks of
/// the per-node seam on the hosts' side.
pub enum Hosts {
    /// The connection pools, when flows reuse connections (`tcp/pool.rs`).
    Tcp(Option<tcp::pool::ConnPools>),
    Rdma,
    Xpass,
    /// The receivers' grant scheduler (`homa/grants.rs`).
    Homa(homa::grants::Receivers),
    Pdq,
    /// A transport defined outside the engine, and what makes its flows.
    Custom(Box<dyn Factory>),
}

impl Hosts {
    /// The hosts' state for transport `cfg` on `hosts` hosts; a transport
    /// defined outside the engine needs its `factory`.
    pub fn new(cfg: &TransportConfig, hosts: u32, factory: Option<Box<dyn Factory>>) -> Result<Hosts, String> {
        Ok(match cfg {
            TransportConfig::Tcp(c) => Hosts::Tcp(c.connections_per_pair.map(tcp::pool::ConnPools::new)),
            TransportConfig::Rdma(_) => Hosts::Rdma,
            TransportConfig::Xpass(_) => Hosts::Xpass,
            TransportConfig::Homa(_) => Hosts::Homa(homa::grants::Receivers::new(hosts)),
            TransportConfig::Pdq(_) => Hosts::Pdq,
            TransportConfig::Custom(_) => Hosts::Custom(factory.ok_or(
                "transport custom is defined outside the engine: build the simulation with \
                 Simulation::with_transport and its factory",
            )?),
        })
    }

    /// A flow starts: its endpoints, and whether it opened a connection
    /// to do so (a pool with all of its pair's busy).
    pub fn new_flow(&mut self, f: &NewFlow, cfg: &TransportConfig) -> (Transport, bool) {
        match (self, cfg) {
            (Hosts::Tcp(pools), TransportConfig::Tcp(c)) => {
                let (conn, opened_now) = pools.as_mut().map_or((None, false), |p| p.take(f.spec.src, f.spec.dst));
                let handshake = opened_now && c.handshake;
                (Transport::Tcp(tcp::TcpFlow::new(f, c, conn, handshake)), opened_now)
            }
            (Hosts::Rdma, TransportConfig::Rdma(c)) => (Transport::Rdma(rdma::new_flow(f, c)), false),
            (Hosts::Xpass, TransportConfig::Xpass(c)) => (Transport::Xpass(xpass::XpassFlow::new(f.spec, c, f.seed)), false),
            (Hosts::Homa(_), TransportConfig::Homa(c)) => (Transport::Homa(homa::HomaFlow::new(f.spec, c)), false),
            (Hosts::Pdq, TransportConfig::Pdq(c)) => (Transport::Pdq(pdq::PdqFlow::new(f, c)), false),
            (Hosts::Custom(make), TransportConfig::Custom(c)) => (Transport::Custom(make.new_flow(f, c)), false),
            _ => unreachable!("the hosts' state is the transport's"),
        }
    }

    /// A flow's sender is done: a pooled connection goes back to its pool.
    pub fn flow_ends(&mut self, spec: &FlowSpec, ep: &Transport) {
        if let (Hosts::Tcp(Some(pools)), Transport::Tcp(t)) = (self, ep) {
            pools.give_back(spec.src, spec.dst, t.snd.conn());
        }
    }

    /// Data packet `pkt` counts as scheduled (Homa's: beyond its message's
    /// unscheduled bytes), for the queueing-delay subsets.
    pub fn scheduled(&self, pkt: &Packet, cfg: &TransportConfig) -> bool {
        matches!(cfg, TransportConfig::Homa(h) if pkt.seq >= h.rtt_packets())
    }

    /// The hosts act on the data their receivers take (`after_data`).
    pub fn acts_after_data(&self) -> bool {
        matches!(self, Hosts::Homa(_))
    }

    /// A data packet of flow `id` (in `slot`) reached its receiver `host`,
    /// which took it: the packets the host sends in answer go into `out`
    /// (Homa's grants).
    pub fn after_data(
        &mut self,
        host: u32,
        slot: u32,
        id: u32,
        flows: &mut FlowTable<Transport>,
        cfg: &TransportConfig,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        if let (Hosts::Homa(r), TransportConfig::Homa(c)) = (self, cfg) {
            r.on_data(host, slot, id, flows, c, now, out);
        }
    }
}

/// The per-node seam: what the schemes keep across flows, at hosts and
/// switches, and the hooks the packet path calls at fixed points (a NIC
/// sends, a packet enters or leaves a switch port, a host takes data, a
/// pause frame arrives). The engine never names a scheme: it calls these.
pub struct Nodes {
    /// The transport family's state at the hosts.
    pub hosts: Hosts,
    /// BFC-SRF's remaining-size header (`rdma/srf.rs`).
    srf: Option<rdma::srf::Srf>,
    /// HPCC's in-band telemetry (`rdma/telemetry.rs`).
    telemetry: Option<rdma::telemetry::Stamps>,
    /// BFC's pause counters (`bfc/backpressure.rs`).
    bfc: Option<bfc::backpressure::Backpressure>,
    /// PDQ's flow lists, one per link (`pdq/switch.rs`).
    pdq: Option<pdq::switch::Links>,
}

/// A pause or resume frame a hook asks a switch to send.
pub use bfc::switch::Frame;

impl Nodes {
    /// What the schemes of `cfg` keep, on `net` with `ports`; a transport
    /// defined outside the engine needs its `factory`.
    pub fn new(cfg: &Config, net: &Network, factory: Option<Box<dyn Factory>>) -> Result<Nodes, String> {
        let srf = match &cfg.transport {
            TransportConfig::Rdma(RdmaConfig { srf: true, mss_bytes, .. }) => Some(rdma::srf::Srf::new(*mss_bytes as u64)),
            _ => None,
        };
        Ok(Nodes {
            hosts: Hosts::new(&cfg.transport, net.hosts, factory)?,
            srf,
            telemetry: rdma::telemetry::Stamps::of(&cfg.transport),
            bfc: bfc::switch::backpressure(cfg, net),
            pdq: match &cfg.transport {
                TransportConfig::Pdq(c) => Some(pdq::switch::Links::new(net.links.len(), c)),
                _ => None,
            },
        })
    }

    // ---- a NIC sends ----

    /// A NIC builds data packet `pkt` of the flow in `slot`, whose
    /// endpoints are `ep`: the queue it leaves the NIC by, which the next
    /// switch names in a pause (BFC's upstreamQ, in `prio`); the header
    /// its sender writes (PDQ's scheduling header).
    #[inline]
    pub fn nic_builds(&self, pkt: &mut Packet, slot: u32, ep: &Transport, cfg: &TransportConfig) {
        if let Some(bp) = &self.bfc {
            pkt.prio = bfc::switch::nic_queue(bp, slot, pkt.flow);
        }
        if let (Transport::Pdq(t), TransportConfig::Pdq(c)) = (ep, cfg) {
            t.write_header(pkt, c);
        }
    }

    // ---- every link, a NIC's or a switch's ----

    /// The scheme schedules flows at every link, reading and rewriting a
    /// header on every packet that crosses one (PDQ): the packet path
    /// calls `leaves_by` and `comes_back`.
    #[inline]
    pub fn schedules_links(&self) -> bool {
        self.pdq.is_some()
    }

    /// Packet `pkt` leaves by link `at` (its NIC's or a switch's port):
    /// from its flow's sender, the link's scheduler decides on it (PDQ's
    /// Algorithm 1).
    pub fn leaves_by(&mut self, at: LinkNow, pkt: &mut Packet, cfg: &TransportConfig) {
        if let (Some(l), TransportConfig::Pdq(c)) = (&mut self.pdq, cfg) {
            if pdq::switch::from_sender(pkt) {
                l.forward(at, pkt, c);
            }
        }
    }

    /// Packet `pkt` arrives over the link whose port here is `port` (the
    /// port its flow's data leaves by, on a symmetric path): an ACK
    /// commits what its path decided (PDQ's Algorithm 3).
    pub fn comes_back(&mut self, port: u32, pkt: &mut Packet, cfg: &TransportConfig) {
        if let (Some(l), TransportConfig::Pdq(c)) = (&mut self.pdq, cfg) {
            if pdq::switch::carries_back(pkt) {
                l.reverse(port, pkt, c);
            }
        }
    }

    /// A NIC sends data packet `id`, segment `seq` of a flow of `size`
    /// bytes: the headers that ride beside it start.
    #[inline]
    pub fn nic_sends(&mut self, id: PacketId, size: u64, seq: u32) {
        if let Some(s) = &mut self.srf {
            s.tag(id, size, seq);
        }
        if let Some(t) = &mut self.telemetry {
            t.clear(id);
        }
    }

    /// A scheme holds flow `flow` back at `host`'s NIC, beside the pauses
    /// of the flow's own queue and of its class (BFC's IncastLabel: the
    /// labelled flows' one queue is paused).
    #[inline]
    pub fn nic_holds(&self, host: u32, flow: u32) -> bool {
        self.bfc.as_ref().is_some_and(|b| b.held_at_nic(host, flow))
    }

    /// A frame reaches `host`'s NIC naming `queue`, which is no flow's own:
    /// whether it is a scheme's (the labelled flows' queue), paused or
    /// resumed now.
    pub fn nic_frame(&mut self, host: u32, queue: u32, pause: bool) -> bool {
        match &mut self.bfc {
            Some(b) if queue == bfc::backpressure::LABEL_QUEUE => {
                b.pause_labelled(host, pause);
                true
            }
            _ => false,
        }
    }

    // ---- switch ports ----

    /// The priority a shared-buffer port orders packet `id` by, if a
    /// header overrides its own (BFC-SRF's remaining size, on data).
    #[inline]
    pub fn prio_at_port(&self, id: PacketId, kind: Kind) -> Option<u64> {
        match &self.srf {
            Some(s) if kind == Kind::Data => Some(s.get(id)),
            _ => None,
        }
    }

    /// A data packet enters a port whose discipline assigns queues to
    /// flows (BFC's): whether it leaves at once, and the pause to send.
    #[allow(clippy::too_many_arguments)]
    pub fn assign_queue(
        &mut self,
        port: u32,
        p: &mut Port,
        pkt: &mut Packet,
        hop: Hop,
        idle: bool,
        net: &Network,
        now: Time,
    ) -> (bool, Option<Frame>) {
        let tag = self.srf.as_ref().map_or(0, |s| s.get(hop.id));
        bfc::switch::enqueue(self.bfc.as_mut(), port, p, pkt, hop, idle, tag, net, now)
    }

    /// Packet `id` leaves a port by assigned queue `q`: the resume to
    /// send, if any.
    pub fn release_queue(&mut self, p: &mut Port, pkt: &mut Packet, id: PacketId, q: u16, now: Time) -> Option<Frame> {
        bfc::switch::release(self.bfc.as_mut(), p, pkt, id, q, now)
    }

    /// Switch ports stamp telemetry on the data packets leaving them.
    #[inline]
    pub fn stamps(&self) -> bool {
        self.telemetry.is_some()
    }

    /// Data packet `id` leaves switch port `p` at `now`, after the port
    /// sent `tx_bytes`.
    pub fn stamp(&mut self, id: PacketId, p: &Port, tx_bytes: u64, now: Time) {
        if let Some(t) = &mut self.telemetry {
            t.stamp(id, now, tx_bytes, p.bytes, p.rate_bps);
        }
    }

    /// What packet `id` carries beside its header back to its sender (an
    /// ACK: HPCC's telemetry of its data packet's hops).
    #[inline]
    pub fn carried(&self, id: PacketId) -> &[IntHop] {
        self.telemetry.as_ref().map_or(&[], |t| t.hops(id))
    }
}

/// What a scheme reports of itself in a run's summary, under its key.
pub type Report = (&'static str, serde_json::Value);

/// The report of the run's scheme, if it has one (Homa's levels as
/// resolved for the network and workload).
pub fn report(cfg: &TransportConfig, nodes: &Nodes) -> Option<Report> {
    match cfg {
        TransportConfig::Homa(h) => Some(("homa", serde_json::to_value(homa::levels::report(h)).expect("plain data"))),
        TransportConfig::Pdq(_) => nodes.pdq.as_ref().map(|l| ("pdq", pdq::switch::report(l))),
        _ => None,
    }
}

/// Fill in what a scheme's configuration leaves to the network, before
/// the engine is built (`resolve.rs`); `rtt`: the network's longest base
/// RTT.
pub fn resolve(t: &mut TransportConfig, net: &Network, rtt: Time) -> Result<(), String> {
    match t {
        TransportConfig::Rdma(r) => rdma::resolve(r, rtt),
        TransportConfig::Homa(h) => homa::levels::resolve(h, host_bps(net), rtt)?,
        TransportConfig::Pdq(p) => pdq::resolve(p, host_bps(net)),
        _ => {}
    }
    Ok(())
}

/// The rate of the first host link (the hosts' NIC rate).
fn host_bps(net: &Network) -> u64 {
    net.links.iter().find(|l| net.is_host(l.node)).map_or(0, |l| l.rate_bps)
}

/// The combinations a scheme does not run (`ports`: each link's port).
pub fn check(cfg: &Config, net: &Network, ports: &[&QueueConfig]) -> Result<(), String> {
    bfc::switch::check(cfg, net, ports)?;
    rdma::telemetry::check(cfg)?;
    if let TransportConfig::Homa(_) = cfg.transport {
        homa::levels::check_lossless(cfg, net, ports)?;
    }
    pdq::check(cfg, ports)?;
    rdma::srf::check(cfg, ports)
}
