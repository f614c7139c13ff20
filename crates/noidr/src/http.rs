//! `noidr --http`: the HTTP server of crate `noid-http`, resolving with the same
//! resolver ([`Current`]) and the same store follower as the line protocols.

use std::sync::Arc;
use std::time::Instant;

use noid_core::{Kept, LookupError};
use noid_resolve::{memo, Answer, Outcome, Request};
use noid_store::{Follower, View};

use noid_counts::{Asker, Counting, Kind};

use crate::current::Current;
use crate::last_kept;

use crate::metrics::Metrics;

/// The HTTP server's view of the resolver.
pub struct Backend {
    follower: Arc<Follower>,
    current: Arc<Current>,
    metrics: Arc<Metrics>,
    counting: Option<Arc<Counting>>,
}

impl Backend {
    /// A backend resolving with the resolver in force on `follower`'s store, counting
    /// its answers in `metrics` (and, with `--counts`, per identifier in `counting`).
    pub fn new(
        follower: Arc<Follower>,
        current: Arc<Current>,
        metrics: Arc<Metrics>,
        counting: Option<Arc<Counting>>,
    ) -> Backend {
        Backend {
            follower,
            current,
            metrics,
            counting,
        }
    }
}

impl Backend {
    /// The answer to `req` on `view`: a redirect or a miss asked for before is taken
    /// from the view's memo ([`View::memo`], kept per thread until the view moves),
    /// while the resolver in force and the providers' health are those it was
    /// resolved with (both in the key, [`memo::key`]); any other answer
    /// (pages, errors) is resolved each time.
    fn answer(&self, view: &View, req: &Request<'_>) -> Result<(Answer, Outcome), LookupError> {
        // The generation is read before the resolver (see `Current::generation`).
        let generation = self.current.generation();
        let resolver = self.current.resolver();
        let stamp = (generation, resolver.registry().health_changes());
        let fields = [req.accept, req.proto].map(|p| p.map(str::as_bytes));
        let counted = self.counting.is_some();
        if counted {
            last_kept::forget();
        }
        let Some(key) = memo::key(memo::Kind::Http, Some(stamp), &fields, req.id.as_bytes()) else {
            return resolver.resolve_counted(view, req);
        };
        let mut computed = None;
        let kept = view.memo(&key, || {
            let resolved = resolver.resolve_counted(view, req);
            let value = match &resolved {
                Ok((Answer::Redirect { code, target }, outcome))
                    if target.len() <= memo::MAX_ANSWER =>
                {
                    let mut kept = Vec::with_capacity(3 + target.len());
                    kept.push(outcome.index() as u8);
                    kept.extend_from_slice(&code.to_le_bytes());
                    kept.extend_from_slice(target.as_bytes());
                    Kept::new(kept)
                }
                Ok((Answer::NotFound, outcome)) => Kept::new(&[outcome.index() as u8][..]),
                _ => return Err(resolved),
            };
            computed = Some(resolved);
            Ok(value)
        });
        if let (Ok(kept), true) = (&kept, counted) {
            last_kept::remember(kept, req.id);
        }
        match (kept, computed) {
            (Ok(_), Some(resolved)) | (Err(resolved), _) => resolved,
            (Ok(kept), None) => {
                let outcome = Outcome::ALL[usize::from(kept[0])];
                let answer = match kept.get(1..3) {
                    None => Answer::NotFound,
                    Some(code) => Answer::Redirect {
                        code: u16::from_le_bytes([code[0], code[1]]),
                        // (kept from a String: always UTF-8)
                        target: String::from_utf8(kept[3..].to_vec()).unwrap_or_default(),
                    },
                };
                Ok((answer, outcome))
            }
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
            .and_then(|view| self.answer(&view, req));
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

    fn signposts(
        &self,
        req: &Request<'_>,
    ) -> Result<Option<noid_resolve::signpost::Signposts>, LookupError> {
        // Off (the default): one flag read, no resolver or view taken.
        if !self.current.signposting() {
            return Ok(None);
        }
        let view = self.follower.fresh().map_err(LookupError::from)?;
        self.current.resolver().signposts(&*view, req)
    }

    /// Open and followed (`GET /healthz`): 503 while the minter's `NOID/` is missing.
    fn health(&self) -> Result<(), LookupError> {
        Ok(self.follower.health()?)
    }

    fn metrics(&self) -> Option<String> {
        let resolver = self.current.resolver();
        let mut text = self
            .metrics
            .prometheus(&self.follower.status(), resolver.registry());
        if let Some(counting) = &self.counting {
            crate::metrics::counted(&mut text, &counting.totals());
        }
        Some(text)
    }

    fn count(&self, id: &str, kind: Kind, user_agent: Option<&[u8]>) {
        if let Some(counting) = &self.counting {
            match last_kept::take_for(id) {
                Some(kept) => {
                    let class = counting.class_of(Asker::UserAgent(user_agent));
                    counting.count_kept(&kept, class, || Some((id.as_bytes(), kind)));
                }
                None => counting.count(id.as_bytes(), kind, user_agent),
            }
        }
    }

    /// A `503` of the lookup deadline: an error, and a late answer.
    fn late(&self) {
        self.metrics.record_late(Instant::now());
    }

    fn last_modified(&self, id: &str) -> Result<Option<i64>, LookupError> {
        noid_resolve::modified::last_write(&*self.follower.fresh()?, id)
    }

    fn ark_service(&self) -> Result<noid_http::ArkService, LookupError> {
        let resolver = self.current.resolver();
        noid_resolve::wellknown::ark_service(
            &*self.follower.fresh()?,
            resolver.rules(),
            resolver.registry(),
        )
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
