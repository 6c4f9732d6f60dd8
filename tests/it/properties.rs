//! Property tests: the parsers that read untrusted text (version
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
            prop_assert_eq!(again.ok(), Some(records));
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

/// Random archives, hostile by construction: names from an alphabet of
/// separators, dots, backslashes and reserved names; every entry type;
/// any mode. Whatever unpack does, nothing appears outside the destination,
/// and what it accepts is exactly what it reports: regular files and
/// directories only, modes 0644 or 0755, each file's digest as recorded.
mod archives {
    use super::*;
    use std::collections::BTreeMap;
    use std::os::unix::fs::PermissionsExt;

    use orla::unpack::{unpack, Limits};
    use orla::verify::Digest;

    #[derive(Debug, Clone)]
    struct RawEntry {
        name: Vec<u8>,
        kind: u8,
        mode: u32,
        data: Vec<u8>,
        link: Vec<u8>,
    }

    fn entry() -> impl Strategy<Value = RawEntry> {
        (
            prop_oneof![
                4 => "(\\./)?[a-d]{1,4}(/[a-d]{1,4}){0,2}/?".prop_map(String::into_bytes),
                3 => pieces(
                    &["a", "b", "/", ".", "..", "./", "../", "\\", "tool.yaml", ".orla-receipt.json", "C:", "é"],
                    6,
                )
                .prop_map(String::into_bytes),
                1 => prop::collection::vec(any::<u8>(), 0..20),
            ],
            prop::sample::select(
                &[b'0', b'0', b'0', b'0', b'0', b'0', b'5', b'5', b'1', b'2', b'3', b'4', b'6', b'7', b'S', b'x'][..]
            ),
            prop_oneof![Just(0o644u32), Just(0o755), Just(0o4755), Just(0o7777), any::<u32>()],
            prop::collection::vec(any::<u8>(), 0..64),
            prop_oneof![Just(Vec::new()), Just(b"/etc".to_vec()), Just(b"../..".to_vec())],
        )
            .prop_map(|(name, kind, mode, data, link)| RawEntry {
                name: name.into_iter().take(99).collect(),
                kind,
                mode,
                data,
                link,
            })
    }

    /// An ordinary file or directory with a plain name and any mode.
    fn benign_entry() -> impl Strategy<Value = RawEntry> {
        (
            "(\\./)?[a-f]{1,4}(/[a-f]{1,4}){0,2}",
            prop_oneof![4 => Just(b'0'), 1 => Just(b'5')],
            any::<u32>(),
            prop::collection::vec(any::<u8>(), 0..64),
        )
            .prop_map(|(name, kind, mode, data)| RawEntry {
                name: name.into_bytes(),
                kind,
                mode,
                data,
                link: Vec::new(),
            })
    }

    fn build(entries: &[RawEntry]) -> Vec<u8> {
        let mut out = Vec::new();
        for e in entries {
            let mut header = tar::Header::new_gnu();
            {
                let gnu = header.as_gnu_mut().unwrap();
                gnu.name[..e.name.len()].copy_from_slice(&e.name);
                gnu.linkname[..e.link.len()].copy_from_slice(&e.link);
            }
            header.set_entry_type(tar::EntryType::new(e.kind));
            header.set_mode(e.mode & 0o7777777);
            let data: &[u8] = if e.kind == b'0' || e.kind == b'x' {
                &e.data
            } else {
                &[]
            };
            header.set_size(data.len() as u64);
            header.set_cksum();
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(data);
            out.extend(std::iter::repeat_n(0u8, (512 - data.len() % 512) % 512));
        }
        out.extend(std::iter::repeat_n(0u8, 1024));
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, &out).unwrap();
        enc.finish().unwrap()
    }

    /// Every path under `dir`, with its metadata, links not followed.
    fn walk(dir: &Path, out: &mut Vec<(std::path::PathBuf, std::fs::Metadata)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let is_dir = meta.is_dir();
            out.push((e.path(), meta));
            if is_dir {
                walk(&e.path(), out);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn nothing_escapes_and_what_is_accepted_is_reported(
            benign in prop::collection::vec(benign_entry(), 0..6),
            hostile in prop_oneof![Just(Vec::new()), prop::collection::vec(entry(), 1..3)],
            at in any::<prop::sample::Index>(),
        ) {
            // Hostile entries anywhere among ordinary ones.
            let mut entries = benign;
            let i = at.index(entries.len() + 1);
            for (k, e) in hostile.into_iter().enumerate() {
                entries.insert(i + k, e);
            }
            let bytes = build(&entries);
            let tmp = tempfile::tempdir().unwrap();
            let dest = tmp.path().join("a/b/dest");
            std::fs::create_dir_all(&dest).unwrap();
            let limits = Limits { max_unpacked_bytes: 1 << 20, max_entries: 16 };
            let result = unpack(&bytes[..], &dest, limits);

            // Nothing beside the destination, at any level above it.
            for level in [tmp.path(), &tmp.path().join("a"), &tmp.path().join("a/b")] {
                let names: Vec<_> = std::fs::read_dir(level).unwrap().flatten().map(|e| e.file_name()).collect();
                prop_assert_eq!(names.len(), 1, "{:?} in {:?}", names, level);
            }
            let mut found = Vec::new();
            walk(&dest, &mut found);
            for (path, meta) in &found {
                prop_assert!(meta.is_dir() || meta.is_file(), "{:?} is neither file nor directory", path);
                if meta.is_file() {
                    let mode = meta.permissions().mode() & 0o7777;
                    prop_assert!(mode == 0o644 || mode == 0o755, "{:?} has mode {:o}", path, mode);
                }
            }
            if let Ok(unpacked) = result {
                prop_assert!(unpacked.root.starts_with(&dest));
                let mut on_disk = BTreeMap::new();
                let mut under_root = Vec::new();
                walk(&unpacked.root, &mut under_root);
                for (path, meta) in under_root.iter().filter(|(_, m)| m.is_file()) {
                    let rel = path.strip_prefix(&unpacked.root).unwrap().to_str().unwrap().to_string();
                    let bytes = std::fs::read(path).unwrap();
                    on_disk.insert(rel, (Digest::of(&bytes), meta.permissions().mode() & 0o111 != 0));
                }
                let reported: BTreeMap<_, _> = unpacked
                    .files
                    .iter()
                    .map(|(k, v)| (k.clone(), (v.blake3, v.executable)))
                    .collect();
                prop_assert_eq!(on_disk, reported);
            }
        }
    }
}
