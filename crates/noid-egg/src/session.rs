//! A session: the settings and variables that carry from one command line to the
//! next, and parsing a line (options, modifiers, `ID.OP`, arguments, indirect tokens,
//! hex decoding) into a [`Command`].

use std::collections::HashMap;
use std::io::BufRead;

use crate::command::{Command, Op};
use crate::error::BinderError;
use crate::indirect::{self, FileReader};
use crate::render::Format;
use crate::token;

/// How a command's reply is rendered (options given before the command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// `-m FORMAT` / `--format FORMAT`.
    pub format: Format,
    /// `--ack`: writes print an `oxum` (octets.count) acknowledgement.
    pub ack: bool,
    /// `--all` or `:all`: reads show the admin elements `_,ep` and `_,ec` too.
    pub all: bool,
    /// `--verbose`.
    pub verbose: bool,
}

/// One parsed line: the settings in force for it and its command (or why it has none).
#[derive(Debug)]
pub struct Parsed {
    /// The settings for rendering this command's reply.
    pub settings: Settings,
    /// The command, or the error that its reply is.
    pub command: Result<Command, BinderError>,
}

/// What carries over between the lines of one invocation.
pub struct Session<'f> {
    /// Settings every line starts from (options on a line apply to that line only).
    pub defaults: Settings,
    /// Remote (web) callers may not use `@FILE`, `<binder>` or admin commands.
    pub remote: bool,
    /// Session variables (`var NAME VALUE`, used as `&NAME` or `&{NAME}rest`).
    pub vars: HashMap<String, Vec<u8>>,
    /// How `@FILE` tokens are read; `None` refuses them.
    pub files: Option<FileReader<'f>>,
    /// Writes are refused ([`BinderError::ReadOnly`]).
    pub read_only: bool,
    /// The binder's name, as `list` and `next` show it.
    pub binder: String,
}

/// Modifiers before the command word; the last of a kind wins.
#[derive(Default)]
struct Modifiers {
    /// `:hx` (`^`) or `:hxC` (`C`): the escape character of `Chh` hex codes.
    hex: Option<u8>,
    /// `:all` / `:allnot`.
    all: Option<bool>,
}

/// The message remote callers get for `-d`/`-p` in a query string (EggNog's).
const NO_DIRECTORY: &str = "-d or -p not allowed in query string";

impl Session<'_> {
    /// A session with the default settings: plain output on the command line, ANVL and
    /// `--all` on the web (as EggNog runs `egg --api --all`).
    pub fn new(remote: bool) -> Self {
        Session {
            defaults: Settings {
                format: if remote { Format::Anvl } else { Format::Plain },
                ack: false,
                all: remote,
                verbose: false,
            },
            remote,
            vars: HashMap::new(),
            files: None,
            read_only: false,
            binder: String::new(),
        }
    }

    /// Parse one command line. Indirect tokens read from `input`.
    pub fn parse(&mut self, line: &str, input: &mut dyn BufRead) -> Parsed {
        let mut settings = self.defaults;
        let command =
            token::split(line).and_then(|tokens| self.parse_into(&tokens, input, &mut settings));
        Parsed { settings, command }
    }

    /// Parse a command already split into tokens (a command line's arguments).
    pub fn parse_tokens(&mut self, tokens: &[String], input: &mut dyn BufRead) -> Parsed {
        let mut settings = self.defaults;
        let command = self.parse_into(tokens, input, &mut settings);
        Parsed { settings, command }
    }

    fn parse_into(
        &mut self,
        tokens: &[String],
        input: &mut dyn BufRead,
        settings: &mut Settings,
    ) -> Result<Command, BinderError> {
        let mut rest = tokens.iter().map(String::as_str).peekable();
        while let Some(opt) = rest.next_if(|t| t.starts_with('-') && t.len() > 1) {
            self.option(opt, &mut rest, settings)?;
        }
        let mut mods = Modifiers::default();
        while let Some(m) = rest.next_if(|t| t.starts_with(':') && t.len() > 1) {
            modifier(m, &mut mods)?;
        }
        if let Some(all) = mods.all {
            settings.all = all;
        }
        let Some(word) = rest.next() else {
            return Ok(Command::Help);
        };
        let (id_part, op_word) = match word.rsplit_once('.') {
            Some((id, op)) => (Some(id), op),
            None if Op::parse(word).is_some() => (None, word),
            None => match rest.peek().copied().filter(|w| Op::parse(w).is_some()) {
                Some(op) => {
                    rest.next();
                    (Some(word), op)
                }
                None => return Err(BinderError::refused(format!("unknown command: {word}"))),
            },
        };
        let Some(op) = Op::parse(op_word) else {
            return Err(BinderError::refused(format!("unknown command: {op_word}")));
        };
        match op {
            Op::Admin if self.remote => return Err(BinderError::Unauthorized),
            Op::Admin => {
                return Err(BinderError::refused(format!(
                    "'{op_word}' is not a binder command; binders are noid minter directories (noid dbcreate)"
                )))
            }
            Op::Mint => {
                return Err(BinderError::refused(format!(
                    "'{op_word}' not implemented yet; try 'help'"
                )))
            }
            Op::Help => return Ok(Command::Help),
            Op::Version => return Ok(Command::Version),
            _ => {}
        }
        if id_part.is_some_and(|i| i.starts_with('<')) {
            return Err(BinderError::refused(if self.remote {
                "<binder> prefix not allowed from remote connections"
            } else {
                "<binder> prefix not supported; name the binder with noid -f"
            }));
        }
        let (id_tok, elem_tok) = match id_part {
            Some(p) => match p.split_once('|') {
                Some((i, e)) => (Some(i), Some(e)),
                None => (Some(p), None),
            },
            None => (None, None),
        };
        let args: Vec<&str> = rest.collect();
        let mut r = Resolver {
            session: self,
            hex: mods.hex,
            input,
        };
        match op {
            Op::Var => {
                let (Some(name), values) = (args.first(), args.get(1..).unwrap_or(&[])) else {
                    return Err(BinderError::refused("no variable name given"));
                };
                let value = values.join(" ").into_bytes();
                r.session.vars.insert((*name).to_string(), value);
                return Ok(Command::Nothing);
            }
            Op::Logmark => return Ok(Command::Nothing),
            Op::List | Op::Next => {
                if id_part.is_some_and(|i| !i.is_empty()) {
                    return Err(BinderError::refused(format!(
                        "{op_word} names no identifier: {}",
                        list_usage(op)
                    )));
                }
                let mut args = args.into_iter();
                let max = parse_max(args.next(), op)?;
                let after = match op {
                    Op::List => None,
                    _ => match args.next() {
                        Some(a) => Some(r.text(a, "identifier")?),
                        None => {
                            return Err(BinderError::refused(format!(
                                "no identifier given: {}",
                                list_usage(op)
                            )))
                        }
                    },
                };
                let prefixes = args
                    .map(|a| r.text(a, "prefix"))
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(Command::List {
                    binder: r.session.binder.clone(),
                    max,
                    after,
                    prefixes,
                    all: settings.all,
                });
            }
            Op::Pr => {
                let mut text = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        text.push(b' ');
                    }
                    text.extend(r.value(a)?);
                }
                text.push(b'\n');
                return Ok(Command::Print(text));
            }
            _ => {}
        }
        let id = match id_tok {
            None => String::new(),
            Some("") => return Err(BinderError::refused("no identifier name given")),
            Some(t) => r.text(t, "identifier")?,
        };
        // `norm` and `shadow` only show how the resolver reads an identifier (one
        // broken over lines and indented, say); nothing is stored under it.
        if id.contains('\t') && !matches!(op, Op::Norm | Op::Shadow) {
            return Err(BinderError::refused(
                "identifiers cannot contain a tab (noid's key separator)",
            ));
        }
        let mut args = args.into_iter();
        let mut elem = match elem_tok {
            Some(e) => Some(r.text(e, "element name")?),
            None => None,
        };
        match op {
            Op::Set | Op::Let | Op::Add | Op::Insert => {
                let elem = r.required_elem(elem, &mut args)?;
                let value = match args.next() {
                    Some(v) => r.value(v)?,
                    None => return Err(BinderError::refused("no value given")),
                };
                Ok(Command::Bind {
                    op,
                    id,
                    elem,
                    value,
                })
            }
            Op::Incr | Op::Decr => {
                let elem = r.required_elem(elem, &mut args)?;
                let by = match args.next() {
                    None => 1,
                    Some(a) => parse_amount(&String::from_utf8_lossy(&r.value(a)?))?,
                };
                let by = if op == Op::Decr {
                    by.checked_neg()
                } else {
                    Some(by)
                };
                let by = by.ok_or_else(|| BinderError::refused("amount out of range"))?;
                Ok(Command::Incr { id, elem, by })
            }
            Op::Get | Op::Fetch => {
                let mut elems: Vec<String> = elem.into_iter().collect();
                for a in args {
                    elems.push(r.text(a, "element name")?);
                }
                Ok(Command::Read {
                    id,
                    elems,
                    labelled: op == Op::Fetch,
                    all: settings.all,
                })
            }
            Op::Rm | Op::Delete => {
                let elem = r.required_elem(elem, &mut args)?;
                Ok(Command::Remove {
                    id,
                    elem,
                    report: op == Op::Delete,
                })
            }
            Op::Purge => match elem {
                Some(e) => Err(BinderError::refused(format!(
                    "why did you specify an element ({e})?"
                ))),
                None => Ok(Command::Purge { id }),
            },
            Op::Norm | Op::Shadow | Op::Resolve if elem.is_some() => {
                Err(BinderError::refused(format!(
                    "why did you specify an element ({})?",
                    elem.unwrap_or_default()
                )))
            }
            Op::Norm | Op::Shadow => Ok(Command::Norm {
                id,
                shadow: op == Op::Shadow,
            }),
            Op::Resolve => {
                let mut blob = Vec::new();
                for a in args {
                    blob.push(r.text(a, "header")?);
                }
                Ok(Command::Resolve {
                    id,
                    headers: (!blob.is_empty()).then(|| blob.join(" ")),
                })
            }
            Op::Exists => {
                if elem.is_none() {
                    if let Some(a) = args.next() {
                        elem = Some(r.text(a, "element name")?);
                    }
                }
                Ok(Command::Exists { id, elem })
            }
            _ => unreachable!("handled above: {op:?}"),
        }
    }

    /// One option token (with its argument taken from `rest` when it has one).
    fn option<'t>(
        &self,
        opt: &str,
        rest: &mut impl Iterator<Item = &'t str>,
        settings: &mut Settings,
    ) -> Result<(), BinderError> {
        let (name, inline) = match opt.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (opt, None),
        };
        match name {
            "--ack" => settings.ack = true,
            "--all" => settings.all = true,
            "--verbose" | "-v" => settings.verbose = true,
            "-q" | "--quiet" | "--api" | "--ua" => {}
            "-m" | "--format" => {
                let v = inline
                    .or_else(|| rest.next())
                    .ok_or_else(|| BinderError::refused(format!("{name} needs a format")))?;
                settings.format = Format::parse(v)?;
            }
            _ if name.starts_with("-m") && !name.starts_with("--") => {
                settings.format = Format::parse(&name[2..])?;
            }
            _ if is_directory_option(name) => {
                return Err(BinderError::refused(if self.remote {
                    NO_DIRECTORY
                } else {
                    "-d and -p are not binder options here; name the binder with noid -f"
                }))
            }
            _ => return Err(BinderError::refused(format!("unknown option: {opt}"))),
        }
        Ok(())
    }
}

/// `-d`, `-p` and any prefix (of three or more characters) of EggNog's long options
/// that name a binder or minter directory.
fn is_directory_option(name: &str) -> bool {
    if name.starts_with("-d") || name.starts_with("-p") {
        return !name.starts_with("--");
    }
    let Some(long) = name.strip_prefix("--") else {
        return false;
    };
    !long.is_empty()
        && ["directory", "minderpath", "minder", "testdata"]
            .iter()
            .any(|o| o.starts_with(long))
}

/// One modifier token.
fn modifier(m: &str, mods: &mut Modifiers) -> Result<(), BinderError> {
    let lower = m.to_ascii_lowercase();
    match lower.as_str() {
        ":hx" => mods.hex = Some(b'^'),
        ":all" => mods.all = Some(true),
        ":allnot" => mods.all = Some(false),
        ":slzok" => {}
        _ if lower.starts_with(":pif") => {}
        _ if lower.starts_with(":hx") && m.len() == 4 && m.is_ascii() => {
            mods.hex = Some(m.as_bytes()[3]);
        }
        _ => return Err(BinderError::refused(format!("unknown modifier: {m}"))),
    }
    Ok(())
}

/// How `list` and `next` are called.
fn list_usage(op: Op) -> &'static str {
    if op == Op::Next {
        "next MAX ID [PREFIX...]"
    } else {
        "list MAX [PREFIX...]"
    }
}

/// `list`'s and `next`'s MAX: a count, `-` (1000) or `0` (no limit).
fn parse_max(arg: Option<&str>, op: Op) -> Result<Option<usize>, BinderError> {
    let bad = |a: &str| {
        BinderError::refused(format!(
            "MAX must be a number, - (1000) or 0 (no limit), not \"{a}\": {}",
            list_usage(op)
        ))
    };
    match arg {
        None => Err(bad("")),
        Some("-") => Ok(Some(1000)),
        Some(a) if !a.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) => {
            match a.parse::<usize>() {
                Ok(0) => Ok(None),
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(bad(a)),
            }
        }
        Some(a) => Err(bad(a)),
    }
}

/// An `incr`/`decr` amount: `/^[-+]?\d+$/`.
fn parse_amount(s: &str) -> Result<i64, BinderError> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(BinderError::refused(format!(
            "amount must be an integer, got \"{s}\""
        )));
    }
    s.parse()
        .map_err(|_| BinderError::refused(format!("amount out of range: {s}")))
}

/// Turns a command's tokens into their values: indirect tokens read, session
/// variables expanded, the rest hex-decoded under `:hx`.
struct Resolver<'s, 'f, 'i> {
    session: &'s mut Session<'f>,
    hex: Option<u8>,
    input: &'i mut dyn BufRead,
}

impl Resolver<'_, '_, '_> {
    fn value(&mut self, tok: &str) -> Result<Vec<u8>, BinderError> {
        if tok.starts_with('@') {
            return indirect::read(tok, self.input, self.session.files);
        }
        if let Some(name) = tok.strip_prefix('&') {
            let (name, tail) = match name.strip_prefix('{').and_then(|n| n.split_once('}')) {
                Some((n, tail)) => (n, tail),
                None => (name, ""),
            };
            let mut v = self.session.vars.get(name).cloned().unwrap_or_default();
            v.extend_from_slice(tail.as_bytes());
            return Ok(v);
        }
        Ok(match self.hex {
            Some(e) => token::hex_decode(tok, e),
            None => tok.as_bytes().to_vec(),
        })
    }

    fn text(&mut self, tok: &str, what: &str) -> Result<String, BinderError> {
        String::from_utf8(self.value(tok)?)
            .map_err(|_| BinderError::refused(format!("{what} is not UTF-8 text")))
    }

    /// The element from `ID|ELEM`, else the next argument.
    fn required_elem<'a>(
        &mut self,
        elem: Option<String>,
        args: &mut impl Iterator<Item = &'a str>,
    ) -> Result<String, BinderError> {
        let elem = match elem {
            Some(e) => e,
            None => match args.next() {
                Some(a) => self.text(a, "element name")?,
                None => return Err(BinderError::refused("no element name given")),
            },
        };
        if elem.is_empty() {
            return Err(BinderError::refused("no element name given"));
        }
        Ok(elem)
    }
}

/// What running one line produced.
#[derive(Debug)]
pub struct Outcome {
    /// The rendered reply (and, in bulk mode, the note after a failure).
    pub output: Vec<u8>,
    /// Why the command failed, if it did.
    pub error: Option<BinderError>,
    /// A write that succeeded, in the write log's replayable form
    /// ([`crate::writelog::canonical`]).
    pub write: Option<String>,
}

impl Session<'_> {
    /// Parse, execute and render one line. In bulk mode (`line_no` given) a failure is
    /// followed by `note: non-zero status (1) returned by command on line L`.
    pub fn run<L: noid_core::Lookup + ?Sized>(
        &mut self,
        txn: &mut noid_minter::Txn<'_, L>,
        minter: &mut noid_minter::Minter,
        agent: &crate::exec::Agent,
        line: &str,
        line_no: Option<usize>,
        input: &mut dyn BufRead,
    ) -> Outcome {
        let parsed = self.parse(line, input);
        self.finish(txn, minter, agent, parsed, line_no)
    }

    /// [`Session::run`] for a command already split into tokens.
    pub fn run_tokens<L: noid_core::Lookup + ?Sized>(
        &mut self,
        txn: &mut noid_minter::Txn<'_, L>,
        minter: &mut noid_minter::Minter,
        agent: &crate::exec::Agent,
        tokens: &[String],
        input: &mut dyn BufRead,
    ) -> Outcome {
        let parsed = self.parse_tokens(tokens, input);
        self.finish(txn, minter, agent, parsed, None)
    }

    /// Execute and render a parsed line.
    fn finish<L: noid_core::Lookup + ?Sized>(
        &mut self,
        txn: &mut noid_minter::Txn<'_, L>,
        minter: &mut noid_minter::Minter,
        agent: &crate::exec::Agent,
        parsed: Parsed,
        line_no: Option<usize>,
    ) -> Outcome {
        let reply = match &parsed.command {
            Ok(cmd) if cmd.writes() && self.read_only => {
                crate::exec::Reply::Error(BinderError::ReadOnly)
            }
            Ok(cmd) => crate::exec::execute(txn, minter, agent, cmd),
            Err(e) => crate::exec::Reply::Error(e.clone()),
        };
        let mut output = crate::render::render(&reply, &parsed.settings);
        let error = match reply {
            crate::exec::Reply::Error(e) => Some(e),
            _ => None,
        };
        if let (Some(_), Some(n)) = (&error, line_no) {
            output.extend(crate::render::note(
                &format!("non-zero status (1) returned by command on line {n}"),
                parsed.settings.format,
            ));
        }
        let write = match (&parsed.command, &error) {
            (Ok(cmd), None) => crate::writelog::canonical(cmd),
            _ => None,
        };
        Outcome {
            output,
            error,
            write,
        }
    }
}

/// Whether a command's words are an egg command rather than one of Perl Noid's: after
/// any egg options and modifiers, the first word has the `ID.OP` form with an egg
/// operation (Perl Noid's verbs never hold a dot), or is `list`, `next` or `var`,
/// which name no identifier and are no Perl Noid verbs.
pub fn is_egg(words: &[String]) -> bool {
    let mut words = words.iter();
    while let Some(w) = words.next() {
        if w == "-m" || w == "--format" {
            words.next();
        } else if !(w.starts_with('-') || w.starts_with(':')) || w.len() == 1 {
            return matches!(w.as_str(), "list" | "next" | "var")
                || w.rsplit_once('.')
                    .is_some_and(|(_, op)| Op::parse(op).is_some());
        }
    }
    false
}
