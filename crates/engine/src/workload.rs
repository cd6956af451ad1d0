//! Flow arrivals: sizes from a piecewise-linear CDF, Poisson arrival times,
//! endpoints from a traffic matrix, or a trace; or closed-loop requests
//! striped over several senders (incast). Flows are produced lazily, one at
//! a time, as simulated time reaches them. Each purpose has its own seeded
//! RNG stream (arrivals, sizes, endpoints, deadlines), so changing how one
//! is drawn never perturbs the others.

use crate::config::{DeadlineConfig, MatrixConfig, WorkloadConfig};
use crate::routing::splitmix;
use crate::time::{Time, PS_PER_S};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// One flow to start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    pub id: u32,
    pub start: Time,
    pub src: u32,
    pub dst: u32,
    pub size: u64,
    /// A deadline's draw, relative to the start; the simulation makes it
    /// absolute (it knows the flow's idle-network FCT, the lower bound).
    pub deadline_draw: Option<Time>,
}

/// A flow-size distribution with linear interpolation between the rows of
/// a `size cdf` table, as ns-2's `RandomVariable/Empirical` and the HPCC
/// traffic generator sample it. A first row with cdf > 0, or two rows with
/// the same size, are point masses.
#[derive(Clone, Debug)]
pub struct Cdf {
    sizes: Vec<f64>,
    probs: Vec<f64>,
    quantum: u64,
}

impl Cdf {
    pub fn new(rows: &[(f64, f64)], quantum: u64) -> Result<Cdf, String> {
        if rows.is_empty() {
            return Err("empty CDF".into());
        }
        for w in rows.windows(2) {
            if w[1].0 < w[0].0 || w[1].1 < w[0].1 {
                return Err("CDF must be non-decreasing in size and probability".into());
            }
        }
        if (rows[rows.len() - 1].1 - 1.0).abs() > 1e-9 {
            return Err("CDF must end at probability 1".into());
        }
        Ok(Cdf {
            sizes: rows.iter().map(|r| r.0).collect(),
            probs: rows.iter().map(|r| r.1).collect(),
            quantum: quantum.max(1),
        })
    }

    /// Inverse-CDF sample for `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> u64 {
        // first row with cdf >= u
        let i = self.probs.partition_point(|&p| p < u);
        let x = if i == 0 {
            self.sizes[0]
        } else if i >= self.probs.len() {
            self.sizes[self.sizes.len() - 1]
        } else {
            let (p0, p1) = (self.probs[i - 1], self.probs[i]);
            let (s0, s1) = (self.sizes[i - 1], self.sizes[i]);
            if p1 > p0 {
                s0 + (u - p0) / (p1 - p0) * (s1 - s0)
            } else {
                s1
            }
        };
        let q = self.quantum as f64;
        ((x / q).ceil() as u64 * self.quantum).max(1)
    }
}

enum Source {
    Generated {
        cdf: Cdf,
        mean_gap_ps: f64,
        matrix: MatrixConfig,
        /// `Heterogeneous`: the reverse direction's sizes and the forward share.
        reverse: Option<(Cdf, f64)>,
        remaining: u64,
        clock_ps: f64,
        arrivals: Xoshiro256PlusPlus,
        sizes: Xoshiro256PlusPlus,
        endpoints: Xoshiro256PlusPlus,
        deadlines: Option<(DeadlineConfig, Xoshiro256PlusPlus)>,
        lognormal_sigma: Option<f64>,
    },
    Trace { flows: Vec<(u64, u32, u32, u64)>, next: usize },
    Incast {
        senders: Vec<u32>,
        dst: u32,
        bytes_each: u64,
        requests_left: u64,
        /// The next request's start, once known; the sender to emit next.
        start: Option<Time>,
        next_sender: usize,
        /// Flows of the current request not finished yet.
        outstanding: usize,
    },
}

pub struct FlowGen {
    source: Source,
    hosts: u32,
    next_id: u32,
    pub total: u64,
}

fn stream(seed: u64, purpose: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(stream_seed(seed, purpose))
}

/// A flow's absolute deadline (0: none): its draw after the start, but no
/// sooner than `min_factor` times its FCT on the idle network, `ideal`
/// (pFabric §5.4.2's workload).
pub fn absolute_deadline(cfg: &WorkloadConfig, spec: &FlowSpec, ideal: Time) -> Time {
    let Some(draw) = spec.deadline_draw else { return 0 };
    let factor = match cfg {
        WorkloadConfig::Generated { deadlines: Some(d), .. } => d.min_factor,
        _ => 1.0,
    };
    spec.start + draw.max((ideal as f64 * factor).ceil() as Time)
}

/// The seed of the run's random stream for `purpose` (streams for
/// different purposes are independent, so adding one changes no other).
pub fn stream_seed(seed: u64, purpose: u64) -> u64 {
    splitmix(seed ^ splitmix(purpose))
}

/// The traffic class of flow `flow` when flows are split among `classes`
/// strict-priority classes (BFC App. A.3, Fig. 20: "traffic split equally
/// among four priority traffic classes"): a hash of the flow's id, so each
/// flow is in one class at every hop and every class gets an equal share
/// of the flows, and of the load, in expectation. Class 0 is served first.
#[inline]
pub fn traffic_class(flow: u32, classes: u8) -> u8 {
    if classes <= 1 {
        return 0;
    }
    (splitmix(flow as u64) % classes as u64) as u8
}

impl FlowGen {
    pub fn new(cfg: &WorkloadConfig, hosts: u32, seed: u64) -> Result<FlowGen, String> {
        let (source, total) = match cfg {
            WorkloadConfig::Generated {
                cdf,
                size_quantum_bytes,
                arrival_rate_per_s,
                matrix,
                flows,
                start_ps,
                deadlines,
                lognormal_sigma,
            } => {
                if !(*arrival_rate_per_s > 0.0 && arrival_rate_per_s.is_finite()) {
                    return Err(format!("arrival rate must be positive, got {arrival_rate_per_s}"));
                }
                if lognormal_sigma.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
                    return Err(format!("lognormal sigma must be positive, got {lognormal_sigma:?}"));
                }
                if let MatrixConfig::ManyToOne { dst } = matrix {
                    if *dst >= hosts {
                        return Err(format!("many-to-one destination {dst} is not a host (0..{hosts})"));
                    }
                }
                let reverse = match matrix {
                    MatrixConfig::Heterogeneous { reverse_cdf, forward_share } => {
                        if !(0.0..=1.0).contains(forward_share) || hosts < 2 {
                            return Err(format!("heterogeneous: forward share {forward_share} not in [0, 1]"));
                        }
                        Some((Cdf::new(reverse_cdf, *size_quantum_bytes)?, *forward_share))
                    }
                    MatrixConfig::RackLocal { rack_hosts, local_share } => {
                        if *rack_hosts < 2 || *rack_hosts >= hosts || !(0.0..=1.0).contains(local_share) {
                            return Err(format!(
                                "rack_local: racks of {rack_hosts} hosts among {hosts} (need 2 <= rack < hosts) and \
                                 local share {local_share} (need [0, 1])"
                            ));
                        }
                        None
                    }
                    _ => None,
                };
                let src = Source::Generated {
                    reverse,
                    cdf: Cdf::new(cdf, *size_quantum_bytes)?,
                    mean_gap_ps: PS_PER_S as f64 / arrival_rate_per_s,
                    matrix: matrix.clone(),
                    remaining: *flows,
                    clock_ps: *start_ps as f64,
                    arrivals: stream(seed, 1),
                    sizes: stream(seed, 2),
                    endpoints: stream(seed, 3),
                    deadlines: deadlines.map(|d| (d, stream(seed, 4))),
                    lognormal_sigma: *lognormal_sigma,
                };
                (src, *flows)
            }
            WorkloadConfig::Incast { senders, dst, bytes_each, requests, start_ps } => {
                if senders.is_empty() || *bytes_each == 0 {
                    return Err("an incast needs senders and bytes per sender".into());
                }
                if *dst >= hosts || senders.iter().any(|&s| s >= hosts || s == *dst) {
                    return Err(format!("incast hosts out of range or sending to themselves: {senders:?} -> {dst}"));
                }
                let src = Source::Incast {
                    senders: senders.clone(),
                    dst: *dst,
                    bytes_each: *bytes_each,
                    requests_left: *requests,
                    start: Some(*start_ps),
                    next_sender: 0,
                    outstanding: 0,
                };
                (src, requests * senders.len() as u64)
            }
            WorkloadConfig::Trace { flows } => {
                for (i, f) in flows.iter().enumerate() {
                    if f.1 >= hosts || f.2 >= hosts || f.1 == f.2 || f.3 == 0 {
                        return Err(format!("trace flow {i} is invalid: {f:?}"));
                    }
                    if i > 0 && f.0 < flows[i - 1].0 {
                        return Err(format!("trace flow {i} starts before the previous one"));
                    }
                }
                (Source::Trace { flows: flows.clone(), next: 0 }, flows.len() as u64)
            }
        };
        Ok(FlowGen { source, hosts, next_id: 0, total })
    }

    /// A flow of this workload finished at `now` (closed-loop workloads
    /// start their next request when the last one is done).
    pub fn flow_done(&mut self, now: Time) {
        if let Source::Incast { outstanding, requests_left, start, .. } = &mut self.source {
            *outstanding -= 1;
            if *outstanding == 0 && *requests_left > 0 {
                *start = Some(now);
            }
        }
    }

    /// The next flow, or `None` when the workload is exhausted (or, closed
    /// loop, waits for flows to finish: then ask again after `flow_done`).
    pub fn next_flow(&mut self) -> Option<FlowSpec> {
        let hosts = self.hosts;
        let mut deadline_draw = None;
        let (start, src, dst, size) = match &mut self.source {
            Source::Generated {
                cdf,
                mean_gap_ps,
                matrix,
                reverse,
                remaining,
                clock_ps,
                arrivals,
                sizes,
                endpoints,
                deadlines,
                lognormal_sigma,
            } => {
                if *remaining == 0 {
                    return None;
                }
                *remaining -= 1;
                let u: f64 = arrivals.gen();
                *clock_ps += match lognormal_sigma {
                    // Exponential inter-arrival gap: a Poisson process.
                    None => -(1.0 - u).ln() * *mean_gap_ps,
                    // exp(N(mu, sigma^2)) with mu = ln(mean) - sigma^2 / 2,
                    // so the mean gap (and the load) is the same; the
                    // normal draw by Box-Muller from two uniforms
                    Some(s) => {
                        let s = *s;
                        let v: f64 = arrivals.gen();
                        let z = (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                        (mean_gap_ps.ln() - s * s / 2.0 + s * z).exp()
                    }
                };
                let u: f64 = sizes.gen();
                let size = cdf.quantile(u);
                let pair = |rng: &mut Xoshiro256PlusPlus| {
                    let s = rng.gen_range(0..hosts);
                    let d = rng.gen_range(0..hosts - 1);
                    (s, if d >= s { d + 1 } else { d })
                };
                let (src, dst, size) = match (matrix, reverse) {
                    (MatrixConfig::ManyToOne { dst }, _) => {
                        let s = endpoints.gen_range(0..hosts - 1);
                        (if s >= *dst { s + 1 } else { s }, *dst, size)
                    }
                    (MatrixConfig::Heterogeneous { .. }, Some((back, share))) => {
                        // a direction, then a pair of it uniformly: a
                        // uniform ordered pair, swapped if it goes the
                        // other way (a bijection of the two triangles)
                        let forward = endpoints.gen::<f64>() < *share;
                        let (s, d) = pair(endpoints);
                        let (s, d) = if (s < d) == forward { (s, d) } else { (d, s) };
                        // a reverse flow's size from its own CDF, same draw
                        (s, d, if forward { size } else { back.quantile(u) })
                    }
                    (&mut MatrixConfig::RackLocal { rack_hosts, local_share }, _) => {
                        let s = endpoints.gen_range(0..hosts);
                        let lo = s / rack_hosts * rack_hosts;
                        let n = rack_hosts.min(hosts - lo);
                        let local = endpoints.gen::<f64>() < local_share;
                        let d = if (local && n > 1) || n == hosts {
                            let k = endpoints.gen_range(0..n - 1);
                            lo + if k >= s - lo { k + 1 } else { k }
                        } else {
                            let k = endpoints.gen_range(0..hosts - n);
                            if k >= lo { k + n } else { k }
                        };
                        (s, d, size)
                    }
                    _ => {
                        let (s, d) = pair(endpoints);
                        (s, d, size)
                    }
                };
                if let Some((d, rng)) = deadlines {
                    // drawn for every flow, so the stream does not depend on sizes
                    let u: f64 = rng.gen();
                    let draw = (-(1.0 - u).ln() * d.mean_ps).round() as Time;
                    deadline_draw = (size < d.below_bytes).then_some(draw);
                }
                (clock_ps.round() as Time, src, dst, size)
            }
            Source::Trace { flows, next } => {
                let f = *flows.get(*next)?;
                *next += 1;
                f
            }
            Source::Incast { senders, dst, bytes_each, requests_left, start, next_sender, outstanding } => {
                let t = (*start)?;
                let src = senders[*next_sender];
                *next_sender += 1;
                *outstanding += 1;
                if *next_sender == senders.len() {
                    *next_sender = 0;
                    *requests_left -= 1;
                    *start = None;
                }
                (t, src, *dst, *bytes_each)
            }
        };
        self.next_id += 1;
        Some(FlowSpec { id: self.next_id - 1, start, src, dst, size, deadline_draw })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generated workload for the tests: 1 us between arrivals on
    /// average, sizes in whole bytes, from time 0.
    fn generated(cdf: Vec<(f64, f64)>, matrix: MatrixConfig, flows: u64, deadlines: Option<DeadlineConfig>,
                 lognormal_sigma: Option<f64>) -> WorkloadConfig {
        WorkloadConfig::Generated {
            cdf, size_quantum_bytes: 1, arrival_rate_per_s: 1e6, matrix, flows, start_ps: 0, deadlines, lognormal_sigma,
        }
    }

    #[test]
    fn quantile_interpolates_and_honours_point_masses() {
        let c = Cdf::new(&[(100.0, 0.0), (100.0, 0.5), (300.0, 1.0)], 1).unwrap();
        assert_eq!(c.quantile(0.0), 100);
        assert_eq!(c.quantile(0.25), 100); // inside the point mass
        assert_eq!(c.quantile(0.75), 200);
        assert_eq!(c.quantile(0.999_999), 300);
        let q = Cdf::new(&[(0.0, 0.0), (3000.0, 1.0)], 1460).unwrap();
        assert_eq!(q.quantile(0.5), 1460 * 2); // 1500 B rounds up to 2 packets
    }

    #[test]
    fn cdf_rejects_bad_tables() {
        assert!(Cdf::new(&[(1.0, 0.5), (0.5, 1.0)], 1).is_err());
        assert!(Cdf::new(&[(1.0, 0.5), (2.0, 0.9)], 1).is_err());
    }

    #[test]
    fn heterogeneous_sizes_follow_the_direction() {
        // forward (i < j): 1,000 B; reverse: 5,000 B; a quarter forward
        let matrix = MatrixConfig::Heterogeneous { reverse_cdf: vec![(5000.0, 1.0)], forward_share: 0.25 };
        let cfg = generated(vec![(1000.0, 1.0)], matrix, 40_000, None, None);
        let mut g = FlowGen::new(&cfg, 5, 3).unwrap();
        let (mut forward, mut counts) = (0u32, [[0u32; 5]; 5]);
        while let Some(f) = g.next_flow() {
            assert_ne!(f.src, f.dst);
            assert_eq!(f.size, if f.src < f.dst { 1000 } else { 5000 });
            forward += (f.src < f.dst) as u32;
            counts[f.src as usize][f.dst as usize] += 1;
        }
        assert!((forward as f64 / 40_000.0 - 0.25).abs() < 0.01);
        // each direction's 10 pairs about equally often
        for s in 0..5 {
            for d in 0..5 {
                let want = if s < d { 1000.0 } else { 3000.0 };
                if s != d {
                    assert!((counts[s][d] as f64 - want).abs() < 0.15 * want, "{s}->{d}: {}", counts[s][d]);
                }
            }
        }
    }

    #[test]
    fn all_to_all_never_self_and_covers_all() {
        let cfg = generated(vec![(1.0, 1.0)], MatrixConfig::AllToAll, 20_000, None, None);
        let mut g = FlowGen::new(&cfg, 4, 7).unwrap();
        let mut counts = [[0u32; 4]; 4];
        let mut last = 0;
        while let Some(f) = g.next_flow() {
            assert_ne!(f.src, f.dst);
            assert!(f.start >= last);
            last = f.start;
            counts[f.src as usize][f.dst as usize] += 1;
        }
        for (s, row) in counts.iter().enumerate() {
            for (d, &n) in row.iter().enumerate() {
                if s != d {
                    // 20000 / 12 pairs = 1667 each
                    assert!((1500..1850).contains(&n), "pair {s}->{d}: {n}");
                }
            }
        }
        // mean gap 1 us: 20000 flows take about 20 ms
        assert!((last as f64 / 2e10 - 1.0).abs() < 0.03, "{last}");
    }

    #[test]
    fn rack_local_flows_stay_in_their_rack_at_the_share_asked() {
        // 4 racks of 8 hosts: a quarter of the flows local; every pair
        // distinct; local destinations uniform over the rack's other hosts,
        // remote ones over the other racks' hosts
        let matrix = MatrixConfig::RackLocal { rack_hosts: 8, local_share: 0.25 };
        let cfg = generated(vec![(1000.0, 1.0)], matrix, 40_000, None, None);
        let mut w = FlowGen::new(&cfg, 32, 7).unwrap();
        let (mut local, mut n) = (0u32, 0u32);
        let mut dsts = [0u32; 32];
        while let Some(f) = w.next_flow() {
            assert_ne!(f.src, f.dst);
            local += (f.src / 8 == f.dst / 8) as u32;
            n += 1;
            if f.src == 3 {
                dsts[f.dst as usize] += 1;
            }
        }
        assert!((local as f64 / n as f64 - 0.25).abs() < 0.01, "{local} of {n}");
        // host 3's flows: its 7 rack-mates share 25%, the 24 others 75%
        let total: u32 = dsts.iter().sum();
        let mate = dsts[0..8].iter().sum::<u32>() as f64 / total as f64;
        assert!((mate - 0.25).abs() < 0.04 && dsts[3] == 0, "{mate}");
        let (lo, hi) = (dsts[8..].iter().min().unwrap(), dsts[8..].iter().max().unwrap());
        assert!(*lo > 0 && (*hi as f64) < 2.5 * *lo as f64, "{dsts:?}");
        // racks that leave no other rack, or a share outside [0, 1], are refused
        for (rack, share) in [(32, 0.5), (1, 0.5), (0, 0.5), (8, 1.5)] {
            let matrix = MatrixConfig::RackLocal { rack_hosts: rack, local_share: share };
            assert!(FlowGen::new(&generated(vec![(1000.0, 1.0)], matrix, 10, None, None), 32, 7).is_err());
        }
    }

    #[test]
    fn incast_requests_wait_for_the_last_flow() {
        let cfg = WorkloadConfig::Incast { senders: vec![1, 2, 3], dst: 0, bytes_each: 1000, requests: 2, start_ps: 5 };
        let mut g = FlowGen::new(&cfg, 4, 1).unwrap();
        assert_eq!(g.total, 6);
        let first: Vec<_> = std::iter::from_fn(|| g.next_flow()).collect();
        assert_eq!(first.iter().map(|f| (f.start, f.src, f.dst)).collect::<Vec<_>>(), vec![(5, 1, 0), (5, 2, 0), (5, 3, 0)]);
        g.flow_done(50);
        g.flow_done(60);
        assert!(g.next_flow().is_none(), "one flow of the request is still running");
        g.flow_done(70);
        let second: Vec<_> = std::iter::from_fn(|| g.next_flow()).collect();
        assert_eq!(second.iter().map(|f| (f.id, f.start)).collect::<Vec<_>>(), vec![(3, 70), (4, 70), (5, 70)]);
        for t in [80, 90, 100] {
            g.flow_done(t);
        }
        assert!(g.next_flow().is_none());
    }

    #[test]
    fn lognormal_gaps_keep_the_mean_and_spread_out() {
        // BFC §6.2.1: lognormal inter-arrivals with sigma = 2 at the same
        // mean gap as Poisson; their log has standard deviation sigma
        let cfg =
            |sigma| generated(vec![(1000.0, 0.0), (1000.0, 1.0)], MatrixConfig::AllToAll, 200_000, None, sigma);
        let gaps = |c| {
            let mut g = FlowGen::new(&c, 8, 7).unwrap();
            let t: Vec<f64> = std::iter::from_fn(|| g.next_flow()).map(|f| f.start as f64).collect();
            t.windows(2).map(|w| w[1] - w[0]).filter(|&x| x > 0.0).collect::<Vec<f64>>()
        };
        let (exp, logn) = (gaps(cfg(None)), gaps(cfg(Some(2.0))));
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean(&exp) / 1e6 - 1.0).abs() < 0.01, "{}", mean(&exp));
        // a heavy tail: the sample mean converges slowly, within 10% here
        assert!((mean(&logn) / 1e6 - 1.0).abs() < 0.1, "{}", mean(&logn));
        let logs: Vec<f64> = logn.iter().map(|x| x.ln()).collect();
        let m = mean(&logs);
        let sd = (logs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / logs.len() as f64).sqrt();
        assert!((sd - 2.0).abs() < 0.02 && (m - (1e6f64.ln() - 2.0)).abs() < 0.02, "{m} {sd}");
        assert!(FlowGen::new(&cfg(Some(-1.0)), 8, 7).is_err());
    }

    #[test]
    fn deadlines_go_to_small_flows_from_their_own_stream() {
        let sizes = vec![(1000.0, 0.0), (1000.0, 0.5), (1_000_000.0, 1.0)];
        let cfg = |deadlines| generated(sizes.clone(), MatrixConfig::AllToAll, 20_000, deadlines, None);
        let d = DeadlineConfig { mean_ps: 1e6, below_bytes: 200_000, min_factor: 1.25 };
        let (mut a, mut b) = (FlowGen::new(&cfg(Some(d)), 8, 3).unwrap(), FlowGen::new(&cfg(None), 8, 3).unwrap());
        let mut draws = vec![];
        while let (Some(x), Some(y)) = (a.next_flow(), b.next_flow()) {
            // the flows are the same with or without deadlines
            assert_eq!((x.start, x.src, x.dst, x.size), (y.start, y.src, y.dst, y.size));
            assert_eq!(x.deadline_draw.is_some(), x.size < 200_000);
            draws.extend(x.deadline_draw);
        }
        // exponential with mean 1 us
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!((mean / 1e6 - 1.0).abs() < 0.05, "{mean}");
    }

    #[test]
    fn traffic_classes_split_flows_evenly() {
        let mut n = [0u32; 4];
        for f in 0..100_000 {
            n[traffic_class(f, 4) as usize] += 1;
        }
        assert!(n.iter().all(|&k| k.abs_diff(25_000) < 500), "{n:?}");
        assert!((0..1000).all(|f| traffic_class(f, 1) == 0));
    }
}
