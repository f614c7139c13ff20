//! `queue now|first|lvf|delete|N[ds] ID…`: queue identifiers for (re)minting.

use noid_minter::{queue, MinterError};

use super::{Failed, Writing};
use crate::output::Out;

/// `queue`.
#[derive(Debug)]
pub struct Queue {
    /// When, as given (the minter judges it).
    when: Option<String>,
    ids: Vec<String>,
}

impl Queue {
    /// Parse the arguments after `queue`.
    pub fn parse(args: Vec<String>) -> Queue {
        let mut args = args.into_iter();
        Queue {
            when: args.next(),
            ids: args.collect(),
        }
    }

    /// Run it within the write batch `w`.
    pub fn run(&self, w: &mut Writing<'_, '_>, out: &mut Out) -> Result<(), Failed> {
        let ctx = w.session.context();
        match queue::queue(w.txn, w.minter, &ctx, self.when.as_deref(), &self.ids) {
            Ok(lines) => {
                out.out(format!("{}\n", lines.join("\n")));
                let n = lines.iter().filter(|l| !l.starts_with("error:")).count();
                out.out(format!(
                    "note: {n} identifier{} queued\n",
                    if n == 1 { "" } else { "s" }
                ));
                if n < lines.len() {
                    out.failed = true;
                }
                Ok(())
            }
            Err(MinterError::Refused(msg)) => {
                out.fail(format!("{msg}\n"));
                out.out("note: 0 identifiers queued\n");
                Err(Failed::Reported)
            }
            Err(e) => Err(e.into()),
        }
    }
}
