//! Parsing `--registry LOCATION`.

use std::path::{Path, PathBuf};

use super::IndexError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryLocation {
    /// The repository's `registry-index/`, compiled into the binary.
    Builtin,
    /// A local directory holding an index.
    Dir(PathBuf),
}

impl RegistryLocation {
    /// Parses a location given on the command line or in configuration;
    /// relative paths are taken from `cwd`.
    pub fn parse(text: &str, cwd: &Path) -> Result<RegistryLocation, IndexError> {
        if text == "builtin" {
            return Ok(RegistryLocation::Builtin);
        }
        if text.contains("://") || text.starts_with("git+") {
            return Err(IndexError::BadLocation {
                location: text.to_string(),
                reason: "is a URL; this orla reads `builtin` and local directory indexes".into(),
            });
        }
        let path = cwd.join(text);
        if !path.is_dir() {
            return Err(IndexError::BadLocation {
                location: text.to_string(),
                reason: "is not a directory".into(),
            });
        }
        Ok(RegistryLocation::Dir(path.canonicalize().unwrap_or(path)))
    }
}
