//! One slot of the calendar's timing wheel and how it is sorted.
//!
//! A slot holds the 32-bit keys of the port events due in one short window
//! (1-16 ns, by the fabric's speed; see `event`), in the order they were scheduled. When the calendar
//! reaches the slot it sorts them once and serves them in place. The sort
//! is on the critical path of the event loop: the first event of the slot
//! waits for it. Entries arrive in random order, so a sort that branches on
//! the data mispredicts on almost every entry (an insertion sort once took
//! most of the calendar's time). Every sort here is a fixed network of
//! min/max operations, with no data-dependent branch:
//!
//! - up to 4 entries (the usual case): five compare-exchanges in registers;
//! - 5 to 8: a bitonic network of 8 lanes in one 256-bit register (AVX2);
//! - 9 to 16: the same network over 16 lanes in one 512-bit register
//!   (AVX-512F);
//! - without those instructions: each entry placed by its rank (the number
//!   of smaller entries).
//!
//! The wide networks sort a whole slot whatever its count, which needs the
//! unused entries to hold `EMPTY` (they sort last). Which instructions the
//! CPU has is checked once, when a calendar is built; results are the same
//! either way (tested below).

/// Entries a slot holds; more go to the calendar's heap. A slot is a few
/// packet gaps of the whole fabric wide (`event::slot_bits_for`) and each
/// busy link has one event pending, so more than a dozen are rare.
pub const SLOT_CAP: usize = 16;
const _: () = assert!(SLOT_CAP == 16, "the wide networks sort 16 lanes");

/// The storage of one wheel slot: one cache line. Entries past the slot's
/// count hold `u32::MAX`, the largest key (as in `EMPTY`).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Slot(pub [u32; SLOT_CAP]);

pub const EMPTY: Slot = Slot([u32::MAX; SLOT_CAP]);

/// How this CPU sorts slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sorter {
    avx2: bool,
    avx512: bool,
}

impl Sorter {
    /// The fastest sorts this CPU has.
    pub fn detect() -> Sorter {
        #[cfg(target_arch = "x86_64")]
        {
            Sorter {
                avx2: std::is_x86_feature_detected!("avx2"),
                avx512: std::is_x86_feature_detected!("avx512f"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Sorter::scalar()
    }

    /// Sorts without SIMD instructions (any CPU).
    pub fn scalar() -> Sorter {
        Sorter { avx2: false, avx512: false }
    }

    /// The instructions used, for reports: "AVX-512 + AVX2", "AVX2",
    /// "AVX-512" or "scalar".
    pub fn name(self) -> &'static str {
        match (self.avx512, self.avx2) {
            (true, true) => "AVX-512 + AVX2",
            (false, true) => "AVX2",
            (true, false) => "AVX-512",
            (false, false) => "scalar",
        }
    }

    /// Sort the first `n` keys of `slot` (distinct; `EMPTY` from `n` on).
    #[inline]
    pub fn sort(self, slot: &mut Slot, n: usize) {
        debug_assert!(n <= SLOT_CAP && slot.0[n..].iter().all(|&k| k == u32::MAX));
        if n <= 4 {
            network4(slot);
        } else {
            self.sort_wide(slot, n);
        }
        debug_assert!(slot.0[..n].windows(2).all(|w| w[0] < w[1]), "calendar keys must be distinct");
    }

    /// More than four entries: rare enough to keep out of line, where its
    /// code does not crowd the event loop.
    #[inline(never)]
    fn sort_wide(self, slot: &mut Slot, n: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: each is called only if the CPU has its instructions.
            if n <= 8 && self.avx2 {
                return unsafe { wide::bitonic8(slot) };
            }
            if self.avx512 {
                return unsafe { wide::bitonic16(slot) };
            }
        }
        rank_sort(&mut slot.0[..n]);
    }
}

/// Sort the first four entries with a five-comparator network.
#[inline(always)]
fn network4(slot: &mut Slot) {
    let mut a = [slot.0[0], slot.0[1], slot.0[2], slot.0[3]];
    let cswap = |a: &mut [u32; 4], i: usize, j: usize| {
        let (x, y) = (a[i], a[j]);
        a[i] = x.min(y);
        a[j] = x.max(y);
    };
    cswap(&mut a, 0, 1);
    cswap(&mut a, 2, 3);
    cswap(&mut a, 0, 2);
    cswap(&mut a, 1, 3);
    cswap(&mut a, 1, 2);
    slot.0[..4].copy_from_slice(&a);
}

/// Place each entry by its rank.
fn rank_sort(v: &mut [u32]) {
    let mut out = [0u32; SLOT_CAP];
    for &x in v.iter() {
        let rank = v.iter().map(|&y| (y < x) as usize).sum::<usize>();
        out[rank & (SLOT_CAP - 1)] = x;
    }
    let n = v.len();
    v.copy_from_slice(&out[..n]);
}

/// Lanes that keep the larger key of their pair at step `(k, j)` of a
/// bitonic sort: lane `i` is paired with lane `i ^ j`, and its block of `k`
/// lanes is sorted ascending if `i & k == 0`, else descending.
#[allow(dead_code)] // used in const position by `wide` only
const fn max_lanes(k: usize, j: usize) -> u16 {
    let mut m = 0u16;
    let mut i = 0;
    while i < SLOT_CAP {
        if (i & j != 0) != (i & k != 0) {
            m |= 1 << i;
        }
        i += 1;
    }
    m
}

#[cfg(target_arch = "x86_64")]
mod wide {
    use super::{max_lanes, Slot};
    use std::arch::x86_64::*;

    /// The steps `(k, j)` of a bitonic sort of 8 lanes; 16 lanes take four
    /// more, `(16, 8)` to `(16, 1)`.
    macro_rules! steps_of_8 {
        ($step:ident) => {
            $step!(2, 1);
            $step!(4, 2);
            $step!(4, 1);
            $step!(8, 4);
            $step!(8, 2);
            $step!(8, 1);
        };
    }

    /// The first 8 entries (the rest are `EMPTY`): six steps of a bitonic
    /// network in one 256-bit register, each a shuffle to the partner lane,
    /// a min, a max and a blend.
    #[target_feature(enable = "avx2")]
    pub unsafe fn bitonic8(slot: &mut Slot) {
        let p = slot.0.as_mut_ptr() as *mut __m256i;
        // SAFETY: a `Slot` is 64 bytes, 64-byte aligned.
        let mut v = unsafe { _mm256_load_si256(p) };
        macro_rules! step {
            ($k:expr, $j:expr) => {{
                let w = match $j {
                    1 => _mm256_shuffle_epi32::<0xB1>(v),
                    2 => _mm256_shuffle_epi32::<0x4E>(v),
                    _ => _mm256_permute4x64_epi64::<0x4E>(v),
                };
                let (lo, hi) = (_mm256_min_epu32(v, w), _mm256_max_epu32(v, w));
                v = _mm256_blend_epi32::<{ max_lanes($k, $j) as i32 & 0xff }>(lo, hi);
            }};
        }
        steps_of_8!(step);
        unsafe { _mm256_store_si256(p, v) };
    }

    /// All 16 entries: ten steps over 16 lanes in one 512-bit register,
    /// each a shuffle, a max and a masked min.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn bitonic16(slot: &mut Slot) {
        let p = slot.0.as_mut_ptr() as *mut __m512i;
        // SAFETY: a `Slot` is 64 bytes, 64-byte aligned.
        let mut v = unsafe { _mm512_load_si512(p) };
        // Partner lanes i ^ j: j = 1, 2 within 128-bit blocks, j = 4, 8
        // across them.
        macro_rules! step {
            ($k:expr, $j:expr) => {{
                let w = match $j {
                    1 => _mm512_shuffle_epi32::<0xB1>(v),
                    2 => _mm512_shuffle_epi32::<0x4E>(v),
                    4 => _mm512_shuffle_i32x4::<0xB1>(v, v),
                    _ => _mm512_shuffle_i32x4::<0x4E>(v, v),
                };
                let hi = _mm512_max_epu32(v, w);
                v = _mm512_mask_min_epu32(hi, const { !max_lanes($k, $j) }, v, w);
            }};
        }
        steps_of_8!(step);
        step!(16, 8);
        step!(16, 4);
        step!(16, 2);
        step!(16, 1);
        unsafe { _mm512_store_si512(p, v) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct keys in random order, `EMPTY` from `n` on.
    fn random_slot(n: usize, x: &mut u32) -> Slot {
        let mut slot = EMPTY;
        for (k, e) in slot.0[..n].iter_mut().enumerate() {
            *x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *e = (*x >> 1 & !0xf) | k as u32;
        }
        slot
    }

    #[test]
    fn every_sort_orders_every_fill() {
        let detected = Sorter::detect();
        let sorters = [
            Sorter::scalar(),
            Sorter { avx2: detected.avx2, avx512: false },
            Sorter { avx2: false, avx512: detected.avx512 },
            detected,
        ];
        let mut x = 99u32;
        for n in 0..=SLOT_CAP {
            for _ in 0..200 {
                let slot = random_slot(n, &mut x);
                let mut want = slot.0[..n].to_vec();
                want.sort();
                for s in sorters {
                    let mut got = slot;
                    s.sort(&mut got, n);
                    assert_eq!(&got.0[..n], &want[..], "n = {n}, {s:?}");
                    assert!(got.0[n..].iter().all(|&k| k == u32::MAX), "n = {n}, {s:?}");
                }
            }
        }
    }

    #[test]
    fn the_wide_networks_sort_any_fill_they_cover() {
        // Each network on its own, at fills its caller would not give it.
        #[cfg(target_arch = "x86_64")]
        {
            let s = Sorter::detect();
            let mut x = 7u32;
            for n in 0..=SLOT_CAP {
                let slot = random_slot(n, &mut x);
                let mut want = slot.0.to_vec();
                want.sort();
                if s.avx2 && n <= 8 {
                    let mut got = slot;
                    unsafe { wide::bitonic8(&mut got) };
                    assert_eq!(&got.0[..], &want[..], "8 lanes, n = {n}");
                }
                if s.avx512 {
                    let mut got = slot;
                    unsafe { wide::bitonic16(&mut got) };
                    assert_eq!(&got.0[..], &want[..], "16 lanes, n = {n}");
                }
            }
        }
    }

    #[test]
    fn names_say_what_is_used() {
        assert_eq!(Sorter::scalar().name(), "scalar");
        assert_eq!(Sorter { avx2: true, avx512: true }.name(), "AVX-512 + AVX2");
    }

    #[test]
    fn bitonic_masks() {
        // first step: odd lanes of each pair take the max
        assert_eq!(max_lanes(2, 1), 0x6666);
        // last step of 16: every odd lane takes the max (all ascending)
        assert_eq!(max_lanes(16, 1), 0xAAAA);
    }
}
