//! What a bounded minter does when its namespace is used up (EggNog's "atlast"
//! setting, spec-binder-api §4): grow the template (`addN`), stop with an exit status
//! (`stopN`) or start over (`wrapN`). A minter without the setting behaves as Perl Noid
//! 0.424 does: long and medium term stop, short term wraps.

use std::fmt;
use std::str::FromStr;

/// The exhaustion policy chosen at `dbcreate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtLast {
    /// `addN`: grow the template by `N` characters (see
    /// [`crate::template::Template::grown`]) and keep minting; the counters restart.
    Add(usize),
    /// `stopN`: refuse to mint, and make the command exit with status `N` (default 1).
    Stop(u8),
    /// `wrapN`: restart the counters and re-issue identifiers as a short-term minter
    /// does; the minting command exits with status `N` (default 0).
    Wrap(u8),
}

/// An `atlast` value that is not `addN`, `stop[N]` or `wrap[N]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtLastError {
    /// The value given.
    pub given: String,
}

impl fmt::Display for AtLastError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "atlast ({}) must be addN (N from 1 to 99: grow by N characters), stop[N] or wrap[N] (N an exit status from 0 to 255).",
            self.given
        )
    }
}

impl std::error::Error for AtLastError {}

impl FromStr for AtLast {
    type Err = AtLastError;

    fn from_str(s: &str) -> Result<AtLast, AtLastError> {
        let err = || AtLastError {
            given: s.to_string(),
        };
        let number = |digits: &str| -> Option<u32> {
            if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            digits.parse().ok()
        };
        let status = |digits: &str, default: u8| -> Result<u8, AtLastError> {
            if digits.is_empty() {
                return Ok(default);
            }
            number(digits)
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(err)
        };
        if let Some(n) = s.strip_prefix("add") {
            let n = number(n).filter(|n| (1..=99).contains(n)).ok_or_else(err)?;
            Ok(AtLast::Add(n as usize))
        } else if let Some(n) = s.strip_prefix("stop") {
            Ok(AtLast::Stop(status(n, 1)?))
        } else if let Some(n) = s.strip_prefix("wrap") {
            Ok(AtLast::Wrap(status(n, 0)?))
        } else {
            Err(err())
        }
    }
}

impl fmt::Display for AtLast {
    /// The stored spelling, always with its number (`add3`, `stop1`, `wrap0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtLast::Add(n) => write!(f, "add{n}"),
            AtLast::Stop(n) => write!(f, "stop{n}"),
            AtLast::Wrap(n) => write!(f, "wrap{n}"),
        }
    }
}

/// The note a mint that grew the template reports after its identifiers, in EggNog's
/// words.
pub fn growth_note(n: usize, from: &str, to: &str) -> String {
    format!("note: chars added (via add{n}) to template '{from}' to create '{to}'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::parse_template;

    #[test]
    fn parse_and_print() {
        for (given, parsed, shown) in [
            ("add3", AtLast::Add(3), "add3"),
            ("add1", AtLast::Add(1), "add1"),
            ("stop", AtLast::Stop(1), "stop1"),
            ("stop7", AtLast::Stop(7), "stop7"),
            ("wrap", AtLast::Wrap(0), "wrap0"),
            ("wrap255", AtLast::Wrap(255), "wrap255"),
        ] {
            let p: AtLast = given.parse().unwrap();
            assert_eq!(p, parsed, "{given}");
            assert_eq!(p.to_string(), shown);
        }
        for bad in [
            "", "add", "add0", "add100", "stop256", "wrap-1", "grow3", "Add3", "stop 1", "add+3",
        ] {
            assert_eq!(
                bad.parse::<AtLast>().unwrap_err(),
                AtLastError { given: bad.into() },
                "{bad}"
            );
        }
    }

    /// EggNog's growth, spec-binder-api §4: `eedk` → `eedeedk` → `eedeedeedk`, with
    /// the namespace sizes it gives.
    #[test]
    fn add3_grows_like_eggnog() {
        let t = parse_template("99999/fk4.reedk").unwrap();
        assert_eq!(t.total, 8_410);
        let t2 = t.grown(3).unwrap();
        assert_eq!(
            (t2.template.as_str(), t2.total),
            ("fk4.reedeedk", 70_728_100)
        );
        let t3 = t2.grown(3).unwrap();
        assert_eq!(t3.mask, "reedeedeedk");
        assert_eq!(t3.total, 70_728_100 * 29 * 29 * 10);
        assert_eq!(
            growth_note(3, "fk4.reedk", "fk4.reedeedk"),
            "note: chars added (via add3) to template 'fk4.reedk' to create 'fk4.reedeedk'"
        );
    }

    #[test]
    fn short_masks_grow_by_one() {
        let t = parse_template(".rdk").unwrap();
        assert_eq!(t.grown(3).unwrap().template, ".rddk");
        assert_eq!(
            parse_template(".sde").unwrap().grown(1).unwrap().template,
            ".sdde"
        );
        assert_eq!(
            parse_template("x.rEv").unwrap().grown(2).unwrap().template,
            "x.rEvEv"
        );
        assert_eq!(
            parse_template("lui6-3").unwrap().grown(3).unwrap().template,
            "lui9-3"
        );
        assert_eq!(
            parse_template("f5.lui6")
                .unwrap()
                .grown(3)
                .unwrap()
                .template,
            "f5.lui9"
        );
        assert!(parse_template("lui13").unwrap().grown(3).is_err());
    }
}
