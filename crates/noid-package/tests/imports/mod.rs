//! The graph of a crate's files by their imports of each other, and its circles.
//!
//! The rule. A file imports another file of its crate when it names a path into it: a
//! `use` (`use crate::a::B`, `use super::x`, `use child::Y`), or a path in code, in a
//! type or in a macro's tokens (`crate::a::f(..)`, `super::X`). A path through a
//! re-export (`crate::Reply` where lib.rs says `pub use respond::Reply`) imports the file
//! that defines the name, not the one that re-exports it. A module's `mod x;` and its
//! re-exports of its own descendants (`pub use x::Y`) declare what the module is made
//! of; they are not imports, so a parent choosing its `pub use` surface forms no circle
//! with its children. Anything else a parent names in a child (`x::run()` in its code, a
//! private `use x::Y`) is an import, and so is every `super::` from a child to its parent.
//! Code compiled only for the crate's own tests (`#[cfg(test)]`) is left out: a test may
//! use anything of its crate. Files are found by following `mod` declarations from
//! `lib.rs` and `main.rs` (with `#[path]`), so a file no crate root declares is not in
//! the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module's path from its crate root (`[]` for the root, `["server", "conn"]`).
type ModPath = Vec<String>;

/// What a crate's files import of each other.
pub struct FileGraph {
    /// Every file of the crate, relative to its `src/`, each with the files it imports.
    pub imports: BTreeMap<String, BTreeSet<String>>,
}

/// One module (a file, or an inline `mod x { .. }` inside one).
#[derive(Default)]
struct Module {
    file: PathBuf,
    /// The names its `use` items bring in, each with the absolute path it stands for.
    aliases: BTreeMap<String, ModPath>,
}

/// A path a module names, to be resolved once every module is known.
struct Naming {
    from_file: PathBuf,
    from_module: ModPath,
    path: Vec<String>,
    /// A `pub use` (of any visibility but private): a re-export when it names a
    /// descendant of `from_module`.
    reexport: bool,
}

impl FileGraph {
    /// The file graph of the crate whose sources are in `src`.
    pub fn of_crate(src: &Path) -> FileGraph {
        let mut reader = Reader::default();
        for root in ["lib.rs", "main.rs"] {
            let file = src.join(root);
            if file.exists() {
                reader.read_file(&file, Vec::new(), src);
            }
        }
        let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let name = |file: &Path| file.strip_prefix(src).unwrap().display().to_string();
        for file in &reader.files {
            imports.entry(name(file)).or_default();
        }
        for naming in &reader.namings {
            let Some(path) = reader.absolute(&naming.from_module, &naming.path, 0) else {
                continue;
            };
            if naming.reexport && path.starts_with(&naming.from_module) {
                continue;
            }
            let Some(target) = reader.file_defining(path.clone(), 0) else {
                continue;
            };
            if target != naming.from_file {
                imports
                    .get_mut(&name(&naming.from_file))
                    .unwrap()
                    .insert(name(&target));
            }
        }
        FileGraph { imports }
    }

    /// The strongly connected sets of files (files that import each other, directly or
    /// through others) of at least `size` files, each sorted, by Tarjan's algorithm.
    pub fn circles(&self, size: usize) -> Vec<Vec<String>> {
        let names: Vec<&String> = self.imports.keys().collect();
        let index_of: BTreeMap<&String, usize> =
            names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let edges: Vec<Vec<usize>> = names
            .iter()
            .map(|n| self.imports[*n].iter().map(|t| index_of[t]).collect())
            .collect();
        let mut tarjan = Tarjan {
            edges: &edges,
            index: vec![None; names.len()],
            low: vec![0; names.len()],
            on_stack: vec![false; names.len()],
            stack: Vec::new(),
            next: 0,
            sets: Vec::new(),
        };
        for v in 0..names.len() {
            if tarjan.index[v].is_none() {
                tarjan.visit(v);
            }
        }
        let mut circles: Vec<Vec<String>> = tarjan
            .sets
            .into_iter()
            .filter(|set| set.len() >= size)
            .map(|set| {
                let mut files: Vec<String> = set.into_iter().map(|v| names[v].clone()).collect();
                files.sort();
                files
            })
            .collect();
        circles.sort();
        circles
    }
}

struct Tarjan<'a> {
    edges: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    sets: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.edges[v] {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(index) if self.on_stack[w] => self.low[v] = self.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut set = Vec::new();
            loop {
                let w = self.stack.pop().unwrap();
                self.on_stack[w] = false;
                set.push(w);
                if w == v {
                    break;
                }
            }
            self.sets.push(set);
        }
    }
}

#[derive(Default)]
struct Reader {
    files: Vec<PathBuf>,
    modules: BTreeMap<ModPath, Module>,
    namings: Vec<Naming>,
}

impl Reader {
    /// Reads the file of module `module`, whose child modules' files are under `dir`.
    fn read_file(&mut self, file: &Path, module: ModPath, dir: &Path) {
        let text = std::fs::read_to_string(file).unwrap();
        let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        self.files.push(file.to_path_buf());
        self.read_items(file, &module, dir, &syntax.items);
    }

    fn read_items(&mut self, file: &Path, module: &ModPath, dir: &Path, items: &[syn::Item]) {
        // A module declared twice under exclusive `cfg`s (`#[path]` stubs) keeps its
        // first file as the one its paths lead to.
        self.modules.entry(module.clone()).or_insert(Module {
            file: file.to_path_buf(),
            ..Module::default()
        });
        for item in items.iter().filter(|item| !only_for_tests(item)) {
            match item {
                syn::Item::Mod(m) => {
                    let mut child = module.clone();
                    child.push(m.ident.to_string());
                    let child_dir = dir.join(m.ident.to_string());
                    if let Some((_, items)) = &m.content {
                        self.read_items(file, &child, &child_dir, items);
                    } else if let Some(path) = path_attribute(&m.attrs) {
                        let child_file = file.parent().unwrap().join(path);
                        self.read_file(&child_file, child, &child_dir);
                    } else {
                        let flat = dir.join(format!("{}.rs", m.ident));
                        let child_file = if flat.exists() {
                            flat
                        } else {
                            child_dir.join("mod.rs")
                        };
                        self.read_file(&child_file, child, &child_dir);
                    }
                }
                syn::Item::Use(u) => {
                    let reexport = !matches!(u.vis, syn::Visibility::Inherited);
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, Vec::new(), &mut leaves);
                    for (path, name) in leaves {
                        if let Some(name) = name {
                            let aliases = &mut self.modules.get_mut(module).unwrap().aliases;
                            aliases.insert(name, path.clone());
                        }
                        self.namings.push(Naming {
                            from_file: file.to_path_buf(),
                            from_module: module.clone(),
                            path,
                            reexport,
                        });
                    }
                }
                other => {
                    let mut paths = Paths::default();
                    paths.visit_item(other);
                    for path in paths.found {
                        self.namings.push(Naming {
                            from_file: file.to_path_buf(),
                            from_module: module.clone(),
                            path,
                            reexport: false,
                        });
                    }
                }
            }
        }
    }

    /// `path` as named in `module`, made absolute; `None` when it leads out of the crate
    /// (std, another crate) or to something local that is no module.
    fn absolute(&self, module: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 8 {
            return None;
        }
        let mut at = module.clone();
        let mut rest = path;
        match rest.first()?.as_str() {
            "crate" => {
                at.clear();
                rest = &rest[1..];
            }
            "self" => rest = &rest[1..],
            "super" => {
                while rest.first().is_some_and(|s| s == "super") {
                    at.pop()?;
                    rest = &rest[1..];
                }
            }
            first => {
                let mut child = module.clone();
                child.push(first.to_string());
                // One word alone is no module (`write!` beside a child `write`).
                if path.len() > 1 && self.modules.contains_key(&child) {
                    // A child module named from its parent.
                } else if let Some(target) = self.modules[module].aliases.get(first) {
                    let mut whole = target.clone();
                    whole.extend(rest[1..].iter().cloned());
                    return self.absolute(module, &whole, depth + 1);
                } else {
                    return None;
                }
            }
        }
        at.extend(rest.iter().cloned());
        Some(at)
    }

    /// The file that defines what absolute `path` names, through re-exports; `None` when
    /// a re-export leads out of the crate (`crate::Answer` for `pub use
    /// noid_resolve::Answer`).
    fn file_defining(&self, path: ModPath, depth: usize) -> Option<PathBuf> {
        let mut module = path.clone();
        while !self.modules.contains_key(&module) {
            module.pop();
        }
        let found = &self.modules[&module];
        let alias = path
            .get(module.len())
            .and_then(|name| found.aliases.get(name));
        match alias {
            Some(target) if depth < 8 => {
                let mut whole = self.absolute(&module, target, 0)?;
                whole.extend(path[module.len() + 1..].iter().cloned());
                self.file_defining(whole, depth + 1)
            }
            _ => Some(found.file.clone()),
        }
    }
}

/// Whether an item is compiled only for the crate's own tests (`#[cfg(test)]`): a test
/// may use anything of its crate, so what it names forms no layer.
fn only_for_tests(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        _ => return false,
    };
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string() == "test")
    })
}

/// The `#[path = "…"]` of a `mod` declaration.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Each leaf of a `use` tree: the path it names and the name it brings in (none for a
/// glob or `_`).
fn use_leaves(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let with = |name: &syn::Ident| {
        let mut path = prefix.clone();
        if name != "self" {
            path.push(name.to_string());
        }
        path
    };
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, with(&p.ident), out),
        syn::UseTree::Name(n) => {
            let name = if n.ident == "self" {
                prefix.last().cloned()
            } else {
                Some(n.ident.to_string())
            };
            out.push((with(&n.ident), name));
        }
        syn::UseTree::Rename(r) => {
            let name = Some(r.rename.to_string()).filter(|n| n != "_");
            out.push((with(&r.ident), name));
        }
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                use_leaves(tree, prefix.clone(), out);
            }
        }
    }
}

/// The paths named in an item (code, types, patterns, macro tokens), inline modules
/// excepted (they are read as modules of their own). A one-word path (`Reply`) matters
/// when a `use` brought the word in.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.found
            .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Macro arguments are tokens: `a :: b :: c` once printed.
        let text = mac.tokens.to_string();
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let mut path = vec![words[i].to_string()];
            while i + 2 < words.len() && words[i + 1] == "::" && is_ident(words[i + 2]) {
                path.push(words[i + 2].to_string());
                i += 2;
            }
            if path.len() >= 2 && is_ident(&path[0]) {
                self.found.push(path);
            }
            i += 1;
        }
        syn::visit::visit_macro(self, mac);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        // A `use` inside a function: what it names is imported, whatever it is called.
        let mut leaves = Vec::new();
        use_leaves(&item.tree, Vec::new(), &mut leaves);
        self.found.extend(leaves.into_iter().map(|(path, _)| path));
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    /// `pub(super)`, `pub(in crate::a)`: who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

fn is_ident(word: &str) -> bool {
    word.chars().all(|c| c.is_alphanumeric() || c == '_')
        && word.chars().next().is_some_and(|c| !c.is_numeric())
}

/// The rule on a crate written for it: a circle of three files through `use`, a path in
/// code and `super::`; a parent that only declares and re-exports its children; a
/// re-export followed to the file that defines the name; test code left out.
#[test]
fn the_rule_of_an_import() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let files = [
        (
            "lib.rs",
            "mod a; mod b; mod c; mod d; mod p; pub use d::Thing;",
        ),
        ("a.rs", "use crate::b::B; pub struct A;"),
        ("b.rs", "pub struct B; pub fn f() { crate::c::g() }"),
        ("c.rs", "pub fn g() { let _ = super::a::A; }"),
        (
            "d.rs",
            "pub struct Thing; fn h() -> crate::Thing { Thing } \
             #[cfg(test)] mod tests { use crate::a::A; }",
        ),
        (
            "p/mod.rs",
            "mod q; mod r; mod write; pub use q::Q; pub(crate) use r::R; \
             fn w(f: &mut std::fmt::Formatter) -> std::fmt::Result { write!(f, \"\") }",
        ),
        ("p/write.rs", "pub struct W;"),
        ("p/q.rs", "pub struct Q;"),
        (
            "p/r.rs",
            "pub struct R(super::Q); fn s() { println!(\"{}\", crate::b::f()); }",
        ),
    ];
    for (name, text) in files {
        let path = src.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let graph = FileGraph::of_crate(src);
    let imports =
        |file: &str| -> Vec<&str> { graph.imports[file].iter().map(String::as_str).collect() };
    assert_eq!(imports("lib.rs"), Vec::<&str>::new());
    assert_eq!(imports("a.rs"), ["b.rs"]);
    assert_eq!(imports("b.rs"), ["c.rs"]);
    assert_eq!(imports("c.rs"), ["a.rs"]);
    assert_eq!(imports("d.rs"), Vec::<&str>::new());
    assert_eq!(imports("p/mod.rs"), Vec::<&str>::new());
    assert_eq!(imports("p/r.rs"), ["b.rs", "p/q.rs"]);
    assert_eq!(graph.circles(3), [["a.rs", "b.rs", "c.rs"]]);
    assert_eq!(graph.circles(4), Vec::<Vec<String>>::new());
}
