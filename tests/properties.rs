//! Property tests (issue 6): the parsers that read untrusted text (version
//! specs, tool.yaml, index records) and the path checks that keep archives
//! and names inside their directories. Arbitrary input never panics, and
//! what is accepted round-trips and stays inside its directory.

use std::path::{Component, Path};

use orla::index::{shard_path, VersionRecord};
use orla::package::{names, validate, ToolYaml};
use orla::resolve::{parse_requirement, Requirement, Spec};
use orla::unpack::safe_path;
use proptest::prelude::*;

/// Text made mostly of the pieces that matter to each parser, so the
/// interesting corners are reached more often than by uniform noise.
fn pieces(parts: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(parts), 0..max).prop_map(|v| v.concat())
}

fn spec_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        pieces(
            &[
                "fs-read", "a", "0", "x.y", "_", "-", "A", "@", "@@", "1", "2", ".", "..", "v",
                "^", "~", "=", ">=", "<", ",", " ", "*", "x", "-rc.1", "+b", "latest", "/",
                "\\", "é", "\0",
            ],
            12,
        ),
        (
            "[a-z0-9][a-z0-9._-]{0,10}",
            "(v?[0-9]{1,3}(\\.[0-9]{1,3}){0,2}(-[a-z0-9.]{1,6})?|[\\^~=<>]{0,2}[0-9]{1,2}(\\.[0-9x*]{1,2}){0,2}|latest)"
        )
            .prop_map(|(n, v)| format!("{n}@{v}")),
    ]
}

fn path_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        any::<Vec<u8>>(),
        pieces(
            &[
                "a",
                "b",
                "/",
                "//",
                ".",
                "..",
                "./",
                "../",
                "\\",
                "C:",
                "c:",
                "\0",
                "é",
                ".orla-receipt.json",
                "tool.yaml",
                " ",
                "~",
            ],
            10,
        )
        .prop_map(String::into_bytes),
    ]
}

fn version_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "v?[0-9]{1,4}\\.[0-9]{1,4}\\.[0-9]{1,4}(-[a-zA-Z0-9.-]{1,8})?(\\+[a-zA-Z0-9.-]{1,8})?",
        pieces(&["1", "0", "01", ".", "-", "+", "/", "..", "a", "\\"], 10),
    ]
}

/// A path judged lexically: does it stay below the directory it is joined to?
fn stays_inside(path: &Path) -> bool {
    let mut depth = 0i32;
    for c in path.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn spec_parser_never_panics_and_round_trips(text in spec_text()) {
        if let Ok(spec) = Spec::parse(&text) {
            prop_assert!(names::validate_name(&spec.name).is_ok());
            let again = Spec::parse(&spec.to_string());
            prop_assert_eq!(again.as_ref(), Ok(&spec), "{} -> {}", text, spec);
            match &spec.requirement {
                Requirement::Exact(v) => {
                    prop_assert_eq!(&v.to_string().parse::<semver::Version>().unwrap(), v);
                }
                Requirement::Range(r) => {
                    prop_assert_eq!(&semver::VersionReq::parse(&r.to_string()).unwrap(), r);
                }
                Requirement::Latest => {}
            }
        }
    }

    #[test]
    fn requirement_parser_never_panics(text in any::<String>()) {
        let _ = parse_requirement(&text);
    }

    #[test]
    fn tool_yaml_parser_never_panics_and_round_trips(text in prop_oneof![
        any::<String>(),
        pieces(&[
            "name: ", "version: ", "description: ", "entrypoint: ", "permissions:\n", "  - ",
            "runtime:\n", "  mode: ", "capsule", "simple", "  retry:\n", "    max_attempts: ",
            "mcp:\n", "  input_schema:\n", "    path: string\n", "risk_level: ", "high", "x: ",
            "fs-read", "1.0.0", "../x", "/bin/sh", "\n", "- ", "[", "]", "{", "}", ": ", "'",
            "\"", "0", "-1", "1e400", ".nan", "~", "null", "yes", "&a ", "*a", "!!str ", "é",
        ], 24),
    ]) {
        if let Ok(tool) = ToolYaml::parse(&text, "tool.yaml") {
            // Validation of anything that parses never panics either.
            let _ = validate::validate(&tool, None);
            let _ = tool.risk();
            let yaml = tool.to_yaml();
            let again = ToolYaml::parse(&yaml, "tool.yaml");
            prop_assert!(again.is_ok(), "{:?} re-serialised as {:?}", text, yaml);
            prop_assert_eq!(again.unwrap(), tool);
        }
    }

    #[test]
    fn index_record_parser_never_panics_and_round_trips(
        bytes in prop_oneof![
            any::<Vec<u8>>(),
            (
                prop::sample::select(&["t", "u", "../t", "T", ""][..]),
                version_text(),
                prop_oneof![3 => "[0-9a-f]{64}", 1 => "[0-9a-fA-F]{0,66}"],
                prop_oneof![Just("1".to_string()), Just("-1".to_string()), "[0-9]{1,21}"],
                prop::option::of(prop::sample::select(&[
                    "archives/t.tar.gz", "../x", "/etc/passwd", "file:///x", "https://h/x",
                ][..])),
                any::<bool>(),
                1..4usize,
            )
                .prop_map(|(name, version, blake3, size, archive, yanked, lines)| {
                    let archive = archive
                        .map(|a| format!(r#","archive":"{a}""#))
                        .unwrap_or_default();
                    let line = format!(
                        r#"{{"name":"{name}","version":"{}","blake3":"{blake3}","size":{size}{archive},"yanked":{yanked}}}"#,
                        version.escape_default()
                    );
                    vec![line; lines].join("\n").into_bytes()
                }),
        ]
    ) {
        if let Ok(records) = VersionRecord::parse_file(&bytes, "t") {
            for r in &records {
                prop_assert_eq!(&r.name, "t");
                // A version is a safe path component.
                let v = r.version.to_string();
                prop_assert_eq!(Path::new(&v).components().count(), 1);
            }
            let text: String = records.iter().map(|r| r.to_line() + "\n").collect();
            let again = VersionRecord::parse_file(text.as_bytes(), "t");
            prop_assert_eq!(again, Ok(records));
        }
    }

    #[test]
    fn safe_path_output_never_leaves_the_destination(raw in path_bytes()) {
        if let Ok(p) = safe_path(&raw) {
            prop_assert!(!p.starts_with('/'));
            prop_assert!(!p.contains('\\') && !p.contains('\0'));
            prop_assert!(!p.contains("//"));
            for c in Path::new(&p).components() {
                prop_assert!(matches!(c, Component::Normal(_)), "{:?} in {:?}", c, p);
            }
            for part in p.split('/').filter(|s| !s.is_empty()) {
                prop_assert!(part != "." && part != "..");
                prop_assert!(part != ".orla-receipt.json");
            }
            // Normalising is idempotent: the checked form is accepted as is.
            prop_assert_eq!(safe_path(p.as_bytes()).ok(), Some(p.clone()));
            let base = Path::new("/staging/dest");
            prop_assert!(base.join(&p).starts_with(base));
        }
    }

    #[test]
    fn escapes_agrees_with_a_lexical_check(text in prop_oneof![
        any::<String>(),
        pieces(&["a", "/", ".", "..", "./", "../", "b/", "\\", "~"], 10),
    ]) {
        let escapes = validate::escapes(&text);
        if !escapes {
            prop_assert!(stays_inside(Path::new(&text)), "{:?}", text);
            prop_assert!(Path::new("/pkg").join(&text).starts_with("/pkg"));
        }
        if text.starts_with('/') || text.split('/').any(|c| c == "..") {
            prop_assert!(escapes, "{:?}", text);
        }
    }

    #[test]
    fn names_and_versions_cannot_form_paths(
        name in prop_oneof![
            any::<String>(),
            "[a-z0-9._/\\\\-]{0,70}",
            pieces(&["a", ".", "..", "/", "-", "_", "0"], 8),
        ],
        version in version_text(),
    ) {
        if names::validate_name(&name).is_ok() {
            prop_assert!(!name.is_empty() && name.len() <= names::MAX_NAME_LEN);
            prop_assert!(name != "." && name != "..");
            prop_assert!(!name.contains('/') && !name.contains('\\'));
            let parts: Vec<_> = Path::new(&name).components().collect();
            prop_assert_eq!(parts, vec![Component::Normal(name.as_ref())]);
            // The sharded index path of a valid name stays in the index.
            let shard = shard_path(&name);
            let suffix = format!("/{}", name);
            prop_assert!(shard.ends_with(&suffix), "{:?}", shard);
            for c in Path::new(&shard).components() {
                prop_assert!(matches!(c, Component::Normal(_)), "{:?}", shard);
            }
            prop_assert!(shard.split('/').all(|p| p != "." && p != ".."), "{:?}", shard);
        }
        if let Ok(v) = names::parse_version(&version) {
            prop_assert_eq!(v.to_string(), version.clone());
            prop_assert!(!version.contains('/') && !version.contains('\\'));
            prop_assert_eq!(Path::new(&version).components().count(), 1);
            prop_assert!(version != "." && version != "..");
        }
    }
}
