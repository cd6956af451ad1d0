//! Cache prefetch hints. A packet-level simulation is bound by memory
//! latency: a packet that waited in a buffer is out of cache when it moves
//! on. Where the engine knows an access is coming (the next cell of a link's
//! ring, the packet a host is about to receive), it asks for the line early.
//! A hint never changes results; on targets without one it does nothing.

#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
