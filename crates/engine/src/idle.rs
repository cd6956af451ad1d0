//! A flow alone on the idle network: its exact FCT on one path (the ideal
//! FCT that slowdowns divide by), and a lower bound on its FCT when its
//! packets may take several paths (spraying), which no run may beat.
//!
//! Both count what dcsim's links do: store-and-forward, each packet
//! serialized on its own (rounded up to a picosecond, as `Port` does), a
//! fixed propagation delay per hop; the sender puts its packets on its
//! link back to back (an unlimited window). A flow of `n` packets has a
//! first packet of `first` bytes on the wire, `n - 2` middle ones of
//! `full`, and a last one of `last` (a partial segment); one packet is
//! `first == last`.

use crate::time::{serialization, Time};

/// The wire sizes of a flow's packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packets {
    pub n: u64,
    pub first: u64,
    pub full: u64,
    pub last: u64,
}

impl Packets {
    /// `size` payload bytes cut into segments of `mss`, each with `header`.
    pub fn of(size: u64, mss: u64, header: u64) -> Packets {
        let n = size.div_ceil(mss).max(1);
        Packets { n, first: size.min(mss) + header, full: mss + header, last: size - (n - 1) * mss + header }
    }

    /// Every byte on the wire.
    pub fn wire(&self) -> u64 {
        match self.n {
            1 => self.last,
            n => self.first + (n - 2) * self.full + self.last,
        }
    }
}

/// The FCT of the packets alone on a path of `hops` (rate in bits per
/// second, propagation delay), from the first bit sent to the last bit
/// received. Exact for a tandem of FIFO store-and-forward links: packet
/// `i` leaves hop `j` at `D(i, j) = max(D(i-1, j), D(i, j-1)) + s_i / r_j`,
/// so the last departure is the heaviest monotone path through the
/// (packet, hop) grid. Such a path takes the first packet over hops
/// `1..=a`, the middle packets over hops `a..=b` (all but one of each at
/// the slowest of them), and the last packet over hops `b..`; the maximum
/// over `a <= b` is the FCT. O(hops^2).
///
/// Where the first hop (or the last) is the slowest, as on every fabric of
/// the papers, this is pFabric's "FCT ... on an idle network": the bytes
/// serialized at the bottleneck, plus one packet's store-and-forward on
/// each other hop. Where a faster link follows the bottleneck, the last
/// packet, when partial, catches up: less than that formula gives.
pub fn path_fct(hops: &[(u64, Time)], p: Packets) -> Time {
    let prop: Time = hops.iter().map(|h| h.1).sum();
    let ser = |bytes: u64, j: usize| serialization(bytes, hops[j].0);
    let k = hops.len();
    let last_from = |b: usize| (b..k).map(|j| ser(p.last, j)).sum::<Time>();
    let mut best = 0;
    let mut first_to: Time = 0; // first packet over hops 0..=a
    for a in 0..k {
        first_to += ser(p.first, a);
        if p.n == 1 {
            // one packet: the path is that packet over every hop
            best = first_to;
            continue;
        }
        if p.n == 2 {
            best = best.max(first_to + last_from(a));
            continue;
        }
        let (mut mid, mut slowest): (Time, Time) = (0, 0);
        for b in a..k {
            let s = ser(p.full, b);
            mid += s;
            slowest = slowest.max(s);
            let t = first_to as u128 + mid as u128 + (p.n - 3) as u128 * slowest as u128 + last_from(b) as u128;
            best = best.max(t.min(Time::MAX as u128) as Time);
        }
    }
    prop.saturating_add(best)
}

/// The papers' ideal FCT on a path ("the best possible value that is
/// achievable in an idle fabric for that flow", pFabric §5.2), as dcsim
/// has always computed it on their fabrics: the wire bytes
/// serialized at the slowest hop, plus one first packet's
/// store-and-forward on each other hop, plus propagation. Equal to
/// `path_fct` where the first or last hop is the slowest; above it where
/// a partial last packet catches up on faster links after the bottleneck.
pub fn papers_fct(hops: &[(u64, Time)], p: Packets) -> Time {
    let Some((b, &(rb, _))) = hops.iter().enumerate().min_by_key(|(_, h)| h.0) else { return 0 };
    let mut t = serialization(p.wire(), rb);
    for (i, &(rate, delay)) in hops.iter().enumerate() {
        t += delay;
        if i != b {
            t += serialization(p.first, rate);
        }
    }
    t
}

/// One stage of the paths between two hosts: the links at the same
/// distance from the source on any shortest path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The fastest of the stage's links.
    pub rate_bps: u64,
    /// All of its links' rates together: every byte crosses the stage.
    pub capacity_bps: u64,
    /// The shortest of its links' delays.
    pub delay: Time,
}

/// A lower bound on the FCT of the packets over `stages`, whatever paths
/// they take through them and in whatever order they arrive. A packet
/// crosses every stage; the smallest takes at least `last / rate` at each
/// (the fastest link) plus its delay. All the bytes cross stage `j`, at
/// `capacity` at most, not before the first packet can reach it (the
/// smallest, over the fastest links) and the last one out still has the
/// stages after `j` to cross: for each `j`, that sum is a bound; the
/// largest holds.
pub fn multipath_bound(stages: &[Stage], p: Packets) -> Time {
    let prop: Time = stages.iter().map(|s| s.delay).sum();
    let small = p.last.min(p.first);
    let lone: Vec<Time> = stages.iter().map(|s| serialization(small, s.rate_bps)).collect();
    let total: Time = lone.iter().sum();
    let wire = p.wire();
    let cut = stages
        .iter()
        .zip(&lone)
        .map(|(s, &one)| total - one + serialization(wire, s.capacity_bps))
        .max()
        .unwrap_or(0);
    prop + cut.max(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    const G10: u64 = 10_000_000_000;
    const G40: u64 = 40_000_000_000;

    /// The grid recursion itself, packet by packet: what `path_fct` must
    /// equal.
    fn tandem(hops: &[(u64, Time)], p: Packets) -> Time {
        let sizes: Vec<u64> = (0..p.n)
            .map(|i| if i == 0 { p.first } else if i + 1 == p.n { p.last } else { p.full })
            .collect();
        let mut d = vec![0 as Time; hops.len()];
        for &s in &sizes {
            for j in 0..hops.len() {
                let ready = if j == 0 { d[0] } else { d[j].max(d[j - 1]) };
                d[j] = ready + serialization(s, hops[j].0);
            }
        }
        d[hops.len() - 1] + hops.iter().map(|h| h.1).sum::<Time>()
    }

    #[test]
    fn the_exact_path_fct_is_the_tandem_recursion() {
        let paths: [&[(u64, Time)]; 5] = [
            &[(G10, 200_000), (G40, 200_000), (G40, 200_000), (G10, 200_000)],
            &[(G10, 0), (G40, 0), (G40, 0)],
            &[(G40, 1), (G10, 2), (G40, 3), (G10, 4), (G40, 5)],
            &[(1_000_000_000, 0), (G10, 0), (7_000_000_000, 0)],
            &[(G10, 7)],
        ];
        for hops in paths {
            for size in [1, 100, 1460, 1461, 2003, 2920, 3000, 14_600, 15_000, 100_000] {
                let p = Packets::of(size, 1460, 40);
                assert_eq!(path_fct(hops, p), tandem(hops, p), "size {size} over {hops:?}");
            }
        }
    }

    #[test]
    fn on_the_papers_fabric_it_is_the_bytes_at_the_bottleneck_plus_a_packet_per_other_hop() {
        // pFabric's 10/40/40/10 Gb/s path: W / 10G + one full packet's
        // store-and-forward on the three other hops, plus propagation
        let hops = [(G10, 200_000), (G40, 200_000), (G40, 200_000), (G10, 200_000)];
        let p = Packets::of(100_000, 1460, 40);
        let expect = serialization(p.wire(), G10) + 2 * serialization(1500, G40) + serialization(1500, G10) + 800_000;
        assert_eq!(path_fct(&hops, p), expect);
    }

    #[test]
    fn a_partial_last_packet_catches_up_on_faster_links_after_the_bottleneck() {
        // 10 Gb/s then 40: the last packet (580 B on the wire) need not
        // wait behind a full one at the faster hop
        let hops = [(G10, 0), (G40, 0)];
        let p = Packets::of(2000, 1460, 40);
        assert_eq!(path_fct(&hops, p), serialization(2080, G10) + serialization(580, G40));
        assert!(path_fct(&hops, p) < serialization(2040, G10) + serialization(1500, G40));
    }

    #[test]
    fn the_multipath_bound_is_below_the_one_path_fct_and_counts_parallel_links() {
        let p = Packets::of(1_000_000, 1460, 40);
        // a host at 10 Gb/s over four 1 Gb/s spines: one path takes W / 1G,
        // spraying over the four no less than W / 4G
        let one = [(G10, 0), (1_000_000_000, 0), (1_000_000_000, 0), (G10, 0)];
        let stages = [
            Stage { rate_bps: G10, capacity_bps: G10, delay: 0 },
            Stage { rate_bps: 1_000_000_000, capacity_bps: 4_000_000_000, delay: 0 },
            Stage { rate_bps: 1_000_000_000, capacity_bps: 4_000_000_000, delay: 0 },
            Stage { rate_bps: G10, capacity_bps: G10, delay: 0 },
        ];
        let bound = multipath_bound(&stages, p);
        assert!(bound < path_fct(&one, p));
        assert!(bound >= serialization(p.wire(), 4_000_000_000));
        assert!(bound < serialization(p.wire(), 4_000_000_000) + 4 * serialization(p.last, 1_000_000_000));
        // one path of one link each: the bound is no more than the exact FCT
        let single: Vec<Stage> =
            one.iter().map(|&(r, d)| Stage { rate_bps: r, capacity_bps: r, delay: d }).collect();
        for size in [1, 1460, 2003, 50_000] {
            let p = Packets::of(size, 1460, 40);
            assert!(multipath_bound(&single, p) <= path_fct(&one, p));
        }
    }

    #[test]
    fn packets_of_a_flow() {
        assert_eq!(Packets::of(1, 1460, 40), Packets { n: 1, first: 41, full: 1500, last: 41 });
        assert_eq!(Packets::of(1460, 1460, 40).wire(), 1500);
        let p = Packets::of(2003, 1460, 40);
        assert_eq!((p.n, p.first, p.last, p.wire()), (2, 1500, 583, 2083));
        assert_eq!(Packets::of(14_600, 1460, 40).wire(), 15_000);
    }
}
