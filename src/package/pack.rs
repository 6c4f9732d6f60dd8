//! Deterministic package archives.
//!
//! The same source directory gives the same bytes, and so the same BLAKE3
//! digest, on every machine: entries are sorted by path, every entry has
//! mtime 0, owner 0:0 with empty owner names, and mode 0755 (directories and
//! files with any execute bit) or 0644; the gzip header carries no name, no
//! time and a fixed OS byte, and what deflate does not shrink is stored
//! (`gz`). Entries sit under one `NAME-VERSION/` wrapper
//! directory, which unpacking strips. Only regular files and directories are
//! packed: a symlink in the source is an error, as it would be on install.
//! `.git/` and `.gitignore` (the source repository's, not the tool's),
//! orla's install receipt and, at the root, archives of this very package
//! (`NAME-*.tar.gz`, what `orla tool pack` writes by default when run
//! inside the package) are left out.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::RECEIPT_FILE;
use super::{Package, PackageError};

/// What `pack` wrote.
#[derive(Debug, Clone)]
pub struct Packed {
    pub name: String,
    pub version: semver::Version,
    pub file_name: String,
    /// Paths relative to the package root, in archive order.
    pub files: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum PackError {
    #[error(transparent)]
    Package(#[from] PackageError),
    #[error("{path} is a {kind}; packages may hold only regular files and directories")]
    Unsupported { path: String, kind: &'static str },
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("{path}: file names in a package must be UTF-8")]
    NonUtf8 { path: String },
    /// The archive file cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl PackError {
    pub fn hint(&self) -> Option<String> {
        match self {
            PackError::Package(e) => e.hint(),
            PackError::Unsupported { .. } => {
                Some("replace the link with a copy of the file it points to".into())
            }
            PackError::Io { source, .. } if source.kind() == io::ErrorKind::PermissionDenied => {
                Some("check that you may read every file of the package".into())
            }
            // Vanished while packing, or a disk error: the message says which.
            PackError::Io { .. } => None,
            PackError::NonUtf8 { .. } => {
                Some("rename the file: names in a package must be UTF-8".into())
            }
            PackError::Write { .. } => {
                Some("pass --output with a file or directory you may write to".into())
            }
        }
    }
}

/// Validates the package in `dir` and writes its archive to `out`.
pub fn pack(dir: &Path, out: impl Write) -> Result<Packed, PackError> {
    let package = Package::load(dir)?;
    let prefix = format!("{}-{}", package.name, package.version);
    let entries = collect(dir, &package.name)?;

    let gz = super::gz::GzWriter::new(out);
    let mut tar = tar::Builder::new(gz);
    let io_err = |path: &Path| {
        let path = path.display().to_string();
        move |source| PackError::Io { path, source }
    };
    let mut files = Vec::new();
    for entry in &entries {
        let mut header = tar::Header::new_gnu();
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        let archive_path = format!("{prefix}/{}", entry.rel);
        if entry.is_dir {
            header.set_entry_type(tar::EntryType::Directory);
            header.set_mode(0o755);
            header.set_size(0);
            tar.append_data(&mut header, format!("{archive_path}/"), io::empty())
                .map_err(io_err(&entry.path))?;
        } else {
            let data = std::fs::read(&entry.path).map_err(io_err(&entry.path))?;
            header.set_entry_type(tar::EntryType::Regular);
            header.set_mode(if entry.executable { 0o755 } else { 0o644 });
            header.set_size(data.len() as u64);
            tar.append_data(&mut header, &archive_path, data.as_slice())
                .map_err(io_err(&entry.path))?;
            files.push(entry.rel.clone());
        }
    }
    let gz = tar.into_inner().map_err(io_err(dir))?;
    gz.finish().map_err(io_err(dir))?;

    Ok(Packed {
        file_name: format!("{prefix}.tar.gz"),
        name: package.name,
        version: package.version,
        files,
    })
}

/// Packs `dir` into memory.
pub fn pack_to_vec(dir: &Path) -> Result<(Packed, Vec<u8>), PackError> {
    let mut bytes = Vec::new();
    let packed = pack(dir, &mut bytes)?;
    Ok((packed, bytes))
}

/// Packs `dir` into an archive file: `output` when given (a directory
/// receives the archive under its own name), else NAME-VERSION.tar.gz in
/// `default_dir`. Returns where it went and its bytes.
pub fn pack_to_file(
    dir: &Path,
    output: Option<&Path>,
    default_dir: &Path,
) -> Result<(Packed, PathBuf, Vec<u8>), PackError> {
    let (packed, bytes) = pack_to_vec(dir)?;
    let out = match output {
        Some(path) if path.is_dir() => path.join(&packed.file_name),
        Some(path) => path.to_path_buf(),
        None => default_dir.join(&packed.file_name),
    };
    crate::fs::atomic_write(&out, &bytes).map_err(|source| PackError::Write {
        path: out.clone(),
        source,
    })?;
    Ok((packed, out, bytes))
}

struct Entry {
    path: PathBuf,
    rel: String,
    is_dir: bool,
    executable: bool,
}

fn collect(root: &Path, name: &str) -> Result<Vec<Entry>, PackError> {
    let mut out = Vec::new();
    walk(root, "", &mut out)?;
    let own_archive = format!("{name}-");
    out.retain(|e| {
        e.is_dir
            || e.rel.contains('/')
            || !(e.rel.starts_with(&own_archive) && e.rel.ends_with(".tar.gz"))
    });
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

fn walk(dir: &Path, rel: &str, out: &mut Vec<Entry>) -> Result<(), PackError> {
    let read = std::fs::read_dir(dir).map_err(|source| PackError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    for item in read {
        let item = item.map_err(|source| PackError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        let path = item.path();
        let Some(name) = item.file_name().to_str().map(str::to_string) else {
            return Err(PackError::NonUtf8 {
                path: path.display().to_string(),
            });
        };
        if rel.is_empty() && [".git", ".gitignore", RECEIPT_FILE].contains(&name.as_str()) {
            continue;
        }
        let child_rel = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let meta = std::fs::symlink_metadata(&path).map_err(|source| PackError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let ft = meta.file_type();
        if ft.is_dir() {
            out.push(Entry {
                path: path.clone(),
                rel: child_rel.clone(),
                is_dir: true,
                executable: true,
            });
            walk(&path, &child_rel, out)?;
        } else if ft.is_file() {
            out.push(Entry {
                executable: super::validate::is_executable(&meta),
                path,
                rel: child_rel,
                is_dir: false,
            });
        } else {
            let kind = if ft.is_symlink() {
                "symbolic link"
            } else {
                "special file"
            };
            return Err(PackError::Unsupported {
                path: path.display().to_string(),
                kind,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn incompressible_files_are_packed_as_stored_blocks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        std::fs::write(
            dir.path().join("tool.yaml"),
            "name: blob\nversion: 1.0.0\ndescription: d\nentrypoint: bin/blob\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("bin/blob"), "#!/bin/sh\n").unwrap();
        // 256 KiB that deflate cannot shrink: BLAKE3's output stream.
        let mut noise = vec![0; 256 * 1024];
        blake3::Hasher::new().finalize_xof().fill(&mut noise);
        std::fs::write(dir.path().join("weights.bin"), &noise).unwrap();

        let (_, archive) = pack_to_vec(dir.path()).unwrap();
        let mut tar = Vec::new();
        flate2::read::GzDecoder::new(archive.as_slice())
            .read_to_end(&mut tar)
            .unwrap();
        // The archive is the tar stream as `gz` encodes it, which stores
        // what deflate does not shrink; flate2's encoder alone would not.
        let mut gz = super::super::gz::GzWriter::new(Vec::new());
        gz.write_all(&tar).unwrap();
        assert_eq!(archive, gz.finish().unwrap());
        let mut plain = flate2::GzBuilder::new()
            .mtime(0)
            .operating_system(255)
            .write(Vec::new(), flate2::Compression::default());
        plain.write_all(&tar).unwrap();
        assert_ne!(archive, plain.finish().unwrap());
    }
}
