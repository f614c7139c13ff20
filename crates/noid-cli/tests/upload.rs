//! The console's batch upload (`noid_api::upload`) run through `noid serve`'s service
//! on real stores made by `noid dbcreate`: the identifiers `mint` rows get are the
//! ones the CLI mints from a copy of the same minter, and what the rows wrote is read
//! back with the CLI.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use noid_api::upload::run::{start, Job, UploadStage as Stage};
use noid_api::upload::{outcome, Upload, UploadKind as Kind};
use noid_api::Service;

use crate::util::{ids, noid_exe, run};

fn noid(dir: &Path, args: &[&str]) -> String {
    let mut cmd = std::process::Command::new(noid_exe());
    cmd.arg("-f").arg(dir).args(args);
    run(cmd, b"").ok().to_string()
}

const MINTER: [&str; 6] = [
    "dbcreate",
    "fk4.reedeedk",
    "long",
    "99999",
    "example.org",
    "test",
];

struct Setup {
    root: tempfile::TempDir,
    service: Arc<Service>,
    rt: tokio::runtime::Runtime,
}

impl Setup {
    fn new() -> Setup {
        Setup::with("")
    }

    /// The set-up with `sam_extra` (TOML lines) in populator `sam`'s section.
    fn with(sam_extra: &str) -> Setup {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        noid(&r.join("binder"), &["dbcreate"]);
        noid(&r.join("minters/ark/99999/fk4"), &MINTER);
        let config = format!(
            "[populator.sam]\nopen = true\nbinder = \"{r}/binder\"\nminters = \"{r}/minters\"\nany_identifier = true\n{sam_extra}\n\
             [populator.ro]\nopen = true\nbinder = \"{r}/binder\"\nwrite = false\n",
            r = r.display()
        );
        std::fs::write(r.join("api.toml"), config).unwrap();
        let service = noid_api::service(&r.join("api.toml"), |_| "20260101000000".into()).unwrap();
        let rt = tokio::runtime::Runtime::new().unwrap();
        Setup { root, service, rt }
    }

    /// Start an upload as populator `pop`; the refusal's text if refused.
    fn start(
        &self,
        pop: &str,
        kind: Kind,
        text: &str,
        minter: Option<&str>,
    ) -> Result<Arc<Job>, String> {
        let upload = Upload::read(kind, text.as_bytes()).map_err(|e| e.to_string())?;
        let who = noid_binder::Who {
            populator: pop.into(),
            login: pop.into(),
            client: "127.0.0.1".into(),
            acting_for: None,
        };
        let checked = self.service.populator(pop).unwrap().clone();
        let _guard = self.rt.enter();
        start(&self.service, &checked, who, "rows".into(), upload, minter)
            .map_err(|e| e.to_string())
    }

    /// The result file of a finished upload.
    fn result(&self, job: &Job) -> String {
        let t = Instant::now();
        loop {
            if let Stage::Done(rows) = job.stage() {
                return String::from_utf8(outcome::csv(&rows)).unwrap();
            }
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "the upload did not finish"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[test]
fn csv_upload_mints_writes_and_reports_each_row() {
    let s = Setup::new();
    // The identifiers the same minter gives, minted by the CLI from a copy.
    let copy = s.root.path().join("copy");
    noid(&copy, &MINTER);
    let expect = ids(&noid(&copy, &["mint", "2"]));
    let text = "\u{feff}id,_t,who,note,:/x\r\n\
                mint,https://example.org/a?b=1&c,\"Smith, J.\",,\r\n\
                ark:/99999/given,https://example.org/b,,\"two\r\nlines 'q' \"\"dq\"\"\",\r\n\
                bad,https://example.org/c,,,v\r\n\
                mint,,,,\r\n\
                empty,,,,\r\n";
    let job = s
        .start("sam", Kind::Csv, text, Some("ark/99999/fk4"))
        .unwrap();
    assert_eq!(
        s.result(&job),
        format!(
            "row,id,outcome\n\
             2,{a},minted and written\n\
             3,ark:/99999/given,written\n\
             5,bad,\"error: bad: element names beginning \"\":/\"\" are reserved.\"\n\
             6,{b},minted\n\
             7,empty,nothing to write\n",
            a = expect[0],
            b = expect[1]
        )
    );
    let binder = s.root.path().join("binder");
    // Minted identifiers are stored in the binder's spelling (`ark:/NAAN/…`); egg's
    // reads find them from the bare one too.
    let get = |id: &str, elem: &str| noid(&binder, &[&format!("{id}.get"), elem]);
    assert_eq!(get(&expect[0], "_t"), "https://example.org/a?b=1&c\n\n");
    assert_eq!(get(&expect[0], "who"), "Smith, J.\n\n");
    assert_eq!(
        get("ark:/99999/given", "note"),
        "two\r\nlines 'q' \"dq\"\n\n"
    );
    // The other cells of the failed row were written.
    assert_eq!(get("bad", "_t"), "https://example.org/c\n\n");
    let log = std::fs::read_to_string(binder.join("write.log")).unwrap();
    assert_eq!(log.lines().count(), 5, "{log}");
    assert!(log.lines().all(|l| l.contains("\tsam\t")), "{log}");
}

#[test]
fn egg_upload_reports_each_command() {
    let s = Setup::new();
    let text = "x.set _t https://example.org/x\n\n# a comment\ny.frob a b\nx.set who 'A B'\n";
    let job = s.start("sam", Kind::Egg, text, None).unwrap();
    assert_eq!(
        s.result(&job),
        "row,id,outcome\n1,x,written\n4,y,error: unknown command: frob\n5,x,written\n"
    );
    let binder = s.root.path().join("binder");
    assert_eq!(noid(&binder, &["x.get", "who"]), "A B\n\n");
}

#[test]
fn refused_uploads_write_nothing() {
    let s = Setup::new();
    let csv = "id,_t\nmint,u\n";
    let refused = |pop, kind, text, minter| s.start(pop, kind, text, minter).err().unwrap();
    assert_eq!(
        refused("sam", Kind::Csv, csv, None),
        "1 rows ask for 'mint': choose a minter"
    );
    assert_eq!(
        refused("sam", Kind::Csv, csv, Some("ark/99999/nope")),
        "no minter ark/99999/nope for this populator"
    );
    assert_eq!(
        refused("sam", Kind::Csv, csv, Some("../../x")),
        "no minter ../../x for this populator"
    );
    assert_eq!(
        refused("ro", Kind::Csv, "id,_t\nx,u\n", None),
        "read-only access: this login may not write"
    );
    assert_eq!(
        refused("sam", Kind::Csv, "id,_t\nx,u\ny\n", None),
        "line 3: 1 fields where the header row has 2"
    );
    let binder = s.root.path().join("binder");
    assert!(!binder.join("write.log").exists());
}

/// The upload's pages through `noid serve` and `curl` (the console tests' browser):
/// the multipart form with its file, the progress page's redirect, the result file,
/// other populators kept out, bad files refused naming their line, the recent writes.
mod pages {
    use std::process::Command;

    use crate::api::Api;
    use crate::console::{Browser, Page};

    /// POST the upload form with `file` (its content) as `b`'s session: the status,
    /// and the `Location` (if any) on a line before the body.
    fn upload(b: &Browser, api: &Api, token: Option<&str>, file: &[u8], minter: &str) -> Page {
        let path = api.dir("upload.csv");
        std::fs::write(&path, file).unwrap();
        let mut cmd = Command::new("curl");
        cmd.args(["-s", "-i", "-H", "Expect:", "-c"])
            .arg(&b.jar)
            .arg("-b")
            .arg(&b.jar);
        if let Some(t) = token {
            cmd.arg("--form-string").arg(format!("csrf={t}"));
        }
        cmd.args(["--form-string", "format=csv", "--form-string"])
            .arg(format!("minter={minter}"))
            .arg("-F")
            .arg(format!("file=@{};type=text/csv", path.display()))
            .arg(format!(
                "http://127.0.0.1:{}/console/p/sam/upload",
                api.port
            ));
        let text = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let location = head
            .lines()
            .find_map(|l| l.strip_prefix("location: "))
            .unwrap_or_default();
        Page::new(status, format!("{location}\n{body}"))
    }

    /// The result file of upload `n`, once the run is done.
    fn result(b: &Browser, n: u32) -> String {
        let t = std::time::Instant::now();
        loop {
            let p = b.get(&format!("/console/p/sam/uploads/result.csv?n={n}"));
            if p.status == 200 {
                assert_eq!(p.header("content-type"), Some("text/csv; charset=utf-8"));
                return p.body;
            }
            assert_eq!(p.status, 303, "{}", p.body);
            assert!(t.elapsed().as_secs() < 30, "upload {n} did not finish");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    #[test]
    fn upload_through_the_pages() {
        let api = Api::start();
        let b = Browser::new(&api, "sam");
        b.login("sam", "sam", "secret");
        let token = b.get("/console/p/sam/upload").token();
        let csv = b"id,_t,who\r\nmint,https://example.org/1,\"Smith, J.\"\r\nx9,https://example.org/9,\r\n";
        // Without the session's token: refused, nothing run.
        assert_eq!(upload(&b, &api, None, csv, "ark/99999/fk4").status, 403);
        let p = upload(&b, &api, Some(&token), csv, "ark/99999/fk4");
        assert_eq!(
            (p.status, p.body.lines().next()),
            (303, Some("/console/p/sam/uploads?n=1"))
        );
        // The minter's first identifier, as in the API tests (the noid manual's 13030/f54x54g11).
        assert_eq!(
            result(&b, 1),
            "row,id,outcome\n2,99999/fk44x54g1g,minted and written\n3,x9,written\n"
        );
        let page = b.get("/console/p/sam/uploads?n=1");
        assert!(
            page.body.contains("Done: 2 rows, 2 written, 0 failed."),
            "{}",
            page.body
        );
        let writes = b.get("/console/p/sam/writes");
        assert!(
            writes.body.contains(
                "<td data-label=\"Identifier\"><a href=\"/console/p/sam/id?id=x9\">x9</a></td>\
                 <td data-label=\"Change\">set _t</td>\
                 <td data-label=\"Value\">https://example.org/9</td>"
            ),
            "{}",
            writes.body
        );
        // Another populator's login sees no such upload in its own pages.
        let olga = Browser::new(&api, "olga");
        olga.login("other", "olga", "pw");
        assert_eq!(olga.get("/console/p/other/uploads?n=1").status, 404);
        assert_eq!(olga.get("/console/p/sam/uploads?n=1").status, 403);
        // A malformed file is refused naming its line; one too large by its size.
        let p = upload(&b, &api, Some(&token), b"id,_t\nx1,u\nx2\n", "");
        assert_eq!(p.status, 400);
        assert!(
            p.body
                .contains("line 3: 1 fields where the header row has 2"),
            "{}",
            p.body
        );
        let big = vec![b'x'; noid_api::upload::MAX_UPLOAD + 1];
        let p = upload(&b, &api, Some(&token), &big, "");
        assert_eq!(p.status, 413);
        assert!(
            p.body.contains("The file is larger than 16 MiB."),
            "{}",
            p.body
        );
        let log = std::fs::read_to_string(api.dir("binders/sam/write.log")).unwrap();
        assert_eq!(log.lines().count(), 3, "{log}");
    }
}

/// Issue 42, item 8: when the write log cannot be written, the rows whose writes were
/// applied are reported as written but not logged (before: "written", and the summary
/// counted no failure while `noid replay` of the log would miss them).
#[test]
fn writes_that_the_log_missed_are_reported() {
    let s = Setup::with("log = \"/nonexistent-noid-dir/write.log\"\n");
    let job = s
        .start(
            "sam",
            Kind::Csv,
            "id,what\nark:/99999/x1,A\nark:/99999/x2,B\n",
            None,
        )
        .unwrap();
    let why = "the writes were applied but their write log failed: No such file or directory (os error 2)";
    assert_eq!(
        s.result(&job),
        format!(
            "row,id,outcome\n\
             2,ark:/99999/x1,error: written but not logged: {why}\n\
             3,ark:/99999/x2,error: written but not logged: {why}\n"
        )
    );
    // They were written.
    let binder = s.root.path().join("binder");
    assert_eq!(noid(&binder, &["get", "ark:/99999/x2", "what"]), "B\n");
}
