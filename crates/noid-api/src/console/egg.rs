//! What the console asks of a populator's binder and minters, as egg and nog commands
//! run through the API's own write path: the directory's thread
//! ([`crate::store::DirectoryWriter`]), noid-minter's write batch (`crate::group`), the
//! populator's rights (read-only populators are refused there) and the write log,
//! with the session's login as the agent. The console has no store access of its own.
//!
//! Command lines are built from values with noid-egg's `:hx` escaping
//! ([`noid_egg::writelog::canonical`] for writes), so no form value can add a word.

use std::path::PathBuf;
use std::sync::Arc;

use noid_egg::writelog::{canonical, escape};
use noid_egg::{Command, Format, Op};

use crate::config::{is_safe_name, Checked};
use crate::handler::Service;
use crate::store::{Who, Work, WorkResult};

/// A populator's binder and minters, acted on by one login.
pub struct Binder {
    service: Arc<Service>,
    pop: Checked,
    who: Who,
}

/// A binding as the console shows it: element name and value (as text).
pub type Binding = (String, String);

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
            return crate::store::failure("this populator has no binder");
        };
        let store = self.service.store(&dir, self.pop.log_path());
        store
            .submit(work, self.who.clone(), !self.pop.populator.write)
            .await
    }

    /// Run one egg command line on the binder.
    pub async fn egg(&self, line: String) -> WorkResult {
        self.binder(Work::Egg {
            line,
            body: Vec::new(),
        })
        .await
    }

    /// Run egg command lines on the binder as one bulk request (one write batch).
    pub async fn bulk(&self, lines: String) -> WorkResult {
        self.binder(Work::Bulk {
            body: Box::new(std::io::Cursor::new(lines.into_bytes())),
            progress: None,
            tally: None,
        })
        .await
    }

    /// The bindings of `id` (admin elements left out), in binding order.
    pub async fn fetch(&self, id: &str) -> Result<Vec<Binding>, String> {
        let v = json(
            self.egg(format!(
                "-m json :allnot :hx {}.fetch",
                escape(id.as_bytes())
            ))
            .await,
        )?;
        Ok(v["elements"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
                        (s("name"), s("value"))
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Up to `max` identifiers starting with `prefix` (any when empty), after `after`
    /// when given, in key order (egg's `list` and `next`).
    pub async fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
        max: usize,
    ) -> Result<Vec<String>, String> {
        let mut line = match after {
            Some(a) => format!("-m json :hx next {max} {}", escape(a.as_bytes())),
            None => format!("-m json :hx list {max}"),
        };
        if !prefix.is_empty() {
            line.push(' ');
            line.push_str(&escape(prefix.as_bytes()));
        }
        let v = json(self.egg(line).await)?;
        Ok(v["ids"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The populator's minters, as `SCHEME/NAAN/SHOULDER` steps.
    pub fn minters(&self) -> Vec<[String; 3]> {
        let Some(root) = &self.pop.populator.minters else {
            return Vec::new();
        };
        let names = |dir: &PathBuf| -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| is_safe_name(n))
                .collect();
            v.sort();
            v
        };
        let mut found = Vec::new();
        for scheme in names(root) {
            for naan in names(&root.join(&scheme)) {
                for shoulder in names(&root.join(&scheme).join(&naan)) {
                    let dir = root.join(&scheme).join(&naan).join(&shoulder);
                    if noid_store::Layout::new(&dir).has_minter() {
                        found.push([scheme.clone(), naan.clone(), shoulder]);
                    }
                }
            }
        }
        found
    }

    /// Mint `n` identifiers from the minter at `path` (`SCHEME/NAAN/SHOULDER`):
    /// the identifiers minted, and the error that stopped it, if any.
    pub async fn mint(&self, path: &[String; 3], n: u64) -> (Vec<String>, Option<String>) {
        let Some(dir) = crate::handler::minter_dir(&self.pop, path) else {
            return (Vec::new(), Some("no such minter".into()));
        };
        let store = self.service.store(&dir, None);
        let work = Work::Mint {
            n,
            format: Format::Anvl,
        };
        let answer = store
            .submit(work, self.who.clone(), !self.pop.populator.write)
            .await;
        let text = String::from_utf8_lossy(&answer.body);
        let ids = text
            .lines()
            .filter_map(|l| l.strip_prefix("s: "))
            .map(str::to_string)
            .collect();
        (ids, answer.failed.then(|| errors(&answer)))
    }
}

/// The egg line that sets `elem` of `id` to `value`.
pub fn set_line(id: &str, elem: &str, value: &str) -> String {
    canonical(&Command::Bind {
        op: Op::Set,
        id: id.to_string(),
        elem: elem.to_string(),
        value: value.as_bytes().to_vec(),
    })
    .expect("a write")
}

/// The egg line that removes `elem` of `id`.
pub fn rm_line(id: &str, elem: &str) -> String {
    canonical(&Command::Remove {
        id: id.to_string(),
        elem: elem.to_string(),
        report: false,
    })
    .expect("a write")
}

/// The egg line that purges `id`.
pub fn purge_line(id: &str) -> String {
    canonical(&Command::Purge { id: id.to_string() }).expect("a write")
}

/// The `error:` lines of an answer, joined (a failed answer with none: its text).
pub fn errors(answer: &WorkResult) -> String {
    let text = String::from_utf8_lossy(&answer.body);
    let errs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("error: ").or_else(|| json_error(l)))
        .collect();
    if errs.is_empty() {
        text.trim().to_string()
    } else {
        errs.join("; ")
    }
}

fn json_error(line: &str) -> Option<&str> {
    line.strip_prefix("{\"error\":\"")?.strip_suffix("\"}")
}

/// A JSON answer's object, or its error.
fn json(answer: WorkResult) -> Result<serde_json::Value, String> {
    let text = String::from_utf8_lossy(&answer.body);
    let v: serde_json::Value = text
        .lines()
        .find(|l| l.starts_with('{'))
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or(serde_json::Value::Null);
    if let Some(e) = v["error"].as_str() {
        return Err(e.to_string());
    }
    if answer.failed {
        return Err(errors(&answer));
    }
    Ok(v)
}
