//! The key of an answer kept in the view's memo (`noid_store::View::memo`), for the
//! line protocols and HTTP alike.
//!
//! A kept answer depends on the view (the memo is the view's own), on the request, and,
//! for an answer the resolver made, on the resolver in force (its generation) and the
//! providers' health (its count of changes). The key names all of them, and each part
//! of the request with its length and whether it was sent at all, so that no two
//! requests of any protocol share a key.

/// Longest request (all its parts together) whose answer is kept.
pub const MAX_REQUEST: usize = 1024;

/// Longest answer kept.
pub const MAX_ANSWER: usize = 1024;

/// What asked (and so what the kept answer is: an answer line or an HTTP answer).
#[derive(Clone, Copy)]
#[repr(u8)]
pub enum Kind {
    /// The noid line protocol.
    NoidLine = b'N',
    /// The egg line protocol.
    EggLine = b'E',
    /// `noidr --http`.
    Http = b'H',
}

/// The resolver an answer was made with: its generation (read before the resolver, see
/// `Current::generation`) and the providers' health changes.
pub type Stamp = (u64, u64);

/// The memo key of a request of `kind` made of `parts` (`None`: not sent), answered
/// with the resolver of `stamp` (`None`: no resolver, as in the noid protocol); `None`
/// when the request is too long to keep.
pub fn key(kind: Kind, stamp: Option<Stamp>, parts: &[Option<&[u8]>]) -> Option<Vec<u8>> {
    let len: usize = parts.iter().map(|p| p.map_or(0, <[u8]>::len)).sum();
    if len > MAX_REQUEST {
        return None;
    }
    let mut key = Vec::with_capacity(1 + 16 + 5 * parts.len() + len);
    key.push(kind as u8);
    if let Some((generation, health)) = stamp {
        key.extend_from_slice(&generation.to_le_bytes());
        key.extend_from_slice(&health.to_le_bytes());
    }
    for part in parts {
        key.push(u8::from(part.is_some()));
        let part = part.unwrap_or_default();
        key.extend_from_slice(&(part.len() as u32).to_le_bytes());
        key.extend_from_slice(part);
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_requests_share_a_key() {
        let keys = [
            key(Kind::EggLine, Some((1, 0)), &[Some(b"ab")]),
            key(Kind::EggLine, Some((2, 0)), &[Some(b"ab")]),
            key(Kind::EggLine, Some((1, 1)), &[Some(b"ab")]),
            key(Kind::NoidLine, None, &[Some(b"ab")]),
            key(Kind::Http, Some((1, 0)), &[Some(b"ab")]),
            key(Kind::Http, Some((1, 0)), &[Some(b"ab"), None]),
            key(Kind::Http, Some((1, 0)), &[Some(b"ab"), Some(b"")]),
            key(Kind::Http, Some((1, 0)), &[Some(b"a"), Some(b"b")]),
            key(Kind::Http, Some((1, 0)), &[Some(b""), Some(b"ab")]),
            // Parts that would run together without their lengths.
            key(Kind::Http, Some((1, 0)), &[Some(b"a\x01b"), None, None]),
            key(
                Kind::Http,
                Some((1, 0)),
                &[Some(b"a"), Some(b"b\x00"), None],
            ),
        ];
        for (i, a) in keys.iter().enumerate() {
            assert!(a.is_some());
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // The same request, the same key.
        assert_eq!(
            key(Kind::Http, Some((7, 3)), &[Some(b"x"), None]),
            key(Kind::Http, Some((7, 3)), &[Some(b"x"), None])
        );
    }

    #[test]
    fn a_long_request_is_not_kept() {
        let long = vec![b'x'; MAX_REQUEST];
        assert!(key(Kind::NoidLine, None, &[Some(&long)]).is_some());
        let longer = vec![b'x'; MAX_REQUEST + 1];
        assert!(key(Kind::NoidLine, None, &[Some(&longer)]).is_none());
        assert!(key(Kind::Http, None, &[Some(&long), Some(b"y")]).is_none());
    }
}
