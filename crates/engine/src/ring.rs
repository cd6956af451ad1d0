//! A FIFO ring buffer with a power-of-two capacity. Links and port buffers
//! push and pop one entry per packet-hop, the hottest operations of a run;
//! with a power-of-two capacity an index is one AND, where `VecDeque`
//! computes a wrap-around with a compare and a subtract on every access.

use std::ptr::NonNull;

/// First-in first-out buffer of `Copy` items that grows by doubling. It is
/// 24 bytes, so it fits in a port's first cache line with the rest of what
/// every packet touches: a thin pointer and a capacity mask (a boxed slice
/// would take 16 bytes for its pointer), which leaves room for `aux`.
pub struct Ring<T> {
    buf: NonNull<T>,
    /// Capacity minus one (the capacity is a power of two, at least 4).
    mask: u32,
    head: u32,
    len: u32,
    /// A word the ring's owner keeps beside it, in the same cache line
    /// (`u32::MAX` in a new ring): a port keeps its link's head-packet hint
    /// here (`Port::head_hint`).
    pub aux: u32,
}

// SAFETY: a `Ring` owns its items as a `Box<[T]>` would.
unsafe impl<T: Send> Send for Ring<T> {}
unsafe impl<T: Sync> Sync for Ring<T> {}

impl<T: Copy + Default> Default for Ring<T> {
    fn default() -> Self {
        Ring::new()
    }
}

impl<T: Copy + Default> Clone for Ring<T> {
    fn clone(&self) -> Self {
        let mut r = Ring::with_capacity(self.mask as usize + 1);
        for x in self.iter() {
            r.push_back(*x);
        }
        r.aux = self.aux;
        r
    }
}

impl<T: Copy + Default + std::fmt::Debug> std::fmt::Debug for Ring<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        let cap = self.mask as usize + 1;
        // SAFETY: `buf` came from a boxed slice of `cap` items (`alloc`).
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.buf.as_ptr(), cap)) });
    }
}

impl<T: Copy + Default> Ring<T> {
    pub fn new() -> Self {
        Ring::with_capacity(4)
    }

    /// An empty ring of `cap` cells (a power of two).
    fn with_capacity(cap: usize) -> Self {
        debug_assert!(cap.is_power_of_two() && cap >= 4);
        let buf = Box::into_raw(vec![T::default(); cap].into_boxed_slice()) as *mut T;
        // SAFETY: a boxed slice's pointer is never null.
        Ring { buf: unsafe { NonNull::new_unchecked(buf) }, mask: (cap - 1) as u32, head: 0, len: 0, aux: u32::MAX }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.mask as usize
    }

    fn capacity(&self) -> usize {
        self.mask as usize + 1
    }

    /// The storage cell of position `i` (any `i`: it wraps around).
    #[inline]
    fn cell(&self, i: usize) -> &T {
        // SAFETY: the capacity is a power of two (4, doubled by `grow`), so
        // `i & mask < capacity`, and every cell is initialized. Skipping the
        // bounds check matters: this runs several times per packet-hop.
        unsafe { &*self.buf.as_ptr().add(i & self.mask()) }
    }

    #[inline]
    fn cell_mut(&mut self, i: usize) -> &mut T {
        // SAFETY: as in `cell`.
        unsafe { &mut *self.buf.as_ptr().add(i & self.mask()) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len() == self.capacity() {
            self.grow();
        }
        let tail = self.head as usize + self.len as usize;
        *self.cell_mut(tail) = x;
        self.len += 1;
        // The cells ahead were last used a whole ring ago: ask for the next
        // cache line before the pushes that need it.
        crate::prefetch::prefetch(self.cell(tail + 64 / std::mem::size_of::<T>().max(1)));
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = *self.cell(self.head as usize);
        self.len -= 1;
        // An emptied ring starts again at its first cell, so a ring that is
        // mostly short keeps using the same few cache lines instead of
        // cycling through all of its capacity (arithmetic, not a branch).
        let keep = 0u32.wrapping_sub((self.len != 0) as u32);
        self.head = (self.head + 1) & self.mask() as u32 & keep;
        Some(x)
    }

    /// Ask for the front item's cache line (a hint; see `prefetch.rs`).
    #[inline(always)]
    pub fn prefetch_front(&self) {
        crate::prefetch::prefetch(self.cell(self.head as usize));
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The `i`-th item from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len()).then(|| self.cell(self.head as usize + i))
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).map(move |i| self.cell(self.head as usize + i))
    }

    #[cold]
    fn grow(&mut self) {
        assert!(self.capacity() < 1 << 31, "ring buffer over 2^31 entries");
        let mut bigger = Ring::with_capacity(self.capacity() * 2);
        for x in self.iter() {
            bigger.push_back(*x);
        }
        bigger.aux = self.aux;
        *self = bigger;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_a_deque_across_growth_and_wrap_around() {
        let mut r: Ring<u32> = Ring::new();
        let mut d = VecDeque::new();
        let mut x = 7u32;
        for step in 0..10_000u32 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            // pushes outnumber pops early on (growth), then balance (wrap)
            let push = if step < 3_000 { !x.is_multiple_of(3) } else { x.is_multiple_of(2) };
            if push {
                r.push_back(step);
                d.push_back(step);
            } else {
                assert_eq!(r.pop_front(), d.pop_front());
            }
            assert_eq!(r.len(), d.len());
            assert_eq!(r.front(), d.front());
            assert_eq!(r.get(d.len() / 2), d.get(d.len() / 2));
        }
        assert!(r.iter().eq(d.iter()));
    }

    #[test]
    fn the_owners_word_survives_growth_and_clones() {
        let mut r: Ring<u64> = Ring::new();
        assert_eq!(r.aux, u32::MAX);
        r.aux = 77;
        for i in 0..100 {
            r.push_back(i);
        }
        let c = r.clone();
        assert_eq!((r.aux, c.aux), (77, 77));
        assert!(c.iter().eq(r.iter()) && c.len() == 100);
        assert_eq!(std::mem::size_of::<Ring<u64>>(), 24);
    }
}
