//! One request line in, one answer line out, in the protocol chosen on the command line,
//! against the freshest view of the store.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use noid_resolve::egg::{self, Miss};
use noid_resolve::{noid_line, Outcome};

use noid_resolve::lines::{self, Answered, LineProtocol};
use noid_store::{Follower, StoreError, View};

use noid_counts::{lines as counted, Class, Counting};

use crate::args::Protocol;
use crate::current::Current;
use crate::metrics::Metrics;

/// Answers request lines; shared by nothing but the line loop.
pub struct Answerer {
    protocol: Protocol,
    current: Arc<Current>,
    miss: Miss,
    metrics: Arc<Metrics>,
    follower: Arc<Follower>,
    counting: Option<Arc<Counting>>,
}

impl Answerer {
    /// An answerer for `protocol` on `follower`'s store, with the resolver in force for
    /// the egg protocol, counting its answers in `metrics` (and, with `--counts`, per
    /// identifier in `counting`).
    pub fn new(
        protocol: Protocol,
        current: Arc<Current>,
        miss: Miss,
        metrics: Arc<Metrics>,
        follower: Arc<Follower>,
        counting: Option<Arc<Counting>>,
    ) -> Answerer {
        Answerer {
            protocol,
            current,
            miss,
            metrics,
            follower,
            counting,
        }
    }
}

impl Answerer {
    /// The answer to `line` from `view` (see [`lines::answer_line`]), in the protocol
    /// chosen on the command line with the resolver in force.
    fn answer_from(&self, view: &View, line: &[u8], out: &mut Vec<u8>) -> Answered {
        match self.protocol {
            Protocol::Noid => lines::answer_line(view, LineProtocol::Noid, line, out),
            Protocol::Egg => {
                // The generation is read before the resolver (see `Current::generation`).
                let generation = self.current.generation();
                let resolver = self.current.resolver();
                let protocol = LineProtocol::Egg {
                    resolver: &resolver,
                    generation,
                    miss: self.miss,
                };
                lines::answer_line(view, protocol, line, out)
            }
        }
    }

    /// The error line of the protocol for `e`.
    fn error_line(&self, e: &dyn fmt::Display, out: &mut Vec<u8>) {
        match self.protocol {
            Protocol::Noid => noid_line::error_line(e, out),
            Protocol::Egg => egg::error_line(e, out),
        }
    }
}

/// What an answer says of a store error: its text with the minter's directory named
/// by its last component (`cannot open minter sam: no database
/// (sam/NOID/noid.rocksdb) -- use dbcreate?` for `/srv/noid/sam`), not where it is on
/// the disk; the full text goes to the log.
fn named_store(e: &StoreError) -> String {
    let text = e.to_string();
    let (StoreError::Unavailable { dbdir, .. } | StoreError::NotFollowed(dbdir)) = e else {
        return text;
    };
    match dbdir.file_name() {
        Some(name) => text.replace(&dbdir.display().to_string(), &name.to_string_lossy()),
        None => text,
    }
}

/// The error of a request the store did not answer in time.
struct Late(Duration);

impl fmt::Display for Late {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no answer from the store within {} s (--lookup-deadline)",
            self.0.as_secs_f64()
        )
    }
}

impl crate::lines::AnswerLines for Answerer {
    /// Append exactly one answer line for `line` to `out`. A store that cannot be read
    /// gives one `error: …` line, never a missing line.
    fn answer(&self, line: &[u8], out: &mut Vec<u8>) {
        let start = Instant::now();
        let at = out.len();
        let answered = match self.follower.fresh() {
            Ok(view) => self.answer_from(&view, line, out),
            Err(e) => {
                log::debug!("store unavailable: {e}");
                self.error_line(&named_store(&e), out);
                Answered {
                    outcome: Outcome::Error,
                    kept: None,
                }
            }
        };
        self.metrics.record(answered.outcome, start);
        if let Some(counting) = &self.counting {
            let protocol = match self.protocol {
                Protocol::Noid => counted::Protocol::Noid,
                Protocol::Egg => counted::Protocol::Egg,
            };
            let id = || counted::line_identifier(protocol, line);
            counted::count_line(counting, protocol, id, Class::Person, &answered, &out[at..]);
        }
    }

    /// `error: no answer from the store within N s (--lookup-deadline)`, the error line
    /// of the protocol (a miss to the shipped Apache rules), counted as an error. (The
    /// stalled lookup itself is counted too, with its whole time, once it returns.)
    fn late(&self, deadline: Duration, out: &mut Vec<u8>) {
        let start = Instant::now();
        self.error_line(&Late(deadline), out);
        self.metrics.record_late(start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_store_error_names_the_directory_not_its_path() {
        let dbdir = PathBuf::from("/srv/noid/binders/sam");
        let e = StoreError::Unavailable {
            dbdir: dbdir.clone(),
            cause: Arc::new(StoreError::NoDatabase(dbdir.join("NOID/noid.rocksdb"))),
        };
        assert_eq!(
            named_store(&e),
            "cannot open minter sam: no database (sam/NOID/noid.rocksdb) -- use dbcreate?"
        );
        assert_eq!(
            named_store(&StoreError::NotFollowed(dbdir)),
            "minter sam was removed or replaced and is not followed (yet)"
        );
    }
}
