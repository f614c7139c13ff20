//! The words of a `noid` command (`noid_egg::words`), as the CLI's bulk mode (`noid -`)
//! and web mode (a CGI's `QUERY_STRING`) split them. Beyond "no panic": a bulk line
//! that splits gives words that `shell_words::join` quotes back into a line splitting
//! to the same words, and never a word holding a line break; a query that splits gives
//! words that, %-encoded and joined with `+` (an empty word as `''`), decode to the
//! same words.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A bulk line is what comes before the first line break, read as the CLI reads it.
    let line = data.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let line = line.trim_end_matches('\r');
    if let Ok(words) = noid_egg::words::bulk_line(line) {
        assert!(words.iter().all(|w| !w.contains('\n')), "{words:?}");
        let again = noid_egg::words::bulk_line(&shell_words::join(&words));
        assert_eq!(again.as_ref(), Ok(&words), "bulk line {line:?}");
    }
    let query = String::from_utf8_lossy(data);
    if let Ok(words) = noid_egg::words::web_query(&query) {
        let encoded: Vec<String> = words.iter().map(|w| encode(w)).collect();
        let again = noid_egg::words::web_query(&encoded.join("+"));
        assert_eq!(again.as_ref(), Ok(&words), "query {query:?}");
    }
});

/// A word as a query carries it: every byte but ASCII letters and digits %-escaped.
fn encode(word: &str) -> String {
    if word.is_empty() {
        return "''".into();
    }
    word.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
