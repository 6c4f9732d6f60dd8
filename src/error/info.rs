//! What refuses `orla info` (the `info` operation), beside the top-level
//! error for the same reason as `InstallError`: `info` sits above `context`.

use crate::index::registries::RegistriesError;

#[derive(Debug, thiserror::Error)]
pub enum InfoError {
    /// No registry knows the tool, but it is installed: from a local
    /// package, or from a registry no longer configured.
    #[error("{source}")]
    OnlyInstalled {
        source: Box<RegistriesError>,
        name: String,
        installed: Vec<semver::Version>,
    },
}

impl InfoError {
    pub fn hint(&self) -> Option<String> {
        match self {
            InfoError::OnlyInstalled {
                name, installed, ..
            } => {
                let versions: Vec<String> = installed.iter().map(ToString::to_string).collect();
                Some(format!(
                    "{name} {} is installed (from a local package, or a registry no longer configured); `orla list` shows it",
                    versions.join(", ")
                ))
            }
        }
    }
}
