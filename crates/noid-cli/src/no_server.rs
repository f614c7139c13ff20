//! `noid serve` in a `noid` built without the cargo feature `server`: it says that this
//! build has no server. (The API's CGI is in every build: `crate::cgi`.)

/// The one answer of this build to `noid serve`.
const NO_SERVER: &str =
    "this noid was built without the HTTP server (cargo feature \"server\"); install the noid package, or build with default features";

/// `noid serve …`: refused.
pub fn serve(_: &[String]) -> u8 {
    eprintln!("noid serve: {NO_SERVER}");
    1
}
