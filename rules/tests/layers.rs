//! The rules are built in layers — vocabulary → position → mechanics → sequence → face — and
//! each layer may use only the layers below it (docs/architecture.md). This test reads every
//! source file of the crate and fails if any path reaches a higher layer, so an arrow back up
//! cannot creep in unnoticed. Test modules (`#[cfg(test)]` to the end of a file) may use the
//! test kit and are not checked.

use std::path::{Path, PathBuf};

/// The layers, lowest first.
const LAYERS: [&str; 5] = ["vocabulary", "position", "mechanics", "sequence", "face"];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// The modules of each layer, read from its folder, for root re-exports (`crate::combat`).
fn modules_by_layer(src: &Path) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, layer) in LAYERS.iter().enumerate() {
        for entry in std::fs::read_dir(src.join(layer)).expect("layer folder") {
            let name = entry
                .expect("entry")
                .file_name()
                .into_string()
                .expect("utf-8");
            if let Some(module) = name.strip_suffix(".rs")
                && module != "mod"
            {
                out.push((module.to_string(), i));
            }
        }
    }
    out
}

/// Every `crate::x` path in the engine code of `text` (tests cut off), with its line number.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            if let Some(group) = tail.strip_prefix('{') {
                // `crate::{a::b, c::d}`: every element names its layer.
                let inner = group.split('}').next().unwrap_or("");
                for part in inner.split(',') {
                    let head = part.trim().split("::").next().unwrap_or("").to_string();
                    out.push((n + 1, head));
                }
            } else {
                let word: String = tail
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.push((n + 1, word));
            }
            rest = tail;
        }
    }
    out
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

#[test]
fn no_use_reaches_a_higher_layer() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules_by_layer(&src);
    let mut files = Vec::new();
    for layer in LAYERS {
        rust_files(&src.join(layer), &mut files);
    }
    assert!(files.len() > 40, "the layer folders hold the engine");
    let mut violations = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let own = rel.iter().next().and_then(|l| l.to_str()).and_then(rank);
        let own = own.expect("every file sits in a layer folder");
        let text = std::fs::read_to_string(file).expect("readable");
        for (line, head) in crate_paths(&text) {
            let target = rank(&head).or_else(|| {
                modules
                    .iter()
                    .find(|(m, _)| *m == head)
                    .map(|(_, layer)| *layer)
            });
            if let Some(target) = target
                && target > own
            {
                violations.push(format!(
                    "{}:{line}: the {} layer uses crate::{head} of the {} layer",
                    rel.display(),
                    LAYERS[own],
                    LAYERS[target]
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "arrows back up between layers:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_check_sees_an_arrow_back_up() {
    let paths = crate_paths(
        "use crate::face::game::Game;\nuse crate::{vocabulary::hex::Hex, sequence::phases};\n#[cfg(test)]\nuse crate::face::x;",
    );
    let heads: Vec<&str> = paths.iter().map(|(_, h)| h.as_str()).collect();
    assert_eq!(heads, ["face", "vocabulary", "sequence"]);
}
