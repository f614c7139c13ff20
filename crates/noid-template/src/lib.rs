//! Pure domain logic of the Noid 0.424 identifier minter, re-implemented in Rust.
//!
//! This crate knows how templates are parsed, how the quasi-random and sequential
//! minting orders are produced, how the NCDA check character is computed and how
//! identifiers are validated against a template. It performs no I/O and knows nothing
//! about storage, command lines or HTTP: the store crate persists a
//! [`generator::GeneratorState`] under the original Perl key names and drives it.
//!
//! Every behaviour here reproduces what Perl Noid 0.424 really does (see
//! `spec-noid.md`), quirks included, because existing minters must keep issuing the
//! same identifiers in the same order after being moved to this implementation.
//!
//! Beyond Perl Noid: masks may use Noid4Php's extended repertoires ([`repertoire`]),
//! a minter may mint Crockford base32 LUIs ([`lui`]) in an unpredictable order that
//! never repeats ([`permutation`]), and a bounded minter may grow, stop or wrap when
//! its namespace is used up ([`growth`]).
//!
//! # Example
//!
//! ```
//! use noid_template::generator::{assemble, init_counters};
//! use noid_template::template::parse_template;
//!
//! let t = parse_template("f5.reedeedk").unwrap();
//! assert_eq!(t.total, 70_728_100);
//! let mut state = init_counters(t.total);
//! let firstpart = format!("13030/{}", t.prefix);
//! let body = state.genid(&t.mask, t.gen_type, false).unwrap();
//! assert_eq!(assemble(&firstpart, &body, t.has_checkchar), "13030/f54x54g11");
//! ```

#![deny(missing_docs)]

pub mod checkchar;
pub mod drand48;
pub mod generator;
pub mod growth;
pub mod lui;
pub mod permutation;
pub mod repertoire;
pub mod template;
pub mod validate;
pub mod xdigits;
