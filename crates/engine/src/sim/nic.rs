//! The NIC of a host whose transport it pulls (`nic.rs` holds its state):
//! when its line is free it sends what its port holds first (ACKs,
//! control frames), then asks its flows in turn (round robin, or shortest
//! remaining first) for their next packet (`Endpoint::poll`), skipping the
//! ones a pause frame stopped; a paced flow stays in turn and the NIC
//! wakes when the first may send.

use super::*;

impl Simulation {
    /// A pulled flow may have a packet to send: into its NIC's round robin
    /// (unless it is there already, or paced), and the NIC sends if free.
    pub(super) fn nic_wake_flow(&mut self, slot: u32, id: u32) {
        if self.nics.is_empty() {
            return;
        }
        let Some(f) = self.flows.get(slot, id) else { return };
        let host = f.spec.src;
        if f.nic == NicState::Listed {
            // a higher rate may have moved its pacing earlier (a law that
            // re-paces on a new rate tells the NIC so)
            let t = f.ep.next_avail().max(self.now);
            return self.nic_wake_at(host, t);
        }
        f.nic = NicState::Listed;
        self.nics[host as usize].ready.push_back((slot, id));
        self.nic_pump(host);
    }

    /// Have the NIC of `host` look at its port and flows at `t`, unless it
    /// does by then already.
    pub(super) fn nic_wake_at(&mut self, host: u32, t: Time) {
        if self.nics[host as usize].wake_at(t) {
            self.cal.schedule(t, Event::TxDone { port: self.routes.nic(host) });
        }
    }

    /// A pulling NIC whose line may be free: send what its port holds
    /// first, else the next packet of its flows in turn (`nic.rs`).
    pub(super) fn nic_pump(&mut self, host: u32) {
        let now = self.now;
        let port = self.routes.nic(host);
        let p = &mut self.ports[port as usize];
        if p.busy_until > now {
            return self.ensure_wake(port);
        }
        let q = &p.queue;
        if q.has_sendable() {
            p.busy_until = now;
            self.catch_up(port, now);
            return self.ensure_wake(port);
        }
        if q.all_paused() {
            return;
        }
        let classes = q.classes();
        if self.nic_srpt {
            self.nic_sort_srpt(host);
        }
        let mut earliest = Time::MAX;
        for _ in 0..self.nics[host as usize].ready.len() {
            let (slot, id) = self.nics[host as usize].ready.pop_front().expect("counted");
            let Some(f) = self.flows.get(slot, id) else { continue };
            let held = self.nodes.nic_holds(host, id);
            let class_paused = classes > 1 && self.ports[port as usize].queue.class_paused(traffic_class(id, classes) as usize);
            if f.nic_paused || held || class_paused {
                // a frame paused this flow's NIC queue, or PFC its class:
                // it waits, in its place
                self.nics[host as usize].ready.push_back((slot, id));
                continue;
            }
            let retx_before = f.ep.retransmits();
            match f.ep.poll(now, &self.cfg.transport, &mut self.segs) {
                Poll::Send(seg) => {
                    self.counters.retransmitted_pkts += (f.ep.retransmits() - retx_before) as u64;
                    self.nics[host as usize].ready.push_back((slot, id));
                    let spec = self.arm_timers(slot, id).expect("polled");
                    let mut pkt = self.data_packet(slot, id, &spec, &seg);
                    let f = self.flows.peek(slot, id).expect("polled");
                    self.nodes.nic_builds(&mut pkt, slot, &f.ep, &self.cfg.transport);
                    if self.link_sched {
                        self.leaves_nic(port, &mut pkt);
                    }
                    self.counters.data_pkts += 1;
                    self.counters.host_tx_pkts += 1;
                    self.counters.host_tx_bytes += pkt.size as u64;
                    let pid = self.pool.alloc(pkt);
                    self.nodes.nic_sends(pid, spec.size, seg.seq);
                    self.ports[port as usize].busy_until = now;
                    self.transmit_at(port, Hop { id: pid, size: pkt.size, dst: pkt.dst, flow: pkt.flow }, now, false);
                    return self.ensure_wake(port);
                }
                Poll::At(t) => {
                    earliest = earliest.min(t);
                    self.nics[host as usize].ready.push_back((slot, id));
                }
                Poll::Blocked => f.nic = NicState::Idle,
            }
        }
        if earliest < Time::MAX {
            self.nic_wake_at(host, earliest);
        }
    }

    /// Order `host`'s NIC list shortest remaining first (the fewest bytes
    /// left to send; ties: the earlier flow), for a NIC that serves its
    /// flows so (`TransportConfig::nic_srpt`): the round robin that follows then asks them in that order.
    fn nic_sort_srpt(&mut self, host: u32) {
        let (flows, cfg) = (&self.flows, &self.cfg.transport);
        let ready = self.nics[host as usize].ready.make_contiguous();
        // (flows that ended sort first, and leave the list)
        ready.sort_by_cached_key(|&(slot, id)| flows.peek(slot, id).map_or((0, 0), |f| (f.ep.bytes_left(cfg), id)));
    }
}
