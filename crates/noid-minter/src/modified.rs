//! The last-write record of an identifier, `ID<TAB>:/m` (seconds since the epoch,
//! decimal), which the resolver's HTTP face serves as `Last-Modified`.
//!
//! [`record`] is the one place it is written; every binding path calls it with the
//! identifier it changed: `noid bind` (every How, `mint N ELEM VALUE` and `bind mint`
//! included, in the CLI, bulk and web modes) through [`crate::bind::bind`], and egg's
//! changes (`set`, `add`, `let`, `incr`, `rm`, `purge`; the binder API and `noid
//! replay`) through `noid_egg::execute`. `:idmap` rules are not identifiers and get
//! none. Like noid's other `:/` elements it is never shown by `fetch`, `get` or egg
//! reads, nor removed by egg's `purge`; `dbinfo dump` and `export` show it.

use noid_core::Lookup;

use crate::txn::Txn;
use noid_core::keys;

/// Record `now` as the time of the last write to `id`'s bindings.
pub fn record<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, id: &str, now: i64) {
    txn.put(keys::modified(id), now.to_string());
}
