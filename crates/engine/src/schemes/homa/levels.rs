//! Homa's priority levels: how many go to unscheduled packets and the
//! remaining sizes that separate them, from the message sizes the run is
//! set up for, and what the configuration leaves to the network (RTT
//! bytes, the overcommitment), resolved once before the run.

use crate::config::{Config, Discipline, HomaConfig, QueueConfig};
use crate::topology::Network;
use serde::Serialize;
use crate::time::{Time, PS_PER_S};
use crate::workload::Cdf;

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


impl HomaConfig {
    /// The unscheduled level of a packet with `remaining` bytes of its
    /// message left (itself included).
    #[inline]
    pub fn level_of(&self, remaining: u64) -> u8 {
        self.cutoffs.partition_point(|&c| c < remaining) as u8
    }
}

/// Fill in what Homa's configuration leaves to the network: RTT bytes (the
/// BDP of the longest base RTT, `rtt_ps`, at the NICs' rate `host_bps`),
/// the unscheduled levels for its size distribution, and the
/// overcommitment.
pub fn resolve(h: &mut HomaConfig, host_bps: u64, rtt_ps: Time) -> Result<(), String> {
    if h.levels < 2 {
        return Err(format!("homa needs at least 2 priority levels, got {}", h.levels));
    }
    let rtt = *h.rtt_bytes.get_or_insert((rtt_ps as u128 * host_bps as u128 / 8 / PS_PER_S as u128) as u64);
    let cdf = Cdf::new(&h.size_cdf, h.size_quantum_bytes).map_err(|e| format!("homa size_cdf: {e}"))?;
    if h.unscheduled_levels >= h.levels {
        return Err(format!("homa unscheduled_levels {} leaves none of its {} levels scheduled", h.unscheduled_levels, h.levels));
    }
    let given = (h.unscheduled_levels > 0).then_some(h.unscheduled_levels);
    let l = levels(&cdf, rtt.max(1), h.levels, given);
    (h.unscheduled_levels, h.cutoffs) = (l.unscheduled, l.cutoffs);
    let scheduled = h.levels - h.unscheduled_levels;
    if h.overcommit == 0 {
        h.overcommit = scheduled;
    } else if h.overcommit > scheduled {
        return Err(format!("homa overcommit {} exceeds its {scheduled} scheduled levels", h.overcommit));
    }
    Ok(())
}

/// Homa's priority levels for the run, in the summary: RTT bytes, how
/// many levels are unscheduled and scheduled, the overcommitment, and the
/// remaining sizes that separate the unscheduled levels.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub rtt_bytes: u64,
    pub unscheduled_levels: u8,
    pub scheduled_levels: u8,
    pub overcommit: u8,
    pub cutoffs: Vec<u64>,
}

/// The levels as resolved for the run.
pub fn report(h: &HomaConfig) -> Report {
    Report {
        rtt_bytes: h.rtt_bytes.unwrap_or(0),
        unscheduled_levels: h.unscheduled_levels,
        scheduled_levels: h.levels - h.unscheduled_levels,
        overcommit: h.overcommit,
        cutoffs: h.cutoffs.clone(),
    }
}

/// Homa has no timers (its simulator's buffers are unbounded): a lost
/// grant or scheduled packet would hold its message, and its receiver's
/// grants, forever. So every switch port must be a strict-priority port
/// without a limit, and every NIC unlimited (`ports`: each link's port).
pub fn check_lossless(cfg: &Config, net: &Network, ports: &[&QueueConfig]) -> Result<(), String> {
    let limited = |q: &QueueConfig| q.limit_bytes.is_some_and(|l| l < u64::MAX / 2);
    let bad = net.links.iter().zip(ports).any(|(l, q)| {
        if net.is_host(l.node) {
            limited(q)
        } else {
            !matches!(q.discipline, Discipline::Prio { .. }) || limited(q) || cfg.shared_buffer.is_some()
        }
    });
    if bad {
        return Err("homa needs unbounded buffers (it has no timeouts): prio switch ports and host NICs without a limit, \
                    no shared buffer"
            .into());
    }
    Ok(())
}
