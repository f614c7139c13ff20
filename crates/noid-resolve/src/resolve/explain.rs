//! [`Resolver::explain`]: one resolution with each step it took in words, its answer,
//! the egg line the web servers read, and what each shipped configuration does with it
//! (`noid explain`). The same steps as every other resolution ([`super::trace`]).

use noid_core::lookup::{Lookup, LookupError};
use noid_core::ExactPrefixes;

use super::trace::{Explaining, Step};
use super::{Answer, Request, Resolver};
use crate::egg::{self, Miss};
use crate::kernel::{self, Standing};
use crate::noid_keys::NoidKeys;
use crate::outcome::Outcome;
use crate::web_answer;

/// An explained resolution.
#[derive(Debug, Clone)]
pub struct Explanation {
    /// Each step that decided something, in order.
    pub steps: Vec<Step>,
    /// The answer.
    pub answer: Answer,
    /// Its kind (hit, chop-back, inflection, miss).
    pub outcome: Outcome,
    /// The identifier whose bindings answered, if one did, and its standing (required
    /// kernel elements missing, values malformed).
    pub bound: Option<(String, Standing)>,
    /// The answer as the egg protocol's line (what `RewriteMap prg:`, mod_noid's map and
    /// the nginx module read), without its newline.
    pub line: String,
    /// What each shipped web server configuration does with that line: (server and
    /// configuration, what it does).
    pub paths: Vec<(&'static str, String)>,
}

impl Resolver {
    /// Resolve `req` on `store` as [`Resolver::resolve`] does, saying what each step
    /// decided.
    pub fn explain<L: Lookup + ?Sized>(
        &self,
        store: &L,
        req: &Request<'_>,
    ) -> Result<Explanation, LookupError> {
        // Asked once: a store that cannot tell whether it holds a prefix is asked exactly.
        let store = &ExactPrefixes(store);
        let mut trace = Explaining::default();
        let (answer, outcome) = self.resolve_traced(store, req, &mut trace)?;
        let mut line = Vec::new();
        egg::render(&answer, Miss::Null, &mut line);
        while line.last() == Some(&b'\n') {
            line.pop();
        }
        let paths = web_answer::paths(&line);
        let bound = match trace.bound {
            Some(id) => {
                let standing = kernel::standing(&NoidKeys(store), &id)?;
                Some((id, standing))
            }
            None => None,
        };
        Ok(Explanation {
            steps: trace.steps,
            answer,
            outcome,
            bound,
            line: String::from_utf8_lossy(&line).into_owned(),
            paths,
        })
    }
}
