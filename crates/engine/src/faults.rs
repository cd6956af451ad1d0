//! Faults inside the fabric (docs/faults.md): links and switches that go
//! down and come back, or degrade (a lower rate; silent loss, a gray
//! failure), each over an interval of the run; routing that learns of a
//! change only after a detection delay.
//!
//! The model, and why: a link that is down delivers nothing. A packet is
//! lost if the link was down at any moment between the first bit of its
//! serialization and its arrival at the far end, so the packets in flight
//! at the failure are lost, and so is everything the port sends into the
//! dead link until routing reacts: what was queued at it, and what ECMP or
//! spraying still sends its way. The port keeps serializing at its rate
//! (its queue drains into the dead link, as a flushed queue would be lost),
//! so buffer accounting and PFC stay as they are; a pause in force on the
//! link when it fails is lifted, as a switch clears a dead port's pause
//! state. Losses are counted by cause (`Cause`). Everything here is plain
//! data: the simulation (`sim/faults.rs`) applies it.

use crate::routing::splitmix;
use crate::time::Time;
use crate::topology::Network;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One fault of the run's `faults` list, resolved by the Python layer to
/// picoseconds.
#[derive(Clone, Debug, Deserialize)]
pub struct FaultConfig {
    pub at_ps: u64,
    /// Repaired at this time (none: for the rest of the run).
    #[serde(default)]
    pub until_ps: Option<u64>,
    pub target: Target,
    /// Only the direction from the target's first node to its second
    /// (a link), or out of the switch (a switch or a selection).
    #[serde(default)]
    pub one_way: bool,
    pub effect: Effect,
    /// Routing learns of the failure, and of the repair, this long after it.
    pub detect_ps: u64,
}

/// What fails.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Target {
    /// The link (every parallel link) between nodes `a` and `b`.
    Link { a: u32, b: u32 },
    /// Every link of switch `node`.
    Switch { node: u32 },
    /// A switch of a tier (1 leaf or edge, 2 spine or aggregation, 3 core)
    /// by its index among that tier's switches (in node order), or one at
    /// random; and which of its links.
    Select { tier: u8, index: Option<u32>, part: Part },
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The switch: all its links.
    Switch,
    /// All its links to the tier above, or below (hosts included).
    Uplinks,
    Downlinks,
    /// One of those, at random.
    Uplink,
    Downlink,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Effect {
    Down,
    /// The link runs at `rate_fraction` of its rate and silently loses a
    /// fraction `loss` of the packets that cross it.
    Degrade { rate_fraction: f64, loss: f64 },
}

/// Why a packet was lost to a fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cause {
    /// On the link (or being serialized onto it) when it went down.
    InFlight,
    /// Sent into a dead link: queued at its port when it failed, or routed
    /// to it before routing learned of the failure.
    DeadLink,
    /// Lost by a degraded link (a gray failure), or by the link's error
    /// rate (a topology file's).
    Gray,
    /// At a switch with no route left to the destination.
    NoRoute,
}

pub const CAUSES: [(Cause, &str); 4] =
    [(Cause::InFlight, "in_flight"), (Cause::DeadLink, "dead_link"), (Cause::Gray, "gray"), (Cause::NoRoute, "no_route")];

/// A change the calendar carries out (`Event::Fault { step }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub at: Time,
    pub fault: u32,
    pub what: Change,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Begin,
    End,
    /// Routing learns of the fault's beginning, or of its end.
    DetectBegin,
    DetectEnd,
}

/// What a faulty port is now, and its history of being down.
#[derive(Clone, Debug)]
struct PortState {
    /// Intervals it was down, the last one open (`Time::MAX`) while it is.
    down: Vec<(Time, Time)>,
    /// Faults in force on it that take it down, and that degrade it.
    downs: u32,
    degrades: Vec<(u32, f64, f64)>,
    /// The loss probability now, and the stream it draws from.
    loss: f64,
    rng: u64,
    nominal_rate: u64,
}

/// The run's faults: what each touches, the schedule, the ports' states,
/// what routing knows, and what was lost.
pub struct Faults {
    pub cfgs: Vec<FaultConfig>,
    /// The output ports each fault touches.
    pub ports: Vec<Vec<u32>>,
    pub steps: Vec<Step>,
    /// Each port's index into `states`, or `u32::MAX` when no fault
    /// touches it.
    slot: Vec<u32>,
    states: Vec<PortState>,
    /// Per port, the faults routing knows to be taking it down.
    known_down: Vec<u32>,
    /// Packets and bytes lost, by cause (`CAUSES`' order).
    pub lost_pkts: [u64; 4],
    pub lost_bytes: [u64; 4],
    /// Packets of each flow lost to faults (by flow id).
    pub flow_losses: BTreeMap<u32, u32>,
    /// The routes of the fabric without faults, which ideal FCTs take.
    pub routes: crate::routing::Routes,
}

impl Faults {
    /// The faults of a run on `net`, with the links' error rates
    /// (`link_errors`: `(a, b, fraction)`, the fraction of packets the link
    /// between nodes `a` and `b` loses each way for the whole run, as the
    /// HPCC simulator's topology file gives it); `None` when there are
    /// neither.
    pub fn new(cfgs: &[FaultConfig], link_errors: &[(u32, u32, f64)], net: &Network, seed: u64,
               routes: &crate::routing::Routes) -> Result<Option<Faults>, String> {
        let link_errors: Vec<_> = link_errors.iter().filter(|e| e.2 > 0.0).collect();
        if cfgs.is_empty() && link_errors.is_empty() {
            return Ok(None);
        }
        let mut error_rates = vec![0.0; net.links.len()];
        for &&(a, b, e) in &link_errors {
            if !(0.0..=1.0).contains(&e) {
                return Err(format!("the error rate of link {a}-{b} must be in [0, 1], got {e}"));
            }
            for p in resolve(net, &Target::Link { a, b }, false, 0)? {
                error_rates[p as usize] = e;
            }
        }
        let mut ports = Vec::with_capacity(cfgs.len());
        for (i, f) in cfgs.iter().enumerate() {
            let name = format!("faults[{i}]");
            if let Some(u) = f.until_ps {
                if u <= f.at_ps {
                    return Err(format!("{name}: until must be after at"));
                }
            }
            if let Effect::Degrade { rate_fraction, loss } = f.effect {
                if !(rate_fraction > 0.0 && rate_fraction <= 1.0) || !(0.0..=1.0).contains(&loss) {
                    return Err(format!("{name}: a degraded link keeps a rate fraction in (0, 1] and loses a fraction in [0, 1]"));
                }
            }
            let rng = splitmix(seed ^ 0xfa17_0000_0000 ^ i as u64);
            let p = resolve(net, &f.target, f.one_way, rng).map_err(|e| format!("{name}: {e}"))?;
            ports.push(p);
        }
        let mut steps = Vec::new();
        for (i, f) in cfgs.iter().enumerate() {
            let fault = i as u32;
            steps.push(Step { at: f.at_ps, fault, what: Change::Begin });
            let reroutes = f.effect == Effect::Down;
            if reroutes {
                steps.push(Step { at: f.at_ps.saturating_add(f.detect_ps), fault, what: Change::DetectBegin });
            }
            if let Some(u) = f.until_ps {
                steps.push(Step { at: u, fault, what: Change::End });
                if reroutes {
                    steps.push(Step { at: u.saturating_add(f.detect_ps), fault, what: Change::DetectEnd });
                }
            }
        }
        // the calendar orders simultaneous steps by index: make that time order
        steps.sort_by_key(|s| (s.at, s.fault, s.what as u8));
        let mut f = Faults {
            cfgs: cfgs.to_vec(),
            ports,
            steps,
            slot: vec![u32::MAX; net.links.len()],
            states: Vec::new(),
            known_down: vec![0; net.links.len()],
            lost_pkts: [0; 4],
            lost_bytes: [0; 4],
            flow_losses: BTreeMap::new(),
            routes: routes.clone(),
        };
        let touched: Vec<u32> = f.ports.iter().flatten().copied().chain(
            error_rates.iter().enumerate().filter(|(_, &e)| e > 0.0).map(|(p, _)| p as u32)).collect();
        for p in touched {
            f.state(p, net.links[p as usize].rate_bps, seed);
        }
        for (p, &e) in error_rates.iter().enumerate() {
            if e > 0.0 {
                let s = f.state(p as u32, 0, seed);
                s.degrades.push((u32::MAX, 1.0, e));
                s.loss = e;
            }
        }
        Ok(Some(f))
    }

    /// The hosts that faults lasting the rest of the run (down, or losing
    /// every packet) cut off from the largest part of the fabric that is
    /// left: their flows could never finish.
    pub fn cut_off(&self, net: &Network) -> Vec<u32> {
        let mut dead = vec![false; net.links.len()];
        for (f, ports) in self.cfgs.iter().zip(&self.ports) {
            let lasting = f.until_ps.is_none()
                && match f.effect {
                    Effect::Down => true,
                    Effect::Degrade { loss, .. } => loss >= 1.0,
                };
            if lasting {
                for &p in ports {
                    // a link dead one way carries no flow both ways
                    dead[p as usize] = true;
                    dead[(p ^ 1) as usize] = true;
                }
            }
        }
        // the hosts' parts of the fabric (hosts are not transit); the
        // largest is the fabric, the others are cut off from it
        let mut part = vec![u32::MAX; net.nodes.len()];
        let mut sizes: Vec<u32> = Vec::new();
        for h in 0..net.hosts {
            if part[h as usize] != u32::MAX {
                continue;
            }
            let id = sizes.len() as u32;
            sizes.push(0);
            part[h as usize] = id;
            let mut todo = vec![h];
            while let Some(u) = todo.pop() {
                if net.is_host(u) {
                    sizes[id as usize] += 1;
                    if u != h {
                        continue;
                    }
                }
                for &p in &net.nodes[u as usize].ports {
                    let v = net.links[p as usize].peer;
                    if !dead[p as usize] && part[v as usize] == u32::MAX {
                        part[v as usize] = id;
                        todo.push(v);
                    }
                }
            }
        }
        let main = (0..sizes.len()).max_by_key(|&i| (sizes[i], std::cmp::Reverse(i))).unwrap_or(0) as u32;
        (0..net.hosts).filter(|&h| part[h as usize] != main).collect()
    }

    fn state(&mut self, port: u32, rate: u64, seed: u64) -> &mut PortState {
        if self.slot[port as usize] == u32::MAX {
            self.slot[port as usize] = self.states.len() as u32;
            self.states.push(PortState {
                down: Vec::new(),
                downs: 0,
                degrades: Vec::new(),
                loss: 0.0,
                rng: splitmix(seed ^ 0x1055_0000_0000 ^ port as u64),
                nominal_rate: rate,
            });
        }
        &mut self.states[self.slot[port as usize] as usize]
    }

    /// Whether any fault or error rate touches `port` (what the packet
    /// path asks before it looks closer).
    #[inline(always)]
    pub fn touches(&self, port: u32) -> bool {
        self.slot[port as usize] != u32::MAX
    }

    /// Fault `fault` begins (`begin`) or ends at `now` on its ports; returns
    /// the ports whose rate changes, with the new rate.
    pub fn apply(&mut self, fault: u32, begin: bool, now: Time) -> Vec<(u32, u64)> {
        let effect = self.cfgs[fault as usize].effect;
        let mut rates = Vec::new();
        for &p in &self.ports[fault as usize] {
            let s = &mut self.states[self.slot[p as usize] as usize];
            match effect {
                Effect::Down if begin => {
                    s.downs += 1;
                    if s.downs == 1 {
                        s.down.push((now, Time::MAX));
                    }
                }
                Effect::Down => {
                    s.downs -= 1;
                    if s.downs == 0 {
                        s.down.last_mut().expect("down before up").1 = now;
                    }
                }
                Effect::Degrade { rate_fraction, loss } => {
                    if begin {
                        s.degrades.push((fault, rate_fraction, loss));
                    } else {
                        s.degrades.retain(|d| d.0 != fault);
                    }
                    // faults in force together: the rates' fractions multiply,
                    // and a packet survives each loss independently
                    let fraction: f64 = s.degrades.iter().map(|d| d.1).product();
                    s.loss = 1.0 - s.degrades.iter().map(|d| 1.0 - d.2).product::<f64>();
                    rates.push((p, ((s.nominal_rate as f64 * fraction).round() as u64).max(1)));
                }
            }
        }
        rates
    }

    /// Routing learns that fault `fault` began (`begin`) or ended; whether
    /// what it knows changed.
    pub fn learn(&mut self, fault: u32, begin: bool) -> bool {
        let mut changed = false;
        for &p in &self.ports[fault as usize] {
            let k = &mut self.known_down[p as usize];
            if begin {
                *k += 1;
                changed |= *k == 1;
            } else {
                *k -= 1;
                changed |= *k == 0;
            }
        }
        changed
    }

    /// The ports routing takes for dead (it leaves them out of every group).
    pub fn known_dead(&self) -> Vec<bool> {
        self.known_down.iter().map(|&k| k > 0).collect()
    }

    /// Whether a packet that port `port` serialized from `start` and that
    /// reaches the far end at `end` is lost, and why.
    pub fn fate(&mut self, port: u32, start: Time, end: Time) -> Option<Cause> {
        let s = &mut self.states[self.slot[port as usize] as usize];
        // the intervals are in time order: look from the latest
        for &(down, up) in s.down.iter().rev() {
            if up <= start {
                break;
            }
            if down < end {
                return Some(if start < down { Cause::InFlight } else { Cause::DeadLink });
            }
        }
        if s.loss > 0.0 {
            s.rng = s.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let u = (splitmix(s.rng) >> 11) as f64 / (1u64 << 53) as f64;
            if u < s.loss {
                return Some(Cause::Gray);
            }
        }
        None
    }

    /// Count a packet of `size` bytes (of flow `flow`, if it is a flow's)
    /// lost to `cause`.
    pub fn count(&mut self, cause: Cause, size: u64, flow: Option<u32>) {
        let i = CAUSES.iter().position(|c| c.0 == cause).expect("a cause");
        self.lost_pkts[i] += 1;
        self.lost_bytes[i] += size;
        if let Some(f) = flow {
            *self.flow_losses.entry(f).or_default() += 1;
        }
    }
}

/// The output ports `target` names (`one_way`: out of its first node or
/// switch only), with `rng` for a random choice.
pub fn resolve(net: &Network, target: &Target, one_way: bool, rng: u64) -> Result<Vec<u32>, String> {
    let switch = |n: u32| -> Result<u32, String> {
        match net.nodes.get(n as usize) {
            Some(_) if !net.is_host(n) => Ok(n),
            Some(_) => Err(format!("node {n} is a host, not a switch (hosts are 0..{})", net.hosts)),
            None => Err(format!("no node {n}: the fabric has {} nodes", net.nodes.len())),
        }
    };
    let out: Vec<u32> = match *target {
        Target::Link { a, b } => {
            for n in [a, b] {
                if n as usize >= net.nodes.len() {
                    return Err(format!("no node {n}: the fabric has {} nodes", net.nodes.len()));
                }
            }
            let p: Vec<u32> = net.nodes[a as usize].ports.iter().copied().filter(|&p| net.links[p as usize].peer == b).collect();
            if p.is_empty() {
                return Err(format!("no link between nodes {a} and {b}"));
            }
            p
        }
        Target::Switch { node } => net.nodes[switch(node)? as usize].ports.clone(),
        Target::Select { tier, index, part } => {
            let tier_switches: Vec<u32> =
                (net.hosts..net.nodes.len() as u32).filter(|&n| net.nodes[n as usize].tier == tier).collect();
            if tier_switches.is_empty() {
                return Err(format!("the fabric has no switch of tier {tier}"));
            }
            let node = match index {
                Some(i) => *tier_switches.get(i as usize).ok_or_else(|| {
                    format!("tier {tier} has {} switches (0..{}), not {i}", tier_switches.len(), tier_switches.len() - 1)
                })?,
                None => tier_switches[pick(rng, tier_switches.len())],
            };
            let ports = &net.nodes[node as usize].ports;
            let up = |p: &u32| net.nodes[net.links[*p as usize].peer as usize].tier > tier;
            let chosen: Vec<u32> = match part {
                Part::Switch => ports.clone(),
                Part::Uplinks | Part::Uplink => ports.iter().copied().filter(up).collect(),
                Part::Downlinks | Part::Downlink => ports.iter().copied().filter(|p| !up(p)).collect(),
            };
            if chosen.is_empty() {
                return Err(format!("switch {node} (tier {tier}) has no such links"));
            }
            match part {
                Part::Uplink | Part::Downlink => vec![chosen[pick(splitmix(rng ^ 1), chosen.len())]],
                _ => chosen,
            }
        }
    };
    let mut ports = out.clone();
    if !one_way {
        // a link is a pair of ports (`topology.rs`): the other direction
        ports.extend(out.iter().map(|p| p ^ 1));
    }
    ports.sort_unstable();
    ports.dedup();
    Ok(ports)
}

/// A uniform index below `n` from a 64-bit draw.
fn pick(draw: u64, n: usize) -> usize {
    ((splitmix(draw) as u128 * n as u128) >> 64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routes(net: &Network) -> crate::routing::Routes {
        crate::routing::Routes::build(net, crate::config::LoadBalancing::Ecmp, 1)
    }

    fn down(at: Time, until: Option<Time>, target: Target) -> FaultConfig {
        FaultConfig { at_ps: at, until_ps: until, target, one_way: false, effect: Effect::Down, detect_ps: 5 }
    }

    #[test]
    fn targets_name_the_ports_of_their_links() {
        // 2 leaves, 2 spines, 2 hosts a leaf: hosts 0-3, leaves 4-5, spines 6-7
        let net = crate::topology::fixtures::leaf_spine(2, 2, 2);
        let link = resolve(&net, &Target::Link { a: 4, b: 6 }, false, 0).unwrap();
        assert_eq!(link.len(), 2);
        assert!(link.iter().all(|&p| [(4, 6), (6, 4)].contains(&(net.links[p as usize].node, net.links[p as usize].peer))));
        let one = resolve(&net, &Target::Link { a: 4, b: 6 }, true, 0).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(net.links[one[0] as usize].node, 4);
        // a spine: its two links, both ways
        let spine = resolve(&net, &Target::Select { tier: 2, index: Some(1), part: Part::Switch }, false, 0).unwrap();
        assert_eq!(spine.len(), 4);
        assert!(spine.iter().all(|&p| { let l = &net.links[p as usize]; l.node == 7 || l.peer == 7 }));
        // a leaf's uplinks, and one at random
        let up = resolve(&net, &Target::Select { tier: 1, index: Some(0), part: Part::Uplinks }, true, 0).unwrap();
        assert_eq!(up.iter().map(|&p| net.links[p as usize].peer).collect::<Vec<_>>(), vec![6, 7]);
        let one_up = resolve(&net, &Target::Select { tier: 1, index: None, part: Part::Uplink }, true, 42).unwrap();
        assert_eq!(one_up.len(), 1);
        assert!(net.nodes[net.links[one_up[0] as usize].peer as usize].tier == 2);
        // clear errors
        assert!(resolve(&net, &Target::Link { a: 0, b: 1 }, false, 0).unwrap_err().contains("no link"));
        assert!(resolve(&net, &Target::Switch { node: 2 }, false, 0).unwrap_err().contains("is a host"));
        assert!(resolve(&net, &Target::Select { tier: 2, index: Some(2), part: Part::Switch }, false, 0)
            .unwrap_err()
            .contains("2 switches"));
        assert!(resolve(&net, &Target::Select { tier: 3, index: None, part: Part::Switch }, false, 0).is_err());
    }

    #[test]
    fn a_packet_is_lost_if_its_link_was_down_while_it_was_on_it() {
        let net = crate::topology::fixtures::leaf_spine(2, 2, 2);
        let mut f = Faults::new(&[down(100, Some(200), Target::Link { a: 4, b: 6 })], &[], &net, 1, &routes(&net)).unwrap().unwrap();
        let p = f.ports[0][0];
        f.apply(0, true, 100);
        f.apply(0, false, 200);
        assert_eq!(f.fate(p, 10, 99), None, "delivered before the failure");
        assert_eq!(f.fate(p, 10, 100), None, "arrives as the link fails: delivered (the interval is half open)");
        assert_eq!(f.fate(p, 90, 110), Some(Cause::InFlight));
        assert_eq!(f.fate(p, 100, 130), Some(Cause::DeadLink));
        assert_eq!(f.fate(p, 150, 250), Some(Cause::DeadLink), "sent while down, arrives after the repair");
        assert_eq!(f.fate(p, 200, 230), None, "sent after the repair");
        // the schedule: begin, detection, end, detection of the repair
        let whats: Vec<_> = f.steps.iter().map(|s| (s.at, s.what)).collect();
        assert_eq!(whats, vec![(100, Change::Begin), (105, Change::DetectBegin), (200, Change::End), (205, Change::DetectEnd)]);
        assert!(f.learn(0, true));
        assert_eq!(f.known_dead().iter().filter(|&&d| d).count(), 2);
        assert!(f.learn(0, false));
        assert!(f.known_dead().iter().all(|&d| !d));
        assert!(f.cut_off(&net).is_empty(), "repaired: nothing is cut off");
        // hosts 0-3 under leaves 4 and 5: leaf 5's links down for good cut
        // off its hosts 2 and 3; host 1's link one way, host 1
        let leaf = Faults::new(&[down(1, None, Target::Switch { node: 5 })], &[], &net, 1, &routes(&net)).unwrap().unwrap();
        assert_eq!(leaf.cut_off(&net), vec![2, 3]);
        let one = FaultConfig { one_way: true, ..down(1, None, Target::Link { a: 4, b: 1 }) };
        let host = Faults::new(&[one], &[], &net, 1, &routes(&net)).unwrap().unwrap();
        assert_eq!(host.cut_off(&net), vec![1]);
        let spine = Faults::new(&[down(1, None, Target::Switch { node: 6 })], &[], &net, 1, &routes(&net)).unwrap().unwrap();
        assert!(spine.cut_off(&net).is_empty(), "the other spine still joins the leaves");
        let h0 = Faults::new(&[down(1, None, Target::Link { a: 0, b: 4 })], &[], &net, 1, &routes(&net)).unwrap().unwrap();
        assert_eq!(h0.cut_off(&net), vec![0], "host 0 alone, not the rest");
    }

    #[test]
    fn degraded_links_lose_their_fraction_and_slow_down() {
        let net = crate::topology::fixtures::leaf_spine(2, 2, 2);
        let cfg = FaultConfig {
            effect: Effect::Degrade { rate_fraction: 0.25, loss: 0.1 },
            ..down(0, None, Target::Link { a: 4, b: 6 })
        };
        let mut f = Faults::new(&[cfg], &[], &net, 7, &routes(&net)).unwrap().unwrap();
        let p = f.ports[0][0];
        let rates = f.apply(0, true, 0);
        assert!(rates.iter().all(|&(_, r)| r == net.links[p as usize].rate_bps / 4));
        assert_eq!(f.steps.len(), 1, "a degradation does not reroute");
        let n = 200_000;
        let lost = (0..n).filter(|&i| f.fate(p, i * 10, i * 10 + 5) == Some(Cause::Gray)).count();
        let share = lost as f64 / n as f64;
        assert!((share - 0.1).abs() < 0.003, "{share}");
        // a topology file's error rate, both ways, for the whole run
        let mut e = Faults::new(&[], &[(4, 6, 0.5)], &net, 7, &routes(&net)).unwrap().unwrap();
        let [a, b] = resolve(&net, &Target::Link { a: 4, b: 6 }, false, 0).unwrap()[..] else { panic!() };
        assert!(e.touches(a) && e.touches(b) && !e.touches(0));
        let lost = (0..10_000).filter(|&i| e.fate(a, i, i + 1).is_some()).count();
        assert!((4_800..5_200).contains(&lost), "{lost}");
        assert!(Faults::new(&[], &[(4, 6, 0.0)], &net, 7, &routes(&net)).unwrap().is_none());
    }
}
