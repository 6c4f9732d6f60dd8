//! What refuses `orla run` (the `run` operation), beside the top-level
//! error for the same reason as `InstallError`: the operations sit above
//! `context`.

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Its copy in the cache cannot be made.
    #[error("cannot {what} {}: {source}", path.display())]
    Cache {
        what: &'static str,
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    /// The tool's program cannot be started.
    #[error("cannot run {program}: {source}")]
    Exec {
        program: String,
        source: std::io::Error,
    },
}

impl RunError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            RunError::Cache { .. } => "check that you may write to the cache (`orla cache dir`), or set ORLA_CACHE_DIR to another directory".into(),
            RunError::Exec { .. } => "check the tool's interpreter and dependencies (`orla info NAME` lists them once installed; tool.yaml names them)".into(),
        })
    }
}
