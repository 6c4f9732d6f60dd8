//! Every RFC section cited in the sources and docs is listed, with its
//! title, in docs/specs.md, so a reader can follow any citation to the
//! specification and to where orla implements it.

use std::collections::BTreeSet;
use std::path::Path;

/// `RFC 3 7.1`, `RFC 3 section 7.1`, `RFC 3, section 5.3.1` in `text`, as
/// `RFC 3 7.1`. Only the Orla RFCs (1 to 3) are numbered this way.
fn citations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("RFC ") {
        rest = &rest[at + 4..];
        let Some(spec) = rest.chars().next().filter(|c| ('1'..='3').contains(c)) else {
            continue;
        };
        let after = rest[1..].trim_start_matches(',');
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            continue; // RFC 3339 and the like
        }
        let after = after.trim_start();
        let after = after.strip_prefix("section ").unwrap_or(after);
        let section: String = after
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let section = section.trim_end_matches('.');
        if !section.is_empty() {
            out.push(format!("RFC {spec} {section}"));
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_cited_rfc_section_is_listed_in_docs_specs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for dir in ["src", "runtime/src", "docs"] {
        walk(&root.join(dir), &mut files);
    }
    let specs = std::fs::read_to_string(root.join("docs/specs.md")).unwrap();
    let listed: BTreeSet<&str> = specs
        .lines()
        .filter_map(|line| line.strip_prefix("| RFC "))
        .filter_map(|line| line.split(" |").next())
        .collect();
    let mut missing = BTreeSet::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue; // binary fixtures
        };
        for cited in citations(&text) {
            if !listed.contains(&cited["RFC ".len()..]) {
                let rel = file.strip_prefix(root).unwrap().display().to_string();
                missing.insert(format!("{cited} (cited in {rel})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "add these to the 'Sections cited' table of docs/specs.md:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
    assert!(listed.len() > 20, "{listed:?}");
}

#[test]
fn citations_are_read_in_every_form_the_docs_use() {
    assert_eq!(
        citations("RFC 3 7.1, RFC 1 section 4.3. See RFC 2, section 6 and RFC 3339."),
        ["RFC 3 7.1", "RFC 1 4.3", "RFC 2 6"]
    );
}
