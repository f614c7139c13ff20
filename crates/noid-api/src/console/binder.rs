//! What the console asks of a populator's binder and minters, as typed binder commands
//! ([`noid_egg::Command`]) run through the API's own write path: the directory's
//! thread (noid-binder's [`DirectoryWriter`](noid_binder::DirectoryWriter)), noid-minter's
//! write batch, the identifier gate, the populator's rights (read-only populators
//! are refused there) and the write log, with the session's login as the agent. Reads
//! (current values, listings) go through a read-only view (noid-binder's [`read`]) on a
//! blocking thread, never through the writer thread, so a page shows while a bulk run
//! holds the binder. The console formats no command line: values go in as values and
//! replies come back typed, so no value can add a word or lose a byte.

use std::path::PathBuf;
use std::sync::Arc;

use noid_egg::{Command, Format, Reply};

use noid_binder::api::{minter_dir, Checked};
use noid_binder::{failure, minter_paths, name_store, name_store_in, read, Who, Work, WorkResult};

use crate::awaited::submit;
use crate::service::Service;

/// A populator's binder and minters, acted on by one login.
pub struct Binder {
    service: Arc<Service>,
    pop: Checked,
    who: Who,
}

/// A binding as the console reads it: element name and value (bytes, as stored).
pub type Binding = (String, Vec<u8>);

impl Binder {
    /// Act on populator `pop` as `who`.
    pub fn new(service: Arc<Service>, pop: Checked, who: Who) -> Binder {
        Binder { service, pop, who }
    }

    /// Whether the populator may write.
    pub fn writes(&self) -> bool {
        self.pop.populator.write
    }

    /// Whether the populator has a binder.
    pub fn has_binder(&self) -> bool {
        self.pop.populator.binder.is_some()
    }

    /// Run `work` on the binder.
    pub async fn binder(&self, work: Work) -> WorkResult {
        let Some(dir) = self.pop.populator.binder.clone() else {
            return failure("this populator has no binder");
        };
        let store = self.service.store(&dir, self.pop.log_path());
        name_store(
            submit(&store, work, self.who.clone(), !self.pop.populator.write).await,
            &dir,
        )
    }

    /// Run typed `commands` on the binder as one change (none is kept if one fails):
    /// their replies, or the first error.
    pub async fn run(&self, commands: Vec<Command>) -> Result<Vec<Reply>, String> {
        replies(self.binder(Work::Commands(commands)).await)
    }

    /// Run the read-only `commands` on the store in `dir` through its read-only view
    /// (noid-binder's `Site::reading`), on a blocking thread: their replies, or the
    /// first error.
    async fn read(&self, dir: PathBuf, commands: Vec<Command>) -> Result<Vec<Reply>, String> {
        let (service, who) = (self.service.clone(), self.who.clone());
        let at = dir.clone();
        let replies = tokio::task::spawn_blocking(move || {
            let site = service.site();
            let admission = site.admitted(&at);
            site.reading(&at, |store| read(store, &admission, &who, &commands))
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| name_store_in(&e, &dir))?
        .map_err(|e| name_store_in(&e.to_string(), &dir))?;
        match replies.iter().find_map(|r| match r {
            Reply::Error(e) => Some(name_store_in(&e.to_string(), &dir)),
            _ => None,
        }) {
            Some(e) => Err(e),
            None => Ok(replies),
        }
    }

    /// `f` on the binder's read-only view ([`Service::view`]).
    pub async fn view<T: Send + 'static>(
        &self,
        f: impl Fn(&dyn noid_core::Lookup) -> T + Send + 'static,
    ) -> Result<T, String> {
        let Some(dir) = self.pop.populator.binder.clone() else {
            return Err("this populator has no binder".into());
        };
        self.service.view(&dir, f).await
    }

    /// Read-only `commands` on the binder, through its read-only view.
    async fn read_binder(&self, commands: Vec<Command>) -> Result<Vec<Reply>, String> {
        let Some(dir) = self.pop.populator.binder.clone() else {
            return Err("this populator has no binder".into());
        };
        self.read(dir, commands).await
    }

    /// The bindings of `id` (admin elements left out), in binding order, values as
    /// stored (bytes), read through the binder's read-only view.
    pub async fn fetch(&self, id: &str) -> Result<Vec<Binding>, String> {
        let read = Command::Read {
            id: id.to_string(),
            elems: Vec::new(),
            labelled: true,
            all: false,
        };
        match self.read_binder(vec![read]).await?.pop() {
            Some(Reply::Values { elems, .. }) => Ok(elems),
            _ => Err("the binder gave no values".into()),
        }
    }

    /// Up to `max` identifiers starting with `prefix` (any when empty), after `after`
    /// when given, in key order (egg's `list` and `next`).
    pub async fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
        max: usize,
    ) -> Result<Vec<String>, String> {
        listed(
            self.read_binder(vec![listing(prefix, after, max, false)])
                .await?,
        )
    }

    /// Up to `max` identifiers the minter at `path` issued, starting with `prefix` (any
    /// spelling; all when empty), after `after` (in the minter's spelling), in key
    /// order: read from the minter's circulation records, bound or not.
    pub async fn minted(
        &self,
        path: &[String; 3],
        prefix: &str,
        after: Option<&str>,
        max: usize,
    ) -> Result<Vec<String>, String> {
        let Some(dir) = minter_dir(&self.pop, path) else {
            return Err("no such minter".into());
        };
        let list = listing(prefix, after, max, true);
        listed(self.read(dir, vec![list]).await?)
    }

    /// The populator's minters, as `SCHEME/NAAN/SHOULDER` steps.
    pub fn minters(&self) -> Vec<[String; 3]> {
        match &self.pop.populator.minters {
            Some(root) => minter_paths(root),
            None => Vec::new(),
        }
    }

    /// Mint `n` identifiers from the minter at `path` (`SCHEME/NAAN/SHOULDER`):
    /// the identifiers minted, and the error that stopped it, if any.
    pub async fn mint(&self, path: &[String; 3], n: u64) -> (Vec<String>, Option<String>) {
        let Some(dir) = minter_dir(&self.pop, path) else {
            return (Vec::new(), Some("no such minter".into()));
        };
        let store = self.service.store(&dir, None);
        let work = Work::Mint {
            n,
            format: Format::Anvl,
        };
        let answer = submit(&store, work, self.who.clone(), !self.pop.populator.write).await;
        let answer = name_store(answer, &dir);
        let error = answer.failed.then(|| errors(&answer));
        (answer.minted, error)
    }
}

/// The replies of a [`Work::Commands`] answer, or its first error.
fn replies(answer: WorkResult) -> Result<Vec<Reply>, String> {
    let failed = answer.replies.iter().find_map(|r| match r {
        Reply::Error(e) => Some(e.to_string()),
        _ => None,
    });
    match failed {
        Some(e) => Err(e),
        None if answer.failed => Err(errors(&answer)),
        None => Ok(answer.replies),
    }
}

/// Egg's `list`/`next` of up to `max` identifiers starting with `prefix` (any when
/// empty), after `after`: those with bindings, or (`circulated`) those a minter issued.
fn listing(prefix: &str, after: Option<&str>, max: usize, circulated: bool) -> Command {
    Command::List {
        binder: String::new(),
        max: Some(max),
        after: after.map(str::to_string),
        prefixes: if prefix.is_empty() {
            Vec::new()
        } else {
            vec![prefix.to_string()]
        },
        all: false,
        circulated,
    }
}

/// The identifiers of a listing's replies.
fn listed(replies: Vec<Reply>) -> Result<Vec<String>, String> {
    match replies.into_iter().next() {
        Some(Reply::Listing { found, .. }) => Ok(found.ids),
        _ => Err("the store gave no listing".into()),
    }
}

/// Why a failed answer failed: its error, or its text.
fn errors(answer: &WorkResult) -> String {
    match &answer.error {
        Some(e) => e.clone(),
        None => String::from_utf8_lossy(&answer.body).trim().to_string(),
    }
}
