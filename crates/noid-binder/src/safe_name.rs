//! The one rule for names that become path steps (a populator, a minter's `SCHEME`,
//! `NAAN`, `SHOULDER`): the configuration, the API's routes and the admission all
//! check it, so no name read from a request or a directory can leave the configured
//! directories.

/// Whether `name` may name a populator or a path step (`SCHEME`, `NAAN`, `SHOULDER`):
/// letters, digits, `_`, `-` and `.`, not starting with `.` or `-`, so no path can
/// leave the configured directories.
pub fn is_safe_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"_-.".contains(&c))
}
