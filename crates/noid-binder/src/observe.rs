//! What the writer tells whoever counts its work ([`Observer`]): `noid serve`'s
//! metrics implement it (noid-api's `metrics`), the CGI, one request per process,
//! counts nothing ([`Unobserved`]). A trait rather than the metrics themselves, so
//! that the writer knows nothing of how counts are shown.

use std::time::Duration;

/// What a request asked of its directory's thread (the metrics' `work` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One binder command (an egg line, or typed commands as one change).
    Egg,
    /// A bulk request's commands (a bulk POST, a sheet upload).
    Bulk,
    /// A mint.
    Mint,
    /// The link checker's records of a check.
    Links,
}

impl Kind {
    /// Every kind, in label order.
    pub const ALL: [Kind; 4] = [Kind::Egg, Kind::Bulk, Kind::Links, Kind::Mint];

    /// The label value.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Egg => "egg",
            Kind::Bulk => "bulk",
            Kind::Mint => "mint",
            Kind::Links => "links",
        }
    }
}

/// Where a request's writes failed (the metrics' `stage` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The store could not be opened (its lock not had within `lock_timeout`, the
    /// directory missing or unreadable) or its minter state not read.
    Open,
    /// The commit failed: nothing of it was written.
    Commit,
    /// The writes were committed, their write log records were not written.
    Log,
}

impl Stage {
    /// Every stage, in label order.
    pub const ALL: [Stage; 3] = [Stage::Open, Stage::Commit, Stage::Log];

    /// The label value.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Open => "open",
            Stage::Commit => "commit",
            Stage::Log => "log",
        }
    }
}

/// Told what a directory's thread did, as it does it (from that thread: keep it
/// quick).
pub trait Observer: Send + Sync {
    /// `n` identifiers minted for `populator` were committed.
    fn minted(&self, populator: &str, n: u64);
    /// Binder writes were committed: one per populator named in `populators`.
    fn bound(&self, populators: &mut dyn Iterator<Item = &str>);
    /// A request of `populator` failed at `stage`.
    fn failed(&self, populator: &str, stage: Stage);
    /// Work of `kind` was answered `took` after it was queued.
    fn took(&self, kind: Kind, took: Duration);
}

/// Counts nothing: the CGI's (its process ends with its one request).
#[derive(Debug, Default, Clone, Copy)]
pub struct Unobserved;

impl Observer for Unobserved {
    fn minted(&self, _: &str, _: u64) {}
    fn bound(&self, _: &mut dyn Iterator<Item = &str>) {}
    fn failed(&self, _: &str, _: Stage) {}
    fn took(&self, _: Kind, _: Duration) {}
}
