//! What kind of answer a request got, for counting: `noidr`'s metrics (`/metrics`, the
//! SIGUSR1 log line) count requests by [`Outcome`], whatever the protocol.

use crate::resolve::Answer;

/// The kind of a request's answer. Protocols report it along with the answer they
/// write, so that counting needs no second look at the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Found on the identifier itself (in any spelling, through `:idmap`, a redirect
    /// rule or forwarding), including metadata pages, content negotiation and several
    /// targets; in the noid protocol, a value or a line that is no lookup (`hello`).
    Hit,
    /// Found on an ancestor: the unmatched rest of the identifier passed through as a
    /// suffix.
    ChopBack,
    /// An inflection (`?`, `??`, `/` …) of a bound identifier: its metadata, or its
    /// inflection target.
    Inflection,
    /// Nothing bound: `NULL`, 404 (a blank line or an unusable identifier too).
    Miss,
    /// An error answer: the store failed, or the request could not be read.
    Error,
}

impl Outcome {
    /// Every outcome, in the order metrics list them.
    pub const ALL: [Outcome; 5] = [
        Outcome::Hit,
        Outcome::ChopBack,
        Outcome::Inflection,
        Outcome::Miss,
        Outcome::Error,
    ];

    /// The name metrics give it (`hit`, `chop-back`, `inflection`, `miss`, `error`).
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Hit => "hit",
            Outcome::ChopBack => "chop-back",
            Outcome::Inflection => "inflection",
            Outcome::Miss => "miss",
            Outcome::Error => "error",
        }
    }

    /// Its place in [`Outcome::ALL`], for arrays of counts.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The outcome of a resolution's answer, `found` being what the step that found a
    /// target makes of it ([`Outcome::Hit`] when nothing was found on the way).
    pub(crate) fn of(answer: &Answer, found: Outcome) -> Outcome {
        match answer {
            Answer::NotFound => Outcome::Miss,
            Answer::Partial { bindings, .. } if bindings.is_empty() => Outcome::Miss,
            Answer::Inflection { .. } => Outcome::Inflection,
            _ => found,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{egg, noid_line, Request, Resolver, Rules};
    use noid_core::MemLookup;

    fn kind(r: &Resolver, store: &MemLookup, id: &str) -> Outcome {
        r.resolve_counted(store, &Request::new(id)).unwrap().1
    }

    #[test]
    fn every_kind_of_answer_is_told_apart() {
        let store = MemLookup::new();
        store.bind("ark:/12345/x", "_t", "https://e.org/x");
        store.bind("ark:/12345/x", "who", "Someone");
        store.bind("ark:/12345/y", "_t", "https://e.org/y");
        store.bind("ark:/12345/y", "_,eTi,?", "https://e.org/y-inflected");
        let r = Resolver::new(Rules::empty());
        assert_eq!(kind(&r, &store, "ark:/12345/x"), Outcome::Hit);
        assert_eq!(kind(&r, &store, "ark:/12345/x/a/b.c"), Outcome::ChopBack);
        assert_eq!(kind(&r, &store, "ark:/12345/x??"), Outcome::Inflection);
        assert_eq!(kind(&r, &store, "ark:/12345/x?info"), Outcome::Inflection);
        // An inflection target is a redirect, and still an inflection.
        let (answer, outcome) = r
            .resolve_counted(&store, &Request::new("ark:/12345/y?"))
            .unwrap();
        assert_eq!(
            (answer, outcome),
            (
                Answer::Redirect {
                    code: 302,
                    target: "https://e.org/y-inflected".into()
                },
                Outcome::Inflection
            )
        );
        assert_eq!(kind(&r, &store, "ark:/99999/nope"), Outcome::Miss);
        assert_eq!(kind(&r, &store, ""), Outcome::Miss);
        assert_eq!(
            kind(&r, &store, "ark:/99999"),
            Outcome::Miss,
            "a bare partial"
        );

        let egg = |line: &[u8]| egg::answer(&r, &store, line, egg::Miss::Null, &mut Vec::new());
        assert_eq!(egg(b"ark:/12345/x/a.resolve"), Outcome::ChopBack);
        assert_eq!(egg(b""), Outcome::Miss);
        assert_eq!(egg(b"no method"), Outcome::Error);

        let noid = |line: &[u8]| noid_line::answer(&store, line, &mut Vec::new());
        assert_eq!(noid(b"get ark:/12345/x _t"), Outcome::Hit);
        assert_eq!(noid(b"hello"), Outcome::Hit);
        assert_eq!(noid(b"get ark:/12345/x nothing"), Outcome::Miss);
        assert_eq!(noid(b"  "), Outcome::Miss);
        assert_eq!(noid(b"mint 1"), Outcome::Error);
    }
}
