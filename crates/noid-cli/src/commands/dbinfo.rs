//! `dbinfo [brief|full|dump]`: the minter's keys as text.

use noid_core::Lookup;
use noid_minter::{info, MinterError};

use crate::complaint::Complaint;
use crate::output::Out;

/// `dbinfo`, with its level (`brief`, `full` or `dump`).
#[derive(Debug)]
pub struct DbInfo {
    level: &'static str,
}

impl DbInfo {
    /// Parse the arguments after `dbinfo`.
    pub fn parse(args: Vec<String>) -> Result<DbInfo, Complaint> {
        let level = match args.first().map(String::as_str) {
            None | Some("brief") => "brief",
            Some("full") => "full",
            Some("dump") => "dump",
            Some(other) => {
                return Err(Complaint::new(format!(
                    "error: dbinfo level must be brief, full or dump, not \"{other}\"."
                )))
            }
        };
        Ok(DbInfo { level })
    }

    /// Run it against `l`.
    pub fn run(&self, l: &dyn Lookup, out: &mut Out) -> Result<(), MinterError> {
        out.out(info::dbinfo(l, self.level)?);
        Ok(())
    }
}
