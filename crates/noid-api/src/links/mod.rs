//! The link checker inside `noid serve` (docs/LINKS.md): with a `[links]` section, one
//! schedule per binder directory ([`schedule`]) walks its identifiers in key order and
//! checks each target once per interval, recording the outcomes through the
//! directory's writer thread (noid-binder's `Work::Links`); the gauges on `/metrics`
//! ([`gauges`]); the owners' digests ([`digest`]).
//!
//! The checking itself (requests, the address guard, classification) is the
//! [`Checker`]'s: the schedule only decides when and records what it is given.

pub mod digest;
pub mod gauges;
pub mod schedule;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use noid_core::links::LinkState;
use noid_core::{Lookup, LookupError};

use crate::service::Service;

/// Store writes (`Some`: put, `None`: delete), as noid-binder's `Work::Links` takes them.
pub type Writes = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// What the schedule asks of the link checker.
pub trait Checker: Send + Sync + 'static {
    /// The targets of `id` as stored (`_t`, content-negotiated targets, alternate
    /// providers), in the order they are checked.
    fn targets(&self, store: &dyn Lookup, id: &str) -> Result<Vec<String>, LookupError>;

    /// Check `target` of `id` whose last recorded state is `previous`: the writes that
    /// record the outcome (its new state, and a change of status in its history).
    fn check(
        &self,
        id: String,
        target: String,
        previous: Option<LinkState>,
    ) -> Pin<Box<dyn Future<Output = Writes> + Send>>;
}

/// Start the schedules of every binder directory, each with its populators' digests,
/// when `[links]` is configured (on this runtime; they end with it). An error (a
/// digest address that is not one) stops the server at startup.
pub fn start(service: &Arc<Service>, checker: Arc<dyn Checker>) -> Result<(), String> {
    let Some(links) = service.site().config().links.clone() else {
        return Ok(());
    };
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
        let schedule = schedule::Schedule::new(
            service.clone(),
            dir,
            label,
            links.clone(),
            checker.clone(),
            digests,
        );
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
