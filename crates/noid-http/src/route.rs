//! Request-target parsing: which route, which identifier.
//!
//! Pure functions, no I/O, so that every rule here is unit-tested.

use std::borrow::Cow;

/// The routes, one per web-server pattern (see the crate docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `GET /healthz` (or `/health`): whether the resolver can answer.
    Health,
    /// `GET /metrics`: the backend's metrics (Prometheus text format).
    Metrics,
    /// `GET /.well-known/ark`: the ARK specification's discovery URL.
    WellKnown,
    /// `GET /-/ark`: the ARK service description ([`crate::wellknown::SERVICE_PATH`]).
    ArkService,
    /// `GET /`: the front page, and its box (`/?id=…`) ([`crate::front`]).
    Front,
    /// `GET /-/noid.css`: the pages' stylesheet ([`crate::layout::STYLE_PATH`]).
    Style,
    /// `GET /redirect/<id>`: a real redirect (nginx `proxy_pass`, Apache `mod_proxy`).
    Redirect,
    /// `GET /auth/<id>`: 204 + `X-Target` / 403 (nginx `auth_request`).
    Auth,
    /// `GET /lookup/<id>`: 200 + the target as the body / 404 (njs subrequest).
    Lookup,
    /// `GET /<id>`: the same answers as [`Route::Redirect`].
    Direct,
}

/// Splits a request path into its route and the still %-encoded identifier part.
///
/// `/healthz`, `/health`, `/metrics` and `/-/noid.css` are these routes, never
/// identifiers: an identifier spelled so is asked for as `/redirect/metrics` (the
/// shipped web-server configs forward only scheme-prefixed identifiers, `/ark:…`, and
/// always to `/redirect/`). `/` is the front page (an empty identifier was a miss).
pub fn split(path: &str) -> Option<(Route, &str)> {
    match path {
        "/healthz" | "/health" => return Some((Route::Health, "")),
        "/metrics" => return Some((Route::Metrics, "")),
        "/" => return Some((Route::Front, "")),
        crate::layout::STYLE_PATH => return Some((Route::Style, "")),
        crate::wellknown::SERVICE_PATH => return Some((Route::ArkService, "")),
        _ => {}
    }
    if path == crate::wellknown::PATH {
        return Some((Route::WellKnown, ""));
    }
    let rest = path.strip_prefix('/')?;
    let (route, id) = if let Some(id) = rest.strip_prefix("redirect/") {
        (Route::Redirect, id)
    } else if let Some(id) = rest.strip_prefix("auth/") {
        (Route::Auth, id)
    } else if let Some(id) = rest.strip_prefix("lookup/") {
        (Route::Lookup, id)
    } else {
        (Route::Direct, rest)
    };
    Some((route, id))
}

/// The identifier a request asks for: the path part decoded once
/// ([`noid_core::percent_decode`]), then, when the
/// request-target had a `?`, that `?` and the query exactly as received (not decoded).
///
/// This is what Apache's `RewriteRule` sees (a %-decoded path) plus the raw query
/// (`%{QUERY_STRING}`), and what nginx forwards as `$request_uri`. A bare trailing `?`
/// or `??` (ARK inflections) is kept: `/x?` gives `x?`, `/x??` gives `x??`. Borrowed
/// from the request when there is nothing to decode or append (no allocation).
///
/// `None` when the decoded bytes are not UTF-8 (no identifier can match them).
pub fn identifier<'a>(encoded_path: &'a str, query: Option<&str>) -> Option<Cow<'a, str>> {
    // no decoded CR, LF or NUL: noid_core::ident::web_askable
    let clean = noid_core::ident::web_askable;
    match (noid_core::percent_decode(encoded_path), query) {
        (Cow::Borrowed(_), None) => {
            clean(encoded_path.as_bytes()).then_some(Cow::Borrowed(encoded_path))
        }
        (decoded, query) => {
            let mut bytes = decoded.into_owned();
            if let Some(q) = query {
                bytes.push(b'?');
                bytes.extend_from_slice(q.as_bytes());
            }
            if !clean(&bytes) {
                return None;
            }
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
    }
}

/// An ARK as the request-target sent it, its `%XX` not decoded, when its path holds
/// one: a name holding `%7E` or `%2F` (`ark:/12345/x7%7Ez`) is reached at its own URL
/// (draft-kunze-ark-43 §3.1, §3.2), which [`identifier`]'s one decoding would turn into
/// `~` or a hierarchy separator. Resolution asks for it when the decoded id found
/// nothing. `None` for any other path.
///
/// ```
/// use noid_http::route::as_sent;
/// assert_eq!(as_sent("ark:/12345/x7%7Ez", Some("info")).as_deref(), Some("ark:/12345/x7%7Ez?info"));
/// assert_eq!(as_sent("ark:/12345/x7~z", None), None);
/// assert_eq!(as_sent("doi:10.5072/a%2Fb", None), None);
/// ```
pub fn as_sent(encoded_path: &str, query: Option<&str>) -> Option<String> {
    if !noid_core::ident::ark_reached_as_sent(encoded_path.as_bytes()) {
        return None;
    }
    Some(match query {
        Some(q) => format!("{encoded_path}?{q}"),
        None => encoded_path.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(split("/health"), Some((Route::Health, "")));
        assert_eq!(split("/healthz"), Some((Route::Health, "")));
        assert_eq!(split("/metrics"), Some((Route::Metrics, "")));
        assert_eq!(split("/metrics/x"), Some((Route::Direct, "metrics/x")));
        assert_eq!(
            split("/redirect/metrics"),
            Some((Route::Redirect, "metrics"))
        );
        assert_eq!(split("/.well-known/ark"), Some((Route::WellKnown, "")));
        assert_eq!(split("/-/ark"), Some((Route::ArkService, "")));
        assert_eq!(
            split("/.well-known/arkx"),
            Some((Route::Direct, ".well-known/arkx"))
        );
        assert_eq!(
            split("/redirect/ark:/1/x"),
            Some((Route::Redirect, "ark:/1/x"))
        );
        assert_eq!(split("/auth/ark:/1/x"), Some((Route::Auth, "ark:/1/x")));
        assert_eq!(
            split("/lookup/ark%3A%2F1"),
            Some((Route::Lookup, "ark%3A%2F1"))
        );
        assert_eq!(split("/ark:/1/x"), Some((Route::Direct, "ark:/1/x")));
        assert_eq!(split("/"), Some((Route::Front, "")));
        assert_eq!(split("/-/noid.css"), Some((Route::Style, "")));
        assert_eq!(split("/-/noid.cssx"), Some((Route::Direct, "-/noid.cssx")));
        assert_eq!(split("/redirect/"), Some((Route::Redirect, "")));
        assert_eq!(split("*"), None);
    }

    #[test]
    fn identifiers() {
        assert_eq!(identifier("ark:/1/a%20b", None).unwrap(), "ark:/1/a b");
        assert_eq!(identifier("ark:/1/x", Some("")).unwrap(), "ark:/1/x?");
        assert_eq!(identifier("ark:/1/x", Some("?")).unwrap(), "ark:/1/x??");
        assert_eq!(
            identifier("ark:/1/x", Some("a=%26")).unwrap(),
            "ark:/1/x?a=%26"
        );
        assert_eq!(
            identifier("ark:/1/x%3Finfo", None).unwrap(),
            "ark:/1/x?info"
        );
        assert!(matches!(
            identifier("ark:/1/x", None),
            Some(Cow::Borrowed("ark:/1/x"))
        ));
        assert_eq!(identifier("a%0Ab", None), None);
        assert_eq!(identifier("a%00b", None), None);
        assert_eq!(identifier("a%ffb", None), None);
    }
}
