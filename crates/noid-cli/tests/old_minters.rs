//! The old minters the `import` tests start from, kept as `db_dump -p` text in
//! `tests/fixtures/`: [`Set::Perl`], minters Perl Noid 0.424 itself made (with the
//! identifiers it minted next), and [`Set::Modelled`], minters noid's own generator
//! made from a model of Perl's sessions (`make.sh` there). A test loads a dump into a
//! real BerkeleyDB file with Debian's `db_load`, as an old installation has it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

use crate::util::*;

/// Which fixture directory.
#[derive(Debug, Clone, Copy)]
pub enum Set {
    /// `tests/fixtures/perl-noid-0.424/`: made by Perl Noid 0.424.
    Perl,
    /// `tests/fixtures/modelled-minters/`: made by noid from a model of Perl's sessions.
    Modelled,
}

impl Set {
    pub fn dir(self) -> PathBuf {
        let name = match self {
            Set::Perl => "perl-noid-0.424",
            Set::Modelled => "modelled-minters",
        };
        PathBuf::from(
            std::env::var("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
        )
        .join("../../tests/fixtures")
        .join(name)
    }

    /// `NAME.dump`.
    pub fn dump(self, name: &str) -> PathBuf {
        self.dir().join(format!("{name}.dump"))
    }

    /// `NAME.next`, the identifiers minted next, one a line.
    pub fn next(self, name: &str) -> String {
        std::fs::read_to_string(self.dir().join(format!("{name}.next"))).unwrap()
    }

    /// The dump's records, as `dbinfo dump` prints them, and how many there are.
    pub fn expected_dump(self, name: &str) -> (Vec<u8>, usize) {
        let text = std::fs::read(self.dump(name)).unwrap();
        let (_, recs) = noid_migrate::dump::read_all(&text[..]).unwrap();
        let mut out = Vec::new();
        for r in &recs {
            out.extend_from_slice(&r.key);
            out.extend_from_slice(b": ");
            out.extend_from_slice(&r.value);
            out.push(b'\n');
        }
        (out, recs.len())
    }

    /// An old installation's minter: `DIR/NOID/noid.bdb` loaded by db_load from the
    /// dump, plus a README and a log.
    pub fn bdb_minter(self, name: &str) -> Dir {
        db_util();
        let d = Dir::new();
        let noid = d.path().join("NOID");
        std::fs::create_dir(&noid).unwrap();
        let st = Command::new("db_load")
            .arg("-f")
            .arg(self.dump(name))
            .arg(noid.join("noid.bdb"))
            .status()
            .unwrap();
        assert!(st.success(), "db_load {name}");
        std::fs::write(
            noid.join("README"),
            format!("README of the {name} minter\n"),
        )
        .unwrap();
        std::fs::write(noid.join("log"), "Creating database for template \"x\".\n").unwrap();
        d
    }
}

/// Debian's db-util (db_load, db_dump), installed on first use (scripts/setup.sh
/// installs it too).
pub fn db_util() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if which("db_load").is_some() {
            return;
        }
        eprintln!("port tests: installing Debian's db-util for db_load/db_dump");
        let _ = Command::new("apt-get").args(["update", "-qq"]).status();
        let _ = Command::new("apt-get")
            .args(["install", "-y", "-qq", "db-util"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status();
    });
    assert!(
        which("db_load").is_some(),
        "db_load is missing and apt-get could not install db-util"
    );
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|f| f.is_file())
}

/// Raw output of one run.
pub struct Raw {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub code: i32,
}

/// `noid -f DIR ARGS…` with `input` on stdin (and `PATH` set to `path_env`).
pub fn noid_raw(dir: &Path, args: &[&str], input: &[u8], path_env: Option<&str>) -> Raw {
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f").arg(dir).args(args);
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    let out = run_output(cmd, input);
    Raw {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// `noid -f DBDIR import FROM` (FROM `-`: `input`).
pub fn import(dbdir: &Path, from: &str, input: &[u8]) -> Raw {
    noid_raw(dbdir, &["import", from], input, None)
}

/// `noid dbinfo dump`, which must succeed.
pub fn dbinfo_dump(dbdir: &Path) -> Vec<u8> {
    let r = noid_raw(dbdir, &["dbinfo", "dump"], b"", None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// `import`'s line on success.
pub fn ok_line(n: usize, from: &str, summary: &str) -> String {
    format!("ok: imported {n} keys from {from}: {summary}\n")
}

/// Replace admin values in an export (noid format), keeping its shape.
pub fn edit_export(export: &[u8], changes: &[(&str, &str)]) -> Vec<u8> {
    let text = String::from_utf8(export.to_vec()).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let key = line.split('\t').next().unwrap();
        match changes.iter().find(|(k, _)| *k == key) {
            Some((k, v)) => out.push_str(&format!("{k}\t{v}")),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out.into_bytes()
}
