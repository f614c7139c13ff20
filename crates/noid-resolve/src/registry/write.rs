//! Writing a registry file in its canonical form: records sorted by key, in each the
//! elements in a fixed order (`prefix`, `name`, `who`, `provider`s as listed, `primary`
//! when there are several providers, `probe`s, then the free elements as listed), a
//! value's further lines as continuation lines. Reading it back gives the same registry;
//! comments are not kept.

use super::{Record, Registry};

/// The first line of a written file.
const HEADER: &str = "# noid prefix registry: ANVL records separated by blank lines \
                      (docs/RESOLUTION.md, \"The prefix registry\").\n";

pub(super) fn registry(r: &Registry) -> String {
    let mut out = String::from(HEADER);
    for rec in r.records() {
        out.push('\n');
        record(rec, &mut out);
    }
    out
}

pub(super) fn record(r: &Record, out: &mut String) {
    for (name, value) in r.anvl() {
        element(out, name, &value);
    }
}

fn element(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push(':');
    let mut lines = value.split('\n');
    if let Some(first) = lines.next().filter(|f| !f.is_empty()) {
        out.push(' ');
        out.push_str(first);
    }
    for l in lines {
        out.push_str("\n    ");
        out.push_str(l);
    }
    out.push('\n');
}
