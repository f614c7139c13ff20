//! `noid check`: what the operator of a long-lived minter needs to know, and the
//! repairs `--repair` makes.
//!
//! The caller feeds every record of the store, in key order, to a [`Census`] (one
//! pass, constant memory but for the rare identifiers stored under a spelling other
//! than the directory's, [`Census::of`]), then calls [`analyze`] with a [`Lookup`](noid_core::Lookup)
//! on the same store. The analysis ([`analysis`]) gathers the facts, replays the
//! generator on a copy of its state to see how each of the next identifiers is
//! already used ([`candidate`]), and lists the counters that disagree with the stored
//! state ([`counters`]) and the identifiers stored under more than one spelling
//! ([`spellings`]) as [`Finding`]s. Each finding that can be repaired comes with
//! a [`Repair`]; the [`repair`] module plans them ([`Analysis::repair`] gathers the
//! writes into one batch for the caller to commit atomically under the writers'
//! lock). The [`report`] module renders all of it as text.

mod analysis;
mod candidate;
mod census;
mod counters;
mod findings;
mod repair;
mod report;
mod spellings;

#[cfg(test)]
mod tests;

use std::fmt;

use noid_core::LookupError;
use noid_minter::MinterError;

pub use analysis::analyze;
pub use candidate::{classify, Use};
pub use census::{Census, Respelled};
pub use findings::{Analysis, Finding, Options, Problem, Summary, Upcoming};
pub use repair::Repair;

/// A failure to read the store (not a finding about it).
#[derive(Debug)]
pub enum CheckError {
    /// A read of the store failed.
    Lookup(LookupError),
    /// The minter's state could not be loaded.
    Minter(MinterError),
    /// The store has neither `:/version` nor `:/template`.
    NotAMinter,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Lookup(e) => write!(f, "error: {e}"),
            CheckError::Minter(e) => e.fmt(f),
            CheckError::NotAMinter => f.write_str(
                "error: this store is not a Noid minter (it has no :/version and no :/template)",
            ),
        }
    }
}

impl std::error::Error for CheckError {}

impl From<LookupError> for CheckError {
    fn from(e: LookupError) -> Self {
        CheckError::Lookup(e)
    }
}

impl From<MinterError> for CheckError {
    fn from(e: MinterError) -> Self {
        CheckError::Minter(e)
    }
}
