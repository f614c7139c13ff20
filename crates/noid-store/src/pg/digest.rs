//! The digest of a key space, computed alike by PostgreSQL (over `noid_rows`, its
//! packed holds unpacked) and by a
//! follower (over its local copy), so that a copy that differs from the minter in any
//! key or value is found (docs/SCALING.md, "Checksums").
//!
//! A pair's hash is the first 8 bytes of MD5(length of the key as 8 bytes big-endian,
//! key, value): the length keeps `("ab", "c")` and `("a", "bc")` apart. The digest is
//! the number of pairs and the XOR of their hashes, so it does not depend on the order
//! of the pairs and PostgreSQL computes it with one aggregate (`bit_xor`, PostgreSQL 14
//! or later). MD5 serves as a checksum here, not against an adversary: whoever can
//! write the copy or the database can change the minter anyway.

use crate::StoreError;
use md5::{Digest as _, Md5};

use crate::pg::conn::{connect, failed};
use crate::pg::location::Location;
use crate::pg::packed;

/// The hash of one pair in SQL, as [`Digest::add`] computes it: `{k}` and `{v}` stand
/// for the key's and the value's expressions.
const PAIR_HASH: &str =
    "('x' || left(md5(int8send(length({k})::int8) || {k} || {v}), 16))::bit(64)::int8";

/// The SQL of a minter's digest (`$1`: the minter's id): the count and the XOR, in the
/// same form as [`Digest`], over the key space `noid_rows` stands for
/// (`pg/packed.rs`). XOR undoes itself, so it is three aggregates, each a plain scan
/// that PostgreSQL can run in parallel (one with a subquery per row took 2.5 to 3.5
/// times as long, run by one process): every row; plus the hold `ID\t:/h` = `1` of
/// each flagged row `ID\t:/c` (that key with its last byte `h`); less each hold's own
/// row that such a flag stands in for.
fn sql() -> String {
    let hash = |k: &str, v: &str| PAIR_HASH.replace("{k}", k).replace("{v}", v);
    format!(
        "SELECT a.n + f.n - s.n, a.x # f.x # s.x FROM \
         (SELECT count(*) AS n, coalesce(bit_xor({rows}), 0) AS x \
          FROM noid_rows WHERE minter = $1) AS a, \
         (SELECT count(*) AS n, coalesce(bit_xor({flags}), 0) AS x \
          FROM noid_rows WHERE minter = $1 AND held) AS f, \
         (SELECT count(*) AS n, coalesce(bit_xor({shadowed}), 0) AS x \
          FROM noid_rows h JOIN noid_rows c ON c.minter = $1 AND c.held \
           AND c.key = {circ} WHERE h.minter = $1 AND {is_hold}) AS s",
        rows = hash("key", "value"),
        flags = hash(&packed::hold_of_sql("key"), packed::HELD_SQL),
        shadowed = hash("h.key", "h.value"),
        circ = packed::circ_of_sql("h.key"),
        is_hold = packed::is_hold_sql("h.key"),
    )
}

/// The digest of a set of key-value pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Digest {
    /// How many pairs.
    pub count: i64,
    /// The XOR of the pairs' hashes.
    pub xor: i64,
}

impl Digest {
    /// Add one pair.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let mut h = Md5::new();
        h.update((key.len() as u64).to_be_bytes());
        h.update(key);
        h.update(value);
        let sum = h.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&sum[..8]);
        self.xor ^= i64::from_be_bytes(first);
        self.count += 1;
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} keys, {:016x}", self.count, self.xor as u64)
    }
}

/// The change-log head of minter `minter` at `loc` and the digest of its keys, both
/// read in one `REPEATABLE READ` snapshot: the digest of the minter exactly as of that
/// change.
pub(crate) fn of_minter(loc: &Location, minter: i64) -> Result<(i64, Digest), StoreError> {
    let err = |what: &'static str| move |e: postgres::Error| failed(loc, what, &e);
    let mut client = connect(loc)?;
    let mut t = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(err("cannot begin a snapshot"))?;
    // The one statement that reads every row of the minter: where the minter holds
    // most of the table, a sequential scan is the faster plan (10 interleaved
    // comparisons at 2.2M keys: an index scan took 1.13 times as long, median), so
    // the planner may choose it here, for this transaction only (`connect` turns it
    // off for the session). Planned at each call, it cannot keep a plan made when
    // the table was small.
    t.batch_execute("SET LOCAL enable_seqscan = on")
        .map_err(err("cannot begin a snapshot"))?;
    let seq: i64 = t
        .query_one("SELECT log_seq FROM noid_minters WHERE id = $1", &[&minter])
        .map_err(err("cannot read the change log's head"))?
        .get(0);
    let row = t
        .query_one(&sql(), &[&minter])
        .map_err(err("cannot compute the minter's checksum"))?;
    Ok((
        seq,
        Digest {
            count: row.get(0),
            xor: row.get(1),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::Digest;

    #[test]
    fn pairs_are_hashed_with_the_key_length_and_order_does_not_matter() {
        // MD5 of 00 00 00 00 00 00 00 01 'a' 'b' is 409ab692…, computed with
        // `printf '\0\0\0\0\0\0\0\1ab' | md5sum`.
        let mut one = Digest::default();
        one.add(b"a", b"b");
        assert_eq!(format!("{one}"), "1 keys, 409ab692e30d628d");
        let mut d = Digest::default();
        d.add(b"ab", b"c");
        d.add(b"a", b"bc");
        let mut e = Digest::default();
        e.add(b"a", b"bc");
        e.add(b"ab", b"c");
        assert_eq!(d, e);
        assert_ne!(d.xor, 0, "the length keeps the two pairs apart");
    }
}
