//! Embeds `registry-index/` (without the package sources under `packages/`)
//! into the binary as a sorted table of (path, bytes).

use std::fmt::Write;
use std::path::Path;

fn main() {
    // Read when the script runs, not baked in when it is compiled: a build
    // script binary can be reused for a checkout at another path.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest_dir).join("registry-index");
    println!("cargo:rerun-if-changed={}", root.display());
    // An empty table would build an orla whose default registry is broken
    // ("builtin has no config.json"): refuse to build instead.
    assert!(
        root.join("config.json").is_file(),
        "{} has no config.json: the built-in registry cannot be embedded",
        root.display()
    );
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    let mut out = String::from("/// Every file of the built-in index, sorted by path.\npub static FILES: &[(&str, &[u8])] = &[\n");
    for (rel, abs) in &files {
        writeln!(out, "    ({rel:?}, include_bytes!({abs:?})),").unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin_index.rs");
    std::fs::write(dest, out).unwrap();
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "packages" || rel.starts_with('.') || rel.ends_with(".md") {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, files);
        } else {
            println!("cargo:rerun-if-changed={}", path.display());
            files.push((rel, path.to_string_lossy().into_owned()));
        }
    }
}
