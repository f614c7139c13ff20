//! Text from the request never changes a target's scheme, authority or host
//! (`resolve/passthrough.rs`), on every path that puts it there: an ancestor's suffix,
//! `${suffix}` and the other placeholders, rules with and without placeholders, registry
//! providers, forwarding, the prefix extension; and a redirect never goes to a script.
//! The expected lines are the URLs as RFC 3986 reads them: the host after `//` up to
//! the first `/`, `?` or `#`, any `user@` before it.

use std::sync::Arc;

use super::{check, check_rules, store};
use crate::egg::{self, Miss};
use crate::{Answer, Registry, Request, Resolver, Rules};

/// An id bound to `target`, asked for with `suffix`: the egg answer line.
#[track_caller]
fn below(target: &str, suffix: &str, expect: &str) {
    check(
        &[("ark:/99999/x", "_t", target)],
        &format!("ark:/99999/x{suffix}.resolve"),
        expect,
    );
}

#[test]
fn a_suffix_starts_the_path_of_a_target_without_one() {
    let t = "https://example.org";
    below(
        t,
        "@evil.example",
        "redir302 https://example.org/@evil.example",
    );
    below(
        t,
        ".evil.example",
        "redir302 https://example.org/.evil.example",
    );
    below(t, ":8080", "redir302 https://example.org/:8080");
    below(
        t,
        "//evil.example",
        "redir302 https://example.org//evil.example",
    );
    below(t, "/chap3", "redir302 https://example.org/chap3");
    // A query follows the authority directly: the same URL as with `/` before it.
    below(t, "?q=1", "redir302 https://example.org?q=1");
    // A code and a port, or a user name, are kept as they are.
    below(
        "301 http://example.org:8080",
        "@evil.example",
        "redir301 http://example.org:8080/@evil.example",
    );
    below(
        "https://user@example.org",
        "@evil.example",
        "redir302 https://user@example.org/@evil.example",
    );
    // A noid minter's key (`NAAN/ID`), as the request `/99999/x@evil.example`.
    check(
        &[("99999/x", "_t", t)],
        "99999/x@evil.example.resolve",
        "redir302 https://example.org/@evil.example",
    );
}

#[test]
fn after_a_path_query_or_slash_a_suffix_is_appended_as_before() {
    below(
        "https://example.org/p",
        "@evil.example",
        "redir302 https://example.org/p@evil.example",
    );
    below(
        "https://example.org/",
        "@evil.example",
        "redir302 https://example.org/@evil.example",
    );
    below(
        "https://example.org/p?a=1",
        "/y",
        "redir302 https://example.org/p?a=1/y",
    );
    below(
        "https://example.org?a=",
        ".evil.example",
        "redir302 https://example.org?a=.evil.example",
    );
}

#[test]
fn several_targets_each_keep_their_host() {
    below(
        "https://a.example\nhttps://b.example/",
        "@evil.example",
        "inflect \"op=multi\" \"id=ark:/99999/x\" \
         \"target=https://a.example/@evil.example\" \"target=https://b.example/@evil.example\"",
    );
}

#[test]
fn placeholders_at_the_end_of_or_inside_the_host() {
    below(
        "https://example.org${suffix}",
        "@evil.example",
        "redir302 https://example.org/@evil.example",
    );
    below(
        "https://example.org${suffix}?from=n2t",
        ".evil.example",
        "redir302 https://example.org/.evil.example?from=n2t",
    );
    let rule = "ark:/12345/fk4 https://${blade}.example.org/";
    check_rules(
        &[],
        rule,
        "ark:/12345/fk4abc.resolve",
        "redir302 https://abc.example.org/",
    );
    check_rules(
        &[],
        rule,
        "ark:/12345/fk4a@evil.example?.resolve",
        "redir302 https://a%40evil.example%3F.example.org/",
    );
}

#[test]
fn rules_without_a_placeholder_append_after_the_host() {
    // A scheme rule's suffix is the whole id; a target without scheme gets the protocol.
    check_rules(
        &[],
        "hdl: hdl.handle.net",
        "hdl:.evil.example/x.resolve !!!pr=https!!!",
        "redir302 https://hdl.handle.net/.evil.example/x",
    );
    check_rules(
        &[],
        "hdl: https://hdl.handle.net/",
        "hdl:1234/5.resolve",
        "redir302 https://hdl.handle.net/1234/5",
    );
}

#[test]
fn registry_providers_append_after_the_host() {
    let registry = "prefix: zz:\nprovider: p https://example.org\n";
    let r = Resolver::with_registry(Rules::empty(), Arc::new(Registry::parse(registry).unwrap()));
    let l = store(&[]);
    let mut out = Vec::new();
    egg::answer(&r, &l, b"zz:@evil.example.resolve", Miss::Null, &mut out);
    assert_eq!(
        String::from_utf8_lossy(&out),
        "redir302 https://example.org/@evil.example\n"
    );
}

#[test]
fn forwarding_appends_after_the_host() {
    check_rules(
        &[],
        "global-resolver https://n2t.example",
        "ark:/88888/x.resolve",
        "redir302 https://n2t.example/ark:/88888/x",
    );
}

#[test]
fn a_prefix_extension_is_host_text() {
    let b = [("ark:/99999/x", "_t", "https://a.b.org/p")];
    check(
        &b,
        "ark:/99999-dev/x.resolve",
        "redir302 https://a-dev.b.org/p",
    );
    // `?` ends the request's path, and the NAAN's segment runs to the next `/`.
    check(
        &b,
        "ark:/99999-@evil.example?/x.resolve",
        "redir302 https://a-%40evil.example%3F.b.org/p",
    );
}

#[test]
fn a_relative_target_gets_no_host() {
    below("/", "//evil.example", "redir302 /%2F%2Fevil.example");
    below("zaf", "/bar//zif", "redir302 zaf/bar//zif");
}

#[test]
fn a_redirect_never_goes_to_a_script() {
    for t in [
        "javascript:alert(document.domain)",
        "301 JavaScript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>",
    ] {
        below(t, "", "NULL");
        let answer = super::resolve(&[("x", "_t", t)], Request::new("x"));
        assert_eq!(answer, Answer::NotFound, "{t}");
    }
    // An inflection's or a negotiated target too.
    check(
        &[
            ("ark:/99999/x", "_t", "https://example.org/"),
            ("ark:/99999/x", "_,eTi,?", "javascript:alert(1)"),
        ],
        "ark:/99999/x?.resolve",
        "NULL",
    );
    // A 4xx code's text is no Location: still answered.
    below("410 javascript:x", "", "redir410 javascript:x");
    // The word in a path is no scheme.
    below(
        "https://example.org/javascript:x",
        "",
        "redir302 https://example.org/javascript:x",
    );
}
