//! The changed-identifiers feed of an embedded store, `Dbdir/NOID/changes`: one line per
//! commit, `GENERATION<TAB>ID<TAB>ID…`, naming the generation the commit makes (the
//! writers' change counter after it, `NOID/generation`) and the distinct identifiers
//! whose keys it wrote. Data derived from the store (the search index) reads it to
//! learn what to derive again, without a walk of the whole store.
//!
//! The writer appends the line before it commits, under the writers' lock, and does not
//! sync it: the commit stays one atomic synced write and the resolver's reads never
//! touch the file. A line whose commit then failed names a generation that the next
//! commit names again (a reader takes both: a superset). A reader takes the lines up to
//! the generation it saw, and needs every generation since its own to have a line; a
//! gap (a bulk import that ingests table files writes none; the file started anew past
//! [`MAX_BYTES`]) means it must derive everything again.
//!
//! Which identifier a key belongs to: `ID<TAB>…` keys, and the link checker's
//! `:/links/s/ID<TAB>TARGET` states; other admin keys (`:/…`) belong to none.

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

use crate::Op;

/// Past this size the writer starts the file anew; readers behind it rebuild.
pub const MAX_BYTES: u64 = 64 << 20;

/// The identifier `key` belongs to, if any.
pub fn identifier_of(key: &[u8]) -> Option<&[u8]> {
    let key = match key.strip_prefix(noid_core::links::STATE_PREFIX) {
        Some(state) => state,
        None if key.starts_with(noid_core::keys::ADMIN_PREFIX.as_bytes()) => return None,
        None => key,
    };
    let tab = key.iter().position(|&b| b == noid_core::keys::SEPARATOR)?;
    Some(&key[..tab])
}

/// Append the line of a commit of `ops` that will make generation `generation`.
pub(crate) fn append(path: &Path, generation: u64, ops: &[Op]) -> std::io::Result<()> {
    let ids: BTreeSet<&[u8]> = ops
        .iter()
        .filter_map(|op| identifier_of(op.key()))
        .collect();
    let mut line = Vec::with_capacity(24 + ids.iter().map(|id| id.len() + 1).sum::<usize>());
    line.extend_from_slice(generation.to_string().as_bytes());
    for id in ids {
        line.push(b'\t');
        line.extend_from_slice(id);
    }
    line.push(b'\n');
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    if f.metadata()?.len() > MAX_BYTES {
        f.set_len(0)?;
    }
    f.write_all(&line)
}

/// What a reader learned from the feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changes {
    /// The identifiers written by the commits after the reader's generation up to the
    /// one asked for, and where to read from next time.
    Since {
        /// Distinct identifiers, in byte order.
        ids: Vec<String>,
        /// The byte offset of the first line not taken.
        offset: u64,
    },
    /// A generation in between has no line: derive everything again.
    Gap,
}

/// The identifiers written by the commits that made generations `after + 1 ..= upto`,
/// reading `path` from byte `offset` (where the last read stopped, or 0).
pub fn since(path: &Path, offset: u64, after: u64, upto: u64) -> std::io::Result<Changes> {
    if upto <= after {
        return Ok(Changes::Since {
            ids: Vec::new(),
            offset,
        });
    }
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Changes::Gap),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    // A file started anew holds less than where the reader was.
    let mut offset = if offset > len { 0 } else { offset };
    let mut r = BufReader::new(file);
    r.seek(SeekFrom::Start(offset))?;
    let mut ids = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = r.read_until(b'\n', &mut line)?;
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        let text = String::from_utf8_lossy(&line[..n - 1]);
        let mut fields = text.split('\t');
        let Some(generation) = fields.next().and_then(|g| g.parse::<u64>().ok()) else {
            return Ok(Changes::Gap);
        };
        if generation > upto {
            break;
        }
        offset += n as u64;
        if generation > after {
            seen.insert(generation);
            ids.extend(fields.map(str::to_string));
        }
    }
    if (after + 1..=upto).any(|g| !seen.contains(&g)) {
        return Ok(Changes::Gap);
    }
    Ok(Changes::Since {
        ids: ids.into_iter().collect(),
        offset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(k: &str) -> Op {
        Op::Put(k.as_bytes().to_vec(), b"v".to_vec())
    }

    #[test]
    fn identifiers_of_keys() {
        assert_eq!(identifier_of(b"13030/x\t_t"), Some(&b"13030/x"[..]));
        assert_eq!(
            identifier_of(b"13030/x\t:/d/what\t0000000001"),
            Some(&b"13030/x"[..])
        );
        assert_eq!(
            identifier_of(b":/links/s/13030/x\thttps://e/"),
            Some(&b"13030/x"[..])
        );
        assert_eq!(identifier_of(b":/oacounter"), None);
        assert_eq!(identifier_of(b":/links/h/13030/x\tt\t1"), None);
    }

    /// Lines as the writer appends them, read back by generation; a gap, a failed
    /// commit's line and a partial last line.
    #[test]
    fn read_back_by_generation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("changes");
        append(&path, 1, &[put("a\t_t"), put("b\twho"), put("a\twhat")]).unwrap();
        append(&path, 2, &[put(":/oacounter")]).unwrap();
        // A commit that failed, then the one that made generation 3.
        append(&path, 3, &[put("c\t_t")]).unwrap();
        append(&path, 3, &[put("d\t_t")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "1\ta\tb\n2\n3\tc\n3\td\n"
        );
        let all = since(&path, 0, 0, 3).unwrap();
        let Changes::Since { ids, offset } = all else {
            panic!("{all:?}")
        };
        assert_eq!(ids, ["a", "b", "c", "d"]);
        // "1\ta\tb\n" 6 bytes, "2\n" 2, "3\tc\n" 4, "3\td\n" 4.
        assert_eq!(offset, 16);
        assert_eq!(
            since(&path, 0, 1, 2).unwrap(),
            Changes::Since {
                ids: vec![],
                offset: 8
            }
        );
        assert_eq!(
            since(&path, 8, 2, 3).unwrap(),
            Changes::Since {
                ids: vec!["c".into(), "d".into()],
                offset: 16
            }
        );
        // Generation 4 has no line yet (or never will: an import).
        assert_eq!(since(&path, 16, 3, 4).unwrap(), Changes::Gap);
        // A line being written is not read.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"4\te")
            .unwrap();
        assert_eq!(since(&path, 16, 3, 4).unwrap(), Changes::Gap);
        assert_eq!(
            since(&dir.path().join("none"), 0, 0, 1).unwrap(),
            Changes::Gap
        );
    }
}
