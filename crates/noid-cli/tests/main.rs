//! Integration tests of the `noid` binary: each test drives the real executable
//! against a real RocksDB minter in its own temporary directory.

mod util;

/// Shared with noidr's tests: the tests that need root.
#[path = "../../noidr/tests/root_only.rs"]
mod root_only;

mod serve;

/// Shared with noidr's tests: clients at loopback addresses of their own.
#[path = "../../noidr/tests/clients.rs"]
mod clients;

mod api;
mod beyond_perl;
mod bind;
mod cgi;
mod check_spellings;
mod compact;
mod concurrency;
mod conformance;
mod console;
mod egg;
mod errors;
mod explain;
mod faults;
mod hardening;
mod hostile;
mod links;
mod links_archive;
mod links_serve;
/// Shared with noid-archive's tests: a small HTTP server on loopback.
#[path = "../../noid-archive/tests/loopback/mod.rs"]
mod loopback;
mod modified;
mod old_minters;
mod perl_minters;
mod port;
mod progress;
mod rewrite;
mod scenarios;
mod search;
mod slow_clients;
mod spelling;
mod standing;
mod stats;
mod stats_served;
mod table;
mod upload;
