//! The noid resolver inside a web server's worker processes: `mod_noid` for Apache
//! httpd (a `RewriteMap int:` function) and the nginx module (variables) link this
//! crate as a static library and call its small C ABI (`include/noid_embed.h`, [`ffi`]).
//!
//! A map answers one key of noidr's line protocols with the line noidr answers, by the
//! same call ([`noid_resolve::lines::answer_line`]: the view's memo, then noid-resolve's
//! noid or egg protocol), on a store followed as noidr follows it
//! ([`noid_store::Follower`]: a write is seen at the next lookup). So there is no pipe,
//! no global lock and no proxy hop, and no rule of its own.
//!
//! * `options`: a map's configuration (`KEY=VALUE` words), checked at configuration time.
//! * `map`: a map opened in a worker process; answers as mod_rewrite reads `prg:` lines.
//! * `deadline`: a stalled store answered with the protocol's error line.
//! * `logger`: log lines to the server's error log.
//! * `request`: an HTTP request as an egg line and its answer as a redirect (nginx).
//! * `ffi`: the C ABI; panics are caught at this boundary, logged, answered as errors.
//!
//! Memory per worker process and map: the RocksDB block cache (`cache-mb=`, 64 MiB by
//! default, filled only as blocks are read; every table's index and filter block is
//! pinned there), RocksDB's table readers (every table file of the minter stays open: a
//! file descriptor each), at most `answer-cache=` whole answers shared by the process's
//! threads (262,144 by default, about 380 bytes each as scripts/mem-modules.sh measures
//! them) and per request thread at most `thread-cache=` point reads (4,096 by default,
//! about 150 bytes each).
//! docs/WEB-SERVERS.md has what that means for Apache's children and nginx's workers.

#![deny(missing_docs)]

mod deadline;
pub mod ffi;
mod logger;
mod map;
mod options;
mod request;

pub use map::{Found, HttpRequest, Map};
pub use options::{Config, ConfigError, Protocol};
