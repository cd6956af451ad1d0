//! The simulation: all state of one run in one value (no globals), and the
//! event loop that dispatches on `Event`. This module only moves packets;
//! schemes plug in at the seams (docs/design.md, "The scheme seam"): the
//! port discipline (`queue::Queue`), the flows' endpoints
//! (`transport::Endpoint`, `schemes::Transport`) and what schemes keep
//! across flows at hosts and switches (`schemes::Nodes`), whose hooks the
//! packet path calls at fixed points. Here: ports and links; the hosts'
//! side (`hosts.rs`) and the pulling NIC (`nic.rs`), shared-buffer
//! switches with PFC and self-timed ports (`switches.rs`), faults in the
//! fabric (`faults.rs`), and what a run reports (`reports.rs`) are `impl
//! Simulation` blocks of their own.

mod build;
mod deadlock;
mod faults;
mod hosts;
mod nic;
mod ports;
mod reports;
mod switches;

use crate::buffer::{SharedBuffers, Signal, NOT_COUNTED};
use crate::config::{Config, FctAt, Model, SamplePorts};
use crate::fair_share::{FairShare, Path, MAX_HOPS};
use crate::flow_level::FlowLevel;
use crate::ideal::{Active, Ideal};
use crate::event::{slot_bits_for, Calendar, Event};
use crate::nic::{Nic, NicState};
use crate::metrics::{
    delay_subset, BufferSample, Conservation, Counters, DelayReport, FlowRecord, FlowSample, IdealCheck, PortReport, PrioCounts, PrioLosses,
    QueueSample, QueueingDelay, UnfinishedRecord,
};
use crate::packet::{Kind, Packet, PacketId, Pool, LINK_LOCAL};
use crate::port::{Hop, Port, Transmitted, NO_HINT};
use crate::queue::Entry;
use crate::routing::Routes;
use crate::time::{serialization, Time};
use crate::topology::Network;
use crate::flows::{Flow, FlowTable};
use crate::schemes::{Frame, Nodes, Transport};
use crate::transport::{Factory, NewFlow, Poll, Segment};
use crate::workload::{traffic_class, FlowGen, FlowSpec};

/// A flow's record once it has finished at `finish`.
fn record(f: &Flow<Transport>, finish: Time, cfg: &crate::config::TransportConfig) -> FlowRecord {
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
        // a flow its sender gave up (`Endpoint::terminated`) holds what arrived
        delivered: if f.ep.terminated() { f.ep.delivered_bytes(cfg) } else { f.spec.size },
        fault_losses: 0,
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
    /// Switch ports paused in a cycle hold the flows for good: a PFC
    /// deadlock (`deadlock.rs`, `Simulation::deadlock`).
    Deadlock,
    /// The senders resent their packets many times over
    /// (`Config::max_resends_per_packet`): a congestion collapse, stopped.
    Collapse,
}

/// Resends below this many never stop a run: a short run's few packets
/// may each be resent several times without a collapse.
pub const COLLAPSE_MIN_RESENDS: u64 = 100_000;

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
    /// Finished flows against their ideal FCTs and bounds (`reports.rs`),
    /// and the stages of the paths between hosts that the bounds use.
    ideal_check: IdealCheck,
    stage_cache: std::collections::HashMap<(u32, u32), Vec<crate::idle::Stage>>,
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
    /// The scheme schedules flows at every link (`Nodes::schedules_links`):
    /// one predictable test per packet-hop when it does not.
    link_sched: bool,
    /// The transport's data is pulled by the NICs (`nic.rs`): each host's
    /// round robin, and the host of each NIC port.
    nics: Vec<Nic>,
    nic_host: Vec<u32>,
    /// The NICs serve their flows shortest remaining first, not round robin.
    nic_srpt: bool,
    /// Data packets' queueing delays at switches (`queueing_delay`).
    delays: Option<QueueingDelay>,
    /// Links and switches that fail or degrade (`faults.rs`), when any do.
    faults: Option<Box<crate::faults::Faults>>,
    /// What the PFC deadlock detector saw (`deadlock.rs`).
    watch: Option<deadlock::Watch>,
}

/// `Packet::seq` of a PFC frame, which pauses one priority (traffic
/// class) of the port, named in `sack_lo`: all its data with one class.
/// Other frames name one of the queues a port assigns there instead.
const PFC_CLASS: u32 = u32::MAX;

/// Bytes on the wire of a PFC frame: a minimum-size Ethernet frame.
pub const PFC_FRAME_BYTES: u16 = 64;

impl Simulation {
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
        let mut status = self.run_packets(max_events);
        if status == Status::Running && self.collapsed() {
            self.status = Status::Collapse;
            status = self.status;
        }
        // what the caller reads next (counters, queues) is as of now
        self.catch_up_all();
        status
    }

    /// Whether the run resends more than `max_resends_per_packet` times
    /// the data packets it sent once. Go-back-N under spraying, or a
    /// timeout shorter than the queues, can resend each packet hundreds of
    /// times (fuzz case 7078: 28 flows, 1,344 resends a packet, 63 s where
    /// the cost estimate said 0.1 s); its results mean little, and its cost
    /// is past any estimate. Checked once per call of `run`, not per event.
    fn collapsed(&self) -> bool {
        let Some(ratio) = self.cfg.max_resends_per_packet else { return false };
        let c = &self.counters;
        let once = c.data_pkts.saturating_sub(c.retransmitted_pkts);
        c.retransmitted_pkts >= COLLAPSE_MIN_RESENDS && c.retransmitted_pkts as f64 > ratio * once as f64
    }

    pub(super) fn run_packets(&mut self, max_events: u64) -> Status {
        let stop = self.cfg.stop_time_ps.unwrap_or(Time::MAX);
        let total = self.gen.total;
        for _ in 0..max_events {
            if self.counters.flows_finished == total {
                self.status = Status::Done;
                return self.status;
            }
            let Some((t, ev)) = self.cal.pop_until(stop) else {
                if self.cal.is_empty() {
                    // nothing left to happen: paused ports in a cycle, if any, are why
                    self.status = if self.deadlock_at_stall() { Status::Deadlock } else { Status::Stalled };
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
                Event::Fault { step: deadlock::CHECK } => {
                    self.on_deadlock_check();
                    if self.status == Status::Deadlock {
                        return self.status;
                    }
                }
                Event::Fault { step } => self.on_fault(step),
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
    pub(super) fn run_flows(&mut self, max_events: u64) -> Status {
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
                    delivered: a.spec.size,
                    fault_losses: 0,
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
    pub(super) fn path_of(&mut self, f: &FlowSpec) -> Path {
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

}
