//! The fields of a query string or a form body (`application/x-www-form-urlencoded`),
//! decoded once, as the API's requests that take named fields read them (`search`,
//! `history`, `rewrite`, `links`).

/// Every field, in order (a name may come more than once).
pub struct Fields(Vec<(String, String)>);

impl Fields {
    /// The fields of `encoded` (not yet decoded).
    pub fn parse(encoded: &[u8]) -> Fields {
        Fields(form_urlencoded::parse(encoded).into_owned().collect())
    }

    /// The first value of `name`; `""` when it is not given.
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// Every value of `name` that is not empty, in order.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(n, v)| n == name && !v.is_empty())
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The first field whose name is not one of `known`.
    pub fn unknown(&self, known: &[&str]) -> Option<&str> {
        self.0
            .iter()
            .map(|(n, _)| n.as_str())
            .find(|n| !known.contains(n))
    }
}
