//! `fetch ID [ELEM…]` (labelled) and `get ID [ELEM…]` (bare values).

use noid_core::Lookup;
use noid_minter::{fetch, MinterError};

use crate::output::Out;

/// `fetch`/`get`.
#[derive(Debug)]
pub struct Fetch {
    /// `fetch` (labelled) rather than `get`.
    labelled: bool,
    id: Option<String>,
    elems: Vec<String>,
}

impl Fetch {
    /// Parse the arguments after `fetch` (`labelled`) or `get`.
    pub fn parse(labelled: bool, args: Vec<String>) -> Fetch {
        let mut args = args.into_iter();
        Fetch {
            labelled,
            id: args.next(),
            elems: args.collect(),
        }
    }

    /// Run it against `l`.
    pub fn run(&self, l: &dyn Lookup, out: &mut Out) -> Result<(), MinterError> {
        let r = fetch::fetch(l, self.labelled, self.id.as_deref(), &self.elems)?;
        out.out(&r.stdout);
        if self.labelled && !r.stdout.is_empty() {
            out.out("\n");
        }
        out.err(&r.stderr);
        if !r.ok {
            out.failed = true;
        }
        Ok(())
    }
}
