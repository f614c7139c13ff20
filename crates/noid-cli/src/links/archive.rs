//! `noid -f Dbdir links archive|mark|unmark|policy|save …`: the archived copies that
//! stand in for broken targets (docs/LINKS.md, "Archived copies"; crate noid-archive).
//! Not a Perl verb: like `prune-log`, it never comes from bulk lines or the web.
//!
//! `archive` asks a Memento TimeGate now; `mark`/`unmark` record a curator's word that a
//! target is gone; `policy` turns on or off the fetching of copies when the checker
//! finds a target broken; `save` queues targets for an archive to save and tries the
//! requests that are due. Every write is one commit under the writers' lock.

use std::time::Duration;

use clap::Subcommand;
use noid_archive::{copies, save, Config};
use noid_core::links;
use noid_store::Store;

use crate::invocation::Invocation;

/// Most link records one command reads.
const MAX_RECORDS: usize = 10_000_000;

/// The archived-copy commands of `noid links`.
#[derive(Subcommand, Debug)]
pub(super) enum What {
    /// Find the most recent archived copy of each Id's target through a Memento
    /// TimeGate now and keep it (:/links/a/ID), where the resolver's archived-copy
    /// rule finds it. With --under, every Id under PREFIX whose target is broken or
    /// marked.
    Archive {
        /// The Ids (as stored) whose targets to look up.
        ids: Vec<String>,
        /// Every Id under PREFIX whose target is broken (per the link checker) or marked.
        #[arg(long, value_name = "PREFIX")]
        under: Option<String>,
        /// The TimeGate, the target's URL appended to it.
        #[arg(long, value_name = "URL", default_value = noid_archive::DEFAULT_TIMEGATE)]
        timegate: String,
    },
    /// Mark each Id's target as gone: the resolver falls back on its archived copy
    /// (where its rules file says archived-copy), whatever the checker says.
    Mark {
        /// The Ids (as stored).
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Lift the mark of each Id.
    Unmark {
        /// The Ids (as stored).
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Whether copies are fetched when the checker finds a target broken, for the Ids
    /// under PREFIX (none: the whole minter); off by default. With --save-on-bind,
    /// whether every target bound to those Ids is queued for an archive to save (noid
    /// links save --run tries the queue). Without on|off, list the prefixes where each
    /// is on.
    Policy {
        /// The save-on-bind policy rather than the fetching of copies.
        #[arg(long)]
        save_on_bind: bool,
        /// on or off.
        #[arg(value_parser = ["on", "off"])]
        switch: Option<String>,
        /// The Ids it applies to begin with PREFIX.
        prefix: Option<String>,
    },
    /// Queue each Id's target for an archive to save; with --run, try every request
    /// that is due (failures are tried again later, with a backoff), and say how each
    /// stands.
    Save {
        /// The Ids (as stored) whose targets to queue.
        ids: Vec<String>,
        /// Try the requests that are due now.
        #[arg(long)]
        run: bool,
        /// Where saves are asked for, the target's URL appended to it.
        #[arg(long, value_name = "URL", default_value = noid_archive::DEFAULT_SAVE)]
        endpoint: String,
    },
}

/// Run one archived-copy command on the session's minter.
pub(super) fn run(session: &Invocation, what: What) -> u8 {
    let store = match crate::store::open_writer(session) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: {e}", session.dbdir_display);
            return 1;
        }
    };
    let result = match what {
        What::Archive {
            ids,
            under,
            timegate,
        } => archive(&*store, &ids, under.as_deref(), &timegate),
        What::Mark { ids } => marks(&*store, &ids, true),
        What::Unmark { ids } => marks(&*store, &ids, false),
        What::Policy {
            save_on_bind,
            switch,
            prefix,
        } => policy(&*store, save_on_bind, switch.as_deref(), prefix.as_deref()),
        What::Save { ids, run, endpoint } => saves(&*store, &ids, run, &endpoint),
    };
    match result {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// The archive's client: its User-Agent names noid; 30 seconds a request.
pub(super) fn config(timegate: &str, save: &str) -> Result<Config, noid_archive::ArchiveError> {
    let agent = concat!("noid/", env!("CARGO_PKG_VERSION"), " (archived copies)");
    Config::with(timegate, save, agent, Duration::from_secs(30))
}

/// The target `id` redirects to, as the resolver reads its `_t` (a redirect code
/// dropped, placeholders filled in): the URL an archived copy must be a copy of for
/// the resolver to fall back on it. `None` when it has none (unbound, several
/// targets, a `410`).
fn target_of(l: &dyn Store, id: &str) -> Result<Option<String>, noid_archive::ArchiveError> {
    let resolver = noid_resolve::Resolver::new(noid_resolve::Rules::empty());
    let answer = resolver
        .resolve(l, &noid_resolve::Request::new(id))
        .map_err(|e| noid_archive::ArchiveError::Store(e.to_string()))?;
    Ok(match answer {
        noid_resolve::Answer::Redirect { code, target } if (300..400).contains(&code) => {
            Some(target)
        }
        _ => None,
    })
}

/// `archive`: the copies found now; false when any Id failed.
fn archive(
    s: &dyn Store,
    ids: &[String],
    under: Option<&str>,
    timegate: &str,
) -> Result<bool, noid_archive::ArchiveError> {
    let mut wanted: Vec<(String, String)> = Vec::new();
    let mut ok = true;
    for id in ids {
        match target_of(s, id)? {
            Some(t) => wanted.push((id.clone(), t)),
            None => {
                println!("{id}: error: no target (_t) to archive");
                ok = false;
            }
        }
    }
    if let Some(prefix) = under {
        wanted.extend(gone_under(s, prefix)?);
    }
    let config = config(timegate, noid_archive::DEFAULT_SAVE)?;
    for (id, target) in wanted {
        match noid_archive::block_on(noid_archive::find(&config, &target))? {
            Ok(Some(copy)) => {
                copies::keep(s, &id, &copy)?;
                println!(
                    "{id}: {target} archived at {} ({})",
                    copy.url, copy.datetime
                );
            }
            Ok(None) => println!("{id}: no archived copy of {target}"),
            Err(e) => {
                println!("{id}: error: {e}");
                ok = false;
            }
        }
    }
    Ok(ok)
}

/// Every (Id, target) under `prefix` whose target is broken or marked.
fn gone_under(
    s: &dyn Store,
    prefix: &str,
) -> Result<Vec<(String, String)>, noid_archive::ArchiveError> {
    let store_err = |e: noid_core::LookupError| noid_archive::ArchiveError::Store(e.to_string());
    let mut scan = links::STATE_PREFIX.to_vec();
    scan.extend_from_slice(prefix.as_bytes());
    let mut found = Vec::new();
    for (k, _) in s.scan_prefix(&scan, MAX_RECORDS).map_err(store_err)? {
        if let Some((id, target)) = links::parse_state_key(&k) {
            if links::is_gone(s, id, target).map_err(store_err)? {
                found.push((id.to_string(), target.to_string()));
            }
        }
    }
    let mut marks = links::MARK_PREFIX.to_vec();
    marks.extend_from_slice(prefix.as_bytes());
    for (k, _) in s.scan_prefix(&marks, MAX_RECORDS).map_err(store_err)? {
        let id = String::from_utf8_lossy(&k[links::MARK_PREFIX.len()..]).into_owned();
        if found.iter().any(|(i, _)| *i == id) {
            continue;
        }
        if let Some(target) = target_of(s, &id)? {
            found.push((id, target));
        }
    }
    Ok(found)
}

/// `mark`, `unmark`.
fn marks(s: &dyn Store, ids: &[String], on: bool) -> Result<bool, noid_archive::ArchiveError> {
    for id in ids {
        copies::mark(s, id, on, noid_archive::now())?;
        let copy = copies::stored(s, id)?;
        match (on, copy) {
            (true, Some(c)) => println!("{id}: marked gone; falls back on {}", c.url),
            (true, None) => {
                println!("{id}: marked gone; no archived copy stored yet (noid links archive {id})")
            }
            (false, _) => println!("{id}: unmarked"),
        }
    }
    Ok(true)
}

/// `policy [--save-on-bind] [on|off [PREFIX]]`: set one policy, then list both.
fn policy(
    s: &dyn Store,
    save_on_bind: bool,
    switch: Option<&str>,
    prefix: Option<&str>,
) -> Result<bool, noid_archive::ArchiveError> {
    if let Some(switch) = switch {
        let (prefix, on) = (prefix.unwrap_or(""), switch == "on");
        if save_on_bind {
            copies::set_save_on_bind(s, prefix, on)?;
        } else {
            copies::set_policy(s, prefix, on)?;
        }
    }
    for (what, prefixes) in [
        ("copies are fetched", copies::policies(s)?),
        (
            "bound targets are queued for saving",
            copies::save_on_bind(s)?,
        ),
    ] {
        if prefixes.is_empty() {
            println!("{what} for no identifier");
        }
        for p in prefixes {
            if p.is_empty() {
                println!("{what} for every identifier");
            } else {
                println!("{what} for identifiers under {p}");
            }
        }
    }
    Ok(true)
}

/// `save [--run] [Id…]`.
fn saves(
    s: &dyn Store,
    ids: &[String],
    run: bool,
    endpoint: &str,
) -> Result<bool, noid_archive::ArchiveError> {
    let now = noid_archive::now();
    let mut ok = true;
    for id in ids {
        match target_of(s, id)? {
            Some(target) => {
                save::enqueue(s, id, &target, now)?;
                println!("{id}: {target} queued");
            }
            None => {
                println!("{id}: error: no target (_t) to save");
                ok = false;
            }
        }
    }
    if run {
        let ran = save::run(
            s,
            &config(noid_archive::DEFAULT_TIMEGATE, endpoint)?,
            now,
            MAX_RECORDS,
        )?;
        println!(
            "tried {}: {} saved, {} given up",
            ran.tried, ran.saved, ran.failed
        );
        for q in save::requests(s, MAX_RECORDS)? {
            println!(
                "{}\t{}\t{}\tattempts {}\t{}",
                q.id,
                q.target,
                q.request.state.as_str(),
                q.request.attempts,
                q.request.detail
            );
        }
    }
    Ok(ok)
}
