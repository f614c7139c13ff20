//! `noid -f Dbdir index rebuild|status` and `noid -f Dbdir search QUERY`: the search
//! index over the minter's identifiers (crate noid-search, docs/SEARCH.md). Not Perl
//! verbs: like `links`, they never come from bulk lines or the web. Built with the
//! cargo feature `search` (on by default).

use std::io::Write;

use crate::mode::parse_args;
use clap::{Parser, Subcommand, ValueEnum};
use noid_search::{Format, Query, SearchIndex, Sort};

use crate::invocation::Invocation;

/// noid index: the search index over the minter's identifiers, in Dbdir/search-index.
///
/// The index is derived data: `noid search` builds it when it is missing, damaged or
/// was built from another store, and `noid index rebuild` builds it anew from the
/// store. Searches see the store as of the last rebuild or update.
#[derive(Parser, Debug)]
#[command(name = "noid index")]
struct Index {
    #[command(subcommand)]
    command: IndexCommand,
}

#[derive(Subcommand, Debug)]
enum IndexCommand {
    /// Build the index anew from every identifier in the store.
    Rebuild,
    /// Say how many identifiers the index holds and where it is (rebuilding it first
    /// if it cannot be trusted).
    Status,
}

/// noid search: find identifiers by their metadata, targets and state.
///
/// QUERY is one argument (quote it for the shell): words and "phrases" in any element;
/// ELEMENT:VALUE (an element's whole value, case ignored: who:Shelley,
/// what:"The Last Man"); host:HOST (a target's host); under:PREFIX (identifiers
/// starting so, in any spelling: under:ark:/13030/f5); updated:SPAN and created:SPAN,
/// where SPAN is DATE, DATE..DATE, or DATE after one of the signs > >= < <= (DATE is
/// YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC: updated:>2026-01-01); status:STATUS (link
/// status: ok redirected failing broken blocked soft404 parked drifted unchecked);
/// withdrawn:yes|no; standing:good|incomplete|malformed; populator:NAME. Conditions in
/// a row must all hold; OR between them, -CONDITION to exclude, (…) to group. An empty
/// QUERY matches every identifier.
///
/// The table shows the first --limit matches and the counts per shoulder, host,
/// populator, standing and link status; csv, json and anvl write every match (columns
/// id, target, who, what, when, where, how, status, updated).
///
/// Exit status: 0 when something matched, 1 when nothing did or the index failed, 2
/// for a query or option that cannot be read.
#[derive(Parser, Debug)]
#[command(name = "noid search")]
struct Search {
    /// The query (one argument).
    query: String,
    /// What to write: a readable table of the first matches (table), or every match
    /// as CSV with a header row (csv), JSON lines (json) or ANVL records (anvl).
    #[arg(long, value_enum, default_value_t = Shown::Table)]
    format: Shown,
    /// Rows in the table.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=1000))]
    limit: u16,
    /// The table's order: relevance, id, title, creator, date, target, updated or
    /// created; a - before it for descending (-updated: the latest first).
    #[arg(long, default_value = "relevance", value_parser = parse_sort)]
    sort: Sort,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Table,
    Csv,
    Json,
    Anvl,
}

fn parse_sort(s: &str) -> Result<Sort, String> {
    Sort::parse(s)
        .ok_or_else(|| "use relevance, id, title, creator, date, target, updated or created, with a - before it for descending".to_string())
}

/// The commands' definitions, named as subcommands of noid's, for noid(1) and the
/// shell completions.
#[cfg(test)]
pub fn commands() -> [clap::Command; 2] {
    use clap::CommandFactory;
    [
        Index::command().name("index"),
        Search::command().name("search"),
    ]
}

/// `index ARGS`.
pub fn index(session: &Invocation, args: &[String]) -> u8 {
    let parsed: Index = match parse_args("noid index", args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let result = match parsed.command {
        IndexCommand::Rebuild => SearchIndex::rebuild(&session.dbdir),
        IndexCommand::Status => SearchIndex::open(&session.dbdir),
    };
    match result {
        Ok(index) => {
            let status = index.status();
            println!("identifiers: {}", status.documents);
            println!("index: {}", status.dir.display());
            0
        }
        Err(e) => {
            eprintln!("noid index: {e}");
            1
        }
    }
}

/// `search ARGS`.
pub fn search(session: &Invocation, args: &[String]) -> u8 {
    let parsed: Search = match parse_args("noid search", args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let query: Query = match parsed.query.parse() {
        Ok(q) => q,
        Err(e) => {
            eprintln!("noid search: {e}");
            return 2;
        }
    };
    let index = match SearchIndex::open(&session.dbdir) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("noid search: {e}");
            return 1;
        }
    };
    let format = match parsed.format {
        Shown::Table => return table(&index, &query, parsed.limit.into(), parsed.sort),
        Shown::Csv => Format::Csv,
        Shown::Json => Format::JsonLines,
        Shown::Anvl => Format::Anvl,
    };
    let stdout = std::io::stdout();
    let out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    match index.export(&query, format, out) {
        Ok(0) => 1,
        Ok(_) => 0,
        Err(noid_search::SearchError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => 1,
        Err(e) => {
            eprintln!("noid search: {e}");
            1
        }
    }
}

/// The first `limit` matches as a table, then the total and the facets.
fn table(index: &SearchIndex, query: &Query, limit: usize, sort: Sort) -> u8 {
    let results = match index.search(query, 0, limit, sort) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("noid search: {e}");
            return 1;
        }
    };
    let mut out = String::new();
    let cut = |s: &Option<String>, n: usize| -> String {
        let s = s.as_deref().unwrap_or("").replace(['\n', '\t'], " ");
        if s.chars().count() > n {
            format!("{}…", s.chars().take(n - 1).collect::<String>())
        } else {
            s
        }
    };
    if !results.hits.is_empty() {
        let width = results
            .hits
            .iter()
            .map(|h| h.id.chars().count())
            .max()
            .unwrap_or(2)
            .max(2);
        out.push_str(&format!(
            "{:width$}  {:30}  {:20}  {:10}  {:9}  {}\n",
            "id", "what", "who", "when", "status", "target"
        ));
        for h in &results.hits {
            out.push_str(&format!(
                "{:width$}  {:30}  {:20}  {:10}  {:9}  {}\n",
                h.id,
                cut(&h.what, 30),
                cut(&h.who, 20),
                cut(&h.when, 10),
                h.statuses.join(" "),
                cut(&h.target, 60),
            ));
        }
    }
    out.push_str(&format!(
        "# {} of {} matching identifiers shown\n",
        results.hits.len(),
        results.total
    ));
    let facets = [
        ("shoulder", &results.facets.shoulder),
        ("host", &results.facets.host),
        ("populator", &results.facets.populator),
        ("standing", &results.facets.standing),
        ("status", &results.facets.status),
    ];
    for (name, counts) in facets {
        if counts.is_empty() {
            continue;
        }
        let shown: Vec<String> = counts
            .iter()
            .take(10)
            .map(|(v, n)| format!("{v} {n}"))
            .collect();
        let more = if counts.len() > 10 { ", …" } else { "" };
        out.push_str(&format!("# {name}: {}{more}\n", shown.join(", ")));
    }
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    u8::from(results.total == 0)
}
