//! How a candidate identifier is already used, and so what `mint` would do with it.

use noid_core::keys;
use noid_core::Lookup;
use noid_minter::Minter;

use super::CheckError;

/// How a generated candidate is already used, and so what `mint` would do with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Use {
    /// Never circulated, not held, nothing bound: `mint` issues it.
    Free,
    /// Held (and never circulated): `mint` skips it, as intended.
    Held,
    /// Its circulation record says queued: it comes out of the queue instead.
    Queued,
    /// Its circulation record says unqueued (deleted): `mint` skips it.
    Unqueued,
    /// Issued before on a short-term minter, which re-issues after wrapping.
    Reissue,
    /// Issued before (circulation record given): the generator is behind.
    Issued(String),
    /// Never issued but has bindings (how many): `mint` would hand out an identifier
    /// that already means something.
    Bound(usize),
    /// A circulation record with an unknown status.
    Other(String),
}

impl Use {
    /// Whether this use means the generator state is behind the store.
    pub fn is_problem(&self) -> bool {
        matches!(self, Use::Issued(_) | Use::Bound(_))
    }
}

/// How `mint` would treat `id` now.
pub fn classify<L: Lookup + ?Sized>(l: &L, m: &Minter, id: &str) -> Result<Use, CheckError> {
    if let Some(rec) = l.get(&keys::circ(id))? {
        let rec = String::from_utf8_lossy(&rec).into_owned();
        return Ok(match rec.as_bytes().first() {
            Some(b'i') if m.wrap && !m.longterm => Use::Reissue,
            Some(b'i') => Use::Issued(rec),
            Some(b'q') => Use::Queued,
            Some(b'u') => Use::Unqueued,
            _ => Use::Other(rec),
        });
    }
    if l.get(&keys::hold(id))?.is_some() {
        return Ok(Use::Held);
    }
    let bound = l
        .scan_prefix(&keys::id_prefix(id), 1000)?
        .iter()
        .filter(|(k, _)| !keys::is_admin_elem(&k[id.len() + 1..]))
        .count();
    Ok(if bound > 0 {
        Use::Bound(bound)
    } else {
        Use::Free
    })
}
