//! Tidy checks: every Rust file of the crate starts with a `//!` comment saying what
//! it is for (a project rule that `#![deny(missing_docs)]` cannot enforce).

use std::fs;
use std::path::Path;

fn check_dir(dir: &Path, missing: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            check_dir(&path, missing);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).unwrap();
            if !text.starts_with("//!") {
                missing.push(path.display().to_string());
            }
        }
    }
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let root = std::path::PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()),
    );
    let mut missing = Vec::new();
    for dir in ["src", "tests", "benches"] {
        check_dir(&root.join(dir), &mut missing);
    }
    assert!(
        missing.is_empty(),
        "files without a leading //! doc: {missing:?}"
    );
}
