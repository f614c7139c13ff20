//! Reading processes: one consistent snapshot of the minter that never blocks writers,
//! as the embedded store's throw-away secondary is.

use noid_resolve::{Lookup, LookupError, Pairs};
use noid_store::StoreError;

use crate::conn::{connect, failed, minter_id, Conn};
use crate::location::Location;

/// A read-only view of the minter at `loc` as of its opening: a `REPEATABLE READ READ
/// ONLY` transaction, never committed (closing the connection ends it).
pub struct PgSnapshot {
    conn: Conn,
}

impl PgSnapshot {
    /// Open the minter at `loc` for reading.
    pub fn open(loc: &Location) -> Result<PgSnapshot, StoreError> {
        let mut client = connect(loc)?;
        client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .map_err(|e| failed(loc, "cannot begin a snapshot", &e))?;
        let id = minter_id(&mut client, loc)?;
        Ok(PgSnapshot {
            conn: Conn::new(client, id, loc.clone())?,
        })
    }

    /// The change log's last sequence number as of this snapshot: the snapshot holds
    /// exactly the changes up to it.
    pub fn log_seq(&self) -> Result<i64, StoreError> {
        let row = self
            .conn
            .client()
            .query_one(
                "SELECT log_seq FROM noid_minters WHERE id = $1",
                &[&self.conn.minter],
            )
            .map_err(|e| self.conn.failed("cannot read the change log's head", &e))?;
        Ok(row.get(0))
    }

    /// The minter's id in `noid_minters`.
    pub fn minter_id(&self) -> i64 {
        self.conn.minter
    }
}

impl Lookup for PgSnapshot {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        self.conn.get(key)
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        self.conn.scan_prefix(prefix, limit)
    }
}

impl noid_store::Scan for PgSnapshot {
    fn scan_from(
        &self,
        start: &[u8],
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        self.conn.scan_from(start, f)
    }
}
