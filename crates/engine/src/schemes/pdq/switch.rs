//! PDQ at every link (SIGCOMM'12 §3.2-3.3): each output port, a switch's
//! or a host NIC's, keeps a short list of the most critical flows that
//! cross it, sorted by criticality, and decides for each packet of a flow
//! whether the flow may send and at what rate, writing its decision into
//! the packet's scheduling header (`header.rs`). ACKs coming back commit
//! what the whole path decided. The rate controller keeps the capacity
//! the list hands out below the line rate while a queue drains.
//!
//! The state is per port, indexed by port; the packet path reaches it
//! through `Nodes` (`schemes/mod.rs`) only for PDQ runs: a FIFO port of
//! any other scheme never sees it.

use super::header::{self, Header, FIN, NONE};
use crate::config::PdqConfig;
use crate::packet::{flags, Packet};
use crate::time::{Time, PS_PER_S};
use smallvec::SmallVec;

/// One flow in a link's list (24 bytes: a list of three fits in the
/// link's own cache lines, read on every packet that crosses it).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    /// Criticality (`header::key`): lower is more critical.
    key: u64,
    flow: u32,
    /// RTT_i, ns.
    rtt_ns: u32,
    /// R_i: the rate the flow's last ACK committed here, kb/s (the
    /// header's unit).
    rate_kbps: u32,
    /// P_i is this link: the flow was paused here.
    paused_here: bool,
}

/// One link's PDQ state.
#[derive(Clone, Debug)]
struct Link {
    /// Sorted by `key`, ties by flow id.
    list: SmallVec<[Entry; 3]>,
    /// C: the rate the list hands out (the rate controller's), b/s.
    capacity_bps: u64,
    /// When the rate controller next updates C.
    next_update: Time,
    /// Moving average of the RTTs the headers carry, ps.
    rtt_avg: f64,
    /// Dampening: no other paused flow is accepted before this.
    damp_until: Time,
}

/// The lists of every port.
#[derive(Debug)]
pub struct Links {
    links: Vec<Link>,
    /// The most flows a list holds (`PdqConfig::max_flows`), and the most
    /// any list held in the run.
    max_flows: usize,
    pub peak_flows: usize,
}

/// What the packet path tells a link about itself.
#[derive(Clone, Copy, Debug)]
pub struct LinkNow {
    pub port: u32,
    pub rate_bps: u64,
    /// When the port's line is free of what it holds: the rate
    /// controller's q is what it has yet to send (asked for only when the
    /// controller updates).
    pub busy_until: Time,
    /// Bytes its queue holds (a port that queues them counts them).
    pub queued_bytes: u64,
    pub now: Time,
}

impl LinkNow {
    /// The bytes waiting at the port.
    fn backlog_bytes(&self) -> u64 {
        let ahead = self.busy_until.saturating_sub(self.now) as u128 * self.rate_bps as u128 / 8 / PS_PER_S as u128;
        (ahead as u64).max(self.queued_bytes)
    }
}

impl Links {
    pub fn new(ports: usize, cfg: &PdqConfig) -> Links {
        let link = Link { list: SmallVec::new(), capacity_bps: 0, next_update: 0, rtt_avg: 0.0, damp_until: 0 };
        Links { links: vec![link; ports], max_flows: cfg.max_flows.max(1) as usize, peak_flows: 0 }
    }

    /// Flows a port's list holds now.
    pub fn listed(&self, port: u32) -> usize {
        self.links[port as usize].list.len()
    }

    /// Algorithm 1: a packet from a flow's sender (SYN, data, probe, FIN
    /// or TERM) leaves by the link `at`.
    pub fn forward(&mut self, at: LinkNow, pkt: &mut Packet, cfg: &PdqConfig) {
        let me = at.port + 1;
        let link = &mut self.links[at.port as usize];
        link.observe(at, pkt.ingress, cfg);
        let pos = link.find(pkt.flow);
        if pkt.has(FIN) {
            // the flow's last packet, or its termination: off the books
            if let Some(i) = pos {
                link.list.remove(i);
            }
            return;
        }
        let mut h = Header::read(pkt);
        if h.pauser != NONE && h.pauser != me {
            // paused by another link: it takes nothing here
            if let Some(i) = pos {
                link.list.remove(i);
            }
            return;
        }
        let key = pkt.prio;
        let rtt = pkt.ingress.max(1);
        let i = match pos {
            Some(i) => link.rekey(i, key, rtt),
            None => match link.admit(pkt.flow, key, rtt, self.max_flows) {
                Some(i) => i,
                None => {
                    // beyond the list's bound and less critical than all
                    // of it: paused (docs/schemes.md: the PDQ paper gives
                    // such flows RCP's fair share, which dcsim does not run)
                    h.rate_bps = 0;
                    h.pauser = me;
                    return h.write(pkt);
                }
            },
        };
        self.peak_flows = self.peak_flows.max(link.list.len());
        let w = link.available(i, cfg.early_start_k).min(h.rate_bps / 1000) * 1000;
        // less than a full packet per RTT is no rate (our choice,
        // docs/schemes.md): the sender would next hear from the links an
        // age later, where a paused flow probes
        let least = (cfg.mss_bytes + cfg.header_bytes) as u64 * 8 * 1_000_000_000 / rtt as u64;
        let e = &mut link.list[i];
        if w >= least && !(e.paused_here && at.now < link.damp_until) {
            if e.paused_here && cfg.dampening_ps > 0 {
                // §3.3.2 Dampening: after accepting a paused flow, no
                // other paused flow for a while
                link.damp_until = at.now + cfg.dampening_ps;
            }
            h.pauser = NONE;
            h.rate_bps = w;
        } else {
            h.pauser = me;
            h.rate_bps = 0;
            e.paused_here = true;
        }
        h.write(pkt);
    }

    /// Algorithm 3: an ACK comes back over the link `port` of its data:
    /// what the whole path decided is committed here.
    pub fn reverse(&mut self, port: u32, ack: &mut Packet, cfg: &PdqConfig) {
        let me = port + 1;
        let link = &mut self.links[port as usize];
        let mut h = Header::read(ack);
        let pos = link.find(ack.flow);
        if ack.has(FIN) {
            return;
        }
        if h.pauser != NONE && h.pauser != me {
            if let Some(i) = pos {
                link.list.remove(i);
            }
        }
        if h.pauser != NONE {
            h.rate_bps = 0;
        }
        if let Some(i) = link.find(ack.flow) {
            let e = &mut link.list[i];
            e.rate_kbps = (h.rate_bps / 1000) as u32;
            e.paused_here = h.pauser == me;
            if cfg.suppressed_probing {
                // §3.3.2 Suppressed Probing: I_H = max(I_H, 0.2 x the
                // flow's place in the list), in tenths of an RTT
                h.interval = h.interval.max((2 * i).min(u8::MAX as usize) as u8);
            }
        }
        h.write(ack);
    }
}

impl Link {
    #[inline]
    fn find(&self, flow: u32) -> Option<usize> {
        self.list.iter().position(|e| e.flow == flow)
    }

    /// The RTT average and the rate controller (§3.3.3): every 2 RTTs,
    /// C = max(0, r - q / (2 RTT)), which drains the queue Early Start's
    /// overlap builds.
    fn observe(&mut self, at: LinkNow, rtt_ns: u32, cfg: &PdqConfig) {
        if rtt_ns > 0 {
            let rtt = rtt_ns as f64 * 1000.0;
            self.rtt_avg = if self.rtt_avg == 0.0 { rtt } else { 0.875 * self.rtt_avg + 0.125 * rtt };
        }
        if self.capacity_bps == 0 && self.next_update == 0 {
            self.capacity_bps = at.rate_bps;
        }
        if at.now >= self.next_update && self.rtt_avg > 0.0 {
            let drain = at.backlog_bytes() as f64 * 8.0 / (2.0 * self.rtt_avg / PS_PER_S as f64);
            self.capacity_bps = (at.rate_bps as f64 - drain).max(0.0) as u64;
            self.next_update = at.now + (cfg.rate_update_rtts * self.rtt_avg) as Time;
        }
    }

    /// The flow at `i` now has `key`: back into order.
    fn rekey(&mut self, mut i: usize, key: u64, rtt_ns: u32) -> usize {
        let e = &mut self.list[i];
        e.rtt_ns = rtt_ns;
        if e.key == key {
            return i;
        }
        e.key = key;
        while i > 0 && ord(&self.list[i]) < ord(&self.list[i - 1]) {
            self.list.swap(i, i - 1);
            i -= 1;
        }
        while i + 1 < self.list.len() && ord(&self.list[i + 1]) < ord(&self.list[i]) {
            self.list.swap(i, i + 1);
            i += 1;
        }
        i
    }

    /// A flow not in the list: in, if the list has room or it is more
    /// critical than the least critical one there (who leaves). The list
    /// holds 2 kappa flows, kappa those sending (§3.2), at least two and
    /// at most `max`.
    fn admit(&mut self, flow: u32, key: u64, rtt_ns: u32, max: usize) -> Option<usize> {
        let sending = self.list.iter().filter(|e| e.rate_kbps > 0).count();
        let bound = (2 * sending).clamp(2, max);
        let e = Entry { key, flow, rtt_ns, rate_kbps: 0, paused_here: false };
        let i = self.list.partition_point(|x| ord(x) < ord(&e));
        if self.list.len() >= bound && i >= self.list.len() {
            return None;
        }
        self.list.insert(i, e);
        while self.list.len() > bound.max(i + 1) {
            self.list.pop();
        }
        Some(i)
    }

    /// Algorithm 2: what the flows more critical than the one at `j` leave
    /// of C, kb/s. Early Start (§3.3.1): the flows that will finish within
    /// K RTTs (up to K RTTs of them in all) count as gone.
    fn available(&self, j: usize, k: f64) -> u64 {
        let c = self.capacity_bps / 1000;
        let (mut x, mut a) = (0.0, 0u64);
        for e in &self.list[..j] {
            let rtts = header::expected(e.key) as f64 / (e.rtt_ns as f64 * 1000.0);
            if k > 0.0 && rtts < k && x < k {
                x += rtts;
            } else {
                a += e.rate_kbps as u64;
            }
            if a >= c {
                return 0;
            }
        }
        c - a
    }
}

#[inline]
fn ord(e: &Entry) -> (u64, u32) {
    (e.key, e.flow)
}

/// What the run's summary says of the links (under `pdq`).
pub fn report(l: &Links) -> serde_json::Value {
    serde_json::json!({ "peak_listed_flows": l.peak_flows, "list_bound": l.max_flows })
}

/// A packet from a flow's sender that PDQ's links schedule (all of PDQ's
/// data-direction packets).
#[inline]
pub fn from_sender(pkt: &Packet) -> bool {
    pkt.kind == crate::packet::Kind::Data
}

/// An ACK carrying a header back (every PDQ ACK).
#[inline]
pub fn carries_back(pkt: &Packet) -> bool {
    pkt.kind == crate::packet::Kind::Ack && !pkt.has(flags::NACK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Kind;

    const G10: u64 = 10_000_000_000;
    const US: Time = 1_000_000;

    fn cfg() -> PdqConfig {
        PdqConfig::test_default()
    }

    fn pkt(flow: u32, expected_us: u64) -> Packet {
        let mut p = Packet { flow, prio: header::key(None, expected_us * US), ..Packet::test_data(1500, 0) };
        Header { rate_bps: G10, pauser: NONE, interval: 0 }.write(&mut p);
        header::set_rtt(&mut p, 15 * US);
        p
    }

    fn ack_of(p: &Packet) -> Packet {
        Packet { kind: Kind::Ack, ..*p }
    }

    fn at(now: Time) -> LinkNow {
        LinkNow { port: 0, rate_bps: G10, busy_until: 0, queued_bytes: 0, now }
    }

    #[test]
    fn the_most_critical_flow_takes_the_link_and_pauses_the_next() {
        let (c, mut l) = (cfg(), Links::new(1, &cfg()));
        // a long flow first: it gets the line rate, committed by its ACK
        let mut long = pkt(1, 1000);
        l.forward(at(0), &mut long, &c);
        assert_eq!(Header::read(&long), Header { rate_bps: G10, pauser: NONE, interval: 0 });
        l.reverse(0, &mut ack_of(&long), &c);
        // a shorter one (not within Early Start's K RTTs) preempts it
        let mut short = pkt(2, 100);
        l.forward(at(US), &mut short, &c);
        assert_eq!(Header::read(&short).rate_bps, G10);
        l.reverse(0, &mut ack_of(&short), &c);
        let mut long = pkt(1, 999);
        l.forward(at(2 * US), &mut long, &c);
        let h = Header::read(&long);
        assert_eq!((h.rate_bps, h.pauser), (0, 1), "the long flow is paused by this link");
        // its probe's ACK commits the pause; the list says where it stands
        let mut a = ack_of(&long);
        l.reverse(0, &mut a, &c);
        assert_eq!(Header::read(&a).interval, 2, "suppressed probing: 0.2 RTT per flow ahead");
    }

    #[test]
    fn early_start_lets_the_next_flow_go_while_the_first_is_within_k_rtts_of_its_end() {
        let (c, mut l) = (cfg(), Links::new(1, &cfg()));
        // a flow 1.5 RTTs (of 15 us) from its end holds the link...
        let mut first = pkt(1, 22);
        l.forward(at(0), &mut first, &c);
        l.reverse(0, &mut ack_of(&first), &c);
        // ...and the next flow is accepted at the line rate all the same
        let mut next = pkt(2, 500);
        l.forward(at(US), &mut next, &c);
        assert_eq!(Header::read(&next).rate_bps, G10);
        // without Early Start it waits
        let c0 = PdqConfig { early_start_k: 0.0, ..cfg() };
        let mut l = Links::new(1, &c0);
        let mut first = pkt(1, 22);
        l.forward(at(0), &mut first, &c0);
        l.reverse(0, &mut ack_of(&first), &c0);
        let mut next = pkt(2, 500);
        l.forward(at(US), &mut next, &c0);
        assert_eq!(Header::read(&next).rate_bps, 0);
    }

    #[test]
    fn a_flow_paused_elsewhere_leaves_the_list_and_a_fin_too() {
        let (c, mut l) = (cfg(), Links::new(1, &cfg()));
        let mut p = pkt(1, 100);
        l.forward(at(0), &mut p, &c);
        assert_eq!(l.listed(0), 1);
        let mut elsewhere = pkt(1, 100);
        Header { rate_bps: 0, pauser: 77, interval: 0 }.write(&mut elsewhere);
        l.forward(at(US), &mut elsewhere, &c);
        assert_eq!(l.listed(0), 0);
        let mut p = pkt(1, 100);
        l.forward(at(2 * US), &mut p, &c);
        p.flags |= FIN;
        l.forward(at(3 * US), &mut p, &c);
        assert_eq!(l.listed(0), 0);
    }

    #[test]
    fn the_list_never_holds_more_than_twice_the_flows_sending() {
        let c = PdqConfig { max_flows: 8, ..cfg() };
        let mut l = Links::new(1, &c);
        for f in 0..100u32 {
            // ever more critical flows, each committed by its ACK
            let mut p = pkt(f, 10_000 - f as u64);
            l.forward(at(f as Time * US), &mut p, &c);
            l.reverse(0, &mut ack_of(&p), &c);
            let sending = l.links[0].list.iter().filter(|e| e.rate_kbps > 0).count();
            assert!(l.listed(0) <= (2 * sending).clamp(2, 8), "flow {f}: {} listed, {sending} sending", l.listed(0));
        }
        assert!(l.peak_flows <= 8);
    }

    #[test]
    fn less_than_a_packet_per_rtt_is_a_pause() {
        let (c, mut l) = (cfg(), Links::new(1, &cfg()));
        // a flow bottlenecked elsewhere at 9.5 Gb/s leaves 0.5 Gb/s: below
        // 1,500 B per 15 us (0.8 Gb/s), so the next flow is paused
        let mut first = pkt(1, 100);
        l.forward(at(0), &mut first, &c);
        let mut a = ack_of(&first);
        Header { rate_bps: 9_500_000_000, pauser: NONE, interval: 0 }.write(&mut a);
        l.reverse(0, &mut a, &c);
        let mut next = pkt(2, 1000);
        l.forward(at(US), &mut next, &c);
        assert_eq!(Header::read(&next).rate_bps, 0);
        // at 9 Gb/s it leaves 1 Gb/s: the next flow takes it
        Header { rate_bps: 9_000_000_000, pauser: NONE, interval: 0 }.write(&mut a);
        l.reverse(0, &mut a, &c);
        let mut next = pkt(2, 1000);
        l.forward(at(2 * US), &mut next, &c);
        assert_eq!(Header::read(&next).rate_bps, 1_000_000_000);
    }

    #[test]
    fn the_rate_controller_hands_out_less_while_a_queue_drains() {
        let (c, mut l) = (cfg(), Links::new(1, &cfg()));
        let mut p = pkt(1, 1000);
        l.forward(LinkNow { queued_bytes: 9_375, ..at(0) }, &mut p, &c);
        // C = 10 Gb/s - 9,375 B * 8 / (2 * 15 us) = 7.5 Gb/s
        assert_eq!(Header::read(&p).rate_bps, 7_500_000_000);
    }
}
