//! When an identifier's bindings were last written: the `ID<TAB>:/m` element
//! ([`keys::MODIFIED`]), which every binding path writes through
//! `noid_minter::modified::record` and HTTP reads for `Last-Modified`.
//!
//! Identifiers bound before the element existed (or imported from Perl Noid) have none;
//! their pages then carry no `Last-Modified`.

use crate::noid_keys::NoidKeys;
use noid_core::keys;
use noid_core::lookup::{Lookup, LookupError};

/// The last write to `id`'s bindings, in seconds since the epoch, if recorded. An
/// `ark:/NAAN/…` id also finds the record of the `NAAN/…` form a minter stores.
pub fn last_write<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<Option<i64>, LookupError> {
    let v = NoidKeys(l).get(&keys::modified(id))?;
    Ok(v.and_then(|v| std::str::from_utf8(&v).ok()?.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::MemLookup;

    #[test]
    fn read_in_either_ark_form() {
        let l = MemLookup::new();
        l.bind("ark:/1/a", ":/m", "1700000000");
        l.bind("13030/b", ":/m", "1700000001\n");
        l.bind("c", ":/m", "soon");
        assert_eq!(last_write(&l, "ark:/1/a").unwrap(), Some(1_700_000_000));
        assert_eq!(last_write(&l, "ark:/13030/b").unwrap(), Some(1_700_000_001));
        assert_eq!(last_write(&l, "c").unwrap(), None);
        assert_eq!(last_write(&l, "d").unwrap(), None);
    }
}
