//! The egg command language (EggNog's `egg`, which N2T's API speaks) over
//! noid's binder: `ID.set ELEM VALUE`, `ID.add`, `ID.fetch`, `ID.purge` and the rest,
//! with element duplicates, the `:hx` modifiers, shell-like quoting, indirect tokens
//! (`@`, `@-`, `@--` …) and bulk mode.
//!
//! A line is parsed once ([`Session::parse`]) into a closed [`Command`], executed
//! against the same write [`noid_minter::Txn`] and [`noid_minter::Minter`] the `noid`
//! CLI uses ([`execute`]), and its [`Reply`] rendered as plain text, ANVL or JSON
//! ([`render`]). The crate does no I/O: callers supply the input stream that indirect
//! tokens read from, open and commit the store, and write the output. The `noid` CLI
//! and the HTTP API (`noid-api`) both drive it, so a binding means the same thing
//! whichever way it arrived.
//!
//! Bindings are noid's: an element's first value is stored under `ID<TAB>ELEM`, where
//! `noid get` and the resolver read it; further values (egg's duplicates) are kept in
//! insertion order under reserved keys ([`elements`]).
//!
//! Also the words of a `noid` command line of Perl Noid's kind ([`words`]: bulk lines
//! and web queries), split by the same shell-style split ([`token::shell_split`]).
//!
//! ```
//! use noid_egg::{execute, render, Agent, Session};
//! use noid_minter::{Minter, Txn};
//! use noid_core::MemLookup;
//!
//! let store = MemLookup::new();
//! store.insert(":/template", "");
//! let mut txn = Txn::new(&store);
//! let mut minter = Minter::load(&txn).unwrap();
//! let mut session = Session::new(false);
//! let agent = Agent { who: "sam".into(), now: 1_700_000_000 };
//! for line in ["foo.set bar zaf", "foo.add bar yaf", "foo.fetch bar"] {
//!     let parsed = session.parse(line, &mut std::io::empty());
//!     let reply = execute(&mut txn, &mut minter, &agent, &parsed.command.unwrap());
//!     let out = render(&reply, &parsed.settings);
//!     if line.ends_with("fetch bar") {
//!         assert_eq!(out, b"bar: zaf\nbar: yaf\n\n");
//!     }
//! }
//! ```

#![deny(missing_docs)]

pub mod canonical;
pub mod command;
pub mod elements;
pub mod error;
pub mod exec;
pub mod indirect;
pub mod lines;
pub mod nog;
pub mod norm;
mod operands;
pub mod render;
pub mod reply;
pub mod session;
pub mod token;
pub mod words;
pub mod xml;

/// The longest value remote (web) callers may give, in octets: 1 MiB. A binding's
/// value is a target, a title, a short record; the limit keeps one request from
/// holding the binder's memory and the write log's lines at sizes no reader of them
/// is built for. Spec case 40 (a value of a million octets) fits.
pub const MAX_REMOTE_VALUE: usize = 1 << 20;

pub use command::{Agent, Command, Op};
pub use error::BinderError;
pub use exec::execute;
pub use lines::Lines;
pub use render::{render, Format, Settings};
pub use reply::Reply;
pub use session::{is_egg, named_id, CommandResult, LineResult, Parsed, Session};
