//! How identifiers resolve, and testing a rules file before it is deployed: the
//! "How it resolves" section of an identifier's page ([`identifier_section`]), the
//! Explain page (`explain?id=ID&accept=TYPE&proto=https`: each step, the answer, the
//! standing and what each web server configuration does) and the Test rules page (a
//! candidate rules file and a table of cases, uploaded or pasted; each case passes or
//! differs). They check their input as the API's `explain` and `rules/test` do
//! (noid-binder's `api::resolving`: [`Asked`], [`Candidate`]), resolve with the
//! populator's resolver on the binder's read-only view, and lay out noid-resolve's
//! [`Explanation`] and [`cases::Outcome`]s: the same steps and answers as `noid explain`
//! and `noid rules test` print.

use hyper::StatusCode;
use noid_binder::api::resolving::{Asked, Candidate};
use noid_resolve::cases::{self, Outcome};
use noid_resolve::Explanation;

use super::ctx::{Ctx, Handled};
use super::html::{escape, notice, query_value, token_field};

/// The explanation laid out: its steps, the answer, the standing and the web servers'
/// paths, under headings of level `h` (`h2` on its page, `h3` in a section).
fn explanation_html(e: &Explanation, h: &str) -> String {
    let mut s = format!("<div class=\"explanation\">\n<{h}>Steps</{h}>\n");
    if e.steps.is_empty() {
        s.push_str("<p>No step decided anything.</p>\n");
    } else {
        s.push_str("<ol class=\"steps\">\n");
        for step in &e.steps {
            s.push_str(&format!(
                "<li><span class=\"kind\">{}</span>: {}</li>\n",
                step.kind.name(),
                escape(&step.says)
            ));
        }
        s.push_str("</ol>\n");
    }
    s.push_str(&format!(
        "<{h}>Answer</{h}>\n<p class=\"answer\"><code>{}</code> ({})</p>\n",
        escape(&e.line),
        e.outcome.name()
    ));
    if let Some(standing) = e.standing_says() {
        let good = e.bound.as_ref().is_some_and(|(_, s)| s.is_good());
        s.push_str(&format!(
            "<p class=\"standing {}\">{}</p>\n",
            if good { "good" } else { "bad" },
            escape(&standing)
        ));
    }
    s.push_str(&format!(
        "<{h}>In the web servers</{h}>\n<table class=\"paths\">\n<caption>What each shipped \
         configuration does with this answer</caption>\n<tr><th scope=\"col\">Server and \
         configuration</th><th scope=\"col\">What it does</th></tr>\n"
    ));
    for (server, does) in &e.paths {
        s.push_str(&format!(
            "<tr><td>{}</td><td>{}</td></tr>\n",
            escape(server),
            escape(does)
        ));
    }
    s.push_str("</table>\n</div>\n");
    s
}

/// Which rules and registry the populator's resolver has, in words.
fn resolver_said(c: &Ctx) -> String {
    let p = &c.pop.populator;
    let rules = match &p.rules {
        Some(f) => format!(
            "the rules file <code>{}</code>",
            escape(&f.display().to_string())
        ),
        None => "the built-in rules".to_string(),
    };
    let registry = match &p.registry {
        Some(f) => format!(
            " and the prefix registry <code>{}</code>",
            escape(&f.display().to_string())
        ),
        None => String::new(),
    };
    format!(
        "<p class=\"hint\">Resolved on this populator's binder with {rules}{registry}, as \
         <code>noid explain</code> and the API's <code>explain</code> resolve it.</p>\n"
    )
}

/// The Explain form (a GET: it only reads), filled with `asked`'s fields.
fn explain_form(c: &Ctx, id: &str, accept: &str, proto: &str, id_field: bool) -> String {
    let mut s = format!(
        "<form method=\"get\" action=\"{}explain\" class=\"explain\">\n",
        escape(&c.base())
    );
    if id_field {
        s.push_str(&format!(
            "<label for=\"explain-id\">Request (an identifier with any suffix or inflection)</label>\n\
             <input type=\"text\" id=\"explain-id\" name=\"id\" value=\"{}\" required>\n",
            escape(id)
        ));
    } else {
        s.push_str(&format!(
            "<input type=\"hidden\" name=\"id\" value=\"{}\">\n",
            escape(id)
        ));
    }
    s.push_str(&format!(
        "<label for=\"explain-accept\">Accept header (optional)</label>\n\
         <input type=\"text\" id=\"explain-accept\" name=\"accept\" value=\"{}\" \
         aria-describedby=\"explain-accept-hint\">\n\
         <p class=\"hint\" id=\"explain-accept-hint\">What a client asks for, e.g. \
         <code>application/json</code>; empty for a browser's request.</p>\n\
         <label for=\"explain-proto\">Protocol</label>\n\
         <select id=\"explain-proto\" name=\"proto\">\n",
        escape(accept)
    ));
    for p in ["https", "http"] {
        let sel = if p == proto || (proto.is_empty() && p == "https") {
            " selected"
        } else {
            ""
        };
        s.push_str(&format!("<option value=\"{p}\"{sel}>{p}</option>\n"));
    }
    s.push_str("</select>\n<p><button type=\"submit\">Explain</button></p>\n</form>\n");
    s
}

/// The explanation of `asked` with the populator's resolver, on the binder.
async fn explained(c: &Ctx, asked: Asked) -> Result<Explanation, String> {
    let resolver = c.pop.resolver.clone();
    c.binder()
        .view(move |store| resolver.explain(store, &asked.request()))
        .await?
        .map_err(|e| format!("The binder cannot be read: {e}"))
}

/// The "How it resolves" section of `id`'s page: a browser's request explained, and a
/// form to explain it with another Accept header or protocol.
pub async fn identifier_section(c: &Ctx, id: &str) -> String {
    let mut s = String::from("<h2 id=\"resolves\">How it resolves</h2>\n");
    let asked = match Asked::checked(id, "", "") {
        Ok(a) => a,
        Err(e) => return s + &notice("error", &e),
    };
    match explained(c, asked).await {
        Ok(e) => s.push_str(&explanation_html(&e, "h3")),
        Err(e) => s.push_str(&notice("error", &e)),
    }
    s.push_str("<h3>Explain another request for it</h3>\n");
    s.push_str(&explain_form(c, id, "", "", false));
    s
}

/// `GET explain?id=ID&accept=TYPE&proto=http|https`: the form, and with a request, its
/// explanation.
pub fn explain(c: Ctx) -> Handled {
    Box::pin(async move {
        let q = &c.query;
        let (id, accept, proto) = (q.text("id"), q.text("accept"), q.text("proto"));
        let mut body = explain_form(&c, id, accept, proto, true);
        if id.is_empty() {
            body.push_str(&resolver_said(&c));
            return c.page(StatusCode::OK, "Explain", &body);
        }
        let asked = match Asked::checked(id, accept, proto) {
            Ok(a) => a,
            Err(e) => {
                let body = notice("error", &format!("Not explained: {e}.")) + &body;
                return c.page(StatusCode::BAD_REQUEST, "Explain", &body);
            }
        };
        body.push_str(&format!(
            "<h2>Request</h2>\n<p class=\"request\"><code>{}</code>{} over {}</p>\n",
            escape(&asked.id),
            asked
                .accept
                .as_deref()
                .map(|a| format!(" with <code>Accept: {}</code>", escape(a)))
                .unwrap_or_default(),
            escape(&asked.proto)
        ));
        body.push_str(&resolver_said(&c));
        let status = match explained(&c, asked).await {
            Ok(e) => {
                body.push_str(&explanation_html(&e, "h2"));
                StatusCode::OK
            }
            Err(e) => {
                body.push_str(&notice("error", &e));
                StatusCode::SERVICE_UNAVAILABLE
            }
        };
        body.push_str(&format!(
            "<p><a href=\"{}id?id={}\">Open {}</a></p>\n",
            escape(&c.base()),
            query_value(id),
            escape(id)
        ));
        c.page(status, "Explain", &body)
    })
}

/// The texts of the Test rules form: each a file uploaded (when one is chosen) or the
/// text pasted.
struct Texts {
    rules: String,
    cases: String,
    registry: String,
}

impl Texts {
    /// The form's texts; `Err` names a file that is not UTF-8 text.
    fn of(c: &Ctx) -> Result<Texts, String> {
        let f = &c.form;
        let text = |name: &str| -> Result<String, String> {
            let file = f
                .uploads
                .iter()
                .find(|u| u.field == format!("{name}_file") && !u.bytes.is_empty());
            match file {
                Some(u) => String::from_utf8(u.bytes.to_vec()).map_err(|_| {
                    format!(
                        "the {name} file {} is not UTF-8 text",
                        u.file_name.as_deref().unwrap_or("")
                    )
                }),
                None => Ok(f.get(name).unwrap_or("").replace("\r\n", "\n")),
            }
        };
        Ok(Texts {
            rules: text("rules")?,
            cases: text("cases")?,
            registry: text("registry")?,
        })
    }
}

/// The Test rules form (multipart: files may be uploaded), filled with `t`.
fn rules_form(c: &Ctx, t: &Texts) -> String {
    let area = |name: &str, label: &str, hint: &str, text: &str, required: bool| {
        let rows = text.lines().count().clamp(4, 16);
        format!(
            "<fieldset>\n<legend>{label}</legend>\n<p class=\"hint\" id=\"{name}-hint\">{hint}</p>\n\
             <label for=\"{name}_file\">Upload a file</label>\n\
             <input type=\"file\" id=\"{name}_file\" name=\"{name}_file\" \
             accept=\".txt,.tsv,.conf,text/plain,text/tab-separated-values\">\n\
             <label for=\"{name}\">Or paste it{}</label>\n\
             <textarea id=\"{name}\" name=\"{name}\" rows=\"{rows}\" \
             aria-describedby=\"{name}-hint\" spellcheck=\"false\">\n{}</textarea>\n</fieldset>\n",
            if required { "" } else { " (optional)" },
            escape(text)
        )
    };
    format!(
        "<form method=\"post\" action=\"{}rules\" enctype=\"multipart/form-data\" class=\"rules-test\">{}\n{}{}{}\
         <p><button type=\"submit\">Test</button></p>\n</form>\n",
        escape(&c.base()),
        token_field(&c.session),
        area(
            "rules",
            "Candidate rules file",
            "The rules file <code>noidr --rules</code> would be given (docs/RESOLUTION.md).",
            &t.rules,
            true
        ),
        area(
            "cases",
            "Cases",
            "One case a line, tab-separated: the request, the answer expected as noidr's \
             egg line (<code>redir302 https://…</code>, <code>redir410 withdrawn</code>, \
             <code>NULL</code>), and optionally an Accept header. Blank lines and lines \
             starting with <code>#</code> are skipped.",
            &t.cases,
            true
        ),
        area(
            "registry",
            "Prefix registry",
            "The registry <code>noidr --registry</code> would be given; empty for this \
             populator's own.",
            &t.registry,
            false
        ),
    )
}

/// The outcomes as a table: every case, passing or differing, with the difference.
fn outcomes_html(outcomes: &[Outcome]) -> String {
    let mut s = String::from(
        "<div class=\"scroll\">\n<table class=\"cases\">\n<caption>Each case of the table, in order</caption>\n<tr>\
         <th scope=\"col\">Line</th><th scope=\"col\">Request</th>\
         <th scope=\"col\">Accept</th><th scope=\"col\">Result</th>\
         <th scope=\"col\">Answer</th></tr>\n",
    );
    for o in outcomes {
        let answer = if o.passed() {
            format!("<code>{}</code>", escape(&o.got))
        } else {
            format!(
                "<p class=\"expected\">Expected <code>{}</code></p>\
                 <p class=\"got\">Got <code>{}</code></p>",
                escape(&o.case.expected),
                escape(&o.got)
            )
        };
        s.push_str(&format!(
            "<tr class=\"{cls}\"><td>{}</td><td><code>{}</code></td><td>{}</td>\
             <td class=\"result\">{}</td><td>{answer}</td></tr>\n",
            o.case.line,
            escape(&o.case.request),
            o.case
                .accept
                .as_deref()
                .map(|a| format!("<code>{}</code>", escape(a)))
                .unwrap_or_default(),
            if o.passed() { "passes" } else { "differs" },
            cls = if o.passed() { "passes" } else { "differs" },
        ));
    }
    s.push_str("</table>\n</div>\n");
    s
}

const RULES_INTRO: &str = "<p>Run a table of requests and the answers expected of them \
    against a candidate rules file, on this populator's binder, before the rules are \
    deployed. Nothing is written. <code>noid rules test</code> and the API's \
    <code>rules/test</code> run the same cases.</p>\n";

/// `GET rules`: the Test rules form.
pub fn rules_form_page(c: Ctx) -> Handled {
    Box::pin(async move {
        let empty = Texts {
            rules: String::new(),
            cases: String::new(),
            registry: String::new(),
        };
        let body = format!("{RULES_INTRO}{}", rules_form(&c, &empty));
        c.page(StatusCode::OK, "Test rules", &body)
    })
}

/// `POST rules`: run the cases; each passes or differs, the form again below.
pub fn rules_test(c: Ctx) -> Handled {
    Box::pin(async move {
        let refused = |t: Option<&Texts>, e: &str| {
            let empty = Texts {
                rules: String::new(),
                cases: String::new(),
                registry: String::new(),
            };
            let body = notice("error", &format!("Not tested: {e}."))
                + RULES_INTRO
                + &rules_form(&c, t.unwrap_or(&empty));
            c.page(StatusCode::BAD_REQUEST, "Test rules", &body)
        };
        let texts = match Texts::of(&c) {
            Ok(t) => t,
            Err(e) => return refused(None, &e),
        };
        let candidate = match Candidate::checked(
            &texts.rules,
            &texts.cases,
            &texts.registry,
            &c.pop.resolver,
        ) {
            Ok(cand) => cand,
            Err(e) => return refused(Some(&texts), &e),
        };
        let ran = c
            .binder()
            .view(move |store| cases::run(&candidate.resolver, store, &candidate.cases))
            .await
            .and_then(|r| r.map_err(|e| format!("The binder cannot be read: {e}")));
        let outcomes = match ran {
            Ok(o) => o,
            Err(e) => {
                let body = notice("error", &e) + &rules_form(&c, &texts);
                return c.page(StatusCode::SERVICE_UNAVAILABLE, "Test rules", &body);
            }
        };
        let all = outcomes.iter().all(Outcome::passed);
        let mut body = notice(
            if all { "ok" } else { "error" },
            &format!("{}.", cases::summary(&outcomes)),
        );
        body.push_str(&outcomes_html(&outcomes));
        body.push_str("<h2>Test again</h2>\n");
        body.push_str(&rules_form(&c, &texts));
        c.page(StatusCode::OK, "Test rules", &body)
    })
}
