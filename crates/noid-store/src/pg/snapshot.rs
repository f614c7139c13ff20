//! Reading processes: one consistent snapshot of the minter that never blocks writers,
//! as the embedded store's throw-away secondary is.

use crate::StoreError;
use noid_core::{Lookup, LookupError, Pairs};
use postgres::binary_copy::BinaryCopyOutIter;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::Type;

use crate::pg::conn::{connect, failed, minter_id, Conn, Rows};
use crate::pg::location::Location;
use crate::pg::packed::Unpacker;

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
        let id = minter_id(&mut client, loc, Rows::Read)?;
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

    /// Call `f` on every key and value of the snapshot, in key order (bytewise, as
    /// RocksDB orders keys), streamed by one `COPY … TO STDOUT (FORMAT binary)`:
    /// no paging, no text escaping of the `bytea` values; the holds packed into rows
    /// unpacked in their places. Stops at `f`'s first error. Returns how many pairs
    /// there were.
    pub fn copy_sorted(
        &self,
        f: &mut dyn FnMut(&[u8], &[u8]) -> Result<(), StoreError>,
    ) -> Result<u64, StoreError> {
        // COPY takes no parameters; the minter id is an integer of ours.
        let sql = format!(
            "COPY (SELECT key, value, held FROM noid_rows WHERE minter = {} ORDER BY key) \
             TO STDOUT (FORMAT binary)",
            self.conn.minter
        );
        let failed = |e: postgres::Error| self.conn.failed("cannot copy the keys", &e);
        let mut client = self.conn.client();
        let reader = client.copy_out(sql.as_str()).map_err(failed)?;
        let mut rows = BinaryCopyOutIter::new(reader, &[Type::BYTEA, Type::BYTEA, Type::BOOL]);
        let mut pairs = 0;
        let mut counted = |k: &[u8], v: &[u8]| {
            pairs += 1;
            f(k, v)
        };
        let mut unpacker = Unpacker::default();
        while let Some(row) = rows.next().map_err(failed)? {
            let key: &[u8] = row.try_get(0).map_err(failed)?;
            let value: &[u8] = row.try_get(1).map_err(failed)?;
            let held: bool = row.try_get(2).map_err(failed)?;
            unpacker.row(key, value, held, &mut counted)?;
        }
        unpacker.finish(&mut counted)?;
        Ok(pairs)
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

impl crate::Scan for PgSnapshot {
    fn scan_from(
        &self,
        start: &[u8],
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        self.conn.scan_from(start, f)
    }
}
