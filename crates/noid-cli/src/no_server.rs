//! `noid serve` and the API's CGI in a `noid` built without the cargo feature `server`:
//! each says that this build has no server.

/// The one answer of this build to `noid serve`.
const NO_SERVER: &str =
    "this noid was built without the HTTP server (cargo feature \"server\"); install the noid package, or build with default features";

/// `noid serve …`: refused.
pub fn serve(_: &[String]) -> u8 {
    eprintln!("noid serve: {NO_SERVER}");
    1
}

/// The API as a CGI: a 500 that says why.
pub fn cgi(_: &std::path::Path) -> u8 {
    eprintln!("noid API CGI: {NO_SERVER}");
    print!(
        "Status: 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\nerror: {NO_SERVER}\n"
    );
    1
}
