//! The archived copies a minter keeps (`:/links/a/ID`), the curator's marks
//! (`:/links/m/ID`) and the policy that says for which identifiers copies are fetched
//! (`:/links/f/PREFIX`): read from a [`Lookup`], written through a [`Commit`], so that
//! the CLI, the checker and `noid serve` keep them alike on either storage engine.

use noid_core::links::{self, Archived};
use noid_core::{Commit, Lookup};

use crate::ArchiveError;

/// Most policy prefixes read (a minter has a few).
const MAX_POLICIES: usize = 10_000;

/// The copy stored for `id`.
pub fn stored<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<Option<Archived>, ArchiveError> {
    let value = l.get(&links::archived_key(id)).map_err(store)?;
    Ok(value.and_then(|v| Archived::decode(&v)))
}

/// Keep `copy` as `id`'s archived copy (replacing any earlier one).
pub fn keep<S: Commit + ?Sized>(s: &S, id: &str, copy: &Archived) -> Result<(), ArchiveError> {
    write(s, links::archived_key(id), Some(copy.encode()))
}

/// Mark `id`'s target as gone (`at`: seconds since the epoch), or lift the mark.
pub fn mark<S: Commit + ?Sized>(s: &S, id: &str, on: bool, at: u64) -> Result<(), ArchiveError> {
    write(
        s,
        links::mark_key(id),
        on.then(|| at.to_string().into_bytes()),
    )
}

/// Whether `id` is marked.
pub fn is_marked<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<bool, ArchiveError> {
    Ok(l.get(&links::mark_key(id)).map_err(store)?.is_some())
}

/// Turn fetching copies on or off for identifiers under `prefix` (`""`: the minter).
pub fn set_policy<S: Commit + ?Sized>(s: &S, prefix: &str, on: bool) -> Result<(), ArchiveError> {
    write(s, links::policy_key(prefix), on.then(|| b"on".to_vec()))
}

/// The prefixes under which copies are fetched (`""`: the whole minter), in key order.
pub fn policies<L: Lookup + ?Sized>(l: &L) -> Result<Vec<String>, ArchiveError> {
    let pairs = l
        .scan_prefix(links::POLICY_PREFIX, MAX_POLICIES)
        .map_err(store)?;
    Ok(pairs
        .iter()
        .filter_map(|(k, _)| k.strip_prefix(links::POLICY_PREFIX))
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect())
}

/// Turn saving on bind on or off for identifiers under `prefix` (`""`: the minter):
/// every binding path then queues the targets it binds (noid-minter's `saves`).
pub fn set_save_on_bind<S: Commit + ?Sized>(
    s: &S,
    prefix: &str,
    on: bool,
) -> Result<(), ArchiveError> {
    write(
        s,
        links::save_on_bind_key(prefix),
        on.then(|| b"on".to_vec()),
    )
}

/// The prefixes under which bound targets are queued for saving, in key order.
pub fn save_on_bind<L: Lookup + ?Sized>(l: &L) -> Result<Vec<String>, ArchiveError> {
    let pairs = l
        .scan_prefix(links::SAVE_ON_BIND_PREFIX, MAX_POLICIES)
        .map_err(store)?;
    Ok(pairs
        .iter()
        .filter_map(|(k, _)| k.strip_prefix(links::SAVE_ON_BIND_PREFIX))
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect())
}

/// Whether a copy is to be fetched for `id`'s target when it turns broken: a policy
/// covers it (its prefix, with or without an ARK's `ark:/`, begins `id`). Off unless
/// set. The checker asks this before [`crate::find`].
pub fn wanted<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<bool, ArchiveError> {
    Ok(policies(l)?.iter().any(|p| links::covers(p, id)))
}

fn write<S: Commit + ?Sized>(
    s: &S,
    key: Vec<u8>,
    value: Option<Vec<u8>>,
) -> Result<(), ArchiveError> {
    s.commit_writes(vec![(key, value)])
        .map_err(|e| ArchiveError::Store(e.to_string()))
}

fn store(e: noid_core::LookupError) -> ArchiveError {
    ArchiveError::Store(e.to_string())
}
