//! Homa's levels, endpoints and grant scheduler against hand-worked cases.

use super::grants::{schedule, Candidate};
use super::*;
use crate::workload::Cdf;

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
        cutoffs,
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
