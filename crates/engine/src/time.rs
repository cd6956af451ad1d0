//! Simulated time: an integer count of picoseconds (DESIGN.md, "Engine
//! principles"). No floating-point time ever enters the event loop.

/// Picoseconds since the start of the simulation.
pub type Time = u64;

pub const PS_PER_NS: Time = 1_000;
pub const PS_PER_US: Time = 1_000_000;
pub const PS_PER_MS: Time = 1_000_000_000;
pub const PS_PER_S: Time = 1_000_000_000_000;

/// Time to serialize `bytes` onto a link of `rate_bps` bits per second,
/// rounded up to a whole picosecond (so that back-to-back packets never
/// exceed the line rate).
#[inline]
pub fn serialization(bytes: u64, rate_bps: u64) -> Time {
    // bytes * 8e12 fits in u64 up to ~2.3 MB; whole flows need u128.
    if bytes <= u64::MAX / (8 * PS_PER_S) {
        (bytes * 8 * PS_PER_S).div_ceil(rate_bps)
    } else {
        (bytes as u128 * 8 * PS_PER_S as u128).div_ceil(rate_bps as u128) as Time
    }
}

/// Seconds as a float, for output only.
#[inline]
pub fn to_secs(t: Time) -> f64 {
    t as f64 / PS_PER_S as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_a_full_packet() {
        // 1500 B at 10 Gb/s is 1.2 us; at 40 Gb/s 0.3 us; at 100 Gb/s 120 ns.
        assert_eq!(serialization(1500, 10_000_000_000), 1_200_000);
        assert_eq!(serialization(1500, 40_000_000_000), 300_000);
        assert_eq!(serialization(1500, 100_000_000_000), 120_000);
    }

    #[test]
    fn serialization_of_a_whole_large_flow() {
        // 1 GB at 10 Gb/s = 0.8 s, beyond the u64 fast path.
        assert_eq!(serialization(1_000_000_000, 10_000_000_000), 800_000_000_000);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 b/s = 8/3 s, rounded up to the next picosecond.
        assert_eq!(serialization(1, 3), 2_666_666_666_667);
    }
}
