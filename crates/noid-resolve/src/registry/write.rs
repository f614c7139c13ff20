//! Writing a registry file in its canonical form: records sorted by key, in each the
//! elements in a fixed order (`prefix`, `name`, `who`, `provider`s as listed, `primary`
//! when there are several providers, `probe`s, then the free elements as listed), each
//! element written by [`noid_core::anvl`] (a value's newlines as `%0a`, its `%` as `%25`).
//! Reading it back gives the same registry; comments are not kept.

use super::{PrefixRecord, Registry};

/// The first line of a written file.
const HEADER: &str = "# noid prefix registry: ANVL records separated by blank lines \
                      (docs/RESOLUTION.md, \"The prefix registry\").\n";

impl Registry {
    /// The canonical text of the registry file.
    pub fn to_text(&self) -> String {
        registry(self)
    }
}

fn registry(r: &Registry) -> String {
    let mut out = String::from(HEADER);
    for rec in r.records() {
        out.push('\n');
        record_text(rec, &mut out);
    }
    out
}

/// Render one record as registry-file ANVL (what a record page shows).
pub fn record_text(r: &PrefixRecord, out: &mut String) {
    for (name, value) in r.anvl() {
        noid_core::anvl::element_str(out, name, &value);
    }
}
