//! Splitting a command line into tokens, and the `:hx` family's hex decoding.
//!
//! EggNog splits a line shell-like only when it holds a quote or a backslash, and on
//! whitespace otherwise, so that an unquoted value keeps no surprises and a quoted one
//! keeps its inner spaces and tabs.

use crate::error::BinderError;

/// The tokens of `line`.
pub fn split(line: &str) -> Result<Vec<String>, BinderError> {
    if line.contains(['\'', '"', '\\']) {
        shell_split("command line", line).map_err(BinderError::refused)
    } else {
        Ok(line.split_ascii_whitespace().map(str::to_string).collect())
    }
}

/// The words of `line` split shell-style (quotes, backslashes, `#` comments), for egg
/// lines that quote and for noid's bulk lines and web queries ([`crate::words`]). `Err`
/// is the complaint `cannot split WHAT (why): LINE`, `what` naming the kind of line.
pub fn shell_split(what: &str, line: &str) -> Result<Vec<String>, String> {
    shell_words::split(line).map_err(|e| format!("cannot split {what} ({e}): {line}"))
}

/// `s` with every `Ehh` (`E` the escape character, `hh` two hex digits) replaced by the
/// byte it names; anything else is kept as it is.
pub fn hex_decode(s: &str, escape: u8) -> Vec<u8> {
    noid_core::marker_decode(s, escape).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_split_without_quotes() {
        assert_eq!(split("  a.set  b\tc  ").unwrap(), ["a.set", "b", "c"]);
    }

    #[test]
    fn shell_split_with_quotes() {
        // spec case 27
        assert_eq!(
            split(r#"j.set   "an elem  name" of\ shellwords\ \"for'   you'"#).unwrap(),
            ["j.set", "an elem  name", "of shellwords \"for   you"]
        );
    }

    #[test]
    fn hex_escapes() {
        assert_eq!(hex_decode("z^0aa^0af", b'^'), b"z\na\nf");
        assert_eq!(hex_decode("z^0aa%0af+20r", b'+'), b"z^0aa%0af r");
        assert_eq!(hex_decode("^4", b'^'), b"^4");
        assert_eq!(hex_decode("^zz^", b'^'), b"^zz^");
        assert_eq!(hex_decode("^40", b'^'), b"@");
    }
}
