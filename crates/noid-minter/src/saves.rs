//! Asking an archive to save a target when it is bound (docs/LINKS.md, "Asking an
//! archive to save a target"): where the minter's save-on-bind policy covers the
//! identifier (`noid links policy --save-on-bind on PREFIX`), each URL a bind leaves in
//! its `_t` is queued (`:/links/v/ID<TAB>TARGET`, noid-core's `SaveRequest`) in the
//! bind's own transaction; noid-archive's queue tries the requests later, retries and
//! records them. Every binding path calls [`queue_on_bind`]: `noid bind` (CLI, bulk,
//! web) through [`crate::bind::bind`], and egg's `set`, `let`, `add`, `insert`.

use noid_core::keys;
use noid_core::links::{covers, save_key, SaveRequest};
use noid_core::Lookup;

use crate::{Minter, MinterError, Txn};

/// The element whose values are targets.
const TARGET: &str = "_t";

/// Queue the targets now bound to `id` (its `_t`, each line a target, a leading
/// redirect code dropped) for an archive to save, when element `elem` was just written
/// and the policy covers `id`. A target already queued (or saved) is left as it is.
pub fn queue_on_bind<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &Minter,
    id: &str,
    elem: &str,
    now: i64,
) -> Result<(), MinterError> {
    if elem != TARGET || !m.save_on_bind.iter().any(|p| covers(p, id)) {
        return Ok(());
    }
    let Some(value) = txn.get(&keys::elem(id, elem))? else {
        return Ok(());
    };
    let text = String::from_utf8_lossy(&value).into_owned();
    for url in urls(&text) {
        let key = save_key(id, url);
        if txn.get(&key)?.is_none() {
            txn.put(key, SaveRequest::queued_at(now.max(0) as u64).encode());
        }
    }
    Ok(())
}

/// The URLs of a `_t` value: each line, without a leading redirect code (`302 URL`),
/// that is an `http` or `https` URL (a stored code such as `410 gone` is none).
fn urls(value: &str) -> impl Iterator<Item = &str> {
    value.lines().filter_map(|line| {
        let line = line.trim();
        let url = match line.split_once(' ') {
            Some((code, rest)) if code.len() == 3 && code.bytes().all(|b| b.is_ascii_digit()) => {
                rest.trim()
            }
            _ => line,
        };
        (url.starts_with("http://") || url.starts_with("https://")).then_some(url)
    })
}

#[cfg(test)]
mod tests {
    use super::urls;

    #[test]
    fn the_urls_of_a_target_value() {
        let v = "https://a.org/x\n302 http://b.org/y\n410 gone\nftp://c.org/\n";
        assert_eq!(
            urls(v).collect::<Vec<_>>(),
            ["https://a.org/x", "http://b.org/y"]
        );
    }
}
