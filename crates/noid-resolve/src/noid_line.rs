//! The noid line protocol of `noidr` (Perl Noid's resolver mode, `noidr_xxx`): each
//! request line is a read-only noid command, shell-word split; in practice the manual's
//! Apache example sends `get ID ELEM`.
//!
//! **Exactly one answer line per request line, always**: Apache reads one line per
//! lookup, so a second line would become the answer to the next request. Framing:
//!
//! * `get ID ELEM` → the value (stored truthy value, else `:idmap`), or `NULL` when
//!   nothing is bound (Apache's prg protocol reads `NULL` as "not found"; an empty line
//!   would be a *found* empty value).
//! * Multi-line values: inside a value CR, LF, NUL and TAB are written `%0D`, `%0A`,
//!   `%00`, `%09`. Nothing else is encoded (URLs keep their own `%XX`), so the encoding
//!   cannot be reversed in general; for URL targets it is exactly the URL encoding of
//!   those bytes, which is what a redirect needs.
//! * Several elements (`get ID e1 e2`): the values joined by one TAB, an unbound element
//!   giving an empty field (Perl printed an empty line for it); `NULL` when none is bound.
//!   `get ID` alone gives every element's value the same way.
//! * `fetch ID [ELEM…]`: Perl's labelled lines (`id: ID`, `Circ: …`, `ELEM: VALUE`,
//!   `error: "ID ELEM" is not bound.`, `note: previous result produced by :idmap`) joined
//!   by TAB; `NULL` when the id has no bindings at all.
//! * `hello` → `Hello.`; `help` → one line listing the commands.
//! * Write commands (`bind mint peppermint hold queue note dbcreate import`) →
//!   `error: noidr is read-only: "bind" refused`.
//! * Other read-only commands that need multi-line output or the minter (`validate`,
//!   `dbinfo`, `export`, `check`) → `error: "validate" is not available in noidr; use the noid command`.
//! * Unknown commands, unbalanced quotes, invalid UTF-8 → `error: …`; a blank line → `NULL`.
//!
//! A value whose text is `NULL` in any case cannot be told from "not found" by Apache
//! (`strcasecmp`); do not bind such values for resolution.

use crate::fetch::{self, Stream, Verb};
use crate::lookup::{Lookup, LookupError};

/// Bindings listed for `get ID` / `fetch ID` without elements.
const MAX_ELEMENTS: usize = 10_000;

const WRITE_COMMANDS: [&str; 9] = [
    "bind",
    "mint",
    "peppermint",
    "hold",
    "queue",
    "note",
    "dbcreate",
    "import",
    "dbimport",
];

const NOT_HERE: [&str; 4] = ["validate", "dbinfo", "export", "check"];

/// Answer one request line (without its terminator): append exactly one line, `\n`
/// included, to `out`. Storage errors become an `error: …` line.
pub fn answer<L: Lookup + ?Sized>(l: &L, line: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    if let Err(e) = answer_inner(l, line, out) {
        out.truncate(start);
        out.extend_from_slice(b"error: ");
        push_field(e.to_string().as_bytes(), out);
    }
    out.push(b'\n');
}

fn answer_inner<L: Lookup + ?Sized>(
    l: &L,
    line: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), LookupError> {
    if line.iter().all(u8::is_ascii_whitespace) {
        out.extend_from_slice(b"NULL");
        return Ok(());
    }
    let Ok(text) = std::str::from_utf8(line) else {
        error(out, "request is not valid UTF-8");
        return Ok(());
    };
    let words = match shell_words::split(text) {
        Ok(w) => w,
        Err(e) => {
            error(out, &format!("cannot parse request: {e}"));
            return Ok(());
        }
    };
    let Some((cmd, args)) = words.split_first() else {
        out.extend_from_slice(b"NULL");
        return Ok(());
    };
    match cmd.as_str() {
        "get" => read(l, Verb::Get, args, out),
        "fetch" => read(l, Verb::Fetch, args, out),
        "hello" => {
            out.extend_from_slice(b"Hello.");
            Ok(())
        }
        "help" => {
            out.extend_from_slice(
                b"noidr (read-only) answers one line per request: get ID [ELEM...], \
                  fetch ID [ELEM...], hello, help; NULL when nothing is bound",
            );
            Ok(())
        }
        c if WRITE_COMMANDS.contains(&c) => {
            error(out, &format!("noidr is read-only: {c:?} refused"));
            Ok(())
        }
        c if NOT_HERE.contains(&c) => {
            error(
                out,
                &format!("{c:?} is not available in noidr; use the noid command"),
            );
            Ok(())
        }
        c => {
            error(out, &format!("no such command: {c}"));
            Ok(())
        }
    }
}

fn error(out: &mut Vec<u8>, msg: &str) {
    out.extend_from_slice(b"error: ");
    push_field(msg.as_bytes(), out);
}

/// Append a value with CR, LF, NUL and TAB %-encoded (they would break the line framing
/// or the TAB field separator).
pub fn push_field(v: &[u8], out: &mut Vec<u8>) {
    if !v.iter().any(|c| matches!(c, b'\r' | b'\n' | b'\0' | b'\t')) {
        out.extend_from_slice(v);
        return;
    }
    for &c in v {
        match c {
            b'\r' => out.extend_from_slice(b"%0D"),
            b'\n' => out.extend_from_slice(b"%0A"),
            b'\0' => out.extend_from_slice(b"%00"),
            b'\t' => out.extend_from_slice(b"%09"),
            _ => out.push(c),
        }
    }
}

/// `get` or `fetch`: the lines Perl prints on standard output joined by TAB; `NULL`
/// when nothing asked for is bound (`get`) or the id has no bindings (`fetch ID`).
fn read<L: Lookup + ?Sized>(
    l: &L,
    verb: Verb,
    args: &[String],
    out: &mut Vec<u8>,
) -> Result<(), LookupError> {
    let Some((id, elems)) = args.split_first() else {
        push_field(verb.missing_id().as_bytes(), out);
        return Ok(());
    };
    let start = out.len();
    let mut first = true;
    let found = fetch::fetch(l, verb, id, elems, MAX_ELEMENTS, |stream, pieces| {
        if stream == Stream::Err {
            return;
        }
        if !first {
            out.push(b'\t');
        }
        first = false;
        for piece in pieces {
            push_field(piece, out);
        }
    })?;
    if !found.any && (verb == Verb::Get || elems.is_empty()) {
        out.truncate(start);
        out.extend_from_slice(b"NULL");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup::MemLookup;

    fn store() -> MemLookup {
        let l = MemLookup::new();
        l.bind("13030/kt639k9", "myGoto", "http://example.org/a");
        l.bind("13030/kt639k9", "multi", "line one\r\nline\ttwo\0");
        l.bind("13030/kt639k9", ":/c", "i|20261122011757|root/root|1");
        l.bind("x", "null", "null");
        l.bind_idmap("^ft", "redirect", "g7h");
        l.bind_idmap("^ft([^x]+)x(.*)", "my_elem", "$2/g7h/$1");
        l
    }

    #[track_caller]
    fn check(line: &[u8], expect: &str) {
        let l = store();
        let mut out = Vec::new();
        answer(&l, line, &mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("{expect}\n"),
            "request {line:?}"
        );
    }

    #[test]
    fn get_values() {
        check(b"get 13030/kt639k9 myGoto", "http://example.org/a");
        check(b"get 13030/kt639k9 nope", "NULL");
        check(b"get nope myGoto", "NULL");
        check(b"get ft89xr2t redirect", "g7h89xr2t");
        check(b"get ft89xr2t my_elem", "r2t/g7h/89");
        check(b"get 'ft89xr2t' \"my_elem\"", "r2t/g7h/89");
    }

    #[test]
    fn framing_multi_line_and_several_elements() {
        check(b"get 13030/kt639k9 multi", "line one%0D%0Aline%09two%00");
        check(
            b"get 13030/kt639k9 myGoto nope multi",
            "http://example.org/a\t\tline one%0D%0Aline%09two%00",
        );
        check(b"get 13030/kt639k9 nope nope2", "NULL");
        check(
            b"get 13030/kt639k9",
            "line one%0D%0Aline%09two%00\thttp://example.org/a",
        );
    }

    #[test]
    fn fetch_is_one_line() {
        check(
            b"fetch 13030/kt639k9 myGoto nope",
            "id:    13030/kt639k9\tCirc:  i|20261122011757|root/root|1\tmyGoto: http://example.org/a\terror: \"13030/kt639k9 nope\" is not bound.",
        );
        check(
            b"fetch ft89xr2t redirect",
            "id:    ft89xr2t\tCirc:  uncirculated\tredirect: g7h89xr2t\tnote: previous result produced by :idmap",
        );
        check(b"fetch nothing", "NULL");
    }

    #[test]
    fn null_value_is_indistinguishable() {
        // Documented limitation: Apache reads this as "not found".
        check(b"get x null", "null");
    }

    #[test]
    fn refusals_and_errors() {
        check(
            b"bind set x _t y",
            "error: noidr is read-only: \"bind\" refused",
        );
        check(b"mint 1", "error: noidr is read-only: \"mint\" refused");
        check(
            b"dbcreate f5.reedeedk",
            "error: noidr is read-only: \"dbcreate\" refused",
        );
        check(
            b"validate - x",
            "error: \"validate\" is not available in noidr; use the noid command",
        );
        check(b"frob x", "error: no such command: frob");
        check(
            b"get",
            "error: get requires that an identifier be specified.",
        );
        check(
            b"get 'x",
            "error: cannot parse request: missing closing quote",
        );
        check(b"get \xff\xfe x", "error: request is not valid UTF-8");
        check(b"hello", "Hello.");
        check(b"", "NULL");
        check(b"    ", "NULL");
        check(b"get a\0b c", "NULL");
        check(b"frob \n\r\tx", "error: no such command: frob");
    }

    #[test]
    fn storage_errors_are_one_line() {
        struct Broken;
        impl Lookup for Broken {
            fn get(&self, _: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
                Err(LookupError("disk on fire\nreally".into()))
            }
            fn scan_prefix(
                &self,
                _: &[u8],
                _: usize,
            ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, LookupError> {
                Err(LookupError("disk on fire".into()))
            }
        }
        let mut out = Vec::new();
        answer(&Broken, b"get a b", &mut out);
        assert_eq!(out, b"error: disk on fire%0Areally\n");
    }
}
