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

use noid_resolve::registry::{self, Record};
use noid_resolve::ProviderTarget;

use crate::html::{escape, link_or_text};
use crate::page::{anvl_line, json_str, Format};

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
                        anvl_line(&mut s, n, v);
                    }
                }
            }
            s
        }
        Format::Json => {
            let mut s = String::new();
            let (first, below) = records.split_first().expect("a record page has its record");
            record_json(&mut s, first, Some(&bindings));
            s.pop();
            s.push_str(",\"below\":[");
            for (i, r) in below.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                record_json(&mut s, r, None);
            }
            s.push_str("]}\n");
            s
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
            anvl_line(&mut s, "id", id);
            anvl_line(&mut s, "prefix", prefix);
            for t in targets {
                anvl_line(&mut s, "provider", &format!("{} {}", t.code, t.target));
            }
            if targets.len() > 1 {
                if let Some(p) = targets.iter().find(|t| t.primary) {
                    anvl_line(&mut s, "primary", &p.code);
                }
            }
            for t in targets.iter().filter(|t| !t.healthy) {
                anvl_line(&mut s, "down", &t.code);
            }
            s
        }
        Format::Json => {
            let mut s = String::from("{\"id\":");
            json_str(&mut s, id);
            s.push_str(",\"prefix\":");
            json_str(&mut s, prefix);
            s.push_str(",\"providers\":[");
            for (i, t) in targets.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str("{\"code\":");
                json_str(&mut s, &t.code);
                s.push_str(",\"target\":");
                json_str(&mut s, &t.target);
                s.push_str(&format!(
                    ",\"primary\":{},\"healthy\":{}}}",
                    t.primary, t.healthy
                ));
            }
            s.push_str("]}\n");
            s
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

/// One record as a JSON object (with `bindings` for the record asked for).
fn record_json(s: &mut String, r: &Record, bindings: Option<&[(&str, String)]>) {
    s.push_str("{\"prefix\":");
    json_str(s, &r.prefix);
    s.push_str(",\"level\":");
    json_str(s, r.level.name());
    for (label, v) in [("name", &r.name), ("who", &r.who)] {
        if let Some(v) = v {
            s.push_str(",\"");
            s.push_str(label);
            s.push_str("\":");
            json_str(s, v);
        }
    }
    s.push_str(",\"providers\":[");
    for (i, p) in r.providers.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str("{\"code\":");
        json_str(s, &p.code);
        s.push_str(",\"pattern\":");
        json_str(s, &p.pattern);
        s.push_str(&format!(",\"primary\":{}", i == r.primary));
        if let Some(url) = &p.probe {
            s.push_str(",\"probe\":");
            json_str(s, url);
        }
        s.push('}');
    }
    s.push_str("],\"elements\":");
    object(s, r.elements.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    if let Some(b) = bindings {
        s.push_str(",\"bindings\":");
        object(s, b.iter().map(|(n, v)| (*n, v.as_str())));
    }
    s.push('}');
}

fn object<'a>(s: &mut String, pairs: impl Iterator<Item = (&'a str, &'a str)>) {
    s.push('{');
    for (i, (n, v)) in pairs.enumerate() {
        if i > 0 {
            s.push(',');
        }
        json_str(s, n);
        s.push(':');
        json_str(s, v);
    }
    s.push('}');
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
