//! `note KEY VALUE`: a user note stored in the minter.

use noid_minter::note;

use super::{Failed, Writing};
use crate::complaint::Complaint;

/// `note`.
#[derive(Debug)]
pub struct Note {
    key: String,
    value: String,
}

impl Note {
    /// Parse the arguments after `note`: a key and a value are required.
    pub fn parse(args: Vec<String>) -> Result<Note, Complaint> {
        let mut args = args.into_iter();
        match (args.next(), args.next()) {
            (Some(key), Some(value)) => Ok(Note { key, value }),
            _ => Err(Complaint::new("You must supply a key and a value.").with_usage("note")),
        }
    }

    /// Run it within the write batch `w`.
    pub fn run(&self, w: &mut Writing<'_, '_>) -> Result<(), Failed> {
        Ok(note::note(w.txn, &self.key, self.value.as_bytes())?)
    }
}
