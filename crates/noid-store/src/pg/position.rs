//! A follower's position in the database: the change its copy is at, in
//! `noid_followers`, so that `noid prune-log` keeps what any follower still needs
//! ([`crate::prune`]). A recorded position may lag the copy (it is written at most
//! once per [`EVERY`] while changes arrive) but is never ahead of it: a lower number
//! only keeps more of the log.

use std::path::Path;
use std::time::{Duration, Instant};

use postgres::Client;

/// How often a moving position is written, at most.
const EVERY: Duration = Duration::from_secs(1);

/// How often a position that has not moved is written again, so that `seen` says the
/// follower is alive (prune-log forgets followers not seen for days).
const HEARTBEAT: Duration = Duration::from_secs(60);

/// One follower's record.
pub(crate) struct Position {
    /// The follower's name: `HOST:CACHE-DIR` unless set.
    pub(crate) name: String,
    /// The position last written (or tried), and when.
    written: Option<(i64, Instant)>,
}

/// This host's name, for followers' default names.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

impl Position {
    /// The record of the follower whose copy is in `dir`, named `HOST:DIR`.
    pub(crate) fn new(dir: &Path) -> Position {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        Position {
            name: format!("{}:{}", host_name(), dir.display()),
            written: None,
        }
    }

    /// Record that the copy holds every change up to `applied` of minter `minter`,
    /// unless it was written lately. Only a hint for `prune-log`: a failure (a read-only
    /// standby, a database made before the table existed) is logged, not returned.
    pub(crate) fn record(&mut self, client: &mut Client, minter: i64, applied: i64) {
        if let Some((seq, at)) = self.written {
            let due = if seq == applied { HEARTBEAT } else { EVERY };
            if at.elapsed() < due {
                return;
            }
        }
        self.written = Some((applied, Instant::now()));
        // Asynchronous: a position lost in a crash is an older one, which is safe.
        let result = client.transaction().and_then(|mut t| {
            t.batch_execute("SET LOCAL synchronous_commit = off")?;
            t.execute(
                "INSERT INTO noid_followers (minter, name, applied) VALUES ($1, $2, $3) \
                 ON CONFLICT (minter, name) DO UPDATE SET applied = EXCLUDED.applied, \
                 seen = now()",
                &[&minter, &self.name, &applied],
            )?;
            t.commit()
        });
        if let Err(e) = result {
            log::warn!(
                "follower {}: cannot record its position (change {applied}): {e}",
                self.name
            );
        }
    }
}
