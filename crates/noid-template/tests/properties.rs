//! Property tests: bounded minters issue their whole namespace exactly once and every
//! id validates, the check character catches the errors NCDA promises to catch, and
//! unlimited minters never repeat.

mod support;

use std::collections::HashSet;

use noid_template::checkchar::verify;
use noid_template::generator::GenError;
use noid_template::validate::validate_ids;
use noid_template::xdigits::{xdigit, XDIGITS};
use proptest::prelude::*;
use support::Minter;

/// A small bounded template: optional prefix (extended digits, so it is legal with a
/// check character), `r` or `s`, one to three `d`/`e` positions, optional `k`.
fn bounded_template() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "x", "b4", "13q"]),
        prop::sample::select(vec!['r', 's']),
        prop::collection::vec(prop::sample::select(vec!['d', 'e']), 1..=3),
        any::<bool>(),
    )
        .prop_map(|(prefix, gen, positions, k)| {
            let mut t = format!("{prefix}.{gen}");
            t.extend(positions);
            if k {
                t.push('k');
            }
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn whole_namespace_once_and_valid(
        template in bounded_template(),
        naan in prop::sample::select(vec!["", "13030"]),
    ) {
        let mut m = Minter::new(&template, "long", naan);
        let total = usize::try_from(m.template.total).unwrap();
        let ids = m.mint_n(total);
        let unique: HashSet<&String> = ids.iter().collect();
        prop_assert_eq!(unique.len(), total);
        let next = m.mint().unwrap_err();
        prop_assert!(matches!(next, GenError::Exhausted(e) if e.stopped_at == total as i64));

        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        for lines in [
            validate_ids("-", &template, naan, &refs).unwrap(),
            validate_ids(&template, &template, naan, &refs).unwrap(),
        ] {
            for (line, id) in lines.iter().zip(&ids) {
                prop_assert_eq!(line, &format!("id: {id}"));
            }
        }
        if m.template.has_checkchar {
            prop_assert!(ids.iter().all(|id| verify(id)));
        }
    }

    #[test]
    fn check_char_catches_substitutions_and_transpositions(
        digits in prop::collection::vec(0usize..29, 1..28),
    ) {
        let body: String = digits.iter().map(|d| xdigit(*d) as char).collect();
        let id = format!("{body}{}", noid_template::checkchar::compute(&body));
        prop_assert!(id.len() < 29);
        prop_assert!(verify(&id));
        let chars: Vec<char> = id.chars().collect();
        for i in 0..chars.len() {
            for c in XDIGITS.chars().filter(|c| *c != chars[i]) {
                let mut v = chars.clone();
                v[i] = c;
                let s: String = v.into_iter().collect();
                prop_assert!(!verify(&s), "substitution {} -> {}", id, s);
            }
            if i + 1 < chars.len() && chars[i] != chars[i + 1] {
                let mut v = chars.clone();
                v.swap(i, i + 1);
                let s: String = v.into_iter().collect();
                prop_assert!(!verify(&s), "transposition {} -> {}", id, s);
            }
        }
    }

    #[test]
    fn unlimited_templates_never_repeat(
        prefix in prop::sample::select(vec!["", "s", "tb7r"]),
        positions in prop::collection::vec(prop::sample::select(vec!['d', 'e']), 1..=3),
        k in any::<bool>(),
    ) {
        let mut template = format!("{prefix}.z");
        template.extend(positions);
        if k {
            template.push('k');
        }
        let mut m = Minter::new(&template, "long", "");
        let ids = m.mint_n(5000);
        let unique: HashSet<&String> = ids.iter().collect();
        prop_assert_eq!(unique.len(), ids.len());
        prop_assert!(ids.windows(2).all(|w| w[0].len() <= w[1].len()));
    }
}
