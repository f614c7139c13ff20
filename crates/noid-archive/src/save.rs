//! Asking an archive to save a target when it is bound, so that a copy exists before
//! the target dies.
//!
//! A request is queued in the store under `:/links/v/ID<TAB>TARGET` ([`queue`], a
//! write the caller adds to the bind's own commit, or [`enqueue`]). [`run`] takes the
//! requests that are due, asks the archive (`GET {save}{target}`: the Internet
//! Archive's "Save Page Now" answers a save with 2xx or a redirect to the copy) and
//! records the outcome in the request: `saved`, with where the copy is; or, after a
//! failure, tried again after a backoff that doubles from [`FIRST_BACKOFF`] up to
//! [`MAX_BACKOFF`], until [`MAX_ATTEMPTS`] have failed (`failed`, with why). The
//! clock is the caller's (`now`), so a queue is driven the same way by a schedule, the
//! CLI and a test.

use noid_core::links;
use noid_core::{Commit, Lookup, Writes};
use reqwest::header::{CONTENT_LOCATION, LOCATION};

use crate::{ArchiveError, Config};

/// Seconds before the first retry.
pub const FIRST_BACKOFF: u64 = 60;
/// Longest wait between two tries.
pub const MAX_BACKOFF: u64 = 24 * 3600;
/// Tries before a request is given up as `failed`.
pub const MAX_ATTEMPTS: u32 = 8;

pub use noid_core::links::{SaveRequest, SaveState as State};

/// The request after a try at `now` that gave `outcome` (where the copy is, or why
/// not).
pub fn after(
    request: &SaveRequest,
    outcome: &Result<String, ArchiveError>,
    now: u64,
) -> SaveRequest {
    let attempts = request.attempts + 1;
    let (state, next, detail) = match outcome {
        Ok(saved) => (State::Saved, now, saved.clone()),
        Err(e) if attempts >= MAX_ATTEMPTS => (State::Failed, now, e.to_string()),
        Err(e) => (State::Queued, now + backoff(attempts), e.to_string()),
    };
    SaveRequest {
        state,
        queued: request.queued,
        attempts,
        next,
        detail,
    }
}

/// The wait after `failures` failed tries: [`FIRST_BACKOFF`], doubled for each
/// further failure, at most [`MAX_BACKOFF`].
pub fn backoff(failures: u32) -> u64 {
    let doublings = failures.saturating_sub(1).min(32);
    FIRST_BACKOFF
        .saturating_mul(1u64 << doublings)
        .min(MAX_BACKOFF)
}

/// The write that queues a save of `target`, a target of `id`, at `now` (due at once).
pub fn queue(id: &str, target: &str, now: u64) -> (Vec<u8>, Option<Vec<u8>>) {
    (
        links::save_key(id, target),
        Some(SaveRequest::queued_at(now).encode()),
    )
}

/// Queue a save of `target`, a target of `id`, at `now`, in a commit of its own.
pub fn enqueue<S: Commit + ?Sized>(
    s: &S,
    id: &str,
    target: &str,
    now: u64,
) -> Result<(), ArchiveError> {
    s.commit_writes(vec![queue(id, target, now)])
        .map_err(|e| ArchiveError::Store(e.to_string()))
}

/// One queued request: its identifier, target and record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// The identifier.
    pub id: String,
    /// The target to save.
    pub target: String,
    /// Its record.
    pub request: SaveRequest,
}

/// Every request recorded (at most `limit`), in key order.
pub fn requests<L: Lookup + ?Sized>(l: &L, limit: usize) -> Result<Vec<Queued>, ArchiveError> {
    let pairs = l
        .scan_prefix(links::SAVE_PREFIX, limit)
        .map_err(|e| ArchiveError::Store(e.to_string()))?;
    Ok(pairs
        .iter()
        .filter_map(|(k, v)| {
            let rest = std::str::from_utf8(k.strip_prefix(links::SAVE_PREFIX)?).ok()?;
            let (id, target) = rest.split_once('\t')?;
            Some(Queued {
                id: id.to_string(),
                target: target.to_string(),
                request: SaveRequest::decode(v)?,
            })
        })
        .collect())
}

/// Ask the archive to save `target`: where the copy is (`Content-Location` or
/// `Location`, else the status), or why it could not.
pub async fn ask(config: &Config, target: &str) -> Result<String, ArchiveError> {
    let url = format!("{}{}", config.save, target);
    let answer = config
        .client
        .get(&url)
        .send()
        .await
        .map_err(|e| ArchiveError::request(&url, &e))?;
    let status = answer.status();
    if !(status.is_success() || status.is_redirection()) {
        return Err(ArchiveError::Unexpected {
            url,
            reason: status.to_string(),
        });
    }
    let headers = answer.headers();
    let at = [CONTENT_LOCATION, LOCATION]
        .iter()
        .find_map(|h| headers.get(h).and_then(|v| v.to_str().ok()))
        .map(|v| {
            answer
                .url()
                .join(v)
                .map_or(v.to_string(), |u| u.to_string())
        });
    Ok(at.unwrap_or_else(|| status.to_string()))
}

/// What one [`run`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ran {
    /// Requests tried.
    pub tried: usize,
    /// Of them, saved.
    pub saved: usize,
    /// Of them, given up.
    pub failed: usize,
}

/// Try every request due at `now` (at most `limit`), one after the other, and record
/// each outcome in one commit.
pub fn run<S: Commit + ?Sized>(
    s: &S,
    config: &Config,
    now: u64,
    limit: usize,
) -> Result<Ran, ArchiveError> {
    let due: Vec<Queued> = requests(s, limit)?
        .into_iter()
        .filter(|q| q.request.state == State::Queued && q.request.next <= now)
        .collect();
    let mut ran = Ran::default();
    let mut writes: Writes = Vec::with_capacity(due.len());
    crate::block_on(async {
        for q in &due {
            let outcome = ask(config, &q.target).await;
            if let Err(e) = &outcome {
                log::info!("saving {} ({}): {e}", q.target, q.id);
            }
            let after = after(&q.request, &outcome, now);
            ran.tried += 1;
            ran.saved += usize::from(after.state == State::Saved);
            ran.failed += usize::from(after.state == State::Failed);
            writes.push((links::save_key(&q.id, &q.target), Some(after.encode())));
        }
    })?;
    if !writes.is_empty() {
        s.commit_writes(writes)
            .map_err(|e| ArchiveError::Store(e.to_string()))?;
    }
    Ok(ran)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_a_day() {
        let waits: Vec<u64> = (1..=12).map(backoff).collect();
        assert_eq!(
            waits,
            [60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 30720, 61440, 86400]
        );
    }

    #[test]
    fn a_request_reads_back_as_written_and_gives_up_after_the_last_try() {
        let (_, value) = queue("ark:/1/x", "https://e.org/", 100);
        let first = SaveRequest::decode(&value.unwrap()).unwrap();
        assert_eq!(
            (first.state, first.attempts, first.next),
            (State::Queued, 0, 100)
        );
        let failure = Err(ArchiveError::Unexpected {
            url: "u".into(),
            reason: "500 Internal Server Error".into(),
        });
        let mut r = first;
        for n in 1..MAX_ATTEMPTS {
            r = after(&r, &failure, 1000);
            assert_eq!(
                (r.state, r.attempts, r.next),
                (State::Queued, n, 1000 + backoff(n))
            );
        }
        r = after(&r, &failure, 2000);
        assert_eq!(r.state, State::Failed);
        assert_eq!(r.detail, "u answered 500 Internal Server Error");
        assert_eq!(SaveRequest::decode(&r.encode()), Some(r));
    }
}
