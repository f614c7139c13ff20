//! The minter and binder: every noid operation that reads or changes a minter's key
//! space, written against [`noid_core::Lookup`] and a write [`Txn`] so that it does
//! no I/O of its own. The `noid` CLI opens a store, runs these operations, and commits
//! the transaction's writes as one atomic, synced batch.
//!
//! The key space is Perl Noid 0.424's (see [`noid_core::keys`]); the messages are its messages,
//! because scripts parse them.

#![deny(missing_docs)]

pub mod batch;
pub mod bind;
pub mod circ;
pub mod create;
pub mod error;
pub mod gate;
pub mod hold;
pub mod info;
pub mod mint;
pub mod mint_engine;
pub mod modified;
pub mod note;
pub mod pepper;
pub mod queue;
pub mod saves;
pub mod state;
pub mod txn;

pub use error::{MinterError, Refusal};
pub use state::{Context, Minter};
pub use txn::Txn;
