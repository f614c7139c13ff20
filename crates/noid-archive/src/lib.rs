//! Archived copies of identifiers' targets, for when a target dies (docs/LINKS.md,
//! "Archived copies").
//!
//! * [`find`]: the most recent archived copy of a URL through a Memento TimeGate
//!   (RFC 7089; the Internet Archive's by default): the TimeGate is asked for the URL
//!   with `Accept-Datetime` now, its redirect followed to the memento, whose
//!   `Memento-Datetime` (or, failing that, the `Link` header's) dates the copy. The
//!   result is noid-core's [`Archived`], stored under `:/links/a/ID` ([`copies`]),
//!   where the resolver finds it.
//! * [`save`]: asking an archive to save a target when it is bound: a request queued in
//!   the store (`:/links/v/ID<TAB>TARGET`), tried, retried with backoff, and its outcome
//!   recorded there.
//!
//! Whether the resolver answers with a stored copy is the resolver's rules file's
//! business (`archived-copy`, in noid-resolve); this crate only finds and keeps copies.
//! It is async (reqwest on tokio, TLS by rustls); [`block_on`] runs one of its futures
//! from synchronous code such as the CLI.

mod config;
pub mod copies;
mod error;
mod link;
pub mod save;
mod timegate;

pub use config::{Config, DEFAULT_SAVE, DEFAULT_TIMEGATE};
pub use error::ArchiveError;
pub use noid_core::links::Archived;
pub use timegate::find;

/// Run `future` to completion on a runtime of its own (one thread), for a synchronous
/// caller: the CLI, or a test. A caller already on a tokio runtime awaits instead.
pub fn block_on<F: std::future::Future>(future: F) -> Result<F::Output, ArchiveError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ArchiveError::Client(format!("cannot start the HTTP runtime: {e}")))?;
    Ok(runtime.block_on(future))
}

/// Seconds since the epoch now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
