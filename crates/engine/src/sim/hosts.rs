//! The hosts' side of the simulation: flows arriving and starting, their
//! endpoints' segments put on the NIC (pushed; pulled ones: `nic.rs`),
//! packets delivered to their endpoints, and the flows' timers.

use super::*;

impl Simulation {
    pub(super) fn on_flow_arrival(&mut self) {
        let spec = self.next_flow.take().expect("a flow arrival is scheduled only with a pending flow");
        self.start_flow(spec);
        self.pending_arrival();
    }

    /// Ask the workload for its next flow and schedule its arrival.
    pub(super) fn pending_arrival(&mut self) {
        self.next_flow = self.gen.next_flow();
        if let Some(f) = self.next_flow {
            if self.cfg.model == Model::Packets {
                self.cal.schedule(f.start.max(self.now), Event::FlowArrival);
            }
        }
    }

    /// A flow finished: count it, and let a closed-loop workload (incast)
    /// start what waited for it.
    pub(super) fn flow_finished(&mut self, now: Time) {
        self.counters.flows_finished += 1;
        self.gen.flow_done(now);
        if self.next_flow.is_none() {
            self.pending_arrival();
        }
    }

    /// A flow's absolute deadline (0: none; `workload::absolute_deadline`).
    pub(super) fn absolute_deadline(&self, spec: &FlowSpec, ideal: Time) -> Time {
        crate::workload::absolute_deadline(&self.cfg.workload, spec, ideal)
    }

    pub(super) fn start_flow(&mut self, spec: FlowSpec) {
        let ideal = self.flow_ideal(&spec);
        let deadline = self.absolute_deadline(&spec, ideal);
        let t = &self.cfg.transport;
        let base_rtt = crate::resolve::pair_rtt(&self.net, self.base_routes(), spec.src, spec.dst, t.mss_bytes() as u64);
        let new = NewFlow { spec: &spec, deadline: (deadline > 0).then_some(deadline), seed: self.cfg.seed, base_rtt };
        let (ep, opened_now) = self.nodes.hosts.new_flow(&new, t);
        self.counters.connections_opened += opened_now as u64;
        let flow = Flow { spec, ideal, deadline, ep, recorded: false, timers_pending: 0, nic: NicState::Idle, nic_paused: false };
        let slot = self.flows.insert(flow);
        self.counters.flows_started += 1;
        self.counters.max_active_flows = self.counters.max_active_flows.max(self.flows.active);
        let mut segs = std::mem::take(&mut self.segs);
        let f = self.flows.get(slot, spec.id).expect("just inserted");
        f.ep.start(self.now, &self.cfg.transport, &mut segs);
        self.send_segments(slot, spec.id, &mut segs);
        self.segs = segs;
        self.nic_wake_flow(slot, spec.id);
    }

    /// Build and inject the data packets of `segs`, then arm the flow's
    /// timers.
    pub(super) fn send_segments(&mut self, slot: u32, id: u32, segs: &mut Vec<Segment>) {
        let Some(spec) = self.arm_timers(slot, id) else { return };
        for seg in segs.iter() {
            let pkt = self.data_packet(slot, id, &spec, seg);
            if seg.kind == Kind::Data {
                self.counters.data_pkts += 1;
                self.inject(spec.src, pkt);
            } else {
                self.send_control(&spec, seg.kind, pkt);
            }
        }
        segs.clear();
    }

    /// A packet of `kind` other than data that an endpoint sends
    /// (credits from the receiver; a sender's control packets).
    #[inline(never)]
    pub(super) fn send_control(&mut self, spec: &FlowSpec, kind: Kind, mut pkt: Packet) {
        pkt.kind = kind;
        let from = if kind.from_receiver() {
            (pkt.src, pkt.dst) = (pkt.dst, pkt.src);
            spec.dst
        } else {
            spec.src
        };
        match kind {
            Kind::Credit => self.counters.credit_pkts += 1,
            Kind::Ack => self.counters.ack_pkts += 1,
            // the sender's: counted with its data (as its credit requests)
            _ => self.counters.data_pkts += 1,
        }
        self.inject(from, pkt);
    }

    /// The data packet of segment `seg` of flow `id` (in `slot`), sent now.
    #[inline]
    pub(super) fn data_packet(&self, slot: u32, id: u32, spec: &FlowSpec, seg: &Segment) -> Packet {
        Packet {
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
            ingress: 0,
        }
    }

    /// Put the flow's timers in the calendar (those armed and not there
    /// yet); returns the flow's spec, if the flow is still there.
    pub(super) fn arm_timers(&mut self, slot: u32, id: u32) -> Option<FlowSpec> {
        let f = self.flows.get(slot, id)?;
        for kind in 0..f.ep.timer_kinds() {
            let bit = 1 << kind;
            if let (Some(d), 0) = (f.ep.deadline(kind), f.timers_pending & bit) {
                f.timers_pending |= bit;
                self.cal.schedule(d, Event::FlowTimer { slot, flow: id, timer: kind });
            }
        }
        Some(f.spec)
    }

    /// Packet `id` is delivered to `host`. A data packet's pool slot is
    /// reused for its reply; any other packet leaves the network here.
    pub(super) fn on_host_receive(&mut self, host: u32, id: PacketId) {
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
            Kind::Data | Kind::CreditStop => {
                let reply = f.ep.on_data(now, &pkt, &self.cfg.transport, &mut self.segs);
                let drives = f.ep.receiver_drives();
                if self.cfg.fct_at == FctAt::Receiver && f.ep.receiver_complete() && !f.recorded {
                    f.recorded = true;
                    self.records.push(record(f, now, &self.cfg.transport));
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
                if !self.segs.is_empty() {
                    self.receiver_sends(pkt.slot, pkt.flow);
                }
                if drives {
                    self.receiver_acted(pkt.slot, pkt.flow, now);
                }
                if self.nodes.hosts.acts_after_data() {
                    self.after_data(host, pkt.slot, pkt.flow);
                }
            }
            Kind::Pause | Kind::Resume => unreachable!("PFC frames end at the port they reach"),
            Kind::Ack | Kind::Credit | Kind::Grant => {
                self.pool.release(id);
                let mut segs = std::mem::take(&mut self.segs);
                let retx_before = f.ep.retransmits();
                let carried = self.nodes.carried(id);
                f.ep.on_ack(now, &pkt, carried, &self.cfg.transport, &mut segs);
                self.counters.retransmitted_pkts += (f.ep.retransmits() - retx_before) as u64;
                if f.ep.sender_done() {
                    // FctAt::Sender (with Receiver, the receiver completed first)
                    let record = (!f.recorded).then(|| record(f, now, &self.cfg.transport));
                    self.nodes.hosts.flow_ends(&f.spec, &f.ep);
                    // (a flow's duplicates are summed as it goes: none per packet)
                    self.counters.duplicate_pkts += f.ep.duplicates() as u64;
                    self.flows.remove(pkt.slot);
                    if let Some(r) = record {
                        self.records.push(r);
                        self.flow_finished(now);
                    }
                } else {
                    self.send_segments(pkt.slot, pkt.flow, &mut segs);
                    self.nic_wake_flow(pkt.slot, pkt.flow);
                }
                self.segs = segs;
            }
        }
    }

    /// What a receiver sends beside its reply (none of the built-in
    /// transports does: a transport of one's own may).
    #[cold]
    #[inline(never)]
    fn receiver_sends(&mut self, slot: u32, id: u32) {
        let mut segs = std::mem::take(&mut self.segs);
        self.send_segments(slot, id, &mut segs);
        self.segs = segs;
    }

    /// The hosts act on data their receivers took (a receiver that grants):
    /// send
    /// what they answer, from `host`.
    #[inline(never)]
    fn after_data(&mut self, host: u32, slot: u32, id: u32) {
        let mut out = std::mem::take(&mut self.replies);
        self.nodes.hosts.after_data(host, slot, id, &mut self.flows, &self.cfg.transport, self.now, &mut out);
        for pkt in out.drain(..) {
            self.counters.credit_pkts += 1;
            self.inject(host, pkt);
        }
        self.replies = out;
    }

    /// A receiver that has timers of its own and ends its flow
    /// (`Transport::receiver_drives`) took a packet: arm its timers; if
    /// the flow is over, record it (at the end that closes it) and let it go.
    pub(super) fn receiver_acted(&mut self, slot: u32, id: u32, now: Time) {
        let Some(_) = self.arm_timers(slot, id) else { return };
        let f = self.flows.get(slot, id).expect("armed");
        if !f.ep.sender_done() {
            return;
        }
        let record = (!f.recorded).then(|| record(f, now, &self.cfg.transport));
        self.counters.duplicate_pkts += f.ep.duplicates() as u64;
        self.flows.remove(slot);
        if let Some(r) = record {
            self.records.push(r);
            self.flow_finished(now);
        }
    }

    pub(super) fn on_flow_timer(&mut self, slot: u32, id: u32, kind: u8) {
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
                if let Some(reply) = f.ep.take_reply(now) {
                    // a held ACK or a CNP, from the receiver
                    let host = f.spec.dst;
                    self.counters.ack_pkts += 1;
                    self.inject(host, reply);
                }
                self.send_segments(slot, id, &mut segs);
                self.segs = segs;
                self.nic_wake_flow(slot, id);
            }
        }
    }
}
