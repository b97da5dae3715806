//! The binary's global allocator, counting the bytes in use and their peak, for the tests
//! that bound the memory an attack costs (a compression bomb, a decompression bomb).
//!
//! Tests run in parallel, and the count is the whole process's: a measurement
//! ([`measure`]) holds the write side of a lock whose read side ([`heavy`]) the tests that
//! allocate much (decoding large images) hold, so those never run during a measurement.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let now = IN_USE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// Needs unsafe: counting allocations means being the global allocator, whose trait is
// unsafe to implement.
// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size);
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

static ALONE: RwLock<()> = RwLock::const_new(());

/// A measurement of the peak memory from now on, with no [`heavy`] test running.
pub(crate) struct Measurement {
    before: usize,
    _alone: RwLockWriteGuard<'static, ()>,
}

impl Measurement {
    /// How far the bytes in use rose above the start.
    pub(crate) fn peak(&self) -> usize {
        PEAK.load(Ordering::Relaxed).saturating_sub(self.before)
    }
}

/// Starts a measurement, once the heavy tests running have finished.
pub(crate) async fn measure() -> Measurement {
    let alone = ALONE.write().await;
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    Measurement {
        before,
        _alone: alone,
    }
}

/// Marks a test that allocates much: no measurement runs while it holds this.
#[cfg_attr(not(feature = "image"), allow(dead_code))]
pub(crate) async fn heavy() -> RwLockReadGuard<'static, ()> {
    ALONE.read().await
}
