//! Indirect tokens: an identifier, element or value that starts with `@` is read from
//! the input that follows the command line (standard input, or a POST body), so that
//! values of any size and content need no quoting.
//!
//! | token | reads |
//! |---|---|
//! | `@` | one line |
//! | `@-` | lines up to a blank line (not included) |
//! | `@--` | everything up to the end of the input |
//! | `@-N` | N octets, then an optional `\n#eot\n` trailer |
//! | `@-XYZ` | lines up to a line `XYZ` (not included) |
//! | `@FILE` | the file's contents (the caller's reader; refused on the web) |

use std::io::BufRead;

use crate::error::BinderError;

/// How `@FILE` tokens are read: the caller's file system, or nothing on the web.
pub type FileReader<'a> = &'a dyn Fn(&str) -> std::io::Result<Vec<u8>>;

/// The value of the indirect token `token` (starting `@`), read from `input`.
///
/// With a `limit`, a value longer than `limit` octets is refused
/// ([`BinderError::TooLarge`]) without being held: the rest of the token is still
/// read, and dropped, so that it is never taken for the commands that follow it.
pub fn read(
    token: &str,
    input: &mut dyn BufRead,
    files: Option<FileReader<'_>>,
    limit: Option<usize>,
) -> Result<Vec<u8>, BinderError> {
    let spec = &token[1..];
    let mut value = Capped::new(limit);
    match spec {
        "" => {
            line(input, &mut value)?;
        }
        "-" => until_line(input, &mut value, b"")?,
        "--" => loop {
            let buf = input.fill_buf().map_err(input_error)?;
            if buf.is_empty() {
                break;
            }
            let n = buf.len();
            value.push(buf);
            input.consume(n);
        },
        _ => {
            if let Some(rest) = spec.strip_prefix('-') {
                if rest.bytes().all(|c| c.is_ascii_digit()) {
                    let n: u64 = rest
                        .parse()
                        .map_err(|_| BinderError::refused(format!("bad octet count: {token}")))?;
                    octets(input, n, &mut value)?;
                } else {
                    until_line(input, &mut value, rest.as_bytes())?;
                }
                return value.done();
            }
            if spec.starts_with("http:") || spec.starts_with("https:") {
                return Err(BinderError::refused(format!(
                    "indirect token {token}: URLs are not supported"
                )));
            }
            let Some(files) = files else {
                return Err(BinderError::Unauthorized);
            };
            let v = files(spec).map_err(|e| BinderError::refused(format!("{spec}: {e}")))?;
            value.push(&v);
        }
    }
    value.done()
}

/// A value as it is read: kept while it is within the limit, then only counted as
/// too long.
struct Capped {
    kept: Vec<u8>,
    limit: usize,
    over: bool,
}

impl Capped {
    fn new(limit: Option<usize>) -> Capped {
        Capped {
            kept: Vec::new(),
            limit: limit.unwrap_or(usize::MAX),
            over: false,
        }
    }

    fn push(&mut self, b: &[u8]) {
        if self.over {
            return;
        }
        if b.len() > self.limit - self.kept.len() {
            self.overflow();
        } else {
            self.kept.extend_from_slice(b);
        }
    }

    /// The value is too long (a part of it was).
    fn overflow(&mut self) {
        self.over = true;
        self.kept = Vec::new();
    }

    fn done(self) -> Result<Vec<u8>, BinderError> {
        match self.over {
            true => Err(BinderError::TooLarge(self.limit)),
            false => Ok(self.kept),
        }
    }
}

/// One line, without its newline, onto `value`; whether there was one (`false` at
/// the end of input). It is read a buffer at a time, so a line longer than the
/// limit is never held whole.
fn line(input: &mut dyn BufRead, value: &mut Capped) -> Result<bool, BinderError> {
    let mut any = false;
    loop {
        let buf = input.fill_buf().map_err(input_error)?;
        if buf.is_empty() {
            return Ok(any);
        }
        any = true;
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                value.push(&buf[..i]);
                input.consume(i + 1);
                return Ok(true);
            }
            None => {
                let n = buf.len();
                value.push(buf);
                input.consume(n);
            }
        }
    }
}

/// Lines joined by newlines up to (not including) the first line `end`, or to the end
/// of input.
fn until_line(input: &mut dyn BufRead, value: &mut Capped, end: &[u8]) -> Result<(), BinderError> {
    let mut first = true;
    loop {
        let mut l = Capped::new(Some(value.limit.max(end.len())));
        if !line(input, &mut l)? {
            return Ok(());
        }
        if !l.over && l.kept == end {
            return Ok(());
        }
        if !first {
            value.push(b"\n");
        }
        first = false;
        match l.over {
            true => value.overflow(),
            false => value.push(&l.kept),
        }
    }
}

/// Exactly `n` octets (fewer only at the end of input), then the `\n#eot\n` trailer if
/// it follows.
fn octets(input: &mut dyn BufRead, n: u64, value: &mut Capped) -> Result<(), BinderError> {
    let mut left = n;
    while left > 0 {
        let buf = input.fill_buf().map_err(input_error)?;
        if buf.is_empty() {
            break;
        }
        let take = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        value.push(&buf[..take]);
        input.consume(take);
        left -= take as u64;
    }
    let buf = input.fill_buf().map_err(input_error)?;
    if buf.first() == Some(&b'\n') {
        input.consume(1);
        let buf = input.fill_buf().map_err(input_error)?;
        if buf.starts_with(b"#eot\n") {
            input.consume(5);
        } else if buf == b"#eot" {
            input.consume(4);
        }
    }
    Ok(())
}

fn input_error(e: std::io::Error) -> BinderError {
    BinderError::Store(format!("reading input: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn check(token: &str, input: &str, want: &str, rest: &str) {
        let mut r = std::io::Cursor::new(input.as_bytes().to_vec());
        let got = read(token, &mut r, None, None).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), want, "{token}");
        let mut left = String::new();
        r.read_to_string(&mut left).unwrap();
        assert_eq!(left, rest, "{token}: rest");
    }

    #[test]
    fn forms() {
        check("@", "a b\nc\n", "a b", "c\n");
        check("@-", "  b  \n\nnext\n", "  b  ", "next\n");
        check("@-", "c^0ad\ne\nf\n\n", "c^0ad\ne\nf", "");
        check("@--", "x\n\ny", "x\n\ny", "");
        // spec case 39
        check("@-10", "z\n\ny\n\nxuvw\n#eot\nz", "z\n\ny\n\nxuvw", "z");
        check("@-3", "abcdef", "abc", "def");
        check(
            "@------boundary-----",
            "a\nhere\n\n-----boundary-----\nnext\n",
            "a\nhere\n",
            "next\n",
        );
    }

    #[test]
    fn files_only_with_a_reader() {
        let mut r = std::io::empty();
        assert_eq!(
            read("@/etc/passwd", &mut r, None, None),
            Err(BinderError::Unauthorized)
        );
        let files = |p: &str| Ok(format!("contents of {p}").into_bytes());
        assert_eq!(
            read("@f", &mut r, Some(&files), None).unwrap(),
            b"contents of f".to_vec()
        );
    }

    /// A value over the limit is refused, and the rest of its token is read and
    /// dropped: what follows it is the next command, as if the value had fitted.
    #[test]
    fn values_over_the_limit() {
        let limited = |token: &str, input: &str| {
            let mut r = std::io::Cursor::new(input.as_bytes().to_vec());
            let got = read(token, &mut r, None, Some(4));
            let mut left = String::new();
            r.read_to_string(&mut left).unwrap();
            (got.map(|v| String::from_utf8(v).unwrap()), left)
        };
        let over = Err(BinderError::TooLarge(4));
        assert_eq!(limited("@", "abcd\nx"), (Ok("abcd".into()), "x".into()));
        assert_eq!(limited("@", "abcde\nx"), (over.clone(), "x".into()));
        assert_eq!(limited("@-", "ab\ncd\n\nx"), (over.clone(), "x".into()));
        assert_eq!(
            limited("@-", "a\nbc\n\nx"),
            (Ok("a\nbc".into()), "x".into())
        );
        assert_eq!(limited("@-E", "abcdefgh\nE\nx"), (over.clone(), "x".into()));
        assert_eq!(limited("@-5", "abcde\n#eot\nx"), (over.clone(), "x".into()));
        assert_eq!(
            limited("@-4", "abcd\n#eot\nx"),
            (Ok("abcd".into()), "x".into())
        );
        assert_eq!(limited("@--", "abcde"), (over, String::new()));
        assert_eq!(limited("@--", "abcd"), (Ok("abcd".into()), String::new()));
    }
}
