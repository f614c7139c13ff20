//! Crockford base32 LUIs (`noid lui decode|normalize`): any text decodes to a number or
//! an error; normalising is idempotent, and a normalised LUI decodes as the original
//! (with a checksum only when the original ends in its two checksum digits: as in
//! base32-lib, a dash among the last two characters fails the checksum, and
//! normalising removes it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_template::lui::{decode, normalize};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for checksum in [false, true] {
        let _ = decode(text, checksum);
    }
    if let Ok(n) = normalize(text) {
        assert_eq!(normalize(&n).as_ref(), Ok(&n), "{text:?}");
        let digits_last = text
            .as_bytes()
            .get(text.len().saturating_sub(2)..)
            .is_some_and(|t| t.len() == 2 && t.iter().all(u8::is_ascii_digit));
        for checksum in [false, digits_last] {
            assert_eq!(
                decode(&n, checksum).ok(),
                decode(text, checksum).ok(),
                "{text:?} and its normal form {n:?} decode differently"
            );
        }
    }
});
