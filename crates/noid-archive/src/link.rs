//! The `Link` header (RFC 8288) as TimeGates and mementos send it (RFC 7089 §2.2):
//! `<URI>; rel="memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT", <URI>; rel="original"`.
//! Quoted values may hold commas (dates do), so entries are split outside quotes and
//! angle brackets only.

/// One link: its target and its parameters (names lower-cased, values unquoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) uri: String,
    params: Vec<(String, String)>,
}

impl Link {
    /// The value of parameter `name`.
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether its `rel` names `relation` (`rel` holds relations separated by spaces:
    /// `"first memento"`).
    pub(crate) fn is(&self, relation: &str) -> bool {
        self.param("rel").is_some_and(|rel| {
            rel.split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case(relation))
        })
    }
}

/// The links of one or more `Link` header values; what cannot be read is skipped.
pub(crate) fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<Link> {
    values
        .into_iter()
        .flat_map(split)
        .filter_map(entry)
        .collect()
}

/// `value` cut at every comma outside quotes and `<…>`.
fn split(value: &str) -> Vec<&str> {
    let (mut parts, mut start, mut quoted, mut bracketed) = (Vec::new(), 0, false, false);
    let mut escaped = false;
    for (i, c) in value.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' if !bracketed => quoted = !quoted,
            '<' if !quoted => bracketed = true,
            '>' if !quoted => bracketed = false,
            ',' if !quoted && !bracketed => {
                parts.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&value[start..]);
    parts
}

/// One `<URI>; name="value"; …` entry.
fn entry(text: &str) -> Option<Link> {
    let text = text.trim().strip_prefix('<')?;
    let (uri, rest) = text.split_once('>')?;
    let mut params = Vec::new();
    for param in split_params(rest) {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            Some(quoted) => quoted.replace("\\\"", "\"").replace("\\\\", "\\"),
            None => value.to_string(),
        };
        params.push((name.trim().to_ascii_lowercase(), value));
    }
    Some(Link {
        uri: uri.trim().to_string(),
        params,
    })
}

/// The `;`-separated parameters after an entry's `<URI>`, cut outside quotes.
fn split_params(rest: &str) -> Vec<&str> {
    let (mut parts, mut start, mut quoted) = (Vec::new(), 0, false);
    for (i, c) in rest.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                parts.push(&rest[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&rest[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timegates_link_header_reads_as_rfc_7089_writes_it() {
        // RFC 7089 §4.1.1's example, on one line.
        let links = parse(["<http://a.example.org/>; rel=\"original\", \
             <http://arxiv.example.net/timemap/http://a.example.org/>; rel=\"timemap\"; \
             type=\"application/link-format\"; from=\"Tue, 15 Sep 2000 11:28:26 GMT\"; \
             until=\"Wed, 20 Jan 2010 09:34:33 GMT\", \
             <http://arxiv.example.net/web/20000620180259/http://a.example.org/>; \
             rel=\"first memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\""]);
        assert_eq!(links.len(), 3);
        assert!(links[0].is("original"));
        assert_eq!(links[0].uri, "http://a.example.org/");
        assert!(links[1].is("timemap"));
        assert_eq!(
            links[1].param("until"),
            Some("Wed, 20 Jan 2010 09:34:33 GMT")
        );
        assert!(links[2].is("memento") && links[2].is("first"));
        assert_eq!(
            links[2].param("datetime"),
            Some("Tue, 20 Jun 2000 18:02:59 GMT")
        );
        assert!(parse(["nonsense, <x>"])[0].params.is_empty());
        assert_eq!(parse(["nonsense"]), []);
    }
}
