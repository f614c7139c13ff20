//! Integration tests of the real `noidr` binary over real pipes. One test binary; the
//! harness is in `util.rs`.

mod util;

mod root_only;

/// Shared with noid-cli's tests: `noid serve` on a port it reports.
#[path = "../../noid-cli/tests/serve.rs"]
mod serve;

mod abuse;
mod anvl;
mod archived;
mod ark;
mod bench_scale;
mod clients;
mod counts;
mod failover;
mod faults;
mod follow;
mod fresh;
mod ha_drill;
mod http;
mod lifecycle;
mod metrics;
mod monitoring;
mod pepper;
mod pgcounts;
mod protocol;
mod providers;
mod robust;
mod signposting;
mod stall;
mod tls;
