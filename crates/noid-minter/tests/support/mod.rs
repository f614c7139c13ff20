//! A minter in memory for testing the minter directly, without a binary or a database:
//! a store whose commit can be made to fail at the k-th commit, and that can take two
//! commits in flight as PostgreSQL does; the minters Perl Noid 0.424 made
//! (`tests/fixtures/perl-noid-0.424`), to compare minting order with.

#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use noid_core::{keys, Commit, Lookup, LookupError, MemLookup, Pairs, PreviousFailed, Writes};
use noid_minter::create::{dbcreate, CreateArgs};
use noid_minter::Context;

/// Why a commit of [`MemStore`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemError {
    /// The commit chosen to fail ([`MemStore::fail_commit`]).
    DiskFull,
    /// A commit in flight after one that failed.
    NotCommitted,
}

impl From<PreviousFailed> for MemError {
    fn from(_: PreviousFailed) -> MemError {
        MemError::NotCommitted
    }
}

impl std::fmt::Display for MemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MemError::DiskFull => "disk full",
            MemError::NotCommitted => "not committed",
        })
    }
}

/// A minter's key space in memory. Each commit is applied whole or not at all.
#[derive(Default)]
pub struct MemStore {
    /// The committed keys.
    pub keys: MemLookup,
    /// Commits attempted so far.
    commits: AtomicUsize,
    /// The commit (1 for the first attempted) that fails.
    fail_at: Mutex<Option<usize>>,
    /// Commits made while the one before was still in flight.
    after_previous: AtomicUsize,
    /// Identifiers per commit a large mint should use ([`Commit::mint_batch`]).
    pub batch: Option<u64>,
    /// Commits this store takes in flight at once ([`Commit::open_pipeline`]).
    pub depth: usize,
}

impl MemStore {
    /// This store with batches of `batch` identifiers and `depth` commits in flight.
    pub fn batched(self, batch: u64, depth: usize) -> MemStore {
        MemStore {
            batch: Some(batch),
            depth,
            ..self
        }
    }

    /// Make the `k`-th commit from now fail (1: the next one).
    pub fn fail_commit(&self, k: usize) {
        let now = self.commits.load(Ordering::SeqCst);
        *self.fail_at.lock().unwrap() = Some(now + k);
    }

    /// Commits attempted so far.
    pub fn commits(&self) -> usize {
        self.commits.load(Ordering::SeqCst)
    }

    /// Commits made while the one before them was in flight.
    pub fn commits_after_previous(&self) -> usize {
        self.after_previous.load(Ordering::SeqCst)
    }

    /// The committed value of admin key `name` (`:/NAME`).
    pub fn admin(&self, name: &str) -> String {
        let v = self
            .keys
            .get(&keys::admin(name))
            .unwrap()
            .unwrap_or_default();
        String::from_utf8(v).unwrap()
    }

    /// Every committed identifier that circulates (has a `:/c` record), in key order.
    pub fn circulating(&self) -> Vec<String> {
        self.all_keys()
            .into_iter()
            .filter_map(|k| k.strip_suffix("\t:/c").map(str::to_string))
            .collect()
    }

    /// Every committed key, in order.
    pub fn all_keys(&self) -> Vec<String> {
        self.keys
            .scan_prefix(b"", usize::MAX)
            .unwrap()
            .into_iter()
            .map(|(k, _)| String::from_utf8(k).unwrap())
            .collect()
    }
}

impl Lookup for MemStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        self.keys.get(key)
    }
    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        self.keys.scan_prefix(prefix, limit)
    }
}

impl Commit for MemStore {
    type Error = MemError;

    fn commit_writes(&self, writes: Writes) -> Result<(), MemError> {
        let n = self.commits.fetch_add(1, Ordering::SeqCst) + 1;
        if *self.fail_at.lock().unwrap() == Some(n) {
            return Err(MemError::DiskFull);
        }
        for (k, v) in writes {
            match v {
                Some(v) => self.keys.insert(k, v),
                None => self.keys.remove(k),
            }
        }
        Ok(())
    }

    fn mint_batch(&self) -> Option<u64> {
        self.batch
    }

    fn open_pipeline(&self) -> usize {
        self.depth.max(1)
    }

    /// As PostgreSQL does with two connections: the commit is applied only once the one
    /// before it has succeeded, and not at all when it failed.
    fn commit_after(
        &self,
        writes: &mut Writes,
        previous: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), MemError> {
        if let Some(previous) = previous {
            self.after_previous.fetch_add(1, Ordering::SeqCst);
            if !previous() {
                self.commits.fetch_add(1, Ordering::SeqCst);
                return Err(MemError::NotCommitted);
            }
        }
        self.commit_writes(std::mem::take(writes))
    }
}

/// `noid dbcreate TEMPLATE TERM [NAAN NAA SUBNAA]` in memory (`template` None: a
/// bind-only minter).
pub fn minter(template: Option<&str>, term: &str, naa: Option<(&str, &str, &str)>) -> MemStore {
    let created = dbcreate(&CreateArgs {
        template,
        term: Some(term),
        naan: naa.map(|n| n.0),
        naa: naa.map(|n| n.1),
        subnaa: naa.map(|n| n.2),
        contact: "test",
        when: "20260101000000",
        where_: "host:/d",
        dbdir_display: "d",
        samples: (0, 0),
        atlast: None,
        lui_key: [0; 16],
    })
    .expect("dbcreate");
    let store = MemStore::default();
    for (k, v) in created.keys {
        store.keys.insert(keys::admin(&k), v);
    }
    store
}

/// Perl Noid's `dbcreate f5.reedeedk long 13030 example.org oac` (the fixture
/// `random-long`).
pub fn random_long() -> MemStore {
    minter(
        Some("f5.reedeedk"),
        "long",
        Some(("13030", "example.org", "oac")),
    )
}

/// Perl Noid's `dbcreate .rd short` (the fixture `random-short`).
pub fn random_short() -> MemStore {
    minter(Some(".rd"), "short", None)
}

/// Perl Noid's `dbcreate tst3.sdd medium 99999 example.org tst3` (the fixture
/// `sequential-medium`).
pub fn sequential_medium() -> MemStore {
    minter(
        Some("tst3.sdd"),
        "medium",
        Some(("99999", "example.org", "tst3")),
    )
}

/// Who mints, and when.
pub fn context() -> Context {
    Context::new("test".into(), 0, |_| "20260101000000".into())
}

fn fixture(file: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/perl-noid-0.424/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The identifiers Perl Noid issued into fixture minter `name`, in the order it
/// issued them (each circulation record ends with its sequence number).
pub fn perl_issued(name: &str) -> Vec<String> {
    let dump = fixture(&format!("{name}.dump"));
    let body = dump.split("HEADER=END\n").nth(1).expect("a db_dump body");
    let lines: Vec<&str> = body.lines().take_while(|l| *l != "DATA=END").collect();
    let mut issued: Vec<(u64, String)> = lines
        .chunks(2)
        .filter_map(|kv| {
            let id = kv[0].trim_start().strip_suffix("\\09:/c")?;
            let seq = kv[1].rsplit('|').next()?.parse().ok()?;
            Some((seq, id.to_string()))
        })
        .collect();
    issued.sort();
    issued.into_iter().map(|(_, id)| id).collect()
}

/// The identifiers Perl Noid minted next from a copy of fixture minter `name`.
pub fn perl_next(name: &str) -> Vec<String> {
    fixture(&format!("{name}.next"))
        .lines()
        .map(str::to_string)
        .collect()
}
