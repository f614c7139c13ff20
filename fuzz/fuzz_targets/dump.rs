//! The import parsers: `db_dump -p` text (Perl Noid's BerkeleyDB minters) and noid's
//! own export format. Any input parses or gives an error naming a line; what parses is
//! written out again in its own format and reads back as the same pairs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_migrate::dump::{DumpError, DumpFormat, Reader, Writer};

/// The key/value pairs of a whole dump, or its first error.
fn pairs(input: &[u8]) -> Result<(DumpFormat, Vec<(Vec<u8>, Vec<u8>)>), DumpError> {
    let reader = Reader::new(input)?;
    let format = reader.format();
    let mut out = Vec::new();
    for r in reader.take(10_000) {
        let r = r?;
        out.push((r.key, r.value));
    }
    Ok((format, out))
}

fuzz_target!(|data: &[u8]| {
    let Ok((format, records)) = pairs(data) else {
        return;
    };
    let mut w = Writer::new(Vec::new(), format).expect("header");
    for (k, v) in &records {
        w.record(k, v).expect("write");
    }
    let (written, _) = w.finish().expect("finish");
    let (again_format, again) = pairs(&written).unwrap_or_else(|e| {
        panic!(
            "a written dump does not read back ({e}):\n{}",
            String::from_utf8_lossy(&written)
        )
    });
    assert_eq!(again_format, format);
    assert_eq!(again, records, "a dump does not read back as written");
});
