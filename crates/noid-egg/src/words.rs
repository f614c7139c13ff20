//! The words of a `noid` command, split once here for the CLI's bulk mode (`noid -`,
//! one command per line) and its web mode (`noidu…` as a CGI, the command in
//! `QUERY_STRING`). Pure functions, so that the fuzz targets (`fuzz/`, built without
//! RocksDB) exercise the same code the binary runs. Both split through the egg
//! language's [`shell_split`], the one shell-style split.

use crate::token::shell_split;

/// The words of one bulk input line of Perl Noid's kind (without its line terminator;
/// egg lines are split by [`crate::token::split`]), with shell-style quoting. `Err` is the
/// complaint printed for a line that does not split (an unbalanced quote).
pub fn bulk_line(text: &str) -> Result<Vec<String>, String> {
    shell_split("command line", text).map_err(|why| format!("error: {why}"))
}

/// The words of a web query: `+` separates words (as in Perl Noid), shell-style
/// quoting applies, and `%`-escapes are decoded inside each word after the split, so
/// `%20` is a space within a value and `%2B` a literal plus; decoded bytes that are not
/// UTF-8 are read lossily. `Err` is the complaint for a query that does not split.
pub fn web_query(query: &str) -> Result<Vec<String>, String> {
    let line = query.replace('+', " ");
    let words = shell_split("query", &line).map_err(|why| format!("error: {why}"))?;
    Ok(words
        .iter()
        .map(|w| String::from_utf8_lossy(&noid_core::percent_decode(w)).into_owned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_lines() {
        assert_eq!(
            bulk_line("bind set 'a b' e \"x y\" a\\ b").unwrap(),
            ["bind", "set", "a b", "e", "x y", "a b"]
        );
        assert_eq!(bulk_line("").unwrap(), Vec::<String>::new());
        assert_eq!(
            bulk_line("note 'x").unwrap_err(),
            "error: cannot split command line (missing closing quote): note 'x"
        );
    }

    #[test]
    fn web_queries() {
        assert_eq!(
            web_query("bind+set+13030/x+e+a%20b%2Bc").unwrap(),
            ["bind", "set", "13030/x", "e", "a b+c"]
        );
        assert_eq!(web_query("get+'a+b'+e").unwrap(), ["get", "a b", "e"]);
        assert_eq!(web_query("get+%FF").unwrap(), ["get", "\u{FFFD}"]);
        assert_eq!(web_query("").unwrap(), Vec::<String>::new());
        assert_eq!(
            web_query("get+'x").unwrap_err(),
            "error: cannot split query (missing closing quote): get 'x"
        );
    }
}
