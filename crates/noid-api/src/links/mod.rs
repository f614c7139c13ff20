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
mod setup;

pub use setup::{archive_config, binder_writer, checker};

use std::sync::Arc;

use crate::service::Service;

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
