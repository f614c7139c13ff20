//! Resolution counts in the minter's database: web nodes ship their counts here
//! ([`CountsShipper`]) and `noid stats` of the minter's directory reads their sum
//! ([`read`]). The tables are [`schema::COUNTS_TABLES`]; docs/COUNTS.md, "Several web
//! nodes", tells the whole story.
//!
//! Shipping is exactly-once: a node ships a segment file of its counts directory from
//! the byte offset `noid_counts_shipped` records for it, and adds those counts and
//! moves the offset in one transaction, after locking the offset's row. A crash or a
//! lost connection before the commit leaves both as they were (the next shipment
//! starts from the same offset); after it, both moved. Nothing else decides what was
//! shipped: a node's local record of it only lags.

use std::io;

use postgres::Client;

use crate::pg::conn::{connect, failed, minter_id, Rows};
use crate::pg::location::Location;
use crate::pg::schema;
use crate::pg::CountRow;
use crate::StoreError;

/// Adds up a batch of counts (`$2`… arrays, one element per count) into the minter's
/// (`$1`) `noid_counts`. Equal keys are added up first (an `ON CONFLICT DO UPDATE`
/// cannot touch a row twice) and written in key order, so that two nodes shipping at
/// once lock their common rows in the same order.
const ADD: &str = "INSERT INTO noid_counts AS c (minter, day, id, kind, code, class, count) \
     SELECT $1, DATE '1970-01-01' + u.d, u.i, u.k, u.c, u.cl, sum(u.n)::bigint \
     FROM UNNEST($2::int[], $3::bytea[], $4::text[], $5::int[], $6::text[], $7::bigint[]) \
          AS u(d, i, k, c, cl, n) \
     GROUP BY u.d, u.i, u.k, u.c, u.cl \
     ORDER BY 2, 3, 4, 5, 6 \
     ON CONFLICT (minter, day, id, kind, code, class) \
     DO UPDATE SET count = c.count + EXCLUDED.count";

/// Ships one node's counts to the minter's database, over one connection made when
/// first needed and made again after a failure.
pub struct CountsShipper {
    location: Location,
    node: String,
    /// The connection and the minter's id.
    conn: Option<(Client, i64)>,
}

impl CountsShipper {
    /// A shipper to the minter at `location`, naming itself `node` in
    /// `noid_counts_shipped` (for the operator: segments' names are unique already).
    pub fn new(location: &Location, node: &str) -> CountsShipper {
        CountsShipper {
            location: location.clone(),
            node: node.to_string(),
            conn: None,
        }
    }

    /// Ships `segment`: locks its row of `noid_counts_shipped`, calls `read` with the
    /// offset it records (0 for a segment never shipped), which gives the counts of
    /// the whole blocks from there and the offset after them, adds those counts, moves
    /// the offset, and commits; the offset shipped to. Nothing is written when `read`
    /// gives nothing new. Any failure rolls the whole back (and a lost connection is
    /// made again at the next call).
    pub fn ship(
        &mut self,
        segment: &str,
        read: impl FnOnce(u64) -> io::Result<(Vec<CountRow>, u64)>,
    ) -> Result<u64, StoreError> {
        let result = self.ship_once(segment, read);
        if result.is_err() {
            self.conn = None;
        }
        result
    }

    fn ship_once(
        &mut self,
        segment: &str,
        read: impl FnOnce(u64) -> io::Result<(Vec<CountRow>, u64)>,
    ) -> Result<u64, StoreError> {
        let loc = self.location.clone();
        let err = |what: &'static str| {
            let loc = &loc;
            move |e: postgres::Error| failed(loc, what, &e)
        };
        let node = self.node.clone();
        let (client, minter) = self.connection()?;
        let minter = *minter;
        let mut t = client.transaction().map_err(err("cannot begin"))?;
        t.execute(
            "INSERT INTO noid_counts_shipped (minter, segment, node, shipped) \
             VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING",
            &[&minter, &segment, &node],
        )
        .map_err(err("cannot record a segment of counts"))?;
        let from: i64 = t
            .query_one(
                "SELECT shipped FROM noid_counts_shipped \
                 WHERE minter = $1 AND segment = $2 FOR UPDATE",
                &[&minter, &segment],
            )
            .map_err(err("cannot read how far the counts were shipped"))?
            .get(0);
        let (rows, end) = read(from as u64).map_err(|e| {
            StoreError::Backend(format!("cannot read the counts of {segment}: {e}"))
        })?;
        if end <= from as u64 {
            return Ok(from as u64);
        }
        add(&mut t, minter, &rows).map_err(err("cannot add the counts"))?;
        t.execute(
            "UPDATE noid_counts_shipped SET shipped = $3, node = $4, at = now() \
             WHERE minter = $1 AND segment = $2",
            &[&minter, &segment, &(end as i64), &node],
        )
        .map_err(err("cannot record how far the counts were shipped"))?;
        t.commit().map_err(err("cannot commit the counts"))?;
        Ok(end)
    }

    /// The connection, made (with the counts tables, on a database made before them)
    /// if there is none.
    fn connection(&mut self) -> Result<&mut (Client, i64), StoreError> {
        if self.conn.is_none() {
            let mut client = connect(&self.location)?;
            let minter = minter_id(&mut client, &self.location, Rows::Ignore)?;
            schema::create_counts(&mut client)
                .map_err(|e| failed(&self.location, "cannot create the counts tables", &e))?;
            self.conn = Some((client, minter));
        }
        Ok(self.conn.as_mut().expect("connected above"))
    }
}

/// Adds `rows` to the minter's counts, in transaction `t`.
fn add(
    t: &mut postgres::Transaction<'_>,
    minter: i64,
    rows: &[CountRow],
) -> Result<u64, postgres::Error> {
    let days: Vec<i32> = rows.iter().map(|r| r.day as i32).collect();
    let ids: Vec<&[u8]> = rows.iter().map(|r| r.id.as_slice()).collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r.kind.as_str()).collect();
    let codes: Vec<i32> = rows.iter().map(|r| i32::from(r.code)).collect();
    let classes: Vec<&str> = rows.iter().map(|r| r.class.as_str()).collect();
    let counts: Vec<i64> = rows.iter().map(|r| r.count as i64).collect();
    t.execute(
        ADD,
        &[&minter, &days, &ids, &kinds, &codes, &classes, &counts],
    )
}

/// Every count of the minter at `loc`, as the nodes shipped them (none when no node
/// ever has: the tables may not exist yet).
pub fn read(loc: &Location) -> Result<Vec<CountRow>, StoreError> {
    let err = |what: &'static str| move |e: postgres::Error| failed(loc, what, &e);
    let mut client = connect(loc)?;
    let minter = minter_id(&mut client, loc, Rows::Ignore)?;
    let exists: bool = client
        .query_one("SELECT to_regclass('noid_counts') IS NOT NULL", &[])
        .map_err(err("cannot look for the counts"))?
        .get(0);
    if !exists {
        return Ok(Vec::new());
    }
    let rows = client
        .query(
            "SELECT day - DATE '1970-01-01', id, kind, code, class, count \
             FROM noid_counts WHERE minter = $1",
            &[&minter],
        )
        .map_err(err("cannot read the counts"))?;
    Ok(rows
        .iter()
        .map(|r| CountRow {
            day: r.get::<_, i32>(0) as u32,
            id: r.get(1),
            kind: r.get(2),
            code: r.get::<_, i32>(3) as u16,
            class: r.get(4),
            count: r.get::<_, i64>(5) as u64,
        })
        .collect())
}
