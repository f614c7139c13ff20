//! `noid explain ID` and `noid rules test RULES CASES`: why an identifier resolves the
//! way it does, and whether a candidate rules file answers a table of requests as
//! expected, before it is deployed. Both resolve as noidr does, on the minter's store
//! (read from a snapshot), with the rules and registry files noidr would be given; the
//! steps, the cases and their running are noid-resolve's (`Resolver::explain`,
//! `noid_resolve::cases`), this module reads the files and prints.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};
use noid_core::{Lookup, MemLookup};
use noid_resolve::{cases, Explanation, Registry, Request, Resolver, Rules};

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

/// Parse `args` as `noid WORD …`; `Err` is the exit status after clap printed why.
fn parse<P: Parser>(word: &str, args: &[String]) -> Result<P, u8> {
    P::try_parse_from(std::iter::once(format!("noid {word}")).chain(args.iter().cloned())).map_err(
        |e| {
            let _ = e.print();
            if e.use_stderr() {
                2
            } else {
                0
            }
        },
    )
}

/// The resolver noidr would run with these files: the built-in rules without a rules
/// file, no registry without a registry file.
fn resolver(rules: Option<&Path>, registry: Option<&Path>) -> Result<Resolver, String> {
    let rules = match rules {
        None => Rules::builtin(),
        Some(p) => Rules::parse(&read(p, "rules")?)
            .map_err(|e| format!("bad rules file {}: {e}", p.display()))?,
    };
    let registry = match registry {
        None => Registry::empty(),
        Some(p) => Registry::parse(&read(p, "registry")?)
            .map_err(|e| format!("bad registry file {}: {e}", p.display()))?,
    };
    Ok(Resolver::with_registry(rules, registry.into()))
}

fn read(path: &Path, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {what} file {}: {e}", path.display()))
}

/// `noid explain ARGS`.
pub fn explain(session: &Invocation, args: &[String]) -> u8 {
    let a: ExplainArgs = match parse("explain", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    if a.proto != "http" && a.proto != "https" {
        eprintln!("noid explain: --proto is http or https, not {:?}", a.proto);
        return 2;
    }
    let resolver = match resolver(a.rules.as_deref(), a.registry.as_deref()) {
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
                Format::Text => print!("{}", text(&a.id, &e)),
                Format::Json => println!("{}", json(&a.id, &e)),
            }
            0
        }
        Err(e) => {
            eprintln!("noid explain: {e}");
            1
        }
    }
}

/// The explanation for people.
fn text(request: &str, e: &Explanation) -> String {
    let mut s = format!("request: {request}\n");
    for step in &e.steps {
        s.push_str(&format!("  {}: {}\n", step.kind.name(), step.says));
    }
    s.push_str(&format!("answer: {} ({})\n", e.line, e.outcome.name()));
    if let Some((id, standing)) = &e.bound {
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
        match gaps.is_empty() {
            true => s.push_str(&format!("standing of {id}: good\n")),
            false => s.push_str(&format!(
                "standing of {id}: not good ({})\n",
                gaps.join("; ")
            )),
        }
    }
    s.push_str("web servers:\n");
    for (server, does) in &e.paths {
        s.push_str(&format!("  {server}: {does}\n"));
    }
    s
}

/// The explanation as one JSON object.
fn json(request: &str, e: &Explanation) -> serde_json::Value {
    let steps: Vec<_> = e
        .steps
        .iter()
        .map(|s| serde_json::json!({"kind": s.kind.name(), "says": s.says}))
        .collect();
    let paths: Vec<_> = e
        .paths
        .iter()
        .map(|(server, does)| serde_json::json!({"server": server, "does": does}))
        .collect();
    let bound = e.bound.as_ref().map(|(id, standing)| {
        serde_json::json!({
            "id": id,
            "good": standing.is_good(),
            "missing": standing.missing,
            "malformed": standing.malformed.iter()
                .map(|(el, why)| serde_json::json!({"element": el, "why": why.to_string()}))
                .collect::<Vec<_>>(),
        })
    });
    serde_json::json!({
        "request": request,
        "steps": steps,
        "answer": e.line,
        "outcome": e.outcome.name(),
        "bound": bound,
        "web_servers": paths,
    })
}

/// `noid rules ARGS`.
pub fn rules(session: &Invocation, args: &[String]) -> u8 {
    let a: RulesArgs = match parse("rules", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let RulesCommand::Test {
        rules,
        cases: cases_file,
        registry,
    } = a.command;
    let resolver = match resolver(Some(&rules), registry.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("noid rules test: {e}");
            return 2;
        }
    };
    let table = match read(&cases_file, "cases").and_then(|t| {
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
    let mut differ = 0;
    for o in outcomes.iter().filter(|o| !o.passed()) {
        differ += 1;
        let accept = o
            .case
            .accept
            .as_deref()
            .map(|a| format!(" (Accept: {a})"))
            .unwrap_or_default();
        println!(
            "line {}: {}{accept}\n- {}\n+ {}",
            o.case.line, o.case.request, o.case.expected, o.got
        );
    }
    let n = outcomes.len();
    println!(
        "{} of {n} {} as expected; {differ} {}",
        n - differ,
        if n == 1 {
            "case answers"
        } else {
            "cases answer"
        },
        if differ == 1 { "differs" } else { "differ" }
    );
    u8::from(differ > 0)
}
