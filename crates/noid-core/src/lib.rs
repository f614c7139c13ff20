//! The foundation every noid crate shares: plain values and pure functions, no regex, no
//! I/O and no threads, so that the minter, the stores, the resolver and the migration
//! tools agree on one key layout and one way of reading an identifier without depending
//! on each other.
//!
//! * [`keys`]: Perl Noid's key layout and the admin key names, for every crate that reads
//!   or writes a minter's key space.
//! * [`links`]: what the link checker keeps of each target (status, history, archived
//!   copy), under `:/links/` admin keys, and how those records are written.
//! * [`lookup`]: [`Lookup`], the only storage interface ([`Pairs`], [`LookupError`]), and
//!   [`MemLookup`], an in-memory store for tests and examples.
//! * [`ident`]: identifier decomposition (scheme, NAAN, shoulder, blade) and the forms a
//!   request is looked up under.
//! * [`normalize`]: the ARK specification's normal form, the one ARK normaliser.
//! * [`shadow`]: EZID's shadow ARKs of DOIs, both directions.
//! * [`spelling`]: the one spelling a binder stores an identifier under, whatever
//!   spelling it arrived in (the identifier gate's first half).
//! * [`anvl`]: ANVL elements as every noid writer writes them (egg replies, the HTTP
//!   pages, the registry file), and their decoding.
//! * [`unescape`]: `%HH` decoding and EggNog's `^HH` flex escapes.
//! * [`verbs`]: the words of the `noid` command, whether each writes and which lines
//!   serve it, read by the CLI, its help, web mode and noidr.
//! * [`Commit`]: a store that makes a transaction's writes durable, beside [`Lookup`].
//!
//! What servers share (the lookup-deadline watchdog, the `/metrics` text, HTML escaping,
//! header cleaning) is in noid-serving; which words start a mode of the `noid` process
//! (`serve`, `replay`, `prune-log`) is noid-cli's.

#![deny(missing_docs)]

pub mod anvl;
mod commit;
pub mod ident;
pub mod keys;
pub mod links;
pub mod lookup;
pub mod normalize;
pub mod shadow;
pub mod spelling;
pub mod unescape;
pub mod verbs;

pub use commit::{Commit, PreviousFailed, Writes};
pub use lookup::{
    is_truthy, ExactPrefixes, Kept, Lookup, LookupError, LookupFailure, MemLookup, Memo, Pairs,
    PointLookups,
};
pub use unescape::{marker_decode, percent_decode};
