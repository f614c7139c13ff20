//! `noid`: the admin command of a noid minter. Everything happens in [`cli::run`];
//! `main` only turns its outcome into an exit status.

mod args;
mod bulk;
mod cgi;
mod cli;
mod commands;
mod env;
mod output;
mod session;
mod usage;

/// Minting and bulk binding allocate many small keys and records; mimalloc handles
/// that pattern markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
