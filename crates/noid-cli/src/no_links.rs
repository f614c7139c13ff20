//! `noid links` in a `noid` built without the cargo feature `links`: it says that this
//! build has no HTTP client for archives.

/// `noid links …`: refused.
pub fn run(_: &crate::invocation::Invocation, _: &[String]) -> u8 {
    eprintln!(
        "noid links: this noid was built without archived copies (cargo feature \"links\"); \
         install the noid package, or build with default features"
    );
    1
}
