//! `import`, `export` and `check`: moving minters in and out of noid, and checking
//! the health of a long-lived minter (see docs/MIGRATION.md).
//!
//! * `import PATH` reads an old minter (its `NOID` directory, its `noid.bdb` through
//!   Debian's `db_dump -p`, a `db_dump -p` text file, a `noid export` file, or `-` for
//!   standard input) into a new store. The store is built in a temporary directory
//!   beside `Dbdir/NOID` and renamed into place only when complete and validated, so
//!   an import that fails or is interrupted leaves no store behind.
//! * `export [noid|dbdump]` writes every key to standard output, streaming.
//! * `check [--repair] [N]` reports and (with `--repair`, atomically under the
//!   writers' lock) repairs; the analysis lives in `noid_migrate::check`.

use std::fs;
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use noid_migrate::check::{analyze, Analysis, Census, Options};
use noid_migrate::dump::{sniff, Format, Reader, Sniff, Writer as DumpWriter};
use noid_migrate::validate::Validator;
use noid_store::{Layout, Op, Snapshot, StoreError, Writer};

use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// Keys per synced batch while importing.
const CHUNK: usize = 100_000;

/// Run `import`, `export` or `check` (`words[0]`).
pub fn run(session: &Session, words: &[String], out: &mut Out) {
    let args = &words[1..];
    match words[0].as_str() {
        "import" => import(session, args, out),
        "export" => export(session, args, out),
        _ => check(session, args, out),
    }
}

/// Perl's complaint for a command that needs a minter where there is none.
fn no_database(session: &Session, out: &mut Out) {
    out.bprint_err(&format!(
        "error: no database ({}) -- use dbcreate?\n\n",
        session.dbname()
    ));
    usage(out, true, true, "intro");
    out.failed = true;
}

fn store_error(session: &Session, e: StoreError, out: &mut Out) {
    match e {
        StoreError::NoDatabase(_) => no_database(session, out),
        e => out.fail(format!("error: {e}\n")),
    }
}

// ---------------------------------------------------------------------------------
// import

/// Where the records come from.
enum Source {
    Stdin,
    Text(PathBuf),
    Bdb(PathBuf),
}

/// The old minter's files.
struct Old {
    source: Source,
    readme: Option<PathBuf>,
    log: Option<PathBuf>,
}

fn import(session: &Session, args: &[String], out: &mut Out) {
    if session.web {
        out.out("error: command \"import\" not allowed in URL interface.\n");
        usage(out, true, true, "intro");
        out.failed = true;
        return;
    }
    let [path] = args else {
        out.fail(
            "error: import needs one PATH: an old minter's NOID directory, its noid.bdb, a db_dump -p text file, a noid export file, or - for standard input\n",
        );
        return;
    };
    if Layout::new(&session.dbdir).exists() {
        out.fail(format!(
            "error: a NOID database already exists in \"{}\".\n\tTo import into it, rename or remove the entire NOID subdirectory, or choose another Dbdir with -f.\n",
            session.dbdir_display
        ));
        return;
    }
    match locate(path).and_then(|old| load(session, path, &old)) {
        Ok(msg) => out.out(msg),
        Err(msg) => out.fail(format!("{msg}\n")),
    }
}

/// Work out what PATH is.
fn locate(path: &str) -> Result<Old, String> {
    if path == "-" {
        return Ok(Old {
            source: Source::Stdin,
            readme: None,
            log: None,
        });
    }
    let p = PathBuf::from(path);
    let meta = fs::metadata(&p).map_err(|e| format!("error: {path}: {e}"))?;
    let beside = |dir: &Path, name: &str| Some(dir.join(name)).filter(|f| f.is_file());
    if meta.is_dir() {
        for dir in [p.clone(), p.join("NOID")] {
            let bdb = dir.join("noid.bdb");
            if bdb.is_file() {
                return Ok(Old {
                    source: Source::Bdb(bdb),
                    readme: beside(&dir, "README"),
                    log: beside(&dir, "log"),
                });
            }
        }
        return Err(format!(
            "error: {path}: no noid.bdb in this directory (nor in {path}/NOID)"
        ));
    }
    let mut head = [0u8; 64];
    let n = read_head(&p, &mut head).map_err(|e| format!("error: {path}: {e}"))?;
    match sniff(&head[..n]) {
        Sniff::Text(_) => Ok(Old { source: Source::Text(p), readme: None, log: None }),
        Sniff::BerkeleyDb => {
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
            Ok(Old { source: Source::Bdb(p), readme: beside(&dir, "README"), log: beside(&dir, "log") })
        }
        Sniff::Unknown => Err(format!(
            "error: {path}: not a Noid minter: neither a BerkeleyDB database nor db_dump -p or noid export text"
        )),
    }
}

fn read_head(p: &Path, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut f = fs::File::open(p)?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The first of Debian's names for BerkeleyDB's dump tool found on `$PATH`.
fn find_db_dump() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["db_dump", "db5.3_dump"] {
        for dir in std::env::split_paths(&path) {
            let f = dir.join(name);
            if f.is_file() {
                return Some(f);
            }
        }
    }
    None
}

/// A running `db_dump -p FILE` whose standard error is collected on a thread.
struct DbDump {
    child: Child,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
}

impl DbDump {
    fn start(file: &Path) -> Result<(DbDump, std::process::ChildStdout), String> {
        let exe = find_db_dump().ok_or(
            "error: db_dump not found; install Debian's db-util or pass a db_dump -p text file",
        )?;
        let mut child = Command::new(&exe)
            .arg("-p")
            .arg(file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("error: cannot run {}: {e}", exe.display()))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        let stderr = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err.read_to_end(&mut v);
            v
        });
        Ok((
            DbDump {
                child,
                stderr: Some(stderr),
            },
            stdout,
        ))
    }

    /// Wait for the exit; `Err` with db_dump's own message when it failed.
    fn finish(&mut self) -> Result<(), String> {
        let status = self
            .child
            .wait()
            .map_err(|e| format!("error: db_dump: {e}"))?;
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if status.success() {
            return Ok(());
        }
        let msg = String::from_utf8_lossy(&stderr).trim().replace('\n', "; ");
        Err(format!("error: db_dump failed ({status}): {msg}"))
    }
}

impl Drop for DbDump {
    fn drop(&mut self) {
        if self.stderr.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Directories and files made by an import, removed again unless it succeeds.
struct Staging {
    /// `Dbdir/.NOID.import-PID`, holding the new store as `…/NOID`.
    tmp: PathBuf,
    /// The Dbdir, when the import created it.
    made_dbdir: Option<PathBuf>,
    done: bool,
}

impl Drop for Staging {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let _ = fs::remove_dir_all(&self.tmp);
        if let Some(d) = &self.made_dbdir {
            let _ = fs::remove_dir(d);
        }
    }
}

/// Remove what imports killed outright (SIGKILL, power loss) left behind: staging
/// directories whose process no longer exists.
fn remove_stale_staging(dbdir: &Path) {
    let Ok(entries) = fs::read_dir(dbdir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(".NOID.import-"))
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: kill with signal 0 only checks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

fn progress(total: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = match total {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template("importing {bar:40} {bytes}/{total_bytes} {msg} ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("importing {spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    pb.set_draw_target(ProgressDrawTarget::stderr());
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Import `old` into the session's Dbdir; the success line, or the error.
fn load(session: &Session, path: &str, old: &Old) -> Result<String, String> {
    let dbdir = &session.dbdir;
    let made_dbdir = if dbdir.exists() {
        None
    } else {
        fs::create_dir_all(dbdir)
            .map_err(|e| format!("error: cannot create {}: {e}", dbdir.display()))?;
        Some(dbdir.clone())
    };
    remove_stale_staging(dbdir);
    let mut staging = Staging {
        tmp: dbdir.join(format!(".NOID.import-{}", std::process::id())),
        made_dbdir,
        done: false,
    };
    let _ = fs::remove_dir_all(&staging.tmp);

    // The records, from wherever they are.
    let mut dbdump = None;
    let (input, size): (Box<dyn BufRead>, Option<u64>) = match &old.source {
        Source::Stdin => (
            Box::new(BufReader::with_capacity(1 << 20, std::io::stdin())),
            None,
        ),
        Source::Text(p) => {
            let f = fs::File::open(p).map_err(|e| format!("error: {path}: {e}"))?;
            let size = f.metadata().ok().map(|m| m.len());
            (Box::new(BufReader::with_capacity(1 << 20, f)), size)
        }
        Source::Bdb(p) => {
            let (d, stdout) = DbDump::start(p)?;
            dbdump = Some(d);
            (Box::new(BufReader::with_capacity(1 << 20, stdout)), None)
        }
    };
    // A failing db_dump explains a broken stream better than the stream does.
    let dump_failed = |dbdump: &mut Option<DbDump>, msg: String| -> String {
        match dbdump.as_mut().map(DbDump::finish) {
            Some(Err(e)) => e,
            _ => msg,
        }
    };
    let mut reader = match Reader::new(input) {
        Ok(r) => r,
        Err(e) => {
            return Err(dump_failed(
                &mut dbdump,
                format!("error: {path}: {e}; nothing was imported"),
            ))
        }
    };

    let writer =
        Writer::create(&staging.tmp, session.lock_timeout).map_err(|e| format!("error: {e}"))?;
    let pb = progress(size);
    let mut validator = Validator::new();
    let mut batch: Vec<Op> = Vec::with_capacity(CHUNK);
    loop {
        let rec = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                pb.finish_and_clear();
                return Err(dump_failed(
                    &mut dbdump,
                    format!("error: {path}: {e}; nothing was imported"),
                ));
            }
        };
        validator.observe(&rec.key, &rec.value, rec.line);
        batch.push(Op::Put(rec.key, rec.value));
        if batch.len() >= CHUNK {
            writer
                .commit(batch.drain(..))
                .map_err(|e| format!("error: {e}"))?;
            pb.set_position(reader.bytes_read());
            pb.set_message(format!("{} keys", reader.records()));
        }
    }
    writer
        .commit(batch.drain(..))
        .map_err(|e| format!("error: {e}"))?;
    pb.finish_and_clear();
    if let Some(d) = dbdump.as_mut() {
        d.finish()?;
    }
    let summary = validator
        .finish()
        .map_err(|e| format!("error: {path}: {e}; nothing was imported"))?;
    if !validator.sorted() {
        // Unsorted input: duplicates show up as fewer distinct keys than records.
        let mut distinct = 0u64;
        writer
            .scan_from(b"", |_, _| {
                distinct += 1;
                true
            })
            .map_err(|e| format!("error: {e}"))?;
        if distinct != validator.records() {
            return Err(format!(
                "error: {path}: {} records but only {distinct} distinct keys: the dump repeats keys; nothing was imported",
                validator.records()
            ));
        }
    }
    let staged = writer.layout().clone();
    drop(writer);

    // README: the old one, else the creation record kept in `:/erc`.
    match &old.readme {
        Some(r) => fs::copy(r, &staged.readme).map(|_| ()),
        None => match validator.admin("erc") {
            Some(erc) => fs::write(&staged.readme, erc),
            None => Ok(()),
        },
    }
    .map_err(|e| format!("error: cannot write {}: {e}", staged.readme.display()))?;
    let mut log = match &old.log {
        Some(l) => fs::read(l).unwrap_or_default(),
        None => Vec::new(),
    };
    let env_ctx = session.context();
    log.extend_from_slice(
        format!(
            "{}: imported {} keys from {path} by {}\n",
            env_ctx.now_temper(),
            summary.records,
            session.contact
        )
        .as_bytes(),
    );
    fs::write(&staged.log, log)
        .map_err(|e| format!("error: cannot write {}: {e}", staged.log.display()))?;

    publish(dbdir, &staged)?;
    staging.done = true;
    let _ = fs::remove_dir_all(&staging.tmp);
    Ok(format!(
        "ok: imported {} keys from {path}: template {} ({}, {} term), :/oacounter {}\n",
        summary.records, summary.template, summary.gen_type, summary.term, summary.oacounter
    ))
}

/// Move the staged minter into `Dbdir/NOID`. The database directory arrives last
/// (or with its whole `NOID` directory) in one rename, so the store appears whole.
fn publish(dbdir: &Path, staged: &Layout) -> Result<(), String> {
    let target = Layout::new(dbdir);
    let fail = |what: &Path, e: std::io::Error| {
        format!(
            "error: cannot move the new minter into {}: {e}",
            what.display()
        )
    };
    if !target.noid_dir.exists() {
        return fs::rename(&staged.noid_dir, &target.noid_dir)
            .map_err(|e| fail(&target.noid_dir, e));
    }
    if target.exists() {
        return Err(format!(
            "error: a NOID database appeared in \"{}\" during the import",
            dbdir.display()
        ));
    }
    for (from, to) in [
        (&staged.readme, &target.readme),
        (&staged.log, &target.log),
        (&staged.generation, &target.generation),
    ] {
        if from.exists() {
            fs::rename(from, to).map_err(|e| fail(to, e))?;
        }
    }
    fs::rename(&staged.db, &target.db).map_err(|e| fail(&target.db, e))
}

// ---------------------------------------------------------------------------------
// export

fn export(session: &Session, args: &[String], out: &mut Out) {
    let format = match args.first().map(String::as_str) {
        None | Some("noid") => Format::Export,
        Some("dbdump") => Format::DbDump,
        Some(other) => {
            out.fail(format!(
                "error: export format must be \"noid\" or \"dbdump\" (got \"{other}\")\n"
            ));
            return;
        }
    };
    if args.len() > 1 {
        out.fail("error: export takes at most one argument (noid or dbdump)\n");
        return;
    }
    if !Layout::new(&session.dbdir).exists() {
        no_database(session, out);
        return;
    }
    let snap = match Snapshot::open(&session.dbdir) {
        Ok(s) => s,
        Err(e) => return store_error(session, e, out),
    };
    // Whatever a bulk run printed before must come first.
    if out.flush(session.web).is_err() {
        return;
    }
    let stdout = std::io::stdout();
    let sink = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let mut w = match DumpWriter::new(sink, format) {
        Ok(w) => w,
        Err(e) => return write_failed(e, out),
    };
    let mut failure = None;
    let scanned = snap.scan_from(b"", |k, v| match w.record(k, v) {
        Ok(()) => true,
        Err(e) => {
            failure = Some(e);
            false
        }
    });
    if let Err(e) = scanned {
        out.fail(format!("error: {e}; the export is incomplete\n"));
        return;
    }
    if let Some(e) = failure {
        return write_failed(e, out);
    }
    if let Err(e) = w.finish() {
        write_failed(e, out);
    }
}

fn write_failed(e: std::io::Error, out: &mut Out) {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        out.fail(format!("error: cannot write the export: {e}\n"));
    } else {
        out.failed = true;
    }
}

// ---------------------------------------------------------------------------------
// check

fn check(session: &Session, args: &[String], out: &mut Out) {
    let mut repair = false;
    let mut opts = Options::default();
    for a in args {
        match a.as_str() {
            "--repair" | "repair" => repair = true,
            n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                opts.lookahead = n.parse().unwrap_or(10).clamp(1, 100_000);
            }
            other => {
                out.fail(format!(
                    "error: check takes [--repair] [N], not \"{other}\"\n"
                ));
                return;
            }
        }
    }
    if !Layout::new(&session.dbdir).exists() {
        no_database(session, out);
        return;
    }
    if repair && session.web {
        out.out("error: \"check --repair\" not allowed in URL interface.\n");
        out.failed = true;
        return;
    }
    if !repair {
        let snap = match Snapshot::open(&session.dbdir) {
            Ok(s) => s,
            Err(e) => return store_error(session, e, out),
        };
        match survey(&snap, |f| snap.scan_from(b"", f), opts) {
            Ok(a) => report(&a, out),
            Err(msg) => out.fail(format!("{msg}\n")),
        }
        return;
    }
    let writer = match Writer::open(&session.dbdir, session.lock_timeout) {
        Ok(w) => w,
        Err(e) => return store_error(session, e, out),
    };
    let before = match survey(&writer, |f| writer.scan_from(b"", f), opts) {
        Ok(a) => a,
        Err(msg) => return out.fail(format!("{msg}\n")),
    };
    for l in &before.lines {
        out.out(format!("{l}\n"));
    }
    if before.ok() {
        out.out("ok: no problems found\n");
        return;
    }
    for p in &before.problems {
        out.out(format!("problem: {}\n", p.text));
    }
    let ops = before.repair().into_iter().map(|(k, v)| Op::Put(k, v));
    if let Err(e) = writer.commit(ops) {
        return out.fail(format!("error: {e}; nothing was repaired\n"));
    }
    for fix in before.problems.iter().filter_map(|p| p.repair.as_ref()) {
        out.out(format!("repaired: {fix}\n"));
    }
    let after = match survey(&writer, |f| writer.scan_from(b"", f), opts) {
        Ok(a) => a,
        Err(msg) => return out.fail(format!("{msg}\n")),
    };
    if after.ok() {
        let n = before.problems.len();
        out.out(format!(
            "ok: {n} {} repaired\n",
            if n == 1 { "problem" } else { "problems" }
        ));
        return;
    }
    for p in &after.problems {
        out.out(format!("problem: {}\n", p.text));
    }
    let n = after.problems.len();
    out.fail(format!(
        "error: {n} {} after repair; see docs/MIGRATION.md\n",
        if n == 1 {
            "problem remains"
        } else {
            "problems remain"
        }
    ));
}

/// Count every record, then analyse.
fn survey<L: noid_resolve::Lookup>(
    l: &L,
    scan: impl FnOnce(&mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<(), StoreError>,
    opts: Options,
) -> Result<Analysis, String> {
    let mut census = Census::new();
    scan(&mut |k, v| {
        census.add(k, v);
        true
    })
    .map_err(|e| format!("error: {e}"))?;
    analyze(l, &census, opts).map_err(|e| e.to_string())
}

fn report(a: &Analysis, out: &mut Out) {
    for l in &a.lines {
        out.out(format!("{l}\n"));
    }
    if a.ok() {
        out.out("ok: no problems found\n");
        return;
    }
    for p in &a.problems {
        out.out(format!("problem: {}\n", p.text));
    }
    let (n, r) = (a.problems.len(), a.repairable());
    let found = format!("{n} {} found", if n == 1 { "problem" } else { "problems" });
    out.fail(if r == n {
        format!("error: {found}; \"noid check --repair\" repairs {}\n", if n == 1 { "it" } else { "them" })
    } else if r > 0 {
        format!("error: {found}; \"noid check --repair\" repairs {r} of them, the others need repairing by hand (see docs/MIGRATION.md)\n")
    } else {
        format!("error: {found}; {} repairing by hand (see docs/MIGRATION.md)\n", if n == 1 { "it needs" } else { "they need" })
    });
}
