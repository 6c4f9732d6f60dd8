//! What refuses `orla use` (the `use_version` operation), beside the
//! top-level error for the same reason as `InstallError`: the operations
//! sit above `context`.

#[derive(Debug, thiserror::Error)]
pub enum UseError {
    /// No installed version is the one asked for.
    #[error(
        "no installed version of {name} matches '{}'; installed: {}",
        requirement.as_deref().unwrap_or("latest"),
        installed.join(", ")
    )]
    NoInstalledMatch {
        name: String,
        /// As the user wrote it; `None` for the newest.
        requirement: Option<String>,
        installed: Vec<String>,
    },
    /// In a project: a version installed with `--local` has no source
    /// orla.lock could pin.
    #[error("{name} {version} was installed from a local path, so orla.lock cannot pin it")]
    LocalNotPinnable {
        name: String,
        version: semver::Version,
    },
}

impl UseError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            UseError::NoInstalledMatch {
                name, requirement, ..
            } => match requirement {
                Some(r) => format!("install it first: `orla install {name}@{r}`"),
                None => format!("install it first: `orla install {name}`"),
            },
            UseError::LocalNotPinnable { name, version } => {
                format!("install it from a registry: `orla install {name}@{version}`")
            }
        })
    }
}
