//! Pages of the prefix registry: a truncated identifier's record (`ark:/99999`,
//! `doi:10.5072`, `pdb:`) and a `*/ID` provider list, in ANVL, JSON or HTML like the
//! other metadata pages ([`crate::page::Format`]).
//!
//! ANVL is the registry file's own syntax (`noid_resolve::registry`): the record, then
//! after a blank line each record below it (a NAAN's shoulders, a scheme's NAANs), so a
//! record page can be pasted into a registry file. A provider list is
//!
//! ```text
//! id: pdb:2gc4
//! prefix: pdb:
//! provider: rcsb https://www.rcsb.org/structure/2gc4
//! provider: pdbe https://www.ebi.ac.uk/pdbe/entry/pdb/2gc4
//! primary: rcsb
//! down: pdbe
//! ```
//!
//! with the providers in failover order and a `down:` line for each provider a probe
//! found down. JSON: `{"prefix": …, "level": …, "name": …, "who": …, "providers":
//! [{"code", "pattern", "primary", "probe"}], "elements": {…}, "bindings": {…},
//! "below": [records]}` and `{"id", "prefix", "providers": [{"code", "target",
//! "primary", "healthy"}]}`.

use std::sync::Arc;

use noid_core::anvl;
use noid_resolve::registry::{self, Record};
use noid_resolve::ProviderTarget;

use crate::html::{escape, link_or_text};
use crate::page::{json_line, Fields, Format};

/// The page of a truncated identifier `key`: its record, the records below it, and the
/// store's bindings on the key.
pub fn records(
    fmt: Format,
    key: &str,
    records: &[Arc<Record>],
    bindings: &[(String, Vec<u8>)],
) -> String {
    let bindings: Vec<(&str, String)> = bindings
        .iter()
        .map(|(n, v)| (n.as_str(), String::from_utf8_lossy(v).into_owned()))
        .collect();
    match fmt {
        Format::Anvl => {
            let mut s = String::new();
            for (i, r) in records.iter().enumerate() {
                if i > 0 {
                    s.push('\n');
                }
                registry::record_text(r, &mut s);
                if i == 0 {
                    for (n, v) in &bindings {
                        anvl::element_str(&mut s, n, v);
                    }
                }
            }
            s
        }
        Format::Json => {
            let (first, below) = records.split_first().expect("a record page has its record");
            let mut page = RecordJson::of(first);
            page.bindings = Some(Fields(&bindings));
            page.below = Some(below.iter().map(|r| RecordJson::of(r)).collect());
            json_line(&page)
        }
        Format::Html => {
            let mut s = head(key);
            for (i, r) in records.iter().enumerate() {
                s.push_str(if i == 0 { "<h1>" } else { "<h2>" });
                escape(&mut s, &r.prefix);
                s.push_str(if i == 0 { "</h1>\n" } else { "</h2>\n" });
                s.push_str("<table>\n");
                for (n, v) in r.anvl().iter().skip(1) {
                    row(&mut s, n, v);
                }
                if i == 0 {
                    for (n, v) in &bindings {
                        row(&mut s, n, v);
                    }
                }
                s.push_str("</table>\n");
            }
            s.push_str("</body></html>\n");
            s
        }
    }
}

/// The `*/ID` page: ID's target at every provider of `prefix`.
pub fn providers(fmt: Format, id: &str, prefix: &str, targets: &[ProviderTarget]) -> String {
    match fmt {
        Format::Anvl => {
            let mut s = String::new();
            anvl::element_str(&mut s, "id", id);
            anvl::element_str(&mut s, "prefix", prefix);
            for t in targets {
                anvl::element_str(&mut s, "provider", &format!("{} {}", t.code, t.target));
            }
            if targets.len() > 1 {
                if let Some(p) = targets.iter().find(|t| t.primary) {
                    anvl::element_str(&mut s, "primary", &p.code);
                }
            }
            for t in targets.iter().filter(|t| !t.healthy) {
                anvl::element_str(&mut s, "down", &t.code);
            }
            s
        }
        Format::Json => {
            #[derive(serde::Serialize)]
            struct Target<'a> {
                code: &'a str,
                target: &'a str,
                primary: bool,
                healthy: bool,
            }
            #[derive(serde::Serialize)]
            struct Providers<'a> {
                id: &'a str,
                prefix: &'a str,
                providers: Vec<Target<'a>>,
            }
            json_line(&Providers {
                id,
                prefix,
                providers: targets
                    .iter()
                    .map(|t| Target {
                        code: &t.code,
                        target: &t.target,
                        primary: t.primary,
                        healthy: t.healthy,
                    })
                    .collect(),
            })
        }
        Format::Html => {
            let mut s = head(id);
            s.push_str("<h1>");
            escape(&mut s, id);
            s.push_str("</h1>\n<p>providers of ");
            escape(&mut s, prefix);
            s.push_str("</p>\n<ul>\n");
            for t in targets {
                s.push_str("<li>");
                escape(&mut s, &t.code);
                s.push_str(": ");
                link_or_text(&mut s, &t.target);
                if t.primary {
                    s.push_str(" <small>primary</small>");
                }
                if !t.healthy {
                    s.push_str(" <small>down</small>");
                }
                s.push_str("</li>\n");
            }
            s.push_str("</ul>\n</body></html>\n");
            s
        }
    }
}

fn head(title: &str) -> String {
    let mut s = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
    escape(&mut s, title);
    s.push_str("</title></head>\n<body>\n");
    s
}

fn row(s: &mut String, name: &str, value: &str) {
    s.push_str("<tr><th>");
    escape(s, name);
    s.push_str("</th><td>");
    escape(s, value);
    s.push_str("</td></tr>\n");
}

/// One record as a JSON object (with `bindings` and `below` for the record asked for).
#[derive(serde::Serialize)]
struct RecordJson<'a> {
    prefix: &'a str,
    level: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    who: Option<&'a str>,
    providers: Vec<ProviderJson<'a>>,
    elements: Fields<'a, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bindings: Option<Fields<'a, &'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    below: Option<Vec<RecordJson<'a>>>,
}

#[derive(serde::Serialize)]
struct ProviderJson<'a> {
    code: &'a str,
    pattern: &'a str,
    primary: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    probe: Option<&'a str>,
}

impl<'a> RecordJson<'a> {
    fn of(r: &'a Record) -> Self {
        RecordJson {
            prefix: &r.prefix,
            level: r.level.name(),
            name: r.name.as_deref(),
            who: r.who.as_deref(),
            providers: r
                .providers
                .iter()
                .enumerate()
                .map(|(i, p)| ProviderJson {
                    code: &p.code,
                    pattern: &p.pattern,
                    primary: i == r.primary,
                    probe: p.probe.as_deref(),
                })
                .collect(),
            elements: Fields(&r.elements),
            bindings: None,
            below: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_resolve::Registry;

    const REG: &str = "prefix: pdb:\nname: P & Q\nprovider: a https://a.org/$id\n\
                       provider: b http://b.org/{$id}\nprimary: b\nprobe: b http://h/\nnote: x\"y\n";

    #[test]
    fn record_pages() {
        let reg = Registry::parse(REG).unwrap();
        let recs = reg.with_below("pdb:").unwrap();
        let bindings = [("what".to_string(), b"W".to_vec())];
        assert_eq!(
            records(Format::Anvl, "pdb:", &recs, &bindings),
            "prefix: pdb:\nname: P & Q\nprovider: a https://a.org/$id\nprovider: b http://b.org/{$id}\n\
             primary: b\nprobe: b http://h/\nnote: x\"y\nwhat: W\n"
        );
        assert_eq!(
            records(Format::Json, "pdb:", &recs, &bindings),
            "{\"prefix\":\"pdb:\",\"level\":\"scheme\",\"name\":\"P & Q\",\"providers\":[\
             {\"code\":\"a\",\"pattern\":\"https://a.org/$id\",\"primary\":false},\
             {\"code\":\"b\",\"pattern\":\"http://b.org/{$id}\",\"primary\":true,\"probe\":\"http://h/\"}],\
             \"elements\":{\"note\":\"x\\\"y\"},\"bindings\":{\"what\":\"W\"},\"below\":[]}\n"
        );
        assert_eq!(
            records(Format::Html, "pdb:", &recs, &[]),
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pdb:</title></head>\n<body>\n\
             <h1>pdb:</h1>\n<table>\n<tr><th>name</th><td>P &amp; Q</td></tr>\n\
             <tr><th>provider</th><td>a https://a.org/$id</td></tr>\n\
             <tr><th>provider</th><td>b http://b.org/{$id}</td></tr>\n\
             <tr><th>primary</th><td>b</td></tr>\n<tr><th>probe</th><td>b http://h/</td></tr>\n\
             <tr><th>note</th><td>x&quot;y</td></tr>\n</table>\n</body></html>\n"
        );
    }

    #[test]
    fn provider_pages() {
        let targets = [
            ProviderTarget {
                code: "b".into(),
                target: "http://b.org/1".into(),
                primary: true,
                healthy: false,
            },
            ProviderTarget {
                code: "a".into(),
                target: "https://a.org/1".into(),
                primary: false,
                healthy: true,
            },
        ];
        assert_eq!(
            providers(Format::Html, "pdb:1", "pdb:", &targets),
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pdb:1</title></head>\n<body>\n\
             <h1>pdb:1</h1>\n<p>providers of pdb:</p>\n<ul>\n\
             <li>b: <a href=\"http://b.org/1\">http://b.org/1</a> <small>primary</small> <small>down</small></li>\n\
             <li>a: <a href=\"https://a.org/1\">https://a.org/1</a></li>\n</ul>\n</body></html>\n"
        );
        assert_eq!(
            providers(Format::Anvl, "pdb:1", "pdb:", &targets[1..]),
            "id: pdb:1\nprefix: pdb:\nprovider: a https://a.org/1\n"
        );
    }
}
