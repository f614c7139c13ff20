//! The resolver in force, replaceable at run time: SIGHUP re-reads the `--rules` and
//! `--registry` files (a site edits its registry in version control, then signals), and
//! requests take the resolver current when they start. A file that no longer reads is
//! logged and the resolver in force kept.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Context;
use arc_swap::{ArcSwap, Guard};
use noid_resolve::{Registry, Resolver, Rules};

/// The current resolver and the files it was made from.
pub struct Current {
    resolver: ArcSwap<Resolver>,
    /// Resolvers put in force after the first, counted once each is in force: an answer
    /// kept from an earlier request compares it (see `protocol`).
    generation: AtomicU64,
    /// Whether the resolver in force signposts (`signposting on`): read by every HTTP
    /// redirect, one load where the resolver's would cost a guard.
    signposting: AtomicBool,
    rules_file: Option<PathBuf>,
    registry_file: Option<PathBuf>,
}

impl Current {
    /// Start with `resolver`, made from these files.
    pub fn new(
        resolver: Resolver,
        rules_file: Option<PathBuf>,
        registry_file: Option<PathBuf>,
    ) -> Current {
        Current {
            signposting: AtomicBool::new(resolver.rules().signposting),
            resolver: ArcSwap::from_pointee(resolver),
            generation: AtomicU64::new(0),
            rules_file,
            registry_file,
        }
    }

    /// The resolver for one request (no shared write: `ArcSwap`'s thread-local slots).
    pub fn resolver(&self) -> Guard<Arc<Resolver>> {
        self.resolver.load()
    }

    /// Which resolver is in force, read *before* [`Current::resolver`]: a request that
    /// reads a number sees that resolver or a later one, and one that reads the next
    /// number sees the resolver it counts.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether the resolver in force signposts (or the one just replaced, for a request
    /// that races a reload).
    pub fn signposting(&self) -> bool {
        self.signposting.load(Ordering::Relaxed)
    }

    /// Re-read both files and put the new resolver in force; on error, keep the old.
    pub fn reload(&self) -> anyhow::Result<()> {
        let rules = read_rules(self.rules_file.as_deref())?;
        let registry = read_registry(self.registry_file.as_deref())?;
        let records = registry.records().len();
        self.signposting.store(rules.signposting, Ordering::Relaxed);
        self.resolver
            .store(Arc::new(Resolver::with_registry(rules, Arc::new(registry))));
        self.generation.fetch_add(1, Ordering::Release);
        log::info!("rules and registry re-read ({records} registry records)");
        Ok(())
    }
}

/// The rules table of `path`, or the built-in one; errors name the file (and the line).
pub fn read_rules(path: Option<&Path>) -> anyhow::Result<Rules> {
    let Some(path) = path else {
        return Ok(Rules::builtin());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read rules file {}", path.display()))?;
    Rules::parse(&text).with_context(|| format!("bad rules file {}", path.display()))
}

/// The prefix registry of `path`, or none; errors name the file (and the line).
pub fn read_registry(path: Option<&Path>) -> anyhow::Result<Registry> {
    let Some(path) = path else {
        return Ok(Registry::empty());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read registry file {}", path.display()))?;
    Registry::parse(&text).with_context(|| format!("bad registry file {}", path.display()))
}
