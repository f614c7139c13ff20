//! `export [noid|dbdump]`: every key of the minter, streamed to standard output in
//! noid's own lossless format or as BerkeleyDB `db_dump -p` text.

use noid_migrate::dump::{DumpFormat, Writer as DumpWriter};
use noid_store::Layout;

use crate::complaint::{no_database, store_error, Complaint};
use crate::invocation::Invocation;
use crate::output::Out;
use crate::progress;

/// `export [noid|dbdump]`.
#[derive(Debug)]
pub struct Export {
    format: DumpFormat,
}

impl Export {
    /// Parse the arguments after `export`: the format, `noid` when none is given.
    pub fn parse(args: Vec<String>) -> Result<Export, Complaint> {
        let format = match args.first().map(String::as_str) {
            None | Some("noid") => DumpFormat::Export,
            Some("dbdump") => DumpFormat::DbDump,
            Some(other) => {
                return Err(Complaint::new(format!(
                    "error: export format must be \"noid\" or \"dbdump\" (got \"{other}\")"
                )))
            }
        };
        if args.len() > 1 {
            return Err(Complaint::new(
                "error: export takes at most one argument (noid or dbdump)",
            ));
        }
        Ok(Export { format })
    }

    /// Run it: stream every key to standard output.
    pub fn run(&self, session: &Invocation, out: &mut Out) {
        stream(session, self.format, out)
    }
}

/// Write every key of the session's minter to standard output in `format`.
fn stream(session: &Invocation, format: DumpFormat, out: &mut Out) {
    if !Layout::new(&session.dbdir).has_minter() {
        no_database(session, out);
        return;
    }
    let snap = match crate::store::open_reader(session) {
        Ok(s) => s,
        Err(e) => return store_error(session, e, out),
    };
    // Whatever a bulk run printed before must come first.
    if out.flush(session.web).is_err() {
        return;
    }
    let stdout = std::io::stdout();
    let sink = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    let mut w = match DumpWriter::new(sink, format) {
        Ok(w) => w,
        Err(e) => return write_failed(e, out),
    };
    let mut failure = None;
    let pb = progress::count(session, "exporting", "keys");
    let scanned = snap.scan_from(b"", &mut |k, v| match w.record(k, v) {
        Ok(()) => {
            pb.inc(1);
            true
        }
        Err(e) => {
            failure = Some(e);
            false
        }
    });
    pb.finish_and_clear();
    if let Err(e) = scanned {
        out.fail(format!("error: {e}; the export is incomplete\n"));
        return;
    }
    if let Some(e) = failure {
        return write_failed(e, out);
    }
    if let Err(e) = w.finish() {
        write_failed(e, out);
    }
}

/// The export could not be written: a reader that left (a closed pipe) is no error
/// to report, but the export is incomplete all the same.
fn write_failed(e: std::io::Error, out: &mut Out) {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        out.fail(format!("error: cannot write the export: {e}\n"));
    } else {
        out.failed = true;
    }
}
