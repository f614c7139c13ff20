//! What a command prints, gathered before it is written: stdout must not show an
//! identifier before the write that issued it is synced, so commands fill an [`Out`]
//! and the caller writes it after the commit.

use std::io::Write;

/// The two output streams of one or more commands, and whether any failed.
#[derive(Debug, Default)]
pub struct Out {
    /// Bytes for standard output.
    pub stdout: Vec<u8>,
    /// Bytes for standard error.
    pub stderr: Vec<u8>,
    /// Set when a command failed (non-zero exit status).
    pub failed: bool,
}

impl Out {
    /// Append to stdout.
    pub fn out(&mut self, s: impl AsRef<[u8]>) {
        self.stdout.extend_from_slice(s.as_ref());
    }

    /// Append to stderr.
    pub fn err(&mut self, s: impl AsRef<[u8]>) {
        self.stderr.extend_from_slice(s.as_ref());
    }

    /// Append to stderr and mark failure.
    pub fn fail(&mut self, s: impl AsRef<[u8]>) {
        self.err(s);
        self.failed = true;
    }

    /// Perl's `bprint`: a space after every newline (ANVL continuation lines).
    pub fn bprint_err(&mut self, s: &str) {
        self.err(s.replace('\n', "\n "));
    }

    /// `bprint` to stdout.
    pub fn bprint_out(&mut self, s: &str) {
        self.out(s.replace('\n', "\n "));
    }

    /// Write and clear both buffers. In web mode stderr goes to stdout, as Perl
    /// redirected STDERR there. A closed stdout (a pipe whose reader left) is not an error.
    pub fn flush(&mut self, merge_stderr: bool) -> std::io::Result<()> {
        let mut so = std::io::stdout().lock();
        if merge_stderr {
            so.write_all(&self.stdout)?;
            so.write_all(&self.stderr)?;
        } else {
            so.write_all(&self.stdout)?;
            so.flush()?;
            let mut se = std::io::stderr().lock();
            se.write_all(&self.stderr)?;
            se.flush()?;
        }
        so.flush()?;
        self.stdout.clear();
        self.stderr.clear();
        Ok(())
    }
}
