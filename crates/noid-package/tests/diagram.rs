//! ARCHITECTURE.md's crate diagram against the manifests: every dependency between the
//! workspace's crates that `cargo metadata` reports is drawn, every edge drawn exists,
//! every crate is drawn once, and each crate is drawn above the crates it depends on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

type Edges = BTreeMap<String, BTreeSet<String>>;

/// The marker line above the diagram's fenced block in ARCHITECTURE.md.
const MARKER: &str = "<!-- crate-diagram -->";

/// The diagram's lines: `CRATE (what it holds) -> DEP DEP …`, or a crate alone.
fn drawn(architecture: &str) -> Vec<(String, BTreeSet<String>)> {
    let after = architecture
        .split_once(MARKER)
        .expect("ARCHITECTURE.md has the crate-diagram marker")
        .1;
    let block = after
        .trim_start()
        .strip_prefix("```\n")
        .expect("a fenced block follows the marker");
    let block = &block[..block.find("```").expect("the block is closed")];
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let name = line.split_whitespace().next().unwrap().to_string();
            let deps = match line.split_once("->") {
                Some((_, deps)) => deps.split_whitespace().map(str::to_string).collect(),
                None => BTreeSet::new(),
            };
            (name, deps)
        })
        .collect()
}

/// Every workspace crate and the workspace crates among its normal dependencies.
fn manifests(root: &Path) -> Edges {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--offline",
            "--no-deps",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let members: BTreeSet<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    packages
        .iter()
        .map(|p| {
            let name = p["name"].as_str().unwrap();
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap())
                .filter(|d| members.contains(d) && *d != name)
                .map(str::to_string)
                .collect();
            (name.to_string(), deps)
        })
        .collect()
}

#[test]
fn diagram_matches_manifests() {
    let root = Path::new(&manifest_dir()).join("../..");
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let lines = drawn(&text);
    let real = manifests(&root);

    let mut problems = Vec::new();
    let mut diagram = Edges::new();
    for (name, deps) in &lines {
        if diagram.insert(name.clone(), deps.clone()).is_some() {
            problems.push(format!("{name} is drawn twice"));
        }
    }
    for name in real.keys().filter(|n| !diagram.contains_key(*n)) {
        problems.push(format!("{name} is not drawn"));
    }
    for (name, deps) in &diagram {
        let Some(actual) = real.get(name) else {
            problems.push(format!("{name} is drawn but is no workspace crate"));
            continue;
        };
        for d in actual.difference(deps) {
            problems.push(format!("{name} -> {d} is in the manifests but not drawn"));
        }
        for d in deps.difference(actual) {
            problems.push(format!("{name} -> {d} is drawn but not in the manifests"));
        }
    }
    let row = |n: &str| lines.iter().position(|(name, _)| name == n);
    for (i, (name, deps)) in lines.iter().enumerate() {
        for d in deps {
            if row(d).is_some_and(|j| j < i) {
                problems.push(format!("{name} is drawn below {d}, which it depends on"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's crate diagram:\n{}",
        problems.join("\n")
    );
}

/// This crate's directory: `cargo test` sets `CARGO_MANIFEST_DIR` when it runs the test;
/// the value compiled in names the checkout that built it, which a target directory
/// shared by several checkouts may have kept.
fn manifest_dir() -> std::ffi::OsString {
    std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into())
}
