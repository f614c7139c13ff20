//! The search index over a minter's identifiers (issue 44). Derived data: rebuilt from the
//! store, never trusted when damaged.
