//! What the schedule and the digests are made with, apart from the module that starts
//! them (so that neither imports it back): the checker `[links]` asks for, the archive
//! client, and the binder's writer thread.

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
