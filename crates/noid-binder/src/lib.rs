//! The binder and minter write path beneath every way in: `noid serve`'s API, the
//! console and its upload (noid-api), and the API's CGI (noid-cli). Synchronous, with
//! no async runtime and no HTTP server in it, so that each way in is a thin adapter
//! and a `noid` built without its server still has the CGI.
//!
//! | piece | does |
//! |---|---|
//! | [`DirectoryWriter`] | one thread per binder or minter directory, the only writer: queued [`Work`] runs as one write batch, committed, logged, answered ([`WorkResult`]) |
//! | [`Work`] | what a request asks: an egg line, a bulk body, typed [`noid_egg::Command`]s (as one change, or as a sheet), a mint |
//! | [`Progress`] | where a bulk request's committed output goes as it goes (a trait, not one runtime's channel) |
//! | [`Tally`] | a bulk run's counts, read by another thread while it runs |
//! | [`AdmissionSource`] | what a populator's binder admits beyond its own gate (its minters' shoulders) |
//! | [`read`] | read-only commands run on a read-only view, never through the writer thread |
//! | [`link_health`] | the link checker's records read back: the filtered report, an identifier's history, CSV and JSON |
//! | [`recent`] | a binder's recent writes, read back from its write log |
//! | [`history`] | an identifier's logged writes, old value → new, in any spelling |
//! | [`rewrite`] | change many (a prefix of targets or values) with a preview, as an operation with an id; its undo |
//! | [`usage`] | a directory's resolution counts, read and reported (`noid stats`, the API, the console) |
//! | [`Record`] | one write log record, written before a write is acknowledged |
//! | [`replay`] | a write log applied again (`noid replay`) |
//! | [`Observer`] | what the writer tells whoever counts its work (`noid serve`'s metrics) |
//! | [`api`] | the N2T API's requests without transport: configuration, routes, plans, replies, the CGI |
//!
//! Replies go back through a callback ([`DirectoryWriter::submit`]) or a blocking
//! wait ([`DirectoryWriter::run`]); an async caller wraps the callback in its own
//! channel.

#![deny(missing_docs)]

mod admission;
pub mod api;
mod cut;
mod group;
pub mod history;
pub mod link_health;
mod observe;
mod reads;
pub mod recent;
pub mod replay;
pub mod resolver_files;
pub mod rewrite;
mod safe_name;
mod store_name;
pub mod usage;
mod write_log;
mod writer;

pub use admission::{minter_paths, AdmissionSource};
pub use cut::{cut_of, Cut, Pace, MAX_LINE};
pub use group::BULK_BATCH;
pub use observe::{Kind, Observer, Stage, Unobserved};
pub use reads::{only_reads, read, read_line, snapshot, snapshot_between_writers};
pub use replay::{ReplayProblem, Replayed};
pub use safe_name::is_safe_name;
pub use store_name::{name_store, name_store_in};
pub use write_log::Record;
pub use writer::{
    committed_line, failure, run_once, DirectoryWriter, Progress, Reached, Settings, Tally, Who,
    Work, WorkResult, IDLE, MAX_HOLD, YIELD,
};
