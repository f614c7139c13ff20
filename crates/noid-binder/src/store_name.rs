//! A store named by its directory, not its path, in what a client is told
//! ([`name_store`]): an error answer says which store failed, never where it is on the
//! disk. The full text goes to the log.

use std::path::Path;

use crate::WorkResult;

/// `answer` with the directory `dir` named by its last component wherever its errors
/// give its path (`error: lock timeout …; another noid process holds
/// "sam/NOID/lock"`): a client learns which store, not where it is on the disk. The
/// full text is logged. (The API's answers, the CGI's and the console's pages alike.)
pub fn name_store(mut answer: WorkResult, dir: &Path) -> WorkResult {
    let (Some(name), Some(path)) = (dir.file_name(), dir.to_str()) else {
        return answer;
    };
    if !answer.failed || path.is_empty() {
        return answer;
    }
    let (path, name_bytes) = (path.as_bytes(), name.as_encoded_bytes());
    let mut named = Vec::with_capacity(answer.body.len());
    let mut rest = &answer.body[..];
    while let Some(at) = rest.windows(path.len()).position(|w| w == path) {
        named.extend_from_slice(&rest[..at]);
        named.extend_from_slice(name_bytes);
        rest = &rest[at + path.len()..];
    }
    named.extend_from_slice(rest);
    if let Some(e) = &mut answer.error {
        *e = e.replace(&*String::from_utf8_lossy(path), &name.to_string_lossy());
    }
    if named != answer.body {
        log::warn!(
            "{}: answered, with the store named {}: {}",
            dir.display(),
            name.to_string_lossy(),
            String::from_utf8_lossy(&answer.body).trim_end()
        );
    }
    answer.body = named;
    answer
}

/// `text` with the directory `dir`'s path replaced by its last component (the name
/// [`name_store`] gives it), for an error that is not a [`WorkResult`] (a read's).
pub fn name_store_in(text: &str, dir: &Path) -> String {
    match (dir.file_name(), dir.to_str()) {
        (Some(name), Some(path)) if !path.is_empty() && text.contains(path) => {
            log::warn!("{}: answered, with the store named: {text}", dir.display());
            text.replace(path, &name.to_string_lossy())
        }
        _ => text.to_string(),
    }
}
