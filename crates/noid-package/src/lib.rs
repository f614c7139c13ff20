//! The Debian package of `noid` and `noidr`. Its Cargo.toml tells `cargo deb` (run by
//! scripts/package.sh) which files go where, and debian/ holds the maintainer scripts.
//!
//! This library makes the files that come from the programs' clap definitions: the man
//! pages (clap_mangen) and the bash, zsh and fish completions (clap_complete). They are
//! checked in under man/ and completions/, so that building the package needs no
//! generator step; each program's tests call [`check_generated`], which fails when a
//! checked-in file differs from what the program's definition makes now.

use std::path::{Path, PathBuf};

use clap::Command;
use clap_complete::Shell;
use clap_mangen::roff::{roman, Roff};

/// Set to 1 to rewrite the checked-in files instead of failing (after a change to a
/// program's options or help texts).
pub const BLESS_VAR: &str = "NOID_BLESS";

/// The files made from `cmd` (named after the program), as paths relative to this
/// crate's directory and their contents: the man page in `section`, then the
/// completions (bash-completion looks a command up by its bare name, zsh by `_name`).
pub fn generated(cmd: &Command, section: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let name = cmd.get_name().to_string();
    let mut files = vec![(
        PathBuf::from(format!("man/{name}.{section}")),
        man_page(cmd, section),
    )];
    for (shell, file) in [
        (Shell::Bash, name.clone()),
        (Shell::Zsh, format!("_{name}")),
        (Shell::Fish, format!("{name}.fish")),
    ] {
        let mut text = Vec::new();
        clap_complete::generate(shell, &mut cmd.clone(), &name, &mut text);
        files.push((Path::new("completions").join(file), text));
    }
    files
}

/// The man page: clap_mangen's sections from NAME to OPTIONS, then the command's
/// `after_long_help` as sections of their own. A paragraph that starts with a heading
/// ("Signals: ...", "Exit status: ...") opens a section of that name; other paragraphs
/// continue the section before them; indented lines (a list of commands) keep their
/// layout.
fn man_page(cmd: &Command, section: &str) -> Vec<u8> {
    let man = clap_mangen::Man::new(cmd.clone())
        .section(section)
        .manual("noid");
    let mut page = Vec::new();
    let mut roff = Roff::new();
    if let Some(text) = cmd.get_after_long_help().or(cmd.get_after_help()) {
        for paragraph in text.to_string().split("\n\n") {
            let body = match heading(paragraph) {
                Some((title, body)) => {
                    roff.control("SH", [title.to_uppercase().as_str()]);
                    body
                }
                None => {
                    roff.control("PP", []);
                    paragraph
                }
            };
            for line in body.lines() {
                if line.starts_with("  ") {
                    roff.control("nf", []).text([roman(line)]).control("fi", []);
                } else {
                    roff.text([roman(line)]);
                }
            }
        }
    }
    let rendered = man
        .render_title(&mut page)
        .and_then(|()| man.render_name_section(&mut page))
        .and_then(|()| man.render_synopsis_section(&mut page))
        .and_then(|()| man.render_description_section(&mut page))
        .and_then(|()| man.render_options_section(&mut page))
        .and_then(|()| roff.to_writer(&mut page))
        .and_then(|()| match cmd.get_version() {
            Some(_) => man.render_version_section(&mut page),
            None => Ok(()),
        });
    rendered.expect("rendering into a Vec cannot fail");
    page
}

/// `Some(("Exit status", "0 on success..."))` for a paragraph that starts with a
/// heading: a few capitalised words, a colon and a space.
fn heading(paragraph: &str) -> Option<(&str, &str)> {
    let (title, body) = paragraph.split_once(": ")?;
    let words = title.split(' ').count();
    let starts_upper = title.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    let plain = title.chars().all(|c| c.is_ascii_alphabetic() || c == ' ');
    (starts_upper && plain && words <= 3).then_some((title, body))
}

/// This crate's directory in the checkout being tested. `cargo test` sets
/// `CARGO_MANIFEST_DIR` at run time to the tested program's crate, a sibling of this one;
/// the value compiled in names the checkout that built this library, which a target
/// directory shared by several checkouts (CI's clones, a developer's tree) may have kept.
fn package_dir() -> std::path::PathBuf {
    match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(program) => Path::new(&program).join("../noid-package"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf(),
    }
}

/// Panics, naming the files, when the checked-in man page or completions of `cmd` differ
/// from [`generated`]; with `NOID_BLESS=1` it writes them instead.
pub fn check_generated(cmd: Command, section: &str) {
    let root = package_dir();
    let bless = std::env::var(BLESS_VAR).is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (path, content) in generated(&cmd, section) {
        let full = root.join(&path);
        if std::fs::read(&full).ok().as_deref() == Some(content.as_slice()) {
            continue;
        }
        if bless {
            std::fs::write(&full, &content)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", full.display()));
        } else {
            stale.push(full.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "out of date with the clap definition: {stale:?}; rewrite them with \
         {BLESS_VAR}=1 cargo test --release -p {}",
        std::env::var("CARGO_PKG_NAME").unwrap_or_default()
    );
}
