//! The switches of BFC's generation, as the simulation drives them: ports
//! that obey PFC with a shared buffer (admission, release, pause and resume
//! frames, HPCC's telemetry stamp), BFC's per-flow queues and backpressure,
//! and ExpressPass's credit-throttling ports.

use super::*;

impl Simulation {
    /// A packet reaches a port that obeys PFC (`queue/pfc.rs`): at a switch
    /// with a shared buffer, buffer admission (which may pause the
    /// upstream), then the queue, then out at once if the port is free.
    #[inline(never)]
    pub(super) fn offer_pfc(&mut self, port: u32, hop: Hop) {
        let now = self.now;
        let pkt = self.pool.get(hop.id);
        let mut entry = Entry::of(hop, pkt);
        if self.srf && pkt.kind == Kind::Data {
            // IdealSRF's queues order by the remaining-size header
            entry.prio = self.srf_tag[hop.id as usize];
        }
        let p = &mut self.ports[port as usize];
        let control = match &p.queue {
            Queue::Pfc(q) => q.is_control(&entry),
            // BFC's and fair queueing's ports
            _ => entry.is_control(),
        };
        let counted = !control && self.buffers.as_ref().is_some_and(|b| b.is_switch_port(port));
        let ingress = if counted { pkt.ingress } else { NOT_COUNTED };
        if !control && !counted && p.bytes + hop.size as u64 > p.limit_bytes {
            // a host NIC's own buffer (a switch port's is the switch's)
            p.count_drop(hop.size as u64);
            return self.drop_packet(hop.id);
        }
        self.pool.get_mut(hop.id).ingress = ingress;
        if counted {
            let b = self.buffers.as_mut().expect("counted");
            let class = traffic_class(entry.flow >> 1, self.cfg.traffic_classes);
            match b.admit(ingress, class, hop.size as u64, p.bytes) {
                Err(()) => {
                    p.count_drop(hop.size as u64);
                    return self.drop_packet(hop.id);
                }
                Ok(Signal::Pause) => self.send_pfc(ingress, Kind::Pause, PFC_CLASS, class as u32),
                Ok(_) => {}
            }
        }
        if counted && self.delays.is_some() {
            self.delay_enter(hop.id);
        }
        let p = &mut self.ports[port as usize];
        // nothing queued and the line free: the packet leaves at once, as
        // queueing it and making the departures due would, if it may
        let idle = p.bytes == 0 && p.busy_until <= now;
        if !control && matches!(p.queue, Queue::Bfc(_)) {
            if self.bfc_enqueue(port, hop, idle) {
                return self.pass_through(port, hop, false);
            }
        } else {
            let threshold = p.ecn_threshold();
            let passed = match &mut p.queue {
                Queue::Pfc(q) if idle => q.pass(&entry, threshold),
                Queue::Bfc(b) if idle => {
                    // a control frame or ACK: served first, no queue of its own
                    b.last_queue = None;
                    Some(false)
                }
                _ => None,
            };
            if let Some(mark) = passed {
                return self.pass_through(port, hop, mark);
            }
            let (mark, _) = p.enqueue(entry).expect("a pfc queue takes what the buffer admitted");
            if mark {
                p.mark(self.pool.get_mut(hop.id));
            }
        }
        let p = &mut self.ports[port as usize];
        p.busy_until = p.busy_until.max(now);
        self.catch_up(port, now);
        self.ensure_wake(port);
    }

    /// Packet `hop` leaves port `port` (idle, with nothing queued) the
    /// moment it arrives, marked if `mark`: the departure a catch-up would
    /// make of it queued (the port's peak bytes count it the same).
    #[inline(always)]
    fn pass_through(&mut self, port: u32, hop: Hop, mark: bool) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        p.add_bytes(hop.size as u64);
        p.bytes -= hop.size as u64;
        if mark {
            p.mark(self.pool.get_mut(hop.id));
        }
        p.busy_until = now;
        if self.buffers.is_some() {
            self.release(port, hop.id);
        }
        if self.delays.is_some() {
            self.delay_leave(port, hop.id, now);
        }
        self.transmit_at(port, hop, now, false);
        self.ensure_wake(port);
    }

    /// A packet reaches an ExpressPass port (`queue/xpass.rs`): into its
    /// queue, then out if the port can send now.
    #[inline(never)]
    pub(super) fn offer_xpass(&mut self, port: u32, hop: Hop) {
        let entry = Entry::of(hop, self.pool.get(hop.id));
        if self.ports[port as usize].enqueue(entry).is_err() {
            return self.drop_packet(hop.id);
        }
        self.xpass_look(port);
    }

    /// An ExpressPass port decides its departures itself, at a
    /// `PortTimer` when its serializer frees up or its token bucket can
    /// pay for a credit: nothing is sent while a credit waits for tokens
    /// unless data can go, so its queue is not a backlog the general path
    /// could serve back to back.
    #[inline(never)]
    pub(super) fn xpass_look(&mut self, port: u32) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if p.busy_until <= now {
            p.busy_until = now;
            let Queue::Xpass(q) = &mut p.queue else { unreachable!("an ExpressPass port") };
            q.clock = now;
            if let Some(hop) = p.dequeue() {
                self.transmit_at(port, hop, now, false);
            }
        }
        let p = &mut self.ports[port as usize];
        let free = p.busy_until;
        let Queue::Xpass(q) = &mut p.queue else { unreachable!("an ExpressPass port") };
        if let Some(t) = q.next_look(free) {
            if q.timer_at.is_none_or(|at| t < at || at < now) {
                q.timer_at = Some(t);
                self.cal.schedule(t, Event::PortTimer { port, timer: 0 });
            }
        }
    }

    /// A port's timer: an ExpressPass port looks at its queue again (the
    /// only discipline with port timers so far).
    pub(super) fn on_port_timer(&mut self, port: u32) {
        if let Queue::Xpass(q) = &mut self.ports[port as usize].queue {
            if q.timer_at == Some(self.now) {
                q.timer_at = None;
            }
        }
        self.xpass_look(port);
    }

    /// A data packet enters BFC port `port` (§3.3): the flow table gives
    /// its queue; if that queue is longer than the pause threshold, the
    /// packet counts against the upstream queue it came from, and the
    /// first such packet pauses it. With sampling (App. A.8) only the
    /// packets drawn for recirculation count, in the table and against
    /// the upstream; without NIC support (BFC - NIC) nothing counts
    /// against a NIC.
    /// With `idle` (nothing queued, the line free) the packet may leave at
    /// once (`BfcQueues::pass`): returns whether it does, queued otherwise.
    pub(super) fn bfc_enqueue(&mut self, port: u32, hop: Hop, idle: bool) -> bool {
        let now = self.now;
        let pkt = *self.pool.get(hop.id);
        let p = &mut self.ports[port as usize];
        let Queue::Bfc(b) = &mut p.queue else { unreachable!("a bfc port") };
        let Some(bp) = self.bp.as_mut() else {
            // BFC's queues without its backpressure (HPCC + SFQ or DQA,
            // BFC §6.4): assignment and round robin only
            let q = b.assign(crate::backpressure::flow_key(pkt.flow), b.class_of(pkt.flow), now, true);
            if idle && b.pass(q, hop.size as u64) {
                return true;
            }
            b.push_tagged(hop, q, self.srf_tag.get(hop.id as usize).copied().unwrap_or(0));
            p.add_bytes(hop.size as u64);
            return false;
        };
        let sampled = b.sampled(bp.sample);
        if bp.sample < 1.0 {
            bp.set_unsampled(hop.id, !sampled);
        }
        let q = b.assign(bp.key(pkt.flow), b.class_of(pkt.flow), now, sampled);
        // (a packet that finds its queue empty is never counted against its
        // upstream: it may leave at once)
        if idle && b.pass(q, hop.size as u64) {
            return true;
        }
        let (before, active) = (b.queue_bytes(q), b.active());
        b.push_tagged(hop, q, self.srf_tag.get(hop.id as usize).copied().unwrap_or(0));
        p.add_bytes(hop.size as u64);
        // the upstream end of the ingress link is a host's NIC
        let from_nic = || self.net.is_host(self.net.links[(pkt.ingress ^ 1) as usize].node);
        if sampled
            && pkt.ingress != NOT_COUNTED
            && before > bp.threshold(port, active)
            && (bp.nic_pauses || !from_nic())
        {
            self.pool.get_mut(hop.id).flags |= flags::PAUSE_COUNTED;
            let upstream = pkt.prio as u32;
            if bp.count(pkt.ingress, upstream) {
                // to a NIC the queue is a flow's: name the flow too
                self.send_pfc(pkt.ingress, Kind::Pause, upstream, pkt.flow);
            }
        }
        false
    }

    /// A packet leaves BFC port `port` by its queue `q`: the flow table and
    /// the pause counters let it go; it carries `q` to the next hop as its
    /// upstream queue.
    pub(super) fn bfc_release(&mut self, port: u32, id: PacketId, q: u16) {
        let now = self.now;
        let pkt = self.pool.get_mut(id);
        let (ingress, upstream, flow) = (pkt.ingress, pkt.prio as u32, pkt.flow);
        let counted = pkt.has(flags::PAUSE_COUNTED);
        pkt.flags &= !flags::PAUSE_COUNTED;
        pkt.prio = q as u64;
        let Some(bp) = self.bp.as_mut() else {
            if let Queue::Bfc(b) = &mut self.ports[port as usize].queue {
                b.release(crate::backpressure::flow_key(flow), b.class_of(flow), now);
            }
            return;
        };
        let recirculated = bp.sample >= 1.0 || !bp.take_unsampled(id);
        if let (Queue::Bfc(b), true) = (&mut self.ports[port as usize].queue, recirculated) {
            b.release(bp.key(flow), b.class_of(flow), now);
        }
        if counted && bp.uncount(ingress, upstream) {
            self.send_pfc(ingress, Kind::Resume, upstream, flow);
        }
    }

    /// Packet `id` leaves its switch's buffer by `port` (and may be marked
    /// there, by a port that marks at dequeue).
    #[inline(never)]
    pub(super) fn release(&mut self, port: u32, id: PacketId) {
        let pkt = self.pool.get(id);
        if self.telemetry && pkt.kind == Kind::Data && self.buffers.as_ref().is_some_and(|b| b.is_switch_port(port)) {
            self.stamp(port, id);
        }
        if let Queue::Bfc(b) = &self.ports[port as usize].queue {
            if let Some(q) = b.last_queue {
                self.bfc_release(port, id, q);
            }
        }
        let pkt = self.pool.get(id);
        if pkt.ingress == NOT_COUNTED {
            return;
        }
        let p = &mut self.ports[port as usize];
        if let Queue::Pfc(q) = &mut p.queue {
            if q.mark_on_dequeue() {
                p.mark(self.pool.get_mut(id));
            }
        }
        let pkt = self.pool.get(id);
        let b = self.buffers.as_mut().expect("a shared buffer");
        let class = traffic_class(pkt.flow, self.cfg.traffic_classes);
        if b.release(pkt.ingress, class, pkt.size as u64) == Signal::Resume {
            self.send_pfc(pkt.ingress, Kind::Resume, PFC_CLASS, class as u32);
        }
    }

    /// A data packet leaves switch port `port`: stamp the port's telemetry
    /// on it (the HPCC simulator's `PushHop` at dequeue): the time, the
    /// bytes the port sent before it, the bytes queued behind it, its rate;
    /// the counters in the simulator's units.
    pub(super) fn stamp(&mut self, port: u32, id: PacketId) {
        let crate::config::TransportConfig::Rdma(crate::config::RdmaConfig {
            cc: crate::config::RdmaCc::Hpcc(h), ..
        }) = &self.cfg.transport
        else {
            return;
        };
        let p = &self.ports[port as usize];
        let hop = IntHop {
            ts: self.now,
            tx_bytes: self.tx[port as usize].bytes / h.int_bytes_unit * h.int_bytes_unit,
            qlen: p.bytes / h.int_qlen_unit * h.int_qlen_unit,
            rate_bps: p.rate_bps,
        };
        self.int[id as usize].push(hop);
    }

    /// Send a pause or resume frame out of `port`, to the port at the other
    /// end of its link: for a PFC priority (`queue` = `PFC_CLASS`, `flow`
    /// = the traffic class) or one of BFC's queues (at a NIC the queue of
    /// flow `flow`). It is a
    /// real packet: it waits for the frame being serialized, then goes
    /// first, and takes the link's delay.
    #[inline(never)]
    pub(super) fn send_pfc(&mut self, port: u32, kind: Kind, queue: u32, flow: u32) {
        let pkt = Packet {
            flow: u32::MAX,
            slot: u32::MAX,
            seq: queue,
            sack_lo: flow,
            sack_hi: 0,
            prio: 0,
            ts: self.now,
            src: 0,
            dst: LINK_LOCAL,
            size: PFC_FRAME_BYTES,
            kind,
            flags: 0,
            ingress: NOT_COUNTED,
        };
        self.counters.pfc_frames += 1;
        self.counters.pfc_bytes += PFC_FRAME_BYTES as u64;
        let id = self.pool.alloc(pkt);
        self.offer_pfc(port, Hop { id, size: PFC_FRAME_BYTES, dst: LINK_LOCAL, flow: pkt.flow });
    }

    /// A PFC frame reaches the port at the far end of its link (`port`, of
    /// the receiving node): it stops or restarts that port's data.
    #[inline(never)]
    pub(super) fn on_pfc_frame(&mut self, port: u32, id: PacketId) {
        let pkt = self.pool.release(id);
        self.counters.delivered_pkts += 1;
        self.counters.delivered_bytes += pkt.size as u64;
        let now = self.now;
        let pause = pkt.kind == Kind::Pause;
        let nic = self.nic_host.get(port as usize).copied().filter(|&h| h != u32::MAX);
        if pkt.seq != PFC_CLASS {
            // BFC: one queue of a switch port, or one flow's at a NIC (or
            // the labelled flows' queue there)
            if let (Some(host), LABEL_QUEUE) = (nic, pkt.seq) {
                self.nics[host as usize].label_paused = pause;
                if !pause {
                    self.nic_pump(host);
                }
                return;
            }
            if let (Some(host), Some(f)) = (nic, self.flows.get(pkt.seq, pkt.sack_lo)) {
                f.nic_paused = pause;
                if !pause {
                    self.nic_pump(host);
                }
                return;
            }
            let p = &mut self.ports[port as usize];
            if let Queue::Bfc(b) = &mut p.queue {
                b.set_paused(pkt.seq as usize, pause);
                if !pause {
                    p.busy_until = p.busy_until.max(now);
                    self.catch_up(port, now);
                    self.ensure_wake(port);
                }
            }
            return;
        }
        let p = &mut self.ports[port as usize];
        let Queue::Pfc(q) = &mut p.queue else { return };
        q.set_paused(pkt.sack_lo as usize, pause, now);
        if pkt.kind == Kind::Resume {
            if let Some(&host) = self.nic_host.get(port as usize).filter(|&&h| h != u32::MAX) {
                return self.nic_pump(host);
            }
            p.busy_until = p.busy_until.max(now);
            self.catch_up(port, now);
            self.ensure_wake(port);
        }
    }
}
