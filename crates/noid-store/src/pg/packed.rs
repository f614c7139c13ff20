//! Packed holds: a minted identifier's hold kept as a flag on its circulation record's
//! row rather than as a row of its own (docs/SCALING.md, "Where the bound is": a row
//! per identifier halves a mint's B-tree entries).
//!
//! The key space readers see does not change: a row `ID\t:/c` whose `held` flag is set
//! also stands for the key `ID\t:/h` with the value `1`. The flag and a row `ID\t:/h` of
//! its own may both exist (a hold placed before the identifier was minted, then the
//! mint's flag): the hold is there if either is, and the flag wins (the value is `1`).
//! So a mint needs no read to set the flag; a commit that writes a hold without its
//! circulation record clears the flag and writes the row.
//!
//! This module is the part with no I/O: which physical rows a commit's key writes
//! touch ([`row_ops`]), how a page of physical rows becomes a page of keys
//! ([`Page::keys`]), and how a whole stream of them does ([`Unpacker`]).

use crate::Op;
use noid_core::Pairs;

/// The end of a circulation record's key: `ID\t:/c`.
const CIRC: &[u8] = b"\t:/c";
/// The end of a hold's key: `ID\t:/h`.
const HOLD: &[u8] = b"\t:/h";
/// A hold's value, the only one a flag stands for.
pub(crate) const HELD: &[u8] = b"1";

/// A hold's value in SQL.
pub(crate) const HELD_SQL: &str = "'\\x31'::bytea";

/// In SQL, the hold's key of the circulation record's key `circ` (an expression):
/// `ID\t:/c` with its last byte `h`.
pub(crate) fn hold_of_sql(circ: &str) -> String {
    format!("(substring({circ} FROM 1 FOR length({circ}) - 1) || '\\x68'::bytea)")
}

/// In SQL, the circulation record's key of the hold's key `hold` (an expression):
/// `ID\t:/h` with its last byte `c`.
pub(crate) fn circ_of_sql(hold: &str) -> String {
    format!("(substring({hold} FROM 1 FOR length({hold}) - 1) || '\\x63'::bytea)")
}

/// In SQL, whether the key `key` (an expression) is a hold's: it ends with `\t:/h`.
pub(crate) fn is_hold_sql(key: &str) -> String {
    format!("substring({key} FROM length({key}) - 3) = '\\x093a2f68'::bytea")
}

/// The hold's key of the identifier whose circulation record's key is `circ`.
pub(crate) fn hold_of(circ: &[u8]) -> Option<Vec<u8>> {
    let id = circ.strip_suffix(CIRC)?;
    Some([id, HOLD].concat())
}

/// The circulation record's key of the identifier whose hold's key is `hold`.
pub(crate) fn circ_of(hold: &[u8]) -> Option<Vec<u8>> {
    let id = hold.strip_suffix(HOLD)?;
    Some([id, CIRC].concat())
}

/// What a commit does to one physical row. Keys and values are the commit's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RowOp<'a> {
    /// Upsert the row; `held`: `Some` sets the flag, `None` keeps it (false for a new
    /// row).
    Put {
        key: &'a [u8],
        value: &'a [u8],
        held: Option<bool>,
    },
    /// Delete the row.
    Delete { key: &'a [u8] },
    /// Clear the flag of the circulation record's row `key`, if there is one.
    Unflag { key: Vec<u8> },
    /// If the circulation record's row `key` is flagged, write the hold as a row of its
    /// own (value `1`, over any row it had); must run before the row is deleted.
    Unpack { key: &'a [u8] },
}

/// The physical row operations of a commit's key writes `ops`: each key at most once,
/// in key order, as a commit holds them (`Op::last_per_key`). Every physical row is
/// touched by at most one of them, except that [`RowOp::Unpack`] reads the row a
/// [`RowOp::Delete`] then deletes.
///
/// In key order, an identifier's hold follows its circulation record with only that
/// identifier's keys between (`ID\t:/c` < `ID\t:/ca` < … < `ID\t:/h`: identifiers hold
/// no tab), so each record finds its hold by looking ahead a key or two, with no map
/// and no copy: a `mint 100000`'s 200,000 writes cost the client milliseconds.
pub(crate) fn row_ops(ops: &[Op]) -> Vec<RowOp<'_>> {
    debug_assert!(ops.windows(2).all(|w| op_key(&w[0]) < op_key(&w[1])));
    let mut out = Vec::with_capacity(ops.len());
    // The index of a hold already written with its record.
    let mut paired: Option<usize> = None;
    for (i, op) in ops.iter().enumerate() {
        let key = op_key(op);
        if paired == Some(i) {
            continue;
        }
        if let Some(circ) = circ_of(key) {
            // The hold alone: its row, and the flag, which would win over it, goes.
            out.push(RowOp::Unflag { key: circ });
            out.push(plain(op));
            continue;
        }
        let Some(id) = key.strip_suffix(CIRC) else {
            out.push(plain(op));
            continue;
        };
        let hold = ops[i + 1..]
            .iter()
            .enumerate()
            .take_while(|(_, o)| {
                op_key(o).starts_with(id) && op_key(o).get(id.len()) == Some(&b'\t')
            })
            .find(|(_, o)| op_key(o).strip_prefix(id) == Some(HOLD))
            .map(|(j, o)| (i + 1 + j, o));
        if let Some((j, _)) = hold {
            paired = Some(j);
        }
        match (op, hold.map(|(_, o)| o)) {
            (Op::Put(k, v), Some(Op::Put(_, hv))) if hv.as_slice() == HELD => {
                // A row of its own, if any, stays: the flag wins over it, and a mint
                // reads nothing.
                out.push(RowOp::Put {
                    key: k,
                    value: v,
                    held: Some(true),
                });
            }
            (Op::Put(k, v), Some(hold)) => {
                out.push(RowOp::Put {
                    key: k,
                    value: v,
                    held: Some(false),
                });
                out.push(plain(hold));
            }
            (Op::Put(k, v), None) => out.push(RowOp::Put {
                key: k,
                value: v,
                held: None,
            }),
            (Op::Delete(k), Some(hold)) => {
                out.push(RowOp::Delete { key: k });
                out.push(plain(hold));
            }
            (Op::Delete(k), None) => {
                out.push(RowOp::Unpack { key: k });
                out.push(RowOp::Delete { key: k });
            }
        }
    }
    out
}

fn op_key(op: &Op) -> &[u8] {
    match op {
        Op::Put(k, _) | Op::Delete(k) => k,
    }
}

fn plain(op: &Op) -> RowOp<'_> {
    match op {
        Op::Put(k, v) => RowOp::Put {
            key: k,
            value: v,
            held: None,
        },
        Op::Delete(k) => RowOp::Delete { key: k },
    }
}

/// The key below `from` whose row, if flagged, stands for a hold at or after `from`:
/// the circulation record of the identifier `from` falls within (between its
/// `ID\t:/c` and `ID\t:/h`), if any. Identifiers hold no tab, so `ID` is `from` up to
/// its first tab.
pub(crate) fn straddling(from: &[u8]) -> Option<Vec<u8>> {
    let tab = from.iter().position(|&b| b == b'\t')?;
    let circ = [&from[..tab], CIRC].concat();
    let hold = [&from[..tab], HOLD].concat();
    (circ.as_slice() < from && from <= hold.as_slice()).then_some(circ)
}

/// The keys a stream of physical rows in key order stands for, in key order: each row,
/// and after a flagged row its hold, placed where it sorts (a hold's own row, if the
/// stream has one, gives way to the flag's). For streams that hold every row of each
/// identifier they touch (a whole minter, an identifier's rows); a page of a range is
/// [`Page::keys`]'s.
#[derive(Default)]
pub(crate) struct Unpacker {
    /// The hold of the last flagged row, until a row sorts after it. Only one can be
    /// waiting: between `ID\t:/c` and `ID\t:/h` lie only keys of `ID` (identifiers hold
    /// no tab).
    waiting: Option<Vec<u8>>,
}

impl Unpacker {
    /// Pass on the keys up to and including the row `(key, value, held)`.
    pub(crate) fn row<E>(
        &mut self,
        key: &[u8],
        value: &[u8],
        held: bool,
        f: &mut dyn FnMut(&[u8], &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        if let Some(hold) = self.waiting.take_if(|h| h.as_slice() <= key) {
            f(&hold, HELD)?;
            if hold == key {
                // The hold's own row: the flag won.
                return Ok(());
            }
        }
        f(key, value)?;
        if held {
            self.waiting = hold_of(key);
        }
        Ok(())
    }

    /// Pass on what is left after the last row.
    pub(crate) fn finish<E>(
        &mut self,
        f: &mut dyn FnMut(&[u8], &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        match self.waiting.take() {
            Some(hold) => f(&hold, HELD),
            None => Ok(()),
        }
    }

    /// The keys of `rows` (in key order), as pairs.
    pub(crate) fn pairs(rows: impl IntoIterator<Item = (Vec<u8>, Vec<u8>, bool)>) -> Pairs {
        let mut out = Vec::new();
        let mut u = Unpacker::default();
        let mut push = |k: &[u8], v: &[u8]| -> Result<(), std::convert::Infallible> {
            out.push((k.to_vec(), v.to_vec()));
            Ok(())
        };
        for (k, v, held) in rows {
            let Ok(()) = u.row(&k, &v, held, &mut push);
        }
        let Ok(()) = u.finish(&mut push);
        out
    }
}

/// One page of physical rows, `from <= key < to`, in key order, at most `limit` of
/// them (`SELECT key, value, held … ORDER BY key LIMIT limit`).
pub(crate) struct Page<'a> {
    pub from: &'a [u8],
    pub to: Option<&'a [u8]>,
    pub limit: usize,
    /// The rows: key, value, flag.
    pub rows: Vec<(Vec<u8>, Vec<u8>, bool)>,
    /// Whether the row [`straddling`] `from` names exists and is flagged.
    pub straddling_held: bool,
}

impl Page<'_> {
    /// The keys the page stands for, in key order, at most `limit`: its rows, and a
    /// hold for each flagged row (and for the straddling row) that falls in the range,
    /// in place of the hold's own row if it has one. When the page is full, keys after its last row are
    /// left for the next page, which starts after the last key returned.
    pub(crate) fn keys(self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let full = self.rows.len() >= self.limit;
        let last = self.rows.last().map(|(k, _, _)| k.clone());
        let within = |k: &[u8]| {
            k >= self.from
                && self.to.is_none_or(|to| k < to)
                && (!full || last.as_deref().is_some_and(|l| k <= l))
        };
        let mut holds: Vec<Vec<u8>> = Vec::new();
        if self.straddling_held {
            if let Some(h) = straddling(self.from).and_then(|c| hold_of(&c)) {
                holds.push(h);
            }
        }
        holds.extend(
            self.rows
                .iter()
                .filter(|(_, _, held)| *held)
                .filter_map(|(k, _, _)| hold_of(k)),
        );
        holds.retain(|h| within(h));
        // Both lists are in key order: flagged rows' holds sort as the rows do.
        let mut out = Vec::with_capacity(self.rows.len() + holds.len());
        let mut holds = holds.into_iter().peekable();
        for (k, v, _) in self.rows {
            while let Some(h) = holds.next_if(|h| *h < k) {
                out.push((h, HELD.to_vec()));
            }
            if holds.next_if(|h| *h == k).is_some() {
                // The hold's own row: the flag wins.
                out.push((k, HELD.to_vec()));
                continue;
            }
            out.push((k, v));
        }
        out.extend(holds.map(|h| (h, HELD.to_vec())));
        out.truncate(self.limit);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn put(k: &str, v: &str) -> Op {
        Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
    }
    fn del(k: &str) -> Op {
        Op::Delete(k.as_bytes().to_vec())
    }
    fn rput<'a>(k: &'a str, v: &'a str, held: Option<bool>) -> RowOp<'a> {
        RowOp::Put {
            key: k.as_bytes(),
            value: v.as_bytes(),
            held,
        }
    }
    fn b(s: &str) -> Vec<u8> {
        s.as_bytes().to_vec()
    }

    #[test]
    fn keys_of_holds_and_records() {
        assert_eq!(hold_of(b"13030/x\t:/c"), Some(b("13030/x\t:/h")));
        assert_eq!(circ_of(b"13030/x\t:/h"), Some(b("13030/x\t:/c")));
        assert_eq!(hold_of(b"13030/x\t:/h"), None);
        assert_eq!(circ_of(b":/held"), None);
    }

    #[test]
    fn a_mint_flags_the_record_and_writes_no_hold_row() {
        let ops = [
            put(":/oacounter", "2"),
            put("x\t:/c", "i|1"),
            put("x\t:/ca", "a note between"),
            put("x\t:/h", "1"),
            put("y\t:/c", "i|2"),
            put("y\t:/h", "1"),
        ];
        assert_eq!(
            row_ops(&ops),
            [
                rput(":/oacounter", "2", None),
                rput("x\t:/c", "i|1", Some(true)),
                rput("x\t:/ca", "a note between", None),
                rput("y\t:/c", "i|2", Some(true)),
            ]
        );
    }

    #[test]
    fn each_combination_of_record_and_hold_writes() {
        // A hold with another value is a row of its own, and the flag goes.
        assert_eq!(
            row_ops(&[put("x\t:/c", "v"), put("x\t:/h", "2")]),
            [rput("x\t:/c", "v", Some(false)), rput("x\t:/h", "2", None)]
        );
        assert_eq!(
            row_ops(&[put("x\t:/c", "v"), del("x\t:/h")]),
            [
                rput("x\t:/c", "v", Some(false)),
                RowOp::Delete { key: b"x\t:/h" }
            ]
        );
        assert_eq!(
            row_ops(&[del("x\t:/c"), put("x\t:/h", "1")]),
            [RowOp::Delete { key: b"x\t:/c" }, rput("x\t:/h", "1", None)]
        );
        assert_eq!(
            row_ops(&[del("x\t:/c"), del("x\t:/h")]),
            [
                RowOp::Delete { key: b"x\t:/c" },
                RowOp::Delete { key: b"x\t:/h" }
            ]
        );
        // The record alone: a put keeps the flag, a delete unpacks it first.
        assert_eq!(row_ops(&[put("x\t:/c", "q")]), [rput("x\t:/c", "q", None)]);
        assert_eq!(
            row_ops(&[del("x\t:/c")]),
            [
                RowOp::Unpack { key: b"x\t:/c" },
                RowOp::Delete { key: b"x\t:/c" }
            ]
        );
        // The hold alone: its row, and the flag goes.
        assert_eq!(
            row_ops(&[put("x\t:/h", "2")]),
            [
                RowOp::Unflag { key: b("x\t:/c") },
                rput("x\t:/h", "2", None)
            ]
        );
        assert_eq!(
            row_ops(&[del("x\t:/h")]),
            [
                RowOp::Unflag { key: b("x\t:/c") },
                RowOp::Delete { key: b"x\t:/h" }
            ]
        );
        // A record whose hold is another identifier's is not paired with it.
        assert_eq!(
            row_ops(&[put("x\t:/c", "v"), put("x0\t:/h", "1")]),
            [
                rput("x\t:/c", "v", None),
                RowOp::Unflag { key: b("x0\t:/c") },
                rput("x0\t:/h", "1", None)
            ]
        );
    }

    #[test]
    fn straddling_records() {
        assert_eq!(straddling(b"x\t:/d"), Some(b("x\t:/c")));
        assert_eq!(straddling(b"x\t:/h"), Some(b("x\t:/c")));
        assert_eq!(straddling(b"x\t:/c\0"), Some(b("x\t:/c")));
        assert_eq!(
            straddling(b"x\t:/c"),
            None,
            "the record itself is in the page"
        );
        assert_eq!(straddling(b"x\t:/h\0"), None);
        assert_eq!(straddling(b"x\t_t"), None);
        assert_eq!(straddling(b"x"), None);
    }

    /// A small deterministic generator (xorshift), so that failures repeat.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// The physical rows and the key space they stand for, built by applying random
    /// commits through [`row_ops`] to a model of the table, and the same commits to a
    /// plain key space: the two must agree, and paging through the rows with
    /// [`Page::keys`] from any start must give the key space's keys in order.
    #[test]
    fn random_commits_and_pages_agree_with_a_plain_key_space() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let ids = ["a", "b", "b0", "c", "c\u{1}", "d"];
        let elements = [":/c", ":/h", ":/d", ":/ca", ":/g", "_t", "0", ":/"];
        for round in 0..300 {
            let mut rows: BTreeMap<Vec<u8>, (Vec<u8>, bool)> = BTreeMap::new();
            let mut plain: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
            for _ in 0..8 {
                let mut commit: BTreeMap<Vec<u8>, Op> = BTreeMap::new();
                for _ in 0..rng.below(6) + 1 {
                    let id = ids[rng.below(ids.len() as u64) as usize];
                    let el = elements[rng.below(elements.len() as u64) as usize];
                    let key = format!("{id}\t{el}").into_bytes();
                    let op = match rng.below(3) {
                        0 => Op::Delete(key.clone()),
                        1 => Op::Put(key.clone(), b"1".to_vec()),
                        _ => Op::Put(key.clone(), format!("v{}", rng.below(9)).into_bytes()),
                    };
                    commit.insert(key, op);
                }
                let ops: Vec<Op> = commit.into_values().collect();
                for op in &ops {
                    match op {
                        Op::Put(k, v) => plain.insert(k.clone(), v.clone()),
                        Op::Delete(k) => plain.remove(k),
                    };
                }
                apply(&mut rows, &row_ops(&ops));
            }
            let expected: Vec<(Vec<u8>, Vec<u8>)> = plain.into_iter().collect();
            for limit in [1, 2, 3, 100] {
                let mut from = Vec::new();
                let mut got = Vec::new();
                loop {
                    let page = page_of(&rows, &from, None, limit);
                    let keys = page.keys();
                    let Some((last, _)) = keys.last() else { break };
                    from = last.clone();
                    from.push(0);
                    let n = keys.len();
                    got.extend(keys);
                    if n < limit {
                        break;
                    }
                }
                assert_eq!(got, expected, "round {round}, pages of {limit}");
            }
            // The whole stream at once.
            let stream = rows.iter().map(|(k, (v, h))| (k.clone(), v.clone(), *h));
            assert_eq!(
                Unpacker::pairs(stream),
                expected,
                "round {round}, the stream"
            );
            // A bounded range starting inside an identifier's keys.
            let from = b("c\t:/d");
            let to = b("d\t:/d");
            let want: Vec<_> = expected
                .iter()
                .filter(|(k, _)| *k >= from && *k < to)
                .cloned()
                .collect();
            assert_eq!(page_of(&rows, &from, Some(&to), 1000).keys(), want);
        }
    }

    /// The model table after `ops`, as the SQL would leave it.
    fn apply(rows: &mut BTreeMap<Vec<u8>, (Vec<u8>, bool)>, ops: &[RowOp]) {
        for op in ops {
            match op {
                RowOp::Put { key, value, held } => {
                    let flag = match (held, rows.get(*key)) {
                        (Some(h), _) => *h,
                        (None, Some((_, h))) => *h,
                        (None, None) => false,
                    };
                    rows.insert(key.to_vec(), (value.to_vec(), flag));
                }
                RowOp::Delete { key } => {
                    rows.remove(*key);
                }
                RowOp::Unflag { key } => {
                    if let Some(row) = rows.get_mut(key) {
                        row.1 = false;
                    }
                }
                RowOp::Unpack { key } => {
                    if rows.get(*key).is_some_and(|(_, h)| *h) {
                        rows.insert(hold_of(key).unwrap(), (HELD.to_vec(), false));
                    }
                }
            }
        }
    }

    /// The page the SQL would return.
    fn page_of<'a>(
        rows: &BTreeMap<Vec<u8>, (Vec<u8>, bool)>,
        from: &'a [u8],
        to: Option<&'a [u8]>,
        limit: usize,
    ) -> Page<'a> {
        let page_rows = rows
            .range(from.to_vec()..)
            .filter(|(k, _)| to.is_none_or(|to| k.as_slice() < to))
            .take(limit)
            .map(|(k, (v, h))| (k.clone(), v.clone(), *h))
            .collect();
        let straddling_held = straddling(from)
            .and_then(|c| rows.get(&c))
            .is_some_and(|(_, h)| *h);
        Page {
            from,
            to,
            limit,
            rows: page_rows,
            straddling_held,
        }
    }
}
