//! The key of an answer kept in the view's memo (`noid_store::View::memo`), for the
//! line protocols ([`crate::lines`]: `noidr`'s loop and the web server modules) and
//! `noidr --http` alike: the one place that says what a kept answer depends on.
//!
//! A kept answer depends on the view (the memo is the view's own), on the request, and,
//! for an answer the resolver made, on the resolver in force (its generation) and the
//! providers' health (its count of changes). The key names all of them: what asked
//! (one tag per protocol), the resolver's stamp, the request's optional parts each with
//! whether it was sent and its length, and last the one part every request has, as it
//! is (it ends the key, so needs no length). So no two requests of any protocol share
//! a key.

/// Longest request (all its parts together) whose answer is kept.
pub const MAX_REQUEST: usize = 1024;

/// Longest answer kept.
pub const MAX_ANSWER: usize = 1024;

/// What asked (and so what the kept answer is: an answer line or an HTTP answer).
#[derive(Clone, Copy)]
#[repr(u8)]
pub enum Kind {
    /// A line of the noid protocol (`get ID ELEM`).
    Noid = b'N',
    /// A line of the egg protocol (`ID.resolve`).
    Egg = b'E',
    /// An HTTP request that the nginx module makes into an egg line (its target,
    /// scheme and `Accept`).
    EggRequest = b'R',
    /// `noidr --http`.
    Http = b'H',
}

/// The resolver an answer was made with: its generation (read before the resolver, see
/// `Current::generation`) and the providers' health changes.
pub type Stamp = (u64, u64);

/// The memo key of a request of `kind` made of `fields` (`None`: not sent) and `last`
/// (the part it always has), answered with the resolver of `stamp` (`None`: no
/// resolver, as in the noid protocol); `None` when the request is too long to keep.
///
/// On every request's path: the fixed-size pieces are copied as arrays (stores, not
/// calls), and the function is inlined so that a caller's fields are unrolled.
#[inline]
pub fn key(
    kind: Kind,
    stamp: Option<Stamp>,
    fields: &[Option<&[u8]>],
    last: &[u8],
) -> Option<Vec<u8>> {
    let mut len = last.len();
    for field in fields {
        len += field.map_or(0, <[u8]>::len);
    }
    if len > MAX_REQUEST {
        return None;
    }
    let mut key = Vec::with_capacity(17 + 5 * fields.len() + len);
    match stamp {
        Some((generation, health)) => {
            let mut head = [kind as u8; 17];
            head[1..9].copy_from_slice(&generation.to_le_bytes());
            head[9..].copy_from_slice(&health.to_le_bytes());
            key.extend_from_slice(&head);
        }
        None => key.push(kind as u8),
    }
    for field in fields {
        let bytes = field.unwrap_or_default();
        let mut head = [u8::from(field.is_some()); 5];
        head[1..].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        key.extend_from_slice(&head);
        key.extend_from_slice(bytes);
    }
    key.extend_from_slice(last);
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_requests_share_a_key() {
        let keys = [
            key(Kind::Http, Some((2, 0)), &[None, None], b"ab"),
            key(Kind::Http, Some((1, 1)), &[None, None], b"ab"),
            key(Kind::Http, None, &[None, None], b"ab"),
            key(Kind::Http, Some((1, 0)), &[None, None], b"ab"),
            key(Kind::Http, Some((1, 0)), &[Some(b""), None], b"ab"),
            key(Kind::Http, Some((1, 0)), &[None, Some(b"")], b"ab"),
            key(Kind::Http, Some((1, 0)), &[Some(b"a"), None], b"b"),
            key(Kind::Http, Some((1, 0)), &[None, Some(b"a")], b"b"),
            // Fields that would run together without their lengths.
            key(Kind::Http, Some((1, 0)), &[Some(b"a\x01b"), None], b""),
            key(Kind::Http, Some((1, 0)), &[Some(b"a"), Some(b"b\x00")], b""),
        ];
        for (i, a) in keys.iter().enumerate() {
            assert!(a.is_some());
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // The same request, the same key.
        assert_eq!(
            key(Kind::Http, Some((7, 3)), &[Some(b"x"), None], b"y"),
            key(Kind::Http, Some((7, 3)), &[Some(b"x"), None], b"y")
        );
    }

    #[test]
    fn a_long_request_is_not_kept() {
        let long = vec![b'x'; MAX_REQUEST];
        assert!(key(Kind::Http, None, &[], &long).is_some());
        let longer = vec![b'x'; MAX_REQUEST + 1];
        assert!(key(Kind::Http, None, &[], &longer).is_none());
        assert!(key(Kind::Http, None, &[Some(b"y"), None], &long).is_none());
    }
}
