//! One request line in, one answer line out, in the protocol chosen on the command line,
//! against the freshest view of the store.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use noid_resolve::egg::{self, Miss};
use noid_resolve::{noid_line, Outcome, Resolver};

use noid_store::{Follower, View};

use crate::args::Protocol;
use crate::current::Current;
use crate::metrics::Metrics;

/// Longest request line whose answer is kept for the next time it is asked.
const MEMO_MAX_LINE: usize = 1024;

/// Longest answer line kept for the next time its request is asked.
const MEMO_MAX_ANSWER: usize = 1024;

/// Answers request lines; shared by nothing but the line loop.
pub struct Answerer {
    protocol: Protocol,
    current: Arc<Current>,
    miss: Miss,
    metrics: Arc<Metrics>,
    follower: Arc<Follower>,
}

impl Answerer {
    /// An answerer for `protocol` on `follower`'s store, with the resolver in force for
    /// the egg protocol, counting its answers in `metrics`.
    pub fn new(
        protocol: Protocol,
        current: Arc<Current>,
        miss: Miss,
        metrics: Arc<Metrics>,
        follower: Arc<Follower>,
    ) -> Answerer {
        Answerer {
            protocol,
            current,
            miss,
            metrics,
            follower,
        }
    }
}

impl Answerer {
    /// The answer to `line` from `view`: the one kept from an earlier request of the
    /// same line ([`View::memo`]) while the view, the resolver in force and the
    /// providers' health are those it was computed with (all three in its key), else
    /// resolved. Errors and long answers are not kept.
    fn answer_from(&self, view: &View, line: &[u8], out: &mut Vec<u8>) -> Outcome {
        // The generation is read before the resolver (see `Current::generation`).
        let generation = self.current.generation();
        let resolver = match self.protocol {
            Protocol::Noid => None,
            Protocol::Egg => Some(self.current.resolver()),
        };
        let resolver = resolver.as_deref().map(Arc::as_ref);
        if line.len() > MEMO_MAX_LINE {
            return self.resolve(resolver, view, line, out);
        }
        let mut key = Vec::with_capacity(16 + line.len());
        if let Some(resolver) = resolver {
            key.extend_from_slice(&generation.to_le_bytes());
            key.extend_from_slice(&resolver.registry().health_changes().to_le_bytes());
        }
        key.extend_from_slice(line);
        let at = out.len();
        let mut computed = false;
        let kept = view.memo(&key, || {
            computed = true;
            let outcome = self.resolve(resolver, view, line, out);
            let answer = &out[at..];
            if outcome == Outcome::Error || answer.len() > MEMO_MAX_ANSWER {
                return Err(outcome);
            }
            let mut kept = Vec::with_capacity(1 + answer.len());
            kept.push(outcome.index() as u8);
            kept.extend_from_slice(answer);
            Ok(Arc::<[u8]>::from(kept))
        });
        match kept {
            Ok(kept) => {
                if !computed {
                    out.extend_from_slice(&kept[1..]);
                }
                Outcome::ALL[usize::from(kept[0])]
            }
            Err(outcome) => outcome,
        }
    }

    /// `line` parsed, resolved on `view` and rendered: in the egg protocol with
    /// `resolver` (given for that protocol only), else in the noid protocol.
    fn resolve(
        &self,
        resolver: Option<&Resolver>,
        view: &View,
        line: &[u8],
        out: &mut Vec<u8>,
    ) -> Outcome {
        match resolver {
            Some(resolver) => egg::answer(resolver, view, line, self.miss, out),
            None => noid_line::answer(view, line, out),
        }
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
        let outcome = match self.follower.fresh() {
            Ok(view) => self.answer_from(&view, line, out),
            Err(e) => {
                log::debug!("store unavailable: {e}");
                match self.protocol {
                    Protocol::Noid => noid_line::error_line(&e, out),
                    Protocol::Egg => egg::error_line(&e, out),
                }
                Outcome::Error
            }
        };
        self.metrics.record(outcome, start);
    }

    /// `error: no answer from the store within N s (--lookup-deadline)`, the error line
    /// of the protocol (a miss to the shipped Apache rules), counted as an error. (The
    /// stalled lookup itself is counted too, with its whole time, once it returns.)
    fn late(&self, deadline: Duration, out: &mut Vec<u8>) {
        let start = Instant::now();
        match self.protocol {
            Protocol::Noid => noid_line::error_line(&Late(deadline), out),
            Protocol::Egg => egg::error_line(&Late(deadline), out),
        }
        self.metrics.record(Outcome::Error, start);
    }
}
