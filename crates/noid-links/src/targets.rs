//! The targets an identifier has, as the resolver reads them (docs/RESOLUTION.md): its
//! `_t` (each line of a multi-target value is a target of its own), its
//! content-negotiation targets (`_,eTm,TYPE`) and its inflection targets
//! (`_,eTi,SUFFIX`), each without the redirect code a value may start with. Only
//! `http://` and `https://` URLs are checked; a value with a `${…}` placeholder is a
//! pattern, not a URL, and is left out. The providers of prefix records are probed
//! by the resolver's own health probes, not here.

use noid_core::lookup::{Lookup, LookupError};
use noid_resolve::{split_code, split_targets};

/// One target of one identifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// The identifier, as stored.
    pub id: String,
    /// The URL.
    pub url: String,
}

/// Whether `elem` holds targets.
fn is_target_element(elem: &[u8]) -> bool {
    elem == b"_t" || elem.starts_with(b"_,eTm,") || elem.starts_with(b"_,eTi,")
}

/// The URLs a target element's value holds.
fn urls(value: &[u8]) -> impl Iterator<Item = String> + '_ {
    let text = std::str::from_utf8(value).unwrap_or("");
    split_targets(text).filter_map(|line| {
        let (_, url) = split_code(line.trim());
        let url = url.trim();
        let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
        let web = lower.starts_with("http://") || lower.starts_with("https://");
        (web && !url.contains("${")).then(|| url.to_string())
    })
}

/// The targets one `ID<TAB>ELEM` binding holds (none for another key).
pub fn of_binding(key: &[u8], value: &[u8]) -> Vec<Target> {
    if key.starts_with(b":/") {
        return Vec::new();
    }
    let Some(tab) = key.iter().position(|&b| b == b'\t') else {
        return Vec::new();
    };
    let (id, elem) = (&key[..tab], &key[tab + 1..]);
    if !is_target_element(elem) {
        return Vec::new();
    }
    let id = String::from_utf8_lossy(id);
    let mut out: Vec<Target> = urls(value)
        .map(|url| Target {
            id: id.to_string(),
            url,
        })
        .collect();
    out.dedup();
    out
}

/// A store's ordered scan: `scan(start, g)` calls `g` on each (key, value) from the
/// first key `>= start` on, in key order, until `g` returns false (noid-store's
/// `Scan::scan_from`, passed as `|start, g| store.scan_from(start, g)`).
pub type ScanFrom<'s, E> =
    dyn FnMut(&[u8], &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<(), E> + 's;

/// Call `f` on every target of every identifier whose key starts with `under` (all
/// when `None`), in key order, until it returns false; nothing is held beyond one
/// binding, so a million targets stream in constant memory.
pub fn for_each_target<E>(
    scan: &mut ScanFrom<'_, E>,
    under: Option<&str>,
    f: &mut dyn FnMut(Target) -> bool,
) -> Result<(), E> {
    let prefix = under.unwrap_or("").as_bytes();
    scan(prefix, &mut |key, value| {
        if !key.starts_with(prefix) {
            return false;
        }
        of_binding(key, value).into_iter().all(&mut *f)
    })
}

/// The targets under `under` from the key `from` on (`None`: from the first), until at
/// least `limit` are read (a binding's targets are never split), and the key to read
/// the next page from (`None`: there is no more). Pages let a caller check and record
/// a batch at a time with nothing else held.
pub fn page_of_targets<E>(
    scan: &mut ScanFrom<'_, E>,
    under: Option<&str>,
    from: Option<&[u8]>,
    limit: usize,
) -> Result<(Vec<Target>, Option<Vec<u8>>), E> {
    let prefix = under.unwrap_or("").as_bytes();
    let start = from.unwrap_or(prefix);
    let mut page = Vec::new();
    let mut next = None;
    scan(start, &mut |key, value| {
        if !key.starts_with(prefix) {
            return false;
        }
        if page.len() >= limit {
            next = Some(key.to_vec());
            return false;
        }
        page.extend(of_binding(key, value));
        true
    })?;
    Ok((page, next))
}

/// Every target under `under`, collected ([`for_each_target`] streams them).
pub fn targets_of<E>(scan: &mut ScanFrom<'_, E>, under: Option<&str>) -> Result<Vec<Target>, E> {
    let mut out = Vec::new();
    for_each_target(scan, under, &mut |t| {
        out.push(t);
        true
    })?;
    Ok(out)
}

/// The targets of the identifier `id` (as stored), in element order.
pub fn targets_of_id(store: &dyn Lookup, id: &str) -> Result<Vec<Target>, LookupError> {
    let mut prefix = id.as_bytes().to_vec();
    prefix.push(b'\t');
    let mut out = Vec::new();
    for (key, value) in store.scan_prefix(&prefix, usize::MAX)? {
        out.extend(of_binding(&key, &value));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binding_holds_the_targets_the_resolver_reads() {
        let t = |k: &str, v: &str| -> Vec<String> {
            of_binding(k.as_bytes(), v.as_bytes())
                .into_iter()
                .map(|t| format!("{} {}", t.id, t.url))
                .collect()
        };
        assert_eq!(
            t("ark:/1/x\t_t", "https://a.org/x"),
            ["ark:/1/x https://a.org/x"]
        );
        assert_eq!(
            t("ark:/1/x\t_t", "https://a.org/1\r\n\nhttp://b.org/2\n"),
            ["ark:/1/x https://a.org/1", "ark:/1/x http://b.org/2"]
        );
        assert_eq!(
            t("ark:/1/x\t_t", "301 https://a.org/moved"),
            ["ark:/1/x https://a.org/moved"]
        );
        assert_eq!(
            t("ark:/1/x\t_,eTm,application/json", "https://a.org/x.json"),
            ["ark:/1/x https://a.org/x.json"]
        );
        assert_eq!(
            t("ark:/1/x\t_,eTi,??", "HTTPS://a.org/info"),
            ["ark:/1/x HTTPS://a.org/info"]
        );
        assert!(t("ark:/1/x\twho", "https://a.org/").is_empty());
        assert!(t("ark:/1/x\t_t", "mailto:a@b.org").is_empty());
        assert!(t("ark:/1/x\t_t", "https://a.org/${id}").is_empty());
        assert!(t(":/idmap/_t\tx", "https://a.org/").is_empty());
    }
}
