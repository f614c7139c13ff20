//! Is this stream of records a Noid minter?
//!
//! [`Validator`] watches records go by (keeping only the few admin values it needs)
//! and [`Validator::finish`] says whether they make a minter Perl Noid 0.424 (or
//! noid) could mint from: the admin keys that `dbcreate` writes and minting reads,
//! with values of the right shape, and no duplicate keys.

use std::collections::BTreeMap;
use std::fmt;

use noid_core::keys;
use noid_template::generator::{parse_saclist, parse_siclist};
use noid_template::template::parse_template;

/// Admin keys every minter has and minting reads. (`dbcreate` writes more; older
/// Noid versions may lack some of those, so only these are required.)
pub const REQUIRED: &[&str] = &[
    "version",
    "template",
    "mask",
    "generator_type",
    "oacounter",
    "oatop",
    "total",
];

/// Admin values that must be integers when present.
const INTEGERS: &[&str] = &[
    "oacounter",
    "oatop",
    "total",
    "percounter",
    "held",
    "queued",
    "padwidth",
    "fseqnum",
    "gseqnum",
    "gseqnum_date",
];

/// Why the records are not an importable minter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAMinter(pub String);

impl fmt::Display for NotAMinter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotAMinter {}

/// What an importable minter is, in brief.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// `:/template`.
    pub template: String,
    /// `:/generator_type`.
    pub gen_type: String,
    /// `long`, `medium` or `short`.
    pub term: &'static str,
    /// `:/oacounter`.
    pub oacounter: i64,
    /// `:/version`.
    pub version: String,
    /// Number of records.
    pub records: u64,
}

/// Watches records and decides whether they are a minter.
#[derive(Debug, Default)]
pub struct Validator {
    admin: BTreeMap<Vec<u8>, (Vec<u8>, u64)>,
    records: u64,
    last_key: Option<Vec<u8>>,
    sorted: bool,
    duplicate: Option<(u64, String)>,
}

impl Validator {
    /// A validator that has seen nothing.
    pub fn new() -> Validator {
        Validator {
            sorted: true,
            ..Validator::default()
        }
    }

    /// Look at one record (read from `line`).
    pub fn observe(&mut self, key: &[u8], value: &[u8], line: u64) {
        self.records += 1;
        if let Some(last) = &self.last_key {
            if key == last.as_slice() && self.duplicate.is_none() {
                self.duplicate = Some((line, String::from_utf8_lossy(key).into_owned()));
            } else if key < last.as_slice() {
                self.sorted = false;
            }
        }
        match &mut self.last_key {
            Some(k) => {
                k.clear();
                k.extend_from_slice(key);
            }
            None => self.last_key = Some(key.to_vec()),
        }
        if key.starts_with(keys::ADMIN_PREFIX.as_bytes()) {
            let per_id = key.starts_with(keys::QUEUE_PREFIX)
                || key.starts_with(keys::IDMAP_PREFIX)
                || key.starts_with(keys::NOTE_PREFIX.as_bytes());
            if !per_id {
                if let Some((_, first)) = self.admin.get(key) {
                    if self.duplicate.is_none() {
                        self.duplicate = Some((
                            line,
                            format!("{} (first on line {first})", String::from_utf8_lossy(key)),
                        ));
                    }
                }
                self.admin.insert(key.to_vec(), (value.to_vec(), line));
            }
        }
    }

    /// Records seen.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Whether the keys came in strictly increasing bytewise order. When they did
    /// not, duplicates among non-admin keys cannot be seen here; the caller compares
    /// the number of distinct keys stored with [`Validator::records`].
    pub fn sorted(&self) -> bool {
        self.sorted
    }

    /// The value of the admin key `:/NAME`, if it was seen.
    pub fn admin(&self, name: &str) -> Option<&[u8]> {
        self.admin
            .get(&keys::admin(name))
            .map(|(v, _)| v.as_slice())
    }

    fn text(&self, name: &str) -> Option<String> {
        self.admin(name)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    fn line_of(&self, name: &str) -> u64 {
        self.admin
            .get(&keys::admin(name))
            .map(|(_, l)| *l)
            .unwrap_or(0)
    }

    /// The verdict.
    pub fn finish(&self) -> Result<Summary, NotAMinter> {
        self.check_presence()?;
        self.check_integers()?;
        let gen_type = self.text("generator_type").unwrap_or_default();
        if gen_type != "random" && gen_type != "sequential" {
            return Err(self.bad("generator_type", "expected \"random\" or \"sequential\""));
        }
        let template = self.text("template").unwrap_or_default();
        self.check_template(&template, &gen_type)?;
        if self.int("oacounter") < 0 {
            return Err(self.bad("oacounter", "a negative count"));
        }
        self.check_counters(&gen_type)?;
        Ok(self.summary(template, gen_type))
    }

    /// Records there are, no key twice, and the admin keys minting reads.
    fn check_presence(&self) -> Result<(), NotAMinter> {
        if self.records == 0 {
            return Err(NotAMinter(
                "not a Noid minter: the dump holds no records".into(),
            ));
        }
        if let Some((line, key)) = &self.duplicate {
            return Err(NotAMinter(format!("line {line}: duplicate key {key}")));
        }
        let missing: Vec<String> = REQUIRED
            .iter()
            .filter(|n| self.admin(n).is_none())
            .map(|n| format!(":/{n}"))
            .collect();
        if missing.len() == REQUIRED.len() {
            return Err(NotAMinter(format!(
                "not a Noid minter: none of the keys {} is present ({} read; is this the dump of some other database?)",
                missing.join(", "),
                records(self.records)
            )));
        }
        if !missing.is_empty() {
            return Err(NotAMinter(format!(
                "not a complete Noid minter: the dump lacks {} ({} read)",
                missing.join(", "),
                records(self.records)
            )));
        }
        Ok(())
    }

    /// The refusal of `:/NAME`'s value, naming its line.
    fn bad(&self, name: &str, what: &str) -> NotAMinter {
        NotAMinter(format!(
            "line {}: corrupt minter: :/{name} is \"{}\", {what}",
            self.line_of(name),
            self.text(name).unwrap_or_default().escape_debug()
        ))
    }

    /// `:/NAME` as an integer (0 when absent; [`Validator::check_integers`] has
    /// refused one that is present and not an integer).
    fn int(&self, name: &str) -> i64 {
        self.text(name)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(0)
    }

    fn check_integers(&self) -> Result<(), NotAMinter> {
        for name in INTEGERS {
            if let Some(v) = self.text(name) {
                if v.trim().parse::<i64>().is_err() {
                    return Err(self.bad(name, "not an integer"));
                }
            }
        }
        Ok(())
    }

    /// Perl stores whatever dbcreate was given; a template that parses must agree
    /// with the mask, prefix and generator type stored beside it.
    fn check_template(&self, template: &str, gen_type: &str) -> Result<(), NotAMinter> {
        let Ok(t) = parse_template(template) else {
            return Ok(());
        };
        let mask = self.text("mask").unwrap_or_default();
        if t.mask != mask {
            return Err(self.bad(
                "mask",
                &format!("but :/template \"{template}\" has the mask \"{}\"", t.mask),
            ));
        }
        if let Some(p) = self.text("prefix") {
            if p != t.prefix {
                return Err(self.bad(
                    "prefix",
                    &format!(
                        "but :/template \"{template}\" has the prefix \"{}\"",
                        t.prefix
                    ),
                ));
            }
        }
        if t.gen_type.as_str() != gen_type {
            return Err(self.bad(
                "generator_type",
                &format!("but :/template \"{template}\" is {}", t.gen_type),
            ));
        }
        Ok(())
    }

    /// The counter lists parse, and a random minter has every counter they name.
    fn check_counters(&self, gen_type: &str) -> Result<(), NotAMinter> {
        let saclist = self.text("saclist").unwrap_or_default();
        let sac = parse_saclist(&saclist).map_err(|e| self.bad("saclist", &e.to_string()))?;
        let sic = parse_siclist(&self.text("siclist").unwrap_or_default())
            .map_err(|e| self.bad("siclist", &e.to_string()))?;
        if gen_type != "random" {
            return Ok(());
        }
        for n in sac.iter().chain(&sic) {
            for field in ["top", "value"] {
                let name = format!("c{n}/{field}");
                match self.text(&name) {
                    None => {
                        return Err(NotAMinter(format!(
                            "not a complete Noid minter: the counter lists name c{n}, but the dump lacks :/{name}"
                        )))
                    }
                    Some(v) if v.trim().parse::<u64>().is_err() => {
                        return Err(self.bad(&name, "not a count"))
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }

    fn summary(&self, template: String, gen_type: String) -> Summary {
        let truthy = |name: &str| self.text(name).is_some_and(|v| !v.is_empty() && v != "0");
        Summary {
            template,
            gen_type,
            term: if truthy("longterm") {
                "long"
            } else if truthy("wrap") {
                "short"
            } else {
                "medium"
            },
            oacounter: self.int("oacounter"),
            version: self.text("version").unwrap_or_default(),
            records: self.records,
        }
    }
}

fn records(n: u64) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minter() -> Vec<(String, String)> {
        [
            (":/addcheckchar", "1"),
            (":/c0/top", "5"),
            (":/c0/value", "1"),
            (":/c1/top", "5"),
            (":/c1/value", "0"),
            (":/generator_type", "random"),
            (":/mask", "rdk"),
            (":/oacounter", "1"),
            (":/oatop", "10"),
            (":/prefix", "x"),
            (":/saclist", "c0 c1 "),
            (":/siclist", ""),
            (":/template", "x.rdk"),
            (":/total", "10"),
            (":/version", "0.424"),
            ("x3\t:/c", "i|20260101000000|me/me|1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    fn verdict(recs: &[(String, String)]) -> Result<Summary, NotAMinter> {
        let mut v = Validator::new();
        for (i, (k, val)) in recs.iter().enumerate() {
            v.observe(k.as_bytes(), val.as_bytes(), i as u64 + 5);
        }
        v.finish()
    }

    fn with(key: &str, value: Option<&str>) -> Vec<(String, String)> {
        let mut m = minter();
        m.retain(|(k, _)| k != key);
        if let Some(v) = value {
            m.push((key.into(), v.into()));
            m.sort();
        }
        m
    }

    #[test]
    fn a_minter_passes() {
        let s = verdict(&minter()).unwrap();
        assert_eq!(
            (s.template.as_str(), s.term, s.oacounter, s.records),
            ("x.rdk", "medium", 1, 16)
        );
    }

    #[test]
    fn clear_refusals() {
        assert_eq!(
            verdict(&[]).unwrap_err().0,
            "not a Noid minter: the dump holds no records"
        );
        let other = vec![
            ("apple".to_string(), "1".to_string()),
            ("pear".into(), "2".into()),
        ];
        assert_eq!(
            verdict(&other).unwrap_err().0,
            "not a Noid minter: none of the keys :/version, :/template, :/mask, :/generator_type, :/oacounter, :/oatop, :/total is present (2 records read; is this the dump of some other database?)"
        );
        assert_eq!(
            verdict(&with(":/version", None)).unwrap_err().0,
            "not a complete Noid minter: the dump lacks :/version (15 records read)"
        );
        assert_eq!(
            verdict(&with(":/oacounter", Some("x1"))).unwrap_err().0,
            "line 12: corrupt minter: :/oacounter is \"x1\", not an integer"
        );
        assert_eq!(
            verdict(&with(":/mask", Some("rddk"))).unwrap_err().0,
            "line 11: corrupt minter: :/mask is \"rddk\", but :/template \"x.rdk\" has the mask \"rdk\""
        );
        assert_eq!(
            verdict(&with(":/c1/top", None)).unwrap_err().0,
            "not a complete Noid minter: the counter lists name c1, but the dump lacks :/c1/top"
        );
        assert_eq!(
            verdict(&with(":/saclist", Some("c0 x1 "))).unwrap_err().0,
            "line 15: corrupt minter: :/saclist is \"c0 x1 \", bad counter name \"x1\" in counter list"
        );
        let mut dup = minter();
        dup.insert(1, dup[0].clone());
        assert_eq!(
            verdict(&dup).unwrap_err().0,
            "line 6: duplicate key :/addcheckchar"
        );
    }

    #[test]
    fn order_is_tracked() {
        let mut v = Validator::new();
        v.observe(b"b", b"", 1);
        v.observe(b"c", b"", 2);
        assert!(v.sorted());
        v.observe(b"a", b"", 3);
        assert!(!v.sorted());
    }
}
