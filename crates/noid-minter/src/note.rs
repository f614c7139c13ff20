//! `note KEY VALUE`: free-form user values stored under `:/:/KEY`.

use noid_core::Lookup;

use crate::error::{MinterError, Refusal};
use crate::txn::Txn;

/// Store a user note.
pub fn note<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    key: &str,
    value: &[u8],
) -> Result<(), MinterError> {
    if key.is_empty() {
        return Err(Refusal::NoteWithoutKey.into());
    }
    txn.put(
        format!("{}{key}", noid_core::keys::NOTE_PREFIX).into_bytes(),
        value,
    );
    Ok(())
}
