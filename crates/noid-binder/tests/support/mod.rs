//! What the binder's tests share: a binder made as `noid dbcreate` makes it.

use std::path::Path;
use std::time::Duration;

/// A bind-only minter (no template) made in `dir`, as `noid -f DIR dbcreate` makes it;
/// its writer, which a caller that hands the store to a writer thread drops at once.
pub fn binder(dir: &Path) -> Box<dyn noid_store::Store> {
    let created = noid_minter::create::dbcreate(&noid_minter::create::CreateArgs {
        template: None,
        term: None,
        naan: None,
        naa: None,
        subnaa: None,
        contact: "test",
        when: "20260101000000",
        where_: "host:/binder",
        dbdir_display: "binder",
        samples: (1, 2),
        atlast: None,
        lui_key: [7; 16],
    })
    .unwrap();
    let writer = noid_store::open::create(dir, None, Duration::from_secs(5)).unwrap();
    let ops = created
        .keys
        .iter()
        .map(|(k, v)| noid_store::Op::Put(noid_core::keys::admin(k), v.clone().into_bytes()));
    writer.commit(ops).unwrap();
    writer
}
