//! One configured map in one worker process: the followed store, the protocol (and for
//! the egg protocol the resolver), the deadline.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use noid_resolve::egg::{self, Miss};
use noid_resolve::lines::{answer_kept, answer_line, resolve, Answered, LineProtocol};
use noid_resolve::memo::Kind;
use noid_resolve::{noid_line, Outcome, Resolver};
use noid_store::{AnswerRegion, Follower, StoreError, View, ViewRef};

use noid_counts::lines::{self as counted, line_identifier};
use noid_counts::{counts_dir_of, Asker, Counting, CountsDir};

use crate::deadline::{Deadline, SharedWord};
use crate::options::{Config, ConfigError, Protocol};
use crate::request::{egg_line, egg_line_as_sent, plain_redirect};

/// What a key is answered with, as mod_rewrite reads a `prg:` answer line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A value (the answer line without its newline).
    Value,
    /// Not found: the answer `NULL` (any case), or a key that holds a newline, which
    /// httpd never sends to a `prg:` program.
    NotFound,
    /// An error line (`error: …`): the store could not be read or did not answer in
    /// time. Like a `prg:` answer, it is still a value.
    Error,
}

/// A map opened in a worker process (after fork: it has a thread of its own).
pub struct Map {
    protocol: Protocol,
    resolver: Option<Resolver>,
    miss: Miss,
    follower: Arc<Follower>,
    /// Whether a lookup has tried to open the store (see [`Map::view`]).
    open_tried: AtomicBool,
    deadline: Deadline,
    limit: Option<Duration>,
    /// `counts=`: this worker's resolution counts, written to a segment of its own.
    counting: Option<Arc<Counting>>,
}

impl Map {
    /// Make `config`'s map and start following its store: the store itself is opened by
    /// the first lookup, under the deadline ([`Map::view`]), not here, so that a worker
    /// process starts (and accepts requests) even while its store stalls. A store that
    /// cannot be opened yet (not created, moved away) is not an error: lookups answer
    /// error lines and the follower tries again every second. `shared`: the word through which the web
    /// server's processes tell each other of a stalled store (see [`crate::deadline`]);
    /// `region`: where they keep answers for one another (`shared-answers=`).
    pub fn open(
        config: &Config,
        shared: Option<SharedWord>,
        region: Option<AnswerRegion>,
    ) -> Result<Map, ConfigError> {
        let resolver = match config.protocol {
            Protocol::Noid => None,
            Protocol::Egg => Some(Resolver::with_registry(
                config.read_rules()?,
                Arc::new(config.read_registry()?),
            )),
        };
        let follower = Follower::unopened(
            &config.dbdir,
            config.secondary_dir.as_deref(),
            config.cache_mb << 20,
            config.thread_cache(region),
        );
        let started = |e: std::io::Error| ConfigError(format!("cannot start a thread: {e}"));
        follower.spawn_background().map_err(started)?;
        let deadline = Deadline::new(config.deadline, shared).map_err(started)?;
        let counting = match config.counts {
            None => None,
            Some(interval) => {
                let dir = CountsDir::new(counts_dir_of(&config.dbdir));
                let counting = Counting::start(&dir, interval).map_err(|e| {
                    ConfigError(format!(
                        "counts=: cannot write in {}: {e}",
                        dir.path().display()
                    ))
                })?;
                Some(counting)
            }
        };
        Ok(Map {
            protocol: config.protocol,
            resolver,
            miss: config.miss,
            follower,
            open_tried: AtomicBool::new(false),
            deadline,
            limit: config.deadline,
            counting,
        })
    }

    /// Append the answer to `key` (one request line of the protocol, without its
    /// newline) to `out`, without a newline, and say what it is: what noidr answers
    /// to the same line on the same store, read as mod_rewrite reads it.
    pub fn answer(&self, key: &[u8], out: &mut Vec<u8>) -> Found {
        if key.contains(&b'\n') {
            return Found::NotFound;
        }
        let counted = Counted {
            id: || line_identifier(self.counted_protocol(), key),
            asker: Asker::Unseen,
            plain_only: false,
        };
        self.answered(counted, out, |view, protocol, out| {
            answer_line(view, protocol, key, out)
        })
    }

    /// Append the egg answer to an HTTP request (the nginx module, mod_noid's
    /// `NoidResolve`): the answer to the line [`egg_line`] makes of it, kept by the
    /// raw request itself (and not also by the line), so that a request asked before
    /// costs one look-up (no line made) and one asked for the first time one
    /// insertion. With `plain_only` (`NoidResolve`, which leaves any other answer to
    /// the rules, whose own look-up counts it), only a plain redirect is counted.
    pub fn answer_request(
        &self,
        request: &HttpRequest<'_>,
        plain_only: bool,
        out: &mut Vec<u8>,
    ) -> Found {
        let HttpRequest {
            target,
            scheme,
            accept,
            user_agent,
        } = *request;
        let line_answer = |view: &View, protocol: LineProtocol<'_>, out: &mut Vec<u8>| {
            let mut line = Vec::with_capacity(target.len() + accept.len() + 40);
            if !egg_line(target, scheme, accept, &mut line) {
                // as noidr --http (and `answer`: a key httpd would never send)
                out.extend_from_slice(b"NULL");
                return Outcome::Miss;
            }
            // The answer is kept by the request it was made from (below), not by its line.
            let at = out.len();
            let outcome = resolve(view, protocol, &line, out);
            // An ARK holding `%7E` or `%2F`, at its own URL (not decoded), as noidr --http.
            line.clear();
            if outcome == Outcome::Miss && egg_line_as_sent(target, scheme, accept, &mut line) {
                out.truncate(at);
                return resolve(view, protocol, &line, out);
            }
            outcome
        };
        let counted = Counted {
            // As sent: the request-target without its `/` (still %-encoded).
            id: || Some(target.strip_prefix(b"/").unwrap_or(target)),
            asker: Asker::UserAgent(user_agent),
            plain_only,
        };
        self.answered(counted, out, |view, protocol, out| {
            let fields = [Some(target), Some(scheme)];
            answer_kept(
                view,
                protocol,
                Kind::EggRequest,
                &fields,
                accept,
                out,
                |out| line_answer(view, protocol, out),
            )
        })
    }

    /// `ask`'s answer on the freshest view of the store (a write that has returned is
    /// seen) in the map's protocol, unless the deadline answers; without its newline,
    /// and what it is. With `counts=`, the answer is counted as `counted` says.
    fn answered<'a>(
        &self,
        counted: Counted<'a, impl FnOnce() -> Option<&'a [u8]>>,
        out: &mut Vec<u8>,
        ask: impl FnOnce(&View, LineProtocol<'_>, &mut Vec<u8>) -> Answered,
    ) -> Found {
        let at = out.len();
        let asked = self.deadline.run(|| {
            let view = match self.view() {
                Ok(view) => view,
                Err(e) => {
                    log::debug!("store unavailable: {e}");
                    self.error_line(&e, out);
                    return Answered::unkept(Outcome::Error);
                }
            };
            let protocol = match &self.resolver {
                None => LineProtocol::Noid,
                Some(resolver) => LineProtocol::Egg {
                    resolver,
                    generation: 0,
                    miss: self.miss,
                },
            };
            ask(&view, protocol, out)
        });
        let answered = asked.unwrap_or_else(|| {
            self.error_line(&Late(self.limit.unwrap_or_default()), out);
            Answered::unkept(Outcome::Error)
        });
        if out.last() == Some(&b'\n') {
            out.pop();
        }
        if let Some(counting) = &self.counting {
            let answer = &out[at..];
            if !counted.plain_only || plain_redirect(answer).is_some() {
                let class = counting.class_of(counted.asker);
                let protocol = self.counted_protocol();
                counted::count_line(counting, protocol, counted.id, class, &answered, answer);
            }
        }
        let outcome = answered.outcome;
        if outcome == Outcome::Error {
            Found::Error
        } else if out[at..].eq_ignore_ascii_case(b"NULL") {
            Found::NotFound
        } else {
            Found::Value
        }
    }

    /// The freshest view of the store. Until a lookup has tried to open the store, a
    /// lookup that finds it not open opens it (or waits for the open under way on
    /// another thread); after that, the follower's thread retries a store that could
    /// not be opened.
    fn view(&self) -> Result<ViewRef, StoreError> {
        let fresh = self.follower.fresh();
        if fresh.is_ok() || self.open_tried.load(Ordering::Acquire) {
            return fresh;
        }
        // logged by the follower; a failure is answered by `fresh` below
        let _ = self.follower.open_once();
        self.open_tried.store(true, Ordering::Release);
        self.follower.fresh()
    }

    /// The map's protocol, as the counts know it.
    fn counted_protocol(&self) -> counted::Protocol {
        match self.protocol {
            Protocol::Noid => counted::Protocol::Noid,
            Protocol::Egg => counted::Protocol::Egg,
        }
    }

    /// The protocol's error line for `e`.
    pub(crate) fn error_line(&self, e: &dyn fmt::Display, out: &mut Vec<u8>) {
        match self.protocol {
            Protocol::Noid => noid_line::error_line(e, out),
            Protocol::Egg => egg::error_line(e, out),
        }
    }

    /// Whether lookups are answered late now (a stalled lookup is under way).
    pub fn stalled(&self) -> bool {
        self.deadline.stalled()
    }
}

impl Drop for Map {
    /// The counts are written, and the follower stops and removes its secondaries'
    /// directories.
    fn drop(&mut self) {
        if let Some(Err(e)) = self.counting.as_deref().map(Counting::finish) {
            log::error!("cannot write the counts: {e}");
        }
        self.follower.stop();
    }
}

/// An HTTP request as a module passes it: the raw request-target, the scheme, the
/// `Accept` header and the `User-Agent` header (`None` without one).
#[derive(Debug, Clone, Copy)]
pub struct HttpRequest<'a> {
    /// The request-target as sent (`/ark:/…`, still %-encoded).
    pub target: &'a [u8],
    /// `http` or `https`.
    pub scheme: &'a [u8],
    /// The `Accept` header (empty without one).
    pub accept: &'a [u8],
    /// The `User-Agent` header, read only to class the asker for the counts.
    pub user_agent: Option<&'a [u8]>,
}

/// What a module's answer counts as: the identifier `id` finds, asked by `asker`,
/// and whether only a plain redirect counts (see [`Map::answer_request`]).
struct Counted<'a, I> {
    id: I,
    asker: Asker<'a>,
    plain_only: bool,
}

/// The error of a lookup answered without the store, after another stalled.
struct Late(Duration);

impl fmt::Display for Late {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no answer from the store within {} s (deadline=)",
            self.0.as_secs_f64()
        )
    }
}
