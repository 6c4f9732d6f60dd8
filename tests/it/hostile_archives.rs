//! The hostile-archive corpus (ARCHITECTURE.md, invariant 2). Every archive
//! is built here, byte by byte, and served over real HTTP with an honest
//! record (the digest matches), so only unpacking and validation stand
//! between it and the disk. Each must be refused with a clear error, exit 1,
//! and leave ORLA_HOME and the download cache exactly as they were.

use crate::common;

use std::io::Write;
use std::path::Path;

use common::archive::{self, Entry};
use common::server::{Behaviour, Server};
use common::{snapshot, IndexBuilder, PackageBuilder, TestContext};
use flate2::{write::GzEncoder, Compression};

/// One raw tar header plus data, for the entry types `archive::Entry` lacks.
fn raw(path: &[u8], kind: tar::EntryType, data: &[u8], mode: u32, link: &[u8]) -> Vec<u8> {
    let mut header = tar::Header::new_gnu();
    {
        let gnu = header.as_gnu_mut().unwrap();
        gnu.name[..path.len()].copy_from_slice(path);
        gnu.linkname[..link.len()].copy_from_slice(link);
    }
    header.set_entry_type(kind);
    header.set_mode(mode);
    header.set_size(data.len() as u64);
    header.set_mtime(0);
    header.set_cksum();
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(data);
    out.extend(std::iter::repeat_n(0u8, (512 - data.len() % 512) % 512));
    out
}

/// A valid package's tar entries followed by `extra` raw bytes, gzipped.
fn package_then(extra: &[u8]) -> Vec<u8> {
    let mut tar = archive::tar(&archive::package("", "evil", "1.0.0"));
    tar.truncate(tar.len() - 1024); // drop the end-of-archive blocks
    tar.extend_from_slice(extra);
    tar.extend(std::iter::repeat_n(0u8, 1024));
    archive::gzip(&tar)
}

fn with_package(mut extra: Vec<Entry>) -> Vec<u8> {
    let mut entries = archive::package("", "evil", "1.0.0");
    entries.append(&mut extra);
    archive::targz(&entries)
}

/// A pax extended header (`x`) carrying `key=value`, applied to the next entry.
fn pax(key: &str, value: &str) -> Vec<u8> {
    let body = |len: usize| format!("{len} {key}={value}\n");
    let mut len = body(0).len();
    while body(len).len() != len {
        len = body(len).len();
    }
    raw(
        b"././@PaxHeader",
        tar::EntryType::XHeader,
        body(len).as_bytes(),
        0o644,
        b"",
    )
}

/// A gzip tar holding one entry that declares `size` bytes of zeros and
/// really carries them: a small download, a huge expansion.
fn bomb(size: u64) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    let mut tar = archive::tar(&archive::package("", "evil", "1.0.0"));
    tar.truncate(tar.len() - 1024);
    enc.write_all(&tar).unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_path("zeros").unwrap();
    header.set_size(size);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_cksum();
    enc.write_all(header.as_bytes()).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        enc.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
    enc.write_all(&[0u8; 1024]).unwrap();
    enc.finish().unwrap()
}

/// A root with one tool installed and one archive in the download cache,
/// and an index whose record for `evil 1.0.0` honestly describes `bytes`,
/// served by `server`.
struct Setup {
    t: TestContext,
    index: IndexBuilder,
}

fn setup(server: &Server, case: &str, bytes: &[u8]) -> Setup {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    // A good HTTP install first, so the cache is not empty.
    index.publish(&PackageBuilder::new("good", "1.0.0"));
    let good = std::fs::read(index.root.join("archives/good/good-1.0.0.tar.gz")).unwrap();
    let good_path = format!("/{case}/good.tar.gz");
    server.route(&good_path, Behaviour::Serve(good));
    let good_url = server.url(&good_path);
    index.edit_records("good", |r| r.archive = Some(good_url.clone()));
    t.run(&["install", "good", "--registry", &index.location()])
        .success();

    let path = format!("/{case}/evil.tar.gz");
    server.route(&path, Behaviour::Serve(bytes.to_vec()));
    index.publish_bytes(
        &PackageBuilder::new("evil", "1.0.0"),
        bytes,
        "archives/evil/evil-1.0.0.tar.gz",
    );
    let url = server.url(&path);
    index.edit_records("evil", |r| r.archive = Some(url.clone()));
    Setup { t, index }
}

/// Installs the hostile archive and checks the refusal left no trace.
#[track_caller]
fn assert_refused(server: &Server, case: &str, bytes: &[u8], message: &str) {
    let Setup { t, index } = setup(server, case, bytes);
    let before = (snapshot(&t.home), snapshot(&t.cache));
    assert!(
        before.1.keys().any(|k| k.starts_with("unpacked/")),
        "{case}"
    );
    let run = t.run(&["install", "evil", "--yes", "--registry", &index.location()]);
    run.failure(1).stderr_has(message);
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{case}: one error line\n{}", run.stderr);
    assert!(
        errors[0].contains(message) || message.starts_with("error:"),
        "{case}: the error line names the problem\n{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains(['\x1b', '\r']),
        "{case}: raw control characters in\n{:?}",
        run.stderr
    );
    let after = (snapshot(&t.home), snapshot(&t.cache));
    assert_eq!(after.0, before.0, "{case}: ORLA_HOME changed");
    assert_eq!(after.1, before.1, "{case}: the cache changed");
    for escaped in ["escaped", "index/escaped", "cwd/escaped"] {
        assert!(!t.dir.path().join(escaped).exists(), "{case}: {escaped}");
    }
    assert_eq!(
        t.list(),
        [("good".to_string(), "1.0.0".to_string())],
        "{case}"
    );
}

#[test]
fn path_traversal_is_refused() {
    let server = Server::start();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "dotdot",
            with_package(vec![archive::file("../../escaped", "x")]),
            "climbs out of the package with '..'",
        ),
        (
            "dotdot-inside",
            with_package(vec![archive::file("bin/../../../escaped", "x")]),
            "climbs out of the package with '..'",
        ),
        (
            "dotdot-dir",
            with_package(vec![Entry::Dir {
                path: b"../escaped".to_vec(),
            }]),
            "climbs out of the package with '..'",
        ),
        (
            "absolute",
            with_package(vec![archive::file("/tmp/orla-hostile-absolute", "x")]),
            "is an absolute path",
        ),
        (
            "backslash",
            with_package(vec![archive::file("..\\..\\escaped", "x")]),
            "contains a backslash",
        ),
        (
            "pax-path",
            package_then(
                &[
                    pax("path", "../../escaped"),
                    raw(b"harmless", tar::EntryType::Regular, b"x", 0o644, b""),
                ]
                .concat(),
            ),
            "climbs out of the package with '..'",
        ),
        (
            "gnu-long-name",
            package_then(
                &[
                    raw(
                        b"././@LongLink",
                        tar::EntryType::GNULongName,
                        format!("{}/../../../escaped\0", "d".repeat(120)).as_bytes(),
                        0o644,
                        b"",
                    ),
                    raw(b"harmless", tar::EntryType::Regular, b"x", 0o644, b""),
                ]
                .concat(),
            ),
            "climbs out of the package with '..'",
        ),
        (
            "receipt-spoof",
            with_package(vec![archive::file(".orla-receipt.json", "{}")]),
            "reserves for its install receipt",
        ),
        (
            "non-utf8",
            package_then(&raw(
                b"bin/\xff\xfe",
                tar::EntryType::Regular,
                b"x",
                0o644,
                b"",
            )),
            "is not valid UTF-8",
        ),
        (
            // Shown in the error, the name would clear the line and print
            // a fake success over it.
            "control-characters",
            package_then(&raw(
                b"bin/\x1b[2K\r   Installed evil",
                tar::EntryType::Regular,
                b"x",
                0o644,
                b"",
            )),
            "contains a control character",
        ),
    ];
    for (case, bytes, message) in cases {
        assert_refused(&server, case, &bytes, message);
    }
    assert!(!Path::new("/tmp/orla-hostile-absolute").exists());
}

#[test]
fn links_devices_and_fifos_are_refused() {
    let server = Server::start();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            // The classic: a symlink to /etc, then a file written through it.
            "symlink-then-write",
            with_package(vec![
                Entry::Symlink {
                    path: b"etc".to_vec(),
                    target: b"/etc".to_vec(),
                },
                archive::file("etc/orla-hostile", "owned"),
            ]),
            "is a symbolic link",
        ),
        (
            "symlink-relative-out",
            with_package(vec![Entry::Symlink {
                path: b"up".to_vec(),
                target: b"../../..".to_vec(),
            }]),
            "is a symbolic link",
        ),
        (
            "symlink-entrypoint",
            archive::targz(&[
                archive::file(
                    "tool.yaml",
                    "name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\n",
                ),
                Entry::Symlink {
                    path: b"bin/run".to_vec(),
                    target: b"/bin/sh".to_vec(),
                },
            ]),
            "is a symbolic link",
        ),
        (
            "hardlink-outside",
            with_package(vec![Entry::Hardlink {
                path: b"passwd".to_vec(),
                target: b"/etc/passwd".to_vec(),
            }]),
            "is a hard link",
        ),
        (
            "hardlink-inside",
            with_package(vec![Entry::Hardlink {
                path: b"copy".to_vec(),
                target: b"tool.yaml".to_vec(),
            }]),
            "is a hard link",
        ),
        (
            "char-device",
            with_package(vec![Entry::CharDevice {
                path: b"null".to_vec(),
            }]),
            "is a character device",
        ),
        (
            "block-device",
            package_then(&raw(b"disk", tar::EntryType::Block, b"", 0o644, b"")),
            "is a block device",
        ),
        (
            "fifo",
            with_package(vec![Entry::Fifo {
                path: b"pipe".to_vec(),
            }]),
            "is a fifo",
        ),
        (
            "sparse",
            // tar rejects the malformed sparse map before orla sees the type.
            package_then(&raw(b"holes", tar::EntryType::GNUSparse, b"", 0o644, b"")),
            "evil 1.0.0: the archive",
        ),
    ];
    for (case, bytes, message) in cases {
        assert_refused(&server, case, &bytes, message);
    }
    assert!(!Path::new("/etc/orla-hostile").exists());
}

#[test]
fn duplicate_entries_are_refused() {
    let server = Server::start();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "same-path",
            with_package(vec![archive::exe("bin/run", "#!/bin/sh\necho evil\n")]),
            "holds 'bin/run' twice",
        ),
        (
            "normalised-path",
            with_package(vec![archive::exe("./bin//run", "#!/bin/sh\necho evil\n")]),
            "holds 'bin/run' twice",
        ),
        (
            "tool-yaml-swapped",
            with_package(vec![archive::file(
                "tool.yaml",
                "name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: /bin/sh\n",
            )]),
            "holds 'tool.yaml' twice",
        ),
        (
            "file-then-dir",
            with_package(vec![Entry::Dir {
                path: b"bin/run/".to_vec(),
            }]),
            "holds 'bin/run' twice",
        ),
    ];
    for (case, bytes, message) in cases {
        assert_refused(&server, case, &bytes, message);
    }
}

#[test]
fn broken_and_non_gzip_archives_are_refused() {
    let server = Server::start();
    let good = archive::targz(&archive::package("", "evil", "1.0.0"));
    let plain_tar = archive::tar(&archive::package("", "evil", "1.0.0"));
    let mut cut_tar = archive::tar(&archive::package("", "evil", "1.0.0"));
    cut_tar.truncate(700); // mid-way through the first file's data
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated-gzip",
            good[..good.len() / 2].to_vec(),
            "is not a valid gzip tar",
        ),
        (
            "truncated-tar",
            archive::gzip(&cut_tar),
            "is not a valid gzip tar",
        ),
        ("plain-tar", plain_tar, "is not a valid gzip tar"),
        (
            "zip",
            b"PK\x03\x04\x14\x00\x00\x00\x08\x00junk".to_vec(),
            "is not a valid gzip tar",
        ),
        (
            "garbage",
            (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect(),
            "is not a valid gzip tar",
        ),
        (
            // A second gzip member holding another tar: `gzip -d` reads it,
            // orla's decoder would not, so the archive is refused.
            "second-gzip-member",
            [
                good.clone(),
                archive::targz(&[archive::exe("bin/extra", "#!/bin/sh\n")]),
            ]
            .concat(),
            "holds data after the gzip stream",
        ),
        (
            "bytes-after-gzip",
            [good.clone(), b"appended".to_vec()].concat(),
            "holds data after the gzip stream",
        ),
        (
            // Entries hidden after the end marker, which `tar -i` would read.
            "entries-after-end-marker",
            {
                let mut tar = archive::tar(&archive::package("", "evil", "1.0.0"));
                tar.extend(archive::tar(&[archive::exe("bin/hidden", "#!/bin/sh\n")]));
                archive::gzip(&tar)
            },
            "holds data after the tar end marker",
        ),
        (
            "endless-padding",
            {
                let mut tar = archive::tar(&archive::package("", "evil", "1.0.0"));
                tar.extend(std::iter::repeat_n(0u8, 3 << 20));
                archive::gzip(&tar)
            },
            "holds data after the tar end marker",
        ),
        ("empty-file", Vec::new(), "error: evil 1.0.0"),
        ("empty-tar", archive::gzip(&[0u8; 1024]), "is empty"),
    ];
    for (case, bytes, message) in cases {
        assert_refused(&server, case, &bytes, message);
    }
}

#[test]
fn hostile_tool_yaml_is_refused() {
    let server = Server::start();
    let yaml = |body: &str| {
        archive::targz(&[
            archive::file("tool.yaml", body),
            archive::exe("bin/run", "#!/bin/sh\n"),
        ])
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "entrypoint-climbs-out",
            yaml("name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: ../../../bin/sh\n"),
            "entrypoint: '../../../bin/sh' is outside the package",
        ),
        (
            "entrypoint-absolute",
            yaml("name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: /bin/sh\n"),
            "entrypoint: '/bin/sh' is outside the package",
        ),
        (
            "entrypoint-sneaks-out",
            yaml("name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/../../x\n"),
            "is outside the package",
        ),
        (
            "name-is-a-path",
            yaml("name: ../../escaped\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\n"),
            "name: tool name '../../escaped' must start with",
        ),
        (
            "name-with-slash",
            yaml("name: evil/../../x\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\n"),
            "contains '/'",
        ),
        (
            "version-is-a-path",
            yaml("name: evil\nversion: ../../1.0.0\ndescription: d\nentrypoint: bin/run\n"),
            "is not a semantic version",
        ),
        (
            "other-tool",
            yaml("name: good\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\n"),
            "the archive for evil 1.0.0 contains good 1.0.0",
        ),
        (
            "watch-outside",
            yaml("name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\nruntime:\n  hot_load:\n    watch: [\"../..\"]\n"),
            "is outside the package",
        ),
        ("not-yaml", yaml(":\n  - [unclosed"), "is not valid tool.yaml"),
        (
            // Regression: parsing was quadratic in the nesting depth (16.5 s
            // at 100,000 levels) and the depth was only checked after.
            "yaml-nesting-bomb",
            yaml(&format!(
                "name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\nkeywords: {}{}\n",
                "[".repeat(100_000),
                "]".repeat(100_000)
            )),
            "collections nest more than 64 levels deep",
        ),
        (
            // Regression: a 50 MiB description made a 100 MB manifest that
            // every `orla list` read.
            "yaml-too-large",
            yaml(&format!(
                "name: evil\nversion: 1.0.0\nentrypoint: bin/run\ndescription: {}\n",
                "x".repeat(4 << 20)
            )),
            "is larger than 1024 KiB",
        ),
        (
            "yaml-long-string",
            yaml(&format!(
                "name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\nmcp:\n  input_schema:\n    type: object\n    properties:\n      path: {{type: string, description: {}}}\n",
                "x".repeat(5000)
            )),
            "mcp.input_schema.properties.path.description: is longer than 4096 bytes",
        ),
        (
            "no-tool-yaml",
            archive::targz(&[archive::exe("bin/run", "#!/bin/sh\n")]),
            "has no tool.yaml at its root",
        ),
    ];
    for (case, bytes, message) in cases {
        assert_refused(&server, case, &bytes, message);
    }
}

#[test]
fn gzip_bomb_is_refused_before_it_fills_the_disk() {
    let server = Server::start();
    let bytes = bomb(600 << 20);
    assert!(bytes.len() < 1 << 20, "{} bytes", bytes.len());
    let start = std::time::Instant::now();
    assert_refused(&server, "bomb", &bytes, "expands to more than");
    eprintln!(
        "gzip bomb: {} KiB expanding to 600 MiB refused (with setup and checks) in {:?}",
        bytes.len() >> 10,
        start.elapsed()
    );
}

/// A gzip tar whose one entry is preceded by a long name or PAX record of
/// `size` bytes: tar-rs reads such a record whole into memory, so before
/// the cap a 1 MiB download could make orla allocate gigabytes.
fn extension_bomb(kind: tar::EntryType, size: u64) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    let mut tar = archive::tar(&archive::package("", "evil", "1.0.0"));
    tar.truncate(tar.len() - 1024);
    enc.write_all(&tar).unwrap();
    let mut header = tar::Header::new_gnu();
    header.as_gnu_mut().unwrap().name[..13].copy_from_slice(b"././@LongLink");
    header.set_entry_type(kind);
    header.set_size(size);
    header.set_mode(0o644);
    header.set_cksum();
    enc.write_all(header.as_bytes()).unwrap();
    let prefix = format!("{size} path=");
    let mut left = size;
    if kind == tar::EntryType::XHeader {
        enc.write_all(prefix.as_bytes()).unwrap();
        left -= prefix.len() as u64;
    }
    let chunk = vec![b'a'; 1 << 20];
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        enc.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
    enc.write_all(&vec![0u8; (512 - (size % 512) as usize) % 512])
        .unwrap();
    let mut file = tar::Header::new_gnu();
    file.set_path("x").unwrap();
    file.set_size(0);
    file.set_mode(0o644);
    file.set_cksum();
    enc.write_all(file.as_bytes()).unwrap();
    enc.write_all(&[0u8; 1024]).unwrap();
    enc.finish().unwrap()
}

#[test]
fn header_extension_bombs_are_refused() {
    let server = Server::start();
    for (case, kind) in [
        ("gnu-long-name-bomb", tar::EntryType::GNULongName),
        ("pax-record-bomb", tar::EntryType::XHeader),
    ] {
        let bytes = extension_bomb(kind, 256 << 20);
        assert!(bytes.len() < 1 << 20, "{case}: {} bytes", bytes.len());
        assert_refused(
            &server,
            case,
            &bytes,
            "has a long name or PAX header record of more than 1048576 bytes",
        );
    }
}

#[test]
fn too_many_entries_are_refused() {
    let server = Server::start();
    let limit = orla::unpack::Limits::MAX_ENTRIES;
    let mut entries = archive::package("", "evil", "1.0.0");
    for i in 0..limit {
        entries.push(archive::file(&format!("many/{i}"), ""));
    }
    assert_refused(
        &server,
        "entries",
        &archive::targz(&entries),
        &format!("holds more than {limit} files and directories"),
    );
}

/// One deep path: `x/d/d/.../f`. With a GNU long name (which tar's builder
/// writes for names over 100 bytes) a single entry can name thousands of
/// directories.
fn deep_entry(top: &str, depth: usize) -> (String, &'static str) {
    let mut path = top.to_string();
    for _ in 1..depth {
        path.push_str("/d");
    }
    path.push_str("/f");
    (path, "")
}

fn long_name_targz(entries: &[(String, &str)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    let yaml = "name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\n";
    let mut all = vec![
        ("tool.yaml".to_string(), yaml),
        ("bin/run".to_string(), "#!/bin/sh\n"),
    ];
    all.extend(entries.iter().cloned());
    for (path, data) in &all {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o755);
        header.set_mtime(0);
        builder
            .append_data(&mut header, path, data.as_bytes())
            .unwrap();
    }
    archive::gzip(&builder.into_inner().unwrap())
}

/// Regression: parent directories created for an entry counted against
/// neither the entry cap nor the size cap, so a 1.3 KB archive of 50 deep
/// paths made about 100,000 directories and 370 MB of directory blocks.
#[test]
fn directory_bombs_are_refused() {
    let server = Server::start();
    // Depth: one entry naming 2,000 nested directories.
    let deep = long_name_targz(&[deep_entry("x0", 2000)]);
    assert!(deep.len() < 2048, "{} bytes", deep.len());
    let depth = orla::unpack::Limits::MAX_DEPTH;
    assert_refused(
        &server,
        "deep",
        &deep,
        &format!("is nested more than {depth} directories deep"),
    );
    // Breadth: each path within the depth cap, but together they create
    // more directories than the cap allows, with few entries.
    let limit = orla::unpack::Limits::MAX_ENTRIES as usize;
    let per = depth - 1;
    let wide: Vec<_> = (0..limit / per + 1)
        .map(|i| deep_entry(&format!("x{i}"), per))
        .collect();
    assert!(wide.len() < limit / 10);
    assert_refused(
        &server,
        "wide",
        &long_name_targz(&wide),
        &format!("holds more than {limit} files and directories"),
    );
    // Just within both caps, a deep package installs.
    let fine = long_name_targz(&[deep_entry("x0", depth - 1)]);
    let Setup { t, index } = setup(&server, "deep-ok", &fine);
    t.run(&["install", "evil", "--yes", "--registry", &index.location()])
        .success();
}

#[test]
fn setuid_and_world_writable_bits_are_dropped() {
    use std::os::unix::fs::PermissionsExt;
    let server = Server::start();
    let bytes = archive::targz(&[
        archive::file(
            "tool.yaml",
            "name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\n",
        ),
        Entry::File {
            path: b"bin/run".to_vec(),
            data: b"#!/bin/sh\necho ok\n".to_vec(),
            mode: 0o6777, // setuid, setgid, world-writable
        },
        Entry::File {
            path: b"data/sticky".to_vec(),
            data: b"x".to_vec(),
            mode: 0o1666,
        },
        Entry::File {
            path: b"data/secret".to_vec(),
            data: b"x".to_vec(),
            mode: 0o4600,
        },
    ]);
    let Setup { t, index } = setup(&server, "setuid", &bytes);
    t.run(&["install", "evil", "--yes", "--registry", &index.location()])
        .success();
    let pkg = t.tools_dir().join("evil/1.0.0");
    let mode = |rel: &str| {
        std::fs::metadata(pkg.join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("bin/run"), 0o755);
    assert_eq!(mode("data/sticky"), 0o644);
    assert_eq!(mode("data/secret"), 0o644);
    // The receipt records what was written, so `orla verify` agrees.
    t.run(&["verify", "evil"]).success();
}

/// Library level: the caps are parameters of `unpack`, so small limits
/// prove the same checks without writing hundreds of megabytes.
mod library {
    use super::*;
    use orla::unpack::{unpack, Limits, UnpackError};

    fn limits(bytes: u64, entries: u64) -> Limits {
        Limits {
            max_unpacked_bytes: bytes,
            max_entries: entries,
        }
    }

    #[test]
    fn entry_cap_counts_every_entry() {
        let dir = tempfile::tempdir().unwrap();
        let mut entries = archive::package("", "t", "1.0.0");
        entries.push(archive::file("a", ""));
        // tool.yaml, bin/ (never named: created for bin/run), bin/run, a.
        let bytes = archive::targz(&entries);
        let err = unpack(&bytes[..], dir.path(), limits(1 << 20, 3)).unwrap_err();
        assert!(
            matches!(err, UnpackError::TooManyEntries { limit: 3 }),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        unpack(&bytes[..], dir.path(), limits(1 << 20, 4)).unwrap();
    }

    #[test]
    fn implicit_parent_directories_count_once_each() {
        // a/b/c/f and a/b/g: a, a/b, a/b/c, f, g.
        let entries = vec![
            archive::file("a/b/c/f", ""),
            archive::file("a/b/g", ""),
            Entry::Dir {
                path: b"a/b/".to_vec(),
            },
        ];
        let bytes = archive::targz(&entries);
        let dir = tempfile::tempdir().unwrap();
        let err = unpack(&bytes[..], dir.path(), limits(1 << 20, 4)).unwrap_err();
        assert!(matches!(err, UnpackError::TooManyEntries { .. }), "{err}");
        let dir = tempfile::tempdir().unwrap();
        unpack(&bytes[..], dir.path(), limits(1 << 20, 5)).unwrap();
    }

    #[test]
    fn size_cap_refuses_by_header_and_by_stream() {
        let entries = vec![
            archive::file("tool.yaml", &"x".repeat(600)),
            archive::file("b", &"y".repeat(600)),
        ];
        let bytes = archive::targz(&entries);
        for cap in [500, 1000] {
            let dir = tempfile::tempdir().unwrap();
            let err = unpack(&bytes[..], dir.path(), limits(cap, 10)).unwrap_err();
            assert!(matches!(err, UnpackError::TooLarge { .. }), "{err}");
        }
        let dir = tempfile::tempdir().unwrap();
        unpack(&bytes[..], dir.path(), limits(1200, 10)).unwrap();
    }

    /// Regression: the cap used to scale with the size the index *claimed*,
    /// so a record saying 1 GiB let a 600 KiB bomb expand to 20 GiB before
    /// the size mismatch was noticed at the end of the stream.
    #[test]
    fn a_lying_size_does_not_raise_the_cap() {
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        let chunk = vec![0u8; 1 << 20];
        for i in 0..6 {
            let mut header = tar::Header::new_gnu();
            header.set_path(format!("z{i}")).unwrap();
            header.set_size(100 << 20);
            header.set_mode(0o644);
            header.set_cksum();
            enc.write_all(header.as_bytes()).unwrap();
            for _ in 0..100 {
                enc.write_all(&chunk).unwrap();
            }
        }
        enc.write_all(&[0u8; 1024]).unwrap();
        let bytes = enc.finish().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let claimed = Limits::for_archive(Some(1 << 30));
        assert!(claimed.max_unpacked_bytes >= 20 << 30);
        let err = unpack(&bytes[..], dir.path(), claimed).unwrap_err();
        assert!(
            matches!(err, UnpackError::TooLarge { limit } if limit == Limits::MIN_UNPACKED_BYTES),
            "{err}"
        );
    }

    #[test]
    fn long_names_are_fine_up_to_the_extension_cap() {
        // archive::tar writes names into the 100-byte field; tar's builder
        // writes a real GNU long name for this one.
        let name = format!("{}/file", "d".repeat(200));
        let mut builder = tar::Builder::new(Vec::new());
        for (path, data) in [("tool.yaml", "x"), (name.as_str(), "y")] {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            builder
                .append_data(&mut header, path, data.as_bytes())
                .unwrap();
        }
        let bytes = archive::gzip(&builder.into_inner().unwrap());
        let dir = tempfile::tempdir().unwrap();
        let unpacked = unpack(&bytes[..], dir.path(), Limits::for_archive(None)).unwrap();
        assert!(unpacked.files.contains_key(&name));
        let err = unpack(
            &extension_bomb(tar::EntryType::GNULongName, 2 << 20)[..],
            tempfile::tempdir().unwrap().path(),
            Limits::for_archive(None),
        )
        .unwrap_err();
        assert!(
            matches!(err, UnpackError::ExtensionTooLarge { .. }),
            "{err}"
        );
    }

    #[test]
    fn zero_padding_to_a_tar_record_is_accepted() {
        // GNU tar pads to 10 KiB records, some tools to larger blocks.
        for padding in [0usize, 10240, 512 * 1024] {
            let mut tar = archive::tar(&archive::package("", "t", "1.0.0"));
            tar.extend(std::iter::repeat_n(0u8, padding));
            let dir = tempfile::tempdir().unwrap();
            unpack(
                &archive::gzip(&tar)[..],
                dir.path(),
                Limits::for_archive(None),
            )
            .unwrap();
        }
    }

    #[test]
    fn unpacking_needs_an_empty_destination_to_stay_safe() {
        // create_new: an existing file is never written through.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tool.yaml"), "mine").unwrap();
        let bytes = archive::targz(&archive::package("", "t", "1.0.0"));
        assert!(unpack(&bytes[..], dir.path(), Limits::for_archive(None)).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("tool.yaml")).unwrap(),
            "mine"
        );
    }
}

/// A package with one tool.yaml (and an entrypoint), served over HTTP.
fn with_tool_yaml(yaml: &str) -> Vec<u8> {
    archive::targz(&[
        archive::file("tool.yaml", yaml),
        archive::exe("bin/run", "#!/bin/sh\n"),
    ])
}

/// Regression: `risk_level: low` beside `process:exec`, `network` and
/// `filesystem:write` still prompted as critical, but manifest.json and
/// `orla list` recorded it as low, and `orla tool validate` said nothing.
#[test]
fn a_package_cannot_lower_its_own_risk() {
    let server = Server::start();
    let yaml = "name: evil\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\nrisk_level: low\npermissions: [process:exec, network, filesystem:write]\n";
    let Setup { t, index } = setup(&server, "lowered-risk", &with_tool_yaml(yaml));
    index.edit_records("evil", |r| {
        r.permissions = vec![
            "process:exec".into(),
            "network".into(),
            "filesystem:write".into(),
        ]
    });
    t.run(&["install", "evil", "--registry", &index.location()])
        .failure(1)
        .stderr_has("(risk: critical) and there is no terminal to confirm it");
    t.run(&["install", "evil", "--yes", "--registry", &index.location()])
        .success();
    let manifest = t.manifest();
    let tool = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "evil")
        .unwrap();
    assert_eq!(tool["risk_level"], "critical");
    assert_eq!(tool["safety_tier"], "exec");
    let listed = t.run(&["list", "--json"]).json();
    let evil = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "evil");
    assert_eq!(evil.unwrap()["risk_level"], "critical");
    t.run(&["list"]).success().stdout_has("critical");

    // An author is told, and the risk they may state is only ever higher.
    let src = t.dir.path().join("lowered");
    common::write_file(&src.join("tool.yaml"), yaml, false);
    common::write_file(&src.join("bin/run"), "#!/bin/sh\n", true);
    t.run(&["tool", "validate", src.to_str().unwrap()])
        .success()
        .stderr_has("risk_level: 'low' is below the risk its permissions (process:exec, network, filesystem:write) give; orla records critical");
    let raised = "name: up\nversion: 1.0.0\ndescription: d\nentrypoint: bin/run\nrisk_level: critical\npermissions: [filesystem:read]\n";
    let tool = orla::package::ToolYaml::parse(raised, "tool.yaml").unwrap();
    assert_eq!(tool.risk(), orla::package::RiskLevel::Critical);
}

/// Regression: a tool.yaml with no `permissions` key (as every tool
/// published for the Orla project so far, including one that deletes
/// files) was recorded as risk low, safety tier pure, and installed without
/// a question. Undeclared is high; `permissions: []` declares none.
#[test]
fn undeclared_permissions_are_high_risk_and_none_are_low() {
    let server = Server::start();
    let yaml = "name: evil\nversion: 1.0.0\ndescription: deletes files\nentrypoint: bin/run\n";
    let Setup { t, index } = setup(&server, "undeclared", &with_tool_yaml(yaml));
    // The record cannot tell undeclared from none; the tool.yaml can.
    t.run(&["install", "evil", "--registry", &index.location()])
        .failure(1)
        .stderr_has("evil 1.0.0 asks for undeclared permissions (risk: high) and there is no terminal to confirm it");
    assert_eq!(t.list(), [("good".to_string(), "1.0.0".to_string())]);
    t.run(&["install", "evil", "--yes", "--registry", &index.location()])
        .success()
        .stderr_has("evil 1.0.0: undeclared permissions (risk: high)");
    let manifest = t.manifest();
    let by_name = |name: &str| {
        manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()
            .clone()
    };
    let evil = by_name("evil");
    assert_eq!(evil["risk_level"], "high");
    assert_eq!(evil["safety_tier"], "exec");
    assert_eq!(evil["permissions_declared"], false);
    assert_eq!(evil["permissions"], serde_json::json!([]));
    // `permissions: []` (PackageBuilder writes it) is none: low and pure.
    let good = by_name("good");
    assert_eq!(good["risk_level"], "low");
    assert_eq!(good["safety_tier"], "pure");
    assert!(good.get("permissions_declared").is_none());
    t.run(&["list"])
        .success()
        .stdout_has("high (undeclared, unconfined)");

    let src = t.dir.path().join("undeclared");
    common::write_file(&src.join("tool.yaml"), yaml, false);
    common::write_file(&src.join("bin/run"), "#!/bin/sh\n", true);
    t.run(&["tool", "validate", src.to_str().unwrap()])
        .success()
        .stderr_has("permissions: is missing, so the tool's permissions are undeclared and orla treats it as high risk");
}
