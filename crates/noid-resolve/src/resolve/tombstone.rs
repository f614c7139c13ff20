//! Withdrawn identifiers: tombstones.
//!
//! An identifier is withdrawn when its target's stored code is 410 (Gone): `_t` bound to
//! `410 TEXT` (`noid bind set ID _t "410 withdrawn in 2024"`), TEXT saying why or where
//! the thing went, possibly empty (`410 ` alone). This is the code N2T's target syntax
//! already gives, and what every protocol answered before tombstones existed (egg
//! `redir410 TEXT`, HTTP 410), so marking costs no new element and a plain hit pays
//! nothing for it: only a target that starts with `410 ` is looked at again.
//!
//! A withdrawn identifier, found as such or as the ancestor of the id requested, is
//! answered with [`Answer::Tombstone`]: the egg protocol still says `redir410 TEXT`
//! (the line is unchanged), and HTTP answers 410 with a page that shows the kernel
//! metadata, TEXT, and the identifier's successor when a `successor` element is bound
//! (an identifier or a URL, the one that replaces it). Its inflections (`?`, `??`) and
//! `_,eTi,`/`_,eTm,` targets still apply; content negotiation for the resolver's own
//! metadata gets the tombstone (410) in the type asked for.

use super::answer::Answer;
use super::negotiate::metadata;
use noid_core::lookup::{Lookup, LookupError};

/// The element naming what replaces a withdrawn identifier.
pub const SUCCESSOR: &str = "successor";

/// Whether a stored target marks its identifier withdrawn (`410 …`); `text` is the
/// stored value. Several targets (one per line) are never a tombstone. (Public: the
/// search index's `withdrawn:` reads it.)
pub fn is_withdrawn(text: &str) -> bool {
    text.starts_with("410 ") && memchr::memchr(b'\n', text.as_bytes()).is_none()
}

/// The tombstone of `root`, withdrawn with `gone` (TEXT, suffix and placeholders
/// applied as for the 410 answer it replaces).
pub(super) fn tombstone<L: Lookup + ?Sized>(
    l: &L,
    root: &str,
    gone: String,
) -> Result<Answer, LookupError> {
    let bindings = metadata(l, root)?;
    let successor = bindings
        .iter()
        .find(|(e, _)| e == SUCCESSOR)
        .map(|(_, v)| String::from_utf8_lossy(v).trim().to_string())
        .filter(|s| !s.is_empty());
    Ok(Answer::Tombstone {
        id: root.to_string(),
        text: gone,
        successor,
        bindings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks() {
        assert!(is_withdrawn("410 withdrawn"));
        assert!(is_withdrawn("410 "));
        assert!(!is_withdrawn("410"));
        assert!(!is_withdrawn("4100 x"));
        assert!(!is_withdrawn("301 x"));
        assert!(!is_withdrawn("410 a\n410 b"));
    }
}
