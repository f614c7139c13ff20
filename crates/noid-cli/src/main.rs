//! `noid`: the admin command of a noid minter. Everything happens in [`cli::run`];
//! `main` only turns its outcome into an exit status.

mod args;
mod batch;
mod bulk;
mod cgi;
mod cli;
mod commands;
mod compact;
mod complaint;
mod env;
mod history;
mod invocation;
#[cfg(feature = "links")]
mod links;
#[cfg(not(feature = "links"))]
#[path = "no_links.rs"]
mod links;
mod mode;
mod output;
mod progress;
#[cfg(feature = "postgres")]
mod prune;
#[cfg(not(feature = "postgres"))]
#[path = "no_postgres.rs"]
mod prune;
mod replay;
mod request;
mod resolving;
#[cfg(feature = "search")]
mod search;
#[cfg(not(feature = "search"))]
#[path = "no_search.rs"]
mod search;
#[cfg(feature = "server")]
mod serve;
#[cfg(not(feature = "server"))]
#[path = "no_server.rs"]
mod serve;
mod source;
mod stats;
mod store;
mod usage;

/// Minting and bulk binding allocate many small keys and records, a pattern mimalloc
/// handles better than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_t` values for the vendored mimalloc v3 of libmimalloc-sys 0.1.49
/// (from its `mimalloc.h`; tests/errors.rs checks them by name through mimalloc's own
/// option report).
const MI_OPTION_ARENA_EAGER_COMMIT: std::ffi::c_int = 4;
const MI_OPTION_ALLOW_THP: std::ffi::c_int = 43;

extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// Run before `main` (and before the first Rust allocation): mimalloc's defaults suit
/// long-running servers. Committing its first arena eagerly, in transparent huge pages
/// the kernel must zero, is a visible share of a short command such as a one-lookup
/// `noid get`, and large mints and bulk loads gain nothing from it.
extern "C" fn tune_mimalloc() {
    // SAFETY: plain option setters of the linked mimalloc, called before any allocation
    // from this program's threads.
    unsafe {
        mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        mi_option_set(MI_OPTION_ALLOW_THP, 0);
    }
}

#[used]
#[link_section = ".init_array"]
static TUNE_MIMALLOC: extern "C" fn() = tune_mimalloc;

fn main() {
    let code = cli::run();
    // Everything the command wrote is flushed and every store it opened is closed by now.
    // Leave without running the C++ static destructors of RocksDB and the C runtime's
    // exit handlers: nothing is left for them to do, and they are a noticeable part of
    // a short command such as `noid get` run from a script thousands of times.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process at once; no Rust state is used afterwards.
    unsafe { libc::_exit(i32::from(code)) }
}
