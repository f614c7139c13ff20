//! The page a browser gets for an identifier nothing is bound under (`404`): it says
//! so, and offers the front page's resolve box holding what was asked for, to correct
//! a typing mistake. Other clients get the plain `unknown identifier` line.

use crate::layout::{self, escape};

/// The `404` page for `id` (empty when the request named none).
pub fn page(id: &str) -> String {
    let mut s = layout::start("Not found");
    s.push_str("<h1>Not found</h1>\n<p>Nothing is bound under ");
    if id.is_empty() {
        s.push_str("this identifier");
    } else {
        s.push_str("<code>");
        escape(&mut s, id);
        s.push_str("</code>");
    }
    s.push_str(
        " on this resolver. Check it for a typing mistake, or look up another \
         identifier:</p>\n",
    );
    crate::front::resolve_box(&mut s, id);
    layout::end(&mut s);
    s
}
