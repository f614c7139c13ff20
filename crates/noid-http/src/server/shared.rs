//! What every server thread shares: the backend, the limits, the lookup deadline's watch,
//! the count of open connections and the shutdown.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use crate::deadline;
use crate::{Backend, Config, Shutdown};

/// What every server thread shares.
pub(crate) struct Shared {
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) config: Config,
    /// The lookup deadline's watch: one for all threads, so that once a
    /// lookup is claimed every thread answers 503 at once instead of stalling on the
    /// store too.
    pub(crate) watch: Option<Arc<deadline::Watch>>,
    /// Connections open, over all threads ([`Config::max_connections`]).
    pub(crate) open: AtomicUsize,
    /// Connections open by client address ([`Config::max_connections_per_client`]).
    pub(crate) clients: super::Clients,
    pub(crate) shutdown: Shutdown,
}
