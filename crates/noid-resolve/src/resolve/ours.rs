//! The NAANs a resolver found to be its own, remembered across misses (a file of its
//! own: the resolver holds it and `find` consults it).

/// The NAANs a resolver found to be ours (its store holds identifiers under them, or
/// its minter or registry names them), remembered so that every later miss of such a
/// NAAN skips the store's prefix check (about 800 instructions a miss in noidr's view).
/// Only "ours" is remembered, the safe answer: a NAAN whose last identifier is
/// deleted stays ours (its ARKs are not forwarded) until the resolver is made anew (at
/// start and on SIGHUP). A lock that is taken by another thread is not waited for.
#[derive(Debug, Default)]
pub(super) struct Ours(std::sync::Mutex<Vec<String>>);

impl Ours {
    /// At most this many NAANs are remembered (a resolver serves a few).
    const MAX: usize = 64;

    /// Whether `naan` was found to be ours.
    pub(super) fn knows(&self, naan: &str) -> bool {
        self.0
            .try_lock()
            .is_ok_and(|known| known.iter().any(|n| n == naan))
    }

    /// Remember that `naan` is ours.
    pub(super) fn learn(&self, naan: &str) {
        if let Ok(mut known) = self.0.try_lock() {
            if known.len() < Ours::MAX && !known.iter().any(|n| n == naan) {
                known.push(naan.to_string());
            }
        }
    }
}
