//! The index of one minter: where it lives, how it is built from the store, checked on
//! open, searched and exported.
//!
//! It lives in `DIR/search-index/` beside the minter's `DIR/NOID/` (never inside it:
//! the store's own directory is replaced whole by a PostgreSQL copy's bootstrap), with
//! a `noid-search` file saying its format ([`crate::schema`]'s `FORMAT`) and the
//! store it was built from (the embedded store's RocksDB `IDENTITY`, or the
//! `NOID/backend` a PostgreSQL minter is named by) and, for the embedded store, its
//! change counter then. [`SearchIndex::open`] rebuilds an index that is missing, of
//! another format or store, older than the embedded store's last commit, or damaged
//! (Tantivy's checksums of its files do not match), rather than answering from it.
//!
//! A rebuild walks the store once in key order (an identifier's keys sort together),
//! into a new directory renamed into place when it is complete, so a reader never sees
//! a half-built index and a failed rebuild leaves the old one.

use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use noid_core::links::{self, LinkState};
use noid_core::{keys, Lookup, LookupError};
use noid_store::{Layout, Scan, StoreError};
use tantivy::collector::{Count, DocSetCollector, FacetCollector, MultiCollector, TopDocs};
use tantivy::query::{
    AllQuery, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query as TantivyQuery, RangeQuery,
    TermQuery,
};
use tantivy::schema::{IndexRecordOption, OwnedValue, TantivyDocument, Value};
use tantivy::{DocAddress, Index, IndexReader, Order, ReloadPolicy, Searcher, Term};

use crate::document::Record;
use crate::export::{self, Format, Row, RowWriter};
use crate::query::{Query, Term as QTerm};
use crate::schema::{self, Fields, FORMAT};

/// The index directory's name in the minter's directory.
pub const DIR_NAME: &str = "search-index";
/// The file saying what the index was built from.
const META: &str = "noid-search";
/// The writer's memory, shared by its threads.
const WRITER_MEMORY: usize = 256 << 20;
/// Most hits a page holds.
pub const MAX_PAGE: usize = 1000;

/// Why the index could not be built, read or written.
#[derive(Debug)]
pub enum SearchError {
    /// The store could not be read.
    Store(String),
    /// Tantivy failed.
    Index(tantivy::TantivyError),
    /// A file could not be read or written (the export's output included).
    Io(std::io::Error),
    /// No minter in the directory.
    NoMinter(PathBuf),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Store(e) => write!(f, "cannot read the store: {e}"),
            SearchError::Index(e) => write!(f, "search index: {e}"),
            SearchError::Io(e) => write!(f, "search index: {e}"),
            SearchError::NoMinter(d) => write!(f, "no minter in {}", d.display()),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<tantivy::TantivyError> for SearchError {
    fn from(e: tantivy::TantivyError) -> Self {
        SearchError::Index(e)
    }
}
impl From<std::io::Error> for SearchError {
    fn from(e: std::io::Error) -> Self {
        SearchError::Io(e)
    }
}
impl From<StoreError> for SearchError {
    fn from(e: StoreError) -> Self {
        SearchError::Store(e.to_string())
    }
}
impl From<LookupError> for SearchError {
    fn from(e: LookupError) -> Self {
        SearchError::Store(e.to_string())
    }
}

/// What a page of hits is ordered by: the console's sortable columns, the identifier,
/// the times, or how well each matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Best match first (words and phrases count; other conditions only filter).
    #[default]
    Relevance,
    /// The identifier, as stored.
    Id,
    /// The title (`what`).
    Title,
    /// The creator (`who`).
    Creator,
    /// The date (`when`), as written.
    Date,
    /// The target (`_t`).
    Target,
    /// The last write.
    Updated,
    /// The creation.
    Created,
}

/// The order of a page of hits: a key, ascending or descending (relevance is always
/// best first). Hits without the value come last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sort {
    /// What is compared.
    pub key: SortKey,
    /// Largest first.
    pub descending: bool,
}

impl Sort {
    /// Ascending by `key`.
    pub fn by(key: SortKey) -> Sort {
        Sort {
            key,
            descending: false,
        }
    }

    /// The sort named `name`: `relevance`, `id`, `title`, `creator`, `date`, `target`,
    /// `updated`, `created`, ascending, or with a `-` before it, descending
    /// (`-updated`: the latest first).
    pub fn parse(name: &str) -> Option<Sort> {
        let (descending, key) = match name.strip_prefix('-') {
            Some(key) => (true, key),
            None => (false, name),
        };
        let key = match key {
            "relevance" if !descending => SortKey::Relevance,
            "id" => SortKey::Id,
            "title" => SortKey::Title,
            "creator" => SortKey::Creator,
            "date" => SortKey::Date,
            "target" => SortKey::Target,
            "updated" => SortKey::Updated,
            "created" => SortKey::Created,
            _ => return None,
        };
        Some(Sort { key, descending })
    }
}

/// One identifier found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The identifier as stored.
    pub id: String,
    /// Its first `_t`, if any.
    pub target: Option<String>,
    /// `who`, `what`, `when`, `where`, `how` (first values).
    pub who: Option<String>,
    /// The title.
    pub what: Option<String>,
    /// The date.
    pub when: Option<String>,
    /// `where`.
    pub r#where: Option<String>,
    /// `how`.
    pub how: Option<String>,
    /// Its targets' link statuses.
    pub statuses: Vec<String>,
    /// Its standing (`good`, `incomplete`, `malformed`).
    pub standing: String,
    /// When last updated (seconds).
    pub updated: Option<i64>,
}

impl Hit {
    /// The hit as an export row.
    pub fn row(&self) -> Row {
        let s = |v: &Option<String>| v.clone().unwrap_or_default();
        [
            self.id.clone(),
            s(&self.target),
            s(&self.who),
            s(&self.what),
            s(&self.when),
            s(&self.r#where),
            s(&self.how),
            self.statuses.join(" "),
            self.updated.map(export::time).unwrap_or_default(),
        ]
    }
}

/// Counts of the matches by facet value, most first (ties by value).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facets {
    /// By shoulder (`ark:/13030/f5`).
    pub shoulder: Vec<(String, u64)>,
    /// By target host.
    pub host: Vec<(String, u64)>,
    /// By populator.
    pub populator: Vec<(String, u64)>,
    /// By standing.
    pub standing: Vec<(String, u64)>,
    /// By link status (an identifier counts once for each status among its targets).
    pub status: Vec<(String, u64)>,
}

/// A page of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Results {
    /// How many identifiers match.
    pub total: usize,
    /// The page's hits.
    pub hits: Vec<Hit>,
    /// The matches counted by facet (all of them, not only the page's).
    pub facets: Facets,
}

/// What `noid index status` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexStatus {
    /// Identifiers indexed.
    pub documents: u64,
    /// Its directory.
    pub dir: PathBuf,
}

/// The search index of one minter, open for searching and updating.
pub struct SearchIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl SearchIndex {
    /// The index directory of the minter in `dbdir`.
    pub fn dir_of(dbdir: &Path) -> PathBuf {
        dbdir.join(DIR_NAME)
    }

    /// The index of the minter in `dbdir`, rebuilt first when it is missing, of another
    /// format or store, or damaged.
    ///
    /// An index only older than the embedded store is brought up to date from the
    /// store's changed-identifiers feed instead, when the feed covers every commit since
    /// (`crate::follow`).
    pub fn open(dbdir: &Path) -> Result<SearchIndex, SearchError> {
        let why = match SearchIndex::open_checked(dbdir)? {
            Ok(index) => return Ok(index),
            Err(why) if why == STALE => match SearchIndex::open_sound(dbdir, false)? {
                Ok(index) => match crate::follow::step(&index, dbdir, 0)? {
                    crate::follow::Step::Gap => why,
                    _ => return Ok(index),
                },
                Err(why) => why,
            },
            Err(why) => why,
        };
        log::info!("rebuilding the search index: {why}");
        SearchIndex::rebuild(dbdir)
    }

    /// The index as it is, or why it cannot be trusted (missing, older than the
    /// embedded store's last commit, damaged).
    pub fn open_checked(dbdir: &Path) -> Result<Result<SearchIndex, String>, SearchError> {
        SearchIndex::open_sound(dbdir, true)
    }

    /// [`SearchIndex::open_checked`], with or without the check of the store's changes.
    fn open_sound(dbdir: &Path, current: bool) -> Result<Result<SearchIndex, String>, SearchError> {
        let dir = SearchIndex::dir_of(dbdir);
        let expected = meta_text(&store_identity(dbdir)?);
        let found = match std::fs::read_to_string(dir.join(META)) {
            Ok(found) => found,
            Err(_) => return Ok(Err("there is none".into())),
        };
        let (built, changes) = found.split_once(CHANGES).unwrap_or((&found, ""));
        if built != expected {
            return Ok(Err(
                "it was built by another format or from another store".into()
            ));
        }
        if current && changes.trim() != store_changes(dbdir) {
            return Ok(Err(STALE.into()));
        }
        let index = match Index::open_in_dir(&dir) {
            Ok(index) => index,
            Err(e) => return Ok(Err(format!("it cannot be opened ({e})"))),
        };
        match index.validate_checksum() {
            Ok(bad) if bad.is_empty() => {}
            Ok(bad) => return Ok(Err(format!("{} of its files are damaged", bad.len()))),
            Err(e) => return Ok(Err(format!("its files cannot be checked ({e})"))),
        }
        match SearchIndex::with(dir, index) {
            Ok(index) => Ok(Ok(index)),
            Err(e) => Ok(Err(format!("it cannot be read ({e})"))),
        }
    }

    fn with(dir: PathBuf, index: Index) -> Result<SearchIndex, SearchError> {
        let fields = Fields::new();
        if index.schema() != fields.schema {
            return Err(SearchError::Store("the index has another schema".into()));
        }
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            dir,
            index,
            reader,
            fields,
        })
    }

    /// Build the index of the minter in `dbdir` anew from its store, replacing any.
    pub fn rebuild(dbdir: &Path) -> Result<SearchIndex, SearchError> {
        if !Layout::new(dbdir).has_minter() {
            return Err(SearchError::NoMinter(dbdir.to_path_buf()));
        }
        let identity = store_identity(dbdir)?;
        // Read before the store is: a commit made during the walk leaves the index
        // older than the store, and the next open builds it again.
        let changes = store_changes(dbdir);
        let store = noid_store::open::reader(dbdir)?;
        let dir = SearchIndex::dir_of(dbdir);
        let staging = dbdir.join(format!("{DIR_NAME}.new-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging)?;
        let fields = Fields::new();
        let index = Index::create_in_dir(&staging, fields.schema.clone())?;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        let mut writer = index.writer_with_num_threads(threads, WRITER_MEMORY)?;
        walk(&*store, &mut |record| {
            writer.add_document(fields.to_document(&record))?;
            Ok(())
        })?;
        writer.commit()?;
        writer.wait_merging_threads()?;
        drop(index);
        let meta = format!("{}{CHANGES}{changes}\n", meta_text(&identity));
        std::fs::write(staging.join(META), meta)?;
        let old = dbdir.join(format!("{DIR_NAME}.old-{}", std::process::id()));
        if dir.exists() {
            std::fs::rename(&dir, &old)?;
        }
        std::fs::rename(&staging, &dir)?;
        let _ = std::fs::remove_dir_all(&old);
        SearchIndex::with(dir.clone(), Index::open_in_dir(&dir)?)
    }

    /// How many identifiers it holds, and where.
    pub fn status(&self) -> IndexStatus {
        IndexStatus {
            documents: self.reader.searcher().num_docs(),
            dir: self.dir.clone(),
        }
    }

    /// The embedded store's change counter and store id the index is current with, as
    /// its `noid-search` file records them (`None` for a minter on a database server).
    pub(crate) fn recorded_changes(&self) -> Option<(u64, u64)> {
        let meta = std::fs::read_to_string(self.dir.join(META)).ok()?;
        let (_, changes) = meta.split_once(CHANGES)?;
        let mut parts = changes.split_whitespace();
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    }

    /// Record that the index is current with the embedded store's generation and id,
    /// after the update that made it so.
    pub(crate) fn record_changes(&self, generation: u64, store_id: u64) -> std::io::Result<()> {
        let path = self.dir.join(META);
        let meta = std::fs::read_to_string(&path)?;
        let built = meta.split_once(CHANGES).map_or(meta.as_str(), |(b, _)| b);
        let new = self.dir.join(format!("{META}.new"));
        std::fs::write(&new, format!("{built}{CHANGES}{generation} {store_id}\n"))?;
        std::fs::rename(&new, &path)
    }

    /// Index `ids` again from `store` as they are now (removed when nothing is stored
    /// under one), and make the change visible to searches: what following the store
    /// does for each identifier a commit changed.
    pub fn update<L: Lookup + ?Sized>(&self, store: &L, ids: &[String]) -> Result<(), SearchError> {
        let mut writer = self.index.writer_with_num_threads(1, 15_000_000)?;
        for id in ids {
            writer.delete_term(Term::from_field_text(self.fields.id, id));
            if let Some(record) = Record::read(store, id)? {
                writer.add_document(self.fields.to_document(&record))?;
            }
        }
        writer.commit()?;
        self.reader.reload()?;
        Ok(())
    }

    /// A page of the matches of `query`: `limit` hits (at most [`MAX_PAGE`]) after the
    /// first `offset`, in `sort` order, with the total and the facets of all matches.
    pub fn search(
        &self,
        query: &Query,
        offset: usize,
        limit: usize,
        sort: Sort,
    ) -> Result<Results, SearchError> {
        let searcher = self.reader.searcher();
        let q = self.translate(query);
        let limit = limit.clamp(1, MAX_PAGE);
        let top = TopDocs::with_limit(limit).and_offset(offset);
        let mut facets = MultiCollector::new();
        let handles: Vec<_> = self
            .fields
            .facets()
            .into_iter()
            .map(|(field, _)| {
                let mut c =
                    FacetCollector::for_field(searcher.schema().get_field_name(field).to_string());
                c.add_facet("/");
                facets.add_collector(c)
            })
            .collect();
        let order = if sort.descending {
            Order::Desc
        } else {
            Order::Asc
        };
        let (total, mut fruits, addresses): (usize, _, Vec<DocAddress>) = match sort.key {
            SortKey::Relevance => {
                let (n, f, top) = searcher.search(&q, &(Count, facets, top.order_by_score()))?;
                (n, f, top.into_iter().map(|(_, a)| a).collect())
            }
            SortKey::Updated | SortKey::Created => {
                let field = if sort.key == SortKey::Updated {
                    "updated"
                } else {
                    "created"
                };
                let c = top.order_by_fast_field::<i64>(field, order);
                let (n, f, top) = searcher.search(&q, &(Count, facets, c))?;
                (n, f, top.into_iter().map(|(_, a)| a).collect())
            }
            key => {
                let field = match key {
                    SortKey::Title => "what",
                    SortKey::Creator => "who",
                    SortKey::Date => "when",
                    SortKey::Target => "target",
                    _ => "id",
                };
                let c = top.order_by_string_fast_field(field, order);
                let (n, f, top) = searcher.search(&q, &(Count, facets, c))?;
                (n, f, top.into_iter().map(|(_, a)| a).collect())
            }
        };
        let mut counted = Facets::default();
        for (handle, (_, name)) in handles.into_iter().zip(self.fields.facets()) {
            let counts = handle.extract(&mut fruits);
            let mut values: Vec<(String, u64)> = counts
                .get("/")
                .map(|(facet, n)| (facet_value(facet), n))
                .collect();
            values.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            *match name {
                "shoulder" => &mut counted.shoulder,
                "host" => &mut counted.host,
                "populator" => &mut counted.populator,
                "standing" => &mut counted.standing,
                _ => &mut counted.status,
            } = values;
        }
        let hits = addresses
            .into_iter()
            .map(|a| self.hit(&searcher, a))
            .collect::<Result<_, _>>()?;
        Ok(Results {
            total,
            hits,
            facets: counted,
        })
    }

    /// Write every match of `query` to `out` in `format`; how many were written.
    pub fn export(
        &self,
        query: &Query,
        format: Format,
        out: impl Write,
    ) -> Result<u64, SearchError> {
        let searcher = self.reader.searcher();
        let q = self.translate(query);
        let mut addresses: Vec<DocAddress> =
            searcher.search(&q, &DocSetCollector)?.into_iter().collect();
        addresses.sort();
        let mut w = RowWriter::new(format, out)?;
        let mut n = 0;
        for a in addresses {
            w.row(&self.hit(&searcher, a)?.row())?;
            n += 1;
        }
        w.finish()?;
        Ok(n)
    }

    /// The identifiers (as stored) of every match of `query`, in key order (the index's
    /// own order depends on how it was built): what a rewrite's `--query` selects.
    pub fn matching_ids(&self, query: &Query) -> Result<Vec<String>, SearchError> {
        let searcher = self.reader.searcher();
        let q = self.translate(query);
        let addresses: Vec<DocAddress> =
            searcher.search(&q, &DocSetCollector)?.into_iter().collect();
        let mut ids = addresses
            .into_iter()
            .map(|a| Ok(self.hit(&searcher, a)?.id))
            .collect::<Result<Vec<String>, SearchError>>()?;
        ids.sort();
        Ok(ids)
    }

    fn hit(&self, searcher: &Searcher, at: DocAddress) -> Result<Hit, SearchError> {
        let doc: TantivyDocument = searcher.doc(at)?;
        let f = &self.fields;
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let facets = |field| -> Vec<String> {
            doc.get_all(field)
                .filter_map(|v| match OwnedValue::from(v) {
                    OwnedValue::Facet(facet) => Some(facet_value(&facet)),
                    _ => None,
                })
                .collect()
        };
        Ok(Hit {
            id: text(f.id).unwrap_or_default(),
            target: text(f.target),
            who: text(f.who),
            what: text(f.what),
            when: text(f.when),
            r#where: text(f.r#where),
            how: text(f.how),
            statuses: facets(f.status),
            standing: facets(f.standing).pop().unwrap_or_default(),
            updated: doc.get_first(f.updated).and_then(|v| v.as_i64()),
        })
    }

    /// The Tantivy query of `query`.
    fn translate(&self, query: &Query) -> Box<dyn TantivyQuery> {
        match query {
            Query::All => Box::new(AllQuery),
            Query::Term(t) => self.term(t),
            Query::Not(q) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, Box::new(AllQuery) as Box<dyn TantivyQuery>),
                (Occur::MustNot, self.translate(q)),
            ])),
            Query::And(parts) => {
                let mut clauses: Vec<(Occur, Box<dyn TantivyQuery>)> = parts
                    .iter()
                    .map(|p| match p {
                        Query::Not(q) => (Occur::MustNot, self.translate(q)),
                        p => (Occur::Must, self.translate(p)),
                    })
                    .collect();
                if clauses.iter().all(|(o, _)| *o == Occur::MustNot) {
                    clauses.push((Occur::Must, Box::new(AllQuery)));
                }
                Box::new(BooleanQuery::new(clauses))
            }
            Query::Or(parts) => Box::new(BooleanQuery::new(
                parts
                    .iter()
                    .map(|p| (Occur::Should, self.translate(p)))
                    .collect(),
            )),
        }
    }

    fn term(&self, t: &QTerm) -> Box<dyn TantivyQuery> {
        let f = &self.fields;
        let exact = |field, text: &str| -> Box<dyn TantivyQuery> {
            Box::new(TermQuery::new(
                Term::from_field_text(field, text),
                IndexRecordOption::Basic,
            ))
        };
        let facet = |field, value: &str| -> Box<dyn TantivyQuery> {
            Box::new(TermQuery::new(
                Term::from_facet(field, &schema::facet(value)),
                IndexRecordOption::Basic,
            ))
        };
        match t {
            QTerm::Word(w) | QTerm::Phrase(w) => self.words(w),
            QTerm::Element { name, value } => exact(f.elem, &schema::elem_term(name, value)),
            QTerm::Host(h) => facet(f.host, h),
            QTerm::Under(prefix) => Box::new(RangeQuery::new(
                Bound::Included(Term::from_field_text(f.key, prefix)),
                Bound::Excluded(Term::from_field_text(f.key, &format!("{prefix}\u{10FFFF}"))),
            )),
            QTerm::Time(field, span) => {
                let field = match field {
                    crate::query::TimeField::Created => f.created,
                    crate::query::TimeField::Updated => f.updated,
                };
                let (first, end) = span.bounds();
                let bound = |b: Option<i64>, included: bool| match b {
                    None => Bound::Unbounded,
                    Some(t) if included => Bound::Included(Term::from_field_i64(field, t)),
                    Some(t) => Bound::Excluded(Term::from_field_i64(field, t)),
                };
                let (lower, upper) = (bound(first, true), bound(end, false));
                if matches!((&lower, &upper), (Bound::Unbounded, Bound::Unbounded)) {
                    return Box::new(AllQuery);
                }
                Box::new(RangeQuery::new(lower, upper))
            }
            QTerm::Status(s) => Box::new(TermQuery::new(
                Term::from_facet(f.status, &schema::status_facet(*s)),
                IndexRecordOption::Basic,
            )),
            QTerm::Withdrawn(w) => exact(f.withdrawn, if *w { "yes" } else { "no" }),
            QTerm::Standing(s) => facet(f.standing, s.as_str()),
            QTerm::Populator(p) => facet(f.populator, p),
        }
    }

    /// Words as the `text` field's tokenizer splits them: one term, or a phrase.
    fn words(&self, text: &str) -> Box<dyn TantivyQuery> {
        let Ok(mut tokenizer) = self.index.tokenizer_for_field(self.fields.text) else {
            return Box::new(EmptyQuery);
        };
        let mut stream = tokenizer.token_stream(text);
        let mut terms = Vec::new();
        while stream.advance() {
            terms.push(Term::from_field_text(
                self.fields.text,
                &stream.token().text,
            ));
        }
        match terms.len() {
            0 => Box::new(EmptyQuery),
            1 => Box::new(TermQuery::new(
                terms.remove(0),
                IndexRecordOption::WithFreqs,
            )),
            _ => Box::new(PhraseQuery::new(terms)),
        }
    }
}

/// The value of a one-segment facet.
fn facet_value(facet: &tantivy::schema::Facet) -> String {
    facet
        .to_path()
        .last()
        .map_or_else(String::new, |s| s.to_string())
}

/// Why an index older than the store's last commit is not opened as it is.
const STALE: &str = "the store changed since it was built";

/// The `noid-search` file's line that records the store's changes.
const CHANGES: &str = "changes: ";

/// The embedded store's change counter and store id as text (`-` for a minter on a
/// database server, whose index is not checked so: docs/SEARCH.md).
fn store_changes(dbdir: &Path) -> String {
    noid_store::generation(dbdir).map_or_else(|| "-".into(), |(g, id)| format!("{g} {id}"))
}

/// The `noid-search` file's text for a store of `identity`.
fn meta_text(identity: &str) -> String {
    format!("format: {FORMAT}\nstore: {}\n", identity.trim())
}

/// What names the store in `dbdir`: the embedded store's RocksDB `IDENTITY` (a new one
/// for every store created or replaced), or the `NOID/backend` of a minter on a
/// database server.
fn store_identity(dbdir: &Path) -> Result<String, SearchError> {
    let layout = Layout::new(dbdir);
    if let Ok(id) = std::fs::read_to_string(layout.db.join("IDENTITY")) {
        return Ok(format!("rocksdb {}", id.trim()));
    }
    match std::fs::read_to_string(&layout.backend) {
        Ok(b) => Ok(format!("backend {}", b.trim().replace('\n', " "))),
        Err(_) => Err(SearchError::NoMinter(dbdir.to_path_buf())),
    }
}

/// Every identifier's [`Record`] in `store`, in key order, handed to `each`.
///
/// Two ranges are read: the link checker's states first (so that each identifier's
/// statuses are known when its keys are met), then every key outside the admin keys
/// (`:/…`), grouped by identifier.
fn walk(
    store: &dyn Scan,
    each: &mut dyn FnMut(Record) -> Result<(), SearchError>,
) -> Result<(), SearchError> {
    let mut statuses: HashMap<String, Vec<links::Status>> = HashMap::new();
    store.scan_from(links::STATE_PREFIX, &mut |k, v| {
        let Some((id, _)) = links::parse_state_key(k) else {
            return k.starts_with(links::STATE_PREFIX);
        };
        if let Some(state) = LinkState::decode(v) {
            statuses
                .entry(id.to_string())
                .or_default()
                .push(state.status);
        }
        true
    })?;
    let mut group = Group::default();
    let mut failed = None;
    let admin = keys::ADMIN_PREFIX.as_bytes();
    // `:0` is the first key past every `:/…` key.
    for (start, stop) in [(&b""[..], Some(admin)), (&b":0"[..], None)] {
        store.scan_from(start, &mut |k, v| {
            if stop.is_some_and(|s| k >= s) {
                return false;
            }
            let Some(tab) = k.iter().position(|&b| b == keys::SEPARATOR) else {
                return true;
            };
            let (id, elem) = (&k[..tab], &k[tab + 1..]);
            if id != group.id.as_slice() {
                if let Err(e) = group.finish(&statuses, each) {
                    failed = Some(e);
                    return false;
                }
                group.id.extend_from_slice(id);
            }
            group.rows.push((elem.to_vec(), v.to_vec()));
            true
        })?;
        if let Some(e) = failed.take() {
            return Err(e);
        }
    }
    group.finish(&statuses, each)
}

/// The keys of the identifier the walk is in.
#[derive(Default)]
struct Group {
    id: Vec<u8>,
    rows: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Group {
    fn finish(
        &mut self,
        statuses: &HashMap<String, Vec<links::Status>>,
        each: &mut dyn FnMut(Record) -> Result<(), SearchError>,
    ) -> Result<(), SearchError> {
        if self.id.is_empty() && self.rows.is_empty() {
            return Ok(());
        }
        let id = String::from_utf8_lossy(&self.id).into_owned();
        let rows: Vec<(&[u8], &[u8])> = self
            .rows
            .iter()
            .map(|(k, v)| (k.as_slice(), v.as_slice()))
            .collect();
        let found = statuses.get(&id).cloned().unwrap_or_default();
        let record = Record::of(&id, &rows, found);
        self.id.clear();
        self.rows.clear();
        match record {
            Some(r) => each(r),
            None => Ok(()),
        }
    }
}
