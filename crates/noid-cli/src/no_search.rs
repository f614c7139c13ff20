//! `noid index` and `noid search` in a `noid` built without the cargo feature `search`:
//! they say that this build has no search index.

use crate::invocation::Invocation;

const NO_SEARCH: &str = "this noid was built without the search index (cargo feature \"search\"); install the noid package, or build with default features";

/// `noid index …`: refused.
pub fn index(_: &Invocation, _: &[String]) -> u8 {
    eprintln!("noid index: {NO_SEARCH}");
    1
}

/// `noid search …`: refused.
pub fn search(_: &Invocation, _: &[String]) -> u8 {
    eprintln!("noid search: {NO_SEARCH}");
    1
}
