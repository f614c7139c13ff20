//! The query language read and printed: each condition as the module doc writes it,
//! AND before OR, printing that parses back, and every refusal's message, all written
//! out by hand.

use super::*;

fn parse(s: &str) -> Query {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn word(w: &str) -> Query {
    Query::Term(Term::Word(w.into()))
}

fn day(y: i32, m: u32, d: u32) -> Moment {
    let secs = chrono::NaiveDate::from_ymd_opt(y, m, d)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp())
        .expect("a date");
    Moment { secs, day: true }
}

/// Each spelling of the language, read as written in the module's doc.
#[test]
fn reads_every_condition() {
    assert_eq!(parse(""), Query::All);
    assert_eq!(parse("  "), Query::All);
    assert_eq!(parse("frankenstein"), word("frankenstein"));
    assert_eq!(
        parse("\"modern prometheus\""),
        Query::Term(Term::Phrase("modern prometheus".into()))
    );
    assert_eq!(
        parse("what:\"The Last Man\""),
        Query::Term(Term::Element {
            name: "what".into(),
            value: "The Last Man".into()
        })
    );
    assert_eq!(
        parse("dc.title:a:b"),
        Query::Term(Term::Element {
            name: "dc.title".into(),
            value: "a:b".into()
        })
    );
    assert_eq!(
        parse("host:Example.ORG"),
        Query::Term(Term::Host("example.org".into()))
    );
    for under in [
        "under:ark:/13030/f5",
        "under:ark:13030/f5",
        "under:ARK:/13030/f5",
        "under:https://n2t.net/ark:/13030/f5",
        "under:13030/f5",
        "under:ark:/13030/f-5",
    ] {
        assert_eq!(
            parse(under),
            Query::Term(Term::Under("ark:13030/f5".into())),
            "{under}"
        );
    }
    assert_eq!(
        parse("updated:>2026-01-01"),
        Query::Term(Term::Time(TimeField::Updated, Span::After(day(2026, 1, 1))))
    );
    // 2026-01-01 is 1767225600 seconds after the epoch (date -d 2026-01-01Z +%s).
    assert_eq!(day(2026, 1, 1).secs, 1_767_225_600);
    assert_eq!(
        parse("created:2025-01-01..2025-06-30"),
        Query::Term(Term::Time(
            TimeField::Created,
            Span::Between(day(2025, 1, 1), day(2025, 6, 30))
        ))
    );
    assert_eq!(
        parse("updated:<=2026-03-01T12:00:00Z"),
        Query::Term(Term::Time(
            TimeField::Updated,
            Span::Until(Moment {
                secs: 1_772_366_400,
                day: false
            })
        ))
    );
    assert_eq!(
        parse("status:broken"),
        Query::Term(Term::Status(LinkStatus::Checked(Status::Broken)))
    );
    assert_eq!(
        parse("status:unchecked"),
        Query::Term(Term::Status(LinkStatus::Unchecked))
    );
    assert_eq!(parse("withdrawn:yes"), Query::Term(Term::Withdrawn(true)));
    assert_eq!(parse("withdrawn:no"), Query::Term(Term::Withdrawn(false)));
    assert_eq!(
        parse("standing:complete"),
        Query::Term(Term::Standing(Standing::Good))
    );
    assert_eq!(
        parse("populator:oca"),
        Query::Term(Term::Populator("oca".into()))
    );
}

#[test]
fn spans_cover_the_seconds_they_say() {
    let d = day(2026, 1, 1).secs;
    let bounds = |s: &str| match parse(s) {
        Query::Term(Term::Time(_, span)) => span.bounds(),
        q => panic!("{q:?}"),
    };
    assert_eq!(bounds("updated:>2026-01-01"), (Some(d + 86_400), None));
    assert_eq!(bounds("updated:>=2026-01-01"), (Some(d), None));
    assert_eq!(bounds("updated:<2026-01-01"), (None, Some(d)));
    assert_eq!(bounds("updated:<=2026-01-01"), (None, Some(d + 86_400)));
    assert_eq!(bounds("updated:2026-01-01"), (Some(d), Some(d + 86_400)));
    assert_eq!(
        bounds("updated:2026-01-01..2026-01-02"),
        (Some(d), Some(d + 2 * 86_400))
    );
}

#[test]
fn and_binds_closer_than_or() {
    let (a, b, c) = (word("a"), word("b"), word("c"));
    assert_eq!(
        parse("a b c"),
        Query::And(vec![a.clone(), b.clone(), c.clone()])
    );
    assert_eq!(parse("a AND b AND c"), parse("a b c"));
    assert_eq!(
        parse("a b OR c"),
        Query::Or(vec![Query::And(vec![a.clone(), b.clone()]), c.clone()])
    );
    assert_eq!(
        parse("a (b OR c)"),
        Query::And(vec![a.clone(), Query::Or(vec![b.clone(), c.clone()])])
    );
    assert_eq!(
        parse("-a -(b OR c)"),
        Query::And(vec![
            Query::Not(Box::new(a.clone())),
            Query::Not(Box::new(Query::Or(vec![b, c])))
        ])
    );
    assert_eq!(parse("((a))"), a);
    // Lower-case "or" is a word.
    assert_eq!(parse("x or"), Query::And(vec![word("x"), word("or")]));
}

/// Printing gives the text a curator would write, and it reads back the same.
#[test]
fn prints_what_parses_back() {
    for (text, printed) in [
        ("a  AND b", "a b"),
        ("a (b c) OR d", "a (b c) OR d"),
        ("(a OR b) OR c", "(a OR b) OR c"),
        ("-(a b) --c", "-(a b) --c"),
        ("what:\"x \\\"y\\\" \\\\ z\"", "what:\"x \\\"y\\\" \\\\ z\""),
        ("under:ark:/13030/f5", "under:ark:13030/f5"),
        ("standing:complete", "standing:good"),
        (
            "updated:>=2026-01-01T00:00:00Z",
            "updated:>=2026-01-01T00:00:00Z",
        ),
        (
            "created:2025-01-01..2025-06-30",
            "created:2025-01-01..2025-06-30",
        ),
        ("host:\"A B\"", "host:\"a b\""),
    ] {
        let q = parse(text);
        assert_eq!(q.to_string(), printed, "{text:?}");
        assert_eq!(parse(printed), q, "{printed:?}");
    }
}

/// Every refusal says what to change.
#[test]
fn refuses_with_a_message() {
    for (text, message) in [
        ("\"open", "the quote at character 1 is not closed: add a \" after the phrase"),
        ("(a", "a \"(\" is not closed: add a \")\""),
        ("a)", "a \")\" closes no \"(\": remove it or add the \"(\""),
        ("()", "\"()\" holds nothing: put a condition inside or remove it"),
        ("a OR", "OR needs a condition after it"),
        ("AND a", "OR and AND go between two conditions (a OR b)"),
        ("- a", "a \"-\" must come directly before what it leaves out (-word, -status:ok)"),
        ("who:", "who: needs a value (who:VALUE, or who:\"SEVERAL WORDS\")"),
        ("\"\"", "\"\" holds no words: put words between the quotes"),
        (
            "status:gone",
            "status:gone is no link status: use one of ok, redirected, failing, broken, \
             blocked, soft404, parked, drifted, unchecked",
        ),
        ("withdrawn:maybe", "withdrawn:maybe: use withdrawn:yes or withdrawn:no"),
        (
            "standing:fine",
            "standing:fine: use standing:good (or complete), standing:incomplete or standing:malformed",
        ),
        (
            "updated:>2026-13-01",
            "updated:>2026-13-01: \"2026-13-01\" is no date: write YYYY-MM-DD or \
             YYYY-MM-DDTHH:MM:SSZ (updated:>2026-01-01, updated:2025-01-01..2025-06-30)",
        ),
        ("created:2026-02-01..2026-01-01", "created:2026-02-01..2026-01-01: the span ends before it starts"),
        (
            ":x",
            "\":x\" names no element: write ELEMENT:VALUE (who:Shelley) or one of host, under, \
             updated, created, status, withdrawn, standing, populator",
        ),
        ("a:b:\"c d\"", "put the whole value of a: in quotes (a:\"…\")"),
        ("\"a \\x\"", "inside quotes a \"\\\" must be followed by \" or \\"),
    ] {
        assert_eq!(
            text.parse::<Query>().map_err(|e| e.to_string()),
            Err(message.to_string()),
            "{text:?}"
        );
    }
    let deep = format!("{}a{}", "(".repeat(40), ")".repeat(40));
    assert!(deep
        .parse::<Query>()
        .unwrap_err()
        .to_string()
        .contains("nests more than 32"));
}
