//! The commitment statement an identifier's `?info` page carries (draft-kunze-ark-43
//! §5.1.1, a SHOULD): what its provider promises about it, taken from the prefix
//! registry's configuration, the `commitment` element of the most specific record of
//! the identifier's prefix (shoulder, then NAAN, then scheme).

use noid_core::ident::Parsed;

use super::answer::Answer;
use super::find::level_key;
use super::Resolver;

/// The element name the statement is given under, ERC's support section
/// (`erc-support:`), after the kernel elements.
pub const ELEMENT: &str = "erc-support";

/// The registry element that holds it.
pub const CONFIGURED: &str = "commitment";

impl Resolver {
    /// `answer` with its commitment statement added when it is an identifier's
    /// metadata (an inflection) and the registry holds one for its prefix.
    pub(super) fn with_commitment(&self, mut answer: Answer) -> Answer {
        if self.registry.is_empty() {
            return answer;
        }
        if let Answer::Inflection { id, bindings, .. } = &mut answer {
            if let Some(text) = self.commitment_of(id) {
                bindings.push((ELEMENT.to_string(), text.as_bytes().to_vec()));
            }
        }
        answer
    }

    /// The `commitment` of the most specific registry record above `id`.
    fn commitment_of(&self, id: &str) -> Option<&str> {
        let p = Parsed::new(id);
        let levels = [p.shoulder_key(), p.naan_key(), Some(p.scheme_key())];
        let found = levels.into_iter().flatten().find_map(|k| {
            let record = self.registry.get(&level_key(&p, k))?;
            record
                .elements
                .iter()
                .find(|(name, _)| name == CONFIGURED)
                .map(|(_, v)| v.as_str())
        });
        found
    }
}
