//! Many targets checked at once: at most `concurrency` requests in flight over every
//! host (the probe's limits hold per host), each target's outcome handed on as soon as
//! it is known, so that a million targets stream through without being held.

use std::sync::Arc;

use futures_util::stream::{self, StreamExt};
use noid_core::links::{history_key, state_key, Change, LinkState};
use noid_core::lookup::{Lookup, LookupError};
use noid_core::Writes;

use crate::classify::classify;
use crate::config::{CheckerConfig, ConfigError, Policy};
use crate::probe::Prober;
use crate::targets::Target;

/// What a check of one target found: its state now, and the change of status to
/// record when its status changed (its first check is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The target checked.
    pub target: Target,
    /// Its state now.
    pub state: LinkState,
    /// Its change of status, if any.
    pub change: Option<Change>,
}

/// The store writes that record `outcome`: its state, and a history entry when its
/// status changed (at the time it was checked). Every caller records this way.
pub fn writes(outcome: &Outcome) -> Writes {
    let (id, url) = (&outcome.target.id, &outcome.target.url);
    let mut out = Vec::with_capacity(2);
    if let Some(change) = &outcome.change {
        out.push((
            history_key(id, url, outcome.state.checked),
            Some(change.encode()),
        ));
    }
    out.push((state_key(id, url), Some(outcome.state.encode())));
    out
}

/// The state recorded for `target`, if it was checked before (a record that does not
/// read as one counts as none).
pub fn recorded(store: &dyn Lookup, target: &Target) -> Result<Option<LinkState>, LookupError> {
    Ok(store
        .get(&state_key(&target.id, &target.url))?
        .and_then(|v| LinkState::decode(&v)))
}

/// The link checker. It keeps what it learns of each host (its pacing, its not-found
/// page) for as long as it lives: make one per round of checks, not one per process.
pub struct Checker {
    prober: Arc<Prober>,
    config: CheckerConfig,
}

impl Checker {
    /// A checker as `config` says (a CA file that cannot be read is an error now).
    pub fn new(config: CheckerConfig) -> Result<Checker, ConfigError> {
        Ok(Checker {
            prober: Arc::new(Prober::new(&config)?),
            config,
        })
    }

    /// Check one target whose state was `before`, at `now` (seconds since the epoch).
    pub async fn check_one(
        &self,
        target: Target,
        before: Option<LinkState>,
        policy: &Policy,
        now: u64,
    ) -> Outcome {
        let seen = self.prober.probe(&target.url).await;
        let (state, change) = classify(before.as_ref(), &seen, policy, now);
        Outcome {
            target,
            state,
            change,
        }
    }

    /// Check every target of `jobs` (each with its state before), handing each outcome
    /// to `on` as it is known (not in `jobs`' order). Targets are drawn from `jobs`
    /// only as slots free up: a window of some times the concurrency, so that a host
    /// waiting for its turn does not hold up the others. Each probe is a task of its
    /// own, so that every thread of the runtime works on them.
    pub async fn check<I>(&self, jobs: I, policy: &Policy, now: u64, mut on: impl FnMut(Outcome))
    where
        I: IntoIterator<Item = (Target, Option<LinkState>)>,
    {
        let window = self.config.concurrency.max(1) * 16;
        let mut seen = stream::iter(jobs)
            .map(|(target, before)| {
                let prober = self.prober.clone();
                let url = target.url.clone();
                let probe = tokio::spawn(async move { prober.probe(&url).await });
                async move { (target, before, probe.await) }
            })
            .buffer_unordered(window);
        while let Some((target, before, probe)) = seen.next().await {
            let seen = match probe {
                Ok(seen) => seen,
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            };
            let (state, change) = classify(before.as_ref(), &seen, policy, now);
            on(Outcome {
                target,
                state,
                change,
            });
        }
    }
}

/// A [`Checker`] with a runtime of its own, for callers that do not run one (the CLI).
pub struct BlockingChecker {
    runtime: tokio::runtime::Runtime,
    checker: Checker,
}

impl BlockingChecker {
    /// A checker and its runtime (worker threads: the machine's cores).
    pub fn new(config: CheckerConfig) -> Result<BlockingChecker, ConfigError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| ConfigError(format!("cannot start the checker's runtime: {e}")))?;
        let checker = {
            let _inside = runtime.enter();
            Checker::new(config)?
        };
        Ok(BlockingChecker { runtime, checker })
    }

    /// [`Checker::check`], returning when every target is checked.
    pub fn check<I>(&self, jobs: I, policy: &Policy, now: u64, on: impl FnMut(Outcome))
    where
        I: IntoIterator<Item = (Target, Option<LinkState>)>,
    {
        self.runtime
            .block_on(self.checker.check(jobs, policy, now, on));
    }
}
