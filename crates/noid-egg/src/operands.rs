//! The words of a command after its options and modifiers: the command word (`ID.OP`,
//! `OP`, `ID OP`), then the identifier, element and arguments each operation takes,
//! read into their values ([`Operands`]: indirect tokens, session variables, `:hx`).

use std::io::BufRead;

use crate::command::{Command, IdOp, Op, SessionOp};
use crate::error::BinderError;
use crate::indirect;
use crate::session::Session;
use crate::token;

/// The rest of a command line after its command word.
pub(crate) struct Line<'t> {
    /// What came before `.OP`: `ID` or `ID|ELEM`, if anything.
    pub(crate) id_part: Option<&'t str>,
    /// The arguments after the command word.
    pub(crate) args: Vec<&'t str>,
    /// `--all` / `:all` in force.
    pub(crate) all: bool,
}

/// The command word: `ID.OP`, a bare `OP`, or `ID OP` (the operation as the second
/// word). Returns the identifier part, the operation's word and the operation.
pub(crate) fn command_word<'t>(
    word: &'t str,
    rest: &mut std::iter::Peekable<impl Iterator<Item = &'t str>>,
) -> Result<(Option<&'t str>, &'t str, Op), BinderError> {
    let (id_part, op_word) = match word.rsplit_once('.') {
        Some((id, op)) => (Some(id), op),
        None if Op::parse(word).is_some() => (None, word),
        None => match rest.next_if(|w| Op::parse(w).is_some()) {
            Some(op) => (Some(word), op),
            None => return Err(BinderError::refused(format!("unknown command: {word}"))),
        },
    };
    match Op::parse(op_word) {
        Some(op) => Ok((id_part, op_word, op)),
        None => Err(BinderError::refused(format!("unknown command: {op_word}"))),
    }
}

/// How `list` and `next` are called.
fn list_usage(next: bool) -> &'static str {
    if next {
        "next MAX ID [PREFIX...]"
    } else {
        "list MAX [PREFIX...]"
    }
}

/// `list`'s and `next`'s MAX: a count, `-` (1000) or `0` (no limit).
fn parse_max(arg: Option<&str>, next: bool) -> Result<Option<usize>, BinderError> {
    let bad = |a: &str| {
        BinderError::refused(format!(
            "MAX must be a number, - (1000) or 0 (no limit), not \"{a}\": {}",
            list_usage(next)
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
pub(crate) struct Operands<'s, 'f, 'i> {
    pub(crate) session: &'s mut Session<'f>,
    pub(crate) hex: Option<u8>,
    pub(crate) input: &'i mut dyn BufRead,
}

impl Operands<'_, '_, '_> {
    /// A command that names no identifier: `var`, `logmark`, `list`, `next`, `pr`.
    pub(crate) fn session_command(
        &mut self,
        op: SessionOp,
        line: Line<'_>,
    ) -> Result<Command, BinderError> {
        match op {
            SessionOp::Var => {
                let (Some(name), values) = (line.args.first(), line.args.get(1..).unwrap_or(&[]))
                else {
                    return Err(BinderError::refused("no variable name given"));
                };
                let value = values.join(" ").into_bytes();
                self.session.vars.insert((*name).to_string(), value);
                Ok(Command::Nothing)
            }
            SessionOp::Logmark => Ok(Command::Nothing),
            SessionOp::List { next } => self.list(next, line),
            SessionOp::Pr => {
                let mut text = Vec::new();
                for (i, a) in line.args.iter().enumerate() {
                    if i > 0 {
                        text.push(b' ');
                    }
                    text.extend(self.value(a)?);
                }
                text.push(b'\n');
                Ok(Command::Print(text))
            }
        }
    }

    /// `list MAX [PREFIX…]` and `next MAX ID [PREFIX…]`.
    fn list(&mut self, next: bool, line: Line<'_>) -> Result<Command, BinderError> {
        if line.id_part.is_some_and(|i| !i.is_empty()) {
            let word = if next { "next" } else { "list" };
            return Err(BinderError::refused(format!(
                "{word} names no identifier: {}",
                list_usage(next)
            )));
        }
        let mut args = line.args.into_iter();
        let max = parse_max(args.next(), next)?;
        // `next` names the identifier to start after; `list` starts at the beginning.
        let after = match next.then(|| args.next()) {
            None => None,
            Some(Some(a)) => Some(self.text(a, "identifier")?),
            Some(None) => {
                return Err(BinderError::refused(format!(
                    "no identifier given: {}",
                    list_usage(next)
                )))
            }
        };
        let prefixes = args
            .map(|a| self.text(a, "prefix"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Command::List {
            binder: self.session.binder.clone(),
            max,
            after,
            prefixes,
            all: line.all,
            circulated: false,
        })
    }

    /// A command on an identifier: its identifier and element read, then its arguments.
    pub(crate) fn id_command(&mut self, op: IdOp, line: Line<'_>) -> Result<Command, BinderError> {
        let (id_tok, elem_tok) = match line.id_part {
            Some(p) => match p.split_once('|') {
                Some((i, e)) => (Some(i), Some(e)),
                None => (Some(p), None),
            },
            None => (None, None),
        };
        let id = match id_tok {
            None => String::new(),
            Some("") => return Err(BinderError::refused("no identifier name given")),
            Some(t) => self.text(t, "identifier")?,
        };
        // `norm` and `shadow` only show how the resolver reads an identifier (one
        // broken over lines and indented, say); nothing is stored under it.
        if id.contains('\t') && !matches!(op, IdOp::Norm { .. }) {
            return Err(BinderError::refused(
                "identifiers cannot contain a tab (noid's key separator)",
            ));
        }
        let elem = match elem_tok {
            Some(e) => Some(self.text(e, "element name")?),
            None => None,
        };
        let mut args = line.args.into_iter();
        match op {
            IdOp::Bind(op) => {
                let elem = self.required_elem(elem, &mut args)?;
                let value = match args.next() {
                    Some(v) => self.value(v)?,
                    None => return Err(BinderError::refused("no value given")),
                };
                let extra: Vec<&str> = args.collect();
                if !extra.is_empty() {
                    return Err(BinderError::refused(format!(
                        "{} takes one value, and {} more word{} followed it ({}); \
                         quote a value with spaces: ID.{} {} 'A value with spaces'",
                        op.bind_word(),
                        extra.len(),
                        if extra.len() == 1 { "" } else { "s" },
                        extra.join(" "),
                        op.bind_word(),
                        elem
                    )));
                }
                Ok(Command::Bind {
                    op,
                    id,
                    elem,
                    value,
                })
            }
            IdOp::Incr { decr } => {
                let elem = self.required_elem(elem, &mut args)?;
                let by = self.amount(args.next(), decr)?;
                no_more(args, if decr { "decr" } else { "incr" })?;
                Ok(Command::Incr { id, elem, by })
            }
            IdOp::Read { labelled } => {
                let mut elems: Vec<String> = elem.into_iter().collect();
                for a in args {
                    elems.push(self.text(a, "element name")?);
                }
                Ok(Command::Read {
                    id,
                    elems,
                    labelled,
                    all: line.all,
                })
            }
            IdOp::Remove { report } => {
                let elem = self.required_elem(elem, &mut args)?;
                no_more(args, if report { "delete" } else { "rm" })?;
                Ok(Command::Remove { id, elem, report })
            }
            IdOp::Purge | IdOp::Norm { .. } | IdOp::Resolve if elem.is_some() => {
                Err(BinderError::refused(format!(
                    "why did you specify an element ({})?",
                    elem.unwrap_or_default()
                )))
            }
            IdOp::Purge => {
                no_more(args, "purge")?;
                Ok(Command::Purge { id })
            }
            IdOp::Norm { shadow } => Ok(Command::Norm { id, shadow }),
            IdOp::Resolve => {
                let mut blob = Vec::new();
                for a in args {
                    blob.push(self.text(a, "header")?);
                }
                Ok(Command::Resolve {
                    id,
                    headers: (!blob.is_empty()).then(|| blob.join(" ")),
                })
            }
            IdOp::Exists => {
                let elem = match (elem, args.next()) {
                    (Some(e), _) => Some(e),
                    (None, Some(a)) => Some(self.text(a, "element name")?),
                    (None, None) => None,
                };
                Ok(Command::Exists { id, elem })
            }
        }
    }

    /// `incr`'s and `decr`'s amount (default 1), negated for `decr`.
    fn amount(&mut self, arg: Option<&str>, decr: bool) -> Result<i64, BinderError> {
        let by = match arg {
            None => 1,
            Some(a) => parse_amount(&String::from_utf8_lossy(&self.value(a)?))?,
        };
        let by = if decr { by.checked_neg() } else { Some(by) };
        by.ok_or_else(|| BinderError::refused("amount out of range"))
    }

    fn value(&mut self, tok: &str) -> Result<Vec<u8>, BinderError> {
        let v = self.unlimited_value(tok, self.session.max_value)?;
        self.session.fits(v.len())?;
        Ok(v)
    }

    /// A token's value; an indirect one is read no further than `limit`.
    fn unlimited_value(&mut self, tok: &str, limit: Option<usize>) -> Result<Vec<u8>, BinderError> {
        if tok.starts_with('@') {
            return indirect::read(tok, self.input, self.session.files, limit);
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

/// Refuses words after a command's last argument: a word dropped silently would
/// store or remove something other than what was meant.
fn no_more<'a>(mut args: impl Iterator<Item = &'a str>, op: &str) -> Result<(), BinderError> {
    match args.next() {
        None => Ok(()),
        Some(w) => Err(BinderError::refused(format!(
            "{op} takes no more arguments, but {w:?} followed; quote an argument with spaces"
        ))),
    }
}
