//! The writer thread driven directly, on real RocksDB minters made in a temporary
//! directory: typed commands as one change, requests taken together, a bulk run's
//! output through the `Progress` trait, and failures reported (a change refused
//! whole, a store that cannot be opened). Expected values come from the inputs and
//! from the documented arithmetic of a bulk batch, not from the code under test.

use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use noid_binder::{
    AdmissionSource, DirectoryWriter, Kind, Observer, Progress, Settings, Stage, Who, Work,
    WorkResult, BULK_BATCH,
};
use noid_core::Commit;
use noid_egg::{Command, Op, Reply};

mod support;
use support::binder;

/// What the writer told its observer.
#[derive(Default)]
struct Seen {
    failed: Mutex<Vec<(String, Stage)>>,
    bound: Mutex<Vec<String>>,
    took: Mutex<Vec<Kind>>,
}

impl Observer for Seen {
    fn minted(&self, _: &str, _: u64) {}
    fn bound(&self, populators: &mut dyn Iterator<Item = &str>) {
        let mut b = self.bound.lock().unwrap();
        b.extend(populators.map(str::to_string));
    }
    fn failed(&self, populator: &str, stage: Stage) {
        self.failed
            .lock()
            .unwrap()
            .push((populator.to_string(), stage));
    }
    fn took(&self, kind: Kind, _: Duration) {
        self.took.lock().unwrap().push(kind);
    }
}

fn settings(seen: &Arc<Seen>) -> Settings {
    Settings {
        lock_timeout: Duration::from_secs(5),
        temper: |_| "20260101000000".into(),
        stopping: Arc::default(),
        observer: seen.clone(),
    }
}

fn who() -> Who {
    Who {
        populator: "sam".into(),
        login: "sam".into(),
        client: "127.0.0.1".into(),
        acting_for: None,
    }
}

fn set(id: &str, elem: &str, value: &[u8]) -> Command {
    Command::Bind {
        op: Op::Set,
        id: id.into(),
        elem: elem.into(),
        value: value.to_vec(),
    }
}

fn read(id: &str) -> Command {
    Command::Read {
        id: id.into(),
        elems: Vec::new(),
        labelled: true,
        all: false,
    }
}

/// The bindings of `id` read back through the writer.
fn bindings(w: &DirectoryWriter, id: &str) -> Vec<(String, Vec<u8>)> {
    let answer = w.run(Work::Commands(vec![read(id)]), who(), true);
    match answer.replies.as_slice() {
        [Reply::Values { elems, .. }] => elems.clone(),
        other => panic!("{other:?}"),
    }
}

struct Setup {
    _root: tempfile::TempDir,
    dir: PathBuf,
    log: PathBuf,
    seen: Arc<Seen>,
    writer: Option<DirectoryWriter>,
}

impl Setup {
    fn writer(&self) -> &DirectoryWriter {
        self.writer.as_ref().expect("running")
    }
}

/// The writer's thread closes its store once every handle is gone: wait until the
/// store's lock can be had again, so that no RocksDB store is open when the test
/// process exits.
impl Drop for Setup {
    fn drop(&mut self) {
        self.writer = None;
        noid_store::open::writer(&self.dir, Duration::from_secs(10)).unwrap();
    }
}

fn setup() -> Setup {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("binder");
    binder(&dir);
    let log = root.path().join("write.log");
    let seen = Arc::new(Seen::default());
    let writer = DirectoryWriter::start(
        dir.clone(),
        Some(log.clone()),
        settings(&seen),
        AdmissionSource::default(),
    );
    Setup {
        _root: root,
        dir,
        log,
        seen,
        writer: Some(writer),
    }
}

/// Values go in as values: several targets, commas, quotes and a newline come back
/// byte for byte, and each write is in the write log.
#[test]
fn typed_commands_write_values_byte_for_byte() {
    let s = setup();
    let title = b"Smith, \"J.\" & 'K'\nsecond line".to_vec();
    let commands = vec![
        set("x1", "_t", b"https://example.org/a"),
        set("x1", "title", &title),
    ];
    let answer = s.writer().run(Work::Commands(commands), who(), false);
    assert!(
        !answer.failed,
        "{:?}",
        String::from_utf8_lossy(&answer.body)
    );
    assert_eq!(answer.replies.len(), 2);
    assert_eq!(
        bindings(s.writer(), "x1"),
        [
            ("_t".to_string(), b"https://example.org/a".to_vec()),
            ("title".to_string(), title)
        ]
    );
    let log = std::fs::read_to_string(&s.log).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    assert_eq!(*s.seen.bound.lock().unwrap(), ["sam", "sam"]);
}

/// Requests queued together are all answered, each with its own result.
#[test]
fn requests_queued_together_are_each_answered() {
    let s = setup();
    let (tx, rx) = mpsc::channel();
    for i in 0..20 {
        let tx = tx.clone();
        let url = format!("https://example.org/{i}");
        let work = Work::Commands(vec![set(&format!("g{i}"), "_t", url.as_bytes())]);
        s.writer().submit(work, who(), false, move |a| {
            tx.send((i, a)).unwrap();
        });
    }
    drop(tx);
    let mut answered: Vec<(i32, WorkResult)> = rx.iter().collect();
    answered.sort_by_key(|(i, _)| *i);
    assert_eq!(answered.len(), 20);
    for (i, a) in &answered {
        assert!(!a.failed, "{i}: {}", String::from_utf8_lossy(&a.body));
    }
    for i in [0, 7, 19] {
        assert_eq!(
            bindings(s.writer(), &format!("g{i}")),
            [(
                "_t".to_string(),
                format!("https://example.org/{i}").into_bytes()
            )]
        );
    }
    assert_eq!(s.seen.took.lock().unwrap().len(), 20 + 3);
}

/// A change whose second command fails keeps none of it, and says why.
#[test]
fn a_failing_change_is_reported_and_keeps_nothing() {
    let s = setup();
    let commands = vec![
        set("y1", "_t", b"https://example.org/y"),
        // Element names beginning ":/" are the binder's own.
        set("y1", ":/x", b"v"),
    ];
    let answer = s.writer().run(Work::Commands(commands), who(), false);
    assert!(answer.failed);
    assert!(matches!(answer.replies.last(), Some(Reply::Error(_))));
    assert_eq!(
        String::from_utf8_lossy(&answer.body),
        "error: y1: element names beginning \":/\" are reserved.\n"
    );
    assert_eq!(bindings(s.writer(), "y1"), []);
    assert!(!s.log.exists() || std::fs::read_to_string(&s.log).unwrap().is_empty());
}

/// The link checker's records go in as one change and stay out of the write log;
/// a change with one key outside `:/links/` is refused whole, the store unchanged.
#[test]
fn link_records_are_written_and_no_other_key_through_them() {
    let s = setup();
    let state = b"status: broken\nchecked: 3\nsince: 2\n".to_vec();
    let writes = vec![
        (
            b":/links/s/z1\thttps://e.org/".to_vec(),
            Some(state.clone()),
        ),
        (b":/links/cursor".to_vec(), Some(b"z1".to_vec())),
    ];
    let answer = s.writer().run(Work::Links(writes), who(), false);
    assert!(!answer.failed, "{}", String::from_utf8_lossy(&answer.body));
    assert_eq!(s.seen.took.lock().unwrap().last(), Some(&Kind::Links));
    let refused = vec![
        (b":/links/cursor".to_vec(), None),
        (b"z1\t_t".to_vec(), Some(b"https://evil.example/".to_vec())),
    ];
    let answer = s.writer().run(Work::Links(refused), who(), false);
    assert!(answer.failed);
    assert_eq!(
        String::from_utf8_lossy(&answer.body),
        "error: not a link record: z1\t_t\n\n"
    );
    assert_eq!(bindings(s.writer(), "z1"), []);
    assert!(!s.log.exists() || std::fs::read_to_string(&s.log).unwrap().is_empty());
    let store = noid_store::open::reader(&s.dir).unwrap();
    assert_eq!(
        store.get(b":/links/s/z1\thttps://e.org/").unwrap(),
        Some(state)
    );
    assert_eq!(store.get(b":/links/cursor").unwrap(), Some(b"z1".to_vec()));
}

/// A directory that holds no store: the request fails at `open`, is told so, and
/// the observer counts it.
#[test]
fn a_store_that_cannot_open_is_reported() {
    let root = tempfile::tempdir().unwrap();
    let seen = Arc::new(Seen::default());
    let missing = root.path().join("no-such-binder");
    let w = DirectoryWriter::start(missing, None, settings(&seen), AdmissionSource::default());
    let answer = w.run(Work::Commands(vec![read("x")]), who(), true);
    assert!(answer.failed);
    assert!(
        String::from_utf8_lossy(&answer.body).starts_with("error: "),
        "{:?}",
        answer.body
    );
    assert_eq!(
        *seen.failed.lock().unwrap(),
        [("sam".to_string(), Stage::Open)]
    );
}

/// Where a bulk run's committed output went.
struct Sent(Arc<Mutex<Vec<Vec<u8>>>>);

impl Progress for Sent {
    fn committed(&mut self, output: Vec<u8>) -> Result<(), Vec<u8>> {
        self.0.lock().unwrap().push(output);
        Ok(())
    }
}

/// A bulk run commits every `BULK_BATCH` pending key writes and hands each committed
/// batch's output to its `Progress` at once; the rest stays in the answer.
#[test]
fn bulk_output_goes_through_progress_as_batches_commit() {
    let s = setup();
    // A `set` of a new identifier writes four keys (the value, two admin elements and
    // `:/m`): a batch is committed after BULK_BATCH / 4 commands.
    let per_batch = BULK_BATCH / 4;
    let n = per_batch + 10;
    let body: String = (1..=n)
        .map(|i| format!("b{i}.set _t https://example.org/{i}\n"))
        .collect();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let work = Work::Bulk {
        body: Box::new(std::io::Cursor::new(body.into_bytes())),
        progress: Some(Box::new(Sent(sent.clone()))),
        tally: None,
    };
    let answer = s.writer().run(work, who(), false);
    assert!(!answer.failed);
    let sent = sent.lock().unwrap();
    assert_eq!(sent.len(), 1, "one batch committed before the end");
    let first = String::from_utf8_lossy(&sent[0]);
    assert!(
        first.ends_with(&format!(
            "# committed {per_batch} commands, through line {per_batch}\n"
        )),
        "{}",
        &first[first.len().saturating_sub(200)..]
    );
    assert_eq!(
        String::from_utf8_lossy(&answer.body)
            .lines()
            .last()
            .unwrap(),
        format!("# committed {n} commands, through line {n}")
    );
    assert_eq!(
        bindings(s.writer(), &format!("b{n}")),
        [(
            "_t".to_string(),
            format!("https://example.org/{n}").into_bytes()
        )]
    );
}

/// Typed commands check targets (a target is an absolute URL or a stored code, as
/// docs/CONSOLE.md says of the console's forms), where egg lines keep the binder's
/// own rule: the same value is refused typed and kept as a line.
#[test]
fn typed_targets_are_checked_egg_lines_are_not() {
    let s = setup();
    let typed = s
        .writer()
        .run(Work::Commands(vec![set("t1", "_t", b"v1")]), who(), false);
    assert_eq!(
        String::from_utf8_lossy(&typed.body),
        "error: t1: \"v1\" cannot be a target: a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)\n"
    );
    let line = Work::Egg {
        line: "t1.set _t v1".into(),
        body: Vec::new(),
    };
    assert!(!s.writer().run(line, who(), false).failed);
    assert_eq!(
        bindings(s.writer(), "t1"),
        [("_t".to_string(), b"v1".to_vec())]
    );
}

/// A bulk body that hands out its lines only when told, and says when the run first
/// asked for one (the writer's thread is then held by the run).
struct Held {
    lines: mpsc::Receiver<Vec<u8>>,
    asked: Option<mpsc::Sender<()>>,
    buf: Vec<u8>,
}

impl std::io::Read for Held {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::BufRead::fill_buf(self)?.len().min(out.len());
        out[..n].copy_from_slice(&self.buf[..n]);
        std::io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl std::io::BufRead for Held {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.buf.is_empty() {
            if let Some(asked) = self.asked.take() {
                asked.send(()).unwrap();
            }
            self.buf = self.lines.recv().unwrap_or_default();
        }
        Ok(&self.buf)
    }
    fn consume(&mut self, n: usize) {
        self.buf.drain(..n);
    }
}

/// Reads go through a snapshot: while a bulk run holds the directory's thread (its
/// body stalled), a read of a committed value and a read-only egg line are answered;
/// a write queued behind the run waits for it.
#[test]
fn reads_proceed_while_the_writer_is_held() {
    let s = setup();
    let url = b"https://example.org/r";
    let wrote = s
        .writer()
        .run(Work::Commands(vec![set("r1", "_t", url)]), who(), false);
    assert!(!wrote.failed);
    let (lines_tx, lines) = mpsc::channel();
    let (asked_tx, asked) = mpsc::channel();
    let body = Held {
        lines,
        asked: Some(asked_tx),
        buf: Vec::new(),
    };
    let (done_tx, done) = mpsc::channel();
    let work = Work::Bulk {
        body: Box::new(body),
        progress: None,
        tally: None,
    };
    s.writer().submit(work, who(), false, move |a| {
        done_tx.send(a).unwrap();
    });
    asked.recv().unwrap();
    // The run holds the thread now: a queued write waits behind it.
    let (write_tx, write_done) = mpsc::channel();
    let queued = Work::Commands(vec![set("r2", "_t", b"https://example.org/q")]);
    s.writer().submit(queued, who(), false, move |a| {
        write_tx.send(a).unwrap();
    });
    let admission = noid_minter::gate::Admission::default();
    let replies = noid_binder::snapshot(&s.dir, |store| {
        noid_binder::read(store, &admission, &who(), &[read("r1")])
    })
    .unwrap()
    .unwrap();
    match replies.as_slice() {
        [Reply::Values { elems, .. }] => {
            assert_eq!(*elems, [("_t".to_string(), url.to_vec())])
        }
        other => panic!("{other:?}"),
    }
    assert!(noid_binder::only_reads(&who(), "r1.get _t", b""));
    let line = noid_binder::snapshot(&s.dir, |store| {
        noid_binder::read_line(store, &admission, &who(), false, "r1.get _t", b"")
    })
    .unwrap()
    .expect("the minter's state read");
    // As egg answers `get` (noid-cli's API tests: `i.get moo` gives `moo: cow`).
    assert_eq!(
        String::from_utf8_lossy(&line.body),
        "_t: https://example.org/r\n\n"
    );
    // A line that writes is left to the writer.
    assert!(!noid_binder::only_reads(&who(), "r3.set _t x", b""));
    assert!(
        write_done.try_recv().is_err(),
        "the queued write waited behind the run"
    );
    lines_tx
        .send(b"r4.set _t https://example.org/4\n".to_vec())
        .unwrap();
    drop(lines_tx);
    let bulk = done.recv().unwrap();
    assert!(!bulk.failed, "{}", String::from_utf8_lossy(&bulk.body));
    assert!(!write_done.recv().unwrap().failed);
}

/// `noid serve`'s reads: a follower kept per directory sees each write committed
/// through the writer thread by the very next read.
#[test]
fn the_site_reads_every_committed_write_through_its_follower() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("binder");
    binder(&dir);
    let text = format!(
        "[populator.sam]\nopen = true\nbinder = \"{}\"\n",
        dir.display()
    );
    let (config, populators) = noid_binder::api::parse(&text).unwrap();
    let site = noid_binder::api::Site::new(
        config,
        populators,
        |_| "20260101000000".into(),
        Arc::new(noid_binder::Unobserved),
    );
    let admission = site.admitted(&dir);
    // Every read goes through the view, never the writer thread.
    let current = || {
        let replies = site
            .reading(&dir, |store| {
                noid_binder::read(store, &admission, &who(), &[read("f1")])
            })
            .unwrap()
            .unwrap();
        match replies.as_slice() {
            [Reply::Values { elems, .. }] => elems.clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(current(), []);
    for n in 1..=3 {
        let url = format!("https://example.org/{n}");
        let set = Work::Commands(vec![set("f1", "_t", url.as_bytes())]);
        assert!(!site.writer(&dir, None).run(set, who(), false).failed);
        assert_eq!(current(), [("_t".to_string(), url.into_bytes())]);
    }
    site.stop();
    drop(site);
    // The writer's thread closes its store once its handles are gone.
    noid_store::open::writer(&dir, Duration::from_secs(10)).unwrap();
}

/// A read while another writer holds the store, and has committed, is answered without
/// waiting for it to close, and shows what it committed.
#[test]
fn the_site_reads_while_a_noid_process_holds_the_store() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("binder");
    binder(&dir);
    let text = format!(
        "[populator.sam]\nopen = true\nbinder = \"{}\"\n",
        dir.display()
    );
    let (config, populators) = noid_binder::api::parse(&text).unwrap();
    let site = noid_binder::api::Site::new(
        config,
        populators,
        |_| "20260101000000".into(),
        Arc::new(noid_binder::Unobserved),
    );
    let admission = site.admitted(&dir);
    let values = || {
        let replies = site
            .reading(&dir, |store| {
                noid_binder::read(store, &admission, &who(), &[read("h1")])
            })
            .unwrap()
            .unwrap();
        match replies.as_slice() {
            [Reply::Values { elems, .. }] => elems.clone(),
            other => panic!("{other:?}"),
        }
    };
    // The follower opens on a quiet store.
    assert_eq!(values(), []);
    let held = noid_store::open::writer(&dir, Duration::from_secs(10)).unwrap();
    held.commit_writes(vec![(
        b"h1\t_t".to_vec(),
        Some(b"https://example.org/held".to_vec()),
    )])
    .unwrap();
    // Between its commits (as `noid serve`'s writer thread pauses after each), the
    // writer still holds the store while the site reads.
    assert!(held.pause(Duration::from_secs(5)).unwrap());
    assert!(noid_store::open::writer(&dir, Duration::from_millis(10)).is_err());
    assert_eq!(
        values(),
        [("_t".to_string(), b"https://example.org/held".to_vec())]
    );
    drop(held);
    site.stop();
}
