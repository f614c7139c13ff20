//! The resolver an operator's files make: the rules file and the prefix registry
//! (noidr's `--rules` and `--registry`), read and checked with messages that name the
//! file, for `noid explain`, `noid rules test` and the API's `explain` and
//! `rules/test`. Here rather than in noid-resolve, whose domain code reads no files.

use std::path::Path;
use std::sync::Arc;

use noid_resolve::{Registry, Resolver, Rules};

/// The resolver of these files: without a rules file the built-in rules, without a
/// registry file no registry. `Err` says which file cannot be read or is not one, and
/// why.
pub fn resolver_from_files(
    rules: Option<&Path>,
    registry: Option<&Path>,
) -> Result<Resolver, String> {
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
    Ok(Resolver::with_registry(rules, Arc::new(registry)))
}

/// The text of the `what` file at `path`.
fn read(path: &Path, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {what} file {}: {e}", path.display()))
}
