//! What every noid server shares: noidr's line protocols, its HTTP server (noid-http),
//! the web server modules (noid-embed) and `noid serve` (noid-api). These pieces are
//! about answering requests, not about identifiers, and one of them starts a thread, so
//! they live here rather than in noid-core, the foundation of plain values.
//!
//! * [`deadline`]: the lookup-deadline [`deadline::Watchdog`], a thread that answers
//!   in place of a lookup stalled on the store.
//! * [`exposition`]: the Prometheus text format, for noidr's and `noid serve`'s
//!   `/metrics`.
//! * [`html`]: HTML escaping for every page served (the public pages and the console).
//! * [`header`]: stored text made safe for an HTTP header field (no injection).

#![deny(missing_docs)]

pub mod deadline;
pub mod exposition;
pub mod header;
pub mod html;
