//! What resolution says of its own steps when someone asks (`noid explain`): each step
//! that decides something tells a [`Trace`], which makes its words only when it is an
//! [`Explaining`] one. Every other resolution passes [`Untraced`], whose calls compile to
//! nothing, so the hot path is the same code with or without anyone listening.

use super::answer::Found;

/// The kind of a step, as `noid explain` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// The request was read in another spelling (a peppered id, a final `/` or `.`,
    /// pasted white space, a doubled `/`) and resolved again.
    Respelled,
    /// A binding or rule applied: the record found, or the level chopped back to.
    Found,
    /// Which of a registry record's providers was chosen, and which are down.
    Provider,
    /// Nothing applied: what the fall-back steps did (a truncated identifier's record,
    /// forwarding to the global resolver, not found).
    Fallback,
    /// The output decision: inflection, content negotiation, several targets, a
    /// tombstone, or one redirect.
    Decided,
    /// The rules file's archived copy took the broken target's place.
    Archived,
    /// A target a browser would run as a script was refused.
    Refused,
}

impl StepKind {
    /// Its name in `noid explain --format json`.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Respelled => "respelled",
            StepKind::Found => "found",
            StepKind::Provider => "provider",
            StepKind::Fallback => "fallback",
            StepKind::Decided => "decided",
            StepKind::Archived => "archived",
            StepKind::Refused => "refused",
        }
    }
}

/// One step of an explained resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// What kind of step.
    pub kind: StepKind,
    /// What it did, in words.
    pub says: String,
}

/// Where resolution tells its steps.
pub(super) trait Trace {
    /// A step, its words made by `says` only when they are kept.
    fn note(&mut self, kind: StepKind, says: impl FnOnce() -> String);

    /// What a step found.
    fn found(&mut self, found: &Found<'_>) {
        self.note(StepKind::Found, || {
            let value = String::from_utf8_lossy(&found.value);
            let mut s = format!("{}: {}", found.by.says(), found.root);
            if !found.suffix.is_empty() {
                s.push_str(&format!(", the rest {:?} passed on", found.suffix));
            }
            s.push_str(&format!(" (_t = {:?})", value.trim_end()));
            s
        });
    }

    /// The identifier whose bindings answered, when one did.
    fn bound(&mut self, _id: &str) {}
}

/// Nobody listens: every call is a no-op the compiler removes.
pub(super) struct Untraced;

impl Trace for Untraced {
    #[inline(always)]
    fn note(&mut self, _kind: StepKind, _says: impl FnOnce() -> String) {}

    #[inline(always)]
    fn found(&mut self, _found: &Found<'_>) {}
}

/// Keeps every step, and the identifier whose bindings answered.
#[derive(Default)]
pub(super) struct Explaining {
    pub(super) steps: Vec<Step>,
    pub(super) bound: Option<String>,
}

impl Trace for Explaining {
    fn note(&mut self, kind: StepKind, says: impl FnOnce() -> String) {
        self.steps.push(Step { kind, says: says() });
    }

    fn bound(&mut self, id: &str) {
        self.bound = Some(id.to_string());
    }
}
