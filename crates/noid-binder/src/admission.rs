//! What a populator's binder admits beyond its own gate (`noid_minter::gate`): its
//! populator's minters' shoulders, whose check characters are verified and whose bare
//! `NAAN/…` identifiers are read as ARKs; its writes limited to those shoulders unless
//! the populator is configured with `any_identifier`; and no target that runs code in
//! a browser (the console's forms and sheet uploads check targets further: `group`).
//!
//! A directory's thread asks for the admission before each group of requests. The
//! minters are found by their directories (`SCHEME/NAAN/SHOULDER` under the
//! populator's `minters`), so a minter made while the service runs is admitted at the
//! next group; their templates are read once per set of directories.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use noid_minter::gate::{Admission, Shoulder, Targets};
use noid_minter::Minter;

use crate::safe_name::is_safe_name;

/// Where a binder's admission comes from: its populators' minter directories.
#[derive(Debug, Clone, Default)]
pub struct AdmissionSource {
    /// The `minters` directories of the populators whose binder this is.
    roots: Vec<PathBuf>,
    /// Writes limited to the shoulders (no populator said `any_identifier`).
    limit: bool,
    /// The minter directories last read, and what they gave.
    cached: Option<(Vec<PathBuf>, Arc<Admission>)>,
}

impl AdmissionSource {
    /// The admission of a binder whose populators have minters under `roots`; `limit`
    /// unless one of them may write any identifier.
    pub fn new(roots: Vec<PathBuf>, limit: bool) -> AdmissionSource {
        AdmissionSource {
            roots,
            limit,
            cached: None,
        }
    }

    /// The admission now: the minters' directories are listed again (cheap), and
    /// their templates read again only when the list changed.
    pub fn admission(&mut self) -> Arc<Admission> {
        let dirs: Vec<PathBuf> = self
            .roots
            .iter()
            .flat_map(|r| minter_paths(r).into_iter().map(|p| r.join(p.join("/"))))
            .collect();
        if let Some((seen, a)) = &self.cached {
            if *seen == dirs {
                return a.clone();
            }
        }
        let shoulders = dirs.iter().filter_map(|d| shoulder(d)).collect();
        let a = Arc::new(Admission {
            shoulders,
            limit: self.limit,
            targets: Targets::NoCode,
        });
        self.cached = Some((dirs, a.clone()));
        a
    }
}

/// The shoulder of the minter in `dir`, if it can be read and mints from a template.
fn shoulder(dir: &Path) -> Option<Shoulder> {
    let store = match noid_store::open::reader(dir) {
        Ok(s) => s,
        Err(e) => {
            log::warn!("{}: not read for its shoulder: {e}", dir.display());
            return None;
        }
    };
    Minter::load(&*store).ok().as_ref().and_then(Shoulder::of)
}

/// The minters under `root`, as `SCHEME/NAAN/SHOULDER` steps (each a safe name), in
/// name order.
pub fn minter_paths(root: &Path) -> Vec<[String; 3]> {
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_safe_name(n))
            .collect();
        v.sort();
        v
    };
    let mut found = Vec::new();
    for scheme in names(root) {
        for naan in names(&root.join(&scheme)) {
            for shoulder in names(&root.join(&scheme).join(&naan)) {
                let dir = root.join(&scheme).join(&naan).join(&shoulder);
                if noid_store::Layout::new(&dir).has_minter() {
                    found.push([scheme.clone(), naan.clone(), shoulder]);
                }
            }
        }
    }
    found
}
