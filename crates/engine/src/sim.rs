//! The simulation: all state of one run in one value (no globals), and the
//! event loop that dispatches on `Event`. Schemes plug in through the port
//! discipline and the host transport; this file only moves packets.

use crate::config::{Config, FctAt, Model, SamplePorts};
use crate::fair_share::{FairShare, Path, MAX_HOPS};
use crate::ideal::{Active, FlowLevel, Ideal};
use std::collections::{HashMap, VecDeque};
use crate::event::{Calendar, Event};
use crate::metrics::{
    Conservation, Counters, FlowRecord, FlowSample, PortReport, PrioLosses, QueueSample, UnfinishedRecord,
};
use crate::packet::{Kind, Packet, PacketId, Pool};
use crate::port::{Hop, Port};
use crate::queue::Entry;
use crate::routing::Routes;
use crate::time::{serialization, Time};
use crate::topology::Network;
use crate::transport::{Conn, Segment, Transport};
use crate::workload::{FlowGen, FlowSpec};

/// State of one active flow: both endpoints live in the same slot.
struct Flow {
    spec: FlowSpec,
    ideal: Time,
    /// Absolute deadline (0: none).
    deadline: Time,
    ep: Transport,
    recorded: bool,
    /// Timer kinds with an entry in the calendar (one bit each).
    timers_pending: u8,
}

impl Flow {
    fn record(&self, finish: Time) -> FlowRecord {
        FlowRecord {
            id: self.spec.id,
            src: self.spec.src,
            dst: self.spec.dst,
            size: self.spec.size,
            start: self.spec.start,
            finish,
            ideal: self.ideal,
            retx: self.ep.retransmits(),
            timeouts: self.ep.timeouts(),
            deadline: self.deadline,
        }
    }
}

/// Connections that flows reuse, per ordered host pair (the pFabric and
/// PIAS ns-2 scripts' agent pools): the idle ones, in the order they went
/// idle. A pair starts with `connections_per_pair` new connections; a flow
/// takes the one idle longest, or opens another if all are busy, and gives
/// it back when its sender is done. So a flow never waits for another.
struct ConnPools {
    per_pair: u32,
    idle: HashMap<u64, VecDeque<Option<Conn>>>,
}

impl ConnPools {
    fn take(&mut self, src: u32, dst: u32) -> Option<Conn> {
        let n = self.per_pair as usize;
        let pool = self.idle.entry((src as u64) << 32 | dst as u64).or_insert_with(|| vec![None; n].into());
        pool.pop_front().flatten()
    }

    fn give_back(&mut self, src: u32, dst: u32, conn: Conn) {
        self.idle.get_mut(&((src as u64) << 32 | dst as u64)).expect("taken from this pool").push_back(Some(conn));
    }
}

/// Active flows in a slab: slots are reused, so memory follows the number
/// of active flows, not the total.
#[derive(Default)]
struct FlowTable {
    slots: Vec<Option<Flow>>,
    free: Vec<u32>,
    active: u64,
}

impl FlowTable {
    fn insert(&mut self, f: Flow) -> u32 {
        self.active += 1;
        match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(f);
                s
            }
            None => {
                self.slots.push(Some(f));
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The flow in `slot` if it is still flow `id`.
    #[inline]
    fn get(&mut self, slot: u32, id: u32) -> Option<&mut Flow> {
        match self.slots.get_mut(slot as usize) {
            Some(Some(f)) if f.spec.id == id => Some(f),
            _ => None,
        }
    }

    fn remove(&mut self, slot: u32) {
        self.slots[slot as usize] = None;
        self.free.push(slot);
        self.active -= 1;
    }
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
    pool: Pool,
    cal: Calendar,
    now: Time,
    gen: FlowGen,
    next_flow: Option<FlowSpec>,
    flows: FlowTable,
    records: Vec<FlowRecord>,
    counters: Counters,
    segs: Vec<Segment>,
    status: Status,
    /// Every port is a FIFO on the fast path (one predictable test per
    /// packet instead of a look at the port's discipline).
    all_fifo_fast: bool,
    conns: Option<ConnPools>,
    /// The flow-level model (`Model::Ideal`, `Model::IdealFq`), and the rate of the
    /// link into each host.
    flow_level: FlowLevel,
    downlink: Vec<u64>,
    done: Vec<Active>,
    /// Losses by priority at the ports that choose by priority, and where
    /// each port is (`metrics::PLACES`).
    prio_losses: PrioLosses,
    place: Vec<u8>,
    /// The ports the sampler records, and its records.
    sampled: Vec<u32>,
    samples: Vec<QueueSample>,
    flow_samples: Vec<FlowSample>,
}

impl Simulation {
    pub fn new(cfg: Config) -> Result<Simulation, String> {
        let t = &cfg.transport;
        if t.mss_bytes() == 0 || t.mss_bytes() + t.header_bytes() > u16::MAX as u32 || t.ack_bytes() == 0 {
            return Err("mss_bytes + header_bytes must be in 1..65535 and ack_bytes > 0".into());
        }
        let net = Network::build(&cfg.topology)?;
        if net.hosts > u16::MAX as u32 {
            return Err(format!("at most 65535 hosts are supported, got {}", net.hosts));
        }
        let routes = Routes::build(&net, cfg.routing.load_balancing, cfg.seed);
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
        let all_fifo_fast = cfg.port.fifo_fast_path && ports.iter().all(|p| p.queue.is_fifo());
        // strict-priority ports count their losses by class
        let by_class = ports.iter().any(|p| matches!(p.queue, crate::queue::Queue::Prio(_)));
        let mut gen = FlowGen::new(&cfg.workload, net.hosts, cfg.seed)?;
        let cfg_conns = cfg.transport.connections_per_pair();
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
        let mut cal = Calendar::with_horizon(hop.unwrap_or(0));
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
            ports,
            pool: Pool::default(),
            cal,
            now: 0,
            gen,
            next_flow,
            flows: FlowTable::default(),
            records: Vec::new(),
            counters: Counters::default(),
            segs: Vec::with_capacity(64),
            status: Status::Running,
            all_fifo_fast,
            conns: cfg_conns.map(|per_pair| ConnPools { per_pair, idle: HashMap::new() }),
            flow_level,
            downlink,
            done: Vec::new(),
            prio_losses: PrioLosses { by_class, ..PrioLosses::default() },
            place,
            sampled,
            samples: Vec::new(),
            flow_samples: Vec::new(),
        })
    }

    pub fn now(&self) -> Time {
        self.now
    }
    pub fn counters(&self) -> &Counters {
        &self.counters
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

    /// Record the sampled ports' queues and the active flows' progress;
    /// sample again after the interval while flows remain.
    fn on_sample(&mut self) {
        let now = self.now;
        self.catch_up_all();
        for &i in &self.sampled {
            let (pkts, bytes, _, _) = self.ports[i as usize].occupancy(now);
            self.samples.push(QueueSample { time: now, port: i, pkts: pkts as u32, bytes });
        }
        let sampler = self.cfg.sampler.as_ref().expect("sampling");
        if sampler.flows {
            let t = &self.cfg.transport;
            let mut active: Vec<FlowSample> = self
                .flows
                .slots
                .iter()
                .flatten()
                .map(|f| FlowSample { time: now, flow: f.spec.id, delivered: f.ep.delivered_bytes(t) })
                .collect();
            active.sort_unstable_by_key(|x| x.flow);
            self.flow_samples.extend(active);
        }
        if self.counters.flows_finished < self.gen.total {
            self.cal.schedule(now + sampler.interval_ps, Event::Sample);
        }
    }

    /// Take the flow samples recorded since the last call.
    pub fn drain_flow_samples(&mut self) -> Vec<FlowSample> {
        std::mem::take(&mut self.flow_samples)
    }

    /// Take the queue samples recorded since the last call.
    pub fn drain_queue_samples(&mut self) -> Vec<QueueSample> {
        std::mem::take(&mut self.samples)
    }

    /// Take the records of flows finished since the last call.
    pub fn drain_records(&mut self) -> Vec<FlowRecord> {
        std::mem::take(&mut self.records)
    }

    /// The flows that have started and not finished (the receiver does not
    /// hold every byte), in flow id order: what a run stopped by its stop
    /// time leaves behind. Flows whose arrival lies beyond the stop time
    /// never started and are not listed.
    pub fn unfinished(&self) -> Vec<UnfinishedRecord> {
        let mut out: Vec<UnfinishedRecord> = self
            .flows
            .slots
            .iter()
            .flatten()
            .filter(|f| !f.recorded)
            .map(|f| UnfinishedRecord {
                id: f.spec.id,
                src: f.spec.src,
                dst: f.spec.dst,
                size: f.spec.size,
                start: f.spec.start,
                delivered: f.ep.delivered_bytes(&self.cfg.transport),
                ideal: f.ideal,
                retx: f.ep.retransmits(),
                timeouts: f.ep.timeouts(),
                deadline: f.deadline,
            })
            .chain(self.flow_level.flows().iter().map(|a| UnfinishedRecord {
                id: a.spec.id,
                src: a.spec.src,
                dst: a.spec.dst,
                size: a.spec.size,
                start: a.spec.start,
                delivered: a.delivered(),
                ideal: a.ideal,
                retx: 0,
                timeouts: 0,
                deadline: self.absolute_deadline(&a.spec, a.ideal),
            }))
            .collect();
        out.sort_by_key(|r| r.id);
        out
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
            match ev {
                Event::LinkArrival { port } => self.on_link_arrival(port),
                Event::TxDone { port } => self.on_tx_done(port),
                Event::FlowArrival => self.on_flow_arrival(),
                Event::FlowTimer { slot, flow, timer } => self.on_flow_timer(slot, flow, timer),
                Event::PortTimer { .. } => unreachable!("no discipline sets port timers yet"),
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

    #[inline(always)]
    fn on_arrive(&mut self, node: u32, hop: Hop) {
        if self.net.is_host(node) {
            self.on_host_receive(node, hop.id);
        } else {
            let flow = if self.routes.hashes_flows() { self.pool.get(hop.id).flow } else { 0 };
            let port = self.routes.next_port(node, hop.dst as u32, flow);
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
        self.catch_up(port, now);
        let entry = Entry::of(hop, self.pool.get(hop.id));
        let place = self.place[port as usize] as usize;
        let bucket = self.prio_losses.bucket(entry.prio);
        self.prio_losses.arrivals[place][bucket] += 1;
        let p = &mut self.ports[port as usize];
        if p.busy_until <= now && p.is_empty() {
            self.transmit_at(port, hop, now, false);
            return;
        }
        match p.enqueue(entry) {
            Err(_) => {
                self.prio_losses.drops[place][bucket] += 1;
                return self.drop_packet(hop.id);
            }
            Ok((mark, evicted)) => {
                if mark {
                    p.mark(self.pool.get_mut(hop.id));
                }
                if let Some(victim) = evicted {
                    let prio = self.pool.get(victim.id).prio;
                    let b = self.prio_losses.bucket(prio);
                    self.prio_losses.drops[place][b] += 1;
                    self.drop_packet(victim.id);
                }
            }
        }
        self.ensure_wake(port);
    }

    /// Losses by priority at the ports that choose by priority.
    pub fn prio_losses(&self) -> &PrioLosses {
        &self.prio_losses
    }

    /// General path: make the departures of port `port` that were due by
    /// `upto`, in order, each the packet the discipline chooses when the
    /// serializer frees up. The queue cannot have changed since the last
    /// arrival (this runs before each), so a departure decided late is the
    /// one decided on time.
    #[inline]
    fn catch_up(&mut self, port: u32, upto: Time) {
        loop {
            let p = &mut self.ports[port as usize];
            let start = p.busy_until;
            if start > upto {
                return;
            }
            let Some(hop) = p.dequeue() else { return };
            self.transmit_at(port, hop, start, false);
        }
    }

    /// General path: a port with a backlog needs a `TxDone` event by the
    /// time its next packet would reach the far end, in case no arrival
    /// makes its departures first (see `on_tx_done`).
    #[inline]
    fn ensure_wake(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        if !p.wake_pending && !p.is_empty() {
            p.wake_pending = true;
            self.cal.schedule(p.busy_until + p.fixed_ps(), Event::TxDone { port });
        }
    }

    fn drop_packet(&mut self, id: PacketId) {
        let pkt = self.pool.release(id);
        self.counters.dropped_pkts += 1;
        self.counters.dropped_bytes += pkt.size as u64;
    }

    /// Serialize a packet from `start` (now, or when the port frees up) and
    /// put it on the link.
    #[inline(always)]
    fn transmit_at(&mut self, port: u32, hop: Hop, start: Time, buffered: bool) {
        self.counters.packet_hops += 1;
        let (arrival, was_idle) = self.ports[port as usize].transmit(hop, start, buffered);
        debug_assert!(arrival >= self.now, "a departure made too late for its arrival");
        if was_idle {
            self.cal.schedule(arrival, Event::LinkArrival { port });
        }
    }

    #[inline(always)]
    fn on_link_arrival(&mut self, port: u32) {
        let p = &mut self.ports[port as usize];
        let w = p.pop_wire().expect("a link arrival is scheduled only for a non-empty link");
        let node = p.peer;
        if let Some(next) = p.wire.front() {
            self.cal.schedule(next.arrival, Event::LinkArrival { port });
            if !self.all_fifo_fast || self.net.is_host(node) {
                // A host reads that packet when it arrives, and so does a
                // switch whose ports choose by priority; it has waited in
                // buffers and is out of cache.
                self.pool.prefetch(next.hop.id);
            }
        }
        self.on_arrive(node, w.hop);
    }

    /// A port that chooses its next packet when its serializer frees up
    /// makes its departures lazily: at its next arrival (`offer`), or here,
    /// at the latest moment that keeps every event in order: a packet that
    /// starts at `busy_until` reaches the far end no sooner than
    /// `busy_until + fixed_ps`, so its departure (and any after it) is made
    /// by then, with the queue as it was at `busy_until`. Busy ports thus
    /// need one event per arrival-free stretch, not one per packet.
    fn on_tx_done(&mut self, port: u32) {
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
            if self.ports[port as usize].wake_pending {
                self.catch_up(port, self.now);
            }
        }
    }

    /// A host puts a packet on its NIC.
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
        self.offer(nic, Hop { id, size: pkt.size, dst: pkt.dst });
    }

    // ---- transport -------------------------------------------------------

    fn on_flow_arrival(&mut self) {
        let spec = self.next_flow.take().expect("a flow arrival is scheduled only with a pending flow");
        self.start_flow(spec);
        self.pending_arrival();
    }

    /// Ask the workload for its next flow and schedule its arrival.
    fn pending_arrival(&mut self) {
        self.next_flow = self.gen.next_flow();
        if let Some(f) = self.next_flow {
            if self.cfg.model == Model::Packets {
                self.cal.schedule(f.start.max(self.now), Event::FlowArrival);
            }
        }
    }

    /// A flow finished: count it, and let a closed-loop workload (incast)
    /// start what waited for it.
    fn flow_finished(&mut self, now: Time) {
        self.counters.flows_finished += 1;
        self.gen.flow_done(now);
        if self.next_flow.is_none() {
            self.pending_arrival();
        }
    }

    /// A flow's deadline (0: none): its draw after the start, but no sooner
    /// than `min_factor` times its FCT on the idle network (pFabric §5.4.2).
    fn absolute_deadline(&self, spec: &FlowSpec, ideal: Time) -> Time {
        let Some(draw) = spec.deadline_draw else { return 0 };
        let factor = match &self.cfg.workload {
            crate::config::WorkloadConfig::Generated { deadlines: Some(d), .. } => d.min_factor,
            _ => 1.0,
        };
        spec.start + draw.max((ideal as f64 * factor).ceil() as Time)
    }

    fn start_flow(&mut self, spec: FlowSpec) {
        let ideal = self.flow_ideal(&spec);
        let deadline = self.absolute_deadline(&spec, ideal);
        let t = &self.cfg.transport;
        let conn = self.conns.as_mut().and_then(|c| c.take(spec.src, spec.dst));
        let ep = Transport::new(&spec, t, conn, (deadline > 0).then_some(deadline));
        let flow = Flow { spec, ideal, deadline, ep, recorded: false, timers_pending: 0 };
        let slot = self.flows.insert(flow);
        self.counters.flows_started += 1;
        self.counters.max_active_flows = self.counters.max_active_flows.max(self.flows.active);
        let mut segs = std::mem::take(&mut self.segs);
        let f = self.flows.get(slot, spec.id).expect("just inserted");
        f.ep.start(self.now, &self.cfg.transport, &mut segs);
        self.send_segments(slot, spec.id, &mut segs);
        self.segs = segs;
    }

    /// Build and inject the data packets of `segs`, then arm the flow's
    /// timers.
    fn send_segments(&mut self, slot: u32, id: u32, segs: &mut Vec<Segment>) {
        let Some(f) = self.flows.get(slot, id) else { return };
        let spec = f.spec;
        for kind in 0..f.ep.timer_kinds() {
            let bit = 1 << kind;
            if let (Some(d), 0) = (f.ep.deadline(kind), f.timers_pending & bit) {
                f.timers_pending |= bit;
                self.cal.schedule(d, Event::FlowTimer { slot, flow: id, timer: kind });
            }
        }
        for seg in segs.iter() {
            let pkt = Packet {
                flow: id,
                slot,
                seq: seg.seq,
                sack_lo: 0,
                sack_hi: 0,
                prio: seg.prio,
                ts: self.now,
                src: spec.src as u16,
                dst: spec.dst as u16,
                size: seg.size,
                kind: Kind::Data,
                flags: seg.flags,
            };
            self.counters.data_pkts += 1;
            self.inject(spec.src, pkt);
        }
        segs.clear();
    }

    /// Packet `id` is delivered to `host`. A data packet's pool slot is
    /// reused for its reply; any other packet leaves the network here.
    fn on_host_receive(&mut self, host: u32, id: PacketId) {
        let pkt = *self.pool.get(id);
        self.counters.delivered_pkts += 1;
        self.counters.delivered_bytes += pkt.size as u64;
        debug_assert_eq!(host, pkt.dst as u32, "packet delivered to the wrong host");
        let now = self.now;
        let Some(f) = self.flows.get(pkt.slot, pkt.flow) else {
            self.pool.release(id);
            self.counters.stale_pkts += 1;
            return;
        };
        match pkt.kind {
            Kind::Data => {
                let reply = f.ep.on_data(&pkt, &self.cfg.transport);
                if self.cfg.fct_at == FctAt::Receiver && f.ep.receiver_complete() && !f.recorded {
                    f.recorded = true;
                    self.records.push(f.record(now));
                    self.flow_finished(now);
                }
                match reply {
                    Some(ack) => {
                        self.counters.ack_pkts += 1;
                        *self.pool.get_mut(id) = ack;
                        self.send_from(host, id, ack);
                    }
                    None => {
                        self.pool.release(id);
                    }
                }
            }
            Kind::Ack => {
                self.pool.release(id);
                let mut segs = std::mem::take(&mut self.segs);
                let retx_before = f.ep.retransmits();
                f.ep.on_ack(now, &pkt, &self.cfg.transport, &mut segs);
                self.counters.retransmitted_pkts += (f.ep.retransmits() - retx_before) as u64;
                if f.ep.sender_done() {
                    // FctAt::Sender (with Receiver, the receiver completed first)
                    let record = (!f.recorded).then(|| f.record(now));
                    if let Some(c) = self.conns.as_mut() {
                        c.give_back(f.spec.src, f.spec.dst, f.ep.conn());
                    }
                    self.flows.remove(pkt.slot);
                    if let Some(r) = record {
                        self.records.push(r);
                        self.flow_finished(now);
                    }
                } else {
                    self.send_segments(pkt.slot, pkt.flow, &mut segs);
                }
                self.segs = segs;
            }
        }
    }

    fn on_flow_timer(&mut self, slot: u32, id: u32, kind: u8) {
        let now = self.now;
        let Some(f) = self.flows.get(slot, id) else { return };
        let bit = 1 << kind;
        f.timers_pending &= !bit;
        match f.ep.deadline(kind) {
            None => {}
            Some(d) if d > now => {
                // Re-armed since this event was scheduled: sleep again.
                f.timers_pending |= bit;
                self.cal.schedule(d, Event::FlowTimer { slot, flow: id, timer: kind });
            }
            Some(_) => {
                let mut segs = std::mem::take(&mut self.segs);
                let (retx_before, timeouts_before) = (f.ep.retransmits(), f.ep.timeouts());
                f.ep.on_timer(now, kind, &self.cfg.transport, &mut segs);
                self.counters.timeouts += (f.ep.timeouts() - timeouts_before) as u64;
                self.counters.retransmitted_pkts += (f.ep.retransmits() - retx_before) as u64;
                self.send_segments(slot, id, &mut segs);
                self.segs = segs;
            }
        }
    }

    // ---- reference values and accounting ---------------------------------

    /// The hops (rate, delay) of the path from `src` to `dst` (first
    /// equal-cost choice at each hop; in the supported topologies all
    /// shortest paths have the same rates and delays).
    pub fn path(&self, src: u32, dst: u32) -> Vec<(u64, Time)> {
        let mut hops = Vec::with_capacity(6);
        let mut node = src;
        while node != dst {
            let port = self.routes.group(node, dst)[0];
            let p = &self.ports[port as usize];
            hops.push((p.rate_bps, p.delay_ps));
            node = p.peer;
        }
        hops
    }

    /// The FCT of a flow alone on the idle network (DESIGN.md "Normalized
    /// FCT"): its wire bytes serialized at the bottleneck, plus propagation
    /// on every hop, plus store-and-forward of one full packet on every hop
    /// but the bottleneck, plus the receiving host's processing delay. This
    /// is exactly what a flow with an unlimited window achieves when the
    /// first bottleneck hop is the first hop.
    pub fn ideal_fct(&self, src: u32, dst: u32, wire_bytes: u64, pkt_bytes: u64) -> Time {
        let hops = self.path(src, dst);
        let (b, &(rb, _)) = hops.iter().enumerate().min_by_key(|(_, h)| h.0).expect("src != dst");
        let mut t = serialization(wire_bytes, rb) + self.cfg.host_delay_ps;
        for (i, &(rate, delay)) in hops.iter().enumerate() {
            t += delay;
            if i != b {
                t += serialization(pkt_bytes, rate);
            }
        }
        t
    }

    /// A flow's FCT alone on the idle network, ending where flows end
    /// (`FctAt`).
    fn flow_ideal(&self, spec: &FlowSpec) -> Time {
        let t = &self.cfg.transport;
        let (mss, hdr) = (t.mss_bytes() as u64, t.header_bytes() as u64);
        let wire = spec.size + spec.size.div_ceil(mss) * hdr;
        let first_pkt = spec.size.min(mss) + hdr;
        let mut ideal = self.ideal_fct(spec.src, spec.dst, wire, first_pkt);
        if self.cfg.fct_at == FctAt::Sender {
            ideal += self.ack_latency(spec.dst, spec.src);
        }
        ideal
    }

    /// The time an acknowledgement takes from `from` back to `to` on the
    /// idle network: each hop's serialization and propagation, and the
    /// receiving host's delay.
    pub fn ack_latency(&self, from: u32, to: u32) -> Time {
        let ack = self.cfg.transport.ack_bytes() as u64;
        let hops = self.path(from, to);
        self.cfg.host_delay_ps + hops.iter().map(|&(rate, delay)| serialization(ack, rate) + delay).sum::<Time>()
    }

    /// Packets and bytes injected, delivered, dropped, queued and in flight.
    pub fn conservation(&self) -> Conservation {
        let mut c = Conservation {
            injected_pkts: self.counters.host_tx_pkts,
            injected_bytes: self.counters.host_tx_bytes,
            delivered_pkts: self.counters.delivered_pkts,
            delivered_bytes: self.counters.delivered_bytes,
            dropped_pkts: self.ports.iter().map(|p| p.stats().drops).sum(),
            dropped_bytes: self.ports.iter().map(|p| p.stats().drop_bytes).sum(),
            ..Default::default()
        };
        debug_assert_eq!(
            self.pool.live() as u64,
            self.ports.iter().map(|p| p.len() as u64 + p.wire.len() as u64).sum::<u64>()
        );
        for p in &self.ports {
            let (qp, qb, wp, wb) = p.occupancy(self.now);
            c.queued_pkts += qp;
            c.queued_bytes += qb;
            c.in_flight_pkts += wp;
            c.in_flight_bytes += wb;
        }
        c
    }

    pub fn port_reports(&self) -> Vec<PortReport> {
        self.ports
            .iter()
            .zip(&self.net.links)
            .enumerate()
            .map(|(i, (p, l))| (i, p.stats(), l))
            .map(|(i, stats, l)| PortReport {
                port: i as u32,
                node: l.node,
                peer: l.peer,
                tier: self.net.nodes[l.node as usize].tier,
                tx_pkts: stats.tx_pkts,
                tx_bytes: stats.tx_bytes,
                drops: stats.drops,
                marks: stats.marks,
                max_queue_bytes: stats.max_bytes,
            })
            .collect()
    }

    /// Counters with the port-level totals folded in.
    pub fn final_counters(&self) -> Counters {
        let mut c = self.counters;
        c.marked_pkts = self.ports.iter().map(|p| p.stats().marks).sum();
        c
    }
}
