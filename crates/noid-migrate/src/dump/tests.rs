//! Both text forms read and written: round trips, Perl Noid's dumps, and damaged input.

use super::*;

fn err(text: &str) -> String {
    match read_all(text.as_bytes()) {
        Ok(_) => panic!("accepted: {text:?}"),
        Err(e) => e.to_string(),
    }
}

fn pairs(records: &[DumpRecord]) -> Vec<(&[u8], &[u8])> {
    records
        .iter()
        .map(|r| (r.key.as_slice(), r.value.as_slice()))
        .collect()
}

const BDB: &str = "VERSION=3\nformat=print\ntype=btree\ndb_pagesize=4096\nHEADER=END\n \n empty key\n :/a\n 1\n x\\09y\n multi\\0aline\\\\\\ff\nDATA=END\n";

#[test]
fn reads_what_db_dump_prints() {
    let (f, recs) = read_all(BDB.as_bytes()).unwrap();
    assert_eq!(f, DumpFormat::DbDump);
    assert_eq!(
        pairs(&recs),
        vec![
            (&b""[..], &b"empty key"[..]),
            (b":/a", b"1"),
            (b"x\ty", b"multi\nline\\\xff"),
        ]
    );
    assert_eq!(
        recs.iter().map(|r| r.line).collect::<Vec<_>>(),
        vec![6, 8, 10]
    );
}

#[test]
fn reads_bytevalue_dumps() {
    let text = "VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n \n 656d707479206b6579\n 3a2f61\n 31\nDATA=END\n";
    let (_, recs) = read_all(text.as_bytes()).unwrap();
    assert_eq!(
        pairs(&recs),
        vec![(&b""[..], &b"empty key"[..]), (b":/a", b"1")]
    );
}

#[test]
fn both_formats_round_trip() {
    let (_, recs) = read_all(BDB.as_bytes()).unwrap();
    for format in [DumpFormat::DbDump, DumpFormat::Export] {
        let text = write_all(format, pairs(&recs));
        let (f, again) = read_all(&text[..]).unwrap();
        assert_eq!(f, format);
        assert_eq!(pairs(&again), pairs(&recs));
    }
    let text = write_all(DumpFormat::DbDump, pairs(&recs));
    assert_eq!(
        String::from_utf8(text).unwrap(),
        "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n \n empty key\n :/a\n 1\n x\\09y\n multi\\0aline\\\\\\ff\nDATA=END\n"
    );
    let text = write_all(DumpFormat::Export, pairs(&recs));
    assert_eq!(
        String::from_utf8(text).unwrap(),
        "# noid export v1\n\tempty key\n:/a\t1\nx\\ty\tmulti\\nline\\\\\\xff\n# end 3\n"
    );
}

#[test]
fn empty_minter_dumps() {
    for format in [DumpFormat::DbDump, DumpFormat::Export] {
        let text = write_all(format, Vec::<(&[u8], &[u8])>::new());
        assert!(read_all(&text[..]).unwrap().1.is_empty());
    }
}

#[test]
fn truncation_is_detected_everywhere() {
    let full = write_all(
        DumpFormat::DbDump,
        vec![(&b"k1"[..], &b"v1"[..]), (b"k2", b"v2")],
    );
    for cut in 0..full.len() - 1 {
        // Cutting off only the final newline leaves a complete dump.
        assert!(read_all(&full[..cut]).is_err(), "cut at {cut}");
    }
    let full = write_all(
        DumpFormat::Export,
        vec![(&b"k1"[..], &b"v1"[..]), (b"k2", b"v2")],
    );
    for cut in 0..full.len() - 1 {
        let r = read_all(&full[..cut]);
        // "# end 2" cut to "# end " or shorter is caught; so is every earlier cut.
        assert!(r.is_err(), "cut at {cut}: {:?}", r.map(|x| x.1));
    }
}

#[test]
fn errors_name_the_line() {
    assert_eq!(
        err(""),
        "line 1: the input is empty (expected a db_dump header or \"# noid export v1\")"
    );
    assert_eq!(
        err("hello\n"),
        "line 1: not a minter dump: expected \"VERSION=3\" (db_dump -p text) or \"# noid export v1\", found \"hello\""
    );
    assert_eq!(
        err("VERSION=3\nformat=print\n"),
        "line 3: the dump is truncated: end of input before HEADER=END"
    );
    assert_eq!(
        err("VERSION=3\nformat=print\ntype=recno\nHEADER=END\n"),
        "line 3: not a Noid minter: a recno database (Noid minters are btree databases)"
    );
    assert_eq!(
        err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\n"),
        "line 6: the dump is truncated: the key on line 5 has no value"
    );
    assert_eq!(
        err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\n v\n"),
        "line 7: the dump is truncated: end of input before DATA=END"
    );
    assert_eq!(
        err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\nv\nDATA=END\n"),
        "line 6: expected the value of the key on line 5 (a line starting with a space), found \"v\""
    );
    assert_eq!(
        err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\\q1\n v\nDATA=END\n"),
        "line 5: bad escape \"\\q1\" (expected \\\\ or \\ and two hex digits)"
    );
    assert_eq!(
        err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\nDATA=END\nVERSION=3\n"),
        "line 6: the dump holds more than one database (a Noid minter has one)"
    );
    assert_eq!(err("# noid export v2\n"), "line 1: unsupported export format \"# noid export v2\" (this noid reads \"# noid export v1\")");
    assert_eq!(
        err("# noid export v1\na\tb\n# end 2\n"),
        "line 3: the export is damaged: its end line \"# end 2\" does not match the 1 record read"
    );
    assert_eq!(
        err("# noid export v1\na\tb\tc\n# end 1\n"),
        "line 2: a record needs exactly one tab between key and value: \"a\\tb\\tc\""
    );
    assert_eq!(
        err("# noid export v1\nab\n# end 1\n"),
        "line 2: a record needs exactly one tab between key and value: \"ab\""
    );
    assert_eq!(
        err("# noid export v1\na\\z\tb\n# end 1\n"),
        "line 2: key: unknown escape \"\\z\" (known: \\\\ \\t \\n \\r \\xHH)"
    );
    assert_eq!(
        err("# noid export v1\na\tb\n# end 1\nmore\n"),
        "line 4: unexpected text after the \"# end\" line: \"more\""
    );
    assert_eq!(
        err("# noid export v1\n# note\n"),
        "line 2: unexpected comment line \"# note\""
    );
}

#[test]
fn sniffing() {
    assert_eq!(sniff(b"VERSION=3\n"), Sniff::Text(DumpFormat::DbDump));
    assert_eq!(
        sniff(b"# noid export v1\n"),
        Sniff::Text(DumpFormat::Export)
    );
    let mut bdb = vec![0u8; 16];
    bdb[12..16].copy_from_slice(&[0x62, 0x31, 0x05, 0x00]);
    assert_eq!(sniff(&bdb), Sniff::BerkeleyDb);
    assert_eq!(sniff(b"something else entirely"), Sniff::Unknown);
}
