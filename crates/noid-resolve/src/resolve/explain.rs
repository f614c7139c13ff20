//! [`Resolver::explain`]: one resolution with each step it took in words, its answer,
//! the egg line the web servers read, and what each shipped configuration does with it
//! (`noid explain`). The same steps as every other resolution ([`super::trace`]).
//!
//! An explanation is written out here, once, for everyone who shows it: as lines for
//! people ([`Explanation::text`]: `noid explain`, the API's `explain?format=text`) and as
//! one JSON object ([`Explanation::json`]: `noid explain --format json`, the API's
//! `explain`); the console lays out the same fields as HTML.

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

impl Explanation {
    /// The standing of the identifier whose bindings answered, in words
    /// (`standing of ID: good`, or `… not good (who missing; when …)`); `None` when no
    /// identifier's bindings answered.
    pub fn standing_says(&self) -> Option<String> {
        let (id, standing) = self.bound.as_ref()?;
        let mut gaps: Vec<String> = standing
            .missing
            .iter()
            .map(|m| format!("{m} missing"))
            .collect();
        gaps.extend(
            standing
                .malformed
                .iter()
                .map(|(el, why)| format!("{el} {why}")),
        );
        Some(match gaps.is_empty() {
            true => format!("standing of {id}: good"),
            false => format!("standing of {id}: not good ({})", gaps.join("; ")),
        })
    }

    /// The explanation of `request` for people: the request, each step, the answer,
    /// the standing, and each web server's path, one a line.
    pub fn text(&self, request: &str) -> String {
        let mut s = format!("request: {request}\n");
        for step in &self.steps {
            s.push_str(&format!("  {}: {}\n", step.kind.name(), step.says));
        }
        s.push_str(&format!(
            "answer: {} ({})\n",
            self.line,
            self.outcome.name()
        ));
        if let Some(standing) = self.standing_says() {
            s.push_str(&standing);
            s.push('\n');
        }
        s.push_str("web servers:\n");
        for (server, does) in &self.paths {
            s.push_str(&format!("  {server}: {does}\n"));
        }
        s
    }

    /// The explanation of `request` as one JSON object: `request`, `steps` (`kind`,
    /// `says`), `answer` (the egg line), `outcome`, `bound` (`id`, `good`, `missing`,
    /// `malformed`; `null` when no identifier's bindings answered) and `web_servers`
    /// (`server`, `does`).
    pub fn json(&self, request: &str) -> serde_json::Value {
        use serde_json::json;
        let steps: Vec<_> = self
            .steps
            .iter()
            .map(|s| json!({"kind": s.kind.name(), "says": s.says}))
            .collect();
        let paths: Vec<_> = self
            .paths
            .iter()
            .map(|(server, does)| json!({"server": server, "does": does}))
            .collect();
        let bound = self.bound.as_ref().map(|(id, standing)| {
            json!({
                "id": id,
                "good": standing.is_good(),
                "missing": standing.missing,
                "malformed": standing.malformed.iter()
                    .map(|(el, why)| json!({"element": el, "why": why.to_string()}))
                    .collect::<Vec<_>>(),
            })
        });
        json!({
            "request": request,
            "steps": steps,
            "answer": self.line,
            "outcome": self.outcome.name(),
            "bound": bound,
            "web_servers": paths,
        })
    }
}
