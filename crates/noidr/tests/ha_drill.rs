//! Failover drills on a real high-availability cluster (scripts/ha-drill.sh;
//! docs/SCALING.md, "High availability with Patroni, drilled"): three PostgreSQL
//! servers under Patroni in synchronous_mode strict, etcd, three writers minting and
//! binding, a bulk minter (`mint 25000`, two connections), two `noidr --follow` nodes, in network namespaces the script creates. One
//! drill of each fault -- SIGKILL to the primary's postmaster, its Patroni stopped, the
//! primary partitioned, a writer killed mid-command, the standbys cut off and then the
//! primary lost -- each shown to have taken effect (the leader moved, the timeline went
//! up and writes failed; the killed process was a writer's `noid`, and that writer
//! printed ids again), and every invariant holds. The same loss with asynchronous
//! replication (the broken configuration) is caught by the checker: ids printed twice,
//! acknowledged bindings lost. Both runs take 2.5 to 5 minutes (148 s to 295 s measured
//! on two cores at load average 20 to 25).

use std::path::Path;
use std::process::Command;

use crate::util::*;

/// Run scripts/ha-drill.sh with `args` on this build's binaries: (exit code, stdout).
fn drill(args: &[&str]) -> (i32, String) {
    let repo = Path::new(&manifest_dir()).join("../..");
    let bin = noid_bin();
    let out = Command::new(repo.join("scripts/ha-drill.sh"))
        .args(args)
        .arg("--bin")
        .arg(bin.parent().expect("the binaries' directory"))
        .output()
        .expect("run scripts/ha-drill.sh");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), stdout)
}

#[test]
fn failover_drills_keep_every_invariant_and_asynchronous_replication_is_caught() {
    let uid = Command::new("id").arg("-u").output().expect("id -u");
    assert_eq!(
        String::from_utf8_lossy(&uid.stdout).trim(),
        "0",
        "the drills need root: network namespaces, and PostgreSQL as the postgres user"
    );
    let (code, out) = drill(&[
        "--drills",
        "5",
        "--faults",
        "kill9,stop,partition,writer,cut",
    ]);
    assert_eq!(code, 0, "an invariant broke:\n{out}");
    // One drill of each fault, and each took effect (the script's own check, from
    // Patroni's leader, the primary's WAL timeline and the writers' logs).
    for fault in ["kill9", "stop", "partition", "writer", "cut"] {
        let row = table_row(&out, &format!("| {fault} | "));
        assert!(
            row.starts_with(&format!("| {fault} | 1 |")) && row.ends_with("| 1 of 1 |"),
            "the {fault} drill did not take effect: {row}\n{out}"
        );
    }
    // What each caused, as the script read it: the leader moved to another node and the
    // timeline went up by at least one (a promotion), writes failed.
    for (drill, fault) in [(1, "kill9"), (2, "stop"), (3, "partition")] {
        let caused = caused(&out, drill, fault);
        let (before, after) = leaders(&caused);
        assert_ne!(before, after, "drill {drill} ({fault}): {caused}");
        assert_timeline_went_up(&caused);
        assert!(!caused.ends_with(" 0 failed writes"), "{caused}");
    }
    // The writer fault killed a writer's own noid (exit 137, SIGKILL's status), and that
    // writer printed ids again: `w2's noid (pid 123) killed, exit 137, then w2 printed
    // ids again`.
    let killed = caused(&out, 4, "writer");
    let (writer, rest) = killed.split_once("'s noid (pid ").unwrap_or(("", ""));
    let pid = rest.split(')').next().unwrap_or("");
    assert!(
        ["w1", "w2", "w3", "bulk"].contains(&writer)
            && !pid.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit())
            && killed
                == format!(
                    "{writer}'s noid (pid {pid}) killed, exit 137, then {writer} printed ids again"
                ),
        "{killed}"
    );
    assert_timeline_went_up(&caused(&out, 5, "cut"));
    for row in [
        "| ids printed twice | 0 |",
        "| ids printed without a circulation record in the primary | 0 |",
        "| acknowledged bindings missing from the primary | 0 |",
        "| followers' exports equal the minter's | yes |",
        "| counter never went back | yes |",
        "| noid check | clean |",
    ] {
        assert!(out.contains(row), "{row} missing:\n{out}");
    }
    // The API's clients (noid serve on each writer host) were part of the load.
    let api = out
        .lines()
        .find(|l| l.starts_with("| of these through `noid serve`"))
        .unwrap_or_else(|| panic!("no row for the API's writes:\n{out}"));
    let counts: Vec<u64> = api
        .trim_end_matches(" |")
        .rsplit("| ")
        .next()
        .unwrap_or("")
        .split(", ")
        .map(|n| n.parse().unwrap_or(0))
        .collect();
    assert!(
        counts.len() == 2 && counts.iter().all(|&n| n > 0),
        "the API printed no id or acknowledged no binding: {api}"
    );
    // The bulk minter's large mints (two connections) were part of the load.
    let bulk = out
        .lines()
        .find(|l| l.starts_with("| of these by the bulk minter"))
        .unwrap_or_else(|| panic!("no row for the bulk minter:\n{out}"));
    assert!(
        !bulk.ends_with("| 0 |"),
        "the bulk minter printed no id: {bulk}"
    );
    // The broken configuration: the standbys cut off while the primary acknowledges
    // writes they never get, then the primary lost.
    let (code, out) = drill(&["--drills", "1", "--faults", "cut", "--async"]);
    assert_eq!(code, 1, "the checker missed the loss:\n{out}");
    assert!(
        out.contains("INVARIANTS BROKEN:")
            && (out.contains("duplicate-ids(")
                || out.contains("lost-binds(")
                || out.contains("unrecorded-ids(")),
        "{out}"
    );
    // The loss came from the fault, which took effect: a standby took over.
    assert_timeline_went_up(&caused(&out, 1, "cut"));
}

/// The line of the report's tables that begins with `start`.
fn table_row<'a>(out: &'a str, start: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no row {start:?}:\n{out}"))
}

/// What drill `n` (a `fault`) caused, from the report's list of drills (`| N | FAULT |
/// yes | WHAT IT CAUSED |`), which says it took effect.
fn caused(out: &str, n: u32, fault: &str) -> String {
    let row = table_row(out, &format!("| {n} | {fault} | "));
    let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
    assert!(
        cells.len() == 4 && cells[2] == "yes",
        "drill {n} ({fault}) did not take effect: {row}"
    );
    cells[3].to_string()
}

/// The leaders before and after a drill: `leader A -> B, timeline …`.
fn leaders(caused: &str) -> (&str, &str) {
    caused
        .strip_prefix("leader ")
        .and_then(|r| r.split(',').next())
        .and_then(|r| r.split_once(" -> "))
        .unwrap_or_else(|| panic!("no leaders in {caused:?}"))
}

/// That a drill's timeline went up: `…, timeline X -> Y, …` with Y > X.
fn assert_timeline_went_up(caused: &str) {
    let numbers = caused
        .split(", ")
        .find_map(|part| part.strip_prefix("timeline "))
        .and_then(|t| t.split_once(" -> "))
        .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
    assert!(
        matches!(numbers, Some((before, after)) if after > before),
        "the timeline did not go up: {caused:?}"
    );
}

/// This crate's directory: `cargo test` sets `CARGO_MANIFEST_DIR` when it runs the test;
/// the value compiled in names the checkout that built it, which a target directory
/// shared by several checkouts may have kept.
fn manifest_dir() -> std::ffi::OsString {
    std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into())
}
