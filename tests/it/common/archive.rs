//! Hostile and unusual archives, built byte by byte by the tests so that no
//! binary blob of unknown origin is needed.

use std::io::Write;

use flate2::{write::GzEncoder, Compression};

pub enum Entry {
    File {
        path: Vec<u8>,
        data: Vec<u8>,
        mode: u32,
    },
    Dir {
        path: Vec<u8>,
    },
    Symlink {
        path: Vec<u8>,
        target: Vec<u8>,
    },
    Hardlink {
        path: Vec<u8>,
        target: Vec<u8>,
    },
    Fifo {
        path: Vec<u8>,
    },
    CharDevice {
        path: Vec<u8>,
    },
}

pub fn file(path: &str, data: &str) -> Entry {
    Entry::File {
        path: path.as_bytes().to_vec(),
        data: data.as_bytes().to_vec(),
        mode: 0o644,
    }
}

pub fn exe(path: &str, data: &str) -> Entry {
    Entry::File {
        path: path.as_bytes().to_vec(),
        data: data.as_bytes().to_vec(),
        mode: 0o755,
    }
}

/// A valid minimal package's entries, under `prefix`.
pub fn package(prefix: &str, name: &str, version: &str) -> Vec<Entry> {
    vec![
        file(
            &format!("{prefix}tool.yaml"),
            &format!(
                "name: {name}\nversion: {version}\ndescription: d\nentrypoint: bin/run\npermissions: []\n"
            ),
        ),
        exe(&format!("{prefix}bin/run"), "#!/bin/sh\necho ok\n"),
    ]
}

/// A raw tar: names are written into the header as given, with no checks.
pub fn tar(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        let (path, kind, data, mode, link): (&[u8], tar::EntryType, &[u8], u32, Option<&[u8]>) =
            match entry {
                Entry::File { path, data, mode } => {
                    (path, tar::EntryType::Regular, data, *mode, None)
                }
                Entry::Dir { path } => (path, tar::EntryType::Directory, &[], 0o755, None),
                Entry::Symlink { path, target } => {
                    (path, tar::EntryType::Symlink, &[], 0o777, Some(target))
                }
                Entry::Hardlink { path, target } => {
                    (path, tar::EntryType::Link, &[], 0o644, Some(target))
                }
                Entry::Fifo { path } => (path, tar::EntryType::Fifo, &[], 0o644, None),
                Entry::CharDevice { path } => (path, tar::EntryType::Char, &[], 0o644, None),
            };
        {
            let gnu = header.as_gnu_mut().unwrap();
            gnu.name[..path.len()].copy_from_slice(path);
            if let Some(link) = link {
                gnu.linkname[..link.len()].copy_from_slice(link);
            }
        }
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(data.len() as u64);
        header.set_mtime(0);
        header.set_cksum();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        let pad = (512 - data.len() % 512) % 512;
        out.extend(std::iter::repeat_n(0u8, pad));
    }
    out.extend(std::iter::repeat_n(0u8, 1024));
    out
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

pub fn targz(entries: &[Entry]) -> Vec<u8> {
    gzip(&tar(entries))
}
