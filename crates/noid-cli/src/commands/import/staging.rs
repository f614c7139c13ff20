//! The staging directory an import builds its store in, removed again unless the
//! import succeeds, and the move of the finished minter into `Dbdir/NOID`.

use std::fs;
use std::path::{Path, PathBuf};

use noid_store::Layout;

use super::error::ImportError;

/// Staging directories are named this, followed by the importing process's id.
const STAGING_PREFIX: &str = ".NOID.import-";

/// Directories and files made by an import, removed again unless it is published.
pub struct Staging {
    /// `Dbdir/.NOID.import-PID`, holding the new store as `…/NOID`.
    dir: PathBuf,
    /// The Dbdir, when the import created it.
    made_dbdir: Option<PathBuf>,
    /// Set once published: nothing is left to remove.
    done: bool,
}

impl Staging {
    /// Make `dbdir` if it does not exist and choose this process's staging directory
    /// in it, clearing what imports killed outright left behind.
    pub fn begin(dbdir: &Path) -> Result<Staging, ImportError> {
        let made_dbdir = if dbdir.exists() {
            None
        } else {
            fs::create_dir_all(dbdir).map_err(|error| ImportError::CreateDbdir {
                dir: dbdir.to_path_buf(),
                error,
            })?;
            Some(dbdir.to_path_buf())
        };
        // Left by imports killed outright (SIGKILL, power loss).
        noid_store::sweep_stale(dbdir, STAGING_PREFIX);
        let dir = dbdir.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        Ok(Staging {
            dir,
            made_dbdir,
            done: false,
        })
    }

    /// The directory to build the new minter in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Move the minter staged as `staged` into `Dbdir/NOID`. The database directory
    /// arrives last (or with its whole `NOID` directory) in one rename, so the store
    /// appears whole.
    pub fn publish(mut self, dbdir: &Path, staged: &Layout) -> Result<(), ImportError> {
        move_into_place(dbdir, staged)?;
        self.done = true;
        let _ = fs::remove_dir_all(&self.dir);
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let _ = fs::remove_dir_all(&self.dir);
        if let Some(d) = &self.made_dbdir {
            let _ = fs::remove_dir(d);
        }
    }
}

fn move_into_place(dbdir: &Path, staged: &Layout) -> Result<(), ImportError> {
    let target = Layout::new(dbdir);
    let fail = |to: &Path| {
        let to = to.to_path_buf();
        move |error| ImportError::Publish { to, error }
    };
    if !target.noid_dir.exists() {
        return fs::rename(&staged.noid_dir, &target.noid_dir).map_err(fail(&target.noid_dir));
    }
    if target.has_minter() {
        return Err(ImportError::Appeared {
            dbdir: dbdir.to_path_buf(),
        });
    }
    for (from, to) in [
        (&staged.readme, &target.readme),
        (&staged.log, &target.log),
        (&staged.generation, &target.generation),
    ] {
        if from.exists() {
            fs::rename(from, to).map_err(fail(to))?;
        }
    }
    fs::rename(&staged.db, &target.db).map_err(fail(&target.db))
}
