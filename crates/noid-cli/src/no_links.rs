//! `noid links` in a `noid` built without the cargo feature `links`: it says that this
//! build has no link checker.

use crate::invocation::Invocation;

/// The one answer of this build to `noid links`.
const NO_LINKS: &str =
    "this noid was built without the link checker (cargo feature \"links\"); install the noid package, or build with default features";

/// `noid links …`: refused.
pub fn run(_: &Invocation, _: &[String]) -> u8 {
    eprintln!("noid links: {NO_LINKS}");
    1
}
