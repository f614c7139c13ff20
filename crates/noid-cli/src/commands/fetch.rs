//! `fetch ID [ELEM…]` (labelled) and `get ID [ELEM…]` (bare values): the lines that
//! [`noid_resolve::fetch`] words, sent to standard output or error as Perl does; an
//! identifier with nothing bound as given is read under its other spellings
//! ([`noid_resolve::fetch::other_spellings`]).

use noid_core::Lookup;
use noid_minter::MinterError;
use noid_resolve::fetch::{Fetched, ReadVerb, Stream};

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
        let verb = if self.labelled {
            ReadVerb::Fetch
        } else {
            ReadVerb::Get
        };
        let Some(given) = self.id.as_deref() else {
            out.err(format!("error: {}\n", verb.missing_id()));
            out.failed = true;
            return Ok(());
        };
        // As given; when nothing is bound so, under the first other spelling that has
        // something bound (a LUI's canonical spelling, an ARK's normal form).
        let mut read = self.read(l, verb, given)?;
        if !read.0.any {
            for other in noid_resolve::fetch::other_spellings(l, given)? {
                let again = self.read(l, verb, &other)?;
                if again.0.any {
                    read = again;
                    break;
                }
            }
        }
        let (found, stdout, stderr) = read;
        out.out(&stdout);
        if self.labelled && !stdout.is_empty() {
            out.out("\n");
        }
        out.err(&stderr);
        if !found.complete {
            out.failed = true;
        }
        Ok(())
    }

    /// The lines Perl prints for `verb` on `id`: what was found, standard output, error.
    fn read(
        &self,
        l: &dyn Lookup,
        verb: ReadVerb,
        id: &str,
    ) -> Result<(Fetched, Vec<u8>, Vec<u8>), MinterError> {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let found =
            noid_resolve::fetch::fetch(l, verb, id, &self.elems, usize::MAX, |stream, pieces| {
                let to = match stream {
                    Stream::Out => &mut stdout,
                    Stream::Err => &mut stderr,
                };
                for piece in pieces {
                    to.extend_from_slice(piece);
                }
                to.push(b'\n');
            })?;
        Ok((found, stdout, stderr))
    }
}
