//! Writes the modelled minters of `tests/fixtures/modelled-minters/`: made by noid's
//! own generator, not by Perl Noid (the minters Perl Noid 0.424 itself made are in
//! `tests/fixtures/perl-noid-0.424/`).
//!
//! Each fixture is the key space this model expects a Perl Noid 0.424 minter to be
//! left with after a scripted session (create, mint, hold, queue, bind, note),
//! modelled here directly from the description of Perl's behaviour (spec-noid §2–§4: the `mint` loop, queue
//! keys, circulation records, automatic holds, the un-cleared bindings), using only
//! noid-template's generator (Perl's `genid`) and noid-minter's `dbcreate` admin keys.
//! It deliberately does not use noid's own mint/queue/hold code, so that the tests
//! compare noid against an independent model.
//!
//! For each NAME it writes `NAME.dump` (db_dump -p text; `make.sh` passes it through
//! `db_load`/`db_dump` so that the file is what BerkeleyDB itself prints) and
//! `NAME.next`: the `id: …` lines of the next mints the model makes after the
//! session, which an imported minter must reproduce.
//!
//! Usage: `cargo run --release -p noid-migrate --example modelled_minters -- OUTDIR`

use std::collections::BTreeMap;

use noid_core::keys;
use noid_core::MemLookup;
use noid_migrate::dump::{write_all, DumpFormat};
use noid_minter::create::{dbcreate, CreateArgs};
use noid_minter::Minter;
use noid_template::generator::{assemble, CompiledMask, GeneratorState};

const CONTACT: &str = "jak/staff";

/// The model of a Perl Noid minter in memory, with its operations as modelled.
struct Perl {
    db: BTreeMap<Vec<u8>, Vec<u8>>,
    /// Local time as `temper` prints it; moves forward a second per operation.
    clock: u64,
}

fn temper(secs: u64) -> String {
    // Days from the civil date algorithm (UTC, which stands in for local time).
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}{m:02}{d:02}{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl Perl {
    fn create(
        template: Option<&str>,
        term: &str,
        naan: Option<&str>,
        naa: Option<&str>,
        subnaa: Option<&str>,
        clock: u64,
    ) -> Perl {
        let c = dbcreate(&CreateArgs {
            template,
            term: Some(term),
            naan,
            naa,
            subnaa,
            contact: CONTACT,
            when: &temper(clock),
            where_: "pelican.example.org:/srv/minters/fixture",
            dbdir_display: ".",
            samples: (12_345, 67_890),
            atlast: None,
            lui_key: [0; 16],
        })
        .expect("valid dbcreate arguments");
        let mut p = Perl {
            db: BTreeMap::new(),
            clock,
        };
        for (k, v) in c.keys {
            p.db.insert(keys::admin(&k), v.into_bytes());
        }
        p
    }

    fn tick(&mut self) -> String {
        self.clock += 1;
        temper(self.clock)
    }

    fn get(&self, k: &[u8]) -> Option<String> {
        self.db
            .get(k)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    fn admin(&self, name: &str) -> String {
        self.get(&keys::admin(name)).unwrap_or_default()
    }

    fn admin_num(&self, name: &str) -> i64 {
        self.admin(name).parse().unwrap_or(0)
    }

    fn set(&mut self, name: &str, v: impl ToString) {
        self.db
            .insert(keys::admin(name), v.to_string().into_bytes());
    }

    fn minter(&self) -> Minter {
        let l = MemLookup::new();
        for (k, v) in &self.db {
            if k.starts_with(b":/") {
                l.insert(k, v);
            }
        }
        Minter::load(&l).expect("admin keys")
    }

    fn save_gen(&mut self, g: &GeneratorState) {
        self.set("oacounter", g.oacounter);
        self.set("percounter", g.percounter);
        for (n, c) in g.counters.iter().enumerate() {
            self.set(&format!("c{n}/value"), c.value);
            self.set(&format!("c{n}/top"), c.top);
        }
        self.set("saclist", g.saclist_string());
        self.set("siclist", g.siclist_string());
    }

    fn held(&self, id: &str) -> bool {
        self.db.contains_key(&keys::hold(id))
    }

    fn circ(&self, id: &str) -> String {
        self.get(&keys::circ(id)).unwrap_or_default()
    }

    fn set_circ(&mut self, id: &str, letter: char) {
        let old = self.circ(id);
        let svec = old.split('|').next().unwrap_or("").to_string();
        let rec = format!(
            "{letter}{svec}|{}|{CONTACT}|{}",
            self.tick(),
            self.admin("oacounter")
        );
        self.db.insert(keys::circ(id), rec.into_bytes());
        if letter == 'i' {
            // Perl's clear_bindings deletes nothing (BUG kept); the pepper goes.
            self.db.remove(&keys::pepper(id));
            if self.admin("longterm") == "1" {
                self.hold_set(id);
            }
        }
    }

    fn hold_set(&mut self, id: &str) {
        self.db.insert(keys::hold(id), b"1".to_vec());
        let h = self.admin_num("held") + 1;
        self.set("held", h);
    }

    fn hold_release(&mut self, id: &str) {
        self.db.remove(&keys::hold(id));
        let h = self.admin_num("held") - 1;
        self.set("held", h);
    }

    /// The next `n` generator candidates, without changing anything.
    fn candidates(&self, n: usize) -> Vec<String> {
        let m = self.minter();
        let mut g = m.gen.clone();
        let mask = CompiledMask::new(&m.mask).expect("mask");
        (0..n)
            .map(|_| {
                let mut body = String::new();
                g.genid_into(&mask, m.gen_type, m.wrap, &mut body)
                    .expect("not exhausted");
                assemble(&m.firstpart, &body, m.addcheckchar)
            })
            .collect()
    }

    /// Perl's mint: ripe queue entries first, then the generator, skipping what
    /// may not be issued.
    fn mint(&mut self, now: &str) -> String {
        let now: u64 = now.parse().expect("temper");
        loop {
            let head = self
                .db
                .range(b":/q/".to_vec()..)
                .next()
                .map(|(k, v)| (k.clone(), v.clone()));
            let Some((k, v)) = head.filter(|(k, _)| k.starts_with(b":/q/")) else {
                break;
            };
            let qdate: u64 = std::str::from_utf8(&k[4..18])
                .expect("ascii")
                .parse()
                .expect("qdate");
            if now < qdate {
                break;
            }
            self.db.remove(&k);
            let q = self.admin_num("queued") - 1;
            self.set("queued", q);
            let id = String::from_utf8(v).expect("utf-8 id");
            if self.held(&id) {
                continue;
            }
            match self.circ(&id).bytes().next() {
                None | Some(b'q') => {
                    self.set_circ(&id, 'i');
                    return id;
                }
                _ => continue,
            }
        }
        if !self
            .db
            .range(b":/q/".to_vec()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(b":/q/"))
            && self.admin_num("fseqnum") > 1
        {
            self.set("fseqnum", 1);
        }
        let m = self.minter();
        let mask = CompiledMask::new(&m.mask).expect("mask");
        let mut g = m.gen.clone();
        loop {
            let mut body = String::new();
            g.genid_into(&mask, m.gen_type, m.wrap, &mut body)
                .expect("not exhausted");
            self.save_gen(&g);
            let id = assemble(&m.firstpart, &body, m.addcheckchar);
            if self.held(&id) {
                continue;
            }
            let free = match self.circ(&id).bytes().next() {
                None => true,
                Some(b'i') => m.wrap && !m.longterm,
                Some(_) => false,
            };
            if free {
                self.set_circ(&id, 'i');
                return id;
            }
        }
    }

    fn padded(&self, id: &str) -> String {
        let fp = self.admin("firstpart");
        let bare = if fp.is_empty() {
            id
        } else {
            id.strip_prefix(fp.as_str()).unwrap_or(id)
        };
        let w = self.admin_num("padwidth") as usize;
        format!("{}{bare}", "0".repeat(w.saturating_sub(bare.len())))
    }

    /// Perl's queue for one id: `first`, `lvf`, `delete`, `now` or `Nd`.
    fn queue(&mut self, when: &str, id: &str) {
        let now = self.tick();
        let zeros = "00000000000000".to_string();
        let (qdate, mut seq) = match when {
            "first" => (zeros, self.admin_num("fseqnum")),
            "lvf" | "delete" => (zeros, 0),
            _ => {
                let qdate = if when == "now" {
                    now
                } else {
                    let days: u64 = when.trim_end_matches('d').parse().expect("Nd");
                    temper(self.clock + days * 86_400)
                };
                let q: i64 = qdate.parse().expect("digits");
                if q > self.admin_num("gseqnum_date") {
                    self.set("gseqnum", 1);
                    self.set("gseqnum_date", &qdate);
                    (qdate, 1)
                } else {
                    (qdate, self.admin_num("gseqnum"))
                }
            }
        };
        assert!(!self.held(id), "queueing held {id}");
        self.set_circ(id, if when == "delete" { 'u' } else { 'q' });
        let q = self.admin_num("queued") + 1;
        self.set("queued", q);
        let key = keys::queue(&qdate, seq as u64, &self.padded(id));
        self.db.insert(key, id.as_bytes().to_vec());
        if seq != 0 {
            seq += 1;
        }
        match when {
            "first" => self.set("fseqnum", seq),
            "lvf" | "delete" => {}
            _ => self.set("gseqnum", seq),
        }
    }

    fn bind(&mut self, id: &str, elem: &str, value: &[u8]) {
        self.db.insert(keys::elem(id, elem), value.to_vec());
    }

    fn idmap(&mut self, pattern: &str, elem: &str, value: &str) {
        self.db
            .insert(keys::idmap(elem, pattern), value.as_bytes().to_vec());
        let pseudo = format!(":/idmap/{elem}");
        if self.admin("longterm") == "1" && !self.held(&pseudo) {
            self.hold_set(&pseudo);
        }
    }

    fn note(&mut self, key: &str, value: &str) {
        self.db
            .insert(format!(":/:/{key}").into_bytes(), value.as_bytes().to_vec());
    }

    fn dump(&self) -> Vec<u8> {
        write_all(
            DumpFormat::DbDump,
            self.db.iter().map(|(k, v)| (k.as_slice(), v.as_slice())),
        )
    }
}

/// 2024-11-05 09:30:00, when the fixture sessions "ran".
const T0: u64 = 1_730_799_000;
/// Long after every ripe queue date and long before the unripe one: when the
/// expected next mints are taken.
const LATER: &str = "20261201000000";

fn random_long() -> (Perl, usize) {
    let mut p = Perl::create(
        Some("f5.reedeedk"),
        "long",
        Some("13030"),
        Some("cdlib.org"),
        Some("oac/cmp"),
        T0,
    );
    let a: Vec<String> = (0..3).map(|_| p.mint(&temper(T0))).collect();
    assert_eq!(a, ["13030/f54x54g11", "13030/f5154dn7k", "13030/f5wd3q12m"]);
    let next = p.candidates(9);
    // A hold on the 5th identifier: mint must skip it.
    p.hold_set(&next[1]);
    p.bind(&a[0], "_t", b"http://example.org/items/a1");
    p.bind(
        &a[0],
        "note",
        b"line one\nline two\n  indented line three\n",
    );
    p.bind(&a[1], "blob", b"\x00\x01\x02\xff\xfe\tbinary\r\n\\end");
    p.bind(&a[1], "empty", b"");
    p.bind(&a[1], "zero", b"0");
    p.bind(
        &a[2],
        "title",
        "Caf\u{e9} \u{2603} \u{65e5}\u{672c}".as_bytes(),
    );
    // Every kind of queue entry.
    p.hold_release(&a[2]);
    p.queue("first", &a[2]);
    p.queue("lvf", &next[3]);
    p.hold_release(&a[1]);
    p.queue("now", &a[1]);
    p.queue("delete", &a[1]);
    p.queue("30d", &next[5]);
    p.hold_release(&a[0]);
    p.queue("100000d", &a[0]);
    p.idmap("^13030/f5(.*)$", "_t", "http://example.org/items/$1");
    p.idmap("^13030/(f5)(.)", "shoulder", "$1 then $2");
    p.note("last_backup", "20241101");
    p.note("comment", "first line\nsecond\tline");
    (p, 8)
}

fn f5_after_3() -> (Perl, usize) {
    let mut p = Perl::create(
        Some("f5.reedeedk"),
        "long",
        Some("13030"),
        Some("cdlib.org"),
        Some("oac/cmp"),
        T0,
    );
    for _ in 0..3 {
        p.mint(&temper(T0));
    }
    (p, 5)
}

fn sequential_medium() -> (Perl, usize) {
    let mut p = Perl::create(
        Some("bt.sddk"),
        "medium",
        Some("99999"),
        Some("example.org"),
        Some("demo"),
        T0,
    );
    let ids: Vec<String> = (0..12).map(|_| p.mint(&temper(T0))).collect();
    let next = p.candidates(3);
    p.hold_set(&next[1]);
    p.bind(&ids[0], "_t", b"https://example.org/0");
    p.bind(&ids[5], "who", b"Someone\nand someone else");
    p.queue("first", &ids[3]);
    p.queue("first", &ids[4]);
    p.queue("lvf", &ids[7]);
    p.queue("2d", &ids[9]);
    p.queue("delete", &ids[9]);
    p.note("owner", "the demo group");
    (p, 6)
}

fn unbounded_long() -> (Perl, usize) {
    let mut p = Perl::create(
        Some("tb7r.zdd"),
        "long",
        Some("99999"),
        Some("example.org"),
        Some("zz"),
        T0,
    );
    let ids: Vec<String> = (0..105).map(|_| p.mint(&temper(T0))).collect();
    assert_eq!(ids[104], "99999/tb7r104");
    p.bind(&ids[99], "_t", b"https://example.org/99");
    p.bind(&ids[100], "_t", b"https://example.org/100");
    p.hold_release(&ids[42]);
    p.queue("first", &ids[42]);
    p.idmap("^99999/tb7r(\\d+)$", "_t", "https://example.org/n/$1");
    (p, 4)
}

fn random_short() -> (Perl, usize) {
    let mut p = Perl::create(Some(".rdd"), "short", None, None, None, T0);
    let ids: Vec<String> = (0..98).map(|_| p.mint(&temper(T0))).collect();
    p.bind(&ids[0], "_t", b"https://example.org/short");
    p.queue("lvf", &ids[10]);
    (p, 5)
}

fn bind_only() -> (Perl, usize) {
    let mut p = Perl::create(None, "-", None, None, None, T0);
    p.bind("ark:/12345/x5", "_t", b"https://example.org/x5");
    p.bind("ark:/12345/x5", "who", b"Anonymous");
    p.bind("doi:10.5072/FK2abc", "_t", b"302 https://example.org/doi");
    p.bind("http://example.org/weird id", "_t", b"tab\there");
    p.idmap("^ark:/12345/(.*)$", "_t", "https://example.org/ark/$1");
    p.note("purpose", "a bind-only resolver database");
    let _ = p.mint(&temper(T0));
    (p, 3)
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/fixtures/modelled-minters".into());
    let fixtures: [(&str, fn() -> (Perl, usize)); 6] = [
        ("f5-after-3", f5_after_3),
        ("random-long", random_long),
        ("sequential-medium", sequential_medium),
        ("unbounded-long", unbounded_long),
        ("random-short", random_short),
        ("bind-only", bind_only),
    ];
    for (name, make) in fixtures {
        let (mut p, n) = make();
        std::fs::write(format!("{dir}/{name}.dump"), p.dump()).expect("write dump");
        let next: String = (0..n).map(|_| format!("id: {}\n", p.mint(LATER))).collect();
        std::fs::write(format!("{dir}/{name}.next"), next).expect("write next");
        eprintln!("{name}: {} keys", p.db.len());
    }
}
