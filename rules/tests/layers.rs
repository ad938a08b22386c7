//! The rules are built in layers — vocabulary → position → mechanics → sequence → face — and
//! each layer may use only the layers below it (docs/architecture.md). This test reads every
//! source file of the crate and fails if any path reaches a higher layer, so an arrow back up
//! cannot creep in unnoticed.
//!
//! The scanner reads code, not lines: comments and literals are blanked first, `use` groups may
//! span lines and nest (`crate::{a::{b, c}, d::e}`), `super::` and `self::` paths are resolved
//! from the file's own module path, and names re-exported at the crate root (`crate::combat`,
//! `crate::Game`) are traced to the layer they come from. Test code may use anything: exactly
//! the item a `#[cfg(test)]` attribute applies to is skipped (a `mod tests { … }` block, an
//! `impl`, a `use`, a `mod x;` whose file is then skipped too), and the code after it is checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, lowest first.
const LAYERS: [&str; 5] = ["vocabulary", "position", "mechanics", "sequence", "face"];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

// --- Reading code -------------------------------------------------------------------------------

/// `text` with comments and the contents of string and char literals blanked to spaces
/// (newlines kept, so line numbers hold): braces and paths inside them are not code.
fn blank_comments_and_literals(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (i == 0 || !ident(c[i - 1]) || (c[i - 1] == 'b' && (i < 2 || !ident(c[i - 2]))))
            && matches!(next, Some('"') | Some('#'))
        {
            // A raw string r"…" or r#"…"#: it ends at a quote followed by as many hashes.
            let mut j = i + 1;
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            out.extend(std::iter::repeat_n(' ', j - i + 1));
            i = j + 1;
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    break;
                }
                out.push(blank(c[i]));
                i += 1;
            }
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && next == Some('\\') {
            // An escaped char literal: '\n', '\'', '\u{7b}'.
            let end = (i + 3..c.len())
                .find(|j| c[*j] == '\'')
                .unwrap_or(c.len() - 1);
            out.extend(std::iter::repeat_n(' ', end - i + 1));
            i = end + 1;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            // Anything else, a lifetime's quote included, is kept.
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of blanked code, each with its line number (from 1).
fn tokens(code: &str) -> Vec<(usize, Tok)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((line, Tok::Ident(c[start..i].iter().collect())));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((line, Tok::Sep));
            i += 2;
        } else {
            out.push((line, Tok::Punct(ch)));
            i += 1;
        }
    }
    out
}

fn is(tok: Option<&(usize, Tok)>, want: &Tok) -> bool {
    tok.is_some_and(|(_, t)| t == want)
}

fn ident(w: &str) -> Tok {
    Tok::Ident(w.to_string())
}

/// The index just past the bracketed group opening at `i` (`[…]`, `(…)`, `{…}`).
fn past_group(toks: &[(usize, Tok)], mut i: usize) -> usize {
    let mut depth = 0i32;
    while let Some((_, t)) = toks.get(i) {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth <= 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index just past the item starting at `i`: a `use` ends at its `;`; any other item at
/// its first `;` outside brackets or at the `}` closing its body.
fn past_item(toks: &[(usize, Tok)], mut i: usize) -> usize {
    // Further attributes on the same item.
    while is(toks.get(i), &Tok::Punct('#')) && is(toks.get(i + 1), &Tok::Punct('[')) {
        i = past_group(toks, i + 1);
    }
    let mut j = i;
    if is(toks.get(j), &ident("pub")) {
        j += 1;
        if is(toks.get(j), &Tok::Punct('(')) {
            j = past_group(toks, j);
        }
    }
    let is_use = is(toks.get(j), &ident("use"));
    while let Some((_, t)) = toks.get(i) {
        match t {
            Tok::Punct(';') => return i + 1,
            Tok::Punct('{') if !is_use => return past_group(toks, i),
            Tok::Punct('(' | '[' | '{') => i = past_group(toks, i),
            // The end of the enclosing block: the attribute had no item after it.
            Tok::Punct(')' | ']' | '}') => return i,
            _ => i += 1,
        }
    }
    i
}

/// Whether a `#[cfg(test)]` (or `#![cfg(test)]`) attribute starts at `i`; the index past it
/// and whether it is the inner form.
fn cfg_test_at(toks: &[(usize, Tok)], i: usize) -> Option<(usize, bool)> {
    if !is(toks.get(i), &Tok::Punct('#')) {
        return None;
    }
    let inner = is(toks.get(i + 1), &Tok::Punct('!'));
    let at = i + 1 + usize::from(inner);
    let want = [
        Tok::Punct('['),
        ident("cfg"),
        Tok::Punct('('),
        ident("test"),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    want.iter()
        .enumerate()
        .all(|(k, w)| is(toks.get(at + k), w))
        .then_some((at + want.len(), inner))
}

/// The engine code of a file: its tokens without the test code — each item a `#[cfg(test)]`
/// applies to, or the rest of the block holding a `#![cfg(test)]` — and the names of the
/// `mod x;` declarations so skipped, whose files are test code too.
fn engine_tokens(toks: &[(usize, Tok)]) -> (Vec<(usize, Tok)>, Vec<String>) {
    let mut out = Vec::new();
    let mut test_mods = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let Some((after, inner)) = cfg_test_at(toks, i) else {
            out.push(toks[i].clone());
            i += 1;
            continue;
        };
        if inner {
            // To the end of the enclosing block (or file).
            let mut depth = 0i32;
            i = after;
            while let Some((_, t)) = toks.get(i) {
                match t {
                    Tok::Punct('(' | '[' | '{') => depth += 1,
                    Tok::Punct(')' | ']' | '}') => depth -= 1,
                    _ => {}
                }
                if depth < 0 {
                    break;
                }
                i += 1;
            }
            continue;
        }
        let end = past_item(toks, after);
        let item: Vec<&Tok> = toks[after..end].iter().map(|(_, t)| t).collect();
        if let Some(at) = item.iter().position(|t| **t == ident("mod"))
            && let Some(Tok::Ident(name)) = item.get(at + 1)
            && item.get(at + 2) == Some(&&Tok::Punct(';'))
        {
            test_mods.push(name.clone());
        }
        i = end;
    }
    (out, test_mods)
}

/// Parse the path tree starting at `i` (`a::b`, `a::{b, c::{d}}`, `super::x`, `*`) from
/// the module path `base`, pushing each absolute path it names with the line it ends on.
/// Returns the index past the tree.
fn path_tree(
    toks: &[(usize, Tok)],
    mut i: usize,
    mut base: Vec<String>,
    out: &mut Vec<(usize, Vec<String>)>,
) -> usize {
    loop {
        let Some((line, tok)) = toks.get(i) else {
            return i;
        };
        match tok {
            Tok::Punct('{') => {
                i += 1;
                loop {
                    if is(toks.get(i), &Tok::Punct('}')) {
                        return i + 1;
                    }
                    i = path_tree(toks, i, base.clone(), out);
                    // Skip `as alias` up to the next element or the end of the group.
                    while let Some((_, t)) = toks.get(i) {
                        match t {
                            Tok::Punct(',' | '}') => break,
                            Tok::Punct('(' | '[' | '{') => i = past_group(toks, i),
                            _ => i += 1,
                        }
                    }
                    match toks.get(i) {
                        Some((_, Tok::Punct(','))) => i += 1,
                        Some(_) => return i + 1,
                        None => return i,
                    }
                }
            }
            Tok::Ident(w) => {
                match w.as_str() {
                    "crate" => base.clear(),
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => base.push(w.clone()),
                }
                if is(toks.get(i + 1), &Tok::Sep) {
                    i += 2;
                    continue;
                }
                out.push((*line, base));
                return i + 1;
            }
            _ => {
                out.push((*line, base));
                return i;
            }
        }
    }
}

/// Every path in the engine code of `text` that starts at `crate::`, `super::` or `self::`,
/// made absolute from `module` (the file's module path, e.g. `["sequence", "steps"]`), with
/// its line; and the `#[cfg(test)] mod x;` names of the file.
fn crate_paths(module: &[&str], text: &str) -> (Vec<(usize, Vec<String>)>, Vec<String>) {
    let all = tokens(&blank_comments_and_literals(text));
    let (toks, test_mods) = engine_tokens(&all);
    let mut out = Vec::new();
    // Inline modules (`mod inner { … }`) deepen the module path `super::` starts from.
    let mut inline: Vec<(String, i32)> = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].1 {
            Tok::Punct('{') => {
                depth += 1;
                if i >= 2
                    && is(toks.get(i - 2), &ident("mod"))
                    && let Tok::Ident(name) = &toks[i - 1].1
                {
                    inline.push((name.clone(), depth));
                }
            }
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            Tok::Ident(w)
                if matches!(w.as_str(), "crate" | "super" | "self")
                    && is(toks.get(i + 1), &Tok::Sep)
                    && (i == 0 || !is(toks.get(i - 1), &Tok::Sep)) =>
            {
                let base: Vec<String> = module
                    .iter()
                    .map(|m| m.to_string())
                    .chain(inline.iter().map(|(m, _)| m.clone()))
                    .collect();
                // Past the whole tree: a `super` inside its group is not a path of its own.
                i = path_tree(&toks, i, base, &mut out);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (out, test_mods)
}

// --- The crate's layout -------------------------------------------------------------------------

/// The layer each name at the crate root stands for: the layer folders themselves, their
/// modules (by folder) and every name `lib.rs` re-exports (`crate::combat`, `crate::Game`).
fn root_names(src: &Path) -> BTreeMap<String, usize> {
    let mut names = BTreeMap::new();
    for (i, layer) in LAYERS.iter().enumerate() {
        names.insert(layer.to_string(), i);
        for entry in std::fs::read_dir(src.join(layer)).expect("layer folder") {
            let name = entry
                .expect("entry")
                .file_name()
                .into_string()
                .expect("utf-8");
            if let Some(module) = name.strip_suffix(".rs")
                && module != "mod"
            {
                names.insert(module.to_string(), i);
            }
        }
    }
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    // The root's own `pub use a::b` paths are relative to the root: read them as `crate::a::b`.
    let (paths, _) = crate_paths(&[], &lib.replace("pub use ", "pub use crate::"));
    // A re-export may go through another (`pub use game::Game` after `pub use face::game`).
    for _ in 0..3 {
        for (_, path) in &paths {
            if let (Some(head), Some(last)) = (path.first(), path.last())
                && let Some(layer) = names.get(head).copied()
            {
                names.entry(last.clone()).or_insert(layer);
            }
        }
    }
    names
}

/// The layer an absolute path lands in, if it names one.
fn layer_of(path: &[String], names: &BTreeMap<String, usize>) -> Option<usize> {
    path.first().and_then(|head| names.get(head).copied())
}

/// The arrows back up in one file of layer `module[0]`: each path reaching a higher layer.
fn upward_arrows(module: &[&str], text: &str, names: &BTreeMap<String, usize>) -> Vec<String> {
    let own = rank(module[0]).expect("a layer folder");
    let (paths, _) = crate_paths(module, text);
    paths
        .into_iter()
        .filter_map(|(line, path)| {
            let target = layer_of(&path, names)?;
            (target > own).then(|| {
                format!(
                    "{line}: the {} layer uses crate::{} of the {} layer",
                    LAYERS[own],
                    path.join("::"),
                    LAYERS[target]
                )
            })
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src` (`sequence/steps.rs` → `sequence::steps`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_str().expect("utf-8").to_string())
        .collect();
    let last = parts.pop().expect("a file");
    let stem = last.strip_suffix(".rs").expect("a Rust file");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

#[test]
fn no_use_reaches_a_higher_layer() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let names = root_names(&src);
    let mut files = Vec::new();
    for layer in LAYERS {
        rust_files(&src.join(layer), &mut files);
    }
    files.sort();
    assert!(files.len() > 40, "the layer folders hold the engine");
    // Files declared `#[cfg(test)] mod x;` are test code.
    let mut test_files: Vec<PathBuf> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let dir = if file.file_name().is_some_and(|f| f == "mod.rs") {
            file.parent().expect("a folder").to_path_buf()
        } else {
            file.with_extension("")
        };
        for name in crate_paths(&[], &text).1 {
            test_files.push(dir.join(format!("{name}.rs")));
        }
    }
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in &files {
        if test_files.contains(file) {
            continue;
        }
        checked += 1;
        let rel = file.strip_prefix(&src).expect("under src");
        let module = module_path(rel);
        let module: Vec<&str> = module.iter().map(String::as_str).collect();
        let text = std::fs::read_to_string(file).expect("readable");
        for v in upward_arrows(&module, &text, &names) {
            violations.push(format!("{}:{v}", rel.display()));
        }
    }
    assert!(checked > 40, "only the test kit is skipped");
    assert!(
        violations.is_empty(),
        "arrows back up between layers:\n{}",
        violations.join("\n")
    );
}

// --- The scanner's own tests --------------------------------------------------------------------

fn names() -> BTreeMap<String, usize> {
    let mut names: BTreeMap<String, usize> = LAYERS
        .iter()
        .enumerate()
        .map(|(i, l)| (l.to_string(), i))
        .collect();
    names.insert("combat".into(), 2);
    names.insert("Game".into(), 4);
    names
}

fn heads(module: &[&str], text: &str) -> Vec<(usize, String)> {
    crate_paths(module, text)
        .0
        .into_iter()
        .map(|(line, p)| (line, p.join("::")))
        .collect()
}

#[test]
fn the_check_sees_an_arrow_back_up() {
    let arrows = upward_arrows(
        &["position", "state"],
        "use crate::face::game::Game;\nuse crate::{vocabulary::hex::Hex, sequence::phases};\nfn f() -> crate::Game { todo!() }\n",
        &names(),
    );
    assert_eq!(arrows.len(), 3, "{arrows:?}");
    assert!(arrows[0].starts_with("1: the position layer uses crate::face::game::Game"));
    assert!(arrows[1].starts_with("2: the position layer uses crate::sequence::phases"));
    assert!(arrows[2].starts_with("3: the position layer uses crate::Game of the face layer"));
}

#[test]
fn a_use_group_spanning_lines_is_read_whole() {
    // rustfmt writes long groups one element a line; the old scanner read only the first.
    let text = "use crate::{\n    vocabulary::hex::Hex,\n    mechanics::combat,\n    face::game::Game,\n};\n";
    assert_eq!(
        heads(&["position", "state"], text),
        [
            (2, "vocabulary::hex::Hex".to_string()),
            (3, "mechanics::combat".to_string()),
            (4, "face::game::Game".to_string()),
        ]
    );
    assert_eq!(
        upward_arrows(&["position", "state"], text, &names()).len(),
        2
    );
}

#[test]
fn nested_use_groups_name_every_leaf() {
    let text = "use crate::{position::{ctx::{Ctx, names}, state}, face::game::Game, self as x};";
    assert_eq!(
        heads(&["mechanics", "combat"], text)
            .into_iter()
            .map(|(_, p)| p)
            .collect::<Vec<_>>(),
        [
            "position::ctx::Ctx",
            "position::ctx::names",
            "position::state",
            "face::game::Game",
            "",
        ]
    );
}

#[test]
fn code_after_a_test_module_is_checked() {
    // The old scanner cut everything after the first `#[cfg(test)]`.
    let text = r#"
#[cfg(test)]
mod tests {
    use crate::face::testkit::Kit; // a test may use anything }
    fn f() { let s = "}"; let c = '}'; /* } */ }
}

use crate::face::game::Game;
"#;
    assert_eq!(
        heads(&["vocabulary", "map"], text),
        [(8, "face::game::Game".to_string())]
    );
    assert_eq!(
        upward_arrows(&["vocabulary", "map"], text, &names()).len(),
        1
    );
}

#[test]
fn a_test_attribute_on_one_item_skips_only_that_item() {
    let text = "#[cfg(test)]\nimpl Map {\n    fn open() { crate::face::x(); }\n}\n\
                #[cfg(test)]\n#[allow(unused)]\nuse crate::face::{a,\n    b};\n\
                #[cfg(test)]\npub(crate) mod testkit;\n\
                fn parse() { crate::face::y(); }\n";
    let (paths, test_mods) = crate_paths(&["vocabulary", "map"], text);
    let paths: Vec<String> = paths.into_iter().map(|(_, p)| p.join("::")).collect();
    assert_eq!(paths, ["face::y"]);
    assert_eq!(test_mods, ["testkit"]);
}

#[test]
fn super_paths_land_in_the_layer_they_reach() {
    // The old scanner ignored `super::`; `super::super::x` leaves the folder.
    let text = "use super::hex::Hex;\nuse super::super::face::game::Game;\nuse super::{super::mechanics::combat, map};\n";
    let module = ["vocabulary", "crt"];
    assert_eq!(
        heads(&module, text),
        [
            (1, "vocabulary::hex::Hex".to_string()),
            (2, "face::game::Game".to_string()),
            (3, "mechanics::combat".to_string()),
            (3, "vocabulary::map".to_string()),
        ]
    );
    assert_eq!(upward_arrows(&module, text, &names()).len(), 2);
    // From a folder's mod.rs `super::` is the crate root, whose `combat` is a mechanic.
    assert_eq!(
        upward_arrows(&["position"], "pub use super::combat;", &names()).len(),
        1
    );
    // Inside an inline module, `super::` is the file's own module.
    assert_eq!(
        heads(
            &["vocabulary", "crt"],
            "mod inner { use super::super::x; }\nuse super::y;"
        ),
        [
            (1, "vocabulary::x".to_string()),
            (2, "vocabulary::y".to_string())
        ]
    );
}

#[test]
fn comments_and_literals_are_not_code() {
    let text = "// use crate::face::a;\n/* crate::face::b /* nested */ crate::face::c */\n\
                let s = \"crate::face::d\"; let r = r#\"crate::face::\"e\"#; let c = '\\'';\n\
                fn f<'a>(x: &'a str) { crate::position::g(); }\n";
    assert_eq!(
        heads(&["vocabulary", "map"], text),
        [(4, "position::g".to_string())]
    );
}

#[test]
fn a_file_module_path_comes_from_its_place() {
    assert_eq!(
        module_path(Path::new("sequence/steps.rs")),
        ["sequence", "steps"]
    );
    assert_eq!(module_path(Path::new("sequence/mod.rs")), ["sequence"]);
}
