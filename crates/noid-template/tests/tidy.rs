//! Tidy checks over the whole workspace, kept in the crate with no dependencies so that
//! they build in seconds: every Rust file of every crate starts with a `//!` comment
//! saying what it is for (a project rule that `#![deny(missing_docs)]` cannot enforce),
//! and every crate takes its lints from the workspace.

use std::fs;
use std::path::{Path, PathBuf};

/// The `crates/` directory of the workspace this crate sits in.
fn crates_dir() -> PathBuf {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    Path::new(&manifest).parent().unwrap().to_path_buf()
}

/// Every crate directory under `crates/`, sorted, so failures read the same every run.
fn crates() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(crates_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_workspace_has_every_crate() {
    let names: Vec<String> = crates()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for expected in [
        "noid-cli",
        "noid-template",
        "noid-resolve",
        "noid-store",
        "noidr",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not found in {names:?}"
        );
    }
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let mut missing = Vec::new();
    for krate in crates() {
        let mut files = Vec::new();
        for dir in ["src", "tests", "benches", "examples", "fuzz"] {
            rust_files(&krate.join(dir), &mut files);
        }
        if krate.join("build.rs").is_file() {
            files.push(krate.join("build.rs"));
        }
        for path in files {
            let text = fs::read_to_string(&path).unwrap();
            // A data file pulled into several test crates with `include!` cannot carry
            // an inner doc; its first comment must say so.
            let included = text.starts_with("// Included with include!");
            if !included && !text.starts_with("//!") {
                missing.push(path.display().to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files without a leading //! doc: {missing:#?}"
    );
}

#[test]
fn every_crate_takes_the_workspace_lints() {
    let mut missing = Vec::new();
    for krate in crates() {
        let manifest = fs::read_to_string(krate.join("Cargo.toml")).unwrap();
        if !manifest.contains("[lints]\nworkspace = true") {
            missing.push(krate.display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "crates without `[lints] workspace = true`: {missing:#?}"
    );
}
