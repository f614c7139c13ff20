//! What noid's commands need of a minter's storage, whichever engine holds it: the
//! embedded RocksDB store (the `rocks` module), or a database server (the `pg`
//! module). The commands work with these traits and the [`Op`]s of a commit, and never
//! learn which engine they have.

use crate::StoreError;

/// One change in a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Set `key` to `value`.
    Put(Vec<u8>, Vec<u8>),
    /// Remove `key`.
    Delete(Vec<u8>),
}

impl From<(Vec<u8>, Option<Vec<u8>>)> for Op {
    /// A transaction's write: `Some(value)` puts, `None` deletes.
    fn from((key, value): (Vec<u8>, Option<Vec<u8>>)) -> Op {
        match value {
            Some(v) => Op::Put(key, v),
            None => Op::Delete(key),
        }
    }
}

impl From<Op> for (Vec<u8>, Option<Vec<u8>>) {
    /// Back to a transaction's write.
    fn from(op: Op) -> Self {
        match op {
            Op::Put(key, value) => (key, Some(value)),
            Op::Delete(key) => (key, None),
        }
    }
}

impl Op {
    /// The key changed.
    pub fn key(&self) -> &[u8] {
        match self {
            Op::Put(k, _) | Op::Delete(k) => k,
        }
    }

    /// Put `ops` in key order (stable, so a key's operations keep their order) and keep
    /// only the last operation of each key: what a commit applies.
    pub fn last_per_key(ops: &mut Vec<Op>) {
        if ops.windows(2).all(|w| w[0].key() < w[1].key()) {
            return;
        }
        ops.sort_by(|a, b| a.key().cmp(b.key()));
        ops.dedup_by(|later, earlier| {
            if later.key() == earlier.key() {
                std::mem::swap(later, earlier);
                true
            } else {
                false
            }
        });
    }
}

/// A read view that can also stream its whole key space (`export`, `check`,
/// `standing` with no ids).
pub trait Scan: noid_core::Lookup {
    /// Call `f` on each (key, value) from the first key `>= start` onwards, in bytewise
    /// key order, until it returns false.
    fn scan_from(
        &self,
        start: &[u8],
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError>;
}

/// A minter opened for writing: reads see every committed change, and this process is
/// the minter's only writer from open to close (the writers' lock), so state read
/// once stays true between commits.
///
/// `Sync` because a large mint commits one batch on a second thread while it mints
/// the next.
pub trait Store: Scan + Sync {
    /// Apply `ops` as one atomic, durable commit; nothing is applied if it fails.
    /// When a key occurs more than once its last operation wins. The (possibly
    /// reordered) operations are left in `ops` for the caller to drop.
    fn commit_all(&self, ops: &mut Vec<Op>) -> Result<(), StoreError>;

    /// A hint that the keys of the identifiers `ids` (each `ID<TAB>…`) are read next, as
    /// a bulk run's coming lines say. An engine across a network fetches them all in one
    /// round trip instead of one per read (a bulk load into PostgreSQL was bound by
    /// those round trips); an engine in process has nothing to do. Reads stay exact
    /// whether the hint is taken or not.
    fn read_ahead(&self, ids: &[String]) {
        let _ = ids;
    }

    /// Identifiers per commit that a large mint should use, when this engine prefers
    /// fewer than the caller's default: a database server does its share of a commit
    /// while the next batch is minted, so smaller batches overlap more of the two.
    fn mint_batch(&self) -> Option<u64> {
        None
    }

    /// How many of a large mint's commits this engine can have in flight at once,
    /// after setting up what that takes; 1 unless overridden. A database server builds
    /// one transaction's index entries in one server process: two commits in flight,
    /// on two connections, use two. The second and later are made with
    /// [`Store::commit_after`].
    fn open_pipeline(&self) -> usize {
        1
    }

    /// [`Store::commit_all`] for a commit made while the one before it may still be in
    /// flight ([`Store::open_pipeline`]). The engine may send the bulk of `ops` at
    /// once, but applies them only after `previous()` has returned true (that commit
    /// succeeded); when it returns false nothing is applied and the result is an error.
    /// So commits are applied in the order they were made, and none after one failed.
    fn commit_after(
        &self,
        ops: &mut Vec<Op>,
        previous: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), StoreError> {
        after_previous(Some(previous))?;
        self.commit_all(ops)
    }

    /// Whether [`Store::read_ahead`] does anything, so that callers with nothing to
    /// gain do not work out the hint.
    fn wants_read_ahead(&self) -> bool {
        false
    }

    /// Pending key writes after which a bulk run (`noid -`) commits even while more
    /// input waits. The embedded store writes a large commit as one level-0 table that
    /// overlaps every other (a load's identifiers come in no key order), and each
    /// compaction of level 0 merges eight of them into the level below: a million
    /// writes per table rather than 200,000 took a fifth less CPU per million
    /// identifiers loaded into a store of 5 to 8 million (docs/SCALING.md), for some
    /// 200 MB more memory while the batch is pending.
    fn bulk_batch_writes(&self) -> usize {
        1_000_000
    }

    /// Rewrite the store's tables into one sorted level (`noid compact`), where the
    /// engine keeps tables of its own; `None` where it does not (PostgreSQL keeps its
    /// tables itself). A bulk load of identifiers in no key order leaves them spread
    /// over several levels, and every lookup that misses, and every chop-back's range
    /// read, consults each level: at 50 million identifiers a chop-back cost more than
    /// twice its CPU at one million (docs/SCALING.md). With `index`, the tables are
    /// rewritten with their index and filters laid out so, and so are those written
    /// after ([`crate::TableIndex`]).
    fn compact(
        &self,
        index: Option<crate::TableIndex>,
    ) -> Result<Option<crate::Compaction>, StoreError> {
        let _ = index;
        Ok(None)
    }

    /// Let long-lived readers of this machine catch up while this writer stays open,
    /// once its background work is over, waiting for that up to `wait` (the embedded
    /// store's [`crate::Writer::pause`]); whether they can. An engine whose readers
    /// never wait for its writers has nothing to do.
    fn pause(&self, wait: std::time::Duration) -> Result<bool, StoreError> {
        let _ = wait;
        Ok(true)
    }
}

/// Wait for the commit before, if any ([`Store::commit_after`]'s `previous`): an error,
/// the one a commit not made gives, when it failed.
pub(crate) fn after_previous(
    previous: Option<&(dyn Fn() -> bool + Sync)>,
) -> Result<(), StoreError> {
    match previous {
        Some(previous) if !previous() => Err(noid_core::PreviousFailed.into()),
        _ => Ok(()),
    }
}

impl dyn Store + '_ {
    /// [`Store::commit_all`] of any sequence of operations.
    pub fn commit(&self, ops: impl IntoIterator<Item = Op>) -> Result<(), StoreError> {
        let mut ops: Vec<Op> = ops.into_iter().collect();
        self.commit_all(&mut ops)
    }
}

impl noid_core::Commit for dyn Store + '_ {
    type Error = StoreError;

    /// A write batch's commit (`noid_minter::batch`).
    fn commit_writes(&self, writes: noid_core::Writes) -> Result<(), StoreError> {
        self.commit(writes.into_iter().map(Op::from))
    }

    fn mint_batch(&self) -> Option<u64> {
        Store::mint_batch(self)
    }

    fn open_pipeline(&self) -> usize {
        Store::open_pipeline(self)
    }

    /// [`Store::commit_all`] or, after a commit still in flight,
    /// [`Store::commit_after`]; the operations come back as writes for the caller to
    /// drop.
    fn commit_after(
        &self,
        writes: &mut noid_core::Writes,
        previous: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), StoreError> {
        let mut ops: Vec<Op> = writes.drain(..).map(Op::from).collect();
        let result = match previous {
            None => self.commit_all(&mut ops),
            Some(previous) => Store::commit_after(self, &mut ops, previous),
        };
        writes.extend(ops.into_iter().map(<(Vec<u8>, Option<Vec<u8>>)>::from));
        result
    }
}
