//! The simulation: all state of one run in one value (no globals), and the
//! event loop that dispatches on `Event`. This module only moves packets;
//! schemes plug in at the seams (docs/design.md, "The scheme seam"): the
//! port discipline (`queue::Queue`), the flows' endpoints
//! (`transport::Endpoint`, `schemes::Transport`) and what schemes keep
//! across flows at hosts and switches (`schemes::Nodes`), whose hooks the
//! packet path calls at fixed points. Here: ports and links; the hosts'
//! side (`hosts.rs`) and the pulling NIC (`nic.rs`), shared-buffer
//! switches with PFC and self-timed ports (`switches.rs`), and what a run
//! reports (`reports.rs`) are `impl Simulation` blocks of their own.

mod hosts;
mod nic;
mod reports;
mod switches;

use crate::buffer::{SharedBuffers, Signal, NOT_COUNTED};
use crate::config::{Config, FctAt, Model, SamplePorts};
use crate::fair_share::{FairShare, Path, MAX_HOPS};
use crate::flow_level::FlowLevel;
use crate::ideal::{Active, Ideal};
use crate::event::{slot_bits_for, Calendar, Event};
use crate::nic::{Nic, NicState, SHARED_QUEUE};
use crate::metrics::{
    delay_subset, BufferSample, Conservation, Counters, DelayReport, FlowRecord, FlowSample, PortReport, PrioCounts, PrioLosses,
    QueueSample, QueueingDelay, UnfinishedRecord,
};
use crate::packet::{Kind, Packet, PacketId, Pool, LINK_LOCAL};
use crate::port::{Hop, Port, Transmitted, NO_HINT};
use crate::queue::{Entry, Queue};
use crate::routing::Routes;
use crate::time::{serialization, Time};
use crate::topology::Network;
use crate::flows::{Flow, FlowTable};
use crate::schemes::{Frame, Nodes, Transport};
use crate::transport::{Factory, NewFlow, Poll, Segment};
use crate::workload::{traffic_class, FlowGen, FlowSpec};

/// A flow's record once it has finished at `finish`.
fn record(f: &Flow<Transport>, finish: Time) -> FlowRecord {
    FlowRecord {
        id: f.spec.id,
        src: f.spec.src,
        dst: f.spec.dst,
        size: f.spec.size,
        start: f.spec.start,
        finish,
        ideal: f.ideal,
        retx: f.ep.retransmits(),
        timeouts: f.ep.timeouts(),
        deadline: f.deadline,
    }
}

/// Fabrics of at least this many ports keep head-packet hints
/// (`Port::head_hint`). Asking one event ahead for the lines a hint names
/// pays where ports, link cells and packets do not stay in cache (6,144
/// hosts, 15,360 ports: 12-54% faster from 3,000 flows on) and costs where
/// they do (pFabric's 144 hosts, 360 ports: 5-7% slower),
/// docs/performance.md. A hint never changes results.
const HINTS_FROM_PORTS: usize = 4096;

/// The longest base RTT from host 0 to any host: both ways' propagation
/// plus one `payload`'s serialization per hop of the way there (the HPCC
/// simulator's `maxRtt`; its fabrics are symmetric, as dcsim's are).
fn longest_rtt(net: &Network, routes: &Routes, payload: u64) -> Time {
    (1..net.hosts).map(|dst| pair_rtt(net, routes, 0, dst, payload)).max().unwrap_or(0)
}

/// The base RTT from `src` to `dst`, as `longest_rtt` counts it (the HPCC
/// simulator's `pairRtt`).
fn pair_rtt(net: &Network, routes: &Routes, src: u32, dst: u32, payload: u64) -> Time {
    let (mut node, mut t) = (src, 0);
    while node != dst {
        let l = &net.links[routes.group(node, dst)[0] as usize];
        t += 2 * l.delay_ps + serialization(payload, l.rate_bps);
        node = l.peer;
    }
    t
}

/// Homa has no timers (its simulator's buffers are unbounded): a lost
/// grant or scheduled packet would hold its message, and its receiver's
/// grants, forever. So every switch port must be a strict-priority port
/// without a limit, and every NIC unlimited.
fn check_lossless_homa(cfg: &Config, net: &Network, ports: &[Port]) -> Result<(), String> {
    if !matches!(cfg.transport, crate::config::TransportConfig::Homa(_)) {
        return Ok(());
    }
    let limited = |p: &Port| p.limit_bytes < u64::MAX / 2;
    let bad = net.links.iter().zip(ports).any(|(l, p)| {
        if net.is_host(l.node) {
            limited(p)
        } else {
            !matches!(p.queue, Queue::Prio(_)) || limited(p) || cfg.shared_buffer.is_some()
        }
    });
    if bad {
        return Err("homa needs unbounded buffers (it has no timeouts): prio switch ports and host NICs without a limit, \
                    no shared buffer"
            .into());
    }
    Ok(())
}

/// BFC-SRF and IdealSRF: the ports that order by the remaining-size header
/// and the hosts that write it go together.
fn check_srf(cfg: &Config, ports: &[Port]) -> Result<(), String> {
    let tagged = matches!(cfg.transport, crate::config::TransportConfig::Rdma(crate::config::RdmaConfig { srf: true, .. }));
    if !tagged && ports.iter().any(|p| p.queue.orders_by_remaining_size()) {
        return Err("srf switch ports need hosts that write the remaining size (transport srf)".into());
    }
    if tagged && !ports.iter().any(|p| p.queue.orders_by_remaining_size()) {
        return Err("transport srf writes a remaining size that no port orders by (a bfc or fq discipline with srf)".into());
    }
    Ok(())
}

/// Why `run` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The event budget of this call ran out; call `run` again.
    Running,
    /// Every flow finished.
    Done,
    /// The stop time was reached with flows unfinished.
    Stopped,
    /// No event left but flows unfinished (should not happen).
    Stalled,
}

pub struct Simulation {
    cfg: Config,
    net: Network,
    routes: Routes,
    ports: Vec<Port>,
    /// What each port has sent, by port index (dense: `port::Transmitted`).
    tx: Vec<Transmitted>,
    pool: Pool,
    cal: Calendar,
    now: Time,
    gen: FlowGen,
    next_flow: Option<FlowSpec>,
    flows: FlowTable<Transport>,
    /// What the schemes keep across flows at hosts and switches, and the
    /// hooks the packet path calls (`schemes::Nodes`).
    nodes: Nodes,
    /// Packets a hook asks the hosts to send (reused between calls).
    replies: Vec<Packet>,
    records: Vec<FlowRecord>,
    counters: Counters,
    segs: Vec<Segment>,
    status: Status,
    /// Every port is a FIFO on the fast path (one predictable test per
    /// packet instead of a look at the port's discipline).
    all_fifo_fast: bool,
    /// Links keep hints for their head packets (`Port::head_hint`), and the
    /// event loop asks for what they name one event ahead: on fabrics
    /// whose ports do not stay in cache (`HINTS_FROM_PORTS`).
    hints: bool,
    /// The flow-level model (`Model::Ideal`, `Model::IdealFq`), and the rate of the
    /// link into each host.
    flow_level: FlowLevel,
    downlink: Vec<u64>,
    done: Vec<Active>,
    /// Losses by priority at the ports that choose by priority, and where
    /// each port is (`metrics::PLACES`).
    prio_losses: PrioCounts,
    place: Vec<u8>,
    /// The ports the sampler records, and its records.
    sampled: Vec<u32>,
    samples: Vec<QueueSample>,
    flow_samples: Vec<FlowSample>,
    /// The switches' shared buffers and PFC, when they have them.
    buffers: Option<SharedBuffers>,
    buffer_samples: Vec<BufferSample>,
    /// Some port obeys pauses (so pause frames and shared buffers may
    /// exist): one predictable test per packet-hop when none does.
    has_pfc: bool,
    /// The transport's data is pulled by the NICs (`nic.rs`): each host's
    /// round robin, and the host of each NIC port.
    nics: Vec<Nic>,
    nic_host: Vec<u32>,
    /// The NICs serve their flows shortest remaining first, not round robin.
    nic_srpt: bool,
    /// Data packets' queueing delays at switches (`queueing_delay`).
    delays: Option<QueueingDelay>,
}

/// `Packet::seq` of a PFC frame, which pauses one priority (traffic
/// class) of the port, named in `sack_lo`: all its data with one class.
/// Other frames name one of the queues a port assigns there instead.
const PFC_CLASS: u32 = u32::MAX;

/// Bytes on the wire of a PFC frame: a minimum-size Ethernet frame.
pub const PFC_FRAME_BYTES: u16 = 64;

impl Simulation {
    pub fn new(cfg: Config) -> Result<Simulation, String> {
        Simulation::build(cfg, None)
    }

    /// A simulation whose transport is defined outside the engine
    /// (`TransportConfig::Custom`): `factory` makes its flows' endpoints.
    pub fn with_transport(cfg: Config, factory: Box<dyn Factory>) -> Result<Simulation, String> {
        Simulation::build(cfg, Some(factory))
    }

    fn build(cfg: Config, factory: Option<Box<dyn Factory>>) -> Result<Simulation, String> {
        let t = &cfg.transport;
        if t.mss_bytes() == 0 || t.mss_bytes() + t.header_bytes() > u16::MAX as u32 || t.ack_bytes() == 0 {
            return Err("mss_bytes + header_bytes must be in 1..65535 and ack_bytes > 0".into());
        }
        let net = Network::build(&cfg.topology)?;
        if net.hosts > u16::MAX as u32 {
            return Err(format!("at most 65535 hosts are supported, got {}", net.hosts));
        }
        let mut routes = Routes::build(&net, cfg.routing.load_balancing, cfg.seed);
        if cfg.routing.symmetric {
            routes = routes.symmetric(&net);
        }
        let mut cfg = cfg;
        if let crate::config::TransportConfig::Rdma(r) = &mut cfg.transport {
            // T and W as the HPCC simulator takes them: the longest base
            // RTT in the network (two ways' propagation and one payload's
            // serialization per hop), and T at the line rate (`maxBdp`,
            // the window of HPCC and of DCTCP)
            let bdp = |t: Time| (t as u128 * r.line_rate_bps as u128 / 8 / crate::time::PS_PER_S as u128) as u64;
            match &mut r.cc {
                crate::config::RdmaCc::Hpcc(h) => {
                    let t = *h.base_rtt_ps.get_or_insert(longest_rtt(&net, &routes, r.mss_bytes as u64));
                    let w = *h.window_bytes.get_or_insert(bdp(t));
                    r.window_bytes.get_or_insert(w);
                }
                crate::config::RdmaCc::Delay(d) => {
                    let t = *d.base_rtt_ps.get_or_insert(longest_rtt(&net, &routes, r.mss_bytes as u64));
                    r.window_bytes.get_or_insert(bdp(t));
                }
                crate::config::RdmaCc::Dctcp(_) => r.window_bdp = true,
                _ => {}
            }
            if r.window_bdp {
                r.window_bytes.get_or_insert(bdp(longest_rtt(&net, &routes, r.mss_bytes as u64)));
            }
        }
        if let crate::config::TransportConfig::Homa(h) = &mut cfg.transport {
            let host_bps = net.links.iter().find(|l| net.is_host(l.node)).map_or(0, |l| l.rate_bps);
            crate::schemes::homa::levels::resolve(h, host_bps, longest_rtt(&net, &routes, h.mss_bytes as u64))?;
        }
        let ports: Vec<Port> = net
            .links
            .iter()
            .map(|l| {
                let q = if net.is_host(l.node) {
                    &cfg.port.host
                } else if net.nodes[l.node as usize].tier >= 2 {
                    cfg.port.upper_tiers.as_ref().unwrap_or(&cfg.port.switch)
                } else {
                    &cfg.port.switch
                };
                let mut p = Port::new(l.rate_bps, l.delay_ps, l.peer, q);
                if net.is_host(l.peer) {
                    p.set_arrival_extra(cfg.host_delay_ps);
                }
                p
            })
            .collect();
        let hints = cfg.port.head_hints.unwrap_or(ports.len() >= HINTS_FROM_PORTS);
        let all_fifo_fast = cfg.port.fifo_fast_path && ports.iter().all(|p| p.queue.is_fifo());
        debug_assert!(net.links.iter().enumerate().all(|(i, l)| net.links[i ^ 1].node == l.peer), "ports come in pairs");
        let mut ports = ports;
        let classes = cfg.traffic_classes.max(1);
        if classes > 8 {
            return Err(format!("at most 8 traffic classes (PFC's priorities), got {classes}"));
        }
        let round_robin = cfg.class_scheduling == crate::config::ClassScheduling::RoundRobin;
        for (i, p) in ports.iter_mut().enumerate() {
            let seed = crate::workload::stream_seed(cfg.seed, 0x9e3779b9_u64 << 32 | i as u64);
            p.queue.set_up(seed, classes, round_robin)?;
        }
        for p in ports.iter_mut() {
            let fast = cfg.port.fifo_fast_path && p.queue.is_fifo();
            // self-timed ports look at their queues at their own timers
            p.lazy = !fast && !p.queue.in_shared_buffer() && !p.queue.self_timed();
        }
        let has_pfc = ports.iter().any(|p| p.queue.in_shared_buffer());
        let pulled = cfg.transport.pulled();
        let telemetry = cfg.transport.telemetry();
        if pulled && !net.links.iter().zip(&ports).all(|(l, p)| !net.is_host(l.node) || p.queue.in_shared_buffer()) {
            return Err("a transport the NIC pulls needs the pfc discipline on every host NIC".into());
        }
        if cfg.queueing_delay
            && cfg.shared_buffer.is_none()
            && ports.iter().zip(&net.links).any(|(p, l)| !net.is_host(l.node) && !p.lazy)
        {
            return Err("queueing delays are kept at switches with a shared buffer, or whose ports choose by priority \
                        (pfabric, pias, homa): set shared_buffer"
                .into());
        }
        let delays = cfg.queueing_delay.then(QueueingDelay::default);
        if telemetry && cfg.shared_buffer.is_none() {
            return Err("HPCC's telemetry is stamped by switches with a shared buffer: set shared_buffer".into());
        }
        let nic_srpt = cfg.transport.nic_srpt();
        // ACKs sent ahead (`offer_lazy`) fix departures early; what looks
        // at a packet when it starts (queueing delays, a shared buffer's
        // release, a pulling NIC) needs the queue to decide them on time.
        for p in ports.iter_mut() {
            p.fixes_acks = cfg.port.fifo_fast_path
                && p.lazy
                && p.queue.acks_go_ahead()
                && !cfg.queueing_delay
                && cfg.shared_buffer.is_none()
                && !pulled;
        }
        check_lossless_homa(&cfg, &net, &ports)?;
        check_srf(&cfg, &ports)?;
        let nics: Vec<Nic> = if pulled { (0..net.hosts).map(|_| Nic::default()).collect() } else { vec![] };
        let nic_host: Vec<u32> = if pulled {
            net.links.iter().map(|l| if net.is_host(l.node) { l.node } else { u32::MAX }).collect()
        } else {
            vec![]
        };
        let buffers = match &cfg.shared_buffer {
            None => None,
            Some(b) => {
                let pfc_ports = |host: bool| {
                    ports.iter().zip(&net.links).filter(|(_, l)| net.is_host(l.node) == host).all(|(p, _)| p.queue.in_shared_buffer())
                };
                if !pfc_ports(false) || (b.pfc && !pfc_ports(true)) {
                    return Err("a shared buffer needs the pfc, bfc or fq discipline on every switch port (and, with PFC, on every host NIC)".into());
                }
                Some(SharedBuffers::new(b, &net, classes)?)
            }
        };
        if buffers.is_none()
            && ports.iter().zip(&net.links).any(|(p, l)| !net.is_host(l.node) && p.queue.needs_shared_buffer())
        {
            // their flow tables and queues are released as packets leave a
            // switch's buffer
            return Err("the bfc and fq disciplines need a shared buffer: set shared_buffer".into());
        }
        // strict-priority ports count their losses by class
        let by_class = ports.iter().any(|p| p.queue.by_class());
        let mut gen = FlowGen::new(&cfg.workload, net.hosts, cfg.seed)?;
        let nodes = Nodes::new(&cfg, &net, &ports, factory)?;
        let place: Vec<u8> = net
            .links
            .iter()
            .map(|l| if net.is_host(l.node) { 0 } else if net.is_host(l.peer) { 1 } else { 2 })
            .collect();
        let flow_level = match cfg.model {
            Model::IdealFq => FlowLevel::Fair(FairShare::new(&ports.iter().map(|p| p.rate_bps).collect::<Vec<_>>())),
            _ => FlowLevel::Srpt(Ideal::new(net.hosts)),
        };
        let mut downlink = vec![0; net.hosts as usize];
        for (p, l) in ports.iter().zip(&net.links) {
            if net.is_host(l.peer) {
                downlink[l.peer as usize] = p.rate_bps;
            }
        }
        // The calendar's wheel spans the longest hop (a full packet's
        // serialization, propagation and host delay): where packet events land.
        let mtu = (cfg.transport.mss_bytes() + cfg.transport.header_bytes()) as u64;
        let hop = ports.iter().map(|p| p.serialization(mtu) + p.fixed_ps()).max();
        let total_rate = ports.iter().map(|p| p.rate_bps).sum();
        let mut cal = Calendar::with_horizon(hop.unwrap_or(0), slot_bits_for(total_rate, mtu));
        let next_flow = gen.next_flow();
        if let Some(f) = next_flow {
            cal.schedule(f.start, Event::FlowArrival);
        }
        let sampled: Vec<u32> = match &cfg.sampler {
            None => vec![],
            Some(q) => {
                if q.interval_ps == 0 {
                    return Err("the sampler's interval must be positive".into());
                }
                cal.schedule(0, Event::Sample);
                (0..ports.len() as u32)
                    .filter(|&i| {
                        let l = &net.links[i as usize];
                        match q.ports {
                            None => false,
                            Some(SamplePorts::All) => true,
                            Some(SamplePorts::HostNics) => net.is_host(l.node),
                            Some(SamplePorts::ToHosts) => net.is_host(l.peer),
                            Some(SamplePorts::Switches) => !net.is_host(l.node),
                        }
                    })
                    .collect()
            }
        };
        Ok(Simulation {
            cfg,
            net,
            routes,
            tx: vec![Transmitted::default(); ports.len()],
            ports,
            pool: Pool::default(),
            cal,
            now: 0,
            gen,
            next_flow,
            flows: FlowTable::default(),
            nodes,
            replies: Vec::new(),
            records: Vec::new(),
            counters: Counters::default(),
            segs: Vec::with_capacity(64),
            status: Status::Running,
            all_fifo_fast,
            hints,
            flow_level,
            downlink,
            done: Vec::new(),
            prio_losses: PrioCounts::new(by_class),
            place,
            sampled,
            samples: Vec::new(),
            flow_samples: Vec::new(),
            has_pfc,
            nics,
            nic_host,
            nic_srpt,
            delays,
            buffers,
            buffer_samples: Vec::new(),
        })
    }

    pub fn now(&self) -> Time {
        self.now
    }
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
    /// The calendar's own counts (slots, heaps, spills).
    pub fn calendar_stats(&self) -> crate::event::CalendarStats {
        self.cal.stats()
    }
    pub fn total_flows(&self) -> u64 {
        self.gen.total
    }
    pub fn active_flows(&self) -> u64 {
        self.flows.active
    }
    pub fn status(&self) -> Status {
        self.status
    }
    pub fn hosts(&self) -> u32 {
        self.net.hosts
    }

    /// Run at most `max_events` events.
    pub fn run(&mut self, max_events: u64) -> Status {
        if self.status != Status::Running {
            return self.status;
        }
        if self.cfg.model != Model::Packets {
            return self.run_flows(max_events);
        }
        let status = self.run_packets(max_events);
        // what the caller reads next (counters, queues) is as of now
        self.catch_up_all();
        status
    }

    fn run_packets(&mut self, max_events: u64) -> Status {
        let stop = self.cfg.stop_time_ps.unwrap_or(Time::MAX);
        let total = self.gen.total;
        for _ in 0..max_events {
            if self.counters.flows_finished == total {
                self.status = Status::Done;
                return self.status;
            }
            let Some((t, ev)) = self.cal.pop_until(stop) else {
                if self.cal.is_empty() {
                    self.status = Status::Stalled;
                } else {
                    self.now = stop;
                    self.status = Status::Stopped;
                }
                return self.status;
            };
            debug_assert!(t >= self.now, "time went backwards");
            self.now = t;
            self.counters.events += 1;
            if let Some(next) = self.cal.peek_port() {
                // The next event's port and the head of its link, asked for
                // while this event runs (memory latency, not work, is most
                // of a packet-hop: docs/performance.md).
                if let Some(p) = self.ports.get(next as usize) {
                    p.wire.prefetch_front();
                    if self.hints {
                        self.prefetch_hinted(p);
                    }
                }
            }
            match ev {
                Event::LinkArrival { port } => self.on_link_arrival(port),
                Event::TxDone { port } => self.on_tx_done(port),
                Event::FlowArrival => self.on_flow_arrival(),
                Event::FlowTimer { slot, flow, timer } => self.on_flow_timer(slot, flow, timer),
                Event::PortTimer { port, .. } => self.on_port_timer(port),
                Event::Sample => self.on_sample(),
            }
        }
        if self.counters.flows_finished == self.gen.total {
            self.status = Status::Done;
        }
        self.status
    }

    /// A flow-level model: between one arrival or departure and the next,
    /// the flows are served at their rates; at each, the schedule is
    /// recomputed (`ideal.rs`, `fair_share.rs`).
    fn run_flows(&mut self, max_events: u64) -> Status {
        let stop = self.cfg.stop_time_ps.unwrap_or(Time::MAX);
        for _ in 0..max_events {
            if self.counters.flows_finished == self.gen.total {
                self.status = Status::Done;
                return self.status;
            }
            let arrival = self.next_flow.map(|f| f.start.max(self.now));
            let departure = self.flow_level.next_departure().map(|dt| self.now + dt);
            let Some(t) = arrival.into_iter().chain(departure).min() else {
                self.status = Status::Stalled;
                return self.status;
            };
            if t > stop {
                let mut done = std::mem::take(&mut self.done);
                self.flow_level.advance(stop - self.now, &mut done);
                debug_assert!(done.is_empty(), "no departure before the next event");
                self.now = stop;
                self.status = Status::Stopped;
                return self.status;
            }
            let mut done = std::mem::take(&mut self.done);
            self.flow_level.advance(t - self.now, &mut done);
            self.now = t;
            self.counters.events += 1;
            done.sort_unstable_by_key(|a| a.spec.id);
            for a in done.drain(..) {
                self.records.push(FlowRecord {
                    id: a.spec.id,
                    src: a.spec.src,
                    dst: a.spec.dst,
                    size: a.spec.size,
                    start: a.spec.start,
                    finish: t + a.extra,
                    ideal: a.ideal,
                    retx: 0,
                    timeouts: 0,
                    deadline: self.absolute_deadline(&a.spec, a.ideal),
                });
                self.flow_finished(t);
            }
            self.done = done;
            while let Some(f) = self.next_flow.filter(|f| f.start <= t) {
                let ideal = self.flow_ideal(&f);
                let rate = self.ports[self.routes.nic(f.src) as usize].rate_bps.min(self.downlink[f.dst as usize]);
                let t = &self.cfg.transport;
                let wire = f.size + f.size.div_ceil(t.mss_bytes() as u64) * t.header_bytes() as u64;
                let a = Active::new(f, serialization(wire, rate), ideal);
                match &mut self.flow_level {
                    FlowLevel::Srpt(x) => x.add(a),
                    FlowLevel::Fair(_) => {
                        let path = self.path_of(&f);
                        if let FlowLevel::Fair(x) = &mut self.flow_level {
                            x.add(a, path, rate);
                        }
                    }
                }
                self.counters.flows_started += 1;
                self.next_flow = self.gen.next_flow();
            }
            self.counters.max_active_flows = self.counters.max_active_flows.max(self.flow_level.len() as u64);
            self.flow_level.schedule();
        }
        if self.counters.flows_finished == self.gen.total {
            self.status = Status::Done;
        }
        self.status
    }

    /// Run to the end.
    pub fn run_to_end(&mut self) -> Status {
        while self.run(1 << 20) == Status::Running {}
        self.status
    }

    /// The output ports a flow's packets would leave by, its NIC first
    /// (with ECMP the flow's hash picks the same next hops as its packets').
    fn path_of(&mut self, f: &FlowSpec) -> Path {
        let mut p = Path::default();
        let mut port = self.routes.nic(f.src);
        loop {
            assert!((p.len as usize) < MAX_HOPS, "a path longer than {MAX_HOPS} links");
            p.ports[p.len as usize] = port;
            p.len += 1;
            let node = self.ports[port as usize].peer;
            if node == f.dst {
                return p;
            }
            port = self.routes.next_port(node, f.dst, f.id);
        }
    }

    // ---- packets through ports -------------------------------------------

    /// Packet `hop` arrives at `node` by the link of port `via`, with the
    /// hint its link kept for it (`Port::head_hint`): at a switch, the port
    /// it leaves by unless that is `NO_HINT` (then the routes decide now).
    #[inline(always)]
    fn on_arrive(&mut self, node: u32, hop: Hop, via: u32, hint: u32) {
        if self.has_pfc {
            if hop.dst == LINK_LOCAL {
                return self.on_pfc_frame(via ^ 1, hop.id);
            }
            if self.buffers.is_some() {
                // the switch's own port on the arrival link: its ingress
                self.pool.get_mut(hop.id).ingress = via ^ 1;
            }
        }
        if self.net.is_host(node) {
            self.on_host_receive(node, hop.id);
        } else {
            let port = if hint != NO_HINT { hint } else { self.routes.next_port(node, hop.dst as u32, hop.flow) };
            debug_assert!(hint == NO_HINT || Some(hint) == self.routes.fixed_port(node, hop.dst as u32, hop.flow));
            self.offer(port, hop);
        }
    }

    /// A packet reaches an output port: send it now if the port is idle,
    /// else buffer it (or drop it) and make sure it will be sent.
    #[inline(always)]
    fn offer(&mut self, port: u32, hop: Hop) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if self.all_fifo_fast || (self.cfg.port.fifo_fast_path && p.queue.is_fifo()) {
            // FIFO: the packet leaves when the packets ahead of it are done.
            let start = p.busy_until.max(now);
            match p.admit_fifo(now, start, hop.size) {
                Err(_) => return self.drop_packet(hop.id),
                Ok(true) => p.mark(self.pool.get_mut(hop.id)),
                Ok(false) => {}
            }
            self.transmit_at(port, hop, start, start > now);
            return;
        }
        if p.queue.in_shared_buffer() {
            self.offer_pfc(port, hop)
        } else if p.queue.self_timed() {
            self.offer_timed(port, hop)
        } else {
            if self.delays.is_some() {
                self.delay_arrive(port, hop.id);
            }
            self.offer_lazy(port, hop)
        }
    }

    /// The general path of a lazy port (`on_link_arrival`): make the
    /// departures due, then send the packet or let the discipline queue or
    /// drop it. Out of line, with the disciplines' work inlined into it:
    /// the FIFO fast path of `offer` stays as small as it was.
    #[inline(never)]
    fn offer_lazy(&mut self, port: u32, hop: Hop) {
        debug_assert!(self.ports[port as usize].lazy);
        let now = self.now;
        self.catch_up(port, now);
        let entry = Entry::of(hop, self.pool.get(hop.id));
        let place = self.place[port as usize];
        let key = self.prio_losses.key(entry.prio);
        self.prio_losses.arrive(place, key);
        let p = &mut self.ports[port as usize];
        if p.unsettled() {
            // ACKs sent ahead (below) that have started leave the count
            p.settle(now);
        }
        // (The general path counts queued bytes exactly: empty is zero.)
        debug_assert_eq!(p.bytes == 0, p.is_empty() && !p.unsettled());
        if p.busy_until <= now && p.bytes == 0 {
            self.transmit_at(port, hop, now, false);
            return;
        }
        if p.fixes_acks && entry.prio == 0 && entry.is_ack() && p.bytes + (hop.size as u64) < p.limit_bytes {
            // pFabric (§4.1) sends the first packet of the smallest number;
            // an ACK's is 0, so unless a buffered packet also has 0 (a SYN),
            // it goes as soon as the packets being sent and the ACKs before
            // it are done, whatever arrives later (which is later on a
            // tie), and it is never the one dropped when the buffer is full
            // (the arrival or a larger number always is). Its departure is
            // fixed now, as on the FIFO fast path, with no catch-up to make
            // it: about a quarter of the packets pFabric's ports queue.
            if p.queue.ack_may_go_ahead() {
                p.add_bytes(hop.size as u64);
                let start = p.busy_until;
                self.transmit_at(port, hop, start, true);
                return;
            }
        }
        match p.enqueue(entry) {
            Err(_) => {
                self.prio_losses.drop(place, key);
                return self.drop_packet(hop.id);
            }
            Ok((mark, evicted)) => {
                if mark {
                    p.mark(self.pool.get_mut(hop.id));
                }
                if let Some(victim) = evicted {
                    let prio = self.pool.get(victim.id).prio;
                    let k = self.prio_losses.key(prio);
                    self.prio_losses.drop(place, k);
                    self.drop_packet(victim.id);
                }
            }
        }
        // A lazy port needs no wake-up of its own; a pulling NIC does.
        if !self.nic_host.is_empty() {
            self.ensure_wake(port);
        }
    }

    /// `queueing_delay`: data packet `id` enters a switch queue now (with
    /// the subsets it belongs to: a one-packet flow's; Homa's scheduled).
    #[inline(never)]
    fn delay_enter(&mut self, id: PacketId) {
        let pkt = *self.pool.get(id);
        if pkt.kind != Kind::Data {
            return;
        }
        let mss = self.cfg.transport.mss_bytes() as u64;
        let mut subsets = 0;
        if self.flows.get(pkt.slot, pkt.flow).is_some_and(|f| f.spec.size <= mss) {
            subsets |= delay_subset::SINGLE;
        }
        if self.nodes.hosts.scheduled(&pkt, &self.cfg.transport) {
            subsets |= delay_subset::SCHEDULED;
        }
        let now = self.now;
        self.delays.as_mut().expect("queueing_delay").enter(id, now, subsets);
    }

    /// `queueing_delay` at a lazy switch port: data packet `id` arrives
    /// now; it leaves at once if the port is idle once its departures due
    /// are made (as `offer_lazy` decides), else it waits from now.
    #[cold]
    #[inline(never)]
    fn delay_arrive(&mut self, port: u32, id: PacketId) {
        if self.net.is_host(self.net.links[port as usize].node) {
            return;
        }
        let now = self.now;
        self.catch_up(port, now);
        self.delay_enter(id);
        let p = &self.ports[port as usize];
        if p.busy_until <= now && p.bytes == 0 {
            self.delay_leave(port, id, now);
        }
    }

    /// `queueing_delay`: packet `id` starts leaving switch port `port` at
    /// `start`.
    #[inline(never)]
    fn delay_leave(&mut self, port: u32, id: PacketId, start: Time) {
        let l = &self.net.links[port as usize];
        let (tier, peer_tier) = (self.net.nodes[l.node as usize].tier, self.net.nodes[l.peer as usize].tier);
        let up = !self.net.is_host(l.peer) && peer_tier > tier;
        self.delays.as_mut().expect("queueing_delay").leave(id, start, tier, up);
    }

    /// Losses by priority at the ports that choose by priority.
    pub fn prio_losses(&self) -> PrioLosses {
        self.prio_losses.report()
    }

    /// General path: make the departures of port `port` that were due by
    /// `upto`, in order, each the packet the discipline chooses when the
    /// serializer frees up. The queue cannot have changed since the last
    /// arrival (this runs before each), so a departure decided late is the
    /// one decided on time.
    #[inline(always)]
    fn catch_up(&mut self, port: u32, upto: Time) {
        // Usually nothing is due, or nothing is queued (the general path
        // counts queued bytes exactly; half of the calls at pFabric's
        // ports): decided here, from the port's first line, without a call.
        let p = &self.ports[port as usize];
        if p.busy_until <= upto && p.bytes > 0 {
            self.catch_up_due(port, upto);
        }
    }

    #[inline(never)]
    fn catch_up_due(&mut self, port: u32, upto: Time) {
        loop {
            let p = &mut self.ports[port as usize];
            let start = p.busy_until;
            if start > upto || p.bytes == 0 {
                return;
            }
            if p.unsettled() {
                // ACKs sent ahead (`offer_lazy`) have started by now: they
                // leave the count before the packet after them starts
                p.settle(start);
            }
            let Some(hop) = p.dequeue() else { return };
            if self.buffers.is_some() {
                self.release(port, hop.id);
            }
            if self.delays.is_some() {
                self.delay_leave(port, hop.id, start);
            }
            self.transmit_at(port, hop, start, false);
        }
    }

    /// General path: a port with a backlog needs a `TxDone` event by the
    /// time its next packet would reach the far end, in case no arrival
    /// makes its departures first (see `on_tx_done`).
    #[inline]
    fn ensure_wake(&mut self, port: u32) {
        if let Some(&host) = self.nic_host.get(port as usize).filter(|&&h| h != u32::MAX) {
            let p = &self.ports[port as usize];
            if p.queue.has_sendable() || !self.nics[host as usize].ready.is_empty() {
                self.nic_wake_at(host, p.busy_until.max(self.now));
            }
            return;
        }
        let p = &mut self.ports[port as usize];
        // A lazy port needs no event: see `on_link_arrival`. A port that
        // obeys PFC decides each departure on time: its buffer accounting
        // (and the pauses it may trigger) and a pause's effect depend on
        // when packets leave.
        if !p.lazy && !p.wake_pending && p.queue.has_sendable() {
            p.wake_pending = true;
            self.cal.schedule(p.busy_until, Event::TxDone { port });
        }
    }

    fn drop_packet(&mut self, id: PacketId) {
        if let Some(d) = &mut self.delays {
            d.forget(id);
        }
        let pkt = self.pool.release(id);
        self.counters.dropped_pkts += 1;
        self.counters.dropped_bytes += pkt.size as u64;
        if pkt.kind == Kind::Data && self.cfg.transport.perfect_retransmit() {
            // idealized retransmission: the sender knows at once
            if let Some(f) = self.flows.get(pkt.slot, pkt.flow) {
                f.ep.on_loss(pkt.seq);
                self.nic_wake_flow(pkt.slot, pkt.flow);
            }
        }
    }

    /// Serialize a packet from `start` (now, or when the port frees up) and
    /// put it on the link.
    #[inline(always)]
    fn transmit_at(&mut self, port: u32, hop: Hop, start: Time, buffered: bool) {
        self.counters.packet_hops += 1;
        let (arrival, was_idle) = self.ports[port as usize].transmit(hop, start, buffered);
        if let Some(t) = self.tx.get_mut(port as usize) {
            t.add(hop.size);
        }
        debug_assert!(arrival >= self.now, "a departure made too late for its arrival");
        if was_idle {
            self.cal.schedule(arrival, Event::LinkArrival { port });
            if self.hints {
                self.hint_head(port, self.ports[port as usize].peer, hop);
            }
        }
    }

    /// On a fabric with hints: what the head packet of `p`'s link (the
    /// next event's) touches next at the far end (`Port::head_hint`: the
    /// packet at a host, and the port the event sends from), the next
    /// misses of that event's chain, which the head's cell would only name
    /// later; and the port of the event after it, or of the events of the
    /// next slot.
    #[inline(never)]
    fn prefetch_hinted(&self, p: &Port) {
        let hint = p.head_hint();
        if hint != NO_HINT {
            // The port the event sends from, and its transmit counters
            // (`transmit_at`): at a switch the hinted port; at a host,
            // which answers a data packet with an ACK and an ACK with
            // data, its NIC (4-5% at scale, docs/performance.md).
            let out = if self.net.is_host(p.peer) {
                self.pool.prefetch(hint);
                self.routes.nic(p.peer)
            } else {
                hint
            };
            crate::port::prefetch_port(&self.ports, out);
            crate::prefetch::prefetch(self.tx.as_ptr().wrapping_add(out as usize));
        }
        match self.cal.peek_port_2() {
            Some(n2) => crate::port::prefetch_port(&self.ports, n2),
            // the next event is its slot's last: the ports of the next
            // occupied slot's (unsorted: up to four of them)
            None => self.cal.next_slot_ports(4, |q| crate::port::prefetch_port(&self.ports, q)),
        }
    }

    /// Set port `port`'s `head_hint` for its new head packet `hop`, going
    /// to `node`: at a host the packet itself; at a switch the output port
    /// it will take there if that is known before it gets there
    /// (`Routes::fixed_port`; looked up only with ECMP, where it always
    /// is), else `NO_HINT`. Out of line: the loop of fabrics without hints
    /// stays as it was.
    #[inline(never)]
    fn hint_head(&mut self, port: u32, node: u32, hop: Hop) {
        let hint = if self.net.is_host(node) {
            hop.id
        } else if !self.routes.hashes_flows() || hop.dst == LINK_LOCAL {
            NO_HINT
        } else {
            self.routes.fixed_port(node, hop.dst as u32, hop.flow).unwrap_or(NO_HINT)
        };
        self.ports[port as usize].set_head_hint(hint);
    }

    /// The head packet of port `port`'s link reaches the far end.
    ///
    /// A lazy port (one that chooses its next packet when its serializer
    /// frees up, and obeys no pauses) makes its departures here and at its
    /// own arrivals (`offer`), never at an event of its own. That is in
    /// time: a departure starting at `busy_until` reaches the far end no
    /// sooner than `busy_until + fixed_ps`, and while the port has a
    /// backlog its link carries the packet being serialized, which arrives
    /// at exactly that time, so this runs by then. It is also the departure
    /// decided on time: every arrival at the port first makes the
    /// departures due (`catch_up`), so the queue has not changed since
    /// `busy_until`.
    #[inline(always)]
    fn on_link_arrival(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        let hint = p.head_hint();
        let w = p.pop_wire().expect("a link arrival is scheduled only for a non-empty link");
        let node = p.peer;
        // (`bytes` counts a lazy port's queue exactly and is in the line
        // just read; `lazy` is not.)
        let due = !self.all_fifo_fast && p.busy_until <= self.now && p.bytes > 0 && p.lazy;
        if let Some(&next) = p.wire.front() {
            self.cal.schedule(next.arrival, Event::LinkArrival { port });
            if !self.all_fifo_fast || self.net.is_host(node) {
                // A host reads that packet when it arrives, and so does a
                // switch whose ports choose by priority; it has waited in
                // buffers and is out of cache.
                self.pool.prefetch(next.hop.id);
            }
            if self.hints && !self.net.is_host(node) {
                // its route, found below once this packet has moved on
                self.routes.prefetch(node, next.hop.dst as u32);
            }
        }
        if due {
            self.catch_up(port, self.now);
        }
        self.on_arrive(node, w.hop, port, hint);
        if self.hints {
            if let Some(&next) = self.ports[port as usize].wire.front() {
                self.hint_head(port, node, next.hop);
            }
        }
    }

    /// A port that obeys pauses makes each departure when its serializer
    /// frees up; a pulling NIC wakes here to send.
    fn on_tx_done(&mut self, port: u32) {
        if let Some(&host) = self.nic_host.get(port as usize).filter(|&&h| h != u32::MAX) {
            // a pulling NIC's wake-up
            self.nics[host as usize].woken(self.now);
            return self.nic_pump(host);
        }
        self.ports[port as usize].wake_pending = false;
        self.catch_up(port, self.now);
        self.ensure_wake(port);
    }

    /// Make every general-path port's departures due by now (before
    /// looking at queues from outside the event loop).
    fn catch_up_all(&mut self) {
        if self.all_fifo_fast {
            return;
        }
        for port in 0..self.ports.len() as u32 {
            let p = &self.ports[port as usize];
            if p.wake_pending || p.lazy {
                self.catch_up(port, self.now);
            }
        }
    }

    /// A host puts a packet on its NIC.
    #[inline(always)]
    fn inject(&mut self, host: u32, pkt: Packet) {
        let id = self.pool.alloc(pkt);
        self.send_from(host, id, pkt);
    }

    /// A host puts packet `id` (already in the pool, equal to `pkt`) on
    /// its NIC.
    #[inline]
    fn send_from(&mut self, host: u32, id: PacketId, pkt: Packet) {
        self.counters.host_tx_pkts += 1;
        self.counters.host_tx_bytes += pkt.size as u64;
        let nic = self.routes.nic(host);
        self.offer(nic, Hop { id, size: pkt.size, dst: pkt.dst, flow: pkt.flow });
    }

}
