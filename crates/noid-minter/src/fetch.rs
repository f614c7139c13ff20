//! `fetch` (labelled) and `get` (bare values): reading an identifier's bindings, with
//! `:idmap` rules standing in for named elements that are not stored.

use noid_resolve::Lookup;

use crate::error::MinterError;
use crate::keys;

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
    let mut out = Output {
        ok: true,
        ..Output::default()
    };
    let Some(given) = id else {
        let cmd = if verbose { "fetch" } else { "get" };
        out.stderr =
            format!("error: {cmd} requires that an identifier be specified.\n").into_bytes();
        out.ok = false;
        return Ok(out);
    };
    let id = crate::pepper::base_for_read(l, given)?;
    let mut header = Vec::new();
    if verbose {
        let held = l.get(&keys::hold(&id))?.is_some();
        let circ = l.get(&keys::circ(&id))?;
        header.extend_from_slice(
            format!("id:    {id}{}\n", if held { " hold" } else { "" }).as_bytes(),
        );
        header.extend_from_slice(b"Circ:  ");
        match circ {
            Some(c) => header.extend_from_slice(&c),
            None => header.extend_from_slice(b"uncirculated"),
        }
        header.push(b'\n');
    }
    if elems.is_empty() {
        let bound = noid_resolve::bindings(l, &id, usize::MAX)?;
        let n = bound.len();
        let mut body = Vec::new();
        for (elem, v) in bound {
            if verbose {
                body.extend_from_slice(elem.as_bytes());
                body.extend_from_slice(b": ");
            }
            body.extend_from_slice(&v);
            body.push(b'\n');
        }
        if n == 0 {
            out.stderr = header;
            out.stderr
                .extend_from_slice(format!("note: no elements bound under {id}.\n").as_bytes());
            out.ok = false;
        } else {
            out.stdout = header;
            out.stdout.extend_from_slice(&body);
        }
        return Ok(out);
    }
    out.stdout = header;
    for elem in elems {
        match noid_resolve::elem_value(l, &id, elem)? {
            Some(v) => {
                if verbose {
                    out.stdout.extend_from_slice(elem.as_bytes());
                    out.stdout.extend_from_slice(b": ");
                }
                out.stdout.extend_from_slice(&v.value);
                out.stdout.push(b'\n');
                if verbose && v.source == noid_resolve::Source::Idmap {
                    out.stdout
                        .extend_from_slice(b"note: previous result produced by :idmap\n");
                }
            }
            None => {
                out.ok = false;
                if verbose {
                    out.stdout.extend_from_slice(
                        format!("error: \"{id} {elem}\" is not bound.\n").as_bytes(),
                    );
                } else {
                    out.stdout.push(b'\n');
                }
            }
        }
    }
    Ok(out)
}
