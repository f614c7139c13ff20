//! The console's batch upload (`noid_api::upload`) run through `noid serve`'s service
//! on real stores made by `noid dbcreate`: the identifiers `mint` rows get are the
//! ones the CLI mints from a copy of the same minter, and what the rows wrote is read
//! back with the CLI.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use noid_api::upload::run::{start, Job, Stage};
use noid_api::upload::{outcome, Kind, Upload};
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
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        noid(&r.join("binder"), &["dbcreate"]);
        noid(&r.join("minters/ark/99999/fk4"), &MINTER);
        let config = format!(
            "[populator.sam]\nopen = true\nbinder = \"{r}/binder\"\nminters = \"{r}/minters\"\n\n\
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
        let who = noid_api::store::Who {
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
