//! What the PATH given to `import` is: standard input, a text dump, or a BerkeleyDB
//! database, and the old minter's README and log beside it.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use noid_migrate::dump::{sniff, Sniff};

use super::error::ImportError;

/// Where the records come from.
pub enum Source {
    /// Standard input (text).
    Stdin,
    /// A `db_dump -p` or `noid export` text file.
    Text(PathBuf),
    /// A BerkeleyDB `noid.bdb`, read through `db_dump`.
    Bdb(PathBuf),
}

/// The old minter's files.
pub struct Old {
    /// Its records.
    pub source: Source,
    /// Its `README` (the creation record), if beside the database.
    pub readme: Option<PathBuf>,
    /// Its `log`, if beside the database.
    pub log: Option<PathBuf>,
}

/// Work out what PATH is.
pub fn locate(path: &str) -> Result<Old, ImportError> {
    if path == "-" {
        return Ok(Old {
            source: Source::Stdin,
            readme: None,
            log: None,
        });
    }
    let p = PathBuf::from(path);
    let unreadable = |error| ImportError::Path {
        path: path.to_string(),
        error,
    };
    let meta = fs::metadata(&p).map_err(unreadable)?;
    let beside = |dir: &Path, name: &str| Some(dir.join(name)).filter(|f| f.is_file());
    if meta.is_dir() {
        for dir in [p.clone(), p.join("NOID")] {
            let bdb = dir.join("noid.bdb");
            if bdb.is_file() {
                return Ok(Old {
                    source: Source::Bdb(bdb),
                    readme: beside(&dir, "README"),
                    log: beside(&dir, "log"),
                });
            }
        }
        return Err(ImportError::NoBdb {
            path: path.to_string(),
        });
    }
    let mut head = [0u8; 64];
    let n = read_head(&p, &mut head).map_err(unreadable)?;
    match sniff(&head[..n]) {
        Sniff::Text(_) => Ok(Old {
            source: Source::Text(p),
            readme: None,
            log: None,
        }),
        Sniff::BerkeleyDb => {
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            let dir = if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir
            };
            Ok(Old {
                source: Source::Bdb(p),
                readme: beside(&dir, "README"),
                log: beside(&dir, "log"),
            })
        }
        Sniff::Unknown => Err(ImportError::NotRecognised {
            path: path.to_string(),
        }),
    }
}

/// Fill `buf` from the start of the file, or as much of it as the file holds.
fn read_head(p: &Path, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut f = fs::File::open(p)?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
