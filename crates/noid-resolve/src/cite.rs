//! Citations of an identifier by content negotiation, as doi.org gives them for DOIs:
//! CSL-JSON, BibTeX, RIS, schema.org JSON-LD and a formatted reference, made from the
//! kernel elements (`who what when where how`) and their Dublin Core names
//! (`dc.creator`, `dc.title`, `dc.date`, `dc.publisher`, `dc.type`), the first bound
//! of each. Pure text: noidr's HTTP mode answers it (and the web servers pass such a
//! request on to it, as they do every page).
//!
//! The work is cited by its URL: the rules file's `cite-as` prefix, else its global
//! resolver's (N2T's by default), followed by the identifier
//! ([`crate::Rules::citation_url`]).

use serde_json::{json, Value};

use crate::kernel::{self, Reserved};

/// The citation media types a client may ask for (with `Accept`), in the order an
/// `Accept` that weighs them alike prefers them.
pub const CITATION_TYPES: [&str; 5] = [
    "application/vnd.citationstyles.csl+json",
    "application/x-bibtex",
    "application/x-research-info-systems",
    "application/ld+json",
    "text/x-bibliography",
];

/// What a citation says of a work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Work {
    /// The identifier.
    pub id: String,
    /// Its URL, the one to cite.
    pub url: String,
    /// The title (`what`), if bound.
    pub title: Option<String>,
    /// Its creators (`who`, split at `;`), each as written (`Family, Given` or a name).
    pub creators: Vec<String>,
    /// When (`when`): the date as written, if bound.
    pub date: Option<String>,
    /// Its publisher (`dc.publisher`), if bound.
    pub publisher: Option<String>,
    /// What kind of work (from `how`'s metatype, else `dc.type`).
    pub kind: Kind,
}

/// The kind of work, as each format names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A dataset (`how: data`).
    Dataset,
    /// Software (`how: code`).
    Software,
    /// An image (`how: image`).
    Image,
    /// A sound recording (`how: audio`).
    Audio,
    /// A video (`how: video`).
    Video,
    /// Text, or anything else.
    Text,
}

impl Kind {
    fn of(how: Option<&str>) -> Kind {
        let Some(how) = how.map(str::to_ascii_lowercase) else {
            return Kind::Text;
        };
        // The metatype's base terms (`(:mtype data+code set)`) or a plain word.
        let terms = how
            .strip_prefix("(:mtype")
            .and_then(|t| t.split_once(')'))
            .map_or(how.as_str(), |(t, _)| t)
            .to_string();
        let has = |w: &str| {
            terms
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|t| t == w)
        };
        if has("data") || has("dataset") {
            Kind::Dataset
        } else if has("code") || has("software") {
            Kind::Software
        } else if has("image") {
            Kind::Image
        } else if has("audio") || has("sound") {
            Kind::Audio
        } else if has("video") {
            Kind::Video
        } else {
            Kind::Text
        }
    }

    fn csl(self) -> &'static str {
        match self {
            Kind::Dataset => "dataset",
            Kind::Software => "software",
            Kind::Image => "graphic",
            Kind::Audio => "song",
            Kind::Video => "motion_picture",
            Kind::Text => "document",
        }
    }

    fn ris(self) -> &'static str {
        match self {
            Kind::Dataset => "DATA",
            Kind::Software => "COMP",
            Kind::Image => "FIGURE",
            Kind::Audio => "SOUND",
            Kind::Video => "VIDEO",
            Kind::Text => "GEN",
        }
    }

    /// Its schema.org type (`Dataset`, `CreativeWork` …).
    pub fn schema(self) -> &'static str {
        match self {
            Kind::Dataset => "Dataset",
            Kind::Software => "SoftwareSourceCode",
            Kind::Image => "ImageObject",
            Kind::Audio => "AudioObject",
            Kind::Video => "VideoObject",
            Kind::Text => "CreativeWork",
        }
    }
}

impl Work {
    /// The work `id` (cited as `url`) as its bindings describe it. A value that is a
    /// reserved code for a missing value (`(:unav)`, `(:unkn) anonymous` …) says
    /// nothing: it is left out.
    pub fn of(id: &str, url: &str, bindings: &[(String, Vec<u8>)]) -> Work {
        let first = |names: &[&str]| {
            names.iter().find_map(|n| {
                bindings
                    .iter()
                    .find(|(e, _)| e.eq_ignore_ascii_case(n))
                    .map(|(_, v)| String::from_utf8_lossy(v).trim().to_string())
                    .filter(|v| !v.is_empty() && !is_missing(v))
            })
        };
        let creators = first(&["who", "dc.creator", "creator"])
            .map(|w| {
                w.split(';')
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Work {
            id: id.to_string(),
            url: url.to_string(),
            title: first(&["what", "dc.title", "title"]),
            creators,
            date: first(&["when", "dc.date", "date"]),
            publisher: first(&["dc.publisher", "publisher"]),
            kind: Kind::of(first(&["how", "dc.type", "type"]).as_deref()),
        }
    }

    /// The year: the first run of four digits in the date.
    fn year(&self) -> Option<&str> {
        let d = self.date.as_deref()?;
        let b = d.as_bytes();
        (0..b.len().saturating_sub(3))
            .find(|&i| b[i..i + 4].iter().all(u8::is_ascii_digit))
            .map(|i| &d[i..i + 4])
    }

    /// The date as year, month, day (those given), when it is written `YYYY[-MM[-DD]]`.
    fn date_parts(&self) -> Option<Vec<u32>> {
        let d = self.date.as_deref()?;
        let parts: Vec<&str> = d.split('-').collect();
        if parts.is_empty() || parts.len() > 3 || parts[0].len() != 4 {
            return None;
        }
        parts.iter().map(|p| p.parse().ok()).collect()
    }
}

/// Whether a value is a reserved code for a missing value (`(:unav)`, `(:unkn) …`).
fn is_missing(v: &str) -> bool {
    matches!(kernel::parse(v), Ok(kernel::Value::Reserved(r, _)) if r != Reserved::At)
}

/// The citation of `work` in `media_type` (one of [`CITATION_TYPES`], any case), or
/// `None` for another type.
pub fn render(media_type: &str, work: &Work) -> Option<String> {
    let t = media_type.to_ascii_lowercase();
    Some(match t.as_str() {
        "application/vnd.citationstyles.csl+json" => csl_json(work).to_string(),
        "application/x-bibtex" => bibtex(work),
        "application/x-research-info-systems" => ris(work),
        "application/ld+json" => json_ld(work).to_string(),
        "text/x-bibliography" => bibliography(work),
        _ => return None,
    })
}

/// A creator as CSL's name: `Family, Given` split at its first comma, else a literal.
fn csl_name(c: &str) -> Value {
    match c.split_once(',') {
        Some((family, given)) if !given.trim().is_empty() => {
            json!({"family": family.trim(), "given": given.trim()})
        }
        _ => json!({"literal": c}),
    }
}

fn csl_json(w: &Work) -> Value {
    let mut item = json!({
        "id": w.id,
        "type": w.kind.csl(),
        "URL": w.url,
    });
    let o = item.as_object_mut().expect("an object");
    if let Some(t) = &w.title {
        o.insert("title".into(), json!(t));
    }
    if !w.creators.is_empty() {
        let names: Vec<Value> = w.creators.iter().map(|c| csl_name(c)).collect();
        o.insert("author".into(), json!(names));
    }
    match (w.date_parts(), &w.date) {
        (Some(parts), _) => {
            o.insert("issued".into(), json!({"date-parts": [parts]}));
        }
        (None, Some(d)) => {
            o.insert("issued".into(), json!({"literal": d}));
        }
        _ => {}
    }
    if let Some(p) = &w.publisher {
        o.insert("publisher".into(), json!(p));
    }
    item
}

/// BibTeX's special characters escaped, so that any value reads back as written.
fn tex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '%' | '&' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The entry's key: the identifier's letters and digits, others as `_`.
fn bibtex_key(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn bibtex(w: &Work) -> String {
    let mut fields: Vec<(&str, String)> = Vec::new();
    if let Some(t) = &w.title {
        fields.push(("title", tex(t)));
    }
    if !w.creators.is_empty() {
        let names: Vec<String> = w.creators.iter().map(|c| tex(c)).collect();
        fields.push(("author", names.join(" and ")));
    }
    if let Some(y) = w.year() {
        fields.push(("year", y.to_string()));
    }
    if let Some(p) = &w.publisher {
        fields.push(("publisher", tex(p)));
    }
    fields.push(("url", tex(&w.url)));
    fields.push(("note", tex(&w.id)));
    let mut out = format!("@misc{{{},\n", bibtex_key(&w.id));
    for (name, value) in &fields {
        out.push_str(&format!("  {name} = {{{value}}},\n"));
    }
    out.push_str("}\n");
    out
}

/// A RIS value on one line.
fn ris_value(s: &str) -> String {
    s.replace(['\r', '\n', '\t'], " ")
}

fn ris(w: &Work) -> String {
    let mut out = format!("TY  - {}\r\n", w.kind.ris());
    if let Some(t) = &w.title {
        out.push_str(&format!("TI  - {}\r\n", ris_value(t)));
    }
    for c in &w.creators {
        out.push_str(&format!("AU  - {}\r\n", ris_value(c)));
    }
    if let Some(y) = w.year() {
        out.push_str(&format!("PY  - {y}\r\n"));
    }
    if let Some(d) = &w.date {
        out.push_str(&format!("DA  - {}\r\n", ris_value(d)));
    }
    if let Some(p) = &w.publisher {
        out.push_str(&format!("PB  - {}\r\n", ris_value(p)));
    }
    out.push_str(&format!("UR  - {}\r\n", ris_value(&w.url)));
    out.push_str(&format!("ID  - {}\r\n", ris_value(&w.id)));
    out.push_str("ER  - \r\n");
    out
}

fn json_ld(w: &Work) -> Value {
    let mut item = json!({
        "@context": "https://schema.org",
        "@type": w.kind.schema(),
        "@id": w.url,
        "identifier": w.id,
        "url": w.url,
    });
    let o = item.as_object_mut().expect("an object");
    if let Some(t) = &w.title {
        o.insert("name".into(), json!(t));
    }
    if !w.creators.is_empty() {
        let people: Vec<Value> = w
            .creators
            .iter()
            .map(|c| json!({"@type": "Person", "name": c}))
            .collect();
        o.insert("author".into(), json!(people));
    }
    if let Some(d) = &w.date {
        o.insert("datePublished".into(), json!(d));
    }
    if let Some(p) = &w.publisher {
        o.insert(
            "publisher".into(),
            json!({"@type": "Organization", "name": p}),
        );
    }
    item
}

/// A reference in the APA style's order: creators, (year), title, publisher, URL.
fn bibliography(w: &Work) -> String {
    let mut out = String::new();
    match w.creators.len() {
        0 => {}
        1 => out.push_str(&w.creators[0]),
        n => {
            out.push_str(&w.creators[..n - 1].join(", "));
            out.push_str(", & ");
            out.push_str(&w.creators[n - 1]);
        }
    }
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(&format!("({}). ", w.year().unwrap_or("n.d.")));
    if let Some(t) = &w.title {
        out.push_str(t.trim_end_matches('.'));
        out.push_str(". ");
    }
    if let Some(p) = &w.publisher {
        out.push_str(p.trim_end_matches('.'));
        out.push_str(". ");
    }
    out.push_str(&w.url);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work() -> Work {
        let b = |e: &str, v: &str| (e.to_string(), v.as_bytes().to_vec());
        Work::of(
            "ark:/12345/x9",
            "https://n2t.net/ark:/12345/x9",
            &[
                b("who", "Smith, Jane; Doe, J.{R}"),
                b("what", "Tide gauges 100% & more"),
                b("when", "2020-05-01"),
                b("how", "(:mtype data) time series"),
                b("dc.publisher", "(:unav)"),
            ],
        )
    }

    #[test]
    fn a_work_is_read_from_the_kernel_and_leaves_missing_values_out() {
        let w = work();
        assert_eq!(w.creators, ["Smith, Jane", "Doe, J.{R}"]);
        assert_eq!(w.title.as_deref(), Some("Tide gauges 100% & more"));
        assert_eq!(
            (w.year(), w.date_parts()),
            (Some("2020"), Some(vec![2020, 5, 1]))
        );
        assert_eq!((w.publisher, w.kind), (None, Kind::Dataset));
    }

    #[test]
    fn each_format_as_written_by_hand() {
        let w = work();
        assert_eq!(
            render("application/x-bibtex", &w).unwrap(),
            "@misc{ark__12345_x9,\n  title = {Tide gauges 100\\% \\& more},\n  author = {Smith, Jane and Doe, J.\\{R\\}},\n  year = {2020},\n  url = {https://n2t.net/ark:/12345/x9},\n  note = {ark:/12345/x9},\n}\n"
        );
        assert_eq!(
            render("application/x-research-info-systems", &w).unwrap(),
            "TY  - DATA\r\nTI  - Tide gauges 100% & more\r\nAU  - Smith, Jane\r\nAU  - Doe, J.{R}\r\nPY  - 2020\r\nDA  - 2020-05-01\r\nUR  - https://n2t.net/ark:/12345/x9\r\nID  - ark:/12345/x9\r\nER  - \r\n"
        );
        assert_eq!(
            render("text/x-bibliography", &w).unwrap(),
            "Smith, Jane, & Doe, J.{R} (2020). Tide gauges 100% & more. https://n2t.net/ark:/12345/x9\n"
        );
        let csl: Value =
            serde_json::from_str(&render("application/vnd.citationstyles.csl+json", &w).unwrap())
                .unwrap();
        assert_eq!(
            csl,
            json!({"id": "ark:/12345/x9", "type": "dataset", "URL": "https://n2t.net/ark:/12345/x9",
                   "title": "Tide gauges 100% & more",
                   "author": [{"family": "Smith", "given": "Jane"}, {"family": "Doe", "given": "J.{R}"}],
                   "issued": {"date-parts": [[2020, 5, 1]]}})
        );
        assert_eq!(render("text/html", &w), None);
    }
}
