//! The write log's records: one line per accepted write, written by the writer thread
//! before it acknowledges the write, and read back by `noid replay` ([`crate::replay`])
//! and Recent writes ([`crate::recent`]).
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

use noid_egg::canonical::escape_into;
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
            |s: &str| String::from_utf8_lossy(&noid_egg::token::hex_decode(s, b'^')).into_owned();
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
