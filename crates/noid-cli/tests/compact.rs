//! `noid compact`: an embedded minter's tables rewritten into one level, every key and
//! value as it was.

use crate::util::*;

/// Bindings `i` in `from..to` as `noid -` lines: ids in no key order, as a load's are.
fn binds(from: u32, to: u32) -> String {
    (from..to)
        .map(|i| {
            let id = format!("ark:/99999/b{:08x}", i.wrapping_mul(2_654_435_761));
            format!("bind set {id} _t https://example.org/{i}\n")
        })
        .collect()
}

/// Six processes that write leave six level-0 tables (each flushes its writes as it
/// closes, and RocksDB compacts level 0 only from eight); one large enough is ingested
/// as a table of its own. `compact` leaves one table in one level; `noid export`, which
/// lists every key and value, is the same byte for byte, and the minter works on.
#[test]
fn compact_puts_every_table_in_one_level_and_changes_no_key() {
    let d = Dir::minter(&[]);
    d.noid_stdin(&["-"], binds(0, 12_000).as_bytes()).ok();
    for i in 0..5 {
        d.noid(&[
            "bind",
            "set",
            &format!("small{i}"),
            "_t",
            "https://example.org/s",
        ])
        .ok();
    }
    let export = d.noid(&["export"]).ok().to_string();
    assert!(
        export.contains("https://example.org/11999"),
        "the load is exported"
    );

    let r = d.noid(&["compact"]);
    let out = r.ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[3], "index and filters: whole", "the default: {out}");
    assert!(
        lines[0].starts_with("compacted in ") && lines[0].ends_with(" s"),
        "{out}"
    );
    // Before: the ingested load and the five small writes' flushes, all in level 0 (at
    // least six tables; dbcreate's own flush may add one).
    let before = lines[1].strip_prefix("before: ").expect(out);
    let level0: usize = before
        .split("(level 0: ")
        .nth(1)
        .and_then(|s| s.split([',', ')']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no level 0 before: {out}"));
    assert!(level0 >= 6, "{out}");
    // After: one table in the last level (RocksDB's 7 levels, numbered from 0).
    let after = lines[2].strip_prefix("after:  ").expect(out);
    assert!(
        after.starts_with("1 table file, ") && after.ends_with(" bytes (level 6: 1)"),
        "{out}"
    );

    assert_eq!(
        d.noid(&["export"]).ok(),
        export,
        "compaction changed no key"
    );

    // Compacting again rewrites the last level's table (a new file number), which is
    // how a table written by an earlier version takes this version's table options.
    let tables = || {
        let mut names: Vec<String> = std::fs::read_dir(d.path().join("NOID/noid.rocksdb"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sst"))
            .collect();
        names.sort();
        names
    };
    let first = tables();
    assert_eq!(first.len(), 1, "{first:?}");
    let again = d.noid(&["compact"]).ok().to_string();
    assert!(
        again.contains("\nbefore: 1 table file, ") && again.contains("\nafter:  1 table file, "),
        "{again}"
    );
    let second = tables();
    assert_eq!(second.len(), 1, "{second:?}");
    assert_ne!(first, second, "the table was rewritten");
    assert_eq!(d.noid(&["export"]).ok(), export, "nor did the rewrite");

    assert_eq!(
        d.noid(&["get", "ark:/99999/b00000000", "_t"]).ok(),
        "https://example.org/0\n"
    );
    d.noid(&["bind", "set", "after", "_t", "https://example.org/a"])
        .ok();
    assert_eq!(
        d.noid(&["get", "after", "_t"]).ok(),
        "https://example.org/a\n"
    );
    d.assert_check_clean();
}

/// Bad input: an argument, or a directory with no minter; the store is unchanged.
#[test]
fn compact_refuses_arguments_and_a_missing_minter() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "set", "x", "_t", "https://example.org/x"])
        .ok();
    let export = d.noid(&["export"]).ok().to_string();
    let r = d.noid(&["compact", "now"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("unexpected argument 'now'"),
        "{}",
        r.stderr
    );
    assert_eq!(d.noid(&["export"]).ok(), export);

    let empty = Dir::new();
    let r = empty.noid(&["compact"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.starts_with("error: no database ("), "{}", r.stderr);
    assert!(r.stderr.contains("-- use dbcreate?"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
}

/// `--index pieces` rewrites the tables with their index and filters in pieces and keeps
/// the setting, which a later `compact` without it follows; `--index whole` turns it
/// back. Every key reads the same throughout.
#[test]
fn compact_index_pieces_is_kept_until_whole_is_asked() {
    let d = Dir::minter(&[]);
    d.noid_stdin(&["-"], binds(0, 3_000).as_bytes()).ok();
    let export = d.noid(&["export"]).ok().to_string();
    let setting = || std::fs::read_to_string(d.path().join("NOID/table-index")).ok();
    assert_eq!(setting(), None, "no setting until one is asked for");

    let last_line = |args: &[&str]| {
        let out = d.noid(args).ok().to_string();
        out.lines().last().unwrap_or_default().to_string()
    };
    assert_eq!(
        last_line(&["compact", "--index", "pieces"]),
        "index and filters: in pieces"
    );
    assert_eq!(setting().as_deref(), Some("pieces\n"));
    assert_eq!(d.noid(&["export"]).ok(), export);
    d.noid(&["bind", "set", "later", "_t", "https://example.org/l"])
        .ok();
    assert_eq!(last_line(&["compact"]), "index and filters: in pieces");
    assert_eq!(
        d.noid(&["get", "ark:/99999/b00000000", "_t"]).ok(),
        "https://example.org/0\n"
    );
    assert_eq!(
        d.noid(&["get", "later", "_t"]).ok(),
        "https://example.org/l\n"
    );

    assert_eq!(
        last_line(&["compact", "--index", "whole"]),
        "index and filters: whole"
    );
    assert_eq!(setting().as_deref(), Some("whole\n"));
    d.assert_check_clean();
}

/// A layout that is not one, and a setting file that names none: refused, the store and
/// the setting unchanged.
#[test]
fn compact_refuses_an_unknown_index_layout() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "set", "x", "_t", "https://example.org/x"])
        .ok();
    let export = d.noid(&["export"]).ok().to_string();
    let r = d.noid(&["compact", "--index", "halves"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("invalid value 'halves' for '--index <LAYOUT>'")
            && r.stderr.contains("[possible values: whole, pieces]"),
        "{}",
        r.stderr
    );
    assert!(!d.path().join("NOID/table-index").exists());

    std::fs::write(d.path().join("NOID/table-index"), "partitioned\n").unwrap();
    let r = d.noid(&["compact"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("NOID/table-index: \"partitioned\" is not a table layout (whole or pieces)"),
        "{}",
        r.stderr
    );
    assert_eq!(d.noid(&["export"]).ok(), export);
}
