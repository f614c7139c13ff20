//! What the server decided to send for an answer ([`Decision`]), before the route makes
//! it a response: made by [`crate::respond`], dated by [`crate::modified`].

/// An answer reduced to what HTTP can say.
pub(crate) enum Decision {
    Redirect {
        code: u16,
        target: String,
        /// A `Link` header (the identifier's signposts).
        link: Option<String>,
    },
    Page {
        status: u16,
        ctype: &'static str,
        body: String,
        /// The identifier's last write (seconds since the epoch): `Last-Modified`.
        modified: Option<i64>,
        /// A `Link` header (a tombstone's successor, an archived copy, or the
        /// identifier's signposts).
        link: Option<String>,
    },
    NotFound,
}
