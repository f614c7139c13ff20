//! One request to the `noid` command, parsed once from the words of a command line,
//! a bulk input line or a web query: a known verb with its arguments ([`Verb`]), or
//! one of the lines Perl Noid answered with a complaint instead.

use crate::commands::Verb;
use crate::complaint::no_database;
use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// A parsed request.
#[derive(Debug)]
pub enum Request {
    /// No words at all (an empty bulk line).
    Blank,
    /// A verb of the noid command.
    Verb(Verb),
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
        if noid_binder::is_egg(&words) {
            return Request::Verb(Verb::Write(Write::Egg(egg::Egg::parse(words, web))));
        }
        let mut words = words.into_iter();
        let Some(verb) = words.next() else {
            return Request::Blank;
        };
        let args: Vec<String> = words.collect();
        let verb = match verb.as_str() {
            "hello" => Verb::Plain(Plain::Hello),
            "help" => Verb::Plain(Plain::Help(help::Help::parse(args))),
            "lui" => Verb::Plain(Plain::Lui(lui::Lui::parse(args))),
            "dbcreate" if web => return Request::Forbidden("dbcreate"),
            "dbcreate" => Verb::Create(dbcreate::DbCreate::parse(args)),
            "fetch" => Verb::Read(Read::Fetch(fetch::Fetch::parse(true, args))),
            "get" => Verb::Read(Read::Fetch(fetch::Fetch::parse(false, args))),
            "dbinfo" => {
                Verb::Read(dbinfo::DbInfo::parse(args).map_or_else(Read::Refused, Read::DbInfo))
            }
            "standing" => match standing::Judge::parse(args) {
                j if j.names_ids() => Verb::Read(Read::Standing(j)),
                j => Verb::Port(Port::Standing(j)),
            },
            "validate" => Verb::Read(Read::Validate(validate::Validate::parse(args))),
            "mint" => {
                Verb::Write(mint::Mint::parse(false, args).map_or_else(Write::Refused, Write::Mint))
            }
            "peppermint" => {
                Verb::Write(mint::Mint::parse(true, args).map_or_else(Write::Refused, Write::Mint))
            }
            "bind" => Verb::Write(bind::Bind::parse(args).map_or_else(Write::Refused, Write::Bind)),
            "hold" => Verb::Write(Write::Hold(hold::Hold::parse(args))),
            "queue" => Verb::Write(Write::Queue(queue::Queue::parse(args))),
            "note" => Verb::Write(note::Note::parse(args).map_or_else(Write::Refused, Write::Note)),
            "import" if web => return Request::Forbidden("import"),
            "import" => {
                Verb::Port(import::Import::parse(args).map_or_else(Port::Refused, Port::Import))
            }
            "export" => {
                Verb::Port(export::Export::parse(args).map_or_else(Port::Refused, Port::Export))
            }
            "check" => {
                Verb::Port(check::Check::parse(args).map_or_else(Port::Refused, Port::Check))
            }
            _ => return Request::Unknown { verb, args },
        };
        Request::Verb(verb)
    }

    /// The verb to run, or None after printing Perl's complaint about the request.
    /// `db_open` when a minter is already open (within a write batch).
    pub fn admit(self, session: &Session, db_open: bool, out: &mut Out) -> Option<Verb> {
        let needs_minter = match &self {
            Request::Blank => {
                usage(out, true, true, "intro");
                out.failed = true;
                return None;
            }
            Request::Verb(v) => v.needs_minter(),
            Request::Forbidden(_) => false,
            Request::Unknown { .. } => true,
        };
        if needs_minter && !db_open && !noid_store::Layout::new(&session.dbdir).has_minter() {
            no_database(session, out);
            return None;
        }
        match self {
            Request::Verb(v) => Some(v),
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
