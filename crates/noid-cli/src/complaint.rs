//! Complaints: a verb's refusal of its arguments ([`Complaint`]), and Perl Noid's
//! complaints that more than one verb makes, each written once here.

use noid_store::StoreError;

use crate::invocation::Invocation;
use crate::output::Out;
use crate::usage::usage;

/// Arguments a verb refuses before it touches the minter. The complaint is rendered
/// where the verb would have run, so its place among the other output is Perl's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Complaint {
    /// The message, without its final newline.
    text: String,
    /// The help topic whose brief usage follows the message, if any.
    usage: Option<&'static str>,
}

impl Complaint {
    /// A complaint saying `text`.
    pub fn new(text: impl Into<String>) -> Complaint {
        Complaint {
            text: text.into(),
            usage: None,
        }
    }

    /// The same complaint, followed by the brief usage of `topic`.
    pub fn with_usage(self, topic: &'static str) -> Complaint {
        Complaint {
            usage: Some(topic),
            ..self
        }
    }

    /// Print it (standard error) and mark the command failed.
    pub fn render(&self, out: &mut Out) {
        out.fail(format!("{}\n", self.text));
        if let Some(topic) = self.usage {
            usage(out, true, true, topic);
        }
    }
}

/// Perl's complaint for a command that needs a minter where there is none.
pub fn no_database(session: &Invocation, out: &mut Out) {
    out.bprint_err(&format!(
        "error: no database ({}) -- use dbcreate?\n\n",
        session.dbname()
    ));
    usage(out, true, true, "intro");
    out.failed = true;
}

/// A store that cannot be opened: Perl's "no database" complaint when there is none.
pub fn store_error(session: &Invocation, e: StoreError, out: &mut Out) {
    match e {
        StoreError::NoDatabase(_) => no_database(session, out),
        e => out.fail(format!("error: {e}\n")),
    }
}
