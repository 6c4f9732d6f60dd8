//! `orla export`'s own refusals: a tool a format cannot name, a Runloop
//! bundle orla will not write into. Here, beside the other operations'
//! errors, because `error` sits below the operations (`ops::export` makes
//! them).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The tool's name breaks a rule of the target format (docs/export.md,
    /// "Names").
    #[error("tool '{tool}' cannot be exported as {format}: {rule}")]
    Name {
        tool: String,
        format: &'static str,
        rule: &'static str,
    },
    /// `--bundle DIR` without a manifest.toml in DIR.
    #[error("{} is not a Runloop bundle: it has no manifest.toml", dir.display())]
    NotABundle { dir: PathBuf },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The bundle's manifest.toml is not TOML orla can edit.
    #[error("{}: {message}", path.display())]
    BundleManifest { path: PathBuf, message: String },
    /// The bundle's tools.json is not a tools.json orla understands.
    #[error("{}: {message}", path.display())]
    ToolsJson { path: PathBuf, message: String },
    /// The Runloop seed: a reader must refuse a version it does not know.
    #[error("{} has version {found}; orla reads and writes version 1", path.display())]
    ToolsJsonVersion { path: PathBuf, found: String },
    /// An entry the bundle's author wrote has the id of a tool orla exports.
    #[error("{} already has a tool '{id}' that orla did not write", path.display())]
    DuplicateId { path: PathBuf, id: String },
}

impl ExportError {
    pub fn hint(&self) -> Option<String> {
        match self {
            ExportError::Name { tool, .. } => Some(format!(
                "export another format, or install '{tool}' under a name the rule allows"
            )),
            ExportError::NotABundle { .. } => {
                Some("pass the bundle's directory, the one holding manifest.toml".into())
            }
            ExportError::Read { .. } | ExportError::Write { .. } => {
                Some("check the path and its permissions".into())
            }
            ExportError::BundleManifest { .. } => {
                Some("fix the TOML error at the place named, then export again".into())
            }
            ExportError::ToolsJson { path, .. } | ExportError::ToolsJsonVersion { path, .. } => {
                Some(format!(
                    "move {} aside (orla then writes a new one), or export with --output",
                    path.display()
                ))
            }
            ExportError::DuplicateId { id, .. } => Some(format!(
                "rename or remove the entry '{id}' in tools.json, then export again"
            )),
        }
    }
}
