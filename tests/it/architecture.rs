//! The module structure of ARCHITECTURE.md holds: no import cycle between
//! the crate's modules, neither between top-level modules (`store` and
//! `manifest`) nor between the files of one module (`install::plan` and
//! `install::project`). A cycle means a general helper or a shared type lives
//! inside one of the stages that use it; move it down to where it is produced
//! or into a leaf module.
//!
//! Edges are read from the source: every `crate::` path, `super::` path and
//! `use` group outside comments and `#[cfg(test)]` modules.

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

/// The source without comments and without everything from the first
/// `#[cfg(test)]` on (test modules sit at the end of a file here).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            // `//` inside a string literal ("https://...") is not a comment,
            // but paths are never written after one on the same line.
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
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
    assert!(graph.contains_key("store") && graph.contains_key("install"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between modules: {}", cycle.join(" -> "));
    }
}

#[test]
fn files_within_a_module_import_each_other_without_cycles() {
    let graph = edges(2);
    assert!(graph.contains_key("install::project"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between modules: {}", cycle.join(" -> "));
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
