//! ARCHITECTURE.md's "Architecture Invariant" lines, checked against `cargo metadata`
//! (the resolved dependency graph of this platform) and the crates' sources.
//!
//! An invariant that is a goal rather than a fact today is checked against today's exact
//! list of exceptions, so that the test fails both when a new exception appears and when
//! an old one goes away (then the list loses a line).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

mod imports;

/// The packages of the resolved graph (workspace and external), by name, each with the
/// names of its normal (not dev, not build) dependencies.
struct Graph {
    members: BTreeSet<String>,
    deps: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn load() -> Graph {
        let host = host_triple();
        let out = cargo(&[
            "metadata",
            "--offline",
            "--format-version",
            "1",
            "--filter-platform",
            &host,
        ]);
        let meta: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let name_of: BTreeMap<&str, &str> = meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
            .collect();
        let members = meta["workspace_members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| name_of[id.as_str().unwrap()].to_string())
            .collect();
        let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for node in meta["resolve"]["nodes"].as_array().unwrap() {
            let normal = node["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].is_null())
                })
                .map(|d| name_of[d["pkg"].as_str().unwrap()].to_string());
            deps.entry(name_of[node["id"].as_str().unwrap()].to_string())
                .or_default()
                .extend(normal);
        }
        Graph { members, deps }
    }

    /// A package's direct normal dependencies.
    fn direct(&self, package: &str) -> BTreeSet<String> {
        self.deps.get(package).cloned().unwrap_or_default()
    }

    /// Every package `package` links, directly or not, never passing through `avoid`.
    fn reach(&self, package: &str, avoid: &[&str]) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![package.to_string()];
        while let Some(p) = todo.pop() {
            for d in self.direct(&p) {
                if !avoid.contains(&d.as_str()) && seen.insert(d.clone()) {
                    todo.push(d);
                }
            }
        }
        seen
    }

    /// The workspace crates that depend on any of `crates` directly.
    fn direct_users(&self, crates: &[&str]) -> Vec<String> {
        self.members
            .iter()
            .filter(|m| crates.iter().any(|c| self.direct(m).contains(*c)))
            .cloned()
            .collect()
    }

    /// The workspace crates that link `package`, directly or not, never through `avoid`.
    fn linking(&self, package: &str, avoid: &[&str]) -> Vec<String> {
        self.members
            .iter()
            .filter(|m| self.reach(m, avoid).contains(package))
            .cloned()
            .collect()
    }
}

/// The crates of the storage engines' client libraries.
const STORAGE_ENGINES: &[&str] = &["rocksdb", "librocksdb-sys", "postgres", "tokio-postgres"];

/// The crates of the async HTTP stack.
const ASYNC_HTTP: &[&str] = &[
    "tokio",
    "tokio-util",
    "hyper",
    "hyper-util",
    "http-body-util",
    "futures-util",
];

#[test]
fn only_the_storage_crate_depends_on_rocksdb_or_postgres() {
    let graph = Graph::load();
    assert_eq!(graph.direct_users(STORAGE_ENGINES), ["noid-store"]);
}

/// The storage engines' modules: the only sources that may name each client library.
const ENGINE_MODULES: &[(&str, &str)] = &[
    ("rocksdb", "crates/noid-store/src/rocks/"),
    ("postgres", "crates/noid-store/src/pg/"),
    ("tokio_postgres", "crates/noid-store/src/pg/"),
];

#[test]
fn only_the_storage_engines_name_rocksdb_or_postgres_in_their_sources() {
    let mut named = Vec::new();
    let mut engines_name = BTreeSet::new();
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        let relative = file
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            for (library, module) in ENGINE_MODULES {
                let words = [format!("use {library}"), format!("{library}::")];
                if !words.iter().any(|w| names_crate(code, w)) {
                    continue;
                }
                if relative.starts_with(module) {
                    engines_name.insert(*library);
                } else {
                    named.push(format!("{relative}:{}: {library}", n + 1));
                }
            }
        }
    }
    assert!(
        named.is_empty(),
        "outside the storage engines' modules:\n{}",
        named.join("\n")
    );
    // The scan sees the engines themselves, so a renamed module fails here.
    assert_eq!(engines_name, BTreeSet::from(["postgres", "rocksdb"]));
}

/// Whether `code` holds `word` as the start of a path (not `tokio_postgres::` nor
/// `noid_postgres::`).
fn names_crate(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(i, _)| {
        !code[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn only_the_http_adapter_depends_on_tokio_or_hyper() {
    let graph = Graph::load();
    // The API's server, the link checker's client beside it, and noid-archive's HTTP
    // client (reqwest, on tokio and hyper), which asks archives.
    assert_eq!(
        graph.direct_users(ASYNC_HTTP),
        ["noid-api", "noid-archive", "noid-links"]
    );
    // Through the workspace's own crates: those and the binary that links them
    // (noid-cli's serve.rs and links/, behind its `server` and `links` features).
    assert_eq!(
        graph.linking("hyper", &[]),
        ["noid-api", "noid-archive", "noid-cli", "noid-links"]
    );
    assert_eq!(
        graph.linking("tokio", &["postgres", "tokio-postgres"]),
        ["noid-api", "noid-archive", "noid-cli", "noid-links"]
    );
    // The synchronous `postgres` client runs tokio inside; it is reached only through
    // the `postgres` features, which `cargo metadata` resolves as on for the whole
    // workspace. `without_postgres_nothing_below_the_http_adapter_links_tokio` shows
    // the builds with them off.
    assert_eq!(
        graph.linking("tokio", &[]),
        [
            "noid-api",
            "noid-archive",
            "noid-binder",
            "noid-cli",
            "noid-embed",
            "noid-links",
            "noid-search",
            "noid-store",
            "noidr"
        ]
    );
}

/// The PostgreSQL client only through features: no member asks for noid-store's
/// `postgres` (or `testing`) in its `[dependencies]`; the programs forward a `postgres`
/// feature of their own, on by default.
#[test]
fn postgres_is_reached_only_through_features() {
    let meta = metadata_no_deps();
    let mut asked = Vec::new();
    let mut forwarded = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        for d in p["dependencies"].as_array().unwrap() {
            let normal = d["kind"].is_null();
            let features: Vec<&str> = d["features"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect();
            if normal && d["name"] == "noid-store" && !features.is_empty() {
                asked.push(format!("{name} asks noid-store for {features:?}"));
            }
            if normal && ["postgres", "tokio-postgres"].contains(&d["name"].as_str().unwrap()) {
                assert!(
                    d["optional"].as_bool().unwrap(),
                    "{name}'s postgres is optional"
                );
            }
        }
        if let Some(f) = p["features"]["postgres"].as_array() {
            let default = p["features"]["default"]
                .as_array()
                .is_some_and(|d| d.iter().any(|f| f == "postgres"));
            forwarded.insert(name.to_string(), (f.clone(), default));
        }
    }
    assert_eq!(asked, Vec::<String>::new());
    let to_store = serde_json::json!(["noid-store/postgres"]);
    assert_eq!(
        forwarded,
        BTreeMap::from([
            (
                "noid-cli".to_string(),
                (to_store.as_array().unwrap().clone(), true)
            ),
            (
                "noidr".to_string(),
                (to_store.as_array().unwrap().clone(), true)
            ),
            (
                "noid-store".to_string(),
                (
                    serde_json::json!(["dep:postgres", "dep:md-5"])
                        .as_array()
                        .unwrap()
                        .clone(),
                    false
                )
            ),
        ])
    );
}

/// What `cargo tree` resolves for one package with the given feature flags: the names of
/// the packages it links (normal dependencies only).
fn tree(package: &str, flags: &[&str]) -> BTreeSet<String> {
    let host = host_triple();
    let mut args = vec![
        "tree",
        "--offline",
        "-e",
        "normal",
        "--prefix",
        "none",
        "-p",
        package,
    ];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--target", &host]);
    String::from_utf8(cargo(&args))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn without_postgres_nothing_below_the_http_adapter_links_tokio() {
    let forbidden = ["postgres", "tokio-postgres", "tokio", "hyper"];
    for (package, flags) in [
        ("noidr", &["--no-default-features"][..]),
        ("noid-embed", &["--no-default-features"][..]),
        ("noid-cli", &["--no-default-features"][..]),
        ("noid-store", &[][..]),
    ] {
        let linked = tree(package, flags);
        assert!(linked.contains("rocksdb"), "{package}: the tree is read");
        for f in forbidden {
            assert!(!linked.contains(f), "{package} {flags:?} links {f}");
        }
    }
    // The default noidr still follows PostgreSQL minters.
    assert!(tree("noidr", &[]).contains("postgres"));
}

#[test]
fn the_foundation_has_no_regex_and_no_io_dependency() {
    let graph = Graph::load();
    assert_eq!(graph.direct("noid-core"), set(&["memchr"]));
    assert_eq!(graph.direct("noid-template"), set(&["siphasher"]));
    for foundation in ["noid-core", "noid-template"] {
        let linked = graph.reach(foundation, &[]);
        for forbidden in ["regex", "libc", "rocksdb", "postgres", "tokio", "mio"] {
            assert!(
                !linked.contains(forbidden),
                "{foundation} links {forbidden}"
            );
        }
    }
}

#[test]
fn the_domain_crates_do_no_io() {
    let domain = [
        "noid-core",
        "noid-template",
        "noid-minter",
        "noid-resolve",
        "noid-egg",
        "noid-migrate",
    ];
    let mut found = Vec::new();
    for file in sources() {
        let in_domain = domain
            .iter()
            .any(|c| file.starts_with(root().join("crates").join(c).join("src")));
        if !in_domain {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for io in ["std::fs", "std::net", "std::process", "std::io::stdin"] {
            if text.contains(io) {
                found.push(format!("{} uses {io}", file.display()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_foundation_starts_no_thread_and_does_no_io() {
    // The watchdog (a thread) and the other pieces only servers need are noid-serving's.
    let mut found = Vec::new();
    let mut files = 0;
    for file in sources() {
        if !file.starts_with(root().join("crates/noid-core/src")) {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        for word in [
            "std::thread",
            "thread::",
            "std::fs",
            "std::net",
            "std::process",
        ] {
            if text.contains(word) {
                found.push(format!("{} names {word}", file.display()));
            }
        }
    }
    assert!(files >= 10, "noid-core's sources are found");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_minter_has_no_regex() {
    // `:idmap` patterns are checked by the caller (`BindArgs::check_pattern`), so the
    // minter reaches no regular expression engine (issue 40, item 5).
    let graph = Graph::load();
    let through: Vec<String> = graph
        .direct("noid-minter")
        .into_iter()
        .filter(|d| d == "regex" || graph.reach(d, &[]).contains("regex"))
        .collect();
    assert_eq!(through, Vec::<String>::new());
}

#[test]
fn clap_and_anyhow_only_in_the_programs() {
    let graph = Graph::load();
    assert_eq!(
        graph.direct_users(&["clap"]),
        ["noid-cli", "noid-package", "noidr"]
    );
    assert_eq!(graph.direct_users(&["anyhow"]), ["noidr"]);
}

/// `cargo metadata --no-deps`: the members' manifests as written.
fn metadata_no_deps() -> serde_json::Value {
    let out = cargo(&[
        "metadata",
        "--offline",
        "--no-deps",
        "--format-version",
        "1",
    ]);
    serde_json::from_slice(&out).unwrap()
}

/// `cargo ARGS --manifest-path` the workspace's: its standard output, the command having
/// succeeded (its standard error is the failure message otherwise).
fn cargo(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn no_circle_of_three_or_more_files_inside_a_crate() {
    // What counts as an import is in `imports/mod.rs`: `use` and paths, through
    // re-exports; a parent's `mod x;` and `pub use x::Y` are declarations, not imports.
    let mut checked = Vec::new();
    let mut circles = Vec::new();
    for krate in workspace_crates() {
        let src = root().join("crates").join(&krate).join("src");
        let graph = imports::FileGraph::of_crate(&src);
        assert!(!graph.imports.is_empty(), "{krate}'s files are read");
        for circle in graph.circles(3) {
            let edges: Vec<String> = circle
                .iter()
                .flat_map(|from| {
                    graph.imports[from]
                        .iter()
                        .filter(|to| circle.contains(to))
                        .map(move |to| format!("{from} -> {to}"))
                })
                .collect();
            circles.push(format!(
                "{krate}: {}\n  ({})",
                circle.join(" "),
                edges.join(", ")
            ));
        }
        checked.push(krate);
    }
    // Every crate is read; a new crate is checked as it comes.
    println!("checked: {}", checked.join(" "));
    for krate in [
        "noid-api",
        "noid-binder",
        "noid-cli",
        "noid-egg",
        "noid-http",
        "noid-migrate",
        "noid-resolve",
        "noidr",
    ] {
        assert!(checked.iter().any(|c| c == krate), "{krate} is checked");
    }
    assert!(
        circles.is_empty(),
        "files importing each other in a circle:\n{}",
        circles.join("\n")
    );
}

/// The names of the directories under `crates/`, sorted.
fn workspace_crates() -> Vec<String> {
    let mut crates: Vec<String> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    crates.sort();
    crates
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// Every `.rs` file under a crate's `src/` (test directories excluded: tests may set up
/// a PostgreSQL server with the client directly).
fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root().join("crates")).unwrap() {
        let mut todo = vec![krate.unwrap().path().join("src")];
        while let Some(dir) = todo.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    todo.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "the crates' sources are found");
    files
}

/// The repository's root: `cargo test` sets `CARGO_MANIFEST_DIR` when it runs the test
/// (the value compiled in may name another checkout sharing the target directory).
fn root() -> PathBuf {
    let dir =
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
    Path::new(&dir).join("../..")
}

/// The platform the tests run on, so that the resolved graph holds only its packages
/// (others are not in the offline cache).
fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc -vV");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host")
        .to_string()
}

#[test]
fn the_map_stays_a_map_and_names_these_tests() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let lines = text.lines().count();
    assert!(lines <= 300, "ARCHITECTURE.md has {lines} lines, over 300");
    let tests =
        std::fs::read_to_string(root().join("crates/noid-package/tests/invariants.rs")).unwrap();
    let defined: BTreeSet<&str> = tests
        .split("#[test]\nfn ")
        .skip(1)
        .map(|rest| rest.split('(').next().unwrap())
        .collect();
    for test in &defined {
        assert!(
            text.contains(&format!("`{test}`")) || text.contains(&format!("::{test}`")),
            "ARCHITECTURE.md does not say what {test} checks"
        );
    }
    for cited in text.split("tests/invariants.rs::").skip(1) {
        let name = cited.split('`').next().unwrap();
        assert!(
            defined.contains(name),
            "ARCHITECTURE.md cites {name}, which is no test"
        );
    }
}
