//! The template parser (`dbcreate`'s `PREFIX.MASK`): any string is a template or an
//! error; a template's properties text and its first identifiers never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_template::generator::n2xdig;
use noid_template::template::parse_template;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(t) = parse_template(text) {
        let _ = t.properties("13030", true, false);
        let _ = t.is_unlimited();
        let _ = t.padwidth();
        if let Some((_, mask)) = text.split_once('.') {
            for n in [0, 1, 9, 10, 28, 29, 1000, u64::MAX / 2] {
                let _ = n2xdig(n, mask);
            }
        }
    }
});
