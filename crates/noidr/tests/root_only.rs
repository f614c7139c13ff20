//! Tests that need root (tmpfs and FUSE mounts), as CI and the project's machines run
//! them: shared by noidr's tests and noid-cli's (which include this file).

/// Whether the calling test is to be skipped: only when `NOID_NO_MOUNT_TESTS=1` says so,
/// which a developer without root may set. Under CI (`CI=true`) or as root the setting
/// is refused (the test fails): there these tests must run, and a skip would show as a
/// pass that tried nothing. (`scripts/test-all.sh` leaves them out by name for a
/// developer without root, and counts them as skipped.)
pub fn skip_mount_test(needs: &str) -> bool {
    if std::env::var_os("NOID_NO_MOUNT_TESTS").is_none_or(|v| v != "1") {
        return false;
    }
    let ci = std::env::var_os("CI").is_some_and(|v| v == "true");
    let uid = std::process::Command::new("id")
        .arg("-u")
        .output()
        .expect("run id -u");
    let root = String::from_utf8_lossy(&uid.stdout).trim() == "0";
    assert!(
        !ci && !root,
        "NOID_NO_MOUNT_TESTS=1 {}: a test that needs {needs} must run here",
        if ci { "under CI (CI=true)" } else { "as root" }
    );
    eprintln!("NOID_NO_MOUNT_TESTS=1 (not root): skipping a test that needs {needs}");
    true
}
