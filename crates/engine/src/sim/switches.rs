//! Switches of the lossless generation, as the simulation drives them:
//! ports in a shared buffer (admission, release, pause and resume frames
//! for PFC's traffic classes or for the queues a discipline assigns), with
//! the per-node hooks a scheme keeps there (`schemes::Nodes`: a header
//! that orders a port, queues assigned to flows, headers stamped as a
//! packet leaves); and ports that decide their departures at timers of
//! their own.

use super::*;

impl Simulation {
    /// A packet reaches a port in a shared buffer (or a NIC that obeys
    /// pauses): at a switch with a shared buffer, buffer admission (which
    /// may pause the upstream), then the queue, then out at once if the
    /// port is free.
    #[inline(never)]
    pub(super) fn offer_pfc(&mut self, port: u32, hop: Hop) {
        let now = self.now;
        let pkt = self.pool.get(hop.id);
        let mut entry = Entry::of(hop, pkt);
        if let Some(prio) = self.nodes.prio_at_port(hop.id, pkt.kind) {
            // a header that orders the port (a remaining size)
            entry.prio = prio;
        }
        let p = &mut self.ports[port as usize];
        let control = p.queue.is_control(&entry);
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
        if !control && p.queue.assigns_queues() {
            let pkt = self.pool.get_mut(hop.id);
            let (passed, pause) = self.nodes.assign_queue(port, p, pkt, hop, idle, &self.net, now);
            if let Some(f) = pause {
                self.send_frame(f, Kind::Pause);
            }
            if passed {
                return self.pass_through(port, hop, false);
            }
        } else {
            let threshold = p.ecn_threshold();
            let passed = if idle { p.queue.pass_idle(&entry, threshold) } else { None };
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

    /// A packet reaches a self-timed port: into its queue, then out if the
    /// port can send now.
    #[inline(never)]
    pub(super) fn offer_timed(&mut self, port: u32, hop: Hop) {
        let entry = Entry::of(hop, self.pool.get(hop.id));
        if self.ports[port as usize].enqueue(entry).is_err() {
            return self.drop_packet(hop.id);
        }
        self.look(port);
    }

    /// A self-timed port decides its departures itself, at a `PortTimer`
    /// when its serializer frees up or its discipline can send (a token
    /// bucket can pay for a credit): nothing is sent while a credit waits
    /// for tokens unless data can go, so its queue is not a backlog the
    /// general path could serve back to back.
    #[inline(never)]
    pub(super) fn look(&mut self, port: u32) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if p.busy_until <= now {
            p.busy_until = now;
            p.queue.set_clock(now);
            if let Some(hop) = p.dequeue() {
                self.transmit_at(port, hop, now, false);
            }
        }
        let p = &mut self.ports[port as usize];
        if let Some(t) = p.queue.next_wake(p.busy_until, now) {
            self.cal.schedule(t, Event::PortTimer { port, timer: 0 });
        }
    }

    /// A port's timer: a self-timed port looks at its queue again.
    pub(super) fn on_port_timer(&mut self, port: u32) {
        self.ports[port as usize].queue.woken(self.now);
        self.look(port);
    }

    /// Packet `id` leaves its switch's buffer by `port` (and may be marked
    /// there, by a port that marks at dequeue).
    #[inline(never)]
    pub(super) fn release(&mut self, port: u32, id: PacketId) {
        let pkt = self.pool.get(id);
        if self.nodes.stamps() && pkt.kind == Kind::Data && self.buffers.as_ref().is_some_and(|b| b.is_switch_port(port)) {
            let tx = self.tx[port as usize].bytes;
            self.nodes.stamp(id, &self.ports[port as usize], tx, self.now);
        }
        if let Some(q) = self.ports[port as usize].queue.last_queue() {
            // the queue it was assigned lets it go
            let (p, pkt) = (&mut self.ports[port as usize], self.pool.get_mut(id));
            if let Some(f) = self.nodes.release_queue(p, pkt, id, q, self.now) {
                self.send_frame(f, Kind::Resume);
            }
        }
        let pkt = self.pool.get(id);
        if pkt.ingress == NOT_COUNTED {
            return;
        }
        let p = &mut self.ports[port as usize];
        if p.queue.mark_on_dequeue() {
            p.mark(self.pool.get_mut(id));
        }
        let pkt = self.pool.get(id);
        let b = self.buffers.as_mut().expect("a shared buffer");
        let class = traffic_class(pkt.flow, self.cfg.traffic_classes);
        if b.release(pkt.ingress, class, pkt.size as u64) == Signal::Resume {
            self.send_pfc(pkt.ingress, Kind::Resume, PFC_CLASS, class as u32);
        }
    }

    /// A hook's pause or resume frame for one of the queues a port
    /// assigns (at a NIC, a flow's).
    fn send_frame(&mut self, f: Frame, kind: Kind) {
        self.send_pfc(f.port, kind, f.queue, f.flow);
    }

    /// Send a pause or resume frame out of `port`, to the port at the other
    /// end of its link: for a PFC priority (`queue` = `PFC_CLASS`, `flow`
    /// = the traffic class) or one of the queues the far port assigns (at
    /// a NIC the queue of flow `flow`, or a queue a scheme keeps there,
    /// `Nodes::nic_frame`). It is a real packet: it waits for the frame being
    /// serialized, then goes first, and takes the link's delay.
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

    /// A pause or resume frame reaches the port at the far end of its link
    /// (`port`, of the receiving node): it stops or restarts that port's
    /// data of a class, or one of its queues (at a NIC: a flow's, or one a
    /// scheme keeps there).
    #[inline(never)]
    pub(super) fn on_pfc_frame(&mut self, port: u32, id: PacketId) {
        let pkt = self.pool.release(id);
        self.counters.delivered_pkts += 1;
        self.counters.delivered_bytes += pkt.size as u64;
        let now = self.now;
        let pause = pkt.kind == Kind::Pause;
        let nic = self.nic_host.get(port as usize).copied().filter(|&h| h != u32::MAX);
        let p = &mut self.ports[port as usize];
        let applied = if pkt.seq == PFC_CLASS {
            p.queue.pause_class(pkt.sack_lo as usize, pause, now)
        } else if let Some(host) = nic {
            // a queue a scheme keeps at the NIC, or one flow's
            if !self.nodes.nic_frame(host, pkt.seq, pause) {
                match self.flows.get(pkt.seq, pkt.sack_lo) {
                    Some(f) => f.nic_paused = pause,
                    None => return self.pause_queue(port, pkt.seq, pause),
                }
            }
            if !pause {
                self.nic_pump(host);
            }
            return;
        } else {
            return self.pause_queue(port, pkt.seq, pause);
        };
        if applied && !pause {
            if let Some(host) = nic {
                return self.nic_pump(host);
            }
            let p = &mut self.ports[port as usize];
            p.busy_until = p.busy_until.max(now);
            self.catch_up(port, now);
            self.ensure_wake(port);
        }
    }

    /// A frame pauses or resumes queue `q` of switch port `port`.
    fn pause_queue(&mut self, port: u32, q: u32, pause: bool) {
        let now = self.now;
        let p = &mut self.ports[port as usize];
        if p.queue.pause_queue(q as usize, pause) && !pause {
            p.busy_until = p.busy_until.max(now);
            self.catch_up(port, now);
            self.ensure_wake(port);
        }
    }
}
