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

use std::io::{BufRead, Read};

use crate::error::BinderError;

/// How `@FILE` tokens are read: the caller's file system, or nothing on the web.
pub type FileReader<'a> = &'a dyn Fn(&str) -> std::io::Result<Vec<u8>>;

/// The value of the indirect token `token` (starting `@`), read from `input`.
pub fn read(
    token: &str,
    input: &mut dyn BufRead,
    files: Option<FileReader<'_>>,
) -> Result<Vec<u8>, BinderError> {
    let spec = &token[1..];
    match spec {
        "" => Ok(line(input)?.unwrap_or_default()),
        "-" => until_line(input, |l| l.is_empty()),
        "--" => {
            let mut v = Vec::new();
            input.read_to_end(&mut v).map_err(input_error)?;
            Ok(v)
        }
        _ => {
            if let Some(rest) = spec.strip_prefix('-') {
                if rest.bytes().all(|c| c.is_ascii_digit()) {
                    let n: u64 = rest
                        .parse()
                        .map_err(|_| BinderError::refused(format!("bad octet count: {token}")))?;
                    return octets(input, n);
                }
                return until_line(input, |l| l == rest.as_bytes());
            }
            if spec.starts_with("http:") || spec.starts_with("https:") {
                return Err(BinderError::refused(format!(
                    "indirect token {token}: URLs are not supported"
                )));
            }
            let Some(files) = files else {
                return Err(BinderError::Unauthorized);
            };
            files(spec).map_err(|e| BinderError::refused(format!("{spec}: {e}")))
        }
    }
}

/// One line without its newline; `None` at the end of input.
fn line(input: &mut dyn BufRead) -> Result<Option<Vec<u8>>, BinderError> {
    let mut l = Vec::new();
    if input.read_until(b'\n', &mut l).map_err(input_error)? == 0 {
        return Ok(None);
    }
    if l.last() == Some(&b'\n') {
        l.pop();
    }
    Ok(Some(l))
}

/// Lines joined by newlines up to (not including) the first line for which `end` holds,
/// or to the end of input.
fn until_line(
    input: &mut dyn BufRead,
    end: impl Fn(&[u8]) -> bool,
) -> Result<Vec<u8>, BinderError> {
    let mut v = Vec::new();
    let mut first = true;
    while let Some(l) = line(input)? {
        if end(&l) {
            break;
        }
        if !first {
            v.push(b'\n');
        }
        first = false;
        v.extend_from_slice(&l);
    }
    Ok(v)
}

/// Exactly `n` octets (fewer only at the end of input), then the `\n#eot\n` trailer if
/// it follows.
fn octets(input: &mut dyn BufRead, n: u64) -> Result<Vec<u8>, BinderError> {
    let mut v = Vec::new();
    input.take(n).read_to_end(&mut v).map_err(input_error)?;
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
    Ok(v)
}

fn input_error(e: std::io::Error) -> BinderError {
    BinderError::Store(format!("reading input: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(token: &str, input: &str, want: &str, rest: &str) {
        let mut r = std::io::Cursor::new(input.as_bytes().to_vec());
        let got = read(token, &mut r, None).unwrap();
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
            read("@/etc/passwd", &mut r, None),
            Err(BinderError::Unauthorized)
        );
        let files = |p: &str| Ok(format!("contents of {p}").into_bytes());
        assert_eq!(
            read("@f", &mut r, Some(&files)).unwrap(),
            b"contents of f".to_vec()
        );
    }
}
