//! The `validate` command's per-identifier verdicts (spec §5, "validate"), also used
//! by `hold` and `queue` on generator-only minters to refuse foreign identifiers.
//!
//! Each identifier gets one line, `id: ID` or `iderr: …`, in the order and with the
//! exact wording of Perl Noid 0.424, because scripts parse this output.

use crate::checkchar::checkchar;
use crate::lui::{LuiError, LuiShape};
use crate::repertoire::Repertoire;
use crate::template::{parse_template, Template};

/// Message when no identifier was given.
const NO_IDS: &str = "error: must specify a template and at least one identifier.";

/// Validates `ids` against a template and returns one line per identifier, or the
/// command-level error message.
///
/// * `template_arg` is the template given on the command line; `-` means the
///   minter's own template `minter_template` (as stored under `:/template`; empty
///   for a bind-only minter, which then accepts every non-empty identifier).
/// * `minter_naan` is the minter's `:/naan`. Even with an explicit template, the
///   identifier must start with this NAAN and `/`, as in Perl.
///
/// Checks, per identifier, in Perl's order: empty; `:/` (only `:/idmap/…` is
/// accepted); the leading NAAN + `/` + prefix; the check character over the whole
/// identifier (a trailing `+` passes, as Perl's `checkchar` accepts it); then each
/// remaining character against the mask positions after the generator letter (`d`
/// digits, `e` extended digits, `k` anything) and finally the length. `z` masks are
/// checked as fixed length, as Perl does.
///
/// Perl compared prefixes and characters with regexes built from the identifier
/// itself, so metacharacters in an identifier could pass wrongly or crash the
/// program; this port compares literally instead.
pub fn validate_ids(
    template_arg: &str,
    minter_template: &str,
    minter_naan: &str,
    ids: &[&str],
) -> Result<Vec<String>, String> {
    if ids.is_empty() {
        return Err(NO_IDS.to_string());
    }
    let template = if template_arg == "-" {
        if minter_template.is_empty() || minter_template == "0" {
            // Blanket validation of a bind-only minter: Perl's
            // `grep(s/^(.)/id: $1/, @ids)` drops ids whose first character is
            // missing or a newline.
            return Ok(ids
                .iter()
                .filter(|id| !id.is_empty() && !id.starts_with('\n'))
                .map(|id| format!("id: {id}"))
                .collect());
        }
        // The stored :/prefix and :/mask come from parsing the stored template; a
        // template that could not mint stored them empty.
        parse_template(minter_template).ok()
    } else {
        match parse_template(template_arg) {
            Ok(t) => Some(t),
            Err(e) => return Err(format!("error: template {template_arg} bad: {e}")),
        }
    };
    let (prefix, mask, check, lui) = match template {
        Some(Template {
            prefix,
            mask,
            check,
            lui,
            ..
        }) => (prefix, mask, check, lui),
        None => Default::default(),
    };

    // Perl: `$first = $naan || ""; $first and $first .= "/"; $first .= $prefix`.
    let mut first = String::new();
    if !minter_naan.is_empty() && minter_naan != "0" {
        first.push_str(minter_naan);
        first.push('/');
    }
    first.push_str(&prefix);

    if let Some(shape) = lui {
        return Ok(ids
            .iter()
            .map(|id| validate_lui(id, template_arg, &first, shape))
            .collect());
    }
    // The mask positions an identifier's variable part is checked against: the
    // generator letter is dropped, `k` stays and accepts any character.
    let positions: Vec<char> = mask.chars().skip(1).collect();

    Ok(ids
        .iter()
        .map(|id| validate_one(id, template_arg, &first, check, &positions))
        .collect())
}

/// Perl's `\s`: ASCII whitespace including vertical tab.
fn is_perl_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0B' | '\x0C')
}

/// The verdict for the checks every identifier goes through first (empty, `:/`, the
/// first part): `Err(line)` ends validation, `Ok(rest)` is the part after `first`.
fn validate_start<'a>(id: &'a str, first: &str) -> Result<&'a str, String> {
    if id.chars().all(is_perl_space) {
        return Err("iderr: can't validate an empty identifier".to_string());
    }
    if let Some(rest) = id.strip_prefix(":/") {
        // `^:/idmap/.+`: at least one character other than newline after the slash.
        return Err(match rest.strip_prefix("idmap/") {
            Some(elem) if elem.chars().next().is_some_and(|c| c != '\n') => format!("id: {id}"),
            _ => "iderr: identifiers must not start with \":/\".".to_string(),
        });
    }
    id.strip_prefix(first)
        .ok_or_else(|| format!("iderr: {id} should begin with {first}."))
}

/// The verdict line for one identifier.
fn validate_one(
    id: &str,
    template: &str,
    first: &str,
    check: Option<Repertoire>,
    positions: &[char],
) -> String {
    let varpart = match validate_start(id, first) {
        Ok(v) => v,
        Err(line) => return line,
    };
    let check_fails = match check {
        None => false,
        // Perl tests the result for truth: undef and "0" (from `checkchar("+")`) fail.
        Some(Repertoire::Betanumeric) => checkchar(id).is_none_or(|s| s == "0"),
        // Extended repertoires may hold `+`, so there is no placeholder to accept.
        Some(r) => match id.as_bytes().split_last() {
            Some((last, body)) => *last != r.check_char(body),
            None => true,
        },
    };
    if check_fails {
        return format!("iderr: {id} has a check character error");
    }
    let mut mask = positions.iter();
    for c in varpart.chars() {
        let Some(m) = mask.next() else {
            return format!("iderr: {id} longer than specified template ({template})");
        };
        let Some(r) = Repertoire::from_mask_char(*m as u8).filter(|_| m.is_ascii()) else {
            continue; // `k`: any character.
        };
        if !(c.is_ascii() && r.contains(c as u8)) {
            return format!(
                "iderr: {id} char '{c}' conflicts with template ({template}) char '{m}' ({})",
                r.description()
            );
        }
    }
    if mask.next().is_some() {
        return format!("iderr: {id} shorter than specified template ({template})");
    }
    format!("id: {id}")
}

/// The verdict line for an identifier of a LUI minter: any spelling that normalises to
/// a LUI of the minter's shape with a good checksum is valid, and the line gives its
/// canonical spelling.
fn validate_lui(id: &str, template: &str, first: &str, shape: LuiShape) -> String {
    let varpart = match validate_start(id, first) {
        Ok(v) => v,
        Err(line) => return line,
    };
    match shape.canonical(varpart) {
        Ok(lui) => format!("id: {first}{lui}"),
        Err(LuiError::BadCharacter { c }) => format!(
            "iderr: {id} char '{c}' conflicts with template ({template}) (Crockford base32)"
        ),
        Err(LuiError::BadLength { length, expected }) if length < expected => {
            format!("iderr: {id} shorter than specified template ({template})")
        }
        Err(LuiError::BadLength { .. }) => {
            format!("iderr: {id} longer than specified template ({template})")
        }
        Err(LuiError::BadChecksum | LuiError::TooLarge) => {
            format!("iderr: {id} has a check character error")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F5: &str = "f5.reedeedk";

    fn v(t: &str, ids: &[&str]) -> Vec<String> {
        validate_ids(t, F5, "13030", ids).unwrap()
    }

    #[test]
    fn conformance_vector() {
        assert_eq!(
            v(
                "-",
                &["13030/f54x54g11", "13030/f54y54g11", "13030/f54x45g11"]
            ),
            vec![
                "id: 13030/f54x54g11",
                "iderr: 13030/f54y54g11 has a check character error",
                "iderr: 13030/f54x45g11 has a check character error",
            ]
        );
    }

    #[test]
    fn command_level_errors() {
        assert_eq!(
            validate_ids("-", F5, "13030", &[]).unwrap_err(),
            "error: must specify a template and at least one identifier."
        );
        assert_eq!(
            validate_ids("ab.rdqdk", F5, "13030", &["x"]).unwrap_err(),
            "error: template ab.rdqdk bad: parse_template: a mask may contain only the letters 'd' or 'e'."
        );
        assert_eq!(
            validate_ids(".r", F5, "", &["x"]).unwrap_err(),
            "error: template .r bad: parse_template: exactly one check character (k) is allowed, and it may\nonly appear at the end of a string of one or more mask characters."
        );
        assert_eq!(
            validate_ids("", F5, "", &["x"]).unwrap_err(),
            "error: template  bad: parse_template: no minting possible."
        );
        // The id check comes before the template is looked at.
        assert_eq!(validate_ids(".q", F5, "", &[]).unwrap_err(), NO_IDS);
    }

    #[test]
    fn empty_and_admin_ids() {
        assert_eq!(
            v(
                "-",
                &["", "  ", ":/idmap/foo", ":/idmap/", ":/c0/top", ":x"]
            ),
            vec![
                "iderr: can't validate an empty identifier",
                "iderr: can't validate an empty identifier",
                "id: :/idmap/foo",
                "iderr: identifiers must not start with \":/\".",
                "iderr: identifiers must not start with \":/\".",
                "iderr: :x should begin with 13030/f5.",
            ]
        );
    }

    #[test]
    fn naan_is_required_even_with_explicit_template() {
        assert_eq!(
            v("fk.redek", &["fk491f"]),
            vec!["iderr: fk491f should begin with 13030/fk."]
        );
        assert_eq!(
            validate_ids("fk.redek", F5, "", &["fk491f", "fk492f", "fk419f"]).unwrap(),
            vec![
                "id: fk491f",
                "iderr: fk492f has a check character error",
                "iderr: fk419f has a check character error",
            ]
        );
    }

    #[test]
    fn plus_passes_the_check_character_test() {
        assert_eq!(v("-", &["13030/f54x54g1+"]), vec!["id: 13030/f54x54g1+"]);
    }

    #[test]
    fn per_character_messages() {
        use crate::checkchar::compute;
        let with_cc = |body: &str| format!("{body}{}", compute(body));
        let long = with_cc("13030/f50000000");
        let short = with_cc("13030/f50000");
        let ids = [
            "13030/f50000005",
            "13030/f5zz9zz9d",
            "13030/f5a000000+",
            "13030/f500a000+",
            long.as_str(),
            short.as_str(),
        ];
        assert_eq!(
            v("-", &ids),
            vec![
                "id: 13030/f50000005".to_string(),
                "id: 13030/f5zz9zz9d".to_string(),
                "iderr: 13030/f5a000000+ char 'a' conflicts with template (-) char 'e' (extended digit)"
                    .to_string(),
                "iderr: 13030/f500a000+ char 'a' conflicts with template (-) char 'd' (digit)".to_string(),
                format!("iderr: {long} longer than specified template (-)"),
                format!("iderr: {short} shorter than specified template (-)"),
            ]
        );
        // The template is printed as given.
        assert_eq!(
            validate_ids("x.sdd", "", "", &["x1", "x123", "xa1"]).unwrap(),
            vec![
                "iderr: x1 shorter than specified template (x.sdd)",
                "iderr: x123 longer than specified template (x.sdd)",
                "iderr: xa1 char 'a' conflicts with template (x.sdd) char 'd' (digit)",
            ]
        );
    }

    #[test]
    fn z_masks_are_checked_as_fixed_length() {
        assert_eq!(
            validate_ids("tb7r.zdd", "", "", &["tb7r99", "tb7r100"]).unwrap(),
            vec![
                "id: tb7r99",
                "iderr: tb7r100 longer than specified template (tb7r.zdd)"
            ]
        );
    }

    #[test]
    fn regex_metacharacters_are_compared_literally() {
        assert_eq!(
            validate_ids(".sd", "", "", &["."]).unwrap(),
            vec!["iderr: . char '.' conflicts with template (.sd) char 'd' (digit)"]
        );
        assert_eq!(
            validate_ids("a.sd", "", "", &["b1"]).unwrap(),
            vec!["iderr: b1 should begin with a."]
        );
    }

    #[test]
    fn bind_only_minter_accepts_everything() {
        assert_eq!(
            validate_ids("-", "", "", &["anything", "", "\nx", ":/c0"]).unwrap(),
            vec!["id: anything", "id: :/c0"]
        );
        assert_eq!(
            validate_ids("-", "", "", &[""]).unwrap(),
            Vec::<String>::new()
        );
        // An explicit template still applies on a bind-only minter.
        assert_eq!(validate_ids(".sd", "", "", &["5"]).unwrap(), vec!["id: 5"]);
    }

    #[test]
    fn extended_repertoires() {
        assert_eq!(
            validate_ids(
                "-",
                "x4.rvvvvk",
                "13030",
                &["13030/x46bnnd", "13030/x46bnne", "13030/x46bNnd"]
            )
            .unwrap(),
            vec![
                "id: 13030/x46bnnd",
                "iderr: 13030/x46bnne has a check character error",
                "iderr: 13030/x46bNnd has a check character error",
            ]
        );
        assert_eq!(
            validate_ids("q.sEEEk", "", "", &["q111q", "q111+", "q101q"]).unwrap(),
            vec![
                "id: q111q",
                "iderr: q111+ has a check character error",
                "iderr: q101q char '0' conflicts with template (q.sEEEk) char 'E' (digit 1-9 or consonant but l)",
            ]
        );
        assert_eq!(
            validate_ids(".sxx", "", "", &["0_", "0g", "0_0"]).unwrap(),
            vec![
                "id: 0_",
                "iderr: 0g char 'g' conflicts with template (.sxx) char 'x' (hexadecimal digit or _)",
                "iderr: 0_0 longer than specified template (.sxx)",
            ]
        );
    }

    #[test]
    fn lui_spellings() {
        let lines = validate_ids(
            "-",
            "f5.lui10-4",
            "13030",
            &[
                "13030/f5tw0t-ywdj-94",
                "13030/f5TW0TYWDJ94",
                "13030/f5tw-0tyw-dj-94",
                "13030/f5tw0t-ywdj-95",
                "13030/f5tw0t-ywdj-9",
                "13030/f5tw0t-ywdj-944",
                "13030/f5tw0u-ywdj-94",
                "f5tw0t-ywdj-94",
            ],
        )
        .unwrap();
        assert_eq!(
            lines,
            vec![
                "id: 13030/f5tw0t-ywdj-94",
                "id: 13030/f5tw0t-ywdj-94",
                "id: 13030/f5tw0t-ywdj-94",
                "iderr: 13030/f5tw0t-ywdj-95 has a check character error",
                "iderr: 13030/f5tw0t-ywdj-9 shorter than specified template (-)",
                "iderr: 13030/f5tw0t-ywdj-944 longer than specified template (-)",
                "iderr: 13030/f5tw0u-ywdj-94 char 'u' conflicts with template (-) (Crockford base32)",
                "iderr: f5tw0t-ywdj-94 should begin with 13030/f5.",
            ]
        );
        // `I`, `L` and `O` stand for 1, 1 and 0.
        let n = crate::lui::encode(
            0b00001_00001_00000,
            crate::lui::LuiShape::parse("5").unwrap().spelling(),
        );
        assert_eq!(n, "11034");
        assert_eq!(
            validate_ids("lui5", "", "", &["IlO34", "iLo34"]).unwrap(),
            vec!["id: 11034", "id: 11034"]
        );
    }

    #[test]
    fn minter_template_that_cannot_mint() {
        // A "-" minter stored an empty prefix and mask: everything is too long.
        assert_eq!(
            validate_ids("-", "-", "", &["x"]).unwrap(),
            vec!["iderr: x longer than specified template (-)"]
        );
    }
}
