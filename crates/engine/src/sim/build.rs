//! Building a simulation from a resolved configuration (`resolve.rs`):
//! its ports, buffers, calendar and workload, and what the schemes keep
//! across flows (`schemes::Nodes`).

use super::*;
use crate::resolve::{port_configs, resolve, Resolved};

/// Fabrics of at least this many ports keep head-packet hints
/// (`Port::head_hint`). Asking one event ahead for the lines a hint names
/// pays where ports, link cells and packets do not stay in cache (6,144
/// hosts, 15,360 ports: 12-54% faster from 3,000 flows on) and costs where
/// they do (144 hosts, 360 ports: 5-7% slower),
/// docs/performance.md. A hint never changes results.
const HINTS_FROM_PORTS: usize = 4096;

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
        let Resolved { cfg, net, routes } = resolve(cfg)?;
        let queues = port_configs(&cfg, &net);
        let ports: Vec<Port> = net
            .links
            .iter()
            .zip(queues)
            .map(|(l, q)| {
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
        let delays = cfg.queueing_delay.then(QueueingDelay::default);
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
        let nics: Vec<Nic> = if pulled { (0..net.hosts).map(|_| Nic::default()).collect() } else { vec![] };
        let nic_host: Vec<u32> = if pulled {
            net.links.iter().map(|l| if net.is_host(l.node) { l.node } else { u32::MAX }).collect()
        } else {
            vec![]
        };
        let buffers = match &cfg.shared_buffer {
            None => None,
            Some(b) => Some(SharedBuffers::new(b, &net, classes)?),
        };
        // strict-priority ports count their losses by class
        let by_class = ports.iter().any(|p| p.queue.by_class());
        let mut gen = FlowGen::new(&cfg.workload, net.hosts, cfg.seed)?;
        let nodes = Nodes::new(&cfg, &net, factory)?;
        let link_sched = nodes.schedules_links();
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
        let faults = crate::faults::Faults::new(&cfg.faults, &cfg.link_errors, &net, cfg.seed, &routes)?.map(Box::new);
        if let Some(f) = &faults {
            if cfg.model != Model::Packets {
                return Err("faults need the packet model: a flow-level model has no links to fail".into());
            }
            let cut = f.cut_off(&net);
            if !cut.is_empty() && cfg.stop_time_ps.is_none() {
                let few: Vec<String> = cut.iter().take(5).map(|h| h.to_string()).collect();
                return Err(format!(
                    "faults: faults that last the rest of the run cut host{} {}{} off from the rest of the fabric, so \
                     flows to or from {} could never finish: give the fault an until_ms, or set run.stop_time_s",
                    if cut.len() > 1 { "s" } else { "" },
                    few.join(", "),
                    if cut.len() > 5 { format!(" and {} more", cut.len() - 5) } else { String::new() },
                    if cut.len() > 1 { "them" } else { "it" }
                ));
            }
            for (i, s) in f.steps.iter().enumerate() {
                cal.schedule(s.at, Event::Fault { step: i as u32 });
            }
        }
        if let (true, Some(every)) = (has_pfc && cfg.shared_buffer.as_ref().is_some_and(|b| b.pfc), cfg.deadlock_check_ps) {
            cal.schedule(every, Event::Fault { step: super::deadlock::CHECK });
        }
        let next_flow = gen.next_flow();
        if let Some(f) = next_flow {
            cal.schedule(f.start, Event::FlowArrival);
        }
        let sampled: Vec<u32> = match &cfg.sampler {
            None => vec![],
            Some(q) => {
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
            ideal_check: Default::default(),
            stage_cache: Default::default(),
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
            link_sched,
            nics,
            nic_host,
            nic_srpt,
            delays,
            buffers,
            buffer_samples: Vec::new(),
            faults,
            watch: None,
        })
    }
}
