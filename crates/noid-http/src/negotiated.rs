//! What content negotiation's own answers become (`Answer::Negotiate`): a linkset
//! (RFC 9264), a citation, or the identifier's metadata in JSON or ANVL.

use noid_resolve::cite;

use crate::decision::Decision;
use crate::page::{self, PageFormat};
use crate::response::status;

/// The page for identifier `id`'s answer in `media_type` (one content negotiation
/// serves itself), from its `bindings`, cited as `cite_as`.
pub(crate) fn decide(
    id: &str,
    media_type: &str,
    bindings: &[(String, Vec<u8>)],
    cite_as: &str,
) -> Decision {
    // A linkset (RFC 9264): the identifier's signposts.
    if let Some(t) = noid_resolve::signpost::LINKSET_TYPES
        .iter()
        .find(|t| t.eq_ignore_ascii_case(media_type))
    {
        let signposts = noid_resolve::signpost::Signposts::of(id, cite_as, bindings);
        let body = match *t {
            "application/linkset" => signposts.linkset(),
            _ => format!("{}\n", signposts.linkset_json()),
        };
        return Decision::Page {
            status: status::OK,
            ctype: t,
            body,
            modified: None,
            link: None,
        };
    }
    // A citation (CSL-JSON, BibTeX, RIS, JSON-LD, a formatted reference).
    let work = || cite::Work::of(id, cite_as, bindings);
    if let Some((ctype, body)) = cite::CITATION_TYPES
        .iter()
        .find(|t| t.eq_ignore_ascii_case(media_type))
        .and_then(|t| Some((citation_type(t), cite::render(t, &work())?)))
    {
        return Decision::Page {
            status: status::OK,
            ctype,
            body,
            modified: None,
            link: None,
        };
    }
    let fmt = if media_type.eq_ignore_ascii_case("application/json") {
        PageFormat::Json
    } else {
        PageFormat::Anvl
    };
    let ctype = if fmt == PageFormat::Json {
        "application/json"
    } else if media_type.eq_ignore_ascii_case("text/x-anvl") {
        "text/x-anvl; charset=utf-8"
    } else {
        "text/plain; charset=utf-8"
    };
    Decision::Page {
        status: status::OK,
        ctype,
        body: page::identifier(fmt, id, None, bindings, true),
        modified: None,
        link: None,
    }
}

/// The `Content-Type` of a citation type ([`cite::CITATION_TYPES`]): the text ones
/// in UTF-8.
fn citation_type(t: &str) -> &'static str {
    match t {
        "application/vnd.citationstyles.csl+json" => "application/vnd.citationstyles.csl+json",
        "application/x-bibtex" => "application/x-bibtex; charset=utf-8",
        "application/x-research-info-systems" => {
            "application/x-research-info-systems; charset=utf-8"
        }
        "application/ld+json" => "application/ld+json",
        _ => "text/x-bibliography; charset=utf-8",
    }
}
