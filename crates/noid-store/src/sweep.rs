//! Working directories left behind by processes that were killed outright (SIGKILL,
//! power loss), found by the process id in their names and removed.
//!
//! A process that needs a directory of its own next to others' (an import's staging
//! directory, a resolver's RocksDB secondary) names it `PREFIX<pid>` or
//! `PREFIX<pid>-…` and removes it when it ends. One that could not clean up leaves it
//! behind; the next process of its kind calls [`sweep_stale`] before making its own.

use std::path::Path;

/// Remove every directory in `dir` named `PREFIX<pid>` or `PREFIX<pid>-…` whose process
/// no longer exists. Directories of live processes (this one included), of processes
/// this one may not inspect, and entries named otherwise are left alone; errors are
/// ignored, as the sweep only tidies. Returns how many directories were removed.
pub fn sweep_stale(dir: &Path, prefix: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| owner_pid(n, prefix)) else {
            continue;
        };
        if !entry.file_type().is_ok_and(|t| t.is_dir()) || !process_is_gone(pid) {
            continue;
        }
        log::info!(
            "removing {} (left by a process that is gone)",
            entry.path().display()
        );
        if std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The process id in `PREFIX<pid>` or `PREFIX<pid>-…`.
fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?;
    let digits = rest.split('-').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether no process with this id exists. Only a definite "no such process" counts:
/// pid 0 and ids beyond `pid_t` (which `kill` would read as process groups) never do.
fn process_is_gone(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: `kill` with signal 0 sends nothing; it only checks that `pid` (positive, so
    // one process, not a group) exists and may be signalled. It touches no memory.
    let rc = unsafe { libc::kill(pid, 0) };
    rc != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Larger than any Linux `pid_max` (at most 2^22), so no process has it.
    const NO_SUCH_PID: u32 = 99_999_999;

    #[test]
    fn owner_pids_are_read_from_names() {
        assert_eq!(owner_pid("secondary-123-0", "secondary-"), Some(123));
        assert_eq!(owner_pid(".NOID.import-77", ".NOID.import-"), Some(77));
        assert_eq!(owner_pid("noidr-5-123456789", "noidr-"), Some(5));
        assert_eq!(owner_pid("noidr-", "noidr-"), None);
        assert_eq!(owner_pid("noidr-x1", "noidr-"), None);
        assert_eq!(owner_pid("noidr-+1", "noidr-"), None);
        assert_eq!(owner_pid("noidr-12x", "noidr-"), None);
        assert_eq!(owner_pid("other-12", "noidr-"), None);
    }

    #[test]
    fn only_directories_of_gone_processes_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let gone = [
            format!("secondary-{NO_SUCH_PID}-0"),
            format!("secondary-{NO_SUCH_PID}"),
        ];
        let kept = [
            format!("secondary-{me}-0"),
            // pid 1 (init) always exists.
            "secondary-1-0".to_string(),
            "secondary-0-0".to_string(),
            // Beyond `pid_t`: `kill` would read it as a process group.
            "secondary-3000000000-0".to_string(),
            format!("other-{NO_SUCH_PID}"),
            "secondary-notapid".to_string(),
        ];
        for name in gone.iter().chain(&kept) {
            std::fs::create_dir(d.path().join(name)).unwrap();
            std::fs::write(d.path().join(name).join("LOG"), "x").unwrap();
        }
        // A file, not a directory: not ours to remove.
        std::fs::write(d.path().join(format!("secondary-{NO_SUCH_PID}-1")), "").unwrap();

        assert_eq!(sweep_stale(d.path(), "secondary-"), 2);
        for name in &gone {
            assert!(!d.path().join(name).exists(), "{name} left");
        }
        for name in &kept {
            assert!(d.path().join(name).exists(), "{name} removed");
        }
        assert!(d.path().join(format!("secondary-{NO_SUCH_PID}-1")).exists());
        assert_eq!(sweep_stale(d.path(), "secondary-"), 0);
    }

    #[test]
    fn a_missing_directory_is_nothing_to_sweep() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(sweep_stale(&d.path().join("none"), "secondary-"), 0);
    }
}
