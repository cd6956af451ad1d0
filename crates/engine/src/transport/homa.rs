//! Homa (Montazeri et al., SIGCOMM'18) as its OMNeT++ simulator runs it,
//! the code BFC NSDI'22 App. A.2 compared against (PlatformLab
//! `HomaSimulation`, branch `omnet_simulations`, `HomaTransport.cc`;
//! docs/schemes.md, `homa`). Receiver driven, with network priorities:
//!
//! - a message's first RTT bytes are *unscheduled*: sent at once, at line
//!   rate, each packet at the unscheduled priority level of the message's
//!   bytes remaining at that packet (the simulator's `STATIC_CBF_GRADUATED`
//!   levels, `unscheduled_levels`);
//! - the rest is *scheduled*: the receiver grants it, keeping at most RTT
//!   bytes of a message in flight, to the messages with the fewest bytes
//!   left to grant, at most one per sender and `overcommit` of them at
//!   once, each at a scheduled level by its rank (`schedule`);
//! - the sender sends, whenever its NIC is free, the next packet of the
//!   message with the fewest bytes left to send that has one it may send
//!   (shortest remaining first; the simulation's NIC, `Transport::bytes_left`);
//! - switches are strict-priority ports with unbounded buffers, so nothing
//!   is lost and there is no retransmission (the simulator has none).
//!
//! Sans-IO like the other transports; the grant decisions, which look at
//! every message arriving at a host, are a function of the messages
//! (`schedule`) that the simulation calls with a host's.

use super::{Poll, Segment};
use crate::config::HomaConfig;
use crate::packet::{Kind, Packet};
use crate::time::Time;
use crate::workload::{Cdf, FlowSpec};

/// The priority levels of unscheduled packets: how many, and the remaining
/// sizes that separate them (`cutoffs[i]`: the largest remaining size of
/// level `i`; level 0 is the most urgent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Levels {
    pub unscheduled: u8,
    pub cutoffs: Vec<u64>,
}

impl Levels {
    /// The unscheduled level of a packet with `remaining` bytes of its
    /// message left (itself included).
    #[inline]
    pub fn of(&self, remaining: u64) -> u8 {
        self.cutoffs.partition_point(|&c| c < remaining) as u8
    }
}

/// Quantiles of the size distribution the levels are computed from.
const SAMPLES: usize = 1 << 12;

/// Homa's priority levels for messages of the size distribution `cdf`,
/// with `rtt` unscheduled bytes and `levels` levels in all, `unscheduled`
/// of them for unscheduled packets if given, else (BFC App. A.2:
/// "the 32 priority levels are divided between unscheduled and scheduled
/// priorities based on the ratio of unscheduled and scheduled traffic"):
/// unscheduled levels in proportion to the unscheduled bytes (at least one
/// of each kind), and cutoffs that give each unscheduled level the same
/// bytes of the distribution of bytes by the remaining size they are sent
/// with (the simulator's `PriorityResolver` in `STATIC_CBF_GRADUATED` mode
/// with `cbfCapMsgSize` and `boostTailBytesPrio` at RTT: a message's first
/// and last RTT bytes count, at the remaining size each is sent with).
pub fn levels(cdf: &Cdf, rtt: u64, levels: u8, unscheduled: Option<u8>) -> Levels {
    assert!(levels >= 2, "Homa needs an unscheduled and a scheduled level");
    let sizes: Vec<u64> = (0..SAMPLES).map(|i| cdf.quantile((i as f64 + 0.5) / SAMPLES as f64)).collect();
    let total: f64 = sizes.iter().map(|&s| s as f64).sum();
    let unsched: f64 = sizes.iter().map(|&s| s.min(rtt) as f64).sum();
    let u = unscheduled.unwrap_or((levels as f64 * unsched / total).round() as u8).clamp(1, levels - 1);
    // Bytes sent with a remaining size of at most r: the message's bytes
    // counted are those with remaining sizes in (s - min(s, rtt), s] (its
    // first RTT bytes) and in (0, min(s, rtt)] (its last), once each.
    let below = |r: u64| -> f64 {
        sizes
            .iter()
            .map(|&s| {
                let head = s.min(rtt);
                let tail_part = r.min(head);
                let head_part = r.min(s).saturating_sub(s - head);
                // the overlap of the two ranges, counted once
                let overlap = r.min(head).saturating_sub(s - head);
                (tail_part + head_part - overlap) as f64
            })
            .sum()
    };
    let (max, all) = (*sizes.iter().max().expect("samples"), below(u64::MAX));
    let cutoffs = (1..u as u64)
        .map(|k| {
            let want = all * k as f64 / u as f64;
            // the smallest r with below(r) >= want
            let (mut lo, mut hi) = (0u64, max);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if below(mid) >= want {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        })
        .collect();
    Levels { unscheduled: u, cutoffs }
}

/// Both ends of a Homa message.
#[derive(Debug)]
pub struct HomaFlow {
    size: u64,
    n_segs: u32,
    // ---- sender ----
    /// Next packet to send (in order: nothing is lost).
    next_seq: u32,
    /// Packets the sender may send: the unscheduled ones, then what grants
    /// allowed.
    granted: u32,
    /// The scheduled level of the last grant.
    sched_prio: u8,
    // ---- receiver ----
    received: u32,
    received_bytes: u64,
    /// Packets the receiver has allowed (unscheduled ones included).
    allowed: u32,
    /// The receiver lists the message among those it grants to.
    pub listed: bool,
}

impl HomaFlow {
    pub fn new(spec: &FlowSpec, cfg: &HomaConfig) -> HomaFlow {
        let mss = cfg.mss_bytes as u64;
        let n_segs = u32::try_from(spec.size.div_ceil(mss).max(1)).expect("flow too large");
        let unsched = n_segs.min(cfg.rtt_packets());
        HomaFlow {
            size: spec.size,
            n_segs,
            next_seq: 0,
            granted: unsched,
            sched_prio: cfg.levels - 1,
            received: 0,
            received_bytes: 0,
            allowed: unsched,
            listed: false,
        }
    }

    fn payload(&self, seq: u32, mss: u64) -> u64 {
        self.size.saturating_sub(seq as u64 * mss).clamp(1, mss)
    }

    /// The NIC asks for the next packet.
    pub fn poll(&mut self, cfg: &HomaConfig) -> Poll {
        if self.next_seq >= self.granted.min(self.n_segs) {
            return Poll::Blocked;
        }
        let (seq, mss) = (self.next_seq, cfg.mss_bytes as u64);
        let prio = if seq < cfg.rtt_packets() {
            cfg.resolved.of(self.size - seq as u64 * mss)
        } else {
            self.sched_prio
        };
        self.next_seq += 1;
        Poll::Send(Segment {
            seq,
            size: (self.payload(seq, mss) + cfg.header_bytes as u64) as u16,
            flags: 0,
            prio: prio as u64,
            kind: Kind::Data,
        })
    }

    /// Bytes the sender has not sent yet (what its NIC orders by).
    pub fn bytes_left(&self, cfg: &HomaConfig) -> u64 {
        self.size.saturating_sub(self.next_seq as u64 * cfg.mss_bytes as u64)
    }

    /// A grant reaches the sender: it may send up to packet `seq`, at the
    /// level the grant names (`sack_lo`).
    pub fn on_grant(&mut self, grant: &Packet) {
        debug_assert_eq!(grant.kind, Kind::Grant);
        if grant.seq > self.granted {
            self.granted = grant.seq.min(self.n_segs);
            self.sched_prio = grant.sack_lo as u8;
        }
    }

    /// A data packet reaches the receiver (no reply: grants are the
    /// host's decision, `schedule`).
    pub fn on_data(&mut self, data: &Packet, cfg: &HomaConfig) -> Option<Packet> {
        self.received += 1;
        self.received_bytes += self.payload(data.seq, cfg.mss_bytes as u64);
        None
    }

    pub fn receiver_complete(&self) -> bool {
        self.received >= self.n_segs
    }

    pub fn delivered_bytes(&self) -> u64 {
        self.received_bytes
    }

    /// The message has bytes the receiver has not granted yet.
    pub fn needs_grants(&self) -> bool {
        self.allowed < self.n_segs
    }

    /// Bytes the receiver has yet to grant (what it ranks messages by).
    pub fn to_grant(&self, cfg: &HomaConfig) -> u64 {
        self.size.saturating_sub(self.allowed as u64 * cfg.mss_bytes as u64)
    }

    /// The grant this message gets if it is among those granted: packets up
    /// to RTT beyond what has arrived (the simulator grants while fewer
    /// than RTT bytes are in flight), if that is more than allowed so far.
    pub fn grant_upto(&self, cfg: &HomaConfig) -> Option<u32> {
        let upto = self.n_segs.min(self.received + cfg.rtt_packets());
        (upto > self.allowed).then_some(upto)
    }

    /// The receiver grants up to packet `upto`.
    pub fn allow(&mut self, upto: u32) {
        self.allowed = self.allowed.max(upto);
    }
}

/// A message a receiver may grant to, as `schedule` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub slot: u32,
    pub flow: u32,
    pub src: u32,
    pub to_grant: u64,
}

/// The receiver's choice (`HomaTransport.cc`'s `ReceiveScheduler`): each
/// sender is represented by its message with the fewest bytes left to
/// grant (ties: the earlier message); the `overcommit` senders with the
/// fewest are granted, the `i`-th of `n` at level `levels - n + i` (a lone
/// message gets the lowest level; more messages push the shortest ones
/// up), or, once fewer than RTT bytes are left to grant, at the better of
/// that and the unscheduled level of what is left (`boostTailBytesPrio`).
/// Sorts `cands`; returns the granted ones with their levels.
pub fn schedule<'a>(cands: &'a mut [Candidate], cfg: &'a HomaConfig) -> impl Iterator<Item = (Candidate, u8)> + 'a {
    cands.sort_unstable_by_key(|c| (c.to_grant, c.flow));
    let mut picked = 0;
    for i in 0..cands.len() {
        // (the picked ones are the prefix: a sender already there is skipped)
        if picked < cfg.overcommit as usize && !cands[..picked].iter().any(|c| c.src == cands[i].src) {
            cands.swap(picked, i);
            picked += 1;
        }
    }
    // the swaps keep the picked ones in ranked order
    let n = picked as u8;
    let rtt = cfg.rtt_packets() as u64 * cfg.mss_bytes as u64;
    cands[..picked].iter().enumerate().map(move |(i, &c)| {
        let mut level = cfg.levels - n + i as u8;
        if c.to_grant < rtt {
            level = level.min(cfg.resolved.of(c.to_grant));
        }
        (c, level)
    })
}

impl HomaConfig {
    /// Packets of RTT bytes (a message's unscheduled packets, and what the
    /// receiver keeps in flight).
    #[inline]
    pub fn rtt_packets(&self) -> u32 {
        self.rtt_bytes.unwrap_or(0).div_ceil(self.mss_bytes as u64).max(1) as u32
    }
}

/// No timers: nothing is lost.
pub fn deadline(_kind: u8) -> Option<Time> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rtt: u64, levels: u8, unsched: u8, cutoffs: Vec<u64>) -> HomaConfig {
        HomaConfig {
            mss_bytes: 1000,
            header_bytes: 48,
            grant_bytes: 60,
            levels,
            overcommit: levels - unsched,
            unscheduled_levels: unsched,
            rtt_bytes: Some(rtt),
            size_cdf: vec![],
            size_quantum_bytes: 1,
            resolved: Levels { unscheduled: unsched, cutoffs },
        }
    }

    fn spec(size: u64) -> FlowSpec {
        FlowSpec { id: 0, start: 0, src: 0, dst: 1, size, deadline_draw: None }
    }

    #[test]
    fn levels_split_bytes_evenly_and_by_the_unscheduled_share() {
        // sizes uniform on 1..=100,000 B, RTT 10,000 B: unscheduled bytes
        // are 19% of all, so 6 of 32 levels (round(32 x 0.19))
        let cdf = Cdf::new(&[(0.0, 0.0), (100_000.0, 1.0)], 1).unwrap();
        let l = levels(&cdf, 10_000, 32, None);
        assert_eq!(levels(&cdf, 10_000, 32, Some(3)).cutoffs.len(), 2);
        assert_eq!(l.unscheduled, 6);
        assert_eq!(l.cutoffs.len(), 5);
        assert!(l.cutoffs.windows(2).all(|w| w[0] < w[1]));
        // every message counts 2 x 10 KB (1 KB..10 KB ones their size) at
        // remaining sizes mostly below 10 KB or just under its size: the
        // first cutoffs are small, a message's last RTT bytes go first
        assert!(l.cutoffs[0] < 10_000, "{:?}", l.cutoffs);
        assert_eq!(l.of(1), 0);
        assert_eq!(l.of(l.cutoffs[0]), 0);
        assert_eq!(l.of(l.cutoffs[0] + 1), 1);
        assert_eq!(l.of(u64::MAX), 5);
    }

    #[test]
    fn one_level_each_at_the_extremes() {
        // every message fits in RTT: all bytes unscheduled, one level
        // stays scheduled
        let cdf = Cdf::new(&[(100.0, 0.0), (1000.0, 1.0)], 1).unwrap();
        assert_eq!(levels(&cdf, 100_000, 8, None).unscheduled, 7);
        let big = Cdf::new(&[(1e9, 0.0), (1e9, 1.0)], 1).unwrap();
        assert_eq!(levels(&big, 1000, 8, None).unscheduled, 1);
    }

    #[test]
    fn sender_sends_unscheduled_packets_then_waits_for_grants() {
        let c = cfg(3000, 8, 4, vec![1000, 2000, 5000]);
        let mut f = HomaFlow::new(&spec(10_500), &c);
        let prios: Vec<u64> = (0..3).map(|_| match f.poll(&c) {
            Poll::Send(s) => s.prio,
            p => panic!("{p:?}"),
        }).collect();
        // remaining 10,500, 9,500, 8,500: beyond the last cutoff
        assert_eq!(prios, vec![3, 3, 3]);
        assert_eq!(f.poll(&c), Poll::Blocked);
        assert_eq!(f.bytes_left(&c), 7500);
        let mut g = Packet::test_data(60, 0);
        g.kind = Kind::Grant;
        (g.seq, g.sack_lo) = (5, 6);
        f.on_grant(&g);
        match f.poll(&c) {
            Poll::Send(s) => assert_eq!((s.seq, s.prio, s.size), (3, 6, 1048)),
            p => panic!("{p:?}"),
        }
        // a late, smaller grant changes nothing
        (g.seq, g.sack_lo) = (4, 7);
        f.on_grant(&g);
        assert!(matches!(f.poll(&c), Poll::Send(Segment { seq: 4, prio: 6, .. })));
        assert_eq!(f.poll(&c), Poll::Blocked);
    }

    #[test]
    fn receiver_keeps_rtt_in_flight_and_completes() {
        let c = cfg(3000, 8, 4, vec![1000, 2000, 5000]);
        let mut f = HomaFlow::new(&spec(5500), &c);
        assert!(f.needs_grants());
        assert_eq!(f.grant_upto(&c), None, "the unscheduled packets fill the RTT");
        let mut d = Packet::test_data(1048, 0);
        d.seq = 1;
        f.on_data(&d, &c);
        assert_eq!(f.grant_upto(&c), Some(4));
        f.allow(4);
        assert_eq!(f.to_grant(&c), 1500);
        for seq in [0, 2, 3, 4, 5] {
            d.seq = seq;
            f.on_data(&d, &c);
        }
        assert_eq!(f.grant_upto(&c), Some(6));
        assert!(f.receiver_complete());
        assert_eq!(f.delivered_bytes(), 5500);
    }

    #[test]
    fn schedule_ranks_one_message_per_sender_and_boosts_tails() {
        let c = cfg(3000, 8, 4, vec![1000, 2000, 2500]);
        let cand = |flow, src, to_grant| Candidate { slot: flow, flow, src, to_grant };
        let mut cs = vec![cand(1, 10, 50_000), cand(2, 11, 20_000), cand(3, 10, 30_000), cand(4, 12, 2_400),
                          cand(5, 13, 90_000), cand(6, 14, 70_000)];
        let got: Vec<(u32, u8)> = schedule(&mut cs, &c).map(|(c, l)| (c.flow, l)).collect();
        // overcommit 4: flows 4, 2, 3 (sender 10's shortest) and 6; levels
        // 4.. by rank, flow 4's tail boosted to its unscheduled level (2)
        assert_eq!(got, vec![(4, 2), (2, 5), (3, 6), (6, 7)]);
        let mut one = vec![cand(9, 1, 10_000)];
        assert_eq!(schedule(&mut one, &c).map(|(_, l)| l).collect::<Vec<_>>(), vec![7]);
    }
}
