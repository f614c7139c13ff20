//! The console's state in the service: its sessions, its settings and what its mint
//! forms minted. Apart from the pages, so that the service can hold it without
//! importing the console's requests.

use std::time::Duration;

use noid_binder::api::ConsoleConfig;

use super::minted;
use super::session::Sessions;

/// The console's state in the service.
pub struct Console {
    /// The sessions.
    pub sessions: Sessions,
    /// `[console] secure_cookies`: cookies are `Secure` whatever the request says.
    pub secure_cookies: bool,
    /// `[console] enabled`.
    pub enabled: bool,
    /// `[console] resolver`, ending in `/`: minted identifiers link to it.
    pub resolver: Option<String>,
    /// What the mint forms minted, for their result pages.
    pub minted: minted::Kept,
}

impl Console {
    /// The console as configured.
    pub fn new(c: &ConsoleConfig) -> Console {
        Console {
            sessions: Sessions::new(Duration::from_secs(c.session_idle)),
            secure_cookies: c.secure_cookies,
            enabled: c.enabled,
            resolver: c
                .resolver
                .as_deref()
                .filter(|r| !r.is_empty())
                .map(|r| format!("{}/", r.trim_end_matches('/'))),
            minted: minted::Kept::default(),
        }
    }
}
