//! Reading the old minter's records into a new store in the staging directory,
//! validating them on the way, then giving it a README and a log.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;

use noid_migrate::dump::{DumpError, Reader};
use noid_migrate::validate::{Summary, Validator};
use noid_store::{Layout, Op, Writer};

use super::db_dump::DbDump;
use super::error::ImportError;
use super::old::{Old, Source};
use super::staging::Staging;
use crate::invocation::Invocation;
use crate::progress;

/// Keys per synced write while importing.
const KEYS_PER_WRITE: usize = 100_000;

/// Import `old` (named `path`) into the Dbdir `dbdir` (the session's, or a staging
/// one on the way to PostgreSQL).
pub fn load(
    session: &Invocation,
    dbdir: &Path,
    path: &str,
    old: &Old,
) -> Result<Summary, ImportError> {
    let staging = Staging::begin(dbdir)?;
    let mut records = Records::open(path, old)?;
    let writer = Writer::create(staging.dir(), session.lock_timeout)?;
    let validator = records.copy_into(session, &writer)?;
    let summary = validator
        .finish()
        .map_err(|error| ImportError::NotAMinter {
            path: path.to_string(),
            error,
        })?;
    if !validator.sorted() {
        no_repeated_keys(&writer, path, validator.records())?;
    }
    let staged = writer.layout().clone();
    drop(writer);
    write_files(session, path, old, &staged, &validator, &summary)?;
    staging.publish(dbdir, &staged)?;
    Ok(summary)
}

/// The old minter's records, being read.
struct Records<'p> {
    /// PATH as given.
    path: &'p str,
    reader: Reader<Box<dyn BufRead>>,
    /// The input's size, when known.
    size: Option<u64>,
    /// The `db_dump` producing the input, if any.
    dbdump: Option<DbDump>,
}

impl<'p> Records<'p> {
    /// Open the records of `old`, and read their header.
    fn open(path: &'p str, old: &Old) -> Result<Records<'p>, ImportError> {
        let mut dbdump = None;
        let (input, size): (Box<dyn BufRead>, Option<u64>) = match &old.source {
            Source::Stdin => (
                Box::new(BufReader::with_capacity(1 << 20, std::io::stdin())),
                None,
            ),
            Source::Text(p) => {
                let f = fs::File::open(p).map_err(|error| ImportError::Path {
                    path: path.to_string(),
                    error,
                })?;
                let size = f.metadata().ok().map(|m| m.len());
                (Box::new(BufReader::with_capacity(1 << 20, f)), size)
            }
            Source::Bdb(p) => {
                let (d, stdout) = DbDump::start(p)?;
                dbdump = Some(d);
                (Box::new(BufReader::with_capacity(1 << 20, stdout)), None)
            }
        };
        match Reader::new(input) {
            Ok(reader) => Ok(Records {
                path,
                reader,
                size,
                dbdump,
            }),
            Err(error) => Err(unreadable(path, &mut dbdump, error)),
        }
    }

    /// Write every record into `writer`, checking them as a minter on the way.
    fn copy_into(
        &mut self,
        session: &Invocation,
        writer: &Writer,
    ) -> Result<Validator, ImportError> {
        let pb = progress::bytes(session, "importing", self.size);
        let mut validator = Validator::new();
        let mut batch: Vec<Op> = Vec::with_capacity(KEYS_PER_WRITE);
        loop {
            let rec = match self.reader.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(error) => {
                    pb.finish_and_clear();
                    return Err(unreadable(self.path, &mut self.dbdump, error));
                }
            };
            validator.observe(&rec.key, &rec.value, rec.line);
            batch.push(Op::Put(rec.key, rec.value));
            if batch.len() >= KEYS_PER_WRITE {
                writer.commit(batch.drain(..))?;
                pb.set_position(self.reader.bytes_read());
                pb.set_message(format!("{} keys", self.reader.records()));
            }
        }
        writer.commit(batch.drain(..))?;
        pb.finish_and_clear();
        if let Some(d) = self.dbdump.as_mut() {
            d.finish()?;
        }
        Ok(validator)
    }
}

/// Unsorted input: a repeated key shows up as fewer distinct keys in the store than
/// records read.
fn no_repeated_keys(writer: &Writer, path: &str, records: u64) -> Result<(), ImportError> {
    let mut distinct = 0u64;
    writer.scan_from(b"", |_, _| {
        distinct += 1;
        true
    })?;
    if distinct != records {
        return Err(ImportError::RepeatedKeys {
            path: path.to_string(),
            records,
            distinct,
        });
    }
    Ok(())
}

/// Records that cannot be read: a failing `db_dump` explains a broken stream better
/// than the stream does.
fn unreadable(path: &str, dbdump: &mut Option<DbDump>, error: DumpError) -> ImportError {
    match dbdump.as_mut().map(DbDump::finish) {
        Some(Err(e)) => e,
        _ => ImportError::Records {
            path: path.to_string(),
            error,
        },
    }
}

/// The README (the old one, else the creation record kept in `:/erc`) and the log
/// (the old one, and a line for this import).
fn write_files(
    session: &Invocation,
    path: &str,
    old: &Old,
    staged: &Layout,
    validator: &Validator,
    summary: &Summary,
) -> Result<(), ImportError> {
    let cannot_write = |file: &std::path::Path| {
        let file = file.to_path_buf();
        move |error| ImportError::WriteFile { file, error }
    };
    match &old.readme {
        Some(r) => fs::copy(r, &staged.readme).map(|_| ()),
        None => match validator.admin("erc") {
            Some(erc) => fs::write(&staged.readme, erc),
            None => Ok(()),
        },
    }
    .map_err(cannot_write(&staged.readme))?;
    let mut log = match &old.log {
        Some(l) => fs::read(l).unwrap_or_default(),
        None => Vec::new(),
    };
    log.extend_from_slice(
        format!(
            "{}: imported {} keys from {path} by {}\n",
            session.context().now_temper(),
            summary.records,
            session.contact
        )
        .as_bytes(),
    );
    fs::write(&staged.log, log).map_err(cannot_write(&staged.log))
}
