//! The write batch engine over a store in memory whose commit can be made to fail:
//! a failed commit reads the minter back, a failed command is undone alone.

mod support;

use noid_minter::batch::Batch;
use noid_minter::{MinterError, Refusal};
use support::{context, minter, MemError, MemStore};

/// A sequential minter of digits (`.sd`: 0, 1, … 9).
fn digits() -> MemStore {
    minter(Some(".sd"), "-", None)
}

fn mint(batch: &mut Batch<'_, MemStore>) -> Result<String, MinterError> {
    let ctx = context();
    batch.attempt(|txn, m| noid_minter::mint::mint(txn, m, &ctx, None))
}

/// After a failed commit the minter is read back from the store: the identifier
/// whose mint was not written is minted again, never skipped (with the minter's
/// state kept in memory, the next mint gave 1).
#[test]
fn a_failed_commit_reads_the_minter_back() {
    let store = digits();
    let mut batch = Batch::open(&store).expect("open");
    assert_eq!(mint(&mut batch).unwrap(), "0");
    store.fail_commit(1);
    assert_eq!(batch.commit(), Err(MemError::DiskFull));
    assert_eq!(batch.pending(), 0, "nothing of the failed batch is pending");
    assert_eq!(mint(&mut batch).unwrap(), "0");
    batch.commit().expect("commit");
    assert_eq!(mint(&mut batch).unwrap(), "1");
    batch.commit().expect("commit");
    assert_eq!(store.admin("oacounter"), "2");
}

/// A command that fails is undone alone, its changes to the minter's state too;
/// the commands before it stand.
#[test]
fn a_failed_command_is_undone_alone() {
    let store = digits();
    let mut batch = Batch::open(&store).expect("open");
    assert_eq!(mint(&mut batch).unwrap(), "0");
    let ctx = context();
    let failed: Result<String, MinterError> = batch.attempt(|txn, m| {
        noid_minter::mint::mint(txn, m, &ctx, None)?;
        Err(MinterError::from(Refusal::NoTemplate))
    });
    assert!(failed.is_err());
    assert_eq!(mint(&mut batch).unwrap(), "1");
    batch.commit().expect("commit");
    assert_eq!(store.admin("oacounter"), "2");
}
