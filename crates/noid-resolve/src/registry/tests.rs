//! Tests of the prefix registry: parsing, the canonical file written back, errors
//! naming their line, key spellings, placeholders and failover order.

use super::read::template;
use super::*;

/// The registry the resolver tests use too.
pub(crate) const SAMPLE: &str = "\
# Test registry.
prefix: pdb:
name: Protein Data Bank
who: Worldwide Protein Data Bank
provider: rcsb https://www.rcsb.org/structure/$id
provider: pdbe https://www.ebi.ac.uk/pdbe/entry/pdb/{$id}
provider: pdbj 301 https://pdbj.org/mine/summary/${id}
primary: rcsb
probe: pdbe http://127.0.0.1:9/health

prefix: ARK:99999
name: Test NAAN
who: N2T
provider: n2t https://n2t.net/ark:/99999/${nlid}
note: test identifiers
    do not persist

prefix: ark:/99999/fk4
name: test shoulder
provider: ezid https://ezid.cdlib.org/id/ark:/99999/fk4$blade

prefix: doi:10.5072
name: DataCite test prefix
who: DataCite

prefix: ark:
name: Archival Resource Key
";

#[test]
fn reads_records() {
    let r = Registry::parse(SAMPLE).unwrap();
    let keys: Vec<&str> = r.records().iter().map(|r| r.prefix.as_str()).collect();
    assert_eq!(
        keys,
        [
            "ark:",
            "ark:/99999",
            "ark:/99999/fk4",
            "doi:10.5072",
            "pdb:"
        ]
    );
    let pdb = r.get("pdb:").unwrap();
    assert_eq!(pdb.level, Level::Scheme);
    assert_eq!(pdb.name.as_deref(), Some("Protein Data Bank"));
    assert_eq!(pdb.line, 2);
    let codes: Vec<&str> = pdb.providers.iter().map(|p| p.code.as_str()).collect();
    assert_eq!(codes, ["rcsb", "pdbe", "pdbj"]);
    assert_eq!(
        pdb.providers[1].template,
        "https://www.ebi.ac.uk/pdbe/entry/pdb/${id}"
    );
    assert_eq!(
        pdb.providers[1].probe.as_deref(),
        Some("http://127.0.0.1:9/health")
    );
    let naan = r.get("ark:/99999").unwrap();
    assert_eq!(naan.level, Level::Naan);
    assert_eq!(
        naan.elements,
        [(
            "note".to_string(),
            "test identifiers\ndo not persist".to_string()
        )]
    );
    assert_eq!(r.get("ark:/99999/fk4").unwrap().level, Level::Shoulder);
    let below: Vec<String> = r
        .with_below("ark:")
        .unwrap()
        .iter()
        .map(|r| r.prefix.clone())
        .collect();
    assert_eq!(below, ["ark:", "ark:/99999"]);
    assert_eq!(r.with_below("ark:/99999").unwrap().len(), 2);
    assert_eq!(r.counts(), (2, 2, 1, 5));
    let probes = r.probes();
    assert_eq!(probes.len(), 1);
    assert_eq!(
        (probes[0].prefix.as_str(), probes[0].code.as_str()),
        ("pdb:", "pdbe")
    );
}

#[test]
fn primary_and_failover_order() {
    let r = Registry::parse(
        "prefix: x:\nprovider: a http://a/$id\nprovider: b http://b/$id\nprovider: c http://c/$id\nprimary: b\n",
    )
    .unwrap();
    let rec = r.get("x:").unwrap().clone();
    let order: Vec<&str> = rec.in_order().map(|p| p.code.as_str()).collect();
    assert_eq!(order, ["b", "a", "c"]);
    assert_eq!(r.choose(&rec).unwrap().code, "b");
    assert_eq!(r.health_changes(), 0);
    assert!(r.set_healthy(rec.providers[1].slot, false));
    assert!(!r.set_healthy(rec.providers[1].slot, false), "no change");
    assert_eq!(r.health_changes(), 1, "only a change is counted");
    assert_eq!(r.choose(&rec).unwrap().code, "a");
    r.set_healthy(rec.providers[0].slot, false);
    assert_eq!(r.choose(&rec).unwrap().code, "c");
    r.set_healthy(rec.providers[2].slot, false);
    assert_eq!(r.choose(&rec).unwrap().code, "b", "all down: the primary");
    r.set_healthy(rec.providers[1].slot, true);
    assert_eq!(r.choose(&rec).unwrap().code, "b");
    assert_eq!(r.health_changes(), 4);
}

#[test]
fn writes_canonical_text_that_reads_back() {
    let r = Registry::parse(SAMPLE).unwrap();
    let text = r.to_text();
    assert_eq!(
        text,
        "# noid prefix registry: ANVL records separated by blank lines (docs/RESOLUTION.md, \"The prefix registry\").\n\
         \n\
         prefix: ark:\n\
         name: Archival Resource Key\n\
         \n\
         prefix: ark:/99999\n\
         name: Test NAAN\n\
         who: N2T\n\
         provider: n2t https://n2t.net/ark:/99999/${nlid}\n\
         note: test identifiers%0ado not persist\n\
         \n\
         prefix: ark:/99999/fk4\n\
         name: test shoulder\n\
         provider: ezid https://ezid.cdlib.org/id/ark:/99999/fk4$blade\n\
         \n\
         prefix: doi:10.5072\n\
         name: DataCite test prefix\n\
         who: DataCite\n\
         \n\
         prefix: pdb:\n\
         name: Protein Data Bank\n\
         who: Worldwide Protein Data Bank\n\
         provider: rcsb https://www.rcsb.org/structure/$id\n\
         provider: pdbe https://www.ebi.ac.uk/pdbe/entry/pdb/{$id}\n\
         provider: pdbj 301 https://pdbj.org/mine/summary/${id}\n\
         primary: rcsb\n\
         probe: pdbe http://127.0.0.1:9/health\n"
    );
    let again = Registry::parse(&text).unwrap();
    assert_eq!(again.to_text(), text);
    for (a, b) in r.records().iter().zip(again.records()) {
        assert_eq!(
            (&a.prefix, &a.providers, &a.elements),
            (&b.prefix, &b.providers, &b.elements)
        );
    }
}

#[test]
fn keys_are_canonical() {
    for (value, key, level) in [
        ("pdb:", "pdb:", Level::Scheme),
        ("ARK:", "ark:", Level::Scheme),
        ("ark:/", "ark:", Level::Scheme),
        ("ark:99999", "ark:/99999", Level::Naan),
        ("ark:/99999/", "ark:/99999", Level::Naan),
        ("ark:/B5072", "ark:/b5072", Level::Naan),
        ("doi:10.5072", "doi:10.5072", Level::Naan),
        ("doi:10.5072/fk2", "doi:10.5072/FK2", Level::Shoulder),
        ("ark:/99999/fk4", "ark:/99999/fk4", Level::Shoulder),
    ] {
        assert_eq!(read::key(value), Ok((key.to_string(), level)), "{value}");
    }
}

#[test]
fn errors_name_the_line() {
    let e = |text: &str| Registry::parse(text).unwrap_err().to_string();
    assert_eq!(
        e("prefix: pdb:\nname Protein\n"),
        "line 2: expected \"NAME: VALUE\", found \"name Protein\" (no colon)"
    );
    assert_eq!(
        e("# c\nname: x\n"),
        "line 2: a record starts with \"prefix: KEY\", not \"name\" (records are separated by blank lines)"
    );
    assert_eq!(
        e("prefix: pdb:\n\nprefix: PDB:\n"),
        "line 3: pdb: already has a record (line 1)"
    );
    assert_eq!(
        e("prefix: pdb:\nprefix: x:\n"),
        "line 2: a second prefix in the record of pdb: (line 1): separate records by a blank line"
    );
    assert!(e("prefix: 12345\n").starts_with("line 1: prefix \"12345\" is not a scheme (pdb:)"));
    // Found by the registry fuzz target: its key (`pdxb:ark:`) would not read again.
    assert!(e("prefix: pdXb:ark:/\n")
        .starts_with("line 1: prefix \"pdXb:ark:/\" is not a scheme (pdb:)"));
    assert!(e("prefix: ark:/99999/abc\n").starts_with("line 1: prefix \"ark:/99999/abc\" is not"));
    assert!(e("prefix: http://e.org/\n").starts_with("line 1: prefix \"http://e.org/\" is not"));
    assert_eq!(
        e("prefix: pdb:\nprovider: rcsb\n"),
        "line 2: expected \"provider: CODE URL-PATTERN\""
    );
    assert_eq!(
        e("prefix: pdb:\nprovider: a x\nprovider: a y\n"),
        "line 3: a second provider \"a\" in the record of pdb:"
    );
    assert_eq!(
        e("prefix: pdb:\nprovider: a x\nprimary: b\n"),
        "line 3: primary \"b\" is not a provider of pdb:"
    );
    assert_eq!(
        e("prefix: pdb:\nprovider: a x\nprobe: b http://h/\n"),
        "line 3: probe of \"b\", which is not a provider of pdb:"
    );
    // Probes speak HTTPS too.
    assert_eq!(
        Registry::parse("prefix: pdb:\nprovider: a x\nprobe: a https://h/\n")
            .unwrap()
            .probes()[0]
            .url,
        "https://h/"
    );
    assert_eq!(
        e("prefix: pdb:\nprovider: a x\nprobe: a ftp://h/\n"),
        "line 3: probe URL \"ftp://h/\" does not start with http:// or https://"
    );
    assert_eq!(e("prefix: pdb:\nname:\n"), "line 2: name has no value");
    assert_eq!(
        e("prefix: pdb:\nname: a\nname: b\n"),
        "line 3: a second \"name\" in the record of pdb:"
    );
    assert_eq!(
        e("  continued\n"),
        "line 1: a continuation line (it starts with a blank) must follow an element"
    );
    assert_eq!(
        e("prefix: pdb:\nmy name: x\n"),
        "line 2: bad element name \"my name\" (one word before the colon)"
    );
}

#[test]
fn patterns_take_every_placeholder_spelling() {
    assert_eq!(template("https://a.org/$id"), "https://a.org/${id}");
    assert_eq!(template("https://a.org/{$id}/x"), "https://a.org/${id}/x");
    assert_eq!(template("https://a.org/${id}"), "https://a.org/${id}");
    assert_eq!(
        template("https://a.org/$blade.$naan"),
        "https://a.org/${blade}.${naan}"
    );
    assert_eq!(
        template("https://a.org/$identity"),
        "https://a.org/$identity"
    );
    assert_eq!(template("https://a.org/{x}$"), "https://a.org/{x}$");
    assert_eq!(template("https://a.org/{$idx}"), "https://a.org/{$idx}");
    assert_eq!(
        template("301 https://a.org/?q=$id&{$suffix}"),
        "301 https://a.org/?q=${id}&${suffix}"
    );
}

#[test]
fn empty_and_comment_only_files() {
    assert!(Registry::parse("").unwrap().is_empty());
    assert!(Registry::parse("# nothing\n\n\n").unwrap().is_empty());
    // CRLF line ends read as LF.
    let r = Registry::parse("prefix: pdb:\r\nname: P\r\n").unwrap();
    assert_eq!(r.get("pdb:").unwrap().name.as_deref(), Some("P"));
}
