//! Integration tests of the `noid` binary: each test drives the real executable
//! against a real RocksDB minter in its own temporary directory.

mod util;

/// Shared with noidr's tests: the tests that need root.
#[path = "../../noidr/tests/root_only.rs"]
mod root_only;

mod serve;

mod api;
mod beyond_perl;
mod bind;
mod cgi;
mod check_spellings;
mod concurrency;
mod conformance;
mod console;
mod egg;
mod errors;
mod faults;
mod hardening;
mod hostile;
mod modified;
mod old_minters;
mod perl_minters;
mod port;
mod progress;
mod scenarios;
mod spelling;
mod standing;
mod table;
mod upload;
