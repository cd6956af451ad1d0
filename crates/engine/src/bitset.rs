//! A fixed-size bitset over segment indices, used for the SACK scoreboard
//! of a sender and the reassembly map of a receiver (allocated once per
//! flow, never per packet), for the queues a BFC port may serve, and for
//! the flows BFC's senders label.

#[derive(Clone, Debug, Default)]
pub struct Bitset {
    words: Vec<u64>,
}

impl Bitset {
    pub fn new(bits: u32) -> Self {
        Bitset { words: vec![0; (bits as usize).div_ceil(64)] }
    }

    /// Bits it can hold (a multiple of 64).
    pub fn capacity(&self) -> u32 {
        (self.words.len() * 64) as u32
    }

    #[inline]
    pub fn get(&self, i: u32) -> bool {
        let i = i as usize;
        self.words[i >> 6] >> (i & 63) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, i: u32) {
        let i = i as usize;
        self.words[i >> 6] |= 1 << (i & 63);
    }

    #[inline]
    pub fn clear(&mut self, i: u32) {
        let i = i as usize;
        self.words[i >> 6] &= !(1 << (i & 63));
    }

    /// Set every bit in `[lo, hi)`.
    pub fn set_range(&mut self, lo: u32, hi: u32) {
        let mut i = lo as usize;
        let hi = hi as usize;
        while i < hi {
            let bit = i & 63;
            let n = (64 - bit).min(hi - i);
            let mask = if n == 64 { !0u64 } else { ((1u64 << n) - 1) << bit };
            self.words[i >> 6] |= mask;
            i += n;
        }
    }

    /// Number of set bits in `[lo, hi)`.
    pub fn count(&self, lo: u32, hi: u32) -> u32 {
        if lo >= hi {
            return 0;
        }
        let (lo, hi) = (lo as usize, hi as usize);
        let (wl, wh) = (lo >> 6, (hi - 1) >> 6);
        let lo_mask = !0u64 << (lo & 63);
        let hi_mask = !0u64 >> (63 - ((hi - 1) & 63));
        if wl == wh {
            return (self.words[wl] & lo_mask & hi_mask).count_ones();
        }
        let mut n = (self.words[wl] & lo_mask).count_ones() + (self.words[wh] & hi_mask).count_ones();
        for w in &self.words[wl + 1..wh] {
            n += w.count_ones();
        }
        n
    }

    /// First index in `[lo, hi)` whose bit is clear.
    pub fn next_clear(&self, lo: u32, hi: u32) -> Option<u32> {
        let mut i = lo;
        while i < hi {
            let w = self.words[(i >> 6) as usize] >> (i & 63);
            if w == !0u64 >> (i & 63) {
                // rest of this word is all ones: jump to the next word
                i = (i | 63) + 1;
                continue;
            }
            let off = (!w).trailing_zeros();
            let j = i + off;
            return (j < hi).then_some(j);
        }
        None
    }

    /// First index in `[lo, hi)` whose bit is set.
    pub fn next_set(&self, lo: u32, hi: u32) -> Option<u32> {
        let mut i = lo;
        while i < hi {
            let w = self.words[(i >> 6) as usize] >> (i & 63);
            if w == 0 {
                i = (i | 63) + 1;
                continue;
            }
            let j = i + w.trailing_zeros();
            return (j < hi).then_some(j);
        }
        None
    }

    /// The maximal run of set bits containing `i` (which must be set), as
    /// `[start, end)`, not extending below `floor`.
    pub fn run_around(&self, i: u32, floor: u32, len: u32) -> (u32, u32) {
        let start = self.prev_clear(i, floor).map_or(floor, |c| c + 1);
        let end = self.next_clear(i, len).unwrap_or(len);
        (start, end)
    }

    /// Last index in `[floor, i)` whose bit is clear.
    pub fn prev_clear(&self, i: u32, floor: u32) -> Option<u32> {
        let mut hi = i; // exclusive
        while hi > floor {
            let w_idx = ((hi - 1) >> 6) as usize;
            let top = (hi - 1) & 63; // highest bit to look at in this word
            let lo_bit = if (floor >> 6) as usize == w_idx { floor & 63 } else { 0 };
            let span = top - lo_bit + 1;
            let mask = if span == 64 { !0u64 } else { ((1u64 << span) - 1) << lo_bit };
            let clear = !self.words[w_idx] & mask;
            if clear != 0 {
                return Some(w_idx as u32 * 64 + 63 - clear.leading_zeros());
            }
            hi = w_idx as u32 * 64 + lo_bit;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_and_search_across_words() {
        let mut b = Bitset::new(300);
        for i in [0, 5, 63, 64, 65, 127, 128, 200, 299] {
            b.set(i);
        }
        assert_eq!(b.count(0, 300), 9);
        assert_eq!(b.count(1, 64), 2);
        assert_eq!(b.count(63, 66), 3);
        assert_eq!(b.count(66, 127), 0);
        assert_eq!(b.count(10, 10), 0);
        assert_eq!(b.next_set(6, 300), Some(63));
        assert_eq!(b.next_set(201, 299), None);
        assert_eq!(b.next_clear(63, 300), Some(66));
        assert_eq!(b.next_clear(0, 1), None);
        assert_eq!(b.run_around(64, 0, 300), (63, 66));
        assert_eq!(b.run_around(64, 64, 300), (64, 66));
    }

    #[test]
    fn set_range_matches_bit_by_bit() {
        for (lo, hi) in [(0, 0), (0, 64), (3, 70), (63, 129), (64, 128), (5, 6), (100, 300)] {
            let mut a = Bitset::new(300);
            let mut b = Bitset::new(300);
            a.set_range(lo, hi);
            (lo..hi).for_each(|i| b.set(i));
            assert_eq!(a.words, b.words, "range {lo}..{hi}");
        }
    }

    #[test]
    fn prev_clear_matches_a_scan() {
        let mut b = Bitset::new(300);
        for i in (0..300).filter(|i| i % 7 != 3 && !(100..230).contains(i) || i % 61 == 0) {
            b.set(i);
        }
        for floor in [0, 5, 63, 64, 100, 130] {
            for i in floor..300 {
                let scan = (floor..i).rev().find(|&j| !b.get(j));
                assert_eq!(b.prev_clear(i, floor), scan, "i={i} floor={floor}");
            }
        }
    }

    #[test]
    fn next_clear_skips_full_words() {
        let mut b = Bitset::new(200);
        for i in 0..150 {
            b.set(i);
        }
        assert_eq!(b.next_clear(3, 200), Some(150));
        assert_eq!(b.next_clear(3, 150), None);
    }
}
