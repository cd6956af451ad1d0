//! PFC deadlock (docs/faults.md, "PFC deadlock"): switch ports paused in a
//! cycle of buffer dependencies, each holding packets it may not send
//! that wait for the next port of the cycle to drain, never send again,
//! and the run would go on to its time limit (its timers still firing) or
//! forever. Every `deadlock_check_ps` the run looks for such a cycle; one
//! that is still there, with not a packet sent by its ports, at the next
//! check is a deadlock: the run stops (`Status::Deadlock`) and names the
//! ports and when it was first seen. A run left with nothing else to do
//! and such a cycle (no timer to fire: RDMA without a timeout) is one at
//! once, at the next check.
//!
//! The dependency is followed through the packets themselves: port P
//! (switch u to v) is held by port Q (v to w) when Q holds a packet that
//! came into v over P's link (its `ingress`), so a paused ingress cannot
//! drain before Q does. Ports paused one after another towards a hot spot
//! (an incast's pauses spreading upstream) form a tree, not a cycle, and
//! are not flagged.

use super::*;

/// The check's step in the fault schedule's event (`Event::Fault`): past
/// any real step.
pub(super) const CHECK: u32 = (1 << 29) - 1;

/// A deadlock found: when it was first seen, and its ports in cycle order.
#[derive(Clone, Debug, Default)]
pub struct Deadlock {
    pub since: Time,
    pub ports: Vec<u32>,
}

/// What the detector saw at its last check: a cycle and its ports' sent
/// packets then.
#[derive(Clone, Debug, Default)]
pub(super) struct Watch {
    cycle: Vec<u32>,
    sent: Vec<u64>,
    since: Time,
    pub(super) found: Option<Deadlock>,
}

/// Whether two cycles are the same ports.
fn same_ports(a: &[u32], b: &[u32]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

impl Simulation {
    /// The periodic check (`CHECK`): not one of the run's own events, so
    /// the event count leaves it out.
    pub(super) fn on_deadlock_check(&mut self) {
        self.counters.events -= 1;
        let cycle = self.paused_cycle();
        if self.cal.len() <= self.cfg.sampler.is_some() as usize {
            // nothing else will ever happen (a sample aside, which stops
            // itself then too): a cycle now is a deadlock now, and without
            // one the run has stalled (no check is left either)
            if let Some(ports) = cycle {
                let mut watch = self.watch.take().unwrap_or_default();
                let seen = same_ports(&watch.cycle, &ports);
                watch.found = Some(Deadlock { since: if seen { watch.since } else { self.now }, ports });
                self.watch = Some(watch);
                self.status = Status::Deadlock;
            }
            return;
        }
        let sent = |s: &Simulation, c: &[u32]| c.iter().map(|&p| s.tx[p as usize].pkts).collect::<Vec<_>>();
        let mut watch = self.watch.take().unwrap_or_default();
        match cycle {
            Some(c) => {
                let now_sent = sent(self, &c);
                let idle = same_ports(&watch.cycle, &c)
                    && watch.cycle.iter().zip(&watch.sent).all(|(&p, &n)| self.tx[p as usize].pkts == n);
                if idle {
                    watch.found = Some(Deadlock { since: watch.since, ports: watch.cycle.clone() });
                    self.watch = Some(watch);
                    self.status = Status::Deadlock;
                    return;
                }
                watch.since = self.now;
                watch.cycle = c;
                watch.sent = now_sent;
            }
            None => watch.cycle.clear(),
        }
        self.watch = Some(watch);
        if let Some(every) = self.cfg.deadlock_check_ps {
            // an empty network holds no cycle: look again once the next
            // flow has started (a run whose flows start at 10^6 s looked
            // every millisecond until then: fuzz case 889 of seed 1)
            let next = if self.pool.live() == 0 { self.next_flow.map_or(0, |f| f.start) } else { 0 };
            self.cal.schedule(self.now.max(next) + every, Event::Fault { step: CHECK });
        }
    }

    /// Whether the run looks for deadlocks (PFC on, checks not turned off).
    pub(super) fn checks_deadlock(&self) -> bool {
        self.has_pfc && self.cfg.shared_buffer.as_ref().is_some_and(|b| b.pfc) && self.cfg.deadlock_check_ps.is_some()
    }

    /// The run has nothing left to do with flows unfinished: a cycle of
    /// held ports, if there is one, is a deadlock from now (when checks are
    /// on and the fabric has PFC).
    pub(super) fn deadlock_at_stall(&mut self) -> bool {
        if !self.checks_deadlock() {
            return false;
        }
        let Some(ports) = self.paused_cycle() else { return false };
        let mut watch = self.watch.take().unwrap_or_default();
        watch.found = Some(Deadlock { since: self.now, ports });
        self.watch = Some(watch);
        true
    }

    /// A cycle of switch ports each held by the next (see the module
    /// comment), if there is one.
    fn paused_cycle(&self) -> Option<Vec<u32>> {
        // the held ports, and for each the held ports it waits for
        let held: Vec<u32> = (0..self.ports.len() as u32)
            .filter(|&p| !self.net.is_host(self.net.links[p as usize].node))
            .filter(|&p| self.ports[p as usize].queue.pfc_held().is_some())
            .collect();
        if held.is_empty() {
            return None;
        }
        let index: std::collections::HashMap<u32, usize> = held.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        // waits[i]: the held ports that port held[i] waits for
        let mut waits: Vec<Vec<usize>> = vec![Vec::new(); held.len()];
        for (j, &q) in held.iter().enumerate() {
            let hops = self.ports[q as usize].queue.pfc_held().into_iter().flatten();
            for hop in hops {
                // the upstream port whose link the packet came in by
                let up = self.pool.get(hop.id).ingress ^ 1;
                if let Some(&i) = index.get(&up) {
                    if !waits[i].contains(&j) {
                        waits[i].push(j);
                    }
                }
            }
        }
        // depth-first search for a back edge, in port order (deterministic)
        let (white, grey, black) = (0u8, 1u8, 2u8);
        let mut colour = vec![white; held.len()];
        let mut path: Vec<usize> = Vec::new();
        for root in 0..held.len() {
            if colour[root] != white {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            colour[root] = grey;
            path.push(root);
            while let Some(&mut (u, ref mut next)) = stack.last_mut() {
                if let Some(&v) = waits[u].get(*next) {
                    *next += 1;
                    if colour[v] == grey {
                        let at = path.iter().position(|&x| x == v).expect("on the path");
                        return Some(path[at..].iter().map(|&i| held[i]).collect());
                    }
                    if colour[v] == white {
                        colour[v] = grey;
                        path.push(v);
                        stack.push((v, 0));
                    }
                } else {
                    colour[u] = black;
                    path.pop();
                    stack.pop();
                }
            }
        }
        None
    }

    /// The deadlock that stopped the run, if one did.
    pub fn deadlock(&self) -> Option<&Deadlock> {
        self.watch.as_ref().and_then(|w| w.found.as_ref())
    }
}
