//! `scripts/setup.sh`: the demo installs only what building needs, the test command
//! everything (issue 41, item 12). Run with `--dry-run` and a `PATH` holding only
//! `ls` and `id`, so that every tool looked up by name is missing and named.

use std::path::Path;
use std::process::Command;

/// What `scripts/setup.sh ARGS --dry-run` would install, package names in order.
fn would_install(args: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bin = tempfile::tempdir().unwrap();
    for tool in ["ls", "id"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap();
        std::os::unix::fs::symlink(found, bin.path().join(tool)).unwrap();
    }
    let out = Command::new("/bin/bash")
        .arg(root.join("scripts/setup.sh"))
        .args(args)
        .arg("--dry-run")
        .env("PATH", bin.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("setup: would install "))
        .flat_map(|l| l.split(' ').map(str::to_string).collect::<Vec<_>>())
        .collect()
}

#[test]
fn the_demo_installs_only_what_building_needs() {
    let build = would_install(&["--build"]);
    assert!(build.contains(&"clang".to_string()), "{build:?}");
    assert!(build.contains(&"g++".to_string()), "{build:?}");
    for p in &build {
        assert!(
            ["clang", "libclang-dev", "g++"].contains(&p.as_str()),
            "{p} in {build:?}"
        );
    }
    // The full set-up names the test tools the demo must not install.
    let all = would_install(&[]);
    for tool in ["patroni", "etcd-server", "curl", "procps"] {
        assert!(all.contains(&tool.to_string()), "{tool} in {all:?}");
    }
    let demo = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/demo.sh"),
    )
    .unwrap();
    let setups: Vec<&str> = demo
        .lines()
        .filter(|l| l.contains("scripts/setup.sh"))
        .collect();
    assert_eq!(setups, ["    scripts/setup.sh --build"]);
}
