//! A local copy of a PostgreSQL minter in an embedded RocksDB store, kept up to date
//! from the change log (docs/SCALING.md, "Followers"). The copy is an ordinary minter
//! directory, so a resolver reads it as it reads any embedded minter: noid-store's
//! follower sees each applied batch through the generation counter the writer bumps.
//!
//! * [`Replica::sync`] brings the copy up to date once. With no copy yet it
//!   bootstraps: every key of one `REPEATABLE READ` snapshot, together with the change
//!   log's head as of that snapshot, is written into a staging directory and renamed
//!   into place. Then it applies the change log from the sequence number after the one
//!   applied last, whole commits in order, in one write batch together with the new
//!   applied number, so that a crash at any point leaves a copy that is exactly the
//!   minter as of some commit.
//! * [`Replica::follow`] syncs whenever PostgreSQL notifies a commit (`LISTEN`), and at
//!   least once per poll interval, since notifications sent while nobody listened are
//!   not replayed.
//!
//! A copy that cannot follow the log (a gap: the log pruned past its position; a
//! minter behind it: a standby promoted before it had every change; or a log row that
//! does not decode) is made anew from a snapshot and replaces the old one whole.
//!
//! * [`Replica::verify`] compares the copy with the minter: it brings the copy to the
//!   change of one snapshot of the minter and compares their digests
//!   ([`crate::digest`]); a copy that differs (damaged on disk, a damaged log row
//!   applied, or a history that a promoted standby never had) is made anew.
//!   [`Replica::follow`] verifies when it connects to a server on another timeline
//!   than the copy was last made or verified on (a promoted standby starts a new one),
//!   and at the interval [`Replica::set_verify_interval`] sets.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::{Layout, Op, StoreError, Writer};
use postgres::fallible_iterator::FallibleIterator;
use postgres::Client;

use crate::pg::conn::{connect, failed, minter_id, Rows};
use crate::pg::digest::{self, Digest};
use crate::pg::location::Location;
use crate::pg::position::Position;
use crate::pg::schema::{self, CHANNEL};
use crate::pg::snapshot::PgSnapshot;

/// The key of the copy that holds the last change-log sequence number applied. An
/// admin key (`:/…`), so resolution never reads it as an identifier.
pub const APPLIED: &[u8] = b":/pg/applied";

/// The file in the copy's `NOID/` that names the PostgreSQL timeline the copy was last
/// made or verified on. Only a hint: a missing or unreadable file means "compare".
const TIMELINE_FILE: &str = "pg-timeline";

/// How soon a checksum comparison that failed (the database unreachable, say) is tried
/// again, at most.
const VERIFY_RETRY: Duration = Duration::from_secs(30);

/// Commits applied per write batch.
const SEQS_PER_BATCH: i64 = 1_000;

/// The bootstrap's staging directory in the copy's directory: this prefix and the
/// process id (noid-store's `sweep_stale` removes those of processes that are gone).
const STAGING: &str = ".bootstrap-";
/// Where a copy being replaced is moved before it is removed: the same scheme.
const REPLACED: &str = ".replaced-";

/// What one [`Replica::sync`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The copy was made from a snapshot as of sequence number `seq`.
    Bootstrapped {
        /// The change log's head in the snapshot.
        seq: i64,
    },
    /// Commits `from..=to` were applied.
    Applied {
        /// The first sequence number applied.
        from: i64,
        /// The last.
        to: i64,
    },
    /// The copy could not follow the log (a gap: the log was pruned past it; or a
    /// minter behind it: a promoted standby) and was made anew as of `seq`.
    Remade {
        /// The change log's head in the new snapshot.
        seq: i64,
    },
    /// Nothing new since `seq`.
    Current {
        /// The last sequence number applied.
        seq: i64,
    },
    /// The copy was compared with the minter as of `seq` and found equal.
    Verified {
        /// The sequence number both were at.
        seq: i64,
    },
}

/// A local copy of the minter at a [`Location`] in the minter directory `dir`.
pub struct Replica {
    location: Location,
    dir: PathBuf,
    client: Client,
    minter: i64,
    lock_timeout: Duration,
    /// The copy's applied sequence number, once read: this replica is the copy's only
    /// writer, so it need not open the store to learn that nothing is new.
    applied: Option<i64>,
    /// The minter's change-log head as last read.
    head: Option<i64>,
    /// How often [`Replica::follow`] verifies the copy (None: only on a new timeline).
    verify_every: Option<Duration>,
    /// Whether [`Replica::follow`] verifies at all.
    verifying: bool,
    /// The copy's position as recorded in the database, for `prune-log`.
    position: Position,
}

impl Replica {
    /// Connect to the minter at `location`, whose copy lives (or will) in `dir`.
    pub fn new(location: &Location, dir: &Path) -> Result<Replica, StoreError> {
        let mut client = connect(location)?;
        let minter = minter_id(&mut client, location, Rows::Ignore)?;
        Ok(Replica {
            location: location.clone(),
            dir: dir.to_path_buf(),
            client,
            minter,
            lock_timeout: Duration::from_secs(60),
            applied: None,
            head: None,
            verify_every: None,
            verifying: true,
            position: Position::new(dir),
        })
    }

    /// Let [`Replica::follow`] verify the copy every `every`, and at once when the
    /// server is on another timeline than the copy was made or last verified on (None:
    /// only then); `verifying` false turns verification off.
    pub fn set_verify_interval(&mut self, verifying: bool, every: Option<Duration>) {
        self.verifying = verifying;
        self.verify_every = every;
    }

    /// Name this follower in the database's record of followers' positions (by
    /// default `HOST:DIR`, DIR the copy's directory made absolute).
    pub fn set_name(&mut self, name: &str) {
        self.position.name = name.to_string();
    }

    /// The minter's change-log head as the last sync or verification read it.
    pub fn head_seen(&self) -> Option<i64> {
        self.head
    }

    /// The last sequence number applied to the copy, or None when there is no copy.
    pub fn applied(&self) -> Result<Option<i64>, StoreError> {
        if !Layout::new(&self.dir).exists() {
            return Ok(None);
        }
        let writer = Writer::open(&self.dir, self.lock_timeout)?;
        read_applied(&writer, &self.dir).map(Some)
    }

    /// Bring the copy up to date: bootstrap it if there is none, else apply what the
    /// change log holds after its position (up to [`SEQS_PER_BATCH`] commits).
    /// Each sync also records the copy's position for `prune-log` (at most once a
    /// second while it moves).
    pub fn sync(&mut self) -> Result<Progress, StoreError> {
        let progress = self.sync_upto(None)?;
        let (Progress::Bootstrapped { seq }
        | Progress::Applied { to: seq, .. }
        | Progress::Remade { seq }
        | Progress::Current { seq }
        | Progress::Verified { seq }) = progress;
        self.position.record(&mut self.client, self.minter, seq);
        Ok(progress)
    }

    /// [`Replica::sync`], applying nothing past change `limit` when one is given.
    fn sync_upto(&mut self, limit: Option<i64>) -> Result<Progress, StoreError> {
        if !Layout::new(&self.dir).exists() {
            return self.bootstrap();
        }
        let applied = self.applied_now()?;
        // The head first: every commit up to it is visible to the next statement, so
        // no rows past a head beyond `applied` can only mean a pruned log.
        let head = self.head()?;
        if head < applied {
            return self.remake(format!(
                "the copy is at change {applied}, but the minter is at {head} (a standby \
                 promoted before it had every change?)"
            ));
        }
        let target = limit.map_or(head, |l| l.min(head));
        if target <= applied {
            return Ok(Progress::Current { seq: applied });
        }
        let rows = self
            .client
            .query(
                "SELECT seq, changes FROM noid_log \
                 WHERE minter = $1 AND seq > $2 AND seq <= $3 ORDER BY seq",
                &[
                    &self.minter,
                    &applied,
                    &(applied + SEQS_PER_BATCH).min(target),
                ],
            )
            .map_err(|e| failed(&self.location, "cannot read the change log", &e))?;
        if rows.is_empty() {
            return self.remake(gap(applied, head));
        }
        let mut expected = applied;
        let mut ops = Vec::new();
        for row in &rows {
            let seq: i64 = row.get(0);
            if seq != expected + 1 {
                return self.remake(gap(expected, seq));
            }
            expected = seq;
            match schema::decode_changes(row.get(1)) {
                Ok(changes) => ops.extend(changes),
                Err(why) => {
                    return self.remake(format!("change {seq} in the log is damaged ({why})"))
                }
            }
        }
        ops.push(Op::Put(APPLIED.to_vec(), expected.to_string().into_bytes()));
        Writer::open(&self.dir, self.lock_timeout)?.commit_all(&mut ops)?;
        self.applied = Some(expected);
        Ok(Progress::Applied {
            from: applied + 1,
            to: expected,
        })
    }

    /// The copy's applied sequence number (read from the copy once, then kept).
    fn applied_now(&mut self) -> Result<i64, StoreError> {
        let applied = match self.applied {
            Some(a) => a,
            None => read_applied(&Writer::open(&self.dir, self.lock_timeout)?, &self.dir)?,
        };
        self.applied = Some(applied);
        Ok(applied)
    }

    /// Compare the copy with the minter: take one snapshot of the minter (its head and
    /// the digest of its keys), bring the copy to exactly that change, and compare the
    /// copy's digest. A copy that differs is made anew ([`Progress::Remade`]); with no
    /// copy yet, one is made.
    pub fn verify(&mut self) -> Result<Progress, StoreError> {
        if !Layout::new(&self.dir).exists() {
            return self.bootstrap();
        }
        let (seq, want) = digest::of_minter(&self.location, self.minter)?;
        loop {
            let applied = self.applied_now()?;
            if applied > seq {
                // Everything the copy applied was committed before the snapshot began.
                return self.remake(format!(
                    "the copy is at change {applied}, but the minter was at {seq} (a \
                     standby promoted before it had every change?)"
                ));
            }
            if applied == seq {
                break;
            }
            match self.sync_upto(Some(seq))? {
                Progress::Applied { .. } => {}
                // A new copy, of a newer snapshot: nothing to compare.
                other => return Ok(other),
            }
        }
        let timeline = self.server_timeline();
        let have = self.local_digest()?;
        if have != want {
            return self.remake(format!(
                "the copy's checksum ({have}) differs from the minter's ({want}) at change \
                 {seq}"
            ));
        }
        if let Some(t) = timeline {
            write_timeline(&Layout::new(&self.dir).noid_dir, t)?;
        }
        Ok(Progress::Verified { seq })
    }

    /// The server's current timeline (the first 8 hex digits of its WAL file name); None
    /// when it cannot say (a standby, or an error), which counts as a change.
    fn server_timeline(&mut self) -> Option<i64> {
        self.client
            .query_one(
                "SELECT ('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::int8",
                &[],
            )
            .ok()
            .map(|r| r.get(0))
    }

    /// Whether the server is on another timeline than the copy was last made or
    /// verified on (or either is not known).
    fn timeline_moved(&mut self) -> bool {
        let copy = std::fs::read_to_string(Layout::new(&self.dir).noid_dir.join(TIMELINE_FILE))
            .ok()
            .and_then(|t| t.trim().parse::<i64>().ok());
        match (self.server_timeline(), copy) {
            (Some(server), Some(copy)) => server != copy,
            _ => true,
        }
    }

    /// The digest of the copy's keys, without the ones the replica adds.
    fn local_digest(&self) -> Result<Digest, StoreError> {
        let writer = Writer::open(&self.dir, self.lock_timeout)?;
        let mut d = Digest::default();
        writer.scan_from(b"", &mut |k: &[u8], v: &[u8]| {
            if k != APPLIED {
                d.add(k, v);
            }
            true
        })?;
        Ok(d)
    }

    /// Sync whenever a commit is notified, and at least every `poll`, until `stop` is
    /// set; verify the copy as [`Replica::set_verify_interval`]
    /// says. `report` hears of each sync's and verification's outcome, with the
    /// minter's change-log head as last read. Errors are reported and retried at the
    /// next poll.
    pub fn follow(
        &mut self,
        poll: Duration,
        stop: &AtomicBool,
        mut report: impl FnMut(&Result<Progress, StoreError>, Option<i64>),
    ) -> Result<(), StoreError> {
        let mut listener = connect(&self.location)?;
        listener
            .batch_execute(&format!("LISTEN {CHANNEL}"))
            .map_err(|e| failed(&self.location, "cannot listen for commits", &e))?;
        // Verify first when the server is on another timeline than the copy was made or
        // verified on: after a failover the copy may hold changes the minter never had.
        let mut next_verify = match (self.verifying, self.timeline_moved()) {
            (false, _) => None,
            (true, true) => Some(Instant::now()),
            (true, false) => self.verify_every.map(|every| Instant::now() + every),
        };
        while !stop.load(Ordering::Relaxed) {
            if next_verify.is_some_and(|t| Instant::now() >= t) {
                let result = self.verify();
                report(&result, self.head);
                next_verify = match (result, self.verify_every) {
                    // Not compared: try again soon, but not at every poll (an error
                    // that persists would be logged, and retried, at each).
                    (Err(_), every) => {
                        Some(Instant::now() + every.map_or(VERIFY_RETRY, |e| e.min(VERIFY_RETRY)))
                    }
                    (Ok(_), Some(every)) => Some(Instant::now() + every),
                    (Ok(_), None) => None,
                };
            }
            // Catch up fully: a sync applies at most SEQS_PER_BATCH commits.
            loop {
                let result = self.sync();
                let more = matches!(result, Ok(Progress::Applied { .. }));
                report(&result, self.head);
                if !more || stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            let mut notes = listener.notifications();
            let mut waiting = notes.timeout_iter(poll);
            // One notification (or the poll interval) wakes us; drain the rest.
            if let Err(e) = waiting.next() {
                return Err(failed(
                    &self.location,
                    "lost the notification connection",
                    &e,
                ));
            }
            drop(waiting);
            let mut pending = notes.iter();
            while let Ok(Some(_)) = pending.next() {}
        }
        Ok(())
    }

    /// The minter's change-log head.
    fn head(&mut self) -> Result<i64, StoreError> {
        let row = self
            .client
            .query_one(
                "SELECT log_seq FROM noid_minters WHERE id = $1",
                &[&self.minter],
            )
            .map_err(|e| failed(&self.location, "cannot read the change log's head", &e))?;
        self.head = Some(row.get(0));
        Ok(row.get(0))
    }

    /// The copy cannot follow the log (`why`): make it anew, replacing it whole.
    fn remake(&mut self, why: String) -> Result<Progress, StoreError> {
        log::warn!(
            "{}: {why}; copying minter {} anew",
            self.dir.display(),
            self.location.minter
        );
        match self.bootstrap()? {
            Progress::Bootstrapped { seq } => Ok(Progress::Remade { seq }),
            other => Ok(other),
        }
    }

    /// Make the copy from one snapshot, in a staging directory renamed into place
    /// (replacing a copy that is there: readers notice a new store and reopen).
    fn bootstrap(&mut self) -> Result<Progress, StoreError> {
        let snap = PgSnapshot::open(&self.location)?;
        let seq = snap.log_seq()?;
        // A follower killed while copying leaves a staging directory (or a replaced
        // copy) as large as the copy itself; the next one removes it.
        for prefix in [STAGING, REPLACED] {
            crate::sweep_stale(&self.dir, prefix);
        }
        let staging = self.dir.join(format!("{STAGING}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        let timeline = self.server_timeline();
        let made: Result<(), StoreError> = (|| {
            let writer = Writer::create(&staging, self.lock_timeout)?;
            // Keys come in key order, so they go straight into ingested table files.
            let mut load = writer.load_sorted();
            snap.copy_sorted(&mut |k, v| load.put(k, v))?;
            load.finish()?;
            // The applied number last, in a synced batch of its own: a copy without it
            // is not complete, and never leaves the staging directory.
            writer.commit_all(&mut vec![Op::Put(
                APPLIED.to_vec(),
                seq.to_string().into_bytes(),
            )])?;
            drop(writer);
            let (from, to) = (
                Layout::new(&staging).noid_dir,
                Layout::new(&self.dir).noid_dir,
            );
            if let Some(t) = timeline {
                write_timeline(&from, t)?;
            }
            let io = |path: &Path| {
                let path = path.to_path_buf();
                move |source| StoreError::Io { path, source }
            };
            let old = self.dir.join(format!(".replaced-{}", std::process::id()));
            let replacing = to.exists();
            if replacing {
                std::fs::rename(&to, &old).map_err(io(&to))?;
            }
            std::fs::rename(&from, &to).map_err(io(&to))?;
            if replacing {
                let _ = std::fs::remove_dir_all(&old);
            }
            Ok(())
        })();
        let _ = std::fs::remove_dir_all(&staging);
        made?;
        self.applied = Some(seq);
        self.head = Some(seq);
        Ok(Progress::Bootstrapped { seq })
    }
}

/// Why a copy at change `applied` cannot go on at `found`.
fn gap(applied: i64, found: i64) -> String {
    format!("the copy is at change {applied}, but the change log goes on at {found} (pruned?)")
}

/// Record `timeline` in the copy's `NOID/` directory `noid_dir` (a new file renamed
/// over the old).
fn write_timeline(noid_dir: &Path, timeline: i64) -> Result<(), StoreError> {
    let (tmp, path) = (
        noid_dir.join(format!("{TIMELINE_FILE}.new")),
        noid_dir.join(TIMELINE_FILE),
    );
    std::fs::write(&tmp, format!("{timeline}\n"))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|source| StoreError::Io { path, source })
}

/// The applied sequence number the copy in `dir` records.
fn read_applied(writer: &Writer, dir: &Path) -> Result<i64, StoreError> {
    let value = writer.get(APPLIED)?;
    value
        .as_deref()
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            StoreError::Backend(format!(
                "{}: the store is not a copy of a PostgreSQL minter (no {} key)",
                dir.display(),
                String::from_utf8_lossy(APPLIED)
            ))
        })
}
