//! The bytes of the counts store: a segment file is a run of blocks, each written by
//! one `write` of one flush, each checked by its own CRC-32, so that a reader can tell
//! a whole block from the torn end of a write a crash cut short.
//!
//! ```text
//! block  := magic(4) length(u32 LE) crc32(u32 LE) body[length]
//! magic  := "NCC1" (counts) | "NCF1" (the names of the segments a compaction folded)
//! counts := entry*
//! entry  := day(u32) kind(u8) code(u16) class(u8) count(u64) id-length(u16) id
//! folded := name ("\n" name)*
//! ```
//!
//! Integers are little-endian. Nothing else is written: no address, no User-Agent,
//! no time finer than the day.

use crate::key::{Class, Day, Kind};

/// A block of counts.
pub(crate) const COUNTS: &[u8; 4] = b"NCC1";
/// A block naming the segments a compacted segment holds the counts of.
pub(crate) const FOLDED: &[u8; 4] = b"NCF1";
/// Bytes before a block's body.
pub(crate) const HEAD: usize = 12;
/// Bytes of an entry before its identifier.
pub(crate) const ENTRY_HEAD: usize = 18;
/// Where an entry's count is, from its start.
pub(crate) const COUNT_AT: usize = 8;

/// The longest identifier kept, in bytes; a longer one is cut at a character boundary
/// (a request that long is a mistake or an attack, never an identifier).
pub const MAX_ID: usize = 1024;

/// One count read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub day: Day,
    pub kind: Kind,
    pub class: Class,
    pub count: u64,
    pub id: Vec<u8>,
}

/// `id` cut to [`MAX_ID`] bytes, at a UTF-8 character boundary when it is text.
pub(crate) fn kept_id(id: &[u8]) -> &[u8] {
    if id.len() <= MAX_ID {
        return id;
    }
    let mut end = MAX_ID;
    while end > 0 && (id[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    &id[..end]
}

/// The head of an entry of `count` for an identifier of `id_len` bytes (at most
/// [`MAX_ID`]).
#[inline]
pub(crate) fn entry_head(
    day: Day,
    kind: Kind,
    class: Class,
    count: u64,
    id_len: usize,
) -> [u8; ENTRY_HEAD] {
    let (tag, code) = kind.encode();
    let mut head = [0u8; ENTRY_HEAD];
    head[0..4].copy_from_slice(&day.to_le_bytes());
    head[4] = tag;
    head[5..7].copy_from_slice(&code.to_le_bytes());
    head[7] = class.encode();
    head[COUNT_AT..COUNT_AT + 8].copy_from_slice(&count.to_le_bytes());
    head[16..18].copy_from_slice(&(id_len as u16).to_le_bytes());
    head
}

/// Appends one entry to a counts block's body.
pub(crate) fn put_entry(
    body: &mut Vec<u8>,
    day: Day,
    kind: Kind,
    class: Class,
    count: u64,
    id: &[u8],
) {
    let id = kept_id(id);
    body.reserve(ENTRY_HEAD + id.len());
    body.extend_from_slice(&entry_head(day, kind, class, count, id.len()));
    body.extend_from_slice(id);
}

/// The entries of a counts block's body (none if it does not parse).
pub(crate) fn parse_body(body: &[u8]) -> Vec<Entry> {
    let mut out = Vec::new();
    entries(body, &mut out);
    out
}

/// Starts a block in `buf` (emptied): the room for its head, which [`seal`] fills
/// once the body has been appended after it.
pub(crate) fn open_block(buf: &mut Vec<u8>) {
    buf.clear();
    buf.extend_from_slice(&[0; HEAD]);
}

/// Fills the head of the block that [`open_block`] started in `buf`, as a block of
/// type `magic`; false when its body is empty (nothing to write).
pub(crate) fn seal(magic: &[u8; 4], buf: &mut [u8]) -> bool {
    let (head, body) = buf.split_at_mut(HEAD);
    head[0..4].copy_from_slice(magic);
    head[4..8].copy_from_slice(&(body.len() as u32).to_le_bytes());
    head[8..12].copy_from_slice(&crc32fast::hash(body).to_le_bytes());
    !body.is_empty()
}

/// `body` framed as a block of type `magic`.
pub(crate) fn block(magic: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEAD + body.len());
    open_block(&mut out);
    out.extend_from_slice(body);
    seal(magic, &mut out);
    out
}

/// What a segment's bytes hold.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub(crate) entries: Vec<Entry>,
    /// The segments this one folded (a compacted segment).
    pub(crate) folded: Vec<String>,
    /// Bytes at the end that are not a whole block (a torn last write), skipped.
    pub(crate) torn: usize,
    /// Where the whole blocks end (the bytes' length less `torn`): where the next
    /// block will start.
    pub(crate) end: usize,
}

/// The blocks of a segment, up to the first that is not whole or not checked by its
/// CRC (a writer that crashed mid-write writes nothing after it).
pub(crate) fn parse(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    let mut at = 0;
    while at < bytes.len() {
        let Some(body) = whole_block(&bytes[at..]) else {
            break;
        };
        match &bytes[at..at + 4] {
            m if m == COUNTS => {
                if !entries(body, &mut parsed.entries) {
                    break;
                }
            }
            m if m == FOLDED => parsed.folded.extend(
                String::from_utf8_lossy(body)
                    .split('\n')
                    .filter(|n| !n.is_empty())
                    .map(str::to_string),
            ),
            _ => break,
        }
        at += HEAD + body.len();
    }
    parsed.torn = bytes.len() - at;
    parsed.end = at;
    parsed
}

/// The body of the block at the start of `bytes`, if it is whole and its CRC matches.
fn whole_block(bytes: &[u8]) -> Option<&[u8]> {
    let len = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?) as usize;
    let crc = u32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?);
    let body = bytes.get(HEAD..HEAD.checked_add(len)?)?;
    (crc32fast::hash(body) == crc).then_some(body)
}

/// Reads a counts block's entries into `out`; false (and nothing added) if the body
/// does not parse, which a checked block of this version never does.
fn entries(mut body: &[u8], out: &mut Vec<Entry>) -> bool {
    let start = out.len();
    while !body.is_empty() {
        let Some((entry, rest)) = entry(body) else {
            out.truncate(start);
            return false;
        };
        out.push(entry);
        body = rest;
    }
    true
}

fn entry(b: &[u8]) -> Option<(Entry, &[u8])> {
    let fixed = b.get(..18)?;
    let day = u32::from_le_bytes(fixed[0..4].try_into().ok()?);
    let kind = Kind::decode(fixed[4], u16::from_le_bytes(fixed[5..7].try_into().ok()?))?;
    let class = Class::decode(fixed[7])?;
    let count = u64::from_le_bytes(fixed[8..16].try_into().ok()?);
    let len = u16::from_le_bytes(fixed[16..18].try_into().ok()?) as usize;
    let id = b.get(18..18 + len)?.to_vec();
    Some((
        Entry {
            day,
            kind,
            class,
            count,
            id,
        },
        &b[18 + len..],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts_block(id: &str, count: u64) -> Vec<u8> {
        let mut body = Vec::new();
        put_entry(
            &mut body,
            20_000,
            Kind::Redirect(302),
            Class::Person,
            count,
            id.as_bytes(),
        );
        block(COUNTS, &body)
    }

    #[test]
    fn a_torn_last_block_is_skipped_and_the_whole_ones_read() {
        let mut bytes = counts_block("ark:/1/a", 3);
        let second = counts_block("ark:/1/b", 4);
        // Every cut of the second block inside it leaves the first one only.
        for cut in 0..second.len() {
            let mut torn = bytes.clone();
            torn.extend_from_slice(&second[..cut]);
            let parsed = parse(&torn);
            assert_eq!(parsed.entries.len(), 1, "cut at {cut}");
            assert_eq!(parsed.entries[0].id, b"ark:/1/a");
            assert_eq!(parsed.torn, cut);
        }
        bytes.extend_from_slice(&second);
        let parsed = parse(&bytes);
        assert_eq!(parsed.entries.iter().map(|e| e.count).sum::<u64>(), 7);
        assert_eq!(parsed.torn, 0);
    }

    #[test]
    fn a_flipped_byte_fails_the_checksum() {
        let mut bytes = counts_block("ark:/1/a", 3);
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        assert!(parse(&bytes).entries.is_empty());
    }

    #[test]
    fn a_long_identifier_is_cut_at_a_character_boundary() {
        let id = "é".repeat(MAX_ID); // two bytes each
        assert_eq!(kept_id(id.as_bytes()).len(), MAX_ID);
        let id = format!("a{}", "é".repeat(MAX_ID));
        let kept = kept_id(id.as_bytes());
        assert_eq!(kept.len(), MAX_ID - 1);
        assert!(std::str::from_utf8(kept).is_ok());
    }
}
