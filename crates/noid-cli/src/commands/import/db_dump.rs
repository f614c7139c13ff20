//! BerkeleyDB's `db_dump -p` run as a child process, for reading a Perl Noid
//! `noid.bdb` without linking BerkeleyDB.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

use super::error::ImportError;

/// A running `db_dump -p FILE` whose standard error is collected on a thread.
pub struct DbDump {
    child: Child,
    /// The thread collecting standard error; None once the child was waited for.
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
}

impl DbDump {
    /// Start dumping `file`; the dump's text comes on the returned standard output.
    pub fn start(file: &Path) -> Result<(DbDump, ChildStdout), ImportError> {
        let exe = find_db_dump().ok_or(ImportError::NoDbDump)?;
        let mut child = Command::new(&exe)
            .arg("-p")
            .arg(file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| ImportError::DbDumpSpawn { exe, error })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        let stderr = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err.read_to_end(&mut v);
            v
        });
        Ok((
            DbDump {
                child,
                stderr: Some(stderr),
            },
            stdout,
        ))
    }

    /// Wait for the exit; `Err` with db_dump's own message when it failed.
    pub fn finish(&mut self) -> Result<(), ImportError> {
        let status = self.child.wait().map_err(ImportError::DbDumpWait)?;
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if status.success() {
            return Ok(());
        }
        Err(ImportError::DbDumpFailed {
            status,
            stderr: String::from_utf8_lossy(&stderr).trim().replace('\n', "; "),
        })
    }
}

impl Drop for DbDump {
    fn drop(&mut self) {
        if self.stderr.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The first of Debian's names for BerkeleyDB's dump tool found on `$PATH`.
fn find_db_dump() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["db_dump", "db5.3_dump"] {
        for dir in std::env::split_paths(&path) {
            let f = dir.join(name);
            if f.is_file() {
                return Some(f);
            }
        }
    }
    None
}
