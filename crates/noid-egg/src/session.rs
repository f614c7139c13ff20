//! A session: the settings and variables that carry from one command line to the
//! next, and parsing a line (options, modifiers, `ID.OP`, arguments, indirect tokens,
//! hex decoding) into a [`Command`].

use std::collections::HashMap;
use std::io::BufRead;

use crate::command::{Command, Op, Shape, WordOp};
use crate::error::BinderError;
use crate::indirect::FileReader;
use crate::operands::{command_word, Line, Operands};
use crate::render::{Format, Settings};
use crate::token;

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
    /// The longest value (identifier, element or value, however given) accepted, in
    /// octets; `None`: no limit. Remote sessions start with [`crate::MAX_REMOTE_VALUE`].
    pub max_value: Option<usize>,
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
            max_value: remote.then_some(crate::MAX_REMOTE_VALUE),
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
        let (id_part, op_word, op) = command_word(word, &mut rest)?;
        let line = Line {
            id_part,
            args: rest.collect(),
            all: settings.all,
        };
        let mut r = Operands {
            session: self,
            hex: mods.hex,
            input,
        };
        match op.shape() {
            Shape::Word(w) => r.session.word_command(w, op_word),
            Shape::Session(s) => {
                r.session.binder_prefix(id_part)?;
                r.session_command(s, line)
            }
            Shape::Id(i) => {
                r.session.binder_prefix(id_part)?;
                r.id_command(i, line)
            }
        }
    }

    /// EggNog's `<binder>` prefix on an identifier, which names no binder here.
    fn binder_prefix(&self, id_part: Option<&str>) -> Result<(), BinderError> {
        if id_part.is_some_and(|i| i.starts_with('<')) {
            return Err(BinderError::refused(if self.remote {
                "<binder> prefix not allowed from remote connections"
            } else {
                "<binder> prefix not supported; name the binder with noid -f"
            }));
        }
        Ok(())
    }

    /// A command answered from its word alone: help, version, or a refusal.
    fn word_command(&self, op: WordOp, op_word: &str) -> Result<Command, BinderError> {
        match op {
            WordOp::Admin if self.remote => Err(BinderError::Unauthorized),
            WordOp::Admin => Err(BinderError::refused(format!(
                "'{op_word}' is not a binder command; binders are noid minter directories (noid dbcreate)"
            ))),
            WordOp::Mint => Err(BinderError::refused(format!(
                "'{op_word}' not implemented yet; try 'help'"
            ))),
            WordOp::Help => Ok(Command::Help),
            WordOp::Version => Ok(Command::Version),
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

/// What running one line produced.
#[derive(Debug)]
pub struct LineResult {
    /// The rendered reply (and, in bulk mode, the note after a failure).
    pub output: Vec<u8>,
    /// Why the command failed, if it did.
    pub error: Option<BinderError>,
    /// A write that succeeded, in the write log's replayable form
    /// ([`crate::canonical::canonical`]).
    pub write: Option<String>,
    /// What that write replaced, read in its transaction before it wrote.
    pub prior: Option<crate::exec::Prior>,
}

impl Session<'_> {
    /// Parse, execute and render one line. In bulk mode (`line_no` given) a failure is
    /// followed by `note: non-zero status (1) returned by command on line L`.
    pub fn run<L: noid_core::Lookup + ?Sized>(
        &mut self,
        txn: &mut noid_minter::Txn<'_, L>,
        minter: &mut noid_minter::Minter,
        agent: &crate::command::Agent,
        line: &str,
        line_no: Option<usize>,
        input: &mut dyn BufRead,
    ) -> LineResult {
        let parsed = self.parse(line, input);
        self.finish(txn, minter, agent, parsed, line_no)
    }

    /// [`Session::run`] for a command already split into tokens.
    pub fn run_tokens<L: noid_core::Lookup + ?Sized>(
        &mut self,
        txn: &mut noid_minter::Txn<'_, L>,
        minter: &mut noid_minter::Minter,
        agent: &crate::command::Agent,
        tokens: &[String],
        input: &mut dyn BufRead,
    ) -> LineResult {
        let parsed = self.parse_tokens(tokens, input);
        self.finish(txn, minter, agent, parsed, None)
    }

    /// Execute and render a parsed line.
    fn finish<L: noid_core::Lookup + ?Sized>(
        &mut self,
        txn: &mut noid_minter::Txn<'_, L>,
        minter: &mut noid_minter::Minter,
        agent: &crate::command::Agent,
        parsed: Parsed,
        line_no: Option<usize>,
    ) -> LineResult {
        let CommandResult {
            reply,
            write,
            prior,
        } = match &parsed.command {
            Ok(cmd) => self.command(txn, minter, agent, cmd),
            Err(e) => CommandResult {
                reply: crate::reply::Reply::Error(e.clone()),
                write: None,
                prior: None,
            },
        };
        let mut output = crate::render::render(&reply, &parsed.settings);
        let error = match reply {
            crate::reply::Reply::Error(e) => Some(e),
            _ => None,
        };
        if let (Some(_), Some(n)) = (&error, line_no) {
            output.extend(crate::render::note(
                &format!("non-zero status (1) returned by command on line {n}"),
                parsed.settings.format,
            ));
        }
        LineResult {
            output,
            error,
            write,
            prior,
        }
    }

    /// Whether a value of `len` octets is within [`Session::max_value`].
    pub(crate) fn fits(&self, len: usize) -> Result<(), BinderError> {
        match self.max_value {
            Some(most) if len > most => Err(BinderError::TooLarge(most)),
            _ => Ok(()),
        }
    }

    /// Execute one typed command (the way in of callers that hold values, not lines:
    /// the console, the upload): refused when it writes and the session may not; the
    /// identifier it changes passed through the binder's gate first. Its typed reply,
    /// and the write it made in the write log's form.
    pub fn command<L: noid_core::Lookup + ?Sized>(
        &mut self,
        txn: &mut noid_minter::Txn<'_, L>,
        minter: &mut noid_minter::Minter,
        agent: &crate::command::Agent,
        cmd: &Command,
    ) -> CommandResult {
        let refused = |e: BinderError| CommandResult {
            reply: crate::reply::Reply::Error(e),
            write: None,
            prior: None,
        };
        if !cmd.writes() {
            return CommandResult {
                reply: crate::exec::execute(txn, minter, agent, cmd),
                write: None,
                prior: None,
            };
        }
        if self.read_only {
            return refused(BinderError::ReadOnly);
        }
        // The longest value a line may give, a typed command may give too.
        if let Command::Bind { value, .. } = cmd {
            if let Err(e) = self.fits(value.len()) {
                return refused(e);
            }
        }
        let cmd = match cmd.admitted(&minter.gate) {
            Ok(c) => c,
            Err(r) => return refused(BinderError::Minter(r)),
        };
        let (reply, prior) = crate::exec::execute_noting_prior(txn, minter, agent, &cmd);
        let write = (!reply.failed())
            .then(|| crate::canonical::canonical(&cmd))
            .flatten();
        CommandResult {
            reply,
            prior: prior.filter(|_| write.is_some()),
            write,
        }
    }
}

/// What running one typed command produced.
#[derive(Debug)]
pub struct CommandResult {
    /// The command's reply (an error when it failed; nothing was changed then).
    pub reply: crate::reply::Reply,
    /// A write that succeeded, in the write log's replayable form
    /// ([`crate::canonical::canonical`]).
    pub write: Option<String>,
    /// What that write replaced, read in its transaction before it wrote
    /// ([`crate::exec::Prior`]).
    pub prior: Option<crate::exec::Prior>,
}

/// Whether a command's words are an egg command rather than one of Perl Noid's: after
/// any egg options and modifiers, the first word has the `ID.OP` form with an egg
/// operation (Perl Noid's verbs never hold a dot), or is `list`, `next` or `var`,
/// which name no identifier and are no Perl Noid verbs.
pub fn is_egg(words: &[String]) -> bool {
    first_word(words).is_some_and(|w| {
        matches!(w, "list" | "next" | "var")
            || w.rsplit_once('.')
                .is_some_and(|(_, op)| Op::parse(op).is_some())
    })
}

/// The command word of a command's words: the first after any egg options (`-m`
/// and `--format` with their argument) and modifiers.
fn first_word(words: &[String]) -> Option<&str> {
    let mut words = words.iter();
    while let Some(w) = words.next() {
        if w == "-m" || w == "--format" {
            words.next();
        } else if !(w.starts_with('-') || w.starts_with(':')) || w.len() == 1 {
            return Some(w);
        }
    }
    None
}

/// The identifier an egg command line names as written (the `ID` of `ID.OP` or
/// `ID|ELEM.OP`, not hex-decoded), to show beside its outcome; `None` for a line that
/// does not split or names none.
pub fn named_id(line: &str) -> Option<String> {
    let words = crate::token::split(line).ok()?;
    let (id, _) = first_word(&words)?.rsplit_once('.')?;
    let id = id.split_once('|').map_or(id, |(id, _)| id);
    (!id.is_empty()).then(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A typed command passes the same checks as a line: the value limit, read-only
    /// access, and the gate, whose spelling is what the write log records.
    #[test]
    fn typed_commands_are_checked_and_logged_as_admitted() {
        let store = noid_core::MemLookup::new();
        store.insert(":/template", "");
        let mut txn = noid_minter::Txn::new(&store);
        let mut minter = noid_minter::Minter::load(&txn).unwrap();
        let agent = crate::command::Agent {
            who: "sam".into(),
            now: 1_700_000_000,
        };
        let set = |id: &str, value: &[u8]| Command::Bind {
            op: Op::Set,
            id: id.into(),
            elem: "what".into(),
            value: value.to_vec(),
        };
        let mut session = Session::new(true);
        session.max_value = Some(4);
        let done = session.command(&mut txn, &mut minter, &agent, &set("x", b"12345"));
        assert_eq!(
            done.reply,
            crate::reply::Reply::Error(BinderError::TooLarge(4))
        );
        assert_eq!(done.write, None);
        let done = session.command(&mut txn, &mut minter, &agent, &set("ARK:13030/x", b"T"));
        assert!(!done.reply.failed(), "{:?}", done.reply);
        assert_eq!(done.write.as_deref(), Some(":hx ark^3a/13030/x.set what T"));
        session.read_only = true;
        let done = session.command(&mut txn, &mut minter, &agent, &set("y", b"T"));
        assert_eq!(
            done.reply,
            crate::reply::Reply::Error(BinderError::ReadOnly)
        );
    }

    #[test]
    fn named_ids() {
        assert_eq!(named_id("x.set a b").as_deref(), Some("x"));
        assert_eq!(
            named_id("-m json :hx ark:/1/a.b.set _t u").as_deref(),
            Some("ark:/1/a.b")
        );
        assert_eq!(named_id("j|a.set @-").as_deref(), Some("j"));
        assert_eq!(named_id("'a b'.get c").as_deref(), Some("a b"));
        assert_eq!(named_id("list 3"), None);
        assert_eq!(named_id("x.set 'a"), None);
        assert_eq!(named_id(".set a b"), None);
    }
}
