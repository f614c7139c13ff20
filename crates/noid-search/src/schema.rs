//! The index's fields: which part of a [`crate::Record`] goes where, and how it is
//! indexed. One place, read by the writer (`to_document`) and by the query translation
//! and the readers in `index`.

use tantivy::schema::{
    Facet, FacetOptions, Field, Schema, TantivyDocument, FAST, INDEXED, STORED, STRING, TEXT,
};

use crate::document::Record;
use crate::query::LinkStatus;

/// The index's format: raised whenever the schema or what goes in it changes, so that
/// an index of an older format is rebuilt rather than read (`index::open`).
pub const FORMAT: u32 = 2;

/// Separates an element's name from its value in the `elem` field.
pub const ELEM_SEP: char = '\u{1f}';

/// The fields, by name.
#[derive(Clone)]
pub struct Fields {
    pub schema: Schema,
    /// The identifier as stored (exact; stored; sorted on).
    pub id: Field,
    /// `query::identifier_key` of the identifier, for `under:` (a term range).
    pub key: Field,
    /// Every element value, tokenized (words, phrases).
    pub text: Field,
    /// `NAME<US>value`, lower case, trimmed: `element:value`.
    pub elem: Field,
    /// Facets: one path segment each.
    pub shoulder: Field,
    pub host: Field,
    pub populator: Field,
    pub standing: Field,
    pub status: Field,
    /// `yes` or `no`.
    pub withdrawn: Field,
    /// Seconds; fast, for ranges and sorting.
    pub created: Field,
    pub updated: Field,
    /// Stored: what a hit and an export show; `target`, `who`, `what` and `when` also
    /// fast, to sort on.
    pub target: Field,
    pub who: Field,
    pub what: Field,
    pub when: Field,
    pub r#where: Field,
    pub how: Field,
}

impl Fields {
    /// The schema.
    pub fn new() -> Fields {
        let mut b = Schema::builder();
        let facet = || FacetOptions::default().set_stored();
        let id = b.add_text_field("id", STRING | STORED | FAST);
        let key = b.add_text_field("key", STRING);
        let text = b.add_text_field("text", TEXT);
        let elem = b.add_text_field("elem", STRING);
        let shoulder = b.add_facet_field("shoulder", facet());
        let host = b.add_facet_field("host", facet());
        let populator = b.add_facet_field("populator", facet());
        let standing = b.add_facet_field("standing", facet());
        let status = b.add_facet_field("status", facet());
        let withdrawn = b.add_text_field("withdrawn", STRING);
        let created = b.add_i64_field("created", INDEXED | FAST);
        let updated = b.add_i64_field("updated", INDEXED | FAST | STORED);
        let target = b.add_text_field("target", STORED | FAST);
        let who = b.add_text_field("who", STORED | FAST);
        let what = b.add_text_field("what", STORED | FAST);
        let when = b.add_text_field("when", STORED | FAST);
        let r#where = b.add_text_field("where", STORED);
        let how = b.add_text_field("how", STORED);
        Fields {
            schema: b.build(),
            id,
            key,
            text,
            elem,
            shoulder,
            host,
            populator,
            standing,
            status,
            withdrawn,
            created,
            updated,
            target,
            who,
            what,
            when,
            r#where,
            how,
        }
    }

    /// The facet fields, with the names `Facets` reports them under.
    pub fn facets(&self) -> [(Field, &'static str); 5] {
        [
            (self.shoulder, "shoulder"),
            (self.host, "host"),
            (self.populator, "populator"),
            (self.standing, "standing"),
            (self.status, "status"),
        ]
    }

    /// The document of `r`.
    pub fn to_document(&self, r: &Record) -> TantivyDocument {
        let mut d = TantivyDocument::new();
        d.add_text(self.id, &r.id);
        d.add_text(self.key, r.key());
        for (name, value) in &r.elements {
            d.add_text(self.text, value);
            d.add_text(self.elem, elem_term(name, value));
        }
        if let Some(s) = r.shoulder() {
            d.add_facet(self.shoulder, facet(&s));
        }
        for h in r.hosts() {
            d.add_facet(self.host, facet(&h));
        }
        if let Some(p) = &r.populator {
            d.add_facet(self.populator, facet(p));
        }
        d.add_facet(self.standing, facet(r.standing.as_str()));
        for s in &r.statuses {
            d.add_facet(self.status, facet(s.as_str()));
        }
        d.add_text(self.withdrawn, if r.withdrawn { "yes" } else { "no" });
        if let Some(t) = r.created {
            d.add_i64(self.created, t);
        }
        if let Some(t) = r.updated {
            d.add_i64(self.updated, t);
        }
        if let Some(t) = r.first("_t") {
            d.add_text(self.target, t);
        }
        for (field, name) in [
            (self.who, "who"),
            (self.what, "what"),
            (self.when, "when"),
            (self.r#where, "where"),
            (self.how, "how"),
        ] {
            if let Some(v) = r.first(name) {
                d.add_text(field, v);
            }
        }
        d
    }
}

/// The `elem` term of `name:value`.
pub fn elem_term(name: &str, value: &str) -> String {
    format!("{name}{ELEM_SEP}{}", value.trim().to_lowercase())
}

/// The one-segment facet of a value (a shoulder's `/` is part of the value).
pub fn facet(value: &str) -> Facet {
    Facet::from_path([value])
}

/// A link status's facet.
pub fn status_facet(s: LinkStatus) -> Facet {
    facet(s.as_str())
}
