//! scripts/bench-scale.sh, small (docs/SCALING.md, "Capacity on one machine"): the
//! N2T-like data is the same on every machine, and the script loads it at two sizes
//! (100,000 and 200,000 identifiers), measures every figure at both and computes every
//! ratio. The 1M to 50M runs belong to the benchmark, not here; no speed is asserted.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `scripts/n2t-data.py ARGS`: its standard output.
fn data(args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(repo().join("scripts/n2t-data.py"))
        .args(args)
        .output()
        .expect("run python3 scripts/n2t-data.py");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn the_data_is_the_same_everywhere() {
    // The first identifiers' lines, as the generator made them when the benchmark's
    // figures were measured (identifier 3 has a suffixed child; 7 has two targets).
    let lines = data(&["binds", "0", "8"]);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 8 * 4 + 1, "{lines:#?}");
    assert_eq!(
        lines[..4],
        [
            "bind set ark:/10178/f500000000 _t https://repository651.example.org/objects/10178/f500000000",
            "bind set ark:/10178/f500000000 who \"Jensen, H.\"",
            "bind set ark:/10178/f500000000 what \"notes map no. 0\"",
            "bind set ark:/10178/f500000000 when 1996",
        ]
    );
    assert_eq!(
        lines[16],
        "bind set ark:/10356/j00fc7177v/s0 _t https://repository701.example.org/objects/10356/j00fc7177v/part0"
    );
    assert_eq!(
        lines[29],
        ":hx ark:/10356/j0126w2wmb.set _t https^3a//repository52.example.org/objects/10356/j0126w2wmb^0ahttps^3a//mirror.example.net/10356/j0126w2wmb"
    );
    // 3,500 rule records: 1,000 NAANs and 2,500 shoulders.
    let registry = data(&["registry"]);
    let prefixes: Vec<&str> = registry
        .lines()
        .filter_map(|l| l.strip_prefix("prefix: ark:/"))
        .collect();
    assert_eq!(prefixes.len(), 3500);
    assert_eq!(prefixes.iter().filter(|p| !p.contains('/')).count(), 1000);
    assert_eq!(
        data(&["requests", "chop", "1000", "2"]),
        "ark:/10178/f5ms5wk64q/a/b.c/d.resolve\nark:/37056/c9mcfkdct5/a/b.c/d.resolve\n"
    );
}

/// The labels of the table's rows, in order, as docs/SCALING.md quotes them.
const ROWS: [&str; 17] = [
    "bulk load through `noid -`, identifiers/s (whole load)",
    "bulk load, identifiers/s of the last chunk of 100000",
    "noidr hits pipelined, answers/s",
    "noidr 4-level chop-backs pipelined, answers/s",
    "noidr hits pipelined, noidr's CPU µs per answer",
    "noidr chop-backs pipelined, noidr's CPU µs per answer",
    "noidr hits one at a time, p99 µs",
    "noidr chop-backs one at a time, p99 µs",
    "one `noid get` process, ms (median of 21)",
    "`noid check`, s per million identifiers",
    "`noid export`, s per million identifiers",
    "noidr peak resident memory, MB",
    "`noid compact --index pieces` after the load, s per million identifiers",
    "store on disk (`NOID/`), MB",
    "store bytes per identifier",
    "input (`noid -` lines) bytes per identifier",
    "store bytes per input byte (absolute, each size)",
];

#[test]
fn bench_scale_measures_every_figure_at_two_sizes() {
    let bin = noidr_bin()
        .parent()
        .expect("the binaries' directory")
        .to_path_buf();
    let noid = noid_bin();
    assert!(
        bin.join("examples/bench_noidr").is_file(),
        "the example bench_noidr is missing (cargo test builds the examples)"
    );
    assert_eq!(noid.parent(), Some(bin.as_path()));
    let out = Command::new(repo().join("scripts/bench-scale.sh"))
        .args([
            "--sizes",
            "100000,200000",
            "--rounds",
            "1",
            "--requests",
            "20000",
            "--compact",
            "pieces",
        ])
        .arg("--bin")
        .arg(&bin)
        .output()
        .expect("run scripts/bench-scale.sh");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    // The growing store was loaded in two runs of `noid -`, and the reference loaded
    // again after the second: the log says so.
    assert!(
        stderr.contains("bench-scale: loaded 0..100000 in "),
        "{stderr}"
    );
    assert!(
        stderr.contains("bench-scale: loaded 100000..200000 in "),
        "{stderr}"
    );
    assert!(
        stderr.contains("bench-scale: reference load of 100000: "),
        "{stderr}"
    );
    // Both stores were compacted into pieces before the reads (and noid compact said
    // so, which the script checks).
    for size in ["100000", "200000"] {
        assert!(
            stderr.contains(&format!(
                "bench-scale: compacted the store at {size} identifiers, index and filters pieces ("
            )),
            "{stderr}"
        );
    }

    let table: Vec<&str> = stdout.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(
        table[0], "| measure | 100000 | 200000 | goal | met |",
        "{stdout}"
    );
    assert_eq!(table.len(), 1 + ROWS.len(), "{stdout}");
    let number = |s: &str| s.parse::<f64>().is_ok_and(|v| v > 0.0);
    for (row, label) in table[1..].iter().zip(ROWS) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells[0], label, "{stdout}");
        // The smallest size's value, then the larger one's value and its ratio.
        assert!(number(cells[1]), "{row}");
        let larger = if label.ends_with("(absolute, each size)") {
            assert!(number(cells[2]), "{row}");
            continue;
        } else {
            cells[2]
        };
        let (value, ratio) = larger
            .strip_suffix(')')
            .and_then(|c| c.split_once(" ("))
            .unwrap_or_else(|| panic!("no ratio in {row}"));
        assert!(number(value) && number(ratio), "{row}");
        assert!(["yes", "no", ""].contains(&cells[4]), "{row}");
    }
    // The input is the generator's, byte for byte: 25,164,076 bytes for the first
    // 100,000 identifiers (`n2t-data.py binds 0 100000 | wc -c`), 251.6 per identifier.
    let input = table[16].split(" | ").nth(1).map(str::trim);
    assert_eq!(input, Some("251.6"), "{stdout}");
}
