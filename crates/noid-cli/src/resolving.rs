//! `noid explain ID` and `noid rules test RULES CASES`: why an identifier resolves the
//! way it does, and whether a candidate rules file answers a table of requests as
//! expected, before it is deployed. Both resolve as noidr does, on the minter's store
//! (read from a snapshot), with the rules and registry files noidr would be given; the
//! steps, the cases, their running and their written forms are noid-resolve's
//! (`Resolver::explain`, `Explanation::text` and `json`, `noid_resolve::cases`), as for
//! the API and the console; this module reads the command line and prints.

use std::path::PathBuf;

use crate::mode::parse_args;
use clap::{Parser, Subcommand, ValueEnum};
use noid_core::{Lookup, MemLookup};
use noid_resolve::{cases, Request};

use crate::invocation::Invocation;

/// noid explain: resolve an identifier as noidr would, and say what each step decided.
///
/// Lists the spelling read (a final / or ., pasted white space), the record found or
/// the ancestor chopped back to, the rule or :idmap that matched, the registry's
/// provider, the output decision (inflection, content negotiation, several targets,
/// tombstone), the answer as noidr's egg line, the identifier's standing, and what
/// each shipped Apache and nginx configuration does with the answer. Give the rules
/// and registry files noidr runs with; without --rules the built-in rules apply.
#[derive(Parser, Debug)]
#[command(name = "noid explain")]
pub struct ExplainArgs {
    /// The identifier as it would be asked for, with any suffix or inflection
    /// (ark:/12345/x/chap3, ark:/12345/x?info).
    id: String,
    /// The request's Accept header (content negotiation).
    #[arg(long, value_name = "TYPE")]
    accept: Option<String>,
    /// The request's protocol, for rule targets written without one.
    #[arg(long, value_name = "http|https", default_value = "https")]
    proto: String,
    /// The rules file noidr is given (noidr --rules).
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// The prefix registry noidr is given (noidr --registry).
    #[arg(long, value_name = "FILE")]
    registry: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Output formats of `noid explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Lines for people.
    Text,
    /// One JSON object.
    Json,
}

/// noid rules: test a rules file before it is deployed.
#[derive(Parser, Debug)]
#[command(name = "noid rules")]
pub struct RulesArgs {
    #[command(subcommand)]
    command: RulesCommand,
}

#[derive(Subcommand, Debug)]
enum RulesCommand {
    /// Resolve every case of CASES with the rules of RULES on the minter's store (an
    /// empty store when the directory holds no minter) and print each case whose
    /// answer differs, as a diff (- expected, + got). Exit status 0 when every case
    /// answers as expected, 1 when any differs, 2 when a file cannot be read.
    ///
    /// CASES has one case per line, tab-separated: the request, the answer expected as
    /// noidr's egg line (redir302 https://…, redir410 …, inflect …, NULL), and
    /// optionally the request's Accept header. Blank lines and # comments are skipped.
    Test {
        /// The candidate rules file.
        rules: PathBuf,
        /// The cases file.
        cases: PathBuf,
        /// The prefix registry noidr is given (noidr --registry).
        #[arg(long, value_name = "FILE")]
        registry: Option<PathBuf>,
    },
}

/// The commands' definitions, named as subcommands of noid's, for noid(1) and the
/// shell completions.
#[cfg(test)]
pub fn commands() -> [clap::Command; 2] {
    [
        <ExplainArgs as clap::CommandFactory>::command().name("explain"),
        <RulesArgs as clap::CommandFactory>::command().name("rules"),
    ]
}

/// `noid explain ARGS`.
pub fn explain(session: &Invocation, args: &[String]) -> u8 {
    let a: ExplainArgs = match parse_args("noid explain", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    if a.proto != "http" && a.proto != "https" {
        eprintln!("noid explain: --proto is http or https, not {:?}", a.proto);
        return 2;
    }
    let resolver = match noid_binder::resolver_files::resolver_from_files(
        a.rules.as_deref(),
        a.registry.as_deref(),
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("noid explain: {e}");
            return 2;
        }
    };
    let store = match crate::store::open_reader(session) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("noid explain: {e}");
            return 1;
        }
    };
    let req = Request {
        id: &a.id,
        accept: a.accept.as_deref(),
        proto: Some(&a.proto),
    };
    match resolver.explain(&*store, &req) {
        Ok(e) => {
            match a.format {
                Format::Text => print!("{}", e.text(&a.id)),
                Format::Json => println!("{}", e.json(&a.id)),
            }
            0
        }
        Err(e) => {
            eprintln!("noid explain: {e}");
            1
        }
    }
}

/// `noid rules ARGS`.
pub fn rules(session: &Invocation, args: &[String]) -> u8 {
    let a: RulesArgs = match parse_args("noid rules", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let RulesCommand::Test {
        rules,
        cases: cases_file,
        registry,
    } = a.command;
    let resolver =
        match noid_binder::resolver_files::resolver_from_files(Some(&rules), registry.as_deref()) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("noid rules test: {e}");
                return 2;
            }
        };
    let table = match std::fs::read_to_string(&cases_file)
        .map_err(|e| format!("cannot read cases file {}: {e}", cases_file.display()))
        .and_then(|t| {
            cases::parse(&t).map_err(|e| format!("bad cases file {}: {e}", cases_file.display()))
        }) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("noid rules test: {e}");
            return 2;
        }
    };
    let store = match crate::store::open_reader(session) {
        Ok(s) => Some(s),
        Err(noid_store::StoreError::NoDatabase(_)) => {
            eprintln!(
                "note: no minter in {}: the cases run against an empty store",
                session.dbdir.display()
            );
            None
        }
        Err(e) => {
            eprintln!("noid rules test: {e}");
            return 1;
        }
    };
    let empty = MemLookup::new();
    let l: &dyn Lookup = match &store {
        Some(s) => &**s,
        None => &empty,
    };
    let outcomes = match cases::run(&resolver, l, &table) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("noid rules test: {e}");
            return 1;
        }
    };
    print!("{}", cases::report(&outcomes));
    u8::from(!outcomes.iter().all(cases::Outcome::passed))
}
