//! Copy-on-write parts written without the copy-on-write's atomic check: the race
//! shadow's pages (`shadow.rs`) and the release/acquire order's waves and address clocks
//! (`order.rs`), shared with time-travel snapshots until written.
//!
//! `Arc::make_mut` costs a locked compare-exchange on every write, a tenth of a checked
//! shared-atomics or global-load-store kernel's time for the race pages and 2-3% of a
//! checked histogram's for the order's parts. Instead, each part carries the stamp of
//! its owner (a shadow, an order) in which it was last made the owner's own; while the
//! stamp is the owner's current one, the part's `Arc` has no other reference. A clone of
//! the owner moves both owners past every stamp they hold ([`Owner::share`]), so every
//! part is shared until written again.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// An owner's current stamp. Atomic only because a clone moves it on through `&self`;
/// relaxed loads and stores are plain moves.
#[derive(Debug, Default)]
pub(super) struct Owner(AtomicU64);

impl Owner {
    /// The current stamp: parts stamped with it are this owner's alone.
    #[inline(always)]
    pub fn stamp(&mut self) -> u64 {
        *self.0.get_mut()
    }

    /// For a clone of the owner, about to share every part with it ([`Held::share`]):
    /// moves this owner past every stamp it holds and returns the clone's owner, at the
    /// same new stamp.
    pub fn share(&self) -> Owner {
        Owner(AtomicU64::new(self.0.fetch_add(1, Ordering::Relaxed) + 1))
    }
}

/// A part and the stamp of its owner in which it was last made that owner's own.
#[derive(Debug)]
pub(super) struct Held<T> {
    arc: Arc<T>,
    stamp: u64,
}

impl<T: Clone> Held<T> {
    /// `arc` as its owner's own at stamp `stamp` (made unique first if it is not).
    pub fn unique(mut arc: Arc<T>, stamp: u64) -> Held<T> {
        // Checked once, where it is made: every later write trusts the stamp.
        Arc::make_mut(&mut arc);
        Held { arc, stamp }
    }

    /// The part for writing by its owner at stamp `stamp` ([`Owner::stamp`]): copied
    /// first when shared.
    #[inline(always)]
    pub fn get_mut(&mut self, stamp: u64) -> &mut T {
        if self.stamp != stamp {
            Arc::make_mut(&mut self.arc);
            self.stamp = stamp;
        }
        // SAFETY: the stamp says this `Arc` is the part's only reference, strong or weak
        // (made unique by `Held::unique` or `Arc::make_mut` at this stamp, and no clone
        // of the owner since: a clone moves the stamp on, and a part is shared only by a
        // clone of its owner, `Held::share` after `Owner::share`), and we hold it
        // mutably: no other reference to the part can exist while the returned one
        // lives. The pointer comes from the `Arc` itself, as `Arc::get_mut` makes it.
        unsafe { &mut *Arc::as_ptr(&self.arc).cast_mut() }
    }
}

impl<T> Held<T> {
    /// The part for a clone of its owner, which has moved the owner's stamp on
    /// ([`Owner::share`]).
    pub fn share(&self) -> Held<T> {
        Held {
            arc: Arc::clone(&self.arc),
            stamp: self.stamp,
        }
    }

    /// The part's `Arc` (to keep it for reuse).
    pub fn into_arc(self) -> Arc<T> {
        self.arc
    }

    /// Whether two holders share one part.
    #[cfg(test)]
    pub fn ptr_eq(a: &Held<T>, b: &Held<T>) -> bool {
        Arc::ptr_eq(&a.arc, &b.arc)
    }
}

impl<T> std::ops::Deref for Held<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.arc
    }
}
