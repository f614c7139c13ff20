//! Bulk mode's command lines (`egg -`, or `?-` with a POST body): one command per
//! line; blank lines, lone `-` lines and lines with `#` in column 1 are skipped; a
//! trailing backslash joins the next line. Indirect tokens read from the same input,
//! between command lines ([`Lines::input`]).

use std::io::BufRead;

/// The command lines of a bulk input.
pub struct Lines<R: BufRead> {
    input: R,
    /// Physical lines read so far (lines read by indirect tokens are not counted).
    line_no: usize,
}

impl<R: BufRead> Lines<R> {
    /// Command lines from `input`.
    pub fn new(input: R) -> Self {
        Lines { input, line_no: 0 }
    }

    /// The next command and the number of the line it ended on; `None` at the end.
    pub fn next_command(&mut self) -> std::io::Result<Option<(usize, String)>> {
        loop {
            let Some(mut line) = self.physical()? else {
                return Ok(None);
            };
            if line.starts_with('#') {
                continue;
            }
            join_continued(&mut line, &mut || self.physical())?;
            let blank = line.trim();
            if blank.is_empty() || blank == "-" || is_dash_line(blank) {
                continue;
            }
            return Ok(Some((self.line_no, line)));
        }
    }

    /// Whether more input is already buffered (a caller may commit when none is).
    pub fn more_buffered(&mut self) -> bool {
        self.input.fill_buf().is_ok_and(|b| !b.is_empty())
    }

    /// The input after the current command line, for indirect tokens.
    pub fn input(&mut self) -> &mut R {
        &mut self.input
    }

    fn physical(&mut self) -> std::io::Result<Option<String>> {
        let mut raw = Vec::new();
        if self.input.read_until(b'\n', &mut raw)? == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        while matches!(raw.last(), Some(b'\n' | b'\r')) {
            raw.pop();
        }
        Ok(Some(String::from_utf8_lossy(&raw).into_owned()))
    }
}

/// Join the lines that continue `line` (one that ends with a backslash goes on with
/// the next line, read by `next`); a comment line inside a continuation is skipped.
pub fn join_continued(
    line: &mut String,
    next: &mut dyn FnMut() -> std::io::Result<Option<String>>,
) -> std::io::Result<()> {
    while line.ends_with('\\') {
        line.pop();
        match next()? {
            Some(n) if n.starts_with('#') => line.push('\\'),
            Some(n) => line.push_str(&n),
            None => break,
        }
    }
    Ok(())
}

/// `^\s*-?\s*$` after trimming: a lone dash with spaces inside (`-` handled above).
fn is_dash_line(trimmed: &str) -> bool {
    trimmed
        .strip_prefix('-')
        .is_some_and(|r| r.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(input: &str) -> Vec<(usize, String)> {
        let mut l = Lines::new(input.as_bytes());
        let mut v = Vec::new();
        while let Some(c) = l.next_command().unwrap() {
            v.push(c);
        }
        v
    }

    #[test]
    fn skips_blank_dash_and_comment_lines() {
        assert_eq!(
            commands("\n  \n   -  \n# c\n i.fetch\nblech\n"),
            [(5, " i.fetch".to_string()), (6, "blech".to_string())]
        );
    }

    #[test]
    fn joins_continuations_over_comments() {
        // spec case 30
        assert_eq!(
            commands("u.set eee fff\\\n#ggg\nhhh\n"),
            [(3, "u.set eee fffhhh".to_string())]
        );
    }
}
