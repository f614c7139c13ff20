//! The write log's records: one line per accepted write, written by the HTTP API
//! before it acknowledges the write, and read back by `noid replay`.
//!
//! A record is seven tab-separated fields:
//!
//! `EPOCH  CLIENT  POPULATOR  AGENT  COMMAND  RECEIVED  ACTING_FOR`
//!
//! `COMMAND` is the write as executed, in a self-contained `:hx` form (every byte that
//! the command syntax would read specially is written `^hh`, indirect tokens already
//! resolved), so replaying it needs nothing but the log. `RECEIVED` is the line as the
//! client sent it, kept for audits, and `ACTING_FOR` N2T's `Acting-For` header (the
//! party the populator acted for; `-` when absent). `EPOCH` and `AGENT` are replayed
//! too: an identifier's admin elements record them, so a replay rebuilds the binder
//! exactly. Fields never hold a tab or a newline (`^hh` again). Records of six fields
//! (written before `ACTING_FOR` was logged) are read as having none.

use crate::command::Agent;
use crate::command::Command;
use crate::error::BinderError;

/// One write log record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// When the write was accepted, seconds since the epoch.
    pub epoch: i64,
    /// The client's address.
    pub client: String,
    /// The populator whose binder it is.
    pub populator: String,
    /// Who wrote (recorded in new identifiers' admin elements).
    pub agent: String,
    /// The command in replayable `:hx` form.
    pub command: String,
    /// The line as received.
    pub received: String,
    /// The `Acting-For` header, if the request had one.
    pub acting_for: Option<String>,
}

impl Record {
    /// The log line, with its newline.
    pub fn line(&self) -> String {
        let mut s = String::new();
        self.write_line(&mut s);
        s
    }

    /// [`Record::line`], appended to `out` (a log's pending text; no line of its own
    /// is allocated).
    pub fn write_line(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "{}", self.epoch);
        for field in [&self.client, &self.populator, &self.agent] {
            out.push('\t');
            escape_into(out, field.as_bytes());
        }
        out.push('\t');
        out.push_str(&self.command);
        out.push('\t');
        escape_into(out, self.received.as_bytes());
        out.push('\t');
        match &self.acting_for {
            Some(a) => escape_into(out, a.as_bytes()),
            None => out.push('-'),
        }
        out.push('\n');
    }

    /// Parse a log line (without its newline).
    pub fn parse(line: &str) -> Result<Record, BinderError> {
        let f: Vec<&str> = line.split('\t').collect();
        let (epoch, client, populator, agent, command, received, acting_for) = match f[..] {
            [e, c, p, a, cmd, r] => (e, c, p, a, cmd, r, "-"),
            [e, c, p, a, cmd, r, af] => (e, c, p, a, cmd, r, af),
            _ => {
                return Err(BinderError::refused(format!(
                    "not a write log record (7 tab-separated fields): {line}"
                )))
            }
        };
        let text =
            |s: &str| String::from_utf8_lossy(&crate::token::hex_decode(s, b'^')).into_owned();
        Ok(Record {
            epoch: epoch
                .parse()
                .map_err(|_| BinderError::refused(format!("bad time in write log: {epoch}")))?,
            client: text(client),
            populator: text(populator),
            agent: text(agent),
            command: command.to_string(),
            received: text(received),
            acting_for: (acting_for != "-").then(|| text(acting_for)),
        })
    }

    /// The agent a replay acts as.
    pub fn replay_agent(&self) -> Agent {
        Agent {
            who: self.agent.clone(),
            now: self.epoch,
        }
    }
}

/// `cmd` as a self-contained `:hx` command line; `None` for commands that write nothing.
pub fn canonical(cmd: &Command) -> Option<String> {
    let line = |id: &str, op: &str, args: &[&[u8]]| {
        // Room for the words and a few escapes: the line is allocated once.
        let words = id.len() + op.len() + args.iter().map(|a| a.len() + 3).sum::<usize>();
        let mut s = String::with_capacity(words + 24);
        s.push_str(":hx ");
        if id.is_empty() {
            s.push_str(op);
        } else {
            escape_into(&mut s, id.as_bytes());
            s.push('.');
            s.push_str(op);
        }
        for a in args {
            s.push(' ');
            if a.is_empty() {
                s.push_str("\"\"");
            } else {
                escape_into(&mut s, a);
            }
        }
        s
    };
    Some(match cmd {
        Command::Bind {
            op,
            id,
            elem,
            value,
        } => {
            let word = op.bind_word();
            line(id, word, &[elem.as_bytes(), value])
        }
        Command::Incr { id, elem, by } => {
            line(id, "incr", &[elem.as_bytes(), by.to_string().as_bytes()])
        }
        Command::Remove { id, elem, report } => line(
            id,
            if *report { "delete" } else { "rm" },
            &[elem.as_bytes()],
        ),
        Command::Purge { id } => line(id, "purge", &[]),
        _ => return None,
    })
}

/// `^hh` for every byte that is not plainly safe in a token: whitespace, controls,
/// non-ASCII, quotes, backslash, the escape itself, `|` (splits id from element),
/// `.` is safe (the operation follows the last one), and the characters that make a
/// token indirect, a modifier or a binder prefix (`@ & : <`), and a leading `-` or `#`.
pub fn escape(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() + 8);
    escape_into(&mut s, b);
    s
}

/// [`escape`], appended to `out` (every write logged escapes its id, element, value
/// and received line; a table look-up and a one-byte push per byte).
pub fn escape_into(out: &mut String, b: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(b.len());
    for (i, &c) in b.iter().enumerate() {
        // A leading `-` would read as an option, and a leading `#` as the start of a
        // comment when the line is split shell-style (it is, once a value is `""`).
        if SAFE[usize::from(c)] && !(i == 0 && (c == b'-' || c == b'#')) {
            out.push(char::from(c));
        } else {
            out.push('^');
            out.push(char::from(HEX[usize::from(c >> 4)]));
            out.push(char::from(HEX[usize::from(c & 15)]));
        }
    }
}

/// Bytes [`escape`] leaves as they are: ASCII graphic characters but `^|'"\@&:<`.
const SAFE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0x21;
    while c < 0x7f {
        t[c] = true;
        c += 1;
    }
    let special = b"^|'\"\\@&:<";
    let mut i = 0;
    while i < special.len() {
        t[special[i] as usize] = false;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Session};

    #[test]
    fn canonical_commands_parse_back_to_themselves() {
        let cmds = [
            Command::Bind {
                op: Op::Set,
                id: "ark:/99999/fk4 x|y".into(),
                elem: "@e: f\tg".into(),
                value: b"v\n'\"\\^ \xff".to_vec(),
            },
            Command::Bind {
                op: Op::Add,
                id: String::new(),
                elem: "e".into(),
                value: Vec::new(),
            },
            Command::Incr {
                id: "i".into(),
                elem: "n".into(),
                by: -3,
            },
            Command::Remove {
                id: "<i".into(),
                elem: "e".into(),
                report: true,
            },
            Command::Purge { id: ":i".into() },
            Command::Purge { id: "-i".into() },
            // Found by fuzzing: `""` makes the line split shell-style, where a word
            // that starts with `#` begins a comment; the bind replayed as `help`.
            Command::Bind {
                op: Op::Add,
                id: "#oo".into(),
                elem: "bar".into(),
                value: Vec::new(),
            },
        ];
        for cmd in cmds {
            let line = canonical(&cmd).unwrap();
            let parsed = Session::new(false).parse(&line, &mut std::io::empty());
            let got = parsed.command.unwrap();
            // A value that is not UTF-8 survives; text fields are UTF-8 by construction.
            assert_eq!(got, cmd, "{line}");
        }
    }

    #[test]
    fn escape_hex_codes_every_byte_but_plain_ascii() {
        // Hex codes by hand: ^ 5e, | 7c, ' 27, " 22, \ 5c, @ 40, & 26, : 3a, < 3c,
        // space 20, tab 09, DEL 7f, 0xff; a `-` (2d) or `#` (23) only when it leads.
        assert_eq!(
            escape(b"-a-^|'\"\\@&:< \t\x7f\xffz.~!/"),
            "^2da-^5e^7c^27^22^5c^40^26^3a^3c^20^09^7f^ffz.~!/"
        );
        assert_eq!(escape(b"#a#"), "^23a#");
        assert_eq!(escape(b""), "");
        assert_eq!(escape(b"ark:/99999/fk4"), "ark^3a/99999/fk4");
        let mut out = String::from("x ");
        escape_into(&mut out, b"a b");
        assert_eq!(out, "x a^20b");
    }

    #[test]
    fn records_round_trip() {
        let r = Record {
            epoch: 1_700_000_000,
            client: "127.0.0.1".into(),
            populator: "sam".into(),
            agent: "sam\tx".into(),
            command: ":hx i.set a b".into(),
            received: "i.set a b\n".into(),
            acting_for: None,
        };
        let line = r.line();
        assert_eq!(
            line,
            "1700000000\t127.0.0.1\tsam\tsam^09x\t:hx i.set a b\ti.set^20a^20b^0a\t-\n"
        );
        assert_eq!(Record::parse(line.trim_end_matches('\n')).unwrap(), r);
        let acting = Record {
            acting_for: Some("http://n2t.net/ark:/99166/b4cd3".into()),
            ..r.clone()
        };
        let line = acting.line();
        assert!(
            line.ends_with("\thttp^3a//n2t.net/ark^3a/99166/b4cd3\n"),
            "{line}"
        );
        assert_eq!(Record::parse(line.trim_end_matches('\n')).unwrap(), acting);
        // A record written before ACTING_FOR was logged.
        let old = "1700000000\t127.0.0.1\tsam\tsam^09x\t:hx i.set a b\ti.set^20a^20b^0a";
        assert_eq!(Record::parse(old).unwrap(), r);
        let dash = Record {
            acting_for: Some("-".into()),
            ..r
        };
        assert!(dash.line().ends_with("\t^2d\n"));
        assert_eq!(
            Record::parse(dash.line().trim_end_matches('\n')).unwrap(),
            dash
        );
    }
}
