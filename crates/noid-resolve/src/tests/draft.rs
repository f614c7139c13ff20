//! The rules of draft-kunze-ark-43 that docs/RESOLUTION.md publishes as a table (rule,
//! section, request, answer) with the bindings it is read against: every row is a
//! resolution here, with ancestors read as one range and looked up one by one.

use super::resolve;
use crate::{Answer, Request};

const DOC: &str = include_str!("../../../../docs/RESOLUTION.md");

/// The section of docs/RESOLUTION.md that holds the table and its bindings.
fn section() -> &'static str {
    let start = DOC
        .find("#### The draft's rules on every path")
        .expect("the section");
    let end = DOC[start..]
        .find("<!-- draft rules: end -->")
        .expect("end marker");
    &DOC[start..start + end]
}

/// The bindings the table is read against: (id, element, value) of each line of the
/// section's `text` block.
pub(crate) fn bindings() -> Vec<(&'static str, &'static str, &'static str)> {
    let s = section();
    let block = &s[s.find("```text\n").expect("bindings block") + 8..];
    let block = &block[..block.find("```").expect("block end")];
    block
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0], w[1], w[2])
        })
        .collect()
}

/// (request, answer) of every row.
pub(crate) fn rows() -> Vec<(&'static str, &'static str)> {
    section()
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[3].trim_matches('`'), cells[4].trim_matches('`'))
        })
        .collect()
}

#[test]
fn the_table_covers_its_rules() {
    let rows = rows();
    assert_eq!(rows.len(), 35, "{rows:?}");
    assert_eq!(bindings().len(), 5);
    assert!(rows.iter().any(|(_, a)| *a == "404"));
}

#[test]
fn every_row_resolves_as_the_draft_says() {
    let bound = bindings();
    for (request, answer) in rows() {
        let got = resolve(&bound, Request::new(request));
        match answer.split_once(' ') {
            Some(("302", target)) => assert_eq!(
                got,
                Answer::Redirect {
                    code: 302,
                    target: target.to_string()
                },
                "{request}"
            ),
            Some(("metadata", of)) => match &got {
                Answer::Inflection { id, .. } => {
                    assert_eq!(id, of.strip_prefix("of ").unwrap(), "{request}")
                }
                other => panic!("{request}: {other:?}"),
            },
            _ => assert_eq!((answer, got), ("404", Answer::NotFound), "{request}"),
        }
    }
}
