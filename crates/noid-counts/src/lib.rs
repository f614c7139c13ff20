//! Resolution counts: how often each identifier was resolved, and how (a redirect
//! and its code, an inflection, another page, a miss), per UTC day, with robots
//! counted apart from people.
//!
//! * [`Counting`] is what a serving process holds: request threads call
//!   [`Counting::count`] (a per-thread [`Tally`]; no lock shared between threads, no
//!   allocation on a repeat), and a thread flushes the tally every few seconds to the
//!   process's own segment of the counts store.
//! * [`CountsDir`] is the store (`DIR/counts/`): segments that many processes append
//!   to at once, read back summed, compacted when their writers are gone.
//! * [`Shipping`] says what a directory has not shipped yet to a store that adds up
//!   several directories' counts (PostgreSQL, by noidr `--follow`), and records how
//!   far it was shipped.
//! * [`Query`] makes a [`Report`] of what was read: per day, per kind and class, the
//!   most resolved and most asked missing identifiers (`noid stats`).
//! * [`Robots`] classes a User-Agent by the COUNTER-Robots list shipped in `data/`.
//!
//! No IP address and no User-Agent is ever stored: a count is a day, an identifier,
//! a kind, a class and a number (the format is in [`segment`]).

mod counting;
mod key;
pub mod lines;
mod report;
mod robots;
pub mod segment;
mod shipping;
mod store;
mod tally;

pub use counting::{Asker, Counting, DEFAULT_INTERVAL};
pub use key::{day_text, today, Class, Day, Kind};
pub use report::{summed, DayTallies, Key, Query, Ranked, Report, Tallies};
pub use robots::{Robots, COUNTER_ROBOTS};
pub use segment::{Entry, MAX_ID};
pub use shipping::{Shipping, Unshipped, SHIPPING_FILE};
pub use store::{counts_dir_of, Compacted, CountsDir, SegmentWriter};
pub use tally::{group_index, Tally, Totals};

/// The kind groups in the order of [`Totals`].
pub const GROUPS: [&str; 5] = ["hit", "redirect", "miss", "inflection", "page"];
