//! An archived copy standing in for a broken target (docs/LINKS.md, "Archived copies").
//!
//! Where the rules file's `archived-copy` directive applies to an identifier
//! ([`crate::Rules::archived_copy`]), a redirect to its own target (found on the
//! identifier itself, with no suffix) is replaced when the link checker's records say
//! the target is gone: an archived copy is stored for it (`:/links/a/ID`, a copy of
//! this very target), and either the target's state (`:/links/s/ID<TAB>TARGET`) is
//! `broken` or a curator marked it (`:/links/m/ID`). The answer is then a redirect to
//! the copy, or [`Answer::Archived`] (a page), as the directive says.
//!
//! Where no directive applies (the default) this module is never reached, so
//! resolution reads nothing more than before. Where one applies, a hit costs one more
//! read when the identifier has no copy (most of them), and at most three when it has.

use noid_core::links::{self, Archived};
use noid_core::lookup::{Lookup, LookupError};

use super::answer::Answer;
use crate::rules::ArchivedCopy;

/// `answer` (`id`'s redirect to its target), or the archived copy in its place.
pub(super) fn fall_back<L: Lookup + ?Sized>(
    l: &L,
    how: ArchivedCopy,
    id: &str,
    answer: Answer,
) -> Result<Answer, LookupError> {
    let Answer::Redirect { code, target } = &answer else {
        return Ok(answer);
    };
    if !(300..400).contains(code) {
        return Ok(answer);
    }
    let Some((stored_id, copy)) = copy_of(l, id)? else {
        return Ok(answer);
    };
    // A copy is a web page: anything else (a `javascript:` URL written into the record)
    // is no copy, so that neither a redirect nor a line leads a browser to run it.
    let web = copy.url.starts_with("https://") || copy.url.starts_with("http://");
    if !web || copy.original != *target || !links::is_gone(l, stored_id, target)? {
        return Ok(answer);
    }
    Ok(match how {
        ArchivedCopy::Redirect => Answer::Redirect {
            code: 302,
            target: copy.url,
        },
        ArchivedCopy::Page => Answer::Archived {
            id: id.to_string(),
            original: copy.original,
            url: copy.url,
            datetime: copy.datetime,
        },
    })
}

/// The archived copy stored for `id`, and the spelling of `id` it is stored under: as
/// requested, or, for an ARK, as minters store it (without `ark:/`).
fn copy_of<'a, L: Lookup + ?Sized>(
    l: &L,
    id: &'a str,
) -> Result<Option<(&'a str, Archived)>, LookupError> {
    let bare = id
        .strip_prefix("ark:/")
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_alphanumeric()));
    for form in std::iter::once(id).chain(bare) {
        if let Some(copy) = l.get(&links::archived_key(form))? {
            return Ok(Archived::decode(&copy).map(|copy| (form, copy)));
        }
    }
    Ok(None)
}
