//! The rules of draft-kunze-ark-43 that docs/RESOLUTION.md publishes as a table (rule,
//! section, request, answer) with the bindings it is read against ([`crate::draft_table`]):
//! every row is a resolution here, with ancestors read as one range and looked up one by one.

use super::resolve;
use crate::draft_table::{bindings, rows, Expected};
use crate::{Answer, Request};

#[test]
fn the_table_covers_its_rules() {
    let rows = rows();
    assert_eq!(rows.len(), 35, "{rows:?}");
    assert_eq!(bindings().len(), 5);
    assert!(rows.iter().any(|r| r.expected == Expected::NotFound));
}

#[test]
fn every_row_resolves_as_the_draft_says() {
    let bound = bindings();
    for row in rows() {
        let request = row.request;
        let got = resolve(&bound, Request::new(request));
        match row.expected {
            Expected::Redirect(target) => assert_eq!(
                got,
                Answer::Redirect {
                    code: 302,
                    target: target.to_string()
                },
                "{request}"
            ),
            Expected::Metadata(of) => match &got {
                Answer::Inflection { id, .. } => assert_eq!(id, of, "{request}"),
                other => panic!("{request}: {other:?}"),
            },
            Expected::NotFound => assert_eq!(got, Answer::NotFound, "{request}"),
        }
    }
}
