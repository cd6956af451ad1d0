//! What a run reports: the samplers, flow records, unfinished flows, the
//! idle-network reference values (paths, ideal FCTs), conservation of
//! packets and bytes, and the ports' statistics.

use super::*;
use crate::idle::{self, Packets, Stage};

impl Simulation {
    /// Record the sampled ports' queues and the active flows' progress;
    /// sample again after the interval while flows remain.
    pub(super) fn on_sample(&mut self) {
        let now = self.now;
        self.catch_up_all();
        for &i in &self.sampled {
            let (pkts, bytes, _, _) = self.ports[i as usize].occupancy(now);
            let flows = self.ports[i as usize].queue.flows_held();
            self.samples.push(QueueSample { time: now, port: i, pkts: pkts as u32, bytes, flows });
        }
        if let Some(b) = &self.buffers {
            for node in self.net.hosts..self.net.nodes.len() as u32 {
                let (bytes, _) = b.used(node).expect("a switch");
                self.buffer_samples.push(BufferSample { time: now, node, bytes });
            }
        }
        let sampler = self.cfg.sampler.as_ref().expect("sampling");
        if sampler.flows {
            let t = &self.cfg.transport;
            let mut active: Vec<FlowSample> = self
                .flows
                .iter()
                .map(|f| FlowSample { time: now, flow: f.spec.id, delivered: f.ep.delivered_bytes(t) })
                .collect();
            active.sort_unstable_by_key(|x| x.flow);
            self.flow_samples.extend(active);
        }
        // sample again while flows remain and something else can happen:
        // with nothing else in the calendar (the deadlock check aside) the
        // run has stalled, and a sampler rescheduling itself would keep it
        // running for ever
        if self.counters.flows_finished < self.gen.total && self.cal.len() > self.checks_deadlock() as usize {
            self.cal.schedule(now + sampler.interval_ps, Event::Sample);
        }
    }

    /// Take the flow samples recorded since the last call.
    pub fn drain_flow_samples(&mut self) -> Vec<FlowSample> {
        std::mem::take(&mut self.flow_samples)
    }

    /// Take the switch-buffer samples recorded since the last call.
    pub fn drain_buffer_samples(&mut self) -> Vec<BufferSample> {
        std::mem::take(&mut self.buffer_samples)
    }

    /// Take the queue samples recorded since the last call.
    pub fn drain_queue_samples(&mut self) -> Vec<QueueSample> {
        std::mem::take(&mut self.samples)
    }

    /// Take the records of flows finished since the last call.
    pub fn drain_records(&mut self) -> Vec<FlowRecord> {
        let mut recs = std::mem::take(&mut self.records);
        self.check_against_ideal(&recs);
        if let Some(f) = &self.faults {
            for r in recs.iter_mut() {
                r.fault_losses = f.flow_losses.get(&r.id).copied().unwrap_or(0);
            }
        }
        recs
    }

    /// The flows that have started and not finished (the receiver does not
    /// hold every byte), in flow id order: what a run stopped by its stop
    /// time leaves behind. Flows whose arrival lies beyond the stop time
    /// never started and are not listed.
    pub fn unfinished(&self) -> Vec<UnfinishedRecord> {
        let mut out: Vec<UnfinishedRecord> = self
            .flows
            .iter()
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
                fault_losses: self.faults.as_ref().and_then(|x| x.flow_losses.get(&f.spec.id).copied()).unwrap_or(0),
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
                fault_losses: 0,
            }))
            .collect();
        out.sort_by_key(|r| r.id);
        out
    }
    // ---- reference values and accounting ---------------------------------

    /// The routes of the fabric without faults: what a flow's ideal FCT and
    /// base RTT are taken on (docs/faults.md).
    pub(super) fn base_routes(&self) -> &Routes {
        self.faults.as_ref().map_or(&self.routes, |f| &f.routes)
    }

    /// The hops (rate, delay) of the path from `src` to `dst` (first
    /// equal-cost choice at each hop), on the fabric without faults (their
    /// routes and rates: docs/faults.md).
    pub fn path(&self, src: u32, dst: u32) -> Vec<(u64, Time)> {
        self.hops(&self.walk(src, dst, |node| self.base_routes().group(node, dst)[0]))
    }

    /// The output ports a flow's packets take when routing fixes its path
    /// per flow (ECMP's hash of the flow, on the routes without faults);
    /// with spraying, the first equal-cost choice at each hop (as `path`).
    pub fn flow_ports(&self, spec: &FlowSpec) -> Vec<u32> {
        let r = self.base_routes();
        self.walk(spec.src, spec.dst, |node| {
            if node < self.net.hosts {
                return r.nic(node);
            }
            r.fixed_port(node, spec.dst, spec.id).unwrap_or_else(|| r.group(node, spec.dst)[0])
        })
    }

    fn walk(&self, src: u32, dst: u32, mut port_at: impl FnMut(u32) -> u32) -> Vec<u32> {
        let mut ports = Vec::with_capacity(6);
        let mut node = src;
        while node != dst {
            let port = port_at(node);
            ports.push(port);
            node = self.net.links[port as usize].peer;
        }
        ports
    }

    fn hops(&self, ports: &[u32]) -> Vec<(u64, Time)> {
        ports.iter().map(|&p| (self.net.links[p as usize].rate_bps, self.net.links[p as usize].delay_ps)).collect()
    }

    /// Every output port: (node, peer, rate, delay), in port order.
    pub fn links(&self) -> &[crate::topology::LinkEnd] {
        &self.net.links
    }

    /// The stages of every shortest path from `src` to `dst` on the fabric
    /// without faults (`idle::Stage`): the links leaving the nodes at each
    /// distance from `src` towards `dst`.
    fn stages(&self, src: u32, dst: u32) -> Vec<Stage> {
        let r = self.base_routes();
        let mut out = Vec::with_capacity(6);
        let mut layer = vec![src];
        while layer != [dst] {
            let mut next: Vec<u32> = Vec::new();
            let mut st = Stage { rate_bps: 0, capacity_bps: 0, delay: Time::MAX };
            for &node in &layer {
                for &port in r.group(node, dst) {
                    let l = &self.net.links[port as usize];
                    st.rate_bps = st.rate_bps.max(l.rate_bps);
                    st.capacity_bps = st.capacity_bps.saturating_add(l.rate_bps);
                    st.delay = st.delay.min(l.delay_ps);
                    next.push(l.peer);
                }
            }
            next.sort_unstable();
            next.dedup();
            out.push(st);
            layer = next;
        }
        out
    }

    /// A flow's packets (`idle::Packets`).
    fn packets(&self, size: u64) -> Packets {
        let t = &self.cfg.transport;
        Packets::of(size, t.mss_bytes() as u64, t.header_bytes() as u64)
    }

    /// The FCT of a flow alone on the idle network, on its own path
    /// (`idle::path_fct`), plus the receiving host's processing delay.
    /// The papers' "ideal" FCT, their normalizer (DESIGN.md,
    /// "Normalized FCT"): on their fabrics, whose first and last hops are
    /// the slowest, it is the wire bytes at the bottleneck plus one full
    /// packet's store-and-forward on every other hop, and that formula's
    /// value is kept to the picosecond there (`idle::papers_fct`).
    pub fn ideal_fct(&self, spec: &FlowSpec) -> Time {
        let hops = self.hops(&self.flow_ports(spec));
        let p = self.packets(spec.size);
        let exact = idle::path_fct(&hops, p);
        let papers = idle::papers_fct(&hops, p);
        // the same value but for rounding (a picosecond per serialization)
        let same = exact.abs_diff(papers) <= hops.len() as Time + 3;
        (if same { papers } else { exact }) + self.cfg.host_delay_ps
    }

    /// A flow's FCT alone on the idle network, ending where flows end
    /// (`FctAt`).
    pub fn flow_ideal(&self, spec: &FlowSpec) -> Time {
        let mut ideal = self.ideal_fct(spec);
        // (one-way transports acknowledge nothing: their messages end at
        // the receiver)
        if self.acked_at_sender() {
            ideal += self.ack_latency(spec.dst, spec.src);
        }
        ideal
    }

    fn acked_at_sender(&self) -> bool {
        self.cfg.fct_at == FctAt::Sender && !self.cfg.transport.one_way()
    }

    /// What no flow's FCT can beat, whatever paths its packets take: its
    /// ideal FCT where routing keeps a flow on one path; where packets are
    /// sprayed, `idle::multipath_bound` over the stages of all its
    /// shortest paths (they may overtake one another, and cross a slow
    /// core on several links at once), plus the host delay and the
    /// fastest ACK back.
    fn fct_bound(&mut self, r: &FlowRecord) -> Time {
        if self.routes.hashes_flows() {
            return r.ideal;
        }
        let p = self.packets(r.size);
        let mut t = idle::multipath_bound(self.cached_stages(r.src, r.dst), p) + self.cfg.host_delay_ps;
        if self.acked_at_sender() {
            let ack = self.cfg.transport.ack_bytes() as u64;
            let back = self.cached_stages(r.dst, r.src);
            t += back.iter().map(|s| serialization(ack, s.rate_bps) + s.delay).sum::<Time>() + self.cfg.host_delay_ps;
        }
        t
    }

    fn cached_stages(&mut self, src: u32, dst: u32) -> &[Stage] {
        if !self.stage_cache.contains_key(&(src, dst)) {
            let s = self.stages(src, dst);
            self.stage_cache.insert((src, dst), s);
        }
        &self.stage_cache[&(src, dst)]
    }

    /// Count the finished flows that beat their ideal FCT (only sprayed
    /// packets can) or their bound (none may: a bug).
    fn check_against_ideal(&mut self, recs: &[FlowRecord]) {
        for r in recs.iter().filter(|r| r.delivered == r.size) {
            let fct = r.finish - r.start;
            let c = &mut self.ideal_check;
            c.flows += 1;
            if fct < r.ideal {
                c.below_ideal += 1;
                let x = fct as f64 / r.ideal as f64;
                c.min_slowdown = Some(c.min_slowdown.map_or(x, |m: f64| m.min(x)));
            }
            if fct < self.fct_bound(r) {
                self.ideal_check.below_bound += 1;
            }
        }
    }

    /// How the finished flows compare with their ideal FCTs and bounds.
    pub fn ideal_report(&self) -> IdealCheck {
        IdealCheck { multipath: !self.routes.hashes_flows(), ..self.ideal_check }
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
            injected_pkts: self.counters.host_tx_pkts + self.counters.pfc_frames,
            injected_bytes: self.counters.host_tx_bytes + self.counters.pfc_bytes,
            delivered_pkts: self.counters.delivered_pkts,
            delivered_bytes: self.counters.delivered_bytes,
            dropped_pkts: self.ports.iter().map(|p| p.stats().drops).sum(),
            dropped_bytes: self.ports.iter().map(|p| p.stats().drop_bytes).sum(),
            ..Default::default()
        };
        if let Some(f) = &self.faults {
            // packets the links lost, beside those the queues dropped
            c.dropped_pkts += f.lost_pkts.iter().sum::<u64>();
            c.dropped_bytes += f.lost_bytes.iter().sum::<u64>();
        }
        debug_assert_eq!(
            self.pool.live() as u64,
            self.ports.iter().map(|p| p.len() as u64 + p.wire.len() as u64).sum::<u64>()
        );
        if let Some(b) = &self.buffers {
            // a switch's buffer holds exactly its ports' data queues
            for node in self.net.hosts..self.net.nodes.len() as u32 {
                let queued: u64 = self.net.nodes[node as usize]
                    .ports
                    .iter()
                    .map(|&p| self.ports[p as usize].queue.shared_bytes())
                    .sum();
                assert_eq!(b.used(node).map(|u| u.0), Some(queued), "switch {node}'s buffer accounting");
            }
        }
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
            .map(|(i, (p, l))| (i, p.stats(), l, p.queue.assignments()))
            .map(|(i, stats, l, (assignments, collisions))| PortReport {
                port: i as u32,
                node: l.node,
                peer: l.peer,
                tier: self.net.nodes[l.node as usize].tier,
                rate_bps: l.rate_bps,
                tx_pkts: self.tx[i].pkts,
                tx_bytes: self.tx[i].bytes,
                drops: stats.drops,
                marks: stats.marks,
                max_queue_bytes: stats.max_bytes,
                paused_ps: self.ports[i].queue.paused_ps(self.now),
                queue_assignments: assignments,
                queue_collisions: collisions,
            })
            .collect()
    }

    /// Data packets' queueing delays at switches, by tier (`None` unless
    /// `queueing_delay` is on).
    pub fn queueing_delays(&self) -> Option<Vec<DelayReport>> {
        self.delays.as_ref().map(QueueingDelay::reports)
    }

    /// What the run's scheme reports of itself, beside the ports, as the
    /// scheme's module writes it (`schemes::report`).
    pub fn scheme_report(&self) -> Option<crate::schemes::Report> {
        crate::schemes::report(&self.cfg.transport, &self.nodes)
    }

    /// The nodes output port `port` joins: `[node, peer]`.
    pub fn port_ends(&self, port: u32) -> [u32; 2] {
        let l = &self.net.links[port as usize];
        [l.node, l.peer]
    }

    /// What the faults did (`None` without faults): each fault's links as
    /// `[node, peer]` output ports, packets and bytes lost by cause, and
    /// the flows that lost any.
    pub fn fault_report(&self) -> Option<serde_json::Value> {
        let f = self.faults.as_ref()?;
        let causes = |v: &[u64; 4]| -> serde_json::Map<String, serde_json::Value> {
            crate::faults::CAUSES.iter().zip(v).map(|((_, name), &n)| (name.to_string(), n.into())).collect()
        };
        let links: Vec<Vec<[u32; 2]>> = f
            .ports
            .iter()
            .map(|ps| ps.iter().map(|&p| self.port_ends(p)).collect())
            .collect();
        Some(serde_json::json!({
            "links": links,
            "lost_pkts": causes(&f.lost_pkts),
            "lost_bytes": causes(&f.lost_bytes),
            "flows_touched": f.flow_losses.len(),
        }))
    }

    /// Counters with the port-level totals folded in.
    pub fn final_counters(&self) -> Counters {
        let mut c = self.counters;
        c.marked_pkts = self.ports.iter().map(|p| p.stats().marks).sum();
        // the flows still there (ended ones added theirs as they went)
        c.duplicate_pkts += self.flows.iter().map(|f| f.ep.duplicates() as u64).sum::<u64>();
        c
    }
}
