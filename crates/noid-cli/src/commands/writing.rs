//! What a write verb works with ([`Writing`]: the open write batch and its surroundings)
//! and why it stopped ([`Failed`]): the values every write verb's module shares, kept
//! apart from the verb table in `mod.rs` that names the verbs' modules.

use std::io;

use noid_minter::{Minter, MinterError, Txn};
use noid_store::Store;

use super::mint;
use crate::invocation::Invocation;

/// What a write verb works with: the open write batch and its surroundings.
pub struct Writing<'a, 'w> {
    /// Where and as whom.
    pub session: &'a Invocation,
    /// The batch's transaction.
    pub txn: &'a mut Txn<'w, dyn Store>,
    /// The minter's state, kept across the batch.
    pub minter: &'a mut Minter,
    /// Standard input for `bind … :`/`:-`; None in bulk mode, where it carries the
    /// commands.
    pub stdin: Option<&'a mut dyn io::Read>,
    /// In bulk mode, the command stream after the current command (egg's indirect
    /// tokens read their values from it).
    pub commands: Option<&'a mut dyn io::BufRead>,
    /// How `mint` commits and prints its batches.
    pub batches: &'a mut dyn mint::Batches,
}

/// Why a write verb stopped; the runner undoes its writes.
#[derive(Debug)]
pub enum Failed {
    /// The verb has said why in its output.
    Reported,
    /// The minter or its store failed; the runner says so.
    Minter(MinterError),
}

impl From<MinterError> for Failed {
    fn from(e: MinterError) -> Failed {
        Failed::Minter(e)
    }
}
