//! `noid prune-log` in a `noid` built without the cargo feature `postgres`: only
//! minters held by PostgreSQL have a change log, and this build opens none.

use crate::invocation::Invocation;

/// `prune-log …`: refused, saying why.
pub fn run(_: &Invocation, _: &[String]) -> u8 {
    eprintln!(
        "noid prune-log: this noid was built without PostgreSQL (cargo feature \"postgres\"); \
         only minters held by PostgreSQL have a change log"
    );
    1
}
