//! `hold set|release ID…`: place or remove holds.

use noid_minter::{hold, MinterError};

use super::{Failed, Writing};
use crate::complaint::Complaint;
use crate::output::Out;

/// `hold`.
#[derive(Debug)]
pub struct Hold {
    /// `set` or `release`, as given (the minter judges it).
    on_off: Option<String>,
    ids: Vec<String>,
}

impl Hold {
    /// Parse the arguments after `hold`.
    pub fn parse(args: Vec<String>) -> Hold {
        let mut args = args.into_iter();
        Hold {
            on_off: args.next(),
            ids: args.collect(),
        }
    }

    /// Run it within the write batch `w`.
    pub fn run(&self, w: &mut Writing<'_, '_>, out: &mut Out) -> Result<(), Failed> {
        match hold::hold(w.txn, w.minter, self.on_off.as_deref(), &self.ids) {
            Ok(msg) => {
                out.out(format!("{msg}\n\n"));
                Ok(())
            }
            Err(MinterError::Refused(r)) => {
                Complaint::new(r.to_string()).with_usage("hold").render(out);
                Err(Failed::Reported)
            }
            Err(e) => Err(e.into()),
        }
    }
}
