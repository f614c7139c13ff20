//! `fetch` (labelled) and `get` (bare values) for the CLI: the lines that
//! [`noid_resolve::fetch`] words, sent to standard output or error as Perl does.

use noid_core::Lookup;
use noid_resolve::fetch::{Stream, Verb};

use crate::error::MinterError;

/// What a fetch/get prints: Perl splits it between stdout and stderr.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Output {
    /// Bytes for standard output.
    pub stdout: Vec<u8>,
    /// Bytes for standard error.
    pub stderr: Vec<u8>,
    /// False when something asked for was not found (the exit status).
    pub ok: bool,
}

/// `fetch ID [ELEM…]` (`verbose`) or `get ID [ELEM…]`.
pub fn fetch<L: Lookup + ?Sized>(
    l: &L,
    verbose: bool,
    id: Option<&str>,
    elems: &[String],
) -> Result<Output, MinterError> {
    let verb = if verbose { Verb::Fetch } else { Verb::Get };
    let mut out = Output::default();
    let Some(given) = id else {
        out.stderr = format!("error: {}\n", verb.missing_id()).into_bytes();
        return Ok(out);
    };
    let found = noid_resolve::fetch::fetch(l, verb, given, elems, usize::MAX, |stream, pieces| {
        let to = match stream {
            Stream::Out => &mut out.stdout,
            Stream::Err => &mut out.stderr,
        };
        for piece in pieces {
            to.extend_from_slice(piece);
        }
        to.push(b'\n');
    })?;
    out.ok = found.complete;
    Ok(out)
}
