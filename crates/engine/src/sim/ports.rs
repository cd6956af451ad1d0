//! Packets through ports and links: a packet arrives at a node, is offered
//! to an output port (the FIFO fast path, or the general path whose
//! departures are made lazily), serialized and put on its link; the
//! calendar holds only each link's head arrival. Also the hints asked for
//! one event ahead on large fabrics, and the queueing delays kept at
//! switches.

use super::*;

impl Simulation {
    // ---- packets through ports -------------------------------------------

    /// Packet `hop` arrives at `node` by the link of port `via`, with the
    /// hint its link kept for it (`Port::head_hint`): at a switch, the port
    /// it leaves by unless that is `NO_HINT` (then the routes decide now).
    #[inline(always)]
    pub(super) fn on_arrive(&mut self, node: u32, hop: Hop, via: u32, hint: u32) {
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
            if self.link_sched {
                self.crosses_link(None, via ^ 1, hop.id);
            }
            self.on_host_receive(node, hop.id);
        } else {
            let port = if hint != NO_HINT { hint } else { self.routes.next_port(node, hop.dst as u32, hop.flow) };
            debug_assert!(hint == NO_HINT || Some(hint) == self.routes.fixed_port(node, hop.dst as u32, hop.flow));
            if self.link_sched {
                self.crosses_link(Some(port), via ^ 1, hop.id);
            }
            self.offer(port, hop);
        }
    }

    /// A scheme that schedules at every link (`Nodes::schedules_links`): a
    /// packet that came in over the link of port `back` (this node's) and
    /// leaves by `out` (at a switch) has its header read and rewritten by
    /// both links' schedulers.
    #[inline(never)]
    fn crosses_link(&mut self, out: Option<u32>, back: u32, id: PacketId) {
        let at = out.map(|port| self.link_now(port));
        let pkt = self.pool.get_mut(id);
        self.nodes.comes_back(back, pkt, &self.cfg.transport);
        if let Some(at) = at {
            self.nodes.leaves_by(at, pkt, &self.cfg.transport);
        }
    }

    /// A host's NIC sends `pkt` by its port `port`: its link's scheduler
    /// decides on it first.
    #[inline(never)]
    pub(super) fn leaves_nic(&mut self, port: u32, pkt: &mut Packet) {
        let at = self.link_now(port);
        self.nodes.leaves_by(at, pkt, &self.cfg.transport);
    }

    /// What a link's scheduler is told of port `port` now.
    #[inline]
    fn link_now(&self, port: u32) -> crate::schemes::LinkNow {
        let p = &self.ports[port as usize];
        crate::schemes::LinkNow { port, rate_bps: p.rate_bps, busy_until: p.busy_until, queued_bytes: p.bytes, now: self.now }
    }

    /// A packet reaches an output port: send it now if the port is idle,
    /// else buffer it (or drop it) and make sure it will be sent.
    #[inline(always)]
    pub(super) fn offer(&mut self, port: u32, hop: Hop) {
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
    pub(super) fn offer_lazy(&mut self, port: u32, hop: Hop) {
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
            // The discipline sends an ACK as soon as the packets being sent
            // and the ACKs before it are done, whatever arrives later, and
            // never drops it (`Queue::ack_may_go_ahead`): its departure is
            // fixed now, as on the FIFO fast path, with no catch-up to make
            // it (about a quarter of the packets such ports queue).
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
    /// the subsets it belongs to: a one-packet flow's; the transport's
    /// scheduled packets, `Hosts::scheduled`).
    #[inline(never)]
    pub(super) fn delay_enter(&mut self, id: PacketId) {
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
    pub(super) fn delay_arrive(&mut self, port: u32, id: PacketId) {
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
    pub(super) fn delay_leave(&mut self, port: u32, id: PacketId, start: Time) {
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
    pub(super) fn catch_up(&mut self, port: u32, upto: Time) {
        // Usually nothing is due, or nothing is queued (the general path
        // counts queued bytes exactly; half of the calls at priority
        // ports): decided here, from the port's first line, without a call.
        let p = &self.ports[port as usize];
        if p.busy_until <= upto && p.bytes > 0 {
            self.catch_up_due(port, upto);
        }
    }

    #[inline(never)]
    pub(super) fn catch_up_due(&mut self, port: u32, upto: Time) {
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
    pub(super) fn ensure_wake(&mut self, port: u32) {
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

    pub(super) fn drop_packet(&mut self, id: PacketId) {
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
    pub(super) fn transmit_at(&mut self, port: u32, hop: Hop, start: Time, buffered: bool) {
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
    pub(super) fn prefetch_hinted(&self, p: &Port) {
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
    pub(super) fn hint_head(&mut self, port: u32, node: u32, hop: Hop) {
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
    pub(super) fn on_link_arrival(&mut self, port: u32) {
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
        if self.faults.is_none() || !self.lost_to_fault(port, node, &w) {
            self.on_arrive(node, w.hop, port, hint);
        }
        if self.hints {
            if let Some(&next) = self.ports[port as usize].wire.front() {
                self.hint_head(port, node, next.hop);
            }
        }
    }

    /// A port that obeys pauses makes each departure when its serializer
    /// frees up; a pulling NIC wakes here to send.
    pub(super) fn on_tx_done(&mut self, port: u32) {
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
    pub(super) fn catch_up_all(&mut self) {
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
    pub(super) fn inject(&mut self, host: u32, pkt: Packet) {
        let id = self.pool.alloc(pkt);
        self.send_from(host, id, pkt);
    }

    /// A host puts packet `id` (already in the pool, equal to `pkt`) on
    /// its NIC.
    #[inline]
    pub(super) fn send_from(&mut self, host: u32, id: PacketId, pkt: Packet) {
        self.counters.host_tx_pkts += 1;
        self.counters.host_tx_bytes += pkt.size as u64;
        let nic = self.routes.nic(host);
        self.offer(nic, Hop { id, size: pkt.size, dst: pkt.dst, flow: pkt.flow });
    }
}
