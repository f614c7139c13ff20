//! The test harness: a throw-away minter directory and a way to run `noid` on it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `noid` executable under test.
pub fn noid_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_noid"))
}

/// What one run printed.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    /// Assert success and return stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "expected success; stderr:\n{}\nstdout:\n{}",
            self.stderr, self.stdout
        );
        &self.stdout
    }

    /// Assert failure (exit status 1).
    #[track_caller]
    pub fn failed(&self) -> &Run {
        assert_eq!(
            self.code, 1,
            "expected failure; stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// A minter directory that is removed when dropped.
pub struct Dir {
    pub tmp: tempfile::TempDir,
}

impl Dir {
    pub fn new() -> Dir {
        Dir {
            tmp: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// A new directory with a minter created from `args` (dbcreate arguments).
    pub fn minter(args: &[&str]) -> Dir {
        let d = Dir::new();
        let mut a = vec!["dbcreate"];
        a.extend_from_slice(args);
        let r = d.noid(&a);
        assert_eq!(r.code, 0, "dbcreate {args:?} failed: {r:?}");
        d
    }

    /// Run `noid -f DIR args…`.
    pub fn noid(&self, args: &[&str]) -> Run {
        self.noid_stdin(args, b"")
    }

    /// Run `noid -f DIR args…` with `input` on standard input.
    pub fn noid_stdin(&self, args: &[&str], input: &[u8]) -> Run {
        let mut cmd = Command::new(noid_exe());
        cmd.arg("-f").arg(self.path()).args(args);
        run(cmd, input)
    }

    /// Assert that `noid check` finds nothing wrong with the minter.
    pub fn assert_check_clean(&self) {
        let check = self.noid(&["check"]);
        assert!(
            check.ok().ends_with("ok: no problems found\n"),
            "{}",
            check.stdout
        );
    }

    /// The minted ids of a `mint` run's stdout.
    pub fn mint(&self, n: usize) -> Vec<String> {
        let r = self.noid(&["mint", &n.to_string()]);
        ids(r.ok())
    }
}

/// Run a prepared command with `input` on stdin; NOID is unset so the test's `-f` wins.
pub fn run(cmd: Command, input: &[u8]) -> Run {
    let out = run_output(cmd, input);
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// As [`run`], keeping stdout as bytes (exports may hold binary values).
pub fn run_output(mut cmd: Command, input: &[u8]) -> std::process::Output {
    cmd.env_remove("NOID")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn noid");
    let mut stdin = child.stdin.take().expect("stdin");
    // Written from a thread of its own: a large input whose output fills the stdout
    // pipe would otherwise block both sides.
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = stdin.write_all(input);
        });
        child.wait_with_output().expect("wait")
    })
}

/// The identifiers in `id: X` lines.
pub fn ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(str::to_string)
        .collect()
}

/// Replace 14-digit timestamps with `DATE` so records can be compared exactly.
pub fn undate(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if i + 14 <= b.len()
            && b[i..i + 14].iter().all(u8::is_ascii_digit)
            && (i + 14 == b.len() || !b[i + 14].is_ascii_digit())
            && (i == 0 || !b[i - 1].is_ascii_digit())
        {
            out.push_str("DATE");
            i += 14;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The contact noid records in circulation records for the user running the tests, as
/// Perl Noid's `who_are_you` forms it: `LOGIN/GROUP`, the session's login name
/// (`logname`; the user's name, `id -un`, when the session has none) and the group's
/// name (`id -gn`). Read from those commands, not from noid.
pub fn contact() -> String {
    let out = |cmd: &str, arg: Option<&str>| {
        let o = Command::new(cmd)
            .args(arg)
            .output()
            .unwrap_or_else(|e| panic!("{cmd}: {e}"));
        let text = String::from_utf8(o.stdout).expect("UTF-8 name");
        o.status.success().then(|| text.trim_end().to_string())
    };
    let login = out("logname", None)
        .filter(|l| !l.is_empty())
        .or_else(|| out("id", Some("-un")))
        .expect("id -un");
    let group = out("id", Some("-gn")).expect("id -gn");
    format!("{login}/{group}")
}

/// [`serve::start`] with this build's `noid`.
pub fn serve(config: &Path) -> (std::process::Child, u16) {
    crate::serve::start(&noid_exe(), config)
}
