//! `noidr`: the noid resolver daemon.
//!
//! Apache starts one `noidr` per `RewriteMap prg:` and writes it one request per line;
//! every line gets exactly one answer line (see `lines`).
//!
//! A request's path: `lines` reads the request line; `protocol` takes the current view
//! of the store from the follower (crate `noid-store`, which brings it up to date) and
//! answers with the line the view kept for that request, if it was asked before, or
//! hands the line and the view to crate `noid-resolve`, which parses it, resolves it
//! with lookups on the view (its caches, then RocksDB) and renders the answer line.
//! `noid-http` does the same for `--http`. `metrics` counts the answers (per thread).
//! With `--follow` and `--counts`, `ship` adds this node's counts to the minter's
//! database.
//! `main` only parses flags and maps errors to an exit status.

/// Every request allocates its keys and answer; mimalloc's per-thread heaps serve the
/// request threads without the locking glibc's malloc does. RocksDB's C++ keeps the
/// system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod args;
mod current;
mod deadline;
mod http;
mod last_kept;
mod lines;
mod metrics;
mod position;
mod probe;
mod protocol;
#[cfg(feature = "postgres")]
mod replicate;
#[cfg(not(feature = "postgres"))]
#[path = "no_postgres.rs"]
mod replicate;
#[cfg(feature = "postgres")]
mod ship;
mod signals;

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use anyhow::Context;
use std::os::fd::AsFd;
use std::sync::Arc;

use clap::Parser;
use noid_counts::{counts_dir_of, Counting, CountsDir};
use noid_resolve::Resolver;
use noid_store::Follower;

use crate::args::{Args, Config, Mode};
use crate::metrics::Metrics;

fn main() -> ! {
    let argv0 = std::env::args().next().unwrap_or_else(|| "noidr".into());
    let code = match run(Args::parse(), &argv0) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("noidr: error: {e:#}");
            2
        }
    };
    // Leave without running RocksDB's C++ static destructors (or the C runtime's exit
    // handlers): at the end of input a thread of the store's may still be inside
    // RocksDB (the follower's catch-up on a slow disk, a lookup the deadline answered
    // in place of), and destroying those statics under it aborts the process
    // ("pthread lock: Invalid argument"): a clean end of input ended as a crash.
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    // SAFETY: `_exit` ends the process at once; no Rust state is used afterwards.
    unsafe { libc::_exit(i32::from(code)) }
}

/// The exit status when all went well (an error is 2, in `main`).
fn run(args: Args, argv0: &str) -> anyhow::Result<u8> {
    let cfg = Config::from_args(args, argv0)?;
    env_logger::Builder::new()
        .filter_level(cfg.log_level)
        .target(env_logger::Target::Stderr)
        .format_timestamp_millis()
        .init();
    match &cfg.mode {
        Mode::CheckRegistry => return Ok(check_registry(&cfg)),
        Mode::WriteRegistry(out) => return write_registry(&cfg, out),
        _ => {}
    }
    let current = Arc::new(current::Current::new(
        Resolver::with_registry(cfg.rules, cfg.registry),
        cfg.rules_file,
        cfg.registry_file,
    ));
    if let Some(probes) = &cfg.probes {
        probe::spawn(current.clone(), probes)?;
    }
    let metrics = Arc::new(match &cfg.follow {
        Some(follow) => Metrics::following(replicate::start(follow, &cfg.dbdir)?),
        None => Metrics::default(),
    });
    let counting = match cfg.counts {
        Some(interval) => {
            #[cfg(feature = "postgres")]
            if let Some(follow) = &cfg.follow {
                ship::start(&follow.location, &cfg.dbdir, interval)?;
            }
            let dir = CountsDir::new(counts_dir_of(&cfg.dbdir));
            let counting = Counting::start(&dir, interval)
                .with_context(|| format!("--counts: cannot write in {}", dir.path().display()))?;
            Some(counting)
        }
        None => None,
    };
    let follower = Follower::new(&cfg.dbdir, cfg.secondary_dir.as_deref(), cfg.cache_bytes);
    follower.spawn_background()?;
    let result = match cfg.mode {
        Mode::Lines(protocol) => {
            signals::spawn(
                follower.clone(),
                metrics.clone(),
                current.clone(),
                true,
                counting.clone(),
            )?;
            let answerer = protocol::Answerer::new(
                protocol,
                current,
                cfg.miss,
                metrics,
                follower.clone(),
                counting.clone(),
            );
            // Our own handles on fds 0 and 1: the loop does its own buffering (and needs
            // to see whether more input is buffered), so std's LineWriter is bypassed.
            let input = File::from(io::stdin().as_fd().try_clone_to_owned()?);
            let output = File::from(io::stdout().as_fd().try_clone_to_owned()?);
            lines::serve(input, output, answerer, cfg.deadline)
                .map(|n| log::info!("end of input after {n} requests"))
        }
        Mode::CheckRegistry | Mode::WriteRegistry(_) => unreachable!("handled above"),
        Mode::Http {
            addr,
            threads,
            limits,
        } => {
            if let Some(counting) = &counting {
                // HTTP requests carry User-Agents: no request waits for the list.
                counting.prepare_robots();
            }
            signals::spawn(
                follower.clone(),
                metrics.clone(),
                current.clone(),
                false,
                counting.clone(),
            )?;
            http::serve(
                &addr,
                threads,
                limits,
                http::Backend::new(follower.clone(), current, metrics, counting.clone()),
            )
        }
    };
    finish_counting(counting.as_deref());
    follower.stop();
    match result {
        Ok(()) => Ok(0),
        // Apache went away: nobody is left to answer.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(e.into()),
    }
}

/// Writes what `--counts` counted since its last write, at a clean end (and, with
/// `--follow`, ships it).
fn finish_counting(counting: Option<&Counting>) {
    if let Some(Err(e)) = counting.map(Counting::finish) {
        log::error!("cannot write the counts: {e}");
    }
    #[cfg(feature = "postgres")]
    ship::at_end();
}

/// `--check-registry`: the file parsed (or `Config` would have failed, naming the line);
/// say what it holds.
fn check_registry(cfg: &Config) -> u8 {
    let (schemes, naans, shoulders, providers) = cfg.registry.counts();
    let probed = cfg.registry.probes().len();
    let file = cfg.registry_file.as_deref().unwrap_or(Path::new("-"));
    println!(
        "{}: ok: {} records ({schemes} schemes, {naans} NAANs or prefixes, {shoulders} \
         shoulders), {providers} providers, {probed} probed",
        file.display(),
        cfg.registry.records().len(),
    );
    0
}

/// `--write-registry OUT`: the canonical text, to OUT or stdout.
fn write_registry(cfg: &Config, out: &Path) -> anyhow::Result<u8> {
    let text = cfg.registry.to_text();
    if out == Path::new("-") {
        io::stdout().write_all(text.as_bytes())?;
    } else {
        std::fs::write(out, text)
            .with_context(|| format!("cannot write registry file {}", out.display()))?;
    }
    Ok(0)
}
