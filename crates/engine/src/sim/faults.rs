//! Faults applied to the running fabric (`faults.rs` has the model and
//! its reasons): the schedule's steps, the packets that links lose, and
//! routing that reacts once it has learned of a change.

use super::*;
use crate::faults::{Cause, Change};
use crate::port::OnWire;

impl Simulation {
    /// Whether packet `w`, which port `port`'s link brings to `node`, is
    /// lost to a fault: its link was down while it was on it, a degraded
    /// link lost it, or `node` (a switch) has no route left to its
    /// destination. A lost packet is counted by cause and dropped. Only
    /// runs with faults get here (one predictable test per packet-hop
    /// otherwise).
    #[inline(never)]
    pub(super) fn lost_to_fault(&mut self, port: u32, node: u32, w: &OnWire) -> bool {
        let Some(faults) = self.faults.as_mut() else { return false };
        let mut cause = None;
        if faults.touches(port) {
            let p = &self.ports[port as usize];
            // the last bit reaches the far end at `end` (the arrival adds a
            // host's processing delay); the first left `start`
            let end = w.arrival - (p.fixed_ps() - p.delay_ps);
            let start = end.saturating_sub(p.delay_ps + p.serialization(w.hop.size as u64));
            cause = faults.fate(port, start, end);
        }
        if cause.is_none() && w.hop.dst != LINK_LOCAL && !self.net.is_host(node) && !self.routes.reachable(node, w.hop.dst as u32) {
            cause = Some(Cause::NoRoute);
        }
        let Some(cause) = cause else { return false };
        let pkt = self.pool.get(w.hop.id);
        let flow = (!matches!(pkt.kind, Kind::Pause | Kind::Resume)).then_some(pkt.flow);
        faults.count(cause, w.hop.size as u64, flow);
        self.drop_packet(w.hop.id);
        true
    }

    /// Step `step` of the fault schedule.
    pub(super) fn on_fault(&mut self, step: u32) {
        let Some(faults) = self.faults.as_mut() else { return };
        let s = faults.steps[step as usize];
        match s.what {
            Change::Begin | Change::End => {
                let begin = s.what == Change::Begin;
                let rates = faults.apply(s.fault, begin, self.now);
                for (port, rate) in rates {
                    self.ports[port as usize].set_rate(rate);
                }
                if begin && faults.cfgs[s.fault as usize].effect == crate::faults::Effect::Down {
                    let ports = faults.ports[s.fault as usize].clone();
                    for port in ports {
                        self.lift_pauses(port);
                    }
                }
            }
            Change::DetectBegin | Change::DetectEnd => {
                if faults.learn(s.fault, s.what == Change::DetectBegin) {
                    let dead = faults.known_dead();
                    self.routes.reroute(&self.net, &dead);
                    // hints name the ports of the old routes
                    for p in self.ports.iter_mut() {
                        p.set_head_hint(NO_HINT);
                    }
                }
            }
        }
    }

    /// A link that fails takes its pauses with it: the port stops obeying
    /// every PFC class's pause (a switch clears a dead port's pause state)
    /// and drains into the dead link.
    fn lift_pauses(&mut self, port: u32) {
        let now = self.now;
        let classes = self.cfg.traffic_classes.max(1) as usize;
        let p = &mut self.ports[port as usize];
        if !p.queue.in_shared_buffer() {
            return;
        }
        let mut lifted = false;
        for c in 0..classes {
            lifted |= p.queue.pause_class(c, false, now);
        }
        if lifted {
            p.busy_until = p.busy_until.max(now);
            self.catch_up(port, now);
            self.ensure_wake(port);
        }
    }

    /// What the faults cost, for the summary: packets and bytes lost by
    /// cause, and each flow's packets lost.
    pub fn fault_losses(&self) -> Option<&crate::faults::Faults> {
        self.faults.as_deref()
    }
}
