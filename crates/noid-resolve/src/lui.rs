//! A LUI minter's identifiers asked for in any spelling: readers type Crockford base32
//! in upper case, with dashes missing or moved, `I`/`L` for 1 and `O` for 0, while the
//! minter binds the canonical spelling it minted. Only a minter whose template is
//! `[PREFIX.]luiN[-W]` (its `:/mask` starts with `lui`, and it keeps a `:/luikey`) has
//! such identifiers; for any other store this costs one cached prefix check, and only
//! when nothing else matched.

use noid_template::lui::LuiShape;

use noid_core::lookup::{Lookup, LookupError};

/// The canonical spelling of `id` on a LUI minter, when `id` is another spelling of one
/// of its identifiers (`ark:/`, or the NAAN-relative form, then the minter's first part,
/// then a LUI of its shape with a good checksum); `None` otherwise.
pub fn canonical<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<Option<String>, LookupError> {
    // A prefix check, not a read: a long-lived reader answers it from its cache, so a
    // miss on any other kind of minter costs no store access here.
    if !l.may_have_prefix(noid_core::keys::LUI_KEY)? {
        return Ok(None);
    }
    let Some(mask) = l.get(&noid_core::keys::admin(noid_core::keys::name::MASK))? else {
        return Ok(None);
    };
    let Some(shape) = mask
        .strip_prefix(b"lui")
        .and_then(|m| std::str::from_utf8(m).ok())
        .and_then(LuiShape::parse)
    else {
        return Ok(None);
    };
    let firstpart = l.get(b":/firstpart")?.unwrap_or_default();
    let Ok(firstpart) = std::str::from_utf8(&firstpart) else {
        return Ok(None);
    };
    let (scheme, rest) = match id.get(..5) {
        Some(s) if s.eq_ignore_ascii_case("ark:/") => ("ark:/", &id[5..]),
        _ => ("", id),
    };
    let Some(lui) = rest.strip_prefix(firstpart) else {
        return Ok(None);
    };
    Ok(shape
        .canonical(lui)
        .ok()
        .map(|c| format!("{scheme}{firstpart}{c}"))
        .filter(|c| c != id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::MemLookup;

    fn lui_minter() -> MemLookup {
        let l = MemLookup::new();
        l.insert(":/mask", "lui10-4");
        l.insert(":/luikey", "000102030405060708090a0b0c0d0e0f");
        l.insert(":/firstpart", "13030/f5");
        l
    }

    #[test]
    fn every_spelling_of_a_lui() {
        let l = lui_minter();
        let c = |id: &str| canonical(&l, id).unwrap();
        assert_eq!(
            c("13030/f5TW0TYWDJ94").as_deref(),
            Some("13030/f5tw0t-ywdj-94")
        );
        assert_eq!(
            c("ARK:/13030/f5tw-0tyw-dj94").as_deref(),
            Some("ark:/13030/f5tw0t-ywdj-94")
        );
        assert_eq!(
            c("13030/f5TWOT-YWDJ-94").as_deref(),
            Some("13030/f5tw0t-ywdj-94")
        );
        // Already canonical, a bad checksum, another length or another first part.
        assert_eq!(c("13030/f5tw0t-ywdj-94"), None);
        assert_eq!(c("13030/f5tw0t-ywdj-95"), None);
        assert_eq!(c("13030/f5tw0t-ywdj-9"), None);
        assert_eq!(c("13030/x5tw0t-ywdj-94"), None);
    }

    /// Both line protocols and the resolver behind HTTP find the canonical binding.
    #[test]
    fn resolution_in_any_spelling() {
        use crate::{egg, noid_line, Answer, Request, Resolver, Rules};
        let l = lui_minter();
        l.bind("13030/f5tw0t-ywdj-94", "_t", "https://example.org/obj/1");
        let r = Resolver::new(Rules::empty());
        for id in [
            "ark:/13030/f5TW0T-YWDJ-94",
            "ark:/13030/f5tw0tywdj94",
            "13030/f5TW-0TYW-DJ94",
        ] {
            assert_eq!(
                r.resolve(&l, &Request::new(id)).unwrap(),
                Answer::Redirect {
                    code: 302,
                    target: "https://example.org/obj/1".into()
                },
                "{id}"
            );
        }
        assert_eq!(
            r.resolve(&l, &Request::new("ark:/13030/f5tw0t-ywdj-95"))
                .unwrap(),
            Answer::NotFound
        );
        let mut out = Vec::new();
        egg::answer(
            &r,
            &l,
            b"ark:/13030/f5TW0TYWDJ94.resolve",
            egg::Miss::Null,
            &mut out,
        );
        noid_line::answer(&l, b"get 13030/f5TW0TYWDJ94 _t", &mut out);
        noid_line::answer(&l, b"fetch 13030/f5tw0tyWDJ94 _t", &mut out);
        noid_line::answer(&l, b"get 13030/f5TW0TYWDJ95 _t", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "redir302 https://example.org/obj/1\nhttps://example.org/obj/1\nid:    13030/f5tw0t-ywdj-94\tCirc:  uncirculated\t_t: https://example.org/obj/1\nNULL\n"
        );
    }

    #[test]
    fn other_minters_have_no_luis() {
        let l = MemLookup::new();
        assert_eq!(canonical(&l, "13030/f5TW0TYWDJ94").unwrap(), None);
        l.insert(":/mask", "reedeedk");
        assert_eq!(canonical(&l, "13030/f5TW0TYWDJ94").unwrap(), None);
    }
}
