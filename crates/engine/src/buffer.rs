//! The shared buffer of a switch of BFC's generation (NSDI'22 §6.2.1: "12
//! MB shared buffer", "standard shared buffer memory model") and its PFC,
//! modelled on the memory manager of the HPCC simulator, which BFC's
//! comparison schemes ran on (its `switch-mmu.cc`; docs/schemes.md lists
//! what is kept and what is chosen).
//!
//! The buffer is counted per ingress, the link a packet came in by: each
//! ingress has a small reserve of its own, then takes from the shared
//! pool, then, once it is over its PFC threshold, from a headroom of its
//! own that holds what the upstream sends before the pause reaches it.
//! The threshold is dynamic: alpha times the part of the shared pool that
//! is free (alpha = 1/8: one congested ingress settles at 1/9 = 11% of
//! the free buffer, BFC §6.2.1's "more than 11% of the free buffer").
//! An ingress over it pauses its upstream (XOFF); it resumes (XON) when
//! the ingress is back out of its headroom and `resume_offset` below the
//! threshold. Without PFC (BFC's own switches) a packet is dropped only
//! when the buffer is full, or, with an egress alpha, when its output
//! queue would hold more than alpha times the free buffer.
//!
//! State is indexed by the switch's own port on the ingress link (the port
//! that sends PFC frames back up that link) and, with traffic classes, the
//! packet's class (PFC's priority): each (port, class) has the reserve and
//! headroom and is paused on its own, while the pool leaves out one
//! reserve and one headroom per port, as the simulator's `total_rsrv` and
//! `total_hdrm` do. Host ports have none.

use crate::config::SharedBufferConfig;
use crate::topology::Network;

/// `Packet::ingress` of a packet the switch's shared buffer does not count
/// (control frames, ACKs at high priority, anything at a host).
pub const NOT_COUNTED: u32 = u32::MAX;

/// What the buffer asks the switch to tell the upstream of an ingress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    None,
    Pause,
    Resume,
}

#[derive(Clone, Copy, Debug, Default)]
struct Ingress {
    /// Bytes in the reserve and the shared pool.
    bytes: u64,
    /// Bytes in the headroom.
    hdrm: u64,
    headroom: u64,
    /// alpha = 2^-shift.
    shift: u8,
    /// The upstream is paused (this switch sent XOFF and no XON since).
    paused: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Switch {
    /// The switch's buffer, and the shared pool: the buffer less every
    /// port's reserve and headroom.
    bytes: u64,
    pool: u64,
    /// Bytes of the pool in use.
    shared_used: u64,
    /// All bytes buffered (reserve, pool and headroom), and the peak.
    used: u64,
    max_used: u64,
    pauses: u64,
}

#[derive(Debug)]
pub struct SharedBuffers {
    cfg: SharedBufferConfig,
    /// Traffic classes (PFC priorities); ingress state per (port, class).
    classes: usize,
    /// Per port: its switch (`NONE` for host NICs).
    switch_of: Vec<u32>,
    ingress: Vec<Ingress>,
    switches: Vec<Switch>,
    /// Switch number by node.
    node_switch: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl SharedBuffers {
    pub fn new(cfg: &SharedBufferConfig, net: &Network, classes: u8) -> Result<SharedBuffers, String> {
        let classes = classes.max(1) as usize;
        let host_rate = net.links.iter().filter(|l| net.is_host(l.node)).map(|l| l.rate_bps).min().unwrap_or(1);
        let mut node_switch = vec![NONE; net.nodes.len()];
        let mut switches = Vec::new();
        for (n, node) in net.nodes.iter().enumerate() {
            if net.is_host(n as u32) {
                continue;
            }
            node_switch[n] = switches.len() as u32;
            let headroom: u64 = node.ports.iter().map(|&p| Self::headroom(cfg, &net.links[p as usize])).sum();
            let reserves = cfg.reserve_bytes * node.ports.len() as u64;
            let bytes = cfg.bytes_at.iter().find(|&&(at, _)| at == n as u32).map_or(cfg.bytes, |&(_, b)| b);
            let pool = bytes.checked_sub(headroom + reserves).ok_or_else(|| {
                format!(
                    "switch {n}'s shared buffer ({bytes} B) is smaller than its ports' reserves and PFC headroom ({} B)",
                    headroom + reserves
                )
            })?;
            switches.push(Switch { bytes, pool, ..Switch::default() });
        }
        let switch_of: Vec<u32> = net.links.iter().map(|l| node_switch[l.node as usize]).collect();
        let ingress = net
            .links
            .iter()
            .flat_map(|l| std::iter::repeat_n(l, classes))
            .map(|l| {
                // the HPCC simulator halves alpha for each doubling of a
                // port's rate over the hosts' (its `pfc_a_shift`)
                let doublings = (l.rate_bps / host_rate).max(1).ilog2() as u8;
                Ingress {
                    headroom: Self::headroom(cfg, l),
                    shift: cfg.alpha_shift.saturating_sub(doublings),
                    ..Ingress::default()
                }
            })
            .collect();
        if let Some(&(at, _)) = cfg.bytes_at.iter().find(|&&(at, _)| node_switch.get(at as usize).is_none_or(|&s| s == NONE)) {
            return Err(format!("buffer.size_mb_at (bytes_at): node {at} is not a switch"));
        }
        Ok(SharedBuffers { cfg: cfg.clone(), classes, switch_of, ingress, switches, node_switch })
    }

    /// PFC headroom of the ingress on `link`: what arrives in the time a
    /// pause takes to act, three one-way delays of the link at its rate
    /// (the HPCC simulator's `3 * rate * delay`), unless configured.
    fn headroom(cfg: &SharedBufferConfig, link: &crate::topology::LinkEnd) -> u64 {
        if !cfg.pfc {
            return 0;
        }
        cfg.headroom_bytes.unwrap_or_else(|| {
            (3 * link.rate_bps as u128 * link.delay_ps as u128 / 8 / crate::time::PS_PER_S as u128) as u64
        })
    }

    /// Whether port `port` belongs to a switch (and so its ingress is
    /// accounted here).
    #[inline]
    pub fn is_switch_port(&self, port: u32) -> bool {
        self.switch_of[port as usize] != NONE
    }

    /// The PFC threshold of an ingress: alpha times the free pool.
    #[inline]
    fn threshold(&self, sw: &Switch, ing: &Ingress) -> u64 {
        (sw.pool - sw.shared_used.min(sw.pool)) >> ing.shift
    }

    #[inline]
    fn shared_of(&self, ing: &Ingress) -> u64 {
        ing.bytes.saturating_sub(self.cfg.reserve_bytes)
    }

    /// Admit `size` bytes of traffic class `class` arriving by `ingress`
    /// for an output port that holds `egress_bytes`: `Err(())` drops the
    /// packet; otherwise it is counted, and the signal says whether to
    /// pause the upstream's `class`.
    pub fn admit(&mut self, ingress: u32, class: u8, size: u64, egress_bytes: u64) -> Result<Signal, ()> {
        let s = self.switch_of[ingress as usize] as usize;
        let ingress = ingress as usize * self.classes + class as usize;
        let (sw, ing) = (self.switches[s], self.ingress[ingress]);
        if let Some([num, den]) = self.cfg.egress_alpha {
            let free = (sw.pool + self.cfg.reserve_bytes).saturating_sub(sw.used);
            if (egress_bytes + size) * den as u64 > num as u64 * free {
                return Err(());
            }
        }
        let t = self.threshold(&sw, &ing);
        let ing = &mut self.ingress[ingress];
        if self.cfg.pfc {
            // drop only when the headroom is full too (`CheckIngressAdmission`)
            if ing.hdrm + size > ing.headroom && ing.bytes.saturating_sub(self.cfg.reserve_bytes) + size > t {
                return Err(());
            }
        } else if sw.used + size > sw.bytes {
            return Err(());
        }
        let sw = &mut self.switches[s];
        let new = ing.bytes + size;
        if new <= self.cfg.reserve_bytes {
            ing.bytes = new;
        } else if self.cfg.pfc && new - self.cfg.reserve_bytes > t {
            ing.hdrm += size;
        } else {
            ing.bytes = new;
            sw.shared_used += size.min(new - self.cfg.reserve_bytes);
        }
        sw.used += size;
        sw.max_used = sw.max_used.max(sw.used);
        let ing = self.ingress[ingress];
        let sw = self.switches[s];
        if self.cfg.pfc && !ing.paused && (ing.hdrm > 0 || self.shared_of(&ing) >= self.threshold(&sw, &ing)) {
            self.ingress[ingress].paused = true;
            self.switches[s].pauses += 1;
            return Ok(Signal::Pause);
        }
        Ok(Signal::None)
    }

    /// `size` bytes of `class` that came in by `ingress` leave the buffer;
    /// the signal says whether to resume the upstream's `class`.
    pub fn release(&mut self, ingress: u32, class: u8, size: u64) -> Signal {
        let s = self.switch_of[ingress as usize] as usize;
        let ingress = ingress as usize * self.classes + class as usize;
        let reserve = self.cfg.reserve_bytes;
        let ing = &mut self.ingress[ingress];
        let from_hdrm = ing.hdrm.min(size);
        let from_shared = (size - from_hdrm).min(ing.bytes.saturating_sub(reserve));
        ing.hdrm -= from_hdrm;
        ing.bytes -= size - from_hdrm;
        let sw = &mut self.switches[s];
        sw.shared_used -= from_shared;
        sw.used -= size;
        let (ing, sw) = (self.ingress[ingress], self.switches[s]);
        if ing.paused && ing.hdrm == 0 {
            let shared = self.shared_of(&ing);
            if shared == 0 || shared + self.cfg.resume_offset_bytes <= self.threshold(&sw, &ing) {
                self.ingress[ingress].paused = false;
                return Signal::Resume;
            }
        }
        Signal::None
    }

    /// Bytes buffered at the switch of node `node` now, and its peak.
    pub fn used(&self, node: u32) -> Option<(u64, u64)> {
        let s = *self.node_switch.get(node as usize)?;
        (s != NONE).then(|| (self.switches[s as usize].used, self.switches[s as usize].max_used))
    }

    /// Pauses sent by all switches.
    pub fn pauses(&self) -> u64 {
        self.switches.iter().map(|s| s.pauses).sum()
    }

    /// Whether every count is back to zero (an empty network), for checks.
    pub fn is_empty(&self) -> bool {
        self.switches.iter().all(|s| s.used == 0 && s.shared_used == 0)
            && self.ingress.iter().all(|i| i.bytes == 0 && i.hdrm == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyConfig;

    fn star(pfc: bool, bytes: u64) -> (SharedBuffers, Network) {
        let net = Network::build(&TopologyConfig::Star { hosts: 4, rate_bps: 100_000_000_000, delay_ps: 1_000_000 })
            .unwrap();
        let cfg = SharedBufferConfig {
            bytes,
            bytes_at: vec![],
            reserve_bytes: 4096,
            resume_offset_bytes: 3072,
            headroom_bytes: None,
            pfc,
            alpha_shift: 3,
            egress_alpha: None,
        };
        (SharedBuffers::new(&cfg, &net, 1).unwrap(), net)
    }

    /// The switch's port facing host `h` (its ingress from that host).
    fn ingress_from(net: &Network, h: u32) -> u32 {
        net.nic(h) ^ 1
    }

    #[test]
    fn headroom_is_three_one_way_delays_and_the_pool_the_rest() {
        let (b, _) = star(true, 12 << 20);
        // 100 Gb/s x 1 us x 3 / 8 = 37,500 B per port; 4 ports
        assert_eq!(b.switches[0].pool, (12 << 20) - 4 * (37_500 + 4096));
    }

    #[test]
    fn a_switch_may_have_a_buffer_of_its_own_size() {
        let net = Network::build(&TopologyConfig::Star { hosts: 4, rate_bps: 100_000_000_000, delay_ps: 1_000_000 })
            .unwrap();
        let (b, _) = star(true, 12 << 20);
        let mut cfg = b.cfg.clone();
        cfg.bytes_at = vec![(4, 64 << 20)];
        let big = SharedBuffers::new(&cfg, &net, 1).unwrap();
        assert_eq!(big.switches[0].pool, (64 << 20) - 4 * (37_500 + 4096));
        cfg.bytes_at = vec![(1, 64 << 20)];
        assert!(SharedBuffers::new(&cfg, &net, 1).unwrap_err().contains("node 1 is not a switch"));
        // a buffer smaller than its headroom is refused, naming the switch
        cfg.bytes_at = vec![(4, 100_000)];
        assert!(SharedBuffers::new(&cfg, &net, 1).unwrap_err().contains("switch 4's shared buffer"));
    }

    #[test]
    fn one_congested_ingress_pauses_at_an_eighth_of_the_free_pool() {
        let (mut b, net) = star(true, 12 << 20);
        let i = ingress_from(&net, 0);
        let pool = b.switches[0].pool;
        let mut n = 0u64;
        let sig = loop {
            n += 1;
            match b.admit(i, 0, 1000, 0).unwrap() {
                Signal::None => {}
                s => break s,
            }
        };
        assert_eq!(sig, Signal::Pause);
        // paused once its shared part S >= (pool - S) / 8, i.e. S ~ pool / 9
        let shared = n * 1000 - 4096;
        assert!(shared * 8 >= pool - shared && (shared - 1000) * 8 < pool - (shared - 1000), "{shared} of {pool}");
        // the headroom then takes what still arrives, and then it drops
        let mut taken = 0;
        while b.admit(i, 0, 1000, 0).is_ok() {
            taken += 1000;
        }
        assert!(taken <= 37_500 + 1000 && taken >= 36_000, "headroom took {taken}");
        // draining: no resume while in the headroom, then one resume
        let mut resumes = 0;
        let mut left = n * 1000 + taken;
        while left > 0 {
            if b.release(i, 0, 1000) == Signal::Resume {
                resumes += 1;
                assert!(b.ingress[i as usize].hdrm == 0);
            }
            left -= 1000;
        }
        assert_eq!(resumes, 1);
        assert!(b.is_empty());
    }

    #[test]
    fn without_pfc_only_a_full_buffer_drops() {
        let (mut b, net) = star(false, 100_000);
        let i = ingress_from(&net, 1);
        let admitted = (0..200).filter(|_| b.admit(i, 0, 1000, 0) == Ok(Signal::None)).count();
        assert_eq!(admitted, 100);
        assert_eq!(b.used(4), Some((100_000, 100_000)));
    }

    #[test]
    fn accounting_is_conserved_under_random_traffic() {
        use rand::{Rng, SeedableRng};
        let (mut b, net) = star(true, 400_000);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut held: Vec<(u32, u64)> = vec![];
        let mut paused = [false; 4];
        for _ in 0..20_000 {
            if rng.gen_bool(0.55) {
                let h = rng.gen_range(0..4);
                let (i, size) = (ingress_from(&net, h), rng.gen_range(64..=1048));
                match b.admit(i, 0, size, 0) {
                    Ok(s) => {
                        held.push((i, size));
                        if s == Signal::Pause {
                            assert!(!paused[h as usize]);
                            paused[h as usize] = true;
                        }
                    }
                    Err(()) => assert!(paused[h as usize], "a drop before the upstream was paused"),
                }
            } else if !held.is_empty() {
                let (i, size) = held.swap_remove(rng.gen_range(0..held.len()));
                if b.release(i, 0, size) == Signal::Resume {
                    let h = (0..4).find(|&h| ingress_from(&net, h) == i).unwrap();
                    assert!(paused[h as usize]);
                    paused[h as usize] = false;
                }
            }
            let used: u64 = held.iter().map(|x| x.1).sum();
            assert_eq!(b.used(4).unwrap().0, used);
            assert!(used <= 400_000);
        }
        for (i, size) in held.drain(..) {
            b.release(i, 0, size);
        }
        assert!(b.is_empty());
    }

    #[test]
    fn each_class_of_an_ingress_pauses_on_its_own() {
        let net = Network::build(&TopologyConfig::Star { hosts: 4, rate_bps: 100_000_000_000, delay_ps: 1_000_000 })
            .unwrap();
        let cfg = SharedBufferConfig {
            bytes: 12 << 20,
            bytes_at: vec![],
            reserve_bytes: 4096,
            resume_offset_bytes: 3072,
            headroom_bytes: None,
            pfc: true,
            alpha_shift: 3,
            egress_alpha: None,
        };
        let mut b = SharedBuffers::new(&cfg, &net, 2).unwrap();
        // the pool leaves out one reserve and one headroom per port
        assert_eq!(b.switches[0].pool, (12 << 20) - 4 * (37_500 + 4096));
        let i = ingress_from(&net, 0);
        let mut n = 0;
        while b.admit(i, 1, 1000, 0).unwrap() != Signal::Pause {
            n += 1;
        }
        // class 0 of the same ingress is not paused: its own count starts at 0
        assert_eq!(b.admit(i, 0, 1000, 0), Ok(Signal::None));
        assert_eq!(b.release(i, 0, 1000), Signal::None);
        let mut resumes = 0;
        for _ in 0..=n {
            resumes += (b.release(i, 1, 1000) == Signal::Resume) as u32;
        }
        assert_eq!(resumes, 1);
        assert!(b.is_empty());
    }
}
