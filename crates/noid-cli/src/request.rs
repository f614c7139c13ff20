//! One request to the `noid` command, parsed once from the words of a command line,
//! a bulk input line or a web query: a known verb with its arguments ([`Action`]), or
//! one of the lines Perl Noid answered with a complaint instead. Which words are verbs,
//! and which of them web mode refuses, is noid-resolve's verb table
//! ([`noid_core::verbs`]).

use noid_core::verbs::{self, Name};

use crate::commands::Action;
use crate::complaint::no_database;
use crate::invocation::Invocation;
use crate::output::Out;
use crate::usage::usage;

/// A parsed request.
#[derive(Debug)]
pub enum Request {
    /// No words at all (an empty bulk line).
    Blank,
    /// A verb of the noid command.
    Action(Action),
    /// A verb the URL interface does not offer (`dbcreate`, `import`).
    Forbidden(&'static str),
    /// A word that names no verb, and the words after it.
    Unknown {
        /// The word given as the verb.
        verb: String,
        /// The rest of the line.
        args: Vec<String>,
    },
}

impl Request {
    /// Parse a request's words; `web` for the URL interface.
    pub fn parse(words: Vec<String>, web: bool) -> Request {
        use crate::commands::*;
        if noid_egg::is_egg(&words) {
            return Request::Action(Action::Write(Write::Egg(egg::Egg::parse(words, web))));
        }
        let mut words = words.into_iter();
        let Some(word) = words.next() else {
            return Request::Blank;
        };
        let args: Vec<String> = words.collect();
        // The verb table says which words are commands here and which web mode refuses.
        let Some(known) = verbs::find(&word).filter(|v| v.served.bulk) else {
            return Request::Unknown { verb: word, args };
        };
        if web && !known.served.web {
            return Request::Forbidden(known.word);
        }
        let verb = match known.name {
            Name::Hello => Action::Plain(Plain::Hello),
            Name::Help => Action::Plain(Plain::Help(help::Help::parse(args))),
            Name::Lui => Action::Plain(Plain::Lui(lui::Lui::parse(args))),
            Name::DbCreate => Action::Create(dbcreate::DbCreate::parse(args)),
            Name::Fetch => Action::Read(Read::Fetch(fetch::Fetch::parse(true, args))),
            Name::Get => Action::Read(Read::Fetch(fetch::Fetch::parse(false, args))),
            Name::DbInfo => {
                Action::Read(dbinfo::DbInfo::parse(args).map_or_else(Read::Refused, Read::DbInfo))
            }
            Name::Standing => match standing::Judge::parse(args) {
                j if j.names_ids() => Action::Read(Read::Standing(j)),
                j => Action::Port(Port::Standing(j)),
            },
            Name::Validate => Action::Read(Read::Validate(validate::Validate::parse(args))),
            Name::Mint => Action::Write(
                mint::Mint::parse(false, args).map_or_else(Write::Refused, Write::Mint),
            ),
            Name::Peppermint => Action::Write(
                mint::Mint::parse(true, args).map_or_else(Write::Refused, Write::Mint),
            ),
            Name::Bind => {
                Action::Write(bind::Bind::parse(args).map_or_else(Write::Refused, Write::Bind))
            }
            Name::Hold => Action::Write(Write::Hold(hold::Hold::parse(args))),
            Name::Queue => Action::Write(Write::Queue(queue::Queue::parse(args))),
            Name::Note => {
                Action::Write(note::Note::parse(args).map_or_else(Write::Refused, Write::Note))
            }
            Name::Import => {
                Action::Port(import::Import::parse(args).map_or_else(Port::Refused, Port::Import))
            }
            Name::Export => {
                Action::Port(export::Export::parse(args).map_or_else(Port::Refused, Port::Export))
            }
            Name::Check => {
                Action::Port(check::Check::parse(args).map_or_else(Port::Refused, Port::Check))
            }
            // Modes of the process (cli::run), not commands: the filter above.
            Name::Serve
            | Name::Replay
            | Name::PruneLog
            | Name::Links
            | Name::Explain
            | Name::Rules
            | Name::Index
            | Name::Search
            | Name::History
            | Name::Rewrite
            | Name::Stats
            | Name::Compact
            | Name::DbImport => return Request::Unknown { verb: word, args },
        };
        Request::Action(verb)
    }

    /// The verb to run, or None after printing Perl's complaint about the request.
    /// `db_open` when a minter is already open (within a write batch).
    pub fn admit(self, session: &Invocation, db_open: bool, out: &mut Out) -> Option<Action> {
        let needs_minter = match &self {
            Request::Blank => {
                usage(out, true, true, "intro");
                out.failed = true;
                return None;
            }
            Request::Action(v) => v.needs_minter(),
            Request::Forbidden(_) => false,
            Request::Unknown { .. } => true,
        };
        if needs_minter && !db_open && !noid_store::Layout::new(&session.dbdir).has_minter() {
            no_database(session, out);
            return None;
        }
        match self {
            Request::Action(v) => Some(v),
            Request::Unknown { verb, args } => {
                out.out(format!(
                    "error: no such command: {verb} ({})\n",
                    args.join(" ")
                ));
                usage(out, true, true, "intro");
                out.failed = true;
                None
            }
            Request::Forbidden(verb) => {
                out.out(format!(
                    "error: command \"{verb}\" not allowed in URL interface.\n"
                ));
                usage(out, true, true, "intro");
                out.failed = true;
                None
            }
            Request::Blank => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::Port;

    /// Every verb of the table is parsed as the table says it is served: a command of
    /// bulk lines and web queries, refused by web mode, or (a mode of the process) no
    /// command at all.
    #[test]
    fn every_verb_is_parsed_where_it_is_served() {
        for v in verbs::VERBS {
            for web in [false, true] {
                let request = Request::parse(vec![v.word.to_string()], web);
                let expected = match (v.served.bulk, web && !v.served.web) {
                    (false, _) => "unknown",
                    (true, true) => "forbidden",
                    (true, false) => "verb",
                };
                let got = match request {
                    Request::Unknown { .. } => "unknown",
                    Request::Forbidden(w) if w == v.word => "forbidden",
                    Request::Action(_) => "verb",
                    _ => "other",
                };
                assert_eq!(got, expected, "{} (web: {web})", v.word);
            }
        }
    }

    /// Random requests, as bulk lines and web queries can carry them: words drawn from
    /// every verb, the argument forms verbs treat specially and arbitrary text. Parsing
    /// never panics, and the web interface never gets `dbcreate` or `import` (the
    /// binary's own tests drive the same words through `noid -` and the CGI; the word
    /// splitting before this is fuzzed in `fuzz/`, target `command_words`).
    #[test]
    fn random_requests_parse_without_panic() {
        const WORDS: &[&str] = &[
            "hello",
            "help",
            "lui",
            "dbcreate",
            "fetch",
            "get",
            "dbinfo",
            "standing",
            "validate",
            "mint",
            "peppermint",
            "bind",
            "hold",
            "queue",
            "note",
            "import",
            "export",
            "check",
            "set",
            "add",
            "release",
            "now",
            "first",
            "lvf",
            "delete",
            "brief",
            "full",
            "-",
            "--",
            ":",
            ":-",
            ":x",
            "-m",
            "--format",
            "json",
            "0",
            "1",
            "-1",
            "99999999999999999999",
            "13030/x",
            "x.set",
            "x.fetch",
            "@",
            ".",
            "ark:/13030/a.resolve",
            "f5.reedeedk",
            "long",
            "--repair",
            "noid",
            "dbdump",
            "",
            " ",
            "\u{0}",
            "é",
            "x y",
            "'",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let n = next() % 7;
            let words: Vec<String> = (0..n)
                .map(|_| match next() % 8 {
                    0 => (0..next() % 12)
                        .map(|_| char::from_u32((next() % 0x250) as u32).unwrap_or('?'))
                        .collect(),
                    _ => WORDS[(next() % WORDS.len() as u64) as usize].to_owned(),
                })
                .collect();
            let web = next() % 2 == 0;
            let request = Request::parse(words.clone(), web);
            if web {
                assert!(
                    !matches!(
                        request,
                        Request::Action(Action::Create(_))
                            | Request::Action(Action::Port(Port::Import(_)))
                    ),
                    "{words:?} reached a verb the web interface refuses"
                );
            }
        }
    }
}
