//! The ARK draft's rules (draft-kunze-ark-43) as docs/RESOLUTION.md publishes them: a
//! table of requests and their answers against five bindings. Every path that answers
//! ARKs (the egg line protocol here, noidr's line protocols, `noidr --http`, the web
//! server modules' maps) reads this one table in its tests, so that the document and
//! every path agree. Only tests call it; a program that does not holds none of the text.

/// docs/RESOLUTION.md, read when the tests are built.
const DOC: &str = include_str!("../../../docs/RESOLUTION.md");

/// What a row expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// `302 TARGET`: a redirect to TARGET.
    Redirect(&'static str),
    /// `metadata of ID`: the inflection's page (200) of the bound id ID.
    Metadata(&'static str),
    /// `404`: nothing found.
    NotFound,
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The rule's number and name (`1 hyphens`, `3 at its own URL`, …).
    pub rule: &'static str,
    /// The request, as a person would type it.
    pub request: &'static str,
    /// The answer.
    pub expected: Expected,
}

impl Row {
    /// The request as an HTTP request-target's path (without its leading `/`): `%`,
    /// space and every non-ASCII byte %-encoded once, so that the server's one
    /// decoding gives the request back; the rows of rule 3 "at its own URL" are sent as
    /// written, their `%XX` meant to reach the ARK that holds them.
    pub fn http_path(&self) -> String {
        if self.rule.starts_with("3 at its own URL") {
            return self.request.to_string();
        }
        let mut out = String::new();
        for &c in self.request.as_bytes() {
            if c == b'%' || c == b' ' || !c.is_ascii() {
                out.push_str(&format!("%{c:02X}"));
            } else {
                out.push(char::from(c));
            }
        }
        out
    }
}

/// The section of docs/RESOLUTION.md that holds the table and its bindings.
fn section() -> &'static str {
    let start = DOC
        .find("#### The draft's rules on every path")
        .expect("docs/RESOLUTION.md has the draft's rules");
    let end = DOC[start..]
        .find("<!-- draft rules: end -->")
        .expect("the table's end marker");
    &DOC[start..start + end]
}

/// The bindings the table is read against: (id, element, value).
pub fn bindings() -> Vec<(&'static str, &'static str, &'static str)> {
    let s = section();
    let block = &s[s.find("```text\n").expect("the bindings block") + 8..];
    block[..block.find("```").expect("the block's end")]
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0], w[1], w[2])
        })
        .collect()
}

/// Every row of the table.
pub fn rows() -> Vec<Row> {
    section()
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let answer = cells[4].trim_matches('`');
            let expected = match answer.split_once(' ') {
                Some(("302", target)) => Expected::Redirect(target),
                Some(("metadata", of)) => {
                    Expected::Metadata(of.strip_prefix("of ").expect("metadata of ID"))
                }
                _ if answer == "404" => Expected::NotFound,
                _ => panic!("an answer the table does not define: {answer}"),
            };
            Row {
                rule: cells[1],
                request: cells[3].trim_matches('`'),
                expected,
            }
        })
        .collect()
}
