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

fn main() -> std::process::ExitCode {
    cli::run()
}
