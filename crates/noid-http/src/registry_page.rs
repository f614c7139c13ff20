//! Pages of the prefix registry: a truncated identifier's record (`ark:/99999`,
//! `doi:10.5072`, `pdb:`) and a `*/ID` provider list, in ANVL, JSON or HTML like the
//! other metadata pages ([`crate::page::PageFormat`]).
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
use noid_resolve::registry::{self, PrefixRecord};
use noid_resolve::ProviderTarget;

use crate::layout::{self, escape, link, link_or_text};
use crate::page::{json_line, Fields, PageFormat};

/// The page of a truncated identifier `key`: its record, the records below it, and the
/// store's bindings on the key. The HTML page links each provider (to its site) and
/// each record below (to its own page).
pub fn records(
    fmt: PageFormat,
    key: &str,
    records: &[Arc<PrefixRecord>],
    bindings: &[(String, Vec<u8>)],
) -> String {
    let bindings: Vec<(&str, String)> = bindings
        .iter()
        .map(|(n, v)| (n.as_str(), String::from_utf8_lossy(v).into_owned()))
        .collect();
    match fmt {
        PageFormat::Anvl => {
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
        PageFormat::Json => {
            let (first, below) = records.split_first().expect("a record page has its record");
            let mut page = RecordJson::of(first);
            page.bindings = Some(Fields(&bindings));
            page.below = Some(below.iter().map(|r| RecordJson::of(r)).collect());
            json_line(&page)
        }
        PageFormat::Html => record_html(key, records, &bindings),
    }
}

/// The HTML record page: the record, its providers, the store's bindings, and the
/// records below as links.
fn record_html(key: &str, records: &[Arc<PrefixRecord>], bindings: &[(&str, String)]) -> String {
    let mut s = layout::start(key);
    let (first, below) = records.split_first().expect("a record page has its record");
    s.push_str("<h1>");
    escape(&mut s, &first.prefix);
    s.push_str("</h1>\n<table>\n");
    row(&mut s, "level", first.level.name());
    for (n, v) in first.anvl().iter().skip(1) {
        if !matches!(*n, "provider" | "primary" | "probe") {
            row(&mut s, n, v);
        }
    }
    for (n, v) in bindings {
        row(&mut s, n, v);
    }
    s.push_str("</table>\n");
    if !first.providers.is_empty() {
        s.push_str("<h2>Providers</h2>\n<ul>\n");
        for (i, p) in first.providers.iter().enumerate() {
            provider(&mut s, p, i == first.primary);
        }
        s.push_str("</ul>\n");
    }
    if !below.is_empty() {
        s.push_str("<h2>Records below</h2>\n<ul>\n");
        for r in below {
            s.push_str("<li>");
            link(&mut s, &format!("/{}", r.prefix), &r.prefix);
            if let Some(name) = &r.name {
                s.push_str(": ");
                escape(&mut s, name);
            }
            s.push_str("</li>\n");
        }
        s.push_str("</ul>\n");
    }
    layout::end(&mut s);
    s
}

/// One provider of a record: its code, its URL pattern linked to the provider's site
/// (the pattern's `scheme://host/`), and whether it is the primary.
fn provider(s: &mut String, p: &registry::Provider, primary: bool) {
    s.push_str("<li>");
    escape(s, &p.code);
    s.push_str(": ");
    match site(&p.pattern) {
        Some(origin) => link(s, origin, &p.pattern),
        None => escape(s, &p.pattern),
    }
    if primary {
        s.push_str(", primary");
    }
    s.push_str("</li>\n");
}

/// The `http(s)://host/` a URL pattern starts with; `None` for other patterns.
fn site(pattern: &str) -> Option<&str> {
    if !layout::is_web_url(pattern) {
        return None;
    }
    let host_start = pattern.find("://")? + 3;
    let end = pattern[host_start..]
        .find('/')
        .map_or(pattern.len(), |i| host_start + i + 1);
    let origin = &pattern[..end];
    (!origin.contains(['$', '{', '<', '"', ' '])).then_some(origin)
}

/// The `*/ID` page: ID's target at every provider of `prefix`.
pub fn providers(fmt: PageFormat, id: &str, prefix: &str, targets: &[ProviderTarget]) -> String {
    match fmt {
        PageFormat::Anvl => {
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
        PageFormat::Json => {
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
        PageFormat::Html => {
            let mut s = layout::start(id);
            s.push_str("<h1>");
            escape(&mut s, id);
            s.push_str("</h1>\n<p>Its target at every provider of ");
            link(&mut s, &format!("/{prefix}"), prefix);
            s.push_str(", in failover order.</p>\n");
            crate::metadata_html::providers(&mut s, targets);
            layout::end(&mut s);
            s
        }
    }
}

fn row(s: &mut String, name: &str, value: &str) {
    s.push_str("<tr><th scope=\"row\">");
    escape(s, name);
    s.push_str("</th><td>");
    link_or_text(s, value);
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
    fn of(r: &'a PrefixRecord) -> Self {
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
            records(PageFormat::Anvl, "pdb:", &recs, &bindings),
            "prefix: pdb:\nname: P & Q\nprovider: a https://a.org/$id\nprovider: b http://b.org/{$id}\n\
             primary: b\nprobe: b http://h/\nnote: x\"y\nwhat: W\n"
        );
        assert_eq!(
            records(PageFormat::Json, "pdb:", &recs, &bindings),
            "{\"prefix\":\"pdb:\",\"level\":\"scheme\",\"name\":\"P & Q\",\"providers\":[\
             {\"code\":\"a\",\"pattern\":\"https://a.org/$id\",\"primary\":false},\
             {\"code\":\"b\",\"pattern\":\"http://b.org/{$id}\",\"primary\":true,\"probe\":\"http://h/\"}],\
             \"elements\":{\"note\":\"x\\\"y\"},\"bindings\":{\"what\":\"W\"},\"below\":[]}\n"
        );
        // Providers linked to their site; a pattern that is no web URL as text.
        let reg2 = Registry::parse(&REG.replace("https://a.org/$id", "ftp://a.org/$id")).unwrap();
        assert_eq!(
            main_of(&records(
                PageFormat::Html,
                "pdb:",
                &reg2.with_below("pdb:").unwrap(),
                &[]
            )),
            "<h1>pdb:</h1>\n<table>\n<tr><th scope=\"row\">level</th><td>scheme</td></tr>\n\
             <tr><th scope=\"row\">name</th><td>P &amp; Q</td></tr>\n\
             <tr><th scope=\"row\">note</th><td>x&quot;y</td></tr>\n</table>\n\
             <h2>Providers</h2>\n<ul>\n<li>a: ftp://a.org/$id</li>\n\
             <li>b: <a href=\"http://b.org/\">http://b.org/{$id}</a>, primary</li>\n</ul>\n"
        );
        assert_eq!(site("https://e.org"), Some("https://e.org"));
        assert_eq!(site("https://e.org/x/$id"), Some("https://e.org/"));
        assert_eq!(site("https://${id}.e.org/"), None);
        let reg = Registry::parse(
            "prefix: ark:/13030\nname: N\nwho: W\nprovider: main https://e.org/ark:/13030/$id\n\n\
             prefix: ark:/13030/fk4\nname: test <shoulder>\n",
        )
        .unwrap();
        let recs = reg.with_below("ark:/13030").unwrap();
        assert_eq!(
            main_of(&records(PageFormat::Html, "ark:/13030", &recs, &bindings)),
            "<h1>ark:/13030</h1>\n<table>\n<tr><th scope=\"row\">level</th><td>naan</td></tr>\n\
             <tr><th scope=\"row\">name</th><td>N</td></tr>\n\
             <tr><th scope=\"row\">who</th><td>W</td></tr>\n\
             <tr><th scope=\"row\">what</th><td>W</td></tr>\n</table>\n\
             <h2>Providers</h2>\n<ul>\n<li>main: <a href=\"https://e.org/\">\
             https://e.org/ark:/13030/$id</a>, primary</li>\n</ul>\n\
             <h2>Records below</h2>\n<ul>\n<li><a href=\"/ark:/13030/fk4\">ark:/13030/fk4</a>: \
             test &lt;shoulder&gt;</li>\n</ul>\n"
        );
    }

    /// A page's `main`, without the frame ([`crate::layout`]'s own test has it).
    fn main_of(page: &str) -> &str {
        let start = page.find("<main>\n").expect("main") + 7;
        &page[start..page.find("</main>").expect("end of main")]
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
            main_of(&providers(PageFormat::Html, "pdb:1", "pdb:", &targets)),
            "<h1>pdb:1</h1>\n<p>Its target at every provider of <a href=\"/pdb:\">pdb:</a>, \
             in failover order.</p>\n<h2>Providers</h2>\n<ul>\n\
             <li>b: <a href=\"http://b.org/1\">http://b.org/1</a> — <span class=\"bad\">down</span>, primary</li>\n\
             <li>a: <a href=\"https://a.org/1\">https://a.org/1</a> — up</li>\n</ul>\n"
        );
        assert_eq!(
            providers(PageFormat::Anvl, "pdb:1", "pdb:", &targets[1..]),
            "id: pdb:1\nprefix: pdb:\nprovider: a https://a.org/1\n"
        );
    }
}
