//! `Dbdir/NOID/backend`: which PostgreSQL database holds a minter, and under what name.
//!
//! ```text
//! # noid: this minter is held by PostgreSQL (docs/SCALING.md)
//! backend: postgres://noid@db.example.org/noid
//! minter: fk4
//! ```
//!
//! `noid dbcreate --backend URL` writes it. Another host that writes to the same
//! minter needs only a copy of this file.

use std::io::Write;
use std::path::Path;

use crate::{Layout, StoreError};

/// Why a backend URL or minter name was refused. The message names where the URL came
/// from, which only the caller knows ([`LocationError::describe`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocationError {
    /// Not a `postgres://` or `postgresql://` URL.
    NotPostgres {
        /// The URL given.
        url: String,
    },
    /// A `postgres://` URL the client cannot read.
    BadUrl {
        /// The URL, its password replaced by `***`.
        url: String,
        /// The client's reason.
        why: String,
    },
    /// A minter name other than 1 to 63 letters, digits, `.`, `_` or `-`.
    BadName {
        /// The name given.
        name: String,
    },
}

impl LocationError {
    /// The message, the URL's problems told as those of `source` (a command-line
    /// option such as `--backend`), with no `error: ` prefix.
    pub fn describe(&self, source: &str) -> String {
        match self {
            LocationError::NotPostgres { url } => {
                format!("{source} must be a postgres:// URL (got \"{url}\")")
            }
            LocationError::BadUrl { url, why } => format!("{source} {url}: {why}"),
            LocationError::BadName { name } => {
                format!("minter name \"{name}\" must be 1 to 63 letters, digits, '.', '_' or '-'")
            }
        }
    }
}

impl std::fmt::Display for LocationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe("the backend URL"))
    }
}

impl std::error::Error for LocationError {}

/// Where a minter's key space lives on a PostgreSQL server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The connection URL (`postgres://user[:password]@host[:port]/dbname[?…]`).
    pub url: String,
    /// The minter's name in that database (several minters can share one).
    pub minter: String,
}

impl Location {
    /// A location from a backend URL and a minter name. Both are checked: the URL
    /// must be a `postgres://` or `postgresql://` URL the client accepts, the name
    /// 1 to 63 letters, digits, `.`, `_` or `-`.
    pub fn new(url: &str, minter: &str) -> Result<Location, LocationError> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(LocationError::NotPostgres {
                url: url.to_string(),
            });
        }
        #[cfg(feature = "postgres")]
        if let Err(e) = url.parse::<postgres::Config>() {
            return Err(LocationError::BadUrl {
                url: redact(url),
                why: e.to_string(),
            });
        }
        let name_ok = !minter.is_empty()
            && minter.len() <= 63
            && minter
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !name_ok {
            return Err(LocationError::BadName {
                name: minter.to_string(),
            });
        }
        Ok(Location {
            url: url.to_string(),
            minter: minter.to_string(),
        })
    }

    /// The location the minter in `layout` names, or None when it has no backend
    /// file (an embedded minter, or none).
    pub fn read(layout: &Layout) -> Result<Option<Location>, StoreError> {
        let path = &layout.backend;
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(StoreError::Io {
                    path: path.clone(),
                    source,
                })
            }
        };
        Location::parse(&text)
            .map(Some)
            .map_err(|why| StoreError::Backend(format!("{}: {why}", path.display())))
    }

    /// The file's text: `backend:` and `minter:` lines; `#` comments and blank lines
    /// are ignored, anything else is refused.
    fn parse(text: &str) -> Result<Location, String> {
        let (mut url, mut minter) = (None, None);
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once(':').map(|(k, v)| (k.trim(), v.trim())) {
                Some(("backend", v)) => url = Some(v),
                Some(("minter", v)) => minter = Some(v),
                _ => return Err(format!("unexpected line \"{line}\"")),
            }
        }
        match (url, minter) {
            (Some(url), Some(minter)) => Location::new(url, minter)
                .map_err(|e| format!("error: {}", e.describe("--backend"))),
            _ => Err("needs a \"backend:\" and a \"minter:\" line".into()),
        }
    }

    /// Write the backend file of a new minter in `layout` (mode 0600: the URL may hold
    /// a password). Fails if one exists.
    pub fn write(&self, layout: &Layout) -> Result<(), StoreError> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = &layout.backend;
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&layout.noid_dir).map_err(io)?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        let text = format!(
            "# noid: this minter is held by PostgreSQL (docs/SCALING.md)\nbackend: {}\nminter: {}\n",
            self.url, self.minter
        );
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(io)
    }

    /// The URL without its password, for messages.
    pub fn display_url(&self) -> String {
        redact(&self.url)
    }

    /// The default minter name for a Dbdir: its last path component.
    pub fn default_name(dbdir: &Path) -> String {
        let abs = std::fs::canonicalize(dbdir).unwrap_or_else(|_| dbdir.to_path_buf());
        abs.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// `url` with the password in its user information replaced by `***`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***{}", &rest[at..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_names_are_checked() {
        let ok = Location::new("postgres://noid@127.0.0.1:5432/noid", "fk4.x_y-z").unwrap();
        assert_eq!(ok.minter, "fk4.x_y-z");
        assert_eq!(
            Location::new("mysql://h/db", "a")
                .unwrap_err()
                .describe("--backend"),
            "--backend must be a postgres:// URL (got \"mysql://h/db\")"
        );
        assert_eq!(
            Location::new("postgres://h/db", "a b").unwrap_err(),
            LocationError::BadName { name: "a b".into() }
        );
        assert!(Location::new("postgres://h/db", "").is_err());
        assert!(Location::new("postgres://h/db", &"x".repeat(64)).is_err());
    }

    #[test]
    fn the_file_round_trips_and_bad_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("noid-pg-loc-{}", std::process::id()));
        let layout = Layout::new(&dir);
        let loc = Location::new("postgres://u:secret@h:5/db", "m").unwrap();
        loc.write(&layout).unwrap();
        assert_eq!(Location::read(&layout).unwrap(), Some(loc.clone()));
        assert!(loc.write(&layout).is_err(), "an existing file is kept");
        std::fs::write(&layout.backend, "backend: postgres://h/db\nport: 5\n").unwrap();
        let e = Location::read(&layout).unwrap_err().to_string();
        assert!(e.ends_with("backend: unexpected line \"port: 5\""), "{e}");
        std::fs::write(&layout.backend, "backend: postgres://h/db\n").unwrap();
        let e = Location::read(&layout).unwrap_err().to_string();
        assert!(
            e.ends_with("needs a \"backend:\" and a \"minter:\" line"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(Location::read(&layout).unwrap(), None);
    }

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(redact("postgres://u:pw@h:5/db"), "postgres://u:***@h:5/db");
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            redact("postgres://h/db?user=a@b"),
            "postgres://h/db?user=a@b"
        );
    }
}
