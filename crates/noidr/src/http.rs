//! `noidr --http`: the HTTP server of crate `noid-http`, resolving with the same
//! resolver ([`Current`]) and the same store follower as the line protocols.

use std::sync::Arc;
use std::time::Instant;

use noid_resolve::{Answer, LookupError, Outcome, Request};
use noid_store::Follower;

use crate::current::Current;
use crate::metrics::Metrics;

/// The HTTP server's view of the resolver.
pub struct Backend {
    follower: Arc<Follower>,
    current: Arc<Current>,
    metrics: Arc<Metrics>,
}

impl Backend {
    /// A backend resolving with the resolver in force on `follower`'s store, counting
    /// its answers in `metrics`.
    pub fn new(follower: Arc<Follower>, current: Arc<Current>, metrics: Arc<Metrics>) -> Backend {
        Backend {
            follower,
            current,
            metrics,
        }
    }
}

impl noid_http::Backend for Backend {
    fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError> {
        let start = Instant::now();
        let result = self
            .follower
            .fresh()
            .map_err(LookupError::from)
            .and_then(|view| self.current.resolver().resolve_counted(&*view, req));
        match result {
            Ok((answer, outcome)) => {
                self.metrics.record(outcome, start);
                Ok(answer)
            }
            Err(e) => {
                self.metrics.record(Outcome::Error, start);
                Err(e)
            }
        }
    }

    /// Open and followed (`GET /healthz`): 503 while the minter's `NOID/` is missing.
    fn health(&self) -> Result<(), LookupError> {
        Ok(self.follower.health()?)
    }

    fn metrics(&self) -> Option<String> {
        Some(self.metrics.prometheus(&self.follower.status()))
    }

    fn last_modified(&self, id: &str) -> Result<Option<i64>, LookupError> {
        noid_resolve::modified::last_write(&*self.follower.fresh()?, id)
    }

    fn ark_service(&self) -> Result<noid_http::ArkService, LookupError> {
        let resolver = self.current.resolver();
        noid_resolve::wellknown::ark_service(&*self.follower.fresh()?, resolver.rules())
    }
}

/// Serve HTTP on `addr` within `limits` until SIGTERM/SIGINT (handled by the server:
/// it drains open connections first).
pub fn serve(
    addr: &str,
    threads: usize,
    limits: noid_http::Config,
    backend: Backend,
) -> std::io::Result<()> {
    noid_http::run_with(
        addr,
        Arc::new(backend),
        threads,
        limits,
        noid_http::Shutdown::on_terminate_signals()?,
    )
}
