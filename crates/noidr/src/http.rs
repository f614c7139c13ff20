//! `noidr --http`: the HTTP server of crate `noid-http`, resolving with the same
//! [`Resolver`] and the same store follower as the line protocols.

use std::sync::Arc;

use noid_resolve::{Answer, LookupError, Request, Resolver};
use noid_store::Follower;

/// The HTTP server's view of the resolver.
pub struct Backend {
    follower: Arc<Follower>,
    resolver: Resolver,
}

impl Backend {
    /// A backend resolving with `resolver` on `follower`'s store.
    pub fn new(follower: Arc<Follower>, resolver: Resolver) -> Backend {
        Backend { follower, resolver }
    }
}

impl noid_http::Backend for Backend {
    fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError> {
        self.resolver.resolve(&*self.follower.fresh()?, req)
    }

    fn health(&self) -> Result<(), LookupError> {
        Ok(self.follower.current().map(|_| ())?)
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
        noid_http::terminate_signal(),
    )
}
