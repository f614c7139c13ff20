//! Running commands: one from the command line, or many from standard input (bulk
//! mode, `noid -`) or a web POST body. Each command's words are parsed once into a
//! [`Request`]; write verbs are handed to [`crate::batch`], which keeps one store
//! open for consecutive ones.

use std::io::BufRead;

use indicatif::ProgressBar;

use crate::batch::{emit, write_batch};
use crate::commands::{Action, Read};
use crate::complaint::store_error;
use crate::invocation::Invocation;
use crate::output::Out;
use crate::progress;
use crate::request::Request;
use crate::source::{Input, Source, Upcoming};

/// A single command from the command line.
pub struct OneCommand {
    /// The command, until taken.
    pub words: Option<Vec<String>>,
    /// The process's standard input.
    pub stdin: std::io::Stdin,
}

impl Source for OneCommand {
    fn next_command(&mut self) -> Option<Result<Vec<String>, String>> {
        self.words.take().map(Ok)
    }
    fn more_buffered(&self) -> bool {
        false
    }
    fn input(&mut self) -> Input<'_> {
        Input::Stdin(&mut self.stdin)
    }
}

/// Commands, one per line, shell-word split.
pub struct Lines<R: BufRead> {
    /// The input.
    pub input: R,
    /// The bytes `input` has buffered (set by the caller's reader type).
    pub peek: fn(&R) -> &[u8],
    /// Whether what `input` reads from has more bytes waiting past its buffer.
    pub waiting: fn() -> bool,
}

impl<R: BufRead> Lines<R> {
    fn physical(&mut self) -> Option<String> {
        let mut line = Vec::new();
        match self.input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                Some(text.trim_end_matches(['\n', '\r']).to_string())
            }
        }
    }
}

impl<R: BufRead> Source for Lines<R> {
    /// A Perl Noid line is split as Perl Noid did (shell words); an egg line as egg
    /// splits it (on whitespace unless it has quotes or backslashes, so a value may
    /// start with `#`), and a trailing backslash continues it on the next line.
    /// Lines that hold no command are skipped silently, as egg batches and the API's
    /// bulk POST skip them: a comment line (`#` in column 1, or after blanks), and a
    /// blank line (docs/COMPATIBILITY.md: Perl Noid 0.424 answered a comment with
    /// `error: no such command`).
    fn next_command(&mut self) -> Option<Result<Vec<String>, String>> {
        loop {
            let text = self.physical()?;
            let trimmed = text.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            return Some(self.command(text));
        }
    }
    /// Buffered, or waiting to be read: a file or a pipe that holds more than the
    /// buffer would otherwise end a write batch (and, on PostgreSQL, its connection)
    /// at every 64 KiB of input.
    fn more_buffered(&self) -> bool {
        !(self.peek)(&self.input).is_empty() || (self.waiting)()
    }
    fn input(&mut self) -> Input<'_> {
        Input::Commands(&mut self.input)
    }
    fn upcoming(&self) -> Upcoming {
        let bytes = (self.peek)(&self.input);
        let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
            return Upcoming::default();
        };
        let mut up = Upcoming::default();
        for line in bytes[..end].split(|&b| b == b'\n') {
            up.lines += 1;
            if let Some(id) = bound_id(line) {
                if let Some((base, _)) = id.rsplit_once('!') {
                    up.ids.push(base.to_string());
                }
                up.ids.push(id);
            }
        }
        up
    }
}

/// The identifier of a `bind HOW ID …` line; split as [`Lines`] splits it when it
/// quotes or escapes, else on white space (most of a bulk load, and cheaper).
fn bound_id(line: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    let mut words = text.split_ascii_whitespace();
    if words.next() != Some("bind") {
        return None;
    }
    if text.bytes().any(|b| matches!(b, b'\'' | b'"' | b'\\')) {
        noid_egg::words::bulk_line(text).ok()?.into_iter().nth(2)
    } else {
        words.nth(1).map(str::to_string)
    }
}

/// Whether standard input can be read without waiting (more bytes, or its end).
fn stdin_waiting() -> bool {
    let mut fd = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: `fd` is one valid pollfd for the duration of the call, and a zero
    // timeout returns at once.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & libc::POLLIN != 0
}

impl<R: BufRead> Lines<R> {
    /// The words of the command on line `text` (and the lines continuing it).
    fn command(&mut self, mut text: String) -> Result<Vec<String>, String> {
        // Whether the line is egg's is decided without a continuing backslash.
        let probe = text.strip_suffix('\\').unwrap_or(&text);
        if let Ok(words) = noid_egg::token::split(probe) {
            if noid_egg::is_egg(&words) {
                if !text.ends_with('\\') {
                    return Ok(words);
                }
                let joined =
                    noid_egg::lines::join_continued(&mut text, &mut || Ok(self.physical()));
                return joined
                    .map_err(|e| e.to_string())
                    .and_then(|()| noid_egg::token::split(&text).map_err(|e| e.to_string()))
                    .map_err(|e| format!("error: {e}"));
            }
        }
        noid_egg::words::bulk_line(&text)
    }
}

/// A source whose commands are counted on a progress bar.
struct Counted<S: Source> {
    source: S,
    progress: ProgressBar,
}

impl<S: Source> Source for Counted<S> {
    fn next_command(&mut self) -> Option<Result<Vec<String>, String>> {
        let command = self.source.next_command();
        if command.is_some() {
            self.progress.inc(1);
        }
        command
    }
    fn more_buffered(&self) -> bool {
        self.source.more_buffered()
    }
    fn input(&mut self) -> Input<'_> {
        self.source.input()
    }
    fn upcoming(&self) -> Upcoming {
        self.source.upcoming()
    }
}

/// Run the words of a command line or query string: a lone `-` reads one command per
/// line from standard input (bulk mode), anything else is one command. Exit status 1
/// when any command failed, or the status a minter's `atlast` setting asked for.
pub fn run_words(session: &Invocation, words: Vec<String>) -> u8 {
    let ok = if words.len() == 1 && words[0] == "-" {
        let stdin = std::io::stdin();
        let mut src = Counted {
            source: Lines {
                input: std::io::BufReader::with_capacity(1 << 16, stdin.lock()),
                peek: |r| r.buffer(),
                waiting: stdin_waiting,
            },
            progress: progress::count(session, "running", "commands"),
        };
        let ok = run(session, &mut src);
        src.progress.finish_and_clear();
        ok
    } else {
        let mut src = OneCommand {
            words: Some(words),
            stdin: std::io::stdin(),
        };
        run(session, &mut src)
    };
    match (session.atlast_status.get(), ok) {
        (Some(status), _) => status,
        (None, true) => 0,
        (None, false) => 1,
    }
}

/// Run every command from `source`; returns whether all succeeded.
pub fn run(session: &Invocation, source: &mut dyn Source) -> bool {
    let mut ok = true;
    let mut carried: Option<Action> = None;
    loop {
        let mut out = Out::default();
        let verb = match carried.take() {
            Some(v) => v,
            None => match source.next_command() {
                None => break,
                Some(Ok(words)) => {
                    match Request::parse(words, session.web).admit(session, false, &mut out) {
                        Some(v) => v,
                        None => {
                            ok &= emit(session, &mut out);
                            continue;
                        }
                    }
                }
                Some(Err(msg)) => {
                    out.fail(format!("{msg}\n"));
                    ok &= emit(session, &mut out);
                    continue;
                }
            },
        };
        match verb {
            Action::Plain(p) => p.run(&mut out),
            Action::Create(c) => c.run(session, &mut out),
            Action::Port(p) => p.run(session, &mut out),
            Action::Read(r) => match open_for(session, &r) {
                Ok(snap) => {
                    if let Err(e) = r.run(&*snap, &mut out) {
                        out.fail(format!("{e}\n"));
                    }
                }
                Err(e) => store_error(session, e, &mut out),
            },
            Action::Write(w) => {
                let (batch_ok, next) = write_batch(session, source, w, out);
                ok &= batch_ok;
                carried = next;
                continue;
            }
        }
        ok &= emit(session, &mut out);
    }
    ok
}

/// The store opened for the read `r`: `get` and `fetch` open only the tables their
/// lookups need; the others (`dbinfo`, `validate`, standing) read on as a whole.
fn open_for(
    session: &Invocation,
    r: &Read,
) -> Result<Box<dyn noid_store::Scan>, noid_store::StoreError> {
    match r {
        Read::Fetch(_) => crate::store::open_lookup_reader(session),
        _ => crate::store::open_reader(session),
    }
}
