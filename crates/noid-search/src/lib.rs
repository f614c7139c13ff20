//! The search index over a minter's identifiers (issue 44, docs/SEARCH.md). Derived
//! data: rebuilt from the store, kept current by following it, never trusted when
//! damaged.
//!
//! The public surface, called alike by `noid search`, the API and the console:
//! * [`query`]: the curator's query language, [`Query`] (`FromStr` refuses with a
//!   message, `Display` prints what parses back). Built alone without the `index`
//!   feature, for the fuzz target.
//! * [`document`]: what is indexed of one identifier ([`Record`]), read from the store.
//! * [`index`]: [`SearchIndex`]: `open` (rebuilding a missing, damaged or stale index),
//!   `rebuild`, `search` (a page of hits and the facets), `export` (every match as CSV,
//!   JSON lines or ANVL).
//!   `update` re-indexes identifiers that changed.
//! * [`follow`]: [`Followed`], an index kept current from the embedded store's
//!   changed-identifiers feed (noid-store's `changes`), rebuilt when it cannot follow.

#![deny(missing_docs)]

pub mod query;

#[cfg(feature = "index")]
pub mod document;
#[cfg(feature = "index")]
pub mod export;
#[cfg(feature = "index")]
pub mod follow;
#[cfg(feature = "index")]
pub mod index;
#[cfg(feature = "index")]
mod schema;

pub use query::{Query, QueryError};

#[cfg(feature = "index")]
pub use document::Record;
#[cfg(feature = "index")]
pub use export::Format;
#[cfg(feature = "index")]
pub use follow::{current, CatchUp, Followed};
#[cfg(feature = "index")]
pub use index::{Facets, Hit, Results, SearchError, SearchIndex, Sort, SortKey};
