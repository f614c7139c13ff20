//! The identifier gate: every identifier a caller asks to change (whichever way in: the
//! CLI, bulk mode, the API, the CGI, the console, the upload) passes here before
//! anything is written, through [`crate::bind::authorize_change`].
//!
//! It gives the one spelling the binder stores (`noid_core::spelling`: `ark:13030/x`,
//! `ARK:/13030/x` and `https://n2t.net/ark:/13030/x` are one identifier), refuses an
//! identifier whose check character does not match when a minter it belongs to adds one
//! (a typo such as `…g1l` for `…g11` must not create a new record), and, for a binder
//! whose writes are limited to some shoulders, refuses identifiers outside them.
//!
//! The minter's own template is always one of the shoulders checked; a binder without a
//! template (a populator's binder) learns its populator's minters from `noid serve`
//! ([`Gate::admit_shoulders`]).

use std::borrow::Cow;

use noid_core::spelling::{self, Canon};
use noid_template::repertoire::Repertoire;
use noid_template::validate::validate_ids;

use crate::error::Refusal;
use crate::state::Minter;

/// A minter whose identifiers a binder checks: its template and NAAN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shoulder {
    /// The minter's template (`13030/f5.reedeedk` is NAAN `13030`, template
    /// `f5.reedeedk`).
    pub template: String,
    /// The minter's NAAN (empty for none).
    pub naan: String,
    /// Its first part: `NAAN/` and the template's prefix (`13030/f5`).
    pub firstpart: String,
    /// The repertoire of its check character, when it adds one.
    pub check: Option<Repertoire>,
}

impl Shoulder {
    /// The shoulder of minter `m`, if it mints from a template (not bind-only).
    pub fn of(m: &Minter) -> Option<Shoulder> {
        (!m.template.is_empty() && m.lui.is_none()).then(|| Shoulder {
            template: m.template.clone(),
            naan: m.naan.clone(),
            firstpart: m.firstpart.clone(),
            check: m.check,
        })
    }

    /// `ark:/NAAN/PREFIX`, the shoulder as a populator writes under it.
    pub fn ark(&self) -> String {
        if self.naan.is_empty() {
            self.firstpart.clone()
        } else {
            format!("ark:/{}", self.firstpart)
        }
    }

    /// Whether bare identifier `id` has this shoulder's shape and a check character
    /// that does not match: a mistyped identifier of this minter. An identifier of
    /// another shape under the same first part is not this minter's and not judged.
    fn mistyped(&self, id: &str) -> bool {
        let Some(check) = self.check else {
            return false;
        };
        if !id.starts_with(&self.firstpart) || id.len() <= self.firstpart.len() {
            return false;
        }
        let Some((_, body)) = id.as_bytes().split_last() else {
            return false;
        };
        let right = check.check_char(body);
        if id.as_bytes().last() == Some(&right) {
            return false;
        }
        let mut fixed = id[..id.len() - id.chars().last().map_or(0, char::len_utf8)].to_string();
        fixed.push(char::from(right));
        matches!(
            validate_ids("-", &self.template, &self.naan, &[fixed.as_str()]).as_deref(),
            Ok([line]) if line.starts_with("id: ")
        )
    }
}

/// A binder's rules for the identifiers it is asked to change. The default admits any
/// spelling a key can hold and writes ARKs as `ark:/NAAN/…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gate {
    canon: Canon,
    shoulders: Vec<Shoulder>,
    /// Only identifiers under these shoulders (`ark:/…` forms) may be changed; any
    /// identifier when `None`.
    limit: Option<Vec<String>>,
    /// How targets are checked ([`Gate::admit_value`]).
    pub targets: Targets,
}

/// How a binder checks the targets (`_t`) it is asked to store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Targets {
    /// Any value (Perl Noid's `bind`: the CLI).
    #[default]
    Any,
    /// No target that runs code in a browser (`javascript:`, `vbscript:`, `data:`):
    /// the egg language over `noid serve` (the API, bulk, egg uploads), which stores
    /// EggNog's other values (`zaf`, `${suffix}` patterns) as given.
    NoCode,
    /// Every line an absolute URL or a stored code ([`target_problem`]): the console's
    /// forms and sheet uploads, where people type and paste targets.
    Checked,
}

/// What a populator's binder admits beyond its own gate (`noid serve` builds it from
/// the populator's configuration and minters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Admission {
    /// The populator's minters: their check characters are verified, their bare
    /// `NAAN/…` read as ARKs.
    pub shoulders: Vec<Shoulder>,
    /// Only identifiers under `shoulders` may be changed (when there are any).
    pub limit: bool,
    /// How targets are checked ([`Gate::admit_value`]).
    pub targets: Targets,
}

const RUNS_CODE: &str = "a target must not run code in a browser (javascript:, vbscript:, data:)";

/// Whether `target` (after an optional redirect code) has a scheme whose URLs a browser
/// runs as code (`javascript:`, `vbscript:`, `data:`, any case, leading spaces and
/// controls skipped as browsers skip them).
pub fn runs_code(target: &str) -> bool {
    let t = target.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
    let t = match t.as_bytes() {
        [b'3' | b'4', _, _, b' ', ..] => t[4..].trim_start(),
        _ => t,
    };
    let scheme: String = t
        .chars()
        .take_while(|c| *c != ':')
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    t.contains(':') && matches!(scheme.as_str(), "javascript" | "vbscript" | "data")
}

/// Why `target`, one line of a `_t` value, cannot be a target, or `None` when it can:
/// an absolute URL (`scheme:` and more; `//host` for `http`, `https` and `ftp`), or a
/// redirect code (`^[34][01][0123478] +`, docs/RESOLUTION.md) followed by a URL, or, for
/// a 4xx code, by any text (`410 withdrawn`). Schemes that run code in a browser
/// (`javascript:`, `vbscript:`, `data:`) are refused.
pub fn target_problem(target: &str) -> Option<&'static str> {
    let b = target.as_bytes();
    let coded = b.len() >= 4
        && matches!(b[0], b'3' | b'4')
        && matches!(b[1], b'0' | b'1')
        && matches!(b[2], b'0'..=b'4' | b'7' | b'8')
        && b[3] == b' ';
    let url = if coded {
        if b[0] == b'4' {
            return None;
        }
        target[4..].trim_start_matches(' ')
    } else {
        target
    };
    let Some(n) = noid_core::ident::scheme_len(url) else {
        return Some(
            "a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)",
        );
    };
    if url.contains(char::is_whitespace) {
        return Some("a URL holds no white space (several targets go on several lines)");
    }
    let scheme = url[..n - 1].to_ascii_lowercase();
    let rest = &url[n..];
    if runs_code(url) {
        return Some(RUNS_CODE);
    }
    if matches!(scheme.as_str(), "http" | "https" | "ftp") {
        let host = rest
            .strip_prefix("//")
            .map(|r| r.split(['/', '?', '#']).next().unwrap_or(""));
        if host.is_none_or(str::is_empty) {
            return Some("an http(s) target needs a host: https://host/…");
        }
    } else if rest.is_empty() {
        return Some(
            "a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)",
        );
    }
    None
}

impl Default for Gate {
    fn default() -> Gate {
        Gate {
            canon: Canon::Ark { naans: Vec::new() },
            shoulders: Vec::new(),
            limit: None,
            targets: Targets::Any,
        }
    }
}

impl Gate {
    /// The gate of minter `m`'s directory: a minter with a NAAN stores that NAAN's
    /// ARKs bare, as it mints them; any other directory (a binder made by a plain
    /// `dbcreate`, a minter without a NAAN) stores ARKs as `ark:/NAAN/…`. Its own check
    /// character is verified.
    pub fn of(m: &Minter) -> Gate {
        let canon = if m.naan.is_empty() {
            Canon::Ark { naans: Vec::new() }
        } else {
            // A minter whose identifiers hold hyphens keeps its own as minted.
            let prefix = m.firstpart.get(m.naan.len()..).unwrap_or_default();
            Canon::Bare {
                naan: m.naan.to_ascii_lowercase(),
                as_minted: m.lui.is_some()
                    || noid_core::normalize::identifier_part(prefix) != prefix,
            }
        };
        Gate {
            canon,
            shoulders: Shoulder::of(m).into_iter().collect(),
            limit: None,
            targets: Targets::Any,
        }
    }

    /// This gate with what a populator's binder admits added (`noid serve`'s).
    pub fn admitting(mut self, a: &Admission) -> Gate {
        if let Canon::Ark { naans } = &mut self.canon {
            for s in &a.shoulders {
                let naan = s.naan.to_ascii_lowercase();
                if !naan.is_empty() && !naans.contains(&naan) {
                    naans.push(naan);
                }
            }
        }
        if a.limit && !a.shoulders.is_empty() {
            self.limit = Some(a.shoulders.iter().map(Shoulder::ark).collect());
        }
        self.targets = a.targets;
        self.shoulders.extend(a.shoulders.iter().cloned());
        self
    }

    /// Whether `value` may be stored as element `elem`'s value: a target (`_t`) as
    /// [`Gate::targets`] says, each of its lines alone ([`target_problem`]).
    pub fn admit_value(&self, id: &str, elem: &str, value: &[u8]) -> Result<(), Refusal> {
        if self.targets == Targets::Any || elem != "_t" {
            return Ok(());
        }
        let text = std::str::from_utf8(value).map_err(|_| Refusal::BadTarget {
            id: id.to_string(),
            target: String::from_utf8_lossy(value).into_owned(),
            why: "a target must be UTF-8 text",
        })?;
        for line in text.split('\n') {
            let problem = match self.targets {
                Targets::Checked => target_problem(line),
                _ => runs_code(line).then_some(RUNS_CODE),
            };
            if let Some(why) = problem {
                return Err(Refusal::BadTarget {
                    id: id.to_string(),
                    target: line.to_string(),
                    why,
                });
            }
        }
        Ok(())
    }

    /// The spelling this binder stores `given` under, when the gate would write it
    /// otherwise (`ark:13030/x`, `13030/x-y` in a minter's directory): what `noid check`
    /// looks for in an existing store. None for a spelling the gate cannot store.
    pub fn stored_spelling(&self, given: &str) -> Option<String> {
        match spelling::canonical(given, &self.canon).ok()? {
            Cow::Owned(stored) => Some(stored),
            Cow::Borrowed(_) => None,
        }
    }

    /// The spelling this binder stores `given` under, when it is another spelling: a
    /// read that found nothing under `given` looks there (records written before the
    /// gate keep their spelling, and are found as given).
    pub fn respelled(&self, given: &str) -> Option<String> {
        if let Some(stored) = self.stored_spelling(given) {
            return Some(stored);
        }
        // A bare `NAAN/…` in a binder that stores ARKs labelled (the CLI on a
        // populator's binder knows no populator's NAANs): a read may look there too.
        match (&self.canon, given.split_once('/')) {
            (Canon::Ark { .. }, Some((naan, rest)))
                if !rest.is_empty() && spelling::is_naan_shaped(naan) =>
            {
                let labelled = format!("ark:/{naan}/{rest}");
                Some(match spelling::canonical(&labelled, &self.canon) {
                    Ok(stored) => stored.into_owned(),
                    Err(_) => labelled,
                })
            }
            _ => None,
        }
    }

    /// The spelling `given` is stored under here, or why it cannot be changed.
    pub fn admit<'a>(&self, given: &'a str) -> Result<Cow<'a, str>, Refusal> {
        let id = spelling::canonical(given, &self.canon).map_err(|why| Refusal::Unspellable {
            id: given.to_string(),
            why,
        })?;
        let bare = id.strip_prefix("ark:/").unwrap_or(&id);
        if let Some(s) = self.shoulders.iter().find(|s| s.mistyped(bare)) {
            return Err(Refusal::CheckCharacter {
                id: id.into_owned(),
                template: if s.naan.is_empty() {
                    s.template.clone()
                } else {
                    format!("{}/{}", s.naan, s.template)
                },
            });
        }
        if let Some(limit) = &self.limit {
            // A shoulder is `ark:/NAAN/PREFIX`, or a bare `PREFIX` for a minter without
            // a NAAN; either is matched against the identifier without its label.
            let under = |l: &String| match l.strip_prefix("ark:/") {
                Some(shoulder) => bare.starts_with(shoulder),
                None => id.starts_with(l.as_str()),
            };
            if !limit.iter().any(under) {
                return Err(Refusal::OutsideShoulders {
                    id: id.into_owned(),
                    shoulders: limit.clone(),
                });
            }
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::MemLookup;

    /// A minter made by `noid dbcreate TEMPLATE long 13030 example.org x` (a binder
    /// made by a plain `noid dbcreate` for an empty template), loaded from memory.
    fn minter(template: &str) -> Minter {
        let minter = !template.is_empty();
        made(
            minter.then_some(template),
            minter.then_some(["long", "13030", "example.org", "x"]),
        )
    }

    /// A minter made by `noid dbcreate TEMPLATE [TERM NAAN NAA SUBNAA]`, loaded.
    fn made(template: Option<&str>, naa: Option<[&str; 4]>) -> Minter {
        let created = crate::create::dbcreate(&crate::create::CreateArgs {
            template,
            term: naa.map(|a| a[0]),
            naan: naa.map(|a| a[1]),
            naa: naa.map(|a| a[2]),
            subnaa: naa.map(|a| a[3]),
            contact: "test",
            when: "20260101000000",
            where_: "host:/d",
            dbdir_display: "d",
            samples: (0, 0),
            atlast: None,
            lui_key: [0; 16],
        })
        .expect("dbcreate");
        let store = MemLookup::new();
        for (k, v) in created.keys {
            store.insert(noid_core::keys::admin(&k), v);
        }
        Minter::load(&store).expect("load")
    }

    #[test]
    fn a_minter_stores_its_own_arks_bare_and_refuses_a_check_character_typo() {
        let g = Gate::of(&minter("f5.reedeedk"));
        for given in [
            "13030/f54x54g11",
            "ark:13030/f54x54g11",
            "ARK:/13030/f54x54g11",
            "https://n2t.net/ark:/13030/f54x54g11",
        ] {
            assert_eq!(g.admit(given).unwrap(), "13030/f54x54g11", "{given}");
        }
        let typo = g.admit("ark:/13030/f54x54g1l").unwrap_err();
        assert_eq!(
            typo.to_string(),
            "error: 13030/f54x54g1l: its check character does not match (minter 13030/f5.reedeedk): a character is mistyped"
        );
        // Another shape under the same first part is not this minter's to judge; its
        // hyphens go, as the ARK draft's normal form says (issue 47).
        assert_eq!(g.admit("13030/f5-legacy").unwrap(), "13030/f5legacy");
        assert_eq!(g.admit("ark:/13030/f5%7e‐x").unwrap(), "13030/f5%7Ex");
        assert_eq!(g.respelled("13030/f5-x").as_deref(), Some("13030/f5x"));
        // A binder's read of a bare ARK looks under its normal form.
        let binder = Gate::default();
        assert_eq!(
            binder.respelled("13030/x9-ab-cd").as_deref(),
            Some("ark:/13030/x9abcd")
        );
    }

    /// A LUI minter binds the dashed spelling it mints (its resolver step reads every
    /// other spelling), so its own ARKs keep their hyphens; another NAAN's lose them.
    #[test]
    fn a_lui_minter_keeps_its_own_arks_as_minted() {
        let g = Gate::of(&minter("f5.lui12-4"));
        assert_eq!(
            g.admit("ark:/13030/f5tw0t-ywdj-94").unwrap(),
            "13030/f5tw0t-ywdj-94"
        );
        assert_eq!(g.admit("ark:/99999/x-y").unwrap(), "ark:/99999/xy");
    }

    #[test]
    fn a_binder_stores_arks_labelled_and_checks_its_populators_minters() {
        let g = Gate::of(&minter(""));
        assert_eq!(g.admit("13030/f54x54g11").unwrap(), "13030/f54x54g11");
        let g = g.admitting(&Admission {
            shoulders: Shoulder::of(&minter("f5.reedeedk")).into_iter().collect(),
            ..Admission::default()
        });
        assert_eq!(g.admit("13030/f54x54g11").unwrap(), "ark:/13030/f54x54g11");
        assert_eq!(
            g.admit("ark:13030/f54x54g11").unwrap(),
            "ark:/13030/f54x54g11"
        );
        assert!(matches!(
            g.admit("ark:/13030/f54x54g1l"),
            Err(Refusal::CheckCharacter { .. })
        ));
        assert_eq!(g.admit("ark:/99999/x").unwrap(), "ark:/99999/x");
    }

    #[test]
    fn a_limited_binder_refuses_identifiers_outside_its_shoulders() {
        let g = Gate::of(&minter("")).admitting(&Admission {
            shoulders: Shoulder::of(&minter("f5.reedeedk")).into_iter().collect(),
            limit: true,
            targets: Targets::Any,
        });
        assert_eq!(
            g.admit("ark:/13030/f54x54g11").unwrap(),
            "ark:/13030/f54x54g11"
        );
        assert_eq!(
            g.admit("ark:/99999/x").unwrap_err().to_string(),
            "error: ark:/99999/x: this populator writes only identifiers under ark:/13030/f5"
        );
        assert_eq!(g.admit("13030/f5x").unwrap(), "ark:/13030/f5x");
        // A minter without a NAAN: its shoulder is its bare prefix.
        let g = Gate::of(&minter("")).admitting(&Admission {
            shoulders: Shoulder::of(&made(Some("fk4.reedeedk"), None))
                .into_iter()
                .collect(),
            limit: true,
            targets: Targets::Any,
        });
        assert_eq!(g.admit("fk4x").unwrap(), "fk4x");
        assert_eq!(
            g.admit("gk4x").unwrap_err().to_string(),
            "error: gk4x: this populator writes only identifiers under fk4"
        );
    }

    #[test]
    fn targets_are_absolute_urls_or_stored_codes() {
        for ok in [
            "https://example.org/x",
            "http://a",
            "ftp://ftp.example.org/f",
            "mailto:someone@example.org",
            "urn:nbn:de:1234",
            "410 withdrawn in 2024: duplicate record",
            "410 ",
            "301 https://example.org/moved",
            "https://example.org/${id}",
        ] {
            assert_eq!(target_problem(ok), None, "{ok}");
        }
        for (bad, why) in [
            ("www.example.edu/x", "a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)"),
            ("https://example.org/a https://example.org/b", "a URL holds no white space (several targets go on several lines)"),
            ("javascript:alert(1)", "a target must not run code in a browser (javascript:, vbscript:, data:)"),
            ("JavaScript:alert(1)", "a target must not run code in a browser (javascript:, vbscript:, data:)"),
            ("data:text/html,x", "a target must not run code in a browser (javascript:, vbscript:, data:)"),
            ("https:/example.org", "an http(s) target needs a host: https://host/…"),
            ("301 www.example.org", "a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)"),
            ("", "a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)"),
        ] {
            assert_eq!(target_problem(bad), Some(why), "{bad}");
        }
        let g = Gate::default().admitting(&Admission {
            targets: Targets::Checked,
            ..Admission::default()
        });
        assert!(g
            .admit_value("x", "_t", b"https://a.org/1\nhttps://a.org/2")
            .is_ok());
        assert_eq!(
            g.admit_value("x", "_t", b"https://a.org/1\nwww.b.org").unwrap_err().to_string(),
            "error: x: \"www.b.org\" cannot be a target: a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)"
        );
        assert!(g.admit_value("x", "what", b"www.b.org").is_ok());
        assert!(Gate::default().admit_value("x", "_t", b"www.b.org").is_ok());
        let no_code = Gate::default().admitting(&Admission {
            targets: Targets::NoCode,
            ..Admission::default()
        });
        assert!(no_code.admit_value("x", "_t", b"zaf").is_ok());
        assert!(no_code.admit_value("x", "_t", b"999 zaf").is_ok());
        for code in [
            "javascript:alert(1)",
            " JavaScript:x",
            "java\tscript:x",
            "301 data:text/html,x",
            "https://a.org\nvbscript:x",
        ] {
            assert_eq!(
                no_code
                    .admit_value("x", "_t", code.as_bytes())
                    .unwrap_err()
                    .to_string(),
                format!(
                    "error: x: {:?} cannot be a target: {RUNS_CODE}",
                    code.lines().last().unwrap()
                ),
                "{code}"
            );
        }
    }
}
