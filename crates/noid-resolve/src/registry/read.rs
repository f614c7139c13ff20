//! Reading a registry file: ANVL records separated by blank lines.
//!
//! ```text
//! # Protein structures.
//! prefix: pdb:
//! name: Protein Data Bank
//! who: Worldwide Protein Data Bank
//! provider: rcsb https://www.rcsb.org/structure/$id
//! provider: pdbe https://www.ebi.ac.uk/pdbe/entry/pdb/{$id}
//! primary: rcsb
//! probe: rcsb http://127.0.0.1:8001/health
//! note: any other element is kept as it is
//! ```
//!
//! A line `NAME: VALUE` is an element; a line starting with a space or a TAB continues
//! the previous value on a new line; a line starting with `#` is a comment; a blank line
//! ends a record. Every record starts with `prefix:`. Every error names its line.
//! Names and values are decoded as [`noid_core::anvl`] writes them: a value's `%0a` is a
//! newline and `%25` a `%` (any other `%` is kept), a name's `%hh` the byte.

use std::fmt;

use super::{Level, PrefixRecord, Provider, Registry};
use noid_core::anvl;
use noid_core::ident::{Family, Parsed};

/// A bad registry file: what is wrong, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for RegistryError {}

/// Placeholder names a pattern may use, as `${NAME}`, `{$NAME}` or `$NAME`.
const PLACEHOLDERS: [&str; 6] = ["id", "blade", "suffix", "nlid", "naan", "scheme"];

/// One element as read: its line, name and value.
struct Element {
    line: usize,
    name: String,
    value: String,
}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, RegistryError> {
    Err(RegistryError {
        line,
        message: message.into(),
    })
}

impl Registry {
    /// Parse a registry file's text.
    pub fn parse(text: &str) -> Result<Registry, RegistryError> {
        parse(text)
    }
}

/// Parse the whole file.
fn parse(text: &str) -> Result<Registry, RegistryError> {
    let mut records: Vec<PrefixRecord> = Vec::new();
    let mut current: Vec<Element> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            if !current.is_empty() {
                records.push(record(std::mem::take(&mut current), &records)?);
            }
            continue;
        }
        if raw.starts_with('#') {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            let Some(last) = current.last_mut() else {
                return err(
                    line,
                    "a continuation line (it starts with a blank) must follow an element",
                );
            };
            last.value.push('\n');
            last.value.push_str(&anvl::decode_value(raw.trim()));
            continue;
        }
        let Some((name, value)) = raw.split_once(':') else {
            return err(
                line,
                format!("expected \"NAME: VALUE\", found {raw:?} (no colon)"),
            );
        };
        let name = anvl::decode_name(name.trim());
        if name.is_empty() || name.contains(char::is_whitespace) {
            return err(
                line,
                format!("bad element name {name:?} (one word before the colon)"),
            );
        }
        current.push(Element {
            line,
            name: name.into_owned(),
            value: anvl::decode_value(value.trim()).into_owned(),
        });
    }
    if !current.is_empty() {
        records.push(record(current, &records)?);
    }
    Ok(Registry::from_records(records))
}

/// One record from its elements; `done` are the records before it (for duplicates).
fn record(elements: Vec<Element>, done: &[PrefixRecord]) -> Result<PrefixRecord, RegistryError> {
    let first = &elements[0];
    if first.name != "prefix" {
        return err(
            first.line,
            format!(
                "a record starts with \"prefix: KEY\", not {:?} (records are separated by blank lines)",
                first.name
            ),
        );
    }
    let (prefix, level) = key(&first.value).or_else(|m| err(first.line, m))?;
    if let Some(other) = done.iter().find(|r| r.prefix == prefix) {
        return err(
            first.line,
            format!("{prefix} already has a record (line {})", other.line),
        );
    }
    let mut b = Building {
        r: PrefixRecord {
            prefix,
            level,
            name: None,
            who: None,
            providers: Vec::new(),
            primary: 0,
            elements: Vec::new(),
            line: first.line,
        },
        primary: None,
        probes: Vec::new(),
    };
    for e in elements.into_iter().skip(1) {
        b.element(e)?;
    }
    b.finish()
}

/// A record being read: `primary:` and `probe:` name providers, which may come later
/// in the record, so they are checked at its end.
struct Building {
    r: PrefixRecord,
    /// `primary:`'s line and code.
    primary: Option<(usize, String)>,
    /// Each `probe:`'s line, code and URL.
    probes: Vec<(usize, String, String)>,
}

impl Building {
    /// One element after `prefix:`.
    fn element(&mut self, e: Element) -> Result<(), RegistryError> {
        let (line, r) = (e.line, &mut self.r);
        let reserved = matches!(
            e.name.as_str(),
            "name" | "who" | "provider" | "primary" | "probe"
        );
        if reserved && e.value.is_empty() {
            return err(line, format!("{} has no value", e.name));
        }
        match e.name.as_str() {
            "prefix" => {
                return err(
                    line,
                    format!(
                        "a second prefix in the record of {} (line {}): separate records by a blank line",
                        r.prefix, r.line
                    ),
                )
            }
            "name" | "who" => {
                let slot = if e.name == "name" { &mut r.name } else { &mut r.who };
                if slot.is_some() {
                    return err(line, format!("a second {:?} in the record of {}", e.name, r.prefix));
                }
                *slot = Some(e.value);
            }
            "provider" => {
                let (code, pattern) = code_and_rest(&e.value)
                    .ok_or(())
                    .or_else(|()| err(line, "expected \"provider: CODE URL-PATTERN\""))?;
                if r.providers.iter().any(|p| p.code == code) {
                    return err(line, format!("a second provider {code:?} in the record of {}", r.prefix));
                }
                r.providers.push(Provider {
                    code: code.to_string(),
                    pattern: pattern.to_string(),
                    template: template(pattern),
                    probe: None,
                    slot: 0,
                });
            }
            "primary" => {
                if self.primary.is_some() {
                    return err(line, format!("a second primary in the record of {}", r.prefix));
                }
                self.primary = Some((line, e.value));
            }
            "probe" => {
                let (code, url) = code_and_rest(&e.value)
                    .ok_or(())
                    .or_else(|()| err(line, "expected \"probe: CODE https://HOST[:PORT]/PATH\""))?;
                check_probe_url(url).or_else(|m| err(line, m))?;
                self.probes.push((line, code.to_string(), url.to_string()));
            }
            _ => r.elements.push((e.name, e.value)),
        }
        Ok(())
    }

    /// The record, its `primary:` and `probe:`s matched to its providers.
    fn finish(mut self) -> Result<PrefixRecord, RegistryError> {
        let r = &mut self.r;
        if let Some((line, code)) = self.primary {
            match r.providers.iter().position(|p| p.code == code) {
                Some(i) => r.primary = i,
                None => {
                    return err(
                        line,
                        format!("primary {code:?} is not a provider of {}", r.prefix),
                    )
                }
            }
        }
        for (line, code, url) in self.probes {
            let Some(p) = r.providers.iter_mut().find(|p| p.code == code) else {
                return err(
                    line,
                    format!("probe of {code:?}, which is not a provider of {}", r.prefix),
                );
            };
            if p.probe.is_some() {
                return err(line, format!("a second probe of {code:?}"));
            }
            p.probe = Some(url);
        }
        Ok(self.r)
    }
}

/// `CODE REST`: a code of letters, digits, `.`, `_`, `-`, then the rest.
fn code_and_rest(value: &str) -> Option<(&str, &str)> {
    let (code, rest) = value.split_once(char::is_whitespace)?;
    let rest = rest.trim();
    let ok = !code.is_empty()
        && code
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'));
    (ok && !rest.is_empty()).then_some((code, rest))
}

/// A probe is a `HEAD` of an `http://` or `https://` URL: `http[s]://HOST[:PORT][/…]`.
fn check_probe_url(url: &str) -> Result<(), String> {
    let Some(rest) = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
    else {
        return Err(format!(
            "probe URL {url:?} does not start with http:// or https://"
        ));
    };
    let host = rest.split(['/', '?']).next().unwrap_or("");
    if host.is_empty() || url.contains(char::is_whitespace) {
        return Err(format!("probe URL {url:?} has no host, or has blanks"));
    }
    Ok(())
}

/// What a record's `prefix:` value may be, for the errors of [`key`].
const PREFIX_FORMS: &str = "a scheme (pdb:), a NAAN or DOI prefix (ark:/99999, doi:10.5072) \
                            or a shoulder (ark:/99999/fk4, doi:10.5072/FK2)";

/// The canonical key and level of a record's `prefix:` value.
///
/// A value whose key would not read back as itself is refused: the registry is written
/// out by its keys (`--write-registry`), and what is written must read the same again
/// (`pdXb:ark:/` once gave the key `pdxb:ark:`, which is no prefix at all).
pub(super) fn key(value: &str) -> Result<(String, Level), String> {
    let (k, level) = key_once(value)?;
    match key_once(&k) {
        Ok((again, l)) if again == k && l == level => Ok((k, level)),
        _ => Err(format!("prefix {value:?} is not {PREFIX_FORMS}")),
    }
}

/// [`key`] without the check that the key reads back as itself.
fn key_once(value: &str) -> Result<(String, Level), String> {
    let what = PREFIX_FORMS;
    if value.is_empty() || value.contains(char::is_whitespace) {
        return Err(format!("prefix {value:?} is not {what}"));
    }
    // An ARK prefix in the ARK specification's normal form (label, NAAN case, hyphens),
    // so that every spelling of it is the same key.
    let normal = noid_core::normalize::ark(value);
    let p = Parsed::new(normal.as_deref().unwrap_or(value));
    if matches!(p.family, Family::Schemeless | Family::Url) || p.ext.is_some() {
        return Err(format!("prefix {value:?} is not {what}"));
    }
    let norm = p.norm.trim_end_matches('/');
    if norm.len() <= p.scheme_key().len() {
        return Ok((p.scheme_key().to_string(), Level::Scheme));
    }
    if p.naan_key() == Some(norm) {
        return Ok((norm.to_string(), Level::Naan));
    }
    if p.shoulder_key() == Some(norm) {
        let key = match p.family {
            Family::Doi => format!("doi:{}", p.local_id().to_uppercase()),
            _ => norm.to_string(),
        };
        return Ok((key, Level::Shoulder));
    }
    Err(format!(
        "prefix {value:?} is not {what}; a shoulder is letters and one digit after the NAAN"
    ))
}

/// A pattern with `$NAME` and `{$NAME}` written `${NAME}` (identifiers.org writes
/// `{$id}`, N2T `$id`), so that the resolver's one expansion serves them all.
pub(super) fn template(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut rest = pattern;
    while let Some(i) = rest.find(['$', '{']) {
        out.push_str(&rest[..i]);
        let at = &rest[i..];
        // `${…}` already: copied as it is.
        if at.starts_with("${") {
            let end = at.find('}').map_or(at.len(), |e| e + 1);
            out.push_str(&at[..end]);
            rest = &at[end..];
            continue;
        }
        let braced = at.starts_with("{$");
        let start = if braced { 2 } else { 1 };
        let name = PLACEHOLDERS.iter().find(|n| {
            let Some(after) = at.get(start..).and_then(|s| s.strip_prefix(**n)) else {
                return false;
            };
            match braced {
                true => after.starts_with('}'),
                false => {
                    at.starts_with('$')
                        && !after
                            .bytes()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                }
            }
        });
        match name {
            Some(n) => {
                out.push_str("${");
                out.push_str(n);
                out.push('}');
                rest = &at[start + n.len() + usize::from(braced)..];
            }
            None => {
                out.push_str(&at[..1]);
                rest = &at[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
