// Included with include! by crates/noid-egg/tests/spec.rs, crates/noid-cli/tests/table.rs
// and crates/noid-cli/tests/api.rs (an included file cannot carry a //! doc).
//
// The spec's case list (`../shared/spec-binder-api.md` §6) as data, run through the
// library (crates/noid-egg/tests/table.rs), the `noid` binary and a real
// `noid serve` (crates/noid-cli/tests/table.rs): each case starts from an empty binder,
// runs its setup lines one by one, then its command, and compares the output.
//
// Expected outputs are the spec's (EggNog's tests), completed where the spec only says
// "contains": `plain` in the command line's default format (plain text, admin elements
// hidden), `web` in the API's (ANVL, `--all`), when it differs. In outputs, `{T}` and
// `{P}` stand for the values of the admin elements `_,ec` (creation time) and `_,ep`
// (`p:AGENT||76`), and `{B}` for the binder's name. A bulk case's command is the whole
// input of `egg -` (`noid -`, a `?-` POST body); the API's own last line
// `# committed N commands, through line L` is checked by its own tests.

/// One case.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The spec's number and source.
    pub name: &'static str,
    /// Commands run first, one at a time.
    pub setup: &'static [&'static str],
    /// The command (or, for a bulk case, the whole input).
    pub command: &'static str,
    /// Bulk mode.
    pub bulk: bool,
    /// Output on the command line (and the library, locally); `None`: a remote-only case.
    pub plain: Option<&'static str>,
    /// Output on the web, when not `plain`.
    pub web: Option<&'static str>,
    /// The command failed (exit status 1, `egg-status: 1`).
    pub failed: bool,
    /// The HTTP status on the web.
    pub status: u16,
    /// Runs through the `noid` binary too (false where `noid` reads the line as one of
    /// Perl Noid's: a bare unknown word, blank bulk lines).
    pub cli: bool,
}

const C: Case = Case {
    name: "",
    setup: &[],
    command: "",
    bulk: false,
    plain: None,
    web: None,
    failed: false,
    status: 200,
    cli: true,
};

pub const CASES: &[Case] = &[
    // EggNog ignores the extra word; noid refuses it (a dropped word stores something
    // other than what was meant: docs/COMPATIBILITY.md).
    Case {
        name: "1 bind.t:52",
        command: "foo.set bar zaf   woof",
        plain: Some("error: set takes one value, and 1 more word followed it (woof); quote a value with spaces: ID.set bar 'A value with spaces'\n\n"),
        failed: true,
        ..C
    },
    Case {
        name: "2 bind.t:57",
        setup: &["foo.set bar zaf"],
        command: "-m plain foo.fetch bar",
        plain: Some("bar: zaf\n\n"),
        ..C
    },
    Case {
        name: "3 bind.t:65",
        setup: &["FOO.set bar cow"],
        command: "FOO.fetch",
        plain: Some("# id: FOO\nbar: cow\n# elements bound under FOO: 1\n\n"),
        web: Some("# id: FOO\n_,ec: {T}\n_,ep: {P}\nbar: cow\n# elements bound under FOO: 3\n\n"),
        ..C
    },
    Case {
        name: "4 bind.t:70",
        setup: &["foo.set bar zaf"],
        command: "foo.let eel cow",
        plain: Some(""),
        ..C
    },
    Case {
        name: "5 bind.t:73",
        setup: &["foo.set bar zaf", "foo.let eel cow"],
        command: "foo.fetch",
        plain: Some("# id: foo\nbar: zaf\neel: cow\n# elements bound under foo: 2\n\n"),
        web: Some(
            "# id: foo\n_,ec: {T}\n_,ep: {P}\nbar: zaf\neel: cow\n# elements bound under foo: 4\n\n",
        ),
        ..C
    },
    Case {
        name: "6 bind.t:78",
        setup: &["foo.set bar zaf"],
        command: "foo.get bar",
        plain: Some("zaf\n\n"),
        web: Some("bar: zaf\n\n"),
        ..C
    },
    Case {
        name: "7 bind.t:86",
        setup: &["foo.set bar zaf"],
        command: "--format anvl --ack foo.add bar yaf",
        plain: Some("oxum: 3.1\n\n"),
        ..C
    },
    Case {
        name: "8 bind.t:93",
        setup: &["foo.set bar zaf", "foo.add bar xaf", "foo.add bar yaf", "foo.insert bar daf"],
        command: "foo.get bar",
        plain: Some("zaf\nxaf\nyaf\ndaf\n\n"),
        web: Some("bar: zaf\nbar: xaf\nbar: yaf\nbar: daf\n\n"),
        ..C
    },
    Case {
        name: "9 bind.t:106",
        setup: &["foo.set bar zaf"],
        command: "foo.set bar aaa",
        plain: Some(""),
        ..C
    },
    Case {
        name: "10 bind.t:110",
        setup: &["foo.set bar aaa"],
        command: "-m anvl foo.let bar aaa",
        plain: Some("error: cannot proceed on an element (bar) that already has a value\n\n"),
        failed: true,
        ..C
    },
    Case {
        name: "11 bind.t:113",
        setup: &["foo.set bar aaa", "foo.rm bar"],
        command: "-m anvl --ack foo.let bar aaa",
        plain: Some("oxum: 3.1\n\n"),
        ..C
    },
    Case {
        name: "12 bind.t:118",
        setup: &["foo.set eel cow"],
        command: "-m anvl foo.rm eel cow",
        plain: Some("error: rm takes no more arguments, but \"cow\" followed; quote an argument with spaces\n\n"),
        failed: true,
        ..C
    },
    Case {
        name: "13 bind.t:134",
        command: "--ack foo.rm that",
        plain: Some("0.0\n\n"),
        web: Some("oxum: 0.0\n\n"),
        ..C
    },
    Case {
        name: "14 bind.t:141",
        setup: &["foo.set bar zaf", "foo.rm bar"],
        command: "foo.fetch",
        plain: Some("# id: foo\n# elements bound under foo: 0\n\n"),
        web: Some("# id: foo\n_,ec: {T}\n_,ep: {P}\n# elements bound under foo: 2\n\n"),
        ..C
    },
    Case {
        name: "15 bind.t:147",
        command: "foo.xyzzy bar",
        plain: Some("error: unknown command: xyzzy\n\n"),
        failed: true,
        // `noid` takes a word with an unknown operation for a Perl Noid verb.
        cli: false,
        ..C
    },
    Case {
        name: "16 bind.t:155",
        setup: &["goo.add star tar"],
        command: "goo.get star",
        plain: Some("tar\n\n"),
        web: Some("star: tar\n\n"),
        ..C
    },
    Case {
        name: "18 bind.t:174",
        setup: &["foo.1.set c dot", "foo/1.set c slash"],
        command: "foo.1.fetch",
        plain: Some("# id: foo.1\nc: dot\n# elements bound under foo.1: 1\n\n"),
        web: Some("# id: foo.1\n_,ec: {T}\n_,ep: {P}\nc: dot\n# elements bound under foo.1: 3\n\n"),
        ..C
    },
    Case {
        name: "19 bind.t:179 (unset)",
        command: "'$t.^x.exists' '$u.|e'",
        plain: Some("0\n\n"),
        web: Some("exists: 0\n\n"),
        ..C
    },
    Case {
        name: "19 bind.t:179 (set)",
        setup: &["'$t.^x.set' '$u.|e' nasty"],
        command: "'$t.^x.exists' '$u.|e'",
        plain: Some("1\n\n"),
        web: Some("exists: 1\n\n"),
        ..C
    },
    Case {
        name: "19 bind.t:179 (id)",
        setup: &["'$t.^x.set' '$u.|e' nasty"],
        command: "'$t.^x.exists'",
        plain: Some("1\n\n"),
        web: Some("exists: 1\n\n"),
        ..C
    },
    Case {
        name: "20 bind.t:192",
        setup: &["'$t.^x.set' '$u.|e' nasty"],
        command: "'$t.^x.fetch'",
        plain: Some("# id: $t.^x\n$u.|e: nasty\n# elements bound under $t.^x: 1\n\n"),
        web: Some("# id: $t.^x\n$u.|e: nasty\n_,ec: {T}\n_,ep: {P}\n# elements bound under $t.^x: 3\n\n"),
        ..C
    },
    Case {
        name: "21 bind.t:199",
        setup: &["'$t.^x.set' '$u.|e' nasty"],
        command: "'$t.^x.purge'",
        plain: Some("# admin + user elements found to purge under $t.^x: 3\n\n"),
        ..C
    },
    Case {
        name: "21 bind.t:199 (again)",
        setup: &["'$t.^x.set' '$u.|e' nasty", "'$t.^x.purge'"],
        command: "'$t.^x.purge'",
        plain: Some("# admin + user elements found to purge under $t.^x: 0\n\n"),
        ..C
    },
    Case {
        name: "21 bind.t:199 (exists)",
        setup: &["'$t.^x.set' '$u.|e' nasty", "'$t.^x.purge'"],
        command: "'$t.^x.exists'",
        plain: Some("0\n\n"),
        web: Some("exists: 0\n\n"),
        ..C
    },
    Case {
        name: "22 bulk.t:63",
        setup: &["i.set aaa bbb"],
        command: "i.fetch aaa\n",
        bulk: true,
        plain: Some("aaa: bbb\n\n"),
        ..C
    },
    Case { name: "23 bulk.t:70 (empty)", command: "", bulk: true, plain: Some(""), ..C },
    Case {
        name: "23 bulk.t:70 (blank)",
        command: "\n\n   -  \n",
        bulk: true,
        plain: Some(""),
        cli: false,
        ..C
    },
    Case {
        name: "24 bulk.t:83",
        command: "\n\n   -  \n\nblech\n",
        bulk: true,
        plain: Some(
            "error: unknown command: blech\n\nnote: non-zero status (1) returned by command on line 5\n",
        ),
        failed: true,
        cli: false,
        ..C
    },
    Case {
        name: "25 bulk.t:88",
        command: "j.purge\nj.set a b\nj.add a c\nj.add a d\nj.add u v\nj.add x y\nj.fetch\nj.purge\nj.fetch\n",
        bulk: true,
        plain: Some(
            "# admin + user elements found to purge under j: 0\n\n\
             # id: j\na: b\na: c\na: d\nu: v\nx: y\n# elements bound under j: 5\n\n\
             # admin + user elements found to purge under j: 7\n\n\
             # id: j\n# elements bound under j: 0\n\n",
        ),
        web: Some(
            "# admin + user elements found to purge under j: 0\n\n\
             # id: j\n_,ec: {T}\n_,ep: {P}\na: b\na: c\na: d\nu: v\nx: y\n# elements bound under j: 7\n\n\
             # admin + user elements found to purge under j: 7\n\n\
             # id: j\n# elements bound under j: 0\n\n",
        ),
        ..C
    },
    Case {
        name: "26 bulk.t:104",
        command: "j|a.set @-\n  b  \n\nj.fetch a\n",
        bulk: true,
        plain: Some("a:   b  \n\n"),
        ..C
    },
    Case {
        name: "27 bulk.t:159",
        command: "j.set   \"an elem  name\" of\\ shellwords\\ \\\"for'   you'\nj.fetch \"an elem  name\"\n",
        bulk: true,
        plain: Some("an elem %20name: of shellwords \"for   you\n\n"),
        ..C
    },
    Case {
        name: "28 bulk.t:166",
        command: "j.set \"an elem  name\" of\\ shellwords\\ \\\"for   you\nj.fetch \"an elem  name\"\n",
        bulk: true,
        // EggNog stores `of shellwords "for` and drops `you`; noid refuses the line.
        plain: Some("error: set takes one value, and 1 more word followed it (you); quote a value with spaces: ID.set an elem  name 'A value with spaces'\n\nnote: non-zero status (1) returned by command on line 1\n"),
        failed: true,
        // `noid -` reports a failed line without egg's note.
        cli: false,
        ..C
    },
    Case {
        name: "29 bulk.t:172",
        command: "k.set 'a    b  \tc' \"e  f  g\"\nk.fetch\n",
        bulk: true,
        plain: Some("# id: k\na %20%20%20b %20%09c: e  f  g\n# elements bound under k: 1\n\n"),
        web: Some(
            "# id: k\n_,ec: {T}\n_,ep: {P}\na %20%20%20b %20%09c: e  f  g\n# elements bound under k: 3\n\n",
        ),
        ..C
    },
    Case {
        name: "30 bulk.t:180",
        command: "u.set eee fff\\\n#ggg\nhhh\nu.get eee\n",
        bulk: true,
        plain: Some("fffhhh\n\n"),
        web: Some("eee: fffhhh\n\n"),
        ..C
    },
    Case {
        name: "31 mod.t:28",
        setup: &[":hx id.set bar \"z^0aa^0af\""],
        command: "id.get bar",
        plain: Some("z\na\nf\n\n"),
        web: Some("bar: z%0aa%0af\n\n"),
        ..C
    },
    Case {
        name: "32 mod.t:33",
        setup: &[":hx id.set \"b^0aar\" zaf"],
        command: ":hx id.get \"b^0aar\"",
        plain: Some("zaf\n\n"),
        web: Some("b%0aar: zaf\n\n"),
        ..C
    },
    Case {
        name: "32 mod.t:33 (fetch)",
        setup: &[":hx id.set \"b^0aar\" zaf"],
        command: ":allnot id.fetch",
        plain: Some("# id: id\nb%0aar: zaf\n# elements bound under id: 1\n\n"),
        ..C
    },
    Case {
        name: "33 mod.t:46",
        setup: &[":hx :hx% :hx+ id.set bar \"z^0aa%0af+20r\""],
        command: "id.fetch bar",
        plain: Some("bar: z^0aa%250af r\n\n"),
        ..C
    },
    Case {
        name: "34 mod.t:62 (:all)",
        setup: &["i.set a b"],
        command: ":all i.fetch",
        plain: Some("# id: i\n_,ec: {T}\n_,ep: {P}\na: b\n# elements bound under i: 3\n\n"),
        ..C
    },
    Case {
        name: "34 mod.t:62 (--all)",
        setup: &["i.set a b"],
        command: "--all i.fetch",
        plain: Some("# id: i\n_,ec: {T}\n_,ep: {P}\na: b\n# elements bound under i: 3\n\n"),
        ..C
    },
    Case {
        name: "34 mod.t:62 (:allnot)",
        setup: &["i.set a b"],
        command: "--all :allnot i.fetch",
        plain: Some("# id: i\na: b\n# elements bound under i: 1\n\n"),
        ..C
    },
    Case {
        name: "35 mod.t:111",
        command: "i.set @ @\n@\n@\ni.fetch\n",
        bulk: true,
        plain: Some("# id: i\n@: @\n# elements bound under i: 1\n\n"),
        web: Some("# id: i\n@: @\n_,ec: {T}\n_,ep: {P}\n# elements bound under i: 3\n\n"),
        ..C
    },
    Case {
        name: "36 mod.t:129",
        setup: &[":hx j.set a b^20c^0ad"],
        command: "j.get a",
        plain: Some("b c\nd\n\n"),
        web: Some("a: b c%0ad\n\n"),
        ..C
    },
    Case {
        name: "37 mod.t:149",
        command: ":hx j|a.set @-\nc^0ad\ne\nf\n\nj.fetch a\n",
        bulk: true,
        plain: Some("a: c^0ad%0ae%0af\n\n"),
        ..C
    },
    Case {
        name: "38 mod.t:161",
        command: "j.set a @------boundary-----\nsome\nhere\n\n-----boundary-----\nj.get a\n",
        bulk: true,
        plain: Some("some\nhere\n\n\n"),
        web: Some("a: some%0ahere%0a\n\n"),
        ..C
    },
    Case {
        name: "39 mod.t:178",
        command: "j|a.set @-10\nz\n\ny\n\nxuvw\n#eot\nj.get a\n",
        bulk: true,
        plain: Some("z\n\ny\n\nxuvw\n\n"),
        web: Some("a: z%0a%0ay%0a%0axuvw\n\n"),
        ..C
    },
    Case {
        name: "41 incr.t:31",
        setup: &["i.set count 3"],
        command: "i.incr count",
        plain: Some("4\n\n"),
        web: Some("count: 4\n\n"),
        ..C
    },
    Case {
        name: "41 incr.t:31 (by 5)",
        setup: &["i.set count 3", "i.incr count"],
        command: "i.incr count 5",
        plain: Some("9\n\n"),
        web: Some("count: 9\n\n"),
        ..C
    },
    Case {
        name: "41 incr.t:31 (decr)",
        setup: &["i.set count 8"],
        command: "i.decr count 6",
        plain: Some("2\n\n"),
        web: Some("count: 2\n\n"),
        ..C
    },
    Case {
        name: "41 incr.t:31 (unset)",
        command: "i.incr a",
        plain: Some("1\n\n"),
        web: Some("a: 1\n\n"),
        ..C
    },
    Case {
        name: "41 incr.t:31 (negative)",
        setup: &["i.set b -3"],
        command: "i.decr b -9",
        plain: Some("6\n\n"),
        web: Some("b: 6\n\n"),
        ..C
    },
    Case {
        name: "42 list.t:65",
        setup: &[
            "ark:/12345/f84.set _t x",
            "ark:/12345/f81.set _t x",
            "ark:/12345/f83.set _t x",
            "ark:/12345/f82.set _t x",
            "ark:/12345/g1.set _t x",
        ],
        command: "list - ark:/12345/f8",
        plain: Some(
            "# listing for binder {B}, max 1000\n\
             ark:/12345/f81\nark:/12345/f82\nark:/12345/f83\nark:/12345/f84\n\
             # produced 4 ids, 4 bindings (average 1.00 bindings per id)\n\n",
        ),
        web: Some(
            "# listing for binder {B}, max 1000\n\
             id: ark:/12345/f81\nid: ark:/12345/f82\nid: ark:/12345/f83\nid: ark:/12345/f84\n\
             # produced 4 ids, 12 bindings (average 3.00 bindings per id)\n\n",
        ),
        ..C
    },
    Case {
        name: "42 list.t:110",
        setup: &["ark:/12345/f81.set _t x"],
        command: "list - xyzzy",
        plain: Some(
            "# listing for binder {B}, max 1000\n\
             # produced 0 ids, 0 bindings (average 0.00 bindings per id)\n\n",
        ),
        ..C
    },
    Case {
        name: "43 norm.t:201",
        command: "ark:12345/e-f?g-h.norm",
        plain: Some("ark:/12345/ef?g-h\n\n"),
        web: Some("id: ark:/12345/ef?g-h\n\n"),
        ..C
    },
    Case {
        name: "43 norm.t:122",
        command: ":hx \"  DOI:10.12345/croWD-^0a^09 sOUrced?lower.norm\"",
        plain: Some("doi:10.12345/CROWD-SOURCED?lower\n\n"),
        web: Some("id: doi:10.12345/CROWD-SOURCED?lower\n\n"),
        ..C
    },
    Case {
        name: "44 norm.t:141",
        command: "doi:10.123/THIS-THat?NO-W.shadow",
        plain: Some("ark:/b0123/thisthat?NO-W\n\n"),
        web: Some("id: ark:/b0123/thisthat?NO-W\n\n"),
        ..C
    },
    Case {
        name: "45 webperms.t:169",
        command: "mkbinder bar",
        web: Some("error: 401 unauthorized\n\n"),
        failed: true,
        status: 401,
        ..C
    },
    Case {
        name: "46 webperms.t:211 (set)",
        command: "--ack foo.set moodle cow",
        plain: Some("3.1\n\n"),
        web: Some("oxum: 3.1\n\n"),
        ..C
    },
    Case {
        name: "46 webperms.t:211 (add)",
        setup: &["foo.set moodle cow"],
        command: "--ack foo.add moodle sheep",
        plain: Some("5.1\n\n"),
        web: Some("oxum: 5.1\n\n"),
        ..C
    },
    Case {
        name: "46 webperms.t:211 (rm)",
        setup: &["foo.set moodle cow", "foo.add moodle sheep"],
        command: "--ack foo.rm moodle",
        plain: Some("8.2\n\n"),
        web: Some("oxum: 8.2\n\n"),
        ..C
    },
    Case {
        name: "47 webperms.t:267",
        command: "xyzzy",
        plain: Some("error: unknown command: xyzzy\n\n"),
        failed: true,
        cli: false,
        ..C
    },
    Case {
        name: "48 apachebase.t:92",
        command: "-d pestx i.set a b",
        web: Some("error: -d or -p not allowed in query string\n\n"),
        failed: true,
        ..C
    },
    Case {
        name: "51 apachebase.t:263",
        setup: &["i.set hello th+ere"],
        command: "i.fetch hello",
        plain: Some("hello: th+ere\n\n"),
        ..C
    },
    Case {
        name: "52 ApacheTester.pm:522",
        setup: &["i.set bow wow"],
        command: "i.delete bow",
        plain: Some("element removed: i|bow\n\n"),
        web: Some("ok: element removed: i|bow\n\n"),
        ..C
    },
    Case {
        name: "53 ApacheTester.pm:543",
        command: "<xyzzy>i.set bow wow",
        plain: Some("error: <binder> prefix not supported; name the binder with noid -f\n\n"),
        web: Some("error: <binder> prefix not allowed from remote connections\n\n"),
        failed: true,
        ..C
    },
];

/// `out` with the admin elements' values replaced by `{T}` and `{P}`.
pub fn placeholders(out: &str) -> String {
    let mut s = String::with_capacity(out.len());
    for line in out.split_inclusive('\n') {
        if line.starts_with("_,ec: ") {
            s.push_str("_,ec: {T}\n");
        } else if line.starts_with("_,ep: p:") && line.trim_end().ends_with("||76") {
            s.push_str("_,ep: {P}\n");
        } else {
            s.push_str(line);
        }
    }
    s
}

/// The expected output of `case` on the web (`web`) or not, for binder `binder`;
/// `None` when the case does not apply.
pub fn expected(case: &Case, web: bool, binder: &str) -> Option<String> {
    let want = if web { case.web.or(case.plain) } else { case.plain }?;
    Some(want.replace("{B}", binder))
}
