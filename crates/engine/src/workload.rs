//! Flow arrivals: sizes from a piecewise-linear CDF, Poisson arrival times,
//! endpoints from a traffic matrix, or a trace. Flows are produced lazily,
//! one at a time, as simulated time reaches them. Each purpose has its own
//! seeded RNG stream (arrivals, sizes, endpoints), so changing how one is
//! drawn never perturbs the others.

use crate::config::{MatrixConfig, WorkloadConfig};
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
        remaining: u64,
        clock_ps: f64,
        arrivals: Xoshiro256PlusPlus,
        sizes: Xoshiro256PlusPlus,
        endpoints: Xoshiro256PlusPlus,
    },
    Trace { flows: Vec<(u64, u32, u32, u64)>, next: usize },
}

pub struct FlowGen {
    source: Source,
    hosts: u32,
    next_id: u32,
    pub total: u64,
}

fn stream(seed: u64, purpose: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(splitmix(seed ^ splitmix(purpose)))
}

impl FlowGen {
    pub fn new(cfg: &WorkloadConfig, hosts: u32, seed: u64) -> Result<FlowGen, String> {
        let (source, total) = match cfg {
            WorkloadConfig::Generated { cdf, size_quantum_bytes, arrival_rate_per_s, matrix, flows, start_ps } => {
                if !(*arrival_rate_per_s > 0.0 && arrival_rate_per_s.is_finite()) {
                    return Err(format!("arrival rate must be positive, got {arrival_rate_per_s}"));
                }
                if let MatrixConfig::ManyToOne { dst } = matrix {
                    if *dst >= hosts {
                        return Err(format!("many-to-one destination {dst} is not a host (0..{hosts})"));
                    }
                }
                let src = Source::Generated {
                    cdf: Cdf::new(cdf, *size_quantum_bytes)?,
                    mean_gap_ps: PS_PER_S as f64 / arrival_rate_per_s,
                    matrix: matrix.clone(),
                    remaining: *flows,
                    clock_ps: *start_ps as f64,
                    arrivals: stream(seed, 1),
                    sizes: stream(seed, 2),
                    endpoints: stream(seed, 3),
                };
                (src, *flows)
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

    /// The next flow, or `None` when the workload is exhausted.
    pub fn next_flow(&mut self) -> Option<FlowSpec> {
        let hosts = self.hosts;
        let (start, src, dst, size) = match &mut self.source {
            Source::Generated { cdf, mean_gap_ps, matrix, remaining, clock_ps, arrivals, sizes, endpoints } => {
                if *remaining == 0 {
                    return None;
                }
                *remaining -= 1;
                // Exponential inter-arrival gap: a Poisson process.
                let u: f64 = arrivals.gen();
                *clock_ps += -(1.0 - u).ln() * *mean_gap_ps;
                let size = cdf.quantile(sizes.gen());
                let (src, dst) = match *matrix {
                    MatrixConfig::AllToAll => {
                        let s = endpoints.gen_range(0..hosts);
                        let d = endpoints.gen_range(0..hosts - 1);
                        (s, if d >= s { d + 1 } else { d })
                    }
                    MatrixConfig::ManyToOne { dst } => {
                        let s = endpoints.gen_range(0..hosts - 1);
                        (if s >= dst { s + 1 } else { s }, dst)
                    }
                };
                (clock_ps.round() as Time, src, dst, size)
            }
            Source::Trace { flows, next } => {
                let f = *flows.get(*next)?;
                *next += 1;
                f
            }
        };
        self.next_id += 1;
        Some(FlowSpec { id: self.next_id - 1, start, src, dst, size })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn all_to_all_never_self_and_covers_all() {
        let cfg = WorkloadConfig::Generated {
            cdf: vec![(1.0, 1.0)],
            size_quantum_bytes: 1,
            arrival_rate_per_s: 1e6,
            matrix: MatrixConfig::AllToAll,
            flows: 20_000,
            start_ps: 0,
        };
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
}
