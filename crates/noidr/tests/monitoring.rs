//! The shipped monitoring (`deploy/grafana/noid.json`, `deploy/prometheus/`) against
//! the real programs: every metric and label that the dashboard and the alert rules
//! use is exported by a real `noidr --http` (following a PostgreSQL minter, with a
//! registry whose provider is probed) or by a real `noid serve` (after a mint and a
//! bind), read from their `GET /metrics`, so that a metric renamed in the code fails
//! here. The rules pass `promtool check rules` and their unit tests (`promtool test
//! rules`, each alert on a series that fires it and one that does not); the example
//! configuration passes `promtool check config`. The dashboard has the structure
//! Grafana imports, its data source chosen at import time (a variable), never a
//! data source's UID written in it. promtool is Debian's `prometheus` package
//! (scripts/setup.sh installs it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use noid_store::pg::testing::TestServer;
use noid_store::pg::{Location, PgWriter};
use noid_store::{Op, Store};
use regex::Regex;
use serde_json::Value;

use crate::util::{noid_bin, noidr_bin, Http};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(&manifest_dir()).join("../..")
}

/// Sample names (`name_bucket` for a histogram's buckets) and the labels each is
/// exported with, from a text exposition.
type Exported = BTreeMap<String, BTreeSet<String>>;

fn exported(text: &str) -> Exported {
    let sample = Regex::new(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$").unwrap();
    let label = Regex::new(r#"([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*""#).unwrap();
    let mut out = Exported::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let c = sample
            .captures(line)
            .unwrap_or_else(|| panic!("not a sample line: {line:?}"));
        let labels = out.entry(c[1].to_string()).or_default();
        for l in label.captures_iter(c.get(2).map_or("", |m| m.as_str())) {
            labels.insert(l[1].to_string());
        }
    }
    out
}

/// `curl` a URL: the body of a `200`.
fn fetch(url: &str) -> String {
    let out = Command::new("curl")
        .args(["-s", "-f", url])
        .output()
        .expect("curl");
    assert!(out.status.success(), "{url}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Polls `cond` until it holds (2 minutes at most: a bound for a hung server).
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(120), "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `noidr --http` following a PostgreSQL minter, with a registry whose provider's probe
/// fails: its metrics once every family has shown (the follower's position, a
/// catch-up with a commit made after the start, the provider's health).
fn noidr_metrics() -> Exported {
    let server = TestServer::start();
    let url = server.create_database("monitoring");
    let w = PgWriter::create(&Location::new(&url, "m").unwrap(), Duration::from_secs(10)).unwrap();
    let put = |k: &str| Op::Put(k.as_bytes().to_vec(), b"https://example.org/".to_vec());
    w.commit_all(&mut vec![put("99999/a\t_t")]).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let registry = tmp.path().join("registry");
    std::fs::write(
        &registry,
        "prefix: pdb:\nprovider: rcsb https://www.rcsb.org/structure/$id\n\
         probe: rcsb http://127.0.0.1:1/health\n",
    )
    .unwrap();
    let mut cmd = Command::new(noidr_bin());
    cmd.args(["--follow", &url, "--minter", "m", "--cache"])
        .arg(tmp.path().join("copy"))
        .args(["--poll", "0.2", "--probe-interval", "0.2", "--registry"])
        .arg(&registry);
    let noidr = Http::start_logging(cmd, "127.0.0.1:0", std::io::sink());
    let metrics = format!("http://{}/metrics", noidr.addr);
    w.commit_all(&mut vec![put("99999/b\t_t")]).unwrap();
    eventually("every noidr family", || {
        let m = fetch(&metrics);
        m.contains("noidr_store_last_write_age_seconds ")
            && m.contains("noidr_follow_lag_seconds ")
            && m.contains("noidr_provider_up{prefix=\"pdb:\",provider=\"rcsb\"} 0\n")
    });
    exported(&fetch(&metrics))
}

/// `noid serve` with a populator that has a binder and a minter, after a mint and a
/// bind: its metrics.
fn api_metrics() -> Exported {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path();
    let dbcreate = |dir: PathBuf, args: &[&str]| {
        let st = Command::new(noid_bin())
            .arg("-f")
            .arg(dir)
            .arg("dbcreate")
            .args(args)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
    };
    dbcreate(r.join("binder"), &[]);
    dbcreate(r.join("minters/ark/99999/fk4"), &["fk4.reedeedk"]);
    let config = format!(
        "[populator.sam]\nopen = true\nbinder = \"{0}/binder\"\nminters = \"{0}/minters\"\n",
        r.display()
    );
    std::fs::write(r.join("api.toml"), config).unwrap();
    let (mut child, port) = crate::serve::start(&noid_bin(), &r.join("api.toml"));
    let base = format!("http://127.0.0.1:{port}");
    let minted = fetch(&format!("{base}/a/sam/m/ark/99999/fk4?mint%202"));
    assert!(minted.ends_with("nog-status: 0\n"), "{minted}");
    let bound = fetch(&format!("{base}/a/sam/b?fk4x.set%20_t%20https://e.org/x"));
    assert!(bound.ends_with("egg-status: 0\n"), "{bound}");
    let text = fetch(&format!("{base}/metrics"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        text.contains("noid_api_minted_total{populator=\"sam\"} 2\n"),
        "{text}"
    );
    assert!(
        text.contains("noid_api_binds_total{populator=\"sam\"} 1\n"),
        "{text}"
    );
    assert!(
        text.contains("noid_api_requests_total{populator=\"sam\",code=\"200\"} 2\n"),
        "{text}"
    );
    exported(&text)
}

/// A PromQL expression (or a Grafana legend or an alert's annotation beside it): the
/// metric names it names, and the labels it names.
struct Uses {
    metrics: BTreeSet<String>,
    labels: BTreeSet<String>,
}

/// Keywords, functions and aggregations that look like names in PromQL.
const PROMQL_WORDS: &[&str] = &[
    "sum",
    "max",
    "min",
    "avg",
    "count",
    "by",
    "without",
    "rate",
    "increase",
    "histogram_quantile",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "offset",
    "bool",
    "le",
];

fn uses(expr: &str, around: &[&str]) -> Uses {
    // Strings, durations and Grafana's $variables are not names.
    let quoted = Regex::new(r#""(?:[^"\\]|\\.)*""#).unwrap();
    let bare = quoted.replace_all(expr, "\"\"");
    let bare = Regex::new(r"\[[^\]]*\]|\$\w+")
        .unwrap()
        .replace_all(&bare, "");
    let name = Regex::new(r"[a-zA-Z_:][a-zA-Z0-9_:]*").unwrap();
    let matcher = Regex::new(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)").unwrap();
    let grouping = Regex::new(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)").unwrap();
    let mut labels: BTreeSet<String> = BTreeSet::new();
    let mut selectors = String::new();
    for braces in Regex::new(r"\{[^}]*\}").unwrap().find_iter(&bare) {
        selectors.push_str(braces.as_str());
        labels.extend(
            matcher
                .captures_iter(braces.as_str())
                .map(|c| c[1].to_string()),
        );
    }
    for g in grouping.captures_iter(&bare) {
        labels.extend(
            g[1].split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
    }
    let outside = Regex::new(r"\{[^}]*\}").unwrap().replace_all(&bare, "");
    let outside = grouping.replace_all(&outside, "");
    let metrics = name
        .find_iter(&outside)
        .map(|m| m.as_str().to_string())
        .filter(|n| !PROMQL_WORDS.contains(&n.as_str()))
        .filter(|n| !n.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .collect();
    let around_label =
        Regex::new(r"\{\{\s*([a-zA-Z_]\w*)\s*\}\}|\$labels\.([a-zA-Z_]\w*)").unwrap();
    for text in around {
        for c in around_label.captures_iter(text) {
            labels.insert(c.get(1).or(c.get(2)).unwrap().as_str().to_string());
        }
    }
    Uses { metrics, labels }
}

/// Every metric `expr` names is exported (`up`, Prometheus's own, aside), and every
/// label it names is one of those metrics' labels, `le` of a histogram's buckets, or
/// a label Prometheus adds to every target (`job`, `instance`).
fn check_expr(what: &str, expr: &str, around: &[&str], noidr: &Exported, api: &Exported) {
    let u = uses(expr, around);
    assert!(!u.metrics.is_empty(), "{what}: no metric in {expr:?}");
    let mut have: BTreeSet<String> = ["job", "instance"].map(String::from).into();
    for m in &u.metrics {
        if m == "up" {
            continue;
        }
        let from = if m.starts_with("noid_api_") {
            api
        } else {
            noidr
        };
        let labels = from.get(m).unwrap_or_else(|| {
            panic!(
                "{what}: {m} is not exported (expression {expr:?}); exported: {:?}",
                from.keys()
            )
        });
        have.extend(labels.iter().cloned());
    }
    for l in &u.labels {
        assert!(
            have.contains(l),
            "{what}: label {l:?} is not on {:?} (expression {expr:?})",
            u.metrics
        );
    }
}

/// Every `"uid"` in the dashboard is the data source variable, except the dashboard's
/// own; every panel and query names the variable as its data source.
fn check_dashboard_structure(d: &Value) {
    assert!(d["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(d["uid"].is_string() && d["schemaVersion"].as_u64().unwrap() >= 36);
    let vars = d["templating"]["list"].as_array().expect("templating.list");
    let ds = vars
        .iter()
        .find(|v| v["type"] == "datasource")
        .expect("a data source variable");
    assert_eq!(
        (&ds["name"], &ds["query"]),
        (&"datasource".into(), &"prometheus".into())
    );
    let variable = serde_json::json!({"type": "prometheus", "uid": "${datasource}"});
    let mut uids = Vec::new();
    fn walk<'a>(v: &'a Value, key: &str, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    if k == key {
                        out.push(x);
                    }
                    walk(x, key, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
            _ => {}
        }
    }
    for (k, x) in d.as_object().unwrap() {
        if k != "uid" {
            walk(x, "uid", &mut uids);
        }
    }
    assert!(!uids.is_empty());
    for uid in uids {
        assert_eq!(
            uid, "${datasource}",
            "a data source UID written in the dashboard"
        );
    }
    let panels = d["panels"].as_array().expect("panels");
    let mut ids = BTreeSet::new();
    let mut graphs = 0;
    for p in panels {
        assert!(
            ids.insert(p["id"].as_u64().expect("a panel id")),
            "panel ids are unique"
        );
        let g = &p["gridPos"];
        for k in ["h", "w", "x", "y"] {
            assert!(g[k].is_u64(), "gridPos.{k} of {p}");
        }
        assert!(
            g["x"].as_u64().unwrap() + g["w"].as_u64().unwrap() <= 24,
            "{p}"
        );
        if p["type"] == "row" {
            continue;
        }
        graphs += 1;
        assert!(p["title"].as_str().is_some_and(|t| !t.is_empty()), "{p}");
        assert_eq!(p["datasource"], variable, "{}", p["title"]);
        let targets = p["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{}", p["title"]);
        for t in targets {
            assert_eq!(t["datasource"], variable, "{}", p["title"]);
            assert!(t["refId"].is_string() && t["expr"].is_string(), "{t}");
        }
    }
    assert!(graphs >= 12, "{graphs} panels");
}

/// The rules as JSON (read by Debian's python3-yaml).
fn rules(path: &Path) -> Value {
    let out = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
        ])
        .arg(path)
        .output()
        .expect("python3");
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn promtool(args: &[&str], dir: &Path) {
    let out = Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("promtool ({e}): install Debian's prometheus (scripts/setup.sh)")
        });
    assert!(
        out.status.success(),
        "promtool {args:?}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_rules_pass_promtool_and_their_unit_tests() {
    let dir = root().join("deploy/prometheus");
    promtool(&["check", "rules", "noid-alerts.yml"], &dir);
    promtool(&["test", "rules", "noid-alerts.test.yml"], &dir);
    promtool(&["check", "config", "prometheus.yml"], &dir);
    // Every alert has a unit test, and its runbook a section in docs/MONITORING.md.
    let tests = std::fs::read_to_string(dir.join("noid-alerts.test.yml")).unwrap();
    let doc = std::fs::read_to_string(root().join("docs/MONITORING.md")).unwrap();
    let r = rules(&dir.join("noid-alerts.yml"));
    for rule in r["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
    {
        let name = rule["alert"].as_str().unwrap();
        assert!(
            tests.contains(&format!("alertname: {name}\n")),
            "{name} has no unit test"
        );
        let runbook = rule["annotations"]["runbook"].as_str().unwrap();
        assert_eq!(
            runbook,
            format!("docs/MONITORING.md#{}", name.to_lowercase())
        );
        assert!(
            doc.contains(&format!("\n### {name}\n")),
            "{name} is not in docs/MONITORING.md"
        );
    }
}

#[test]
fn the_dashboard_and_the_rules_use_only_exported_metrics_and_labels() {
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("deploy/grafana/noid.json")).unwrap(),
    )
    .unwrap();
    check_dashboard_structure(&dashboard);
    let rules = rules(&root().join("deploy/prometheus/noid-alerts.yml"));
    let (noidr, api) = (noidr_metrics(), api_metrics());
    let mut checked = 0;
    for p in dashboard["panels"].as_array().unwrap() {
        for t in p["targets"].as_array().into_iter().flatten() {
            let legend = t["legendFormat"].as_str().unwrap_or("");
            check_expr(
                p["title"].as_str().unwrap(),
                t["expr"].as_str().unwrap(),
                &[legend],
                &noidr,
                &api,
            );
            checked += 1;
        }
    }
    let label_values = Regex::new(r"^label_values\((.*), *(\w+)\)$").unwrap();
    for v in dashboard["templating"]["list"].as_array().unwrap() {
        if let Some(q) = v["query"]["query"].as_str() {
            let q = label_values.captures(q).unwrap();
            let expr = format!("sum by ({}) ({})", &q[2], &q[1]);
            check_expr(v["name"].as_str().unwrap(), &expr, &[], &noidr, &api);
        }
    }
    for rule in rules["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
    {
        let annotations: Vec<&str> = rule["annotations"]
            .as_object()
            .unwrap()
            .values()
            .filter_map(Value::as_str)
            .collect();
        check_expr(
            rule["alert"].as_str().unwrap(),
            rule["expr"].as_str().unwrap(),
            &annotations,
            &noidr,
            &api,
        );
        checked += 1;
    }
    assert!(checked >= 30, "{checked} expressions");
}

#[test]
fn expressions_name_what_they_use() {
    // The checker itself: names and labels found where PromQL puts them.
    let u = uses(
        r#"sum by (job, instance) (rate(noidr_requests_total{kind="error",x=~"a|b"}[5m])) / on (instance) histogram_quantile(0.99, noid_api_x_bucket{le!="1"})"#,
        &["{{kind}} of {{ populator }}", "{{ $labels.provider }}"],
    );
    assert_eq!(
        u.metrics,
        ["noid_api_x_bucket", "noidr_requests_total"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        u.labels,
        [
            "instance",
            "job",
            "kind",
            "le",
            "populator",
            "provider",
            "x"
        ]
        .map(String::from)
        .into()
    );
    let e = exported("# HELP a b\na_total{kind=\"hit\",p=\"x\\\"y\"} 3\nb 1\n");
    assert_eq!(e["a_total"], ["kind", "p"].map(String::from).into());
    assert!(e["b"].is_empty());
}

/// This crate's directory: `cargo test` sets `CARGO_MANIFEST_DIR` when it runs the test;
/// the value compiled in names the checkout that built it, which a target directory
/// shared by several checkouts may have kept.
fn manifest_dir() -> std::ffi::OsString {
    std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into())
}
