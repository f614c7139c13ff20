//! The follower's secondary directories: one per opened view, under one base.
//!
//! A view that is replaced may still be in use by requests while the next one opens, so
//! every open gets a directory of its own (`secondary-PID-N`), removed with its view.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sweep::sweep_stale;

/// Name prefix of the base directories made under the system's temporary directory.
const BASE_PREFIX: &str = "noidr-";

/// Name prefix of the per-open directories.
const OPEN_PREFIX: &str = "secondary-";

/// Where the views' secondaries keep their files.
pub(crate) struct SecondaryDirs {
    base: PathBuf,
    /// We chose `base` (under the temporary directory), and remove it at the end.
    owns_base: bool,
    opens: AtomicU64,
}

impl SecondaryDirs {
    /// Under `chosen` (the operator's directory), or a new base under the system's
    /// temporary directory. Directories left there by processes that were killed (and
    /// could not clean up) are removed first.
    pub(crate) fn new(chosen: Option<&Path>) -> SecondaryDirs {
        match chosen {
            Some(dir) => {
                sweep_stale(dir, OPEN_PREFIX);
                SecondaryDirs {
                    base: dir.to_path_buf(),
                    owns_base: false,
                    opens: AtomicU64::new(0),
                }
            }
            None => {
                let tmp = std::env::temp_dir();
                sweep_stale(&tmp, BASE_PREFIX);
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.subsec_nanos());
                let name = format!("{BASE_PREFIX}{}-{nanos}", std::process::id());
                SecondaryDirs {
                    base: tmp.join(name),
                    owns_base: true,
                    opens: AtomicU64::new(0),
                }
            }
        }
    }

    /// A directory name not used before by this process.
    pub(crate) fn next(&self) -> PathBuf {
        let n = self.opens.fetch_add(1, Ordering::Relaxed);
        self.base
            .join(format!("{OPEN_PREFIX}{}-{n}", std::process::id()))
    }

    /// Remove every directory this process made (at exit; views may still be open).
    pub(crate) fn remove_all(&self) {
        if self.owns_base {
            let _ = std::fs::remove_dir_all(&self.base);
            return;
        }
        let Ok(entries) = std::fs::read_dir(&self.base) else {
            return;
        };
        let mine = format!("{OPEN_PREFIX}{}-", std::process::id());
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&mine) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chosen_base_is_swept_and_only_our_directories_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let stale = d.path().join("secondary-99999999-0");
        let other = d.path().join("secondary-1-0");
        let unrelated = d.path().join("keep");
        for p in [&stale, &other, &unrelated] {
            std::fs::create_dir(p).unwrap();
        }
        let dirs = SecondaryDirs::new(Some(d.path()));
        assert!(!stale.exists(), "left by a process that is gone");
        let pid = std::process::id();
        let (a, b) = (dirs.next(), dirs.next());
        assert_eq!(a, d.path().join(format!("secondary-{pid}-0")));
        assert_eq!(b, d.path().join(format!("secondary-{pid}-1")));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        dirs.remove_all();
        assert!(!a.exists() && !b.exists());
        assert!(other.exists() && unrelated.exists() && d.path().exists());
    }

    #[test]
    fn a_base_of_our_own_is_removed_whole() {
        let dirs = SecondaryDirs::new(None);
        let a = dirs.next();
        assert!(a.starts_with(std::env::temp_dir()));
        std::fs::create_dir_all(&a).unwrap();
        let base = a.parent().unwrap().to_path_buf();
        assert!(base
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("noidr-{}-", std::process::id())));
        dirs.remove_all();
        assert!(!base.exists());
    }
}
