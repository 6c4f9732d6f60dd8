//! The module structure of ARCHITECTURE.md holds: no import cycle between
//! the crate's modules, neither between top-level modules (`store` and
//! `manifest`) nor between the files of one module (`install::plan` and
//! `install::project`). A cycle means a general helper or a shared type lives
//! inside one of the stages that use it; move it down to where it is produced
//! or into a leaf module.
//!
//! Edges are read from the source: every `crate::` path, `super::` path and
//! `use` group outside comments, string literals and `#[cfg(test)]` items,
//! in the whole of every file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `src/a/b.rs` and `src/a/b/mod.rs` are `["a", "b"]`; lib.rs and main.rs are the root.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments, without the contents of string and
/// character literals, and without the items marked `#[cfg(test)]`
/// (wherever they are in the file).
fn code_of(text: &str) -> String {
    let code = strip_literals_and_comments(text);
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        rest = &rest[i + "#[cfg(test)]".len()..];
        // The marked item ends at its first `;` outside braces, or at the
        // brace that closes its body.
        let mut depth = 0usize;
        let mut end = rest.len();
        for (j, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `text` with comments removed and every string and character literal
/// emptied (`"..."` becomes `""`), so that neither braces nor paths inside
/// them count. Raw strings (`r#"..."#`) included.
fn strip_literals_and_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some((open, hashes)) = raw_string_start(rest) {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = &rest[open..];
            i += open + body.find(&close).map_or(body.len(), |e| e + close.len());
            out.push_str("\"\"");
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if let Some(len) = char_literal(rest) {
            i += len;
            out.push_str("' '");
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of the opening of a raw string literal starting `text`
/// (`r#"`, `br"`) and its number of `#`s.
fn raw_string_start(text: &str) -> Option<(usize, usize)> {
    let rest = text.strip_prefix("br").or_else(|| text.strip_prefix('r'))?;
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let prefix = text.len() - rest.len();
    rest[hashes..]
        .starts_with('"')
        .then_some((prefix + hashes + 1, hashes))
}

/// The length of a character literal starting `text` (`'{'`, `'\\''`), not
/// a lifetime (`'a`).
fn char_literal(text: &str) -> Option<usize> {
    let body = text.strip_prefix('\'')?;
    let len = if let Some(escaped) = body.strip_prefix('\\') {
        escaped.get(1..)?.find('\'')? + 2
    } else {
        body.chars().next()?.len_utf8()
    };
    body[len..].starts_with('\'').then_some(len + 2)
}

/// The module paths named after each `prefix` (`crate::` or `super::`),
/// expanding `prefix{a, b::c}` groups one level deep.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `foo_crate::` or `self::super::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                out.push(segments(item.trim()));
            }
        } else {
            out.push(segments(rest));
        }
    }
    out
}

/// The lowercase identifier segments at the start of `text` (`store::Store`
/// gives `["store"]`: types end a module path).
fn segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for seg in text.split("::") {
        let ident: String = seg
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() || !ident.starts_with(|c: char| c.is_ascii_lowercase()) {
            break;
        }
        let whole = ident.len() == seg.len();
        out.push(ident);
        if !whole {
            break;
        }
    }
    out
}

/// Edges between modules cut at `depth` segments (1: `store`, 2: `install::plan`).
fn edges(depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let module = module_of(&src, &file);
        if module.is_empty() {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        let me = module[..module.len().min(depth)].join("::");
        let parent = &module[..module.len() - 1];
        let mut targets: Vec<Vec<String>> = paths_after(&code, "crate::");
        for path in paths_after(&code, "super::") {
            targets.push(parent.iter().cloned().chain(path).collect());
        }
        for target in targets {
            if target.is_empty() {
                continue;
            }
            let to = target[..target.len().min(depth)].join("::");
            // A module using its own child is not an edge between modules.
            if to != me && !me.starts_with(&format!("{to}::")) {
                graph.entry(me.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// One cycle in the graph, if there is any, as the modules along it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Active,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Active) => {
                let start = stack.iter().position(|n| n == node).unwrap();
                let mut cycle = stack[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Active);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn top_level_modules_import_each_other_without_cycles() {
    let graph = edges(1);
    assert!(graph.contains_key("store") && graph.contains_key("ops"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between modules: {}", cycle.join(" -> "));
    }
}

#[test]
fn files_within_a_module_import_each_other_without_cycles() {
    // Depth 2 (`ops::install`, `store::flush`) and 3 (`ops::install::plan`).
    for depth in [2, 3] {
        let graph = edges(depth);
        assert!(graph.contains_key("ops::install"));
        if let Some(cycle) = find_cycle(&graph) {
            panic!("import cycle between modules: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let mut graph = edges(1);
    // The leaf `fs` made to import `store`, which writes through `fs`.
    graph.entry("fs".into()).or_default().insert("store".into());
    let cycle = find_cycle(&graph).expect("fs -> store -> fs is a cycle");
    assert!(cycle.contains(&"fs".to_string()), "{cycle:?}");
}

/// Test items are skipped wherever they are, not only at the end, and the
/// code after them is read; braces and paths in literals do not count.
#[test]
fn the_whole_file_is_read_past_test_items_and_literals() {
    let code = code_of(concat!(
        "use crate::lock;\n",
        "#[cfg(test)]\nmod tests { fn f() { let s = \"}{ crate::store\"; let c = '}'; let q = '\\''; let n = '\\n'; } }\n",
        "#[cfg(test)]\nuse crate::ops::install;\n",
        "fn later<'a>(x: &'a str) { crate::manifest::read(r#\"crate::fetch \"}\"#); }\n",
    ));
    let found = paths_after(&code, "crate::");
    assert_eq!(
        found,
        vec![
            vec!["lock".to_string()],
            vec!["manifest".to_string(), "read".to_string()]
        ]
    );
}

#[test]
fn paths_are_read_from_groups_and_stop_at_types() {
    let code = code_of("use crate::{fs::atomic_write, lock};\nlet x = crate::store::Store::open(); // crate::manifest\n");
    let found = paths_after(&code, "crate::");
    assert_eq!(
        found,
        vec![
            vec!["fs".to_string(), "atomic_write".to_string()],
            vec!["lock".to_string()],
            vec!["store".to_string()],
        ]
    );
}
