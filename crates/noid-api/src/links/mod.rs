//! The link checker inside `noid serve` (docs/LINKS.md): with a `[links]` section, one
//! schedule per binder directory ([`schedule`]) walks its identifiers in key order and
//! checks each target once per interval, recording the outcomes through the
//! directory's writer thread (noid-binder's `Work::Links`); the gauges on `/metrics`
//! ([`gauges`]); the owners' digests ([`digest`]).
//!
//! The checking itself (requests, the address guard, classification) is noid-links's
//! [`Checker`]: the schedule only decides when, and records the writes
//! (`noid_links::writes`) of each outcome.

pub mod digest;
pub mod gauges;
pub mod schedule;

use std::sync::Arc;
use std::time::Duration;

use noid_binder::api::LinksConfig;
use noid_links::{Checker, CheckerConfig, Policy};

use crate::service::Service;

/// The checker and policy `[links]` asks for (a CA file that cannot be read is an error).
pub fn checker(links: &LinksConfig) -> Result<(Checker, Policy), String> {
    let mut config = CheckerConfig::new(links.contact.as_deref().unwrap_or_default());
    config.concurrency = links.concurrency;
    config.per_host = links.per_host;
    config.allow_net = links.allowed_nets();
    let policy = Policy {
        failures: links.failures,
        span: links.span,
        ..Policy::default()
    };
    Ok((
        Checker::new(config).map_err(|e| format!("links: {e}"))?,
        policy,
    ))
}

/// The archive client the schedule asks for archived copies (the `timegate` of
/// `[links]`, or the Internet Archive's).
pub fn archive_config(links: &LinksConfig) -> Result<noid_archive::Config, String> {
    let agent = format!(
        "noid/{} (archived copies; +{})",
        env!("CARGO_PKG_VERSION"),
        links.contact.as_deref().unwrap_or_default()
    );
    let timegate = links
        .timegate
        .as_deref()
        .unwrap_or(noid_archive::DEFAULT_TIMEGATE);
    noid_archive::Config::with(
        timegate,
        noid_archive::DEFAULT_SAVE,
        &agent,
        Duration::from_secs(30),
    )
    .map_err(|e| format!("links: timegate: {e}"))
}

/// Start the schedules of every binder directory, each with its populators' digests,
/// when `[links]` is configured (on this runtime; they end with it). An error (a
/// digest address that is not one) stops the server at startup.
pub fn start(service: &Arc<Service>) -> Result<(), String> {
    let Some(links) = service.site().config().links.clone() else {
        return Ok(());
    };
    // Made once now so that a checker that cannot be made stops the server at
    // startup; each round makes its own.
    checker(&links)?;
    archive_config(&links)?;
    let destinations = match &links.digest {
        Some(d) => digest::destinations(service, d)?,
        None => Default::default(),
    };
    for (label, dir) in binders(service) {
        let digests = links.digest.as_ref().map(|d| {
            Arc::new(digest::Digests::new(
                service.clone(),
                dir.clone(),
                &links,
                d,
                &destinations,
            ))
        });
        let schedule = schedule::Schedule::new(service.clone(), dir, label, links.clone(), digests);
        tokio::spawn(schedule.run());
    }
    Ok(())
}

/// The writer thread of binder `dir`, as its populators' requests have it: with the
/// binder's write log (whichever way in starts the thread first sets its log, so the
/// link checker's must name it too, or the API's writes after it would go unlogged).
pub fn binder_writer(service: &Service, dir: &std::path::Path) -> noid_binder::DirectoryWriter {
    let log = service
        .site()
        .populators()
        .values()
        .find(|p| p.populator.binder.as_deref() == Some(dir))
        .and_then(|p| p.log_path());
    service.store(dir, log)
}

/// Each binder directory once, named by the first populator (in name order) whose
/// binder it is: the `binder` label of the gauges.
pub fn binders(service: &Service) -> Vec<(String, std::path::PathBuf)> {
    let mut seen: Vec<(String, std::path::PathBuf)> = Vec::new();
    for (name, p) in service.site().populators() {
        if let Some(dir) = &p.populator.binder {
            if !seen.iter().any(|(_, d)| d == dir) {
                seen.push((name.clone(), dir.clone()));
            }
        }
    }
    seen
}
