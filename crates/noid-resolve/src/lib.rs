//! Pure identifier resolution for noid: no I/O, no RocksDB, no HTTP.
//!
//! Everything that decides *what* an identifier resolves to lives here, so that the
//! `noidr` line protocols, the HTTP server and `noid fetch/get` all give the same answer
//! for the same store. Storage is reached only through noid-core's [`noid_core::Lookup`]
//! trait; the key layout, identifier forms, the ARK normal form and `%`-decoding are
//! noid-core's too.
//!
//! * [`idmap`]: Perl Noid's `:idmap` rules on the linear-time `regex` crate.
//! * [`elem_value`]: one element's value, stored or mapped (`noid get`).
//! * [`fetch`]: Perl Noid's `fetch` and `get`, line by line (`noid` and `noidr`).
//! * [`read_id`]: the identifier a read names (`ID` or `ID!PEPPER`).
//! * [`noid_line`]: the noid line protocol (`get ID ELEM` → one line).
//! * [`Resolver`]: N2T-style resolution of a request to an [`Answer`]
//!   (targets, codes, ancestor chopping, inflections, conneg, rules, forwarding).
//! * [`egg`]: the EggNog `ID.resolve` line protocol on top of the resolver.
//! * [`Outcome`]: the kind of answer a request got (hit, chop-back, miss …), for counting.
//! * [`kernel`]: kernel metadata (reserved codes, metatypes) and an identifier's standing.
//! * [`modified`]: when an identifier's bindings were last written (`Last-Modified`).
//! * [`wellknown`]: what `/.well-known/ark` publishes (NAANs served, global resolver).
//! * [`Rules`]: the operator's rules file (parsed here, read by `noidr`).
//! * [`registry`]: the prefix registry (records for schemes, NAANs and shoulders, their
//!   providers and the providers' health), read from and written to its ANVL file.
//! * [`Accept`]: the `Accept` header, read the same way by every protocol.
//! * [`cite`]: citations by content negotiation (CSL-JSON, BibTeX, RIS, JSON-LD, a
//!   formatted reference) from the kernel elements.
//! * [`cases`]: a table of requests and the answers expected of them (`noid rules
//!   test`), run against a candidate rules file.
//! * [`Resolver::explain`]: a resolution with each step in words (`noid explain`).
//! * [`web_answer`]: how the web servers' configurations take an egg answer line.
//! * [`draft_table`]: the ARK draft's rules table of docs/RESOLUTION.md, read by the
//!   tests of every path (never by a running resolver).
//!
//! All types are `Send + Sync` and hold no per-request state: one [`Resolver`] serves
//! every thread.
//!
//! ```
//! use noid_core::MemLookup;
//! use noid_resolve::{egg, Answer, Request, Resolver, Rules};
//!
//! let store = MemLookup::new();
//! store.bind("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/");
//! let resolver = Resolver::new(Rules::empty());
//!
//! let a = resolver.resolve(&store, &Request::new("ark:/12345/xt2rv8b/chap3")).unwrap();
//! assert_eq!(a, Answer::Redirect { code: 302, target: "http://obj.example.com/datasets/rv8b/chap3".into() });
//!
//! let mut line = Vec::new();
//! egg::answer(&resolver, &store, b"ark:/99999/nope.resolve", egg::Miss::Null, &mut line);
//! assert_eq!(line, b"NULL\n");
//! ```

#![deny(missing_docs)]

mod accept;
pub mod cases;
pub mod cite;
pub mod draft_table;
pub mod egg;
mod elem;
pub mod fetch;
pub mod idmap;
pub mod kernel;
pub mod lines;
mod lui;
pub mod memo;
pub mod modified;
mod noid_keys;
pub mod noid_line;
mod outcome;
pub mod registry;
mod resolve;
mod rules;
pub mod signpost;
pub mod web_answer;
pub mod wellknown;

pub use accept::Accept;
pub use elem::{bindings, elem_value, read_id, ElemValue, Source};
pub use idmap::{compile_pattern, IdmapError};
pub use outcome::Outcome;
pub use registry::{Registry, RegistryError};
pub use resolve::{
    is_withdrawn, split_code, split_targets, Answer, Explanation, ProviderTarget, Request,
    Resolver, Step, StepKind, KERNEL, METADATA_TYPES, SUCCESSOR,
};
pub use rules::{ArchivedCopy, Rules, RulesError, DEFAULT_RULES};

#[cfg(test)]
mod tests;
