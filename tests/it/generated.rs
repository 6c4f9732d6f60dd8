//! completions/ and man/ are generated from the clap definitions; this test
//! fails when they are stale. Regenerate with
//! `UPDATE_GENERATED=1 cargo test --test it generated::`.

use std::path::Path;

use orla::cli::generate;

fn check(path: &Path, expected: &[u8], stale: &mut Vec<String>) {
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, expected).unwrap();
    }
    if std::fs::read(path).ok().as_deref() != Some(expected) {
        stale.push(path.display().to_string());
    }
}

#[test]
fn completions_and_man_pages_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = Vec::new();
    for (shell, file) in generate::SHELLS {
        check(
            &root.join("completions").join(file),
            &generate::completion(shell),
            &mut stale,
        );
    }
    let pages = generate::man_pages();
    assert!(pages.iter().any(|(name, _)| name == "orla-install.1"));
    for (name, page) in &pages {
        check(&root.join("man").join(name), page, &mut stale);
    }
    // A page for a command that no longer exists is stale too.
    for entry in std::fs::read_dir(root.join("man")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !pages.iter().any(|(n, _)| *n == name) {
            stale.push(format!("man/{name} (no such command)"));
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files: {stale:?}; run UPDATE_GENERATED=1 cargo test --test it generated::"
    );
}
