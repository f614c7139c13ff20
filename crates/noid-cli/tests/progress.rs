//! Progress bars of long work (export, check, bulk `noid -`): drawn on standard error
//! when it is a real terminal (a pseudo-terminal made by util-linux `script`), never
//! otherwise, never with `--quiet`, and never over output that goes to the same terminal
//! (`check` prints only when done, and clears its bar first).

use std::path::Path;
use std::process::Command;

use crate::util::{noid_exe, Dir};

/// What a terminal shows while `shell` runs with its standard streams on it.
fn on_a_terminal(shell: &str) -> String {
    let out = Command::new("script")
        .args(["-qec", shell, "/dev/null"])
        .env_remove("NOID")
        .output()
        .expect("util-linux script");
    assert!(out.status.success(), "{shell}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn noid(d: &Dir, args: &str) -> String {
    format!("{} -f {} {args}", noid_exe().display(), d.path().display())
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn export_draws_progress_on_a_terminal_only() {
    let d = Dir::minter(&[".zd"]);
    d.mint(5);
    let plain = d.noid(&["export"]);
    assert_eq!(
        plain.stderr, "",
        "nothing extra when stderr is not a terminal"
    );
    let file = d.path().join("export.txt");

    let shown = on_a_terminal(&noid(&d, &format!("export > {}", file.display())));
    assert!(shown.contains("exporting "), "{shown:?}");
    assert_eq!(read(&file), plain.ok(), "the export itself is unchanged");

    let quiet = on_a_terminal(&noid(&d, &format!("--quiet export > {}", file.display())));
    assert_eq!(quiet, "");
    assert_eq!(read(&file), plain.ok());

    // The export on the terminal itself: no bar drawn across it.
    let shown = on_a_terminal(&noid(&d, "export"));
    assert!(!shown.contains("exporting "), "{shown:?}");
    assert_eq!(shown.replace("\r\n", "\n"), plain.ok());
}

#[test]
fn bulk_counts_commands_on_a_terminal_only() {
    let d = Dir::minter(&[".zd"]);
    let commands = d.path().join("commands");
    std::fs::write(&commands, "hello\nmint 2\nhello\n").unwrap();
    let out = d.path().join("out");
    let plain = d.noid_stdin(&["-"], b"hello\nmint 2\nhello\n");
    assert_eq!(plain.stderr, "");

    let run = |flags: &str| {
        let shell = noid(
            &d,
            &format!("{flags} - < {} > {}", commands.display(), out.display()),
        );
        on_a_terminal(&shell)
    };
    let shown = run("");
    assert!(shown.contains("running "), "{shown:?}");
    assert_eq!(run("-q"), "");
    let ids: Vec<String> = read(&out)
        .lines()
        .filter(|l| l.starts_with("id: "))
        .map(String::from)
        .collect();
    // the third run's: .zd mints 0 1 (plain run), then 2 3, then 4 5
    assert_eq!(ids, ["id: 4", "id: 5"], "the quiet run did its work");
}

#[test]
fn check_counts_keys_on_a_terminal_and_clears_the_bar_before_its_report() {
    let d = Dir::minter(&[".zd"]);
    d.mint(5);
    let plain = d.noid(&["check"]);
    assert_eq!(
        plain.stderr, "",
        "nothing extra when stderr is not a terminal"
    );
    let report = plain.ok().to_string();
    assert!(report.ends_with("ok: no problems found\n"), "{report}");

    let shown = on_a_terminal(&noid(&d, "check")).replace("\r\n", "\n");
    let (bar, after) = shown.split_at(shown.len() - report.len());
    assert!(bar.starts_with("checking "), "{shown:?}");
    assert!(
        bar.ends_with("\x1b[2K"),
        "the bar is cleared first: {shown:?}"
    );
    assert_eq!(after, report, "then the report, whole");

    assert_eq!(
        on_a_terminal(&noid(&d, "--quiet check")).replace("\r\n", "\n"),
        report
    );
    let errors = d.path().join("errors");
    let shown = on_a_terminal(&noid(&d, &format!("check 2> {}", errors.display())));
    assert_eq!(shown.replace("\r\n", "\n"), report);
    assert_eq!(read(&errors), "", "stderr is no terminal: no bar");
}
