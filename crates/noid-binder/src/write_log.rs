//! The write log's records: one line per accepted write, written by the writer thread
//! before it acknowledges the write, and read back by `noid replay` ([`crate::replay`])
//! and Recent writes ([`crate::recent`]).
//!
//! A record is nine tab-separated fields:
//!
//! `EPOCH  CLIENT  POPULATOR  AGENT  COMMAND  RECEIVED  ACTING_FOR  PRIOR  OP`
//!
//! `COMMAND` is the write as executed, in a self-contained `:hx` form (every byte that
//! the command syntax would read specially is written `^hh`, indirect tokens already
//! resolved), so replaying it needs nothing but the log. `RECEIVED` is the line as the
//! client sent it, kept for audits, and `ACTING_FOR` N2T's `Acting-For` header (the
//! party the populator acted for; `-` when absent). `EPOCH` and `AGENT` are replayed
//! too: an identifier's admin elements record them, so a replay rebuilds the binder
//! exactly. Fields never hold a tab or a newline (`^hh` again). Records of six fields
//! (written before `ACTING_FOR` was logged) are read as having none.
//!
//! `PRIOR` is what the write replaced, read in its own transaction before it wrote
//! (`noid_egg::exec::Prior`): `=` followed by one `ELEM|VALUE` item per value the
//! element had (each part `^hh`-escaped, items separated by a space; `=` alone when
//! the element had none; every element's values for a `purge`), or `-` when not
//! recorded. `OP` is the id of the operation the write belongs to (a `noid rewrite` or
//! its undo; [`crate::rewrite`]), `-` for a write of its own. Records of six or seven
//! fields (written before these were logged) are read as `-` and `-`: their history
//! shows the old values as not recorded. A replay ignores both: the commands alone
//! rebuild the binder.

use noid_egg::canonical::escape_into;
use noid_egg::exec::Prior;
use noid_egg::{Agent, BinderError};

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
    /// What the write replaced (`None`: not recorded, as in older logs).
    pub prior: Option<Prior>,
    /// The operation the write belongs to, if any.
    pub op: Option<String>,
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
        out.push('\t');
        match &self.prior {
            Some(values) => {
                out.push('=');
                for (i, (elem, value)) in values.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    escape_into(out, elem.as_bytes());
                    out.push('|');
                    escape_into(out, value);
                }
            }
            None => out.push('-'),
        }
        out.push('\t');
        match &self.op {
            Some(op) => escape_into(out, op.as_bytes()),
            None => out.push('-'),
        }
        out.push('\n');
    }

    /// Parse a log line (without its newline).
    pub fn parse(line: &str) -> Result<Record, BinderError> {
        let f: Vec<&str> = line.split('\t').collect();
        let (epoch, client, populator, agent, command, received) = match f[..] {
            [e, c, p, a, cmd, r, ..] if f.len() <= 9 => (e, c, p, a, cmd, r),
            _ => {
                return Err(BinderError::refused(format!(
                    "not a write log record (6 to 9 tab-separated fields): {line}"
                )))
            }
        };
        let field = |i: usize| f.get(i).copied().filter(|s| *s != "-");
        let bytes = |s: &str| noid_egg::token::hex_decode(s, b'^');
        let text = |s: &str| String::from_utf8_lossy(&bytes(s)).into_owned();
        let prior = match field(7) {
            None => None,
            Some(p) => {
                let items = p.strip_prefix('=').ok_or_else(|| {
                    BinderError::refused(format!("bad old values in write log: {p}"))
                })?;
                let values = items.split(' ').filter(|i| !i.is_empty()).map(|item| {
                    let (elem, value) = item.split_once('|').ok_or_else(|| {
                        BinderError::refused(format!("bad old value in write log: {item}"))
                    })?;
                    Ok((text(elem), bytes(value)))
                });
                Some(values.collect::<Result<Prior, BinderError>>()?)
            }
        };
        Ok(Record {
            epoch: epoch
                .parse()
                .map_err(|_| BinderError::refused(format!("bad time in write log: {epoch}")))?,
            client: text(client),
            populator: text(populator),
            agent: text(agent),
            command: command.to_string(),
            received: text(received),
            acting_for: field(6).map(text),
            prior,
            op: field(8).map(text),
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

#[cfg(test)]
mod tests {
    use super::*;

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
            prior: None,
            op: None,
        };
        let line = r.line();
        assert_eq!(
            line,
            "1700000000\t127.0.0.1\tsam\tsam^09x\t:hx i.set a b\ti.set^20a^20b^0a\t-\t-\t-\n"
        );
        assert_eq!(Record::parse(line.trim_end_matches('\n')).unwrap(), r);
        let acting = Record {
            acting_for: Some("http://n2t.net/ark:/99166/b4cd3".into()),
            ..r.clone()
        };
        let line = acting.line();
        assert!(
            line.ends_with("\thttp^3a//n2t.net/ark^3a/99166/b4cd3\t-\t-\n"),
            "{line}"
        );
        assert_eq!(Record::parse(line.trim_end_matches('\n')).unwrap(), acting);
        // A record written before ACTING_FOR was logged.
        let old = "1700000000\t127.0.0.1\tsam\tsam^09x\t:hx i.set a b\ti.set^20a^20b^0a";
        assert_eq!(Record::parse(old).unwrap(), r);
        let dash = Record {
            acting_for: Some("-".into()),
            ..r.clone()
        };
        assert!(dash.line().ends_with("\t^2d\t-\t-\n"));
        assert_eq!(
            Record::parse(dash.line().trim_end_matches('\n')).unwrap(),
            dash
        );
        // A record written before PRIOR and OP were logged (seven fields).
        let seven = "1700000000\t127.0.0.1\tsam\tsam^09x\t:hx i.set a b\ti.set^20a^20b^0a\t-";
        assert_eq!(Record::parse(seven).unwrap(), r);
    }

    /// Old values and the operation id: the element had none, one value, several
    /// (a purge's, with bytes that need escaping), and an op id.
    #[test]
    fn old_values_and_op_round_trip() {
        let base = Record::parse("1\tc\tp\ta\t:hx i.set a b\tx\t-").unwrap();
        let cases: [(Option<Prior>, Option<&str>, &str); 4] = [
            (Some(vec![]), None, "\t=\t-\n"),
            (
                Some(vec![("_t".into(), b"https://a.org/x".to_vec())]),
                Some("20261129T041500Z-1a2b"),
                "\t=_t|https^3a//a.org/x\t20261129T041500Z-1a2b\n",
            ),
            (
                Some(vec![
                    ("a b".into(), b"1|2".to_vec()),
                    ("_t".into(), b"u\tv\nw".to_vec()),
                    ("e".into(), Vec::new()),
                ]),
                None,
                "\t=a^20b|1^7c2 _t|u^09v^0aw e|\t-\n",
            ),
            (None, Some("op 1"), "\t-\top^201\n"),
        ];
        for (prior, op, tail) in cases {
            let r = Record {
                prior,
                op: op.map(String::from),
                ..base.clone()
            };
            let line = r.line();
            assert!(line.ends_with(tail), "{line:?}");
            assert_eq!(line.matches('\t').count(), 8, "{line:?}");
            assert_eq!(Record::parse(line.trim_end_matches('\n')).unwrap(), r);
        }
        assert!(Record::parse("1\tc\tp\ta\tcmd\tx\t-\tnot-old\t-").is_err());
        assert!(Record::parse("1\tc\tp\ta\tcmd\tx\t-\t-\t-\textra").is_err());
    }
}
