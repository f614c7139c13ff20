//! An upload's run, in the background of the request that started it: one mint of
//! the chosen minter for the `mint` rows, then one bulk run of the binder
//! (`Work::Bulk`, the bulk POST's path, with a [`Tally`]). The console's pages find
//! the run by its number (kept per service, the last [`KEPT`]) and only for the
//! populator that started it.

use std::collections::VecDeque;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use noid_egg::Format;

use super::outcome::{self, Ran, RowResult};
use super::script::{self, Script};
use super::{Upload, UploadError};
use noid_binder::api::Checked;
use noid_binder::{DirectoryWriter, Tally, Who, Work, WorkResult};

use crate::awaited::submit;
use crate::service::Service;

/// Finished or running uploads kept for their pages, per service.
pub const KEPT: usize = 64;

/// One upload.
pub struct Job {
    /// Its number, in its pages' paths.
    pub number: u64,
    /// The populator whose binder it writes.
    pub populator: String,
    /// The login that started it.
    pub login: String,
    /// The uploaded file's name.
    pub file: String,
    /// Rows (CSV) or lines (egg) in the file.
    pub rows: usize,
    /// The bulk run's count.
    pub tally: Arc<Tally>,
    /// The encoding the file was converted from, when it was not UTF-8.
    pub converted: Option<&'static str>,
    stage: Mutex<UploadStage>,
}

/// Where an upload is.
#[derive(Debug, Clone)]
pub enum UploadStage {
    /// Minting identifiers for its `mint` rows.
    Minting,
    /// Running its commands (so many in all: a sheet's; `None` for egg lines).
    Running(Option<usize>),
    /// Done: each row's result.
    Done(Arc<Vec<RowResult>>),
}

impl Job {
    /// Where it is now.
    pub fn stage(&self) -> UploadStage {
        self.stage.lock().expect("job").clone()
    }

    fn set(&self, stage: UploadStage) {
        *self.stage.lock().expect("job") = stage;
    }
}

/// The uploads of a service.
#[derive(Default)]
pub struct Uploads {
    next: AtomicU64,
    jobs: Mutex<VecDeque<Arc<Job>>>,
}

impl Uploads {
    /// Upload `number`, if it is kept and belongs to `populator`.
    pub fn get(&self, number: u64, populator: &str) -> Option<Arc<Job>> {
        let jobs = self.jobs.lock().expect("uploads");
        jobs.iter()
            .find(|j| j.number == number && j.populator == populator)
            .cloned()
    }

    fn add(&self, mut job: Job) -> Arc<Job> {
        job.number = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let job = Arc::new(job);
        let mut jobs = self.jobs.lock().expect("uploads");
        if jobs.len() == KEPT {
            jobs.pop_front();
        }
        jobs.push_back(job.clone());
        job
    }
}

/// Start `upload` into the binder of populator `pop` for `who`, minting from the
/// minter at `SCHEME/NAAN/SHOULDER` (`minter`) for its `mint` rows. Refused, with
/// nothing run, for a read-only populator, one without a binder, or `mint` rows
/// without a minter of the populator's.
pub fn start(
    service: &Arc<Service>,
    pop: &Checked,
    who: Who,
    file: String,
    upload: Upload,
    minter: Option<&str>,
) -> Result<Arc<Job>, UploadError> {
    if !pop.populator.write {
        return Err(UploadError::whole(
            "read-only access: this login may not write",
        ));
    }
    let binder = pop
        .populator
        .binder
        .as_ref()
        .ok_or_else(|| UploadError::whole("this populator has no binder"))?;
    let mints = match &upload {
        Upload::Sheet(s) => s.mints(),
        Upload::Egg(_) => 0,
    };
    let minter = match minter.filter(|m| !m.is_empty()) {
        Some(path) => Some(minter_dir(pop, path)?),
        None if mints > 0 => {
            return Err(UploadError::whole(format!(
                "{mints} rows ask for 'mint': choose a minter"
            )))
        }
        None => None,
    };
    let writers = Writers {
        binder: service.store(binder, pop.log_path()),
        minter: minter.map(|dir| service.store(&dir, None)),
        who: who.clone(),
    };
    let job = service.uploads.add(Job {
        number: 0,
        populator: who.populator,
        login: who.login,
        rows: upload.rows(),
        converted: match &upload {
            Upload::Sheet(s) => s.converted,
            Upload::Egg(_) => None,
        },
        file,
        tally: Arc::default(),
        stage: Mutex::new(UploadStage::Minting),
    });
    let running = job.clone();
    tokio::spawn(async move {
        let results = execute(&running, writers, upload).await;
        running.set(UploadStage::Done(Arc::new(results)));
    });
    Ok(job)
}

/// The directory of the populator's minter `SCHEME/NAAN/SHOULDER`.
fn minter_dir(pop: &Checked, path: &str) -> Result<PathBuf, UploadError> {
    let no = || UploadError::whole(format!("no minter {path} for this populator"));
    let steps: Vec<String> = path.split('/').map(str::to_string).collect();
    let steps: [String; 3] = steps.try_into().map_err(|_| no())?;
    noid_binder::api::minter_dir(pop, &steps).ok_or_else(no)
}

/// Where an upload's writes go.
struct Writers {
    binder: DirectoryWriter,
    minter: Option<DirectoryWriter>,
    who: Who,
}

/// Mint, then run the commands; each row's result.
async fn execute(job: &Job, w: Writers, upload: Upload) -> Vec<RowResult> {
    match upload {
        Upload::Sheet(sheet) => {
            let n = sheet.mints();
            let (minted, mint_error) = match &w.minter {
                Some(m) if n > 0 => mint(m, &w.who, n).await,
                _ => (Vec::new(), None),
            };
            let ids = script::row_ids(&sheet, &minted);
            let script = Script::of(&sheet, &ids);
            job.set(UploadStage::Running(Some(script.row_of.len())));
            let ran = bulk(
                job,
                &w,
                Work::Sheet {
                    commands: script.commands.clone(),
                    tally: Some(job.tally.clone()),
                },
            )
            .await;
            outcome::of_sheet(&sheet, &ids, mint_error.as_deref(), &script, &ran)
        }
        Upload::Egg(text) => {
            job.set(UploadStage::Running(None));
            let work = Work::Bulk {
                body: Box::new(Cursor::new(text.clone().into_bytes())),
                progress: None,
                tally: Some(job.tally.clone()),
            };
            let ran = bulk(job, &w, work).await;
            outcome::of_egg(&text, &ran)
        }
    }
}

/// `n` identifiers from the minter, and why there are fewer, if there are.
async fn mint(m: &DirectoryWriter, who: &Who, n: usize) -> (Vec<String>, Option<String>) {
    let work = Work::Mint {
        n: n as u64,
        format: Format::Anvl,
    };
    let answer = submit(m, work, who.clone(), false).await;
    let error = (answer.minted.len() < n).then(|| last_error(&answer));
    (answer.minted, error)
}

/// The bulk run `work` through the binder's thread, as its tally saw it.
async fn bulk(job: &Job, w: &Writers, work: Work) -> Ran {
    if matches!(&work, Work::Sheet { commands, .. } if commands.is_empty()) {
        return Ran::default();
    }
    let answer = submit(&w.binder, work, w.who.clone(), false).await;
    let t = &job.tally;
    let outcomes = std::mem::take(&mut *t.outcomes.lock().expect("tally"));
    let mut error = t.stopped.lock().expect("tally").clone();
    if outcomes.is_empty() && answer.failed {
        // Refused before any command ran (the store would not open).
        error.get_or_insert_with(|| last_error(&answer));
    }
    Ran {
        committed: t.committed.load(Ordering::Relaxed),
        outcomes,
        error,
        unlogged: std::mem::take(&mut *t.unlogged.lock().expect("tally")),
    }
}

/// The last `error: ` line of an answer (without the prefix).
fn last_error(answer: &WorkResult) -> String {
    String::from_utf8_lossy(&answer.body)
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("error: "))
        .unwrap_or("failed")
        .to_string()
}
