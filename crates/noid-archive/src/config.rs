//! Which archive is asked, and how.

use std::time::Duration;

use crate::ArchiveError;

/// The Internet Archive's TimeGate: the URL of a target is appended to it.
pub const DEFAULT_TIMEGATE: &str = "https://web.archive.org/web/";

/// The Internet Archive's "Save Page Now": the URL of a target is appended to it.
pub const DEFAULT_SAVE: &str = "https://web.archive.org/save/";

/// Which archive to ask and how; made once, shared by every request (it holds the
/// HTTP client and its connection pool).
#[derive(Debug, Clone)]
pub struct Config {
    /// The TimeGate's URL, the target's URL appended to it (`{timegate}{url}`).
    pub timegate: String,
    /// Where a save is asked for, the target's URL appended to it.
    pub save: String,
    /// Redirects followed from the TimeGate to the memento.
    pub max_redirects: usize,
    pub(crate) client: reqwest::Client,
}

impl Config {
    /// The Internet Archive's TimeGate and save endpoint, each request given `timeout`,
    /// sent with `user_agent` (which should name the site and a contact URL).
    pub fn new(user_agent: &str, timeout: Duration) -> Result<Config, ArchiveError> {
        Config::with(DEFAULT_TIMEGATE, DEFAULT_SAVE, user_agent, timeout)
    }

    /// Another archive: its TimeGate and save endpoint (each ends where the target's
    /// URL is appended, usually with `/`).
    pub fn with(
        timegate: &str,
        save: &str,
        user_agent: &str,
        timeout: Duration,
    ) -> Result<Config, ArchiveError> {
        let client = reqwest::Client::builder()
            .user_agent(user_agent)
            .timeout(timeout)
            // The TimeGate's redirect is read, not followed blindly: see `timegate`.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ArchiveError::Client(e.to_string()))?;
        Ok(Config {
            timegate: timegate.to_string(),
            save: save.to_string(),
            max_redirects: 5,
            client,
        })
    }
}
