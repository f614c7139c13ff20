//! noid's link checker: is every target an identifier has still there, and still what
//! it was?
//!
//! * [`targets`]: the targets an identifier has (`_t`, content-negotiated and
//!   inflection targets), streamed from a minter's store.
//! * [`probe`]: one target asked over HTTP(S) (HEAD, a ranged GET where HEAD is
//!   refused, redirects followed by hand with the chain kept), paced per host, behind
//!   the [`guard`] that keeps the checker out of the site's own network.
//! * [`fingerprint`]: a page's title and a similarity hash of its text, and the
//!   patterns of parking and challenge pages.
//! * [`classify`]: from what one probe saw and the target's state before it, its state
//!   now (a pure function: the statuses are decided there and only there).
//! * [`report`]: one row per target (`id,target,status,http,checked,since,detail,…`),
//!   as CSV or JSON, for the CLI's report and the console's download.
//! * [`checker`]: many targets checked at once under a global and a per-host limit;
//!   each [`Outcome`] and the store [`writes`] that record it.
//!
//! The records are noid-core's (`noid_core::links`); this crate defines no other.
//! It is async (tokio, reqwest) and sits beside the HTTP adapters: nothing below them
//! depends on it. docs/LINKS.md is the user's account.

pub mod checker;
pub mod classify;
pub mod config;
pub mod fingerprint;
pub mod guard;
pub mod probe;
pub mod report;
pub mod targets;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tls;

pub use checker::{recorded, writes, BlockingChecker, Checker, Outcome};
pub use classify::{classify, Observation};
pub use config::{CheckerConfig, ConfigError, Policy};
pub use targets::{for_each_target, targets_of, Target};
