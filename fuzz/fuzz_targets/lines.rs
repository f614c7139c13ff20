//! The two line protocols of `noidr` (noid's `get ID ELEM`, EggNog's `ID.resolve
//! HEADERS`) on a small in-memory store: every request line, whatever its bytes, gets
//! exactly one answer line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_resolve::egg::{self, Miss};
use noid_core::MemLookup;
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

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static STATE: (MemLookup, Resolver) = (store(), Resolver::new(Rules::builtin()));
    }
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
