//! The two line protocols of `noidr` (noid's `get ID ELEM`, EggNog's `ID.resolve
//! HEADERS`) on a small in-memory store: every request line, whatever its bytes, gets
//! exactly one answer line.
//!
//! Beyond "no panic": a value bound in a store of its own is what `get ID ELEM` answers,
//! byte for byte after the protocol's framing (CR, LF, NUL and TAB as `%0D`, `%0A`,
//! `%00`, `%09`; `NULL` for a value Perl counts as false, `""` or `0`, with no `:idmap`
//! to fall back on). The input, after its request lines, names the binding: everything
//! up to the first 0xFF byte (never in UTF-8) is ID, then ELEM up to the next, then the
//! VALUE's bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_core::MemLookup;
use noid_resolve::egg::{self, Miss};
use noid_resolve::{noid_line, Resolver, Rules};

fn store() -> MemLookup {
    let m = MemLookup::new();
    m.bind("ark:/13030/fk4a", "_t", "https://e.org/a");
    m.bind("ark:/13030/fk4a", "who", "Somebody");
    m.bind("ark:/13030/fk4b", "_t", "410 gone");
    m.bind("13030/fk4c", "_t", "https://e.org/c\nX: y");
    m.bind_idmap("^ark:/99999/(.*)$", "_t", "https://m.org/$1");
    m
}

/// Exactly one `\n`, at the end.
fn one_line(out: &[u8], line: &[u8]) {
    assert_eq!(out.last(), Some(&b'\n'), "{line:?}: {out:?}");
    assert_eq!(
        memchr_count(out),
        1,
        "{line:?} got more than one answer line: {out:?}"
    );
}

fn memchr_count(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

/// What `get ID ELEM` must answer for a stored `value`, from the protocol's framing
/// (noid_line's module doc), written out here rather than taken from the code.
fn expected_answer(value: &[u8]) -> Vec<u8> {
    if value.is_empty() || value == b"0" {
        return b"NULL\n".to_vec();
    }
    let mut out = Vec::new();
    for &b in value {
        match b {
            b'\r' => out.extend_from_slice(b"%0D"),
            b'\n' => out.extend_from_slice(b"%0A"),
            b'\0' => out.extend_from_slice(b"%00"),
            b'\t' => out.extend_from_slice(b"%09"),
            _ => out.push(b),
        }
    }
    out.push(b'\n');
    out
}

/// Bind (ID, ELEM, VALUE) from `data` in an empty store and ask for it with `get`,
/// each word shell-quoted as a client would.
fn bound_value_is_answered(data: &[u8]) {
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let (Some(id), Some(elem), Some(value)) = (parts.next(), parts.next(), parts.next()) else {
        return;
    };
    let (Ok(id), Ok(elem)) = (std::str::from_utf8(id), std::str::from_utf8(elem)) else {
        return;
    };
    // A request is one line (the daemon splits at LF); an id is a word.
    if id.is_empty() || id.contains(['\n', '\r']) || elem.contains(['\n', '\r']) {
        return;
    }
    let m = MemLookup::new();
    m.bind(id, elem, value);
    let line = format!(
        "get {} {}",
        shell_words::quote(id),
        shell_words::quote(elem)
    );
    let mut out = Vec::new();
    noid_line::answer(&m, line.as_bytes(), &mut out);
    let expected = expected_answer(value);
    assert!(
        out == expected,
        "{line:?} after binding {value:?}: {:?}, not {:?}",
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&expected)
    );
}

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static STATE: (MemLookup, Resolver) = (store(), Resolver::new(Rules::builtin()));
    }
    bound_value_is_answered(data);
    // The daemon splits its input at `\n`; a line never contains one.
    for line in data.split(|&b| b == b'\n') {
        STATE.with(|(m, resolver)| {
            let mut out = Vec::new();
            noid_line::answer(m, line, &mut out);
            one_line(&out, line);
            for miss in [Miss::Null, Miss::Eggnog] {
                out.clear();
                egg::answer(resolver, m, line, miss, &mut out);
                one_line(&out, line);
            }
        });
    }
});
