//! `signposting on` in the line protocol: a bound identifier's redirect carries its
//! `Link` value after a tab (a tab in its target written `%09`), which the modules and
//! the shipped configurations split off ([`crate::web_answer::split_link`]); a rule's
//! redirect, a miss, and every line with signposting off are as they were. Expected lines
//! written by hand.

use noid_core::MemLookup;

use crate::egg::{self, Miss};
use crate::web_answer::{plain_redirect, read_answer, split_link, Redirect};
use crate::{Resolver, Rules};

fn line(rules: &str, l: &MemLookup, request: &str) -> String {
    let resolver = Resolver::new(Rules::parse(rules).unwrap());
    let mut out = Vec::new();
    egg::answer(&resolver, l, request.as_bytes(), Miss::Null, &mut out);
    String::from_utf8(out).unwrap()
}

const LINKS: &str = "<https://r.example/ark:/13030/a>; rel=\"cite-as\", \
    <https://r.example/ark:/13030/a>; rel=\"describedby\"; type=\"application/ld+json\", \
    <https://r.example/ark:/13030/a>; rel=\"describedby\"; type=\"application/vnd.citationstyles.csl+json\", \
    <https://schema.org/CreativeWork>; rel=\"type\", \
    <https://r.example/ark:/13030/a>; rel=\"linkset\"; type=\"application/linkset\", \
    <https://r.example/ark:/13030/a>; rel=\"linkset\"; type=\"application/linkset+json\"";

#[test]
fn a_signposted_redirect_line_and_how_it_is_read() {
    let l = MemLookup::new();
    l.bind("ark:/13030/a", "_t", "https://e.org/a");
    l.bind("ark:/13030/tab", "_t", "https://e.org/x\ty");
    let on = "cite-as https://r.example\nsignposting on\ndoi: https://doi.org/${id}\n";
    let got = line(on, &l, "ark:/13030/a.resolve");
    assert_eq!(got, format!("redir302 https://e.org/a\t{LINKS}\n"));
    let answer = got.trim_end().as_bytes();
    assert_eq!(
        split_link(answer),
        (&b"redir302 https://e.org/a"[..], Some(LINKS.as_bytes()))
    );
    assert_eq!(read_answer(answer), Redirect::To(302, b"https://e.org/a"));
    assert_eq!(plain_redirect(answer), Some((302, &b"https://e.org/a"[..])));
    // A tab in the target cannot end it early.
    let got = line(on, &l, "ark:/13030/tab.resolve");
    assert!(
        got.starts_with("redir302 https://e.org/x%09y\t<https://r.example/ark:/13030/tab>"),
        "{got}"
    );
    // No record, no signposts; signposting off, the line as it always was.
    assert_eq!(
        line(on, &l, "doi:10.1/X.resolve"),
        "redir302 https://doi.org/10.1/X\n"
    );
    assert_eq!(line(on, &l, "ark:/13030/none.resolve"), "NULL\n");
    let off = "cite-as https://r.example\n";
    assert_eq!(
        line(off, &l, "ark:/13030/a.resolve"),
        "redir302 https://e.org/a\n"
    );
    let got = line(off, &l, "ark:/13030/tab.resolve");
    assert_eq!(got, "redir302 https://e.org/x\ty\n");
    assert_eq!(
        split_link(got.trim_end().as_bytes()),
        (got.trim_end().as_bytes(), None)
    );
}
