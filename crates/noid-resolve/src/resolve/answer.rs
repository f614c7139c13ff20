//! What resolution answers ([`Answer`]), and what a step found on the way ([`Found`]).

use std::borrow::Cow;
use std::sync::Arc;

use crate::registry::PrefixRecord;

use crate::outcome::Outcome;
use noid_core::ident::is_word;

/// What resolution decided. Each variant says how the HTTP layer should present it; the
/// egg protocol's rendering is in [`crate::egg`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Redirect: HTTP status `code` with `Location: target`. Codes come from the stored
    /// target (`301 https://…`) and default to 302; 303 for content negotiation. A 4xx
    /// code (`410 …`) means: answer that status, the target text being informational.
    Redirect {
        /// HTTP status code (300–417).
        code: u16,
        /// Location, newline-free.
        target: String,
    },
    /// An inflection (`?`, `??`, `/` …) of a bound id with no inflection target: show the
    /// id's metadata (200, `text/plain` ANVL, or JSON when the client accepts it).
    Inflection {
        /// The bound id the suffix was found on.
        id: String,
        /// The inflection as normalised (`?info` is given as `??`).
        suffix: String,
        /// Kernel elements first (`who what when where how`, `where` defaulting to the
        /// id), then the other elements in key order; admin and `_,` elements omitted.
        bindings: Vec<(String, Vec<u8>)>,
    },
    /// Content negotiation asked for a metadata type this resolver serves itself
    /// ([`METADATA_TYPES`](super::METADATA_TYPES), a citation's,
    /// [`CITATION_TYPES`](crate::cite::CITATION_TYPES), or a linkset's,
    /// [`LINKSET_TYPES`](super::LINKSET_TYPES)) and no `_,eTm,` target is
    /// bound: answer the metadata, the citation or the linkset in `media_type` (200).
    Negotiate {
        /// The bound id.
        id: String,
        /// One of [`METADATA_TYPES`](super::METADATA_TYPES),
        /// [`CITATION_TYPES`](crate::cite::CITATION_TYPES) or
        /// [`LINKSET_TYPES`](super::LINKSET_TYPES).
        media_type: String,
        /// As for [`Answer::Inflection`].
        bindings: Vec<(String, Vec<u8>)>,
        /// The URL the identifier is cited by ([`crate::Rules::citation_url`]).
        cite_as: String,
    },
    /// The `_t` value holds several targets (one per line): 300 Multiple Choices with
    /// the list.
    Multi {
        /// The bound id.
        id: String,
        /// The targets, suffix and placeholders applied, in stored order.
        targets: Vec<String>,
    },
    /// A partial identifier (`ark:`, `ark:/99999`, `doi:10.5072`) that is not bound
    /// itself: describe the namespace (200) or 404 if the layer has nothing to show.
    Partial {
        /// Canonical key of the partial id (`ark:/99999`).
        key: String,
        /// Bindings under that key (other than `_t`), possibly empty.
        bindings: Vec<(String, Vec<u8>)>,
    },
    /// A truncated identifier (`ark:/99999`, `doi:10.5072`, `pdb:`, or a shoulder alone,
    /// `ark:/99999/fk4`) that is not bound itself and has a record in the prefix
    /// registry: show the record (200).
    Record {
        /// Canonical key of the truncated id (`ark:/99999`).
        key: String,
        /// Its record, then the records directly below it (a NAAN's shoulders, a
        /// scheme's NAANs).
        records: Vec<Arc<PrefixRecord>>,
        /// Bindings under the key in the store (other than `_t`), possibly empty.
        bindings: Vec<(String, Vec<u8>)>,
    },
    /// `*/ID`: the target at every provider of ID's prefix (200, a list).
    Providers {
        /// The identifier after `*/`.
        id: String,
        /// The key of the record whose providers these are.
        prefix: String,
        /// One per provider, in failover order (the primary first).
        targets: Vec<ProviderTarget>,
    },
    /// A withdrawn identifier (its target's stored code is 410, see
    /// `resolve/tombstone.rs`): 410 Gone with a page naming its successor, if any. The
    /// egg protocol answers `redir410 TEXT`, as for any 410.
    Tombstone {
        /// The withdrawn id (the one bound, which may be an ancestor of the request).
        id: String,
        /// What followed `410 ` in the target, suffix and placeholders applied (may be
        /// empty).
        text: String,
        /// The value of its `successor` element, when bound and not empty.
        successor: Option<String>,
        /// As for [`Answer::Inflection`].
        bindings: Vec<(String, Vec<u8>)>,
    },
    /// The identifier's target is broken (or a curator marked it so) and the rules
    /// file's `archived-copy page` applies to it (see `resolve/archived.rs`): a page
    /// saying the original is gone, linking to the archived copy with its date. The
    /// egg protocol redirects to the copy (302).
    Archived {
        /// The identifier.
        id: String,
        /// Its target, which no longer answers.
        original: String,
        /// The archived copy's URL (a Memento, RFC 7089).
        url: String,
        /// When the archive made it (`Memento-Datetime`, as the archive wrote it).
        datetime: String,
    },
    /// Nothing bound, no ancestor, rule or forwarding applies: 404.
    NotFound,
}

/// One provider's target in an [`Answer::Providers`] list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderTarget {
    /// The provider's code (`rcsb`).
    pub code: String,
    /// The identifier's target there (placeholders expanded, code removed).
    pub target: String,
    /// Whether it is the record's primary provider.
    pub primary: bool,
    /// Whether it is up (always, unless probes say it is down).
    pub healthy: bool,
}

/// How a target was found; it decides conneg and the rule-only treatment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    /// The id itself (in some spelling) or through `:idmap`.
    Exact,
    /// An ancestor, the rest of the id being the suffix.
    Ancestor,
    /// A shoulder/NAAN/scheme redirect rule.
    Rule,
}

/// Which step found a target: what `noid explain` says of it (resolution itself reads
/// [`Via`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum By {
    /// Step 1: the identifier as asked for.
    Asked,
    /// Step 2: another spelling of the whole identifier.
    Spelling,
    /// Step 3: an inflection on the bound identifier.
    Inflection,
    /// Step 4: an ancestor, the rest passed through.
    Ancestor,
    /// Step 4a: an inflection or ancestor in the ARK draft's other spellings.
    DraftSpelling,
    /// Step 4b: a LUI minter's identifier in its canonical spelling.
    Lui,
    /// Step 5: an `:idmap` rule of `_t`.
    Idmap,
    /// Step 7: a shoulder, NAAN or scheme `_t` bound in the store.
    StoreRule,
    /// Step 7: a prefix registry record's provider.
    Registry,
    /// Step 7: a rule of the rules file.
    RulesFile,
}

impl By {
    /// What `noid explain` says of the step.
    pub(super) fn says(self) -> &'static str {
        match self {
            By::Asked => "the identifier as asked for is bound",
            By::Spelling => "another spelling of the identifier is bound",
            By::Inflection => "an inflection on the bound identifier",
            By::Ancestor => "chopped back to the longest bound ancestor",
            By::DraftSpelling => {
                "an inflection or ancestor in the ARK draft's other spellings is bound"
            }
            By::Lui => "the LUI minter's canonical spelling is bound",
            By::Idmap => "an :idmap rule of _t matched",
            By::StoreRule => "a shoulder, NAAN or scheme target bound in the store",
            By::Registry => "the prefix registry's record: its first healthy provider",
            By::RulesFile => "a rule of the rules file",
        }
    }
}

/// Borrowed from the request or its parse where it can be: most answers need neither
/// string as an owned one.
pub(super) struct Found<'a> {
    /// The id whose `_t` (or rule) matched.
    pub(super) root: Cow<'a, str>,
    pub(super) value: Vec<u8>,
    pub(super) suffix: Cow<'a, str>,
    pub(super) via: Via,
    /// Which step found it.
    pub(super) by: By,
}

impl<'a> Found<'a> {
    /// The id itself (in some spelling, or through `:idmap`), with an inflection `suffix`
    /// or none.
    pub(super) fn exact(
        root: Cow<'a, str>,
        value: Vec<u8>,
        suffix: &'static str,
        by: By,
    ) -> Found<'a> {
        Found {
            root,
            value,
            suffix: Cow::Borrowed(suffix),
            via: Via::Exact,
            by,
        }
    }

    /// The kind of answer this find makes, unless the output decision finds nothing:
    /// an inflection (a suffix with no word character, as the output decision reads
    /// it; `?info` is `??`), else a chop-back when found on an ancestor, else a hit.
    pub(super) fn outcome(&self) -> Outcome {
        let suffix = self.suffix.strip_suffix("?info").unwrap_or(&self.suffix);
        let inflection = !self.suffix.is_empty() && !suffix.bytes().any(is_word);
        match self.via {
            Via::Rule => Outcome::Hit,
            _ if inflection => Outcome::Inflection,
            Via::Ancestor => Outcome::ChopBack,
            Via::Exact => Outcome::Hit,
        }
    }

    /// A redirect rule bound on (or written for) the ancestor `key`.
    pub(super) fn rule(key: &'a str, value: Vec<u8>, suffix: &'a str, by: By) -> Found<'a> {
        Found {
            root: Cow::Borrowed(key),
            value,
            suffix: Cow::Borrowed(suffix),
            via: Via::Rule,
            by,
        }
    }
}
