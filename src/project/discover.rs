//! RFC 1 discovery: loose executables directly inside a project's tools_dir
//! are tools too, beside the packages orla installs there.
//!
//! - Only regular files directly in tools_dir (symbolic links followed);
//!   directories are packages (`tools_dir/NAME/VERSION/`) or something else.
//! - Executable means `mode & 0o111 != 0` (RFC 1 4.4); hidden files are skipped.
//! - The name is the file name without its extension (RFC 1 4.2): `ls.sh`
//!   is `ls`, `summarize.py` is `summarize`, `convert` is `convert`. It must
//!   be a valid tool name, or the file is skipped with a warning.
//! - The interpreter comes from the `#!` line (RFC 1 4.3): `#!/bin/bash` is
//!   `bash`, `#!/usr/bin/env python3` is `python3`, none means a binary.
//! - Two files with the same name (`ls.sh`, `ls.py`): the first in byte
//!   order of their file names is served and the other reported.
//!
//! A discovered file has no tool.yaml, so nothing is known about what it
//! does: the manifest lists it with no declared permissions, risk `high` and
//! safety tier `exec`, as orla treats any unknown permission.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::package::{names, validate};
use crate::verify::{self, Digest};

/// A loose executable found in tools_dir.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovered {
    pub name: String,
    /// Absolute path of the file.
    pub path: PathBuf,
    /// From the `#!` line; `None` for a binary.
    pub interpreter: Option<String>,
    pub blake3: Digest,
    pub size: u64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Discovery {
    pub tools: Vec<Discovered>,
    /// Files that look like tools but are not served, and why.
    pub warnings: Vec<String>,
}

/// The executables RFC 1 discovery finds in `tools_dir`. A missing
/// directory finds nothing.
pub fn discover(tools_dir: &Path) -> io::Result<Discovery> {
    let mut out = Discovery::default();
    for (file_name, path) in candidates(tools_dir)? {
        let shown = format!("{}/{file_name}", tools_dir.display());
        let stem = Path::new(&file_name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Err(e) = names::validate_name(&stem) {
            out.warnings.push(format!(
                "{shown} is not served as a tool: {e}; rename the file"
            ));
            continue;
        }
        if let Some(first) = out.tools.iter().find(|t| t.name == stem) {
            out.warnings.push(format!(
                "{shown} is not served: {} already gives the tool '{stem}'",
                first.path.display()
            ));
            continue;
        }
        let (blake3, size) = verify::hash_reader(fs::File::open(&path)?)?;
        let interpreter = validate::read_shebang(&path).and_then(|s| validate::interpreter_of(&s));
        out.tools.push(Discovered {
            name: stem,
            path,
            interpreter,
            blake3,
            size,
        });
    }
    Ok(out)
}

/// A cheap summary of what discovery would see (names, sizes, modification
/// times and modes, no file contents), to notice when the manifest is stale.
pub fn fingerprint(tools_dir: &Path) -> String {
    let mut text = String::new();
    if let Ok(list) = candidates(tools_dir) {
        for (name, path) in list {
            if let Ok(meta) = fs::metadata(&path) {
                let mtime = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_nanos())
                    .unwrap_or_default();
                text.push_str(&format!(
                    "{name}\0{}\0{mtime}\0{}\n",
                    meta.len(),
                    mode(&meta)
                ));
            }
        }
    }
    text
}

/// Executable regular files directly in `tools_dir`, sorted by file name.
fn candidates(tools_dir: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    let entries = match fs::read_dir(tools_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // Follows symbolic links: `tools/rg -> /usr/bin/rg` is a tool.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_file() && validate::is_executable(&meta) {
            out.push((file_name, path));
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(unix)]
fn mode(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode()
}

#[cfg(not(unix))]
fn mode(_meta: &fs::Metadata) -> u32 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, content: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        fs::write(&path, content).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn rfc1_names_and_interpreters() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "ls.sh", "#!/bin/bash\nls\n", 0o755);
        write(
            d,
            "summarize.py",
            "#!/usr/bin/env python3\nprint()\n",
            0o700,
        );
        write(d, "convert", "\x7fELF....", 0o755);
        write(d, "notes.txt", "not a tool", 0o644);
        write(d, ".hidden", "#!/bin/sh\n", 0o755);
        fs::create_dir_all(d.join("fs-read/1.0.0")).unwrap();
        let found = discover(d).unwrap();
        let got: Vec<(&str, Option<&str>)> = found
            .tools
            .iter()
            .map(|t| (t.name.as_str(), t.interpreter.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("convert", None),
                ("ls", Some("bash")),
                ("summarize", Some("python3"))
            ]
        );
        assert!(found.warnings.is_empty());
        let ls = &found.tools[1];
        assert_eq!(ls.size, 15);
        assert_eq!(ls.blake3, Digest::of(b"#!/bin/bash\nls\n"));
    }

    #[test]
    fn same_stem_and_bad_names_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "ls.sh", "#!/bin/sh\n", 0o755);
        write(d, "ls.py", "#!/usr/bin/env python3\n", 0o755);
        write(d, "My Tool.sh", "#!/bin/sh\n", 0o755);
        let found = discover(d).unwrap();
        assert_eq!(found.tools.len(), 1);
        assert!(found.tools[0].path.ends_with("ls.py"));
        assert_eq!(found.warnings.len(), 2, "{:?}", found.warnings);
    }

    #[test]
    fn fingerprint_changes_with_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let empty = fingerprint(d);
        write(d, "a.sh", "#!/bin/sh\n", 0o755);
        let one = fingerprint(d);
        assert_ne!(empty, one);
        write(d, "a.sh", "#!/bin/sh\n", 0o644);
        assert_eq!(fingerprint(d), empty);
        assert_eq!(discover(&d.join("missing")).unwrap(), Discovery::default());
    }
}
