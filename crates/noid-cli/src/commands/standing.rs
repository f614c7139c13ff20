//! `standing [ID…]`: which of an identifier's required kernel elements (who, what,
//! when, how) are missing and which kernel values are malformed, as the N2T page
//! defines good standing. With ids it judges those (a read verb, so in bulk mode it
//! sees the batch's writes); with none it walks the whole minter or binder and judges
//! every identifier that has a binding. Not in good standing is exit status 1.
//! The judging is `noid_resolve::kernel`'s; this module prints it.

use noid_core::Lookup;
use noid_minter::MinterError;
use noid_resolve::kernel::{self, Census, Standing};
use noid_resolve::read_id;

use crate::complaint::store_error;
use crate::invocation::Invocation;
use crate::output::Out;

/// `standing ID…` (ids given) or `standing` (every identifier).
#[derive(Debug)]
pub struct Judge {
    ids: Vec<String>,
}

impl Judge {
    /// Parse the arguments after `standing`.
    pub fn parse(args: Vec<String>) -> Judge {
        Judge { ids: args }
    }

    /// Whether ids were named; without them the verb walks the whole store.
    pub fn names_ids(&self) -> bool {
        !self.ids.is_empty()
    }

    /// `standing ID…` against `l`.
    pub fn run(&self, l: &dyn Lookup, out: &mut Out) -> Result<(), MinterError> {
        let mut tally = Tally::default();
        for given in &self.ids {
            let id = read_id(l, given)?;
            tally.report(id, &kernel::standing(l, id)?, out);
        }
        Ok(())
    }

    /// `standing`: every identifier with a binding, from a snapshot, and a count.
    pub fn run_all(&self, session: &Invocation, out: &mut Out) {
        let snap = match crate::store::open_reader(session) {
            Ok(s) => s,
            Err(e) => return store_error(session, e, out),
        };
        let mut census = Census::default();
        let mut tally = Tally::default();
        let walked = snap.scan_from(b"", &mut |k, v| {
            if let Some((id, s)) = census.push(k, v) {
                tally.report(&id, &s, out);
            }
            true
        });
        if let Err(e) = walked {
            return out.fail(format!("error: {e}\n"));
        }
        if let Some((id, s)) = census.finish() {
            tally.report(&id, &s, out);
        }
        out.out(format!(
            "# {} {}: {} in good standing, {} not\n",
            tally.all,
            if tally.all == 1 {
                "identifier"
            } else {
                "identifiers"
            },
            tally.all - tally.bad,
            tally.bad
        ));
    }
}

/// How many identifiers were judged, and how many fell short.
#[derive(Default)]
struct Tally {
    all: usize,
    bad: usize,
}

impl Tally {
    /// Print one identifier's standing as an ANVL record (a blank line after it) and
    /// count it; one short of good standing fails the command.
    fn report(&mut self, id: &str, s: &Standing, out: &mut Out) {
        self.all += 1;
        let verdict = if s.is_good() { "good" } else { "not good" };
        let mut text = format!("id: {id}\nstanding: {verdict}\n");
        for m in &s.missing {
            text.push_str(&format!("missing: {m}\n"));
        }
        for (elem, why) in &s.malformed {
            text.push_str(&format!("malformed: {elem}: {why}\n"));
        }
        text.push('\n');
        out.out(text);
        if !s.is_good() {
            self.bad += 1;
            out.failed = true;
        }
    }
}
