//! The error every command returns, and how it is shown: one line
//! `error: ...`, then `hint: ...` when there is a fix. Usage errors exit 2,
//! everything else 1.

use crate::{config, fetch, index, package, project, resolve, store};

#[cfg(test)]
mod hint_rule;

mod install;

pub use install::InstallError;

pub mod export;
pub mod run;
pub mod use_version;
pub mod verify;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Spec(#[from] resolve::SpecError),
    #[error(transparent)]
    Resolve(#[from] resolve::ResolveError),
    #[error(transparent)]
    Index(#[from] index::IndexError),
    #[error(transparent)]
    Registries(#[from] index::registries::RegistriesError),
    #[error(transparent)]
    Fetch(#[from] fetch::FetchError),
    #[error(transparent)]
    Cache(#[from] fetch::CacheError),
    #[error(transparent)]
    Package(#[from] package::PackageError),
    #[error(transparent)]
    Pack(#[from] package::pack::PackError),
    #[error(transparent)]
    Store(#[from] store::StoreError),
    #[error(transparent)]
    Project(#[from] project::ProjectError),
    #[error(transparent)]
    Capsule(#[from] crate::migrate::capsule::CapsuleError),
    #[error(transparent)]
    Publish(#[from] index::publish::PublishError),
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// Boxed: its facts would make every `Result<_, Error>` larger.
    #[error(transparent)]
    Install(Box<InstallError>),
    #[error(transparent)]
    Client(#[from] crate::client::ClientError),
    #[error(transparent)]
    Validate(#[from] package::validate::ValidateError),
    #[error(transparent)]
    Verify(#[from] verify::VerifyError),
    #[error(transparent)]
    Run(#[from] run::RunError),
    #[error(transparent)]
    Export(#[from] export::ExportError),
    #[error(transparent)]
    Use(#[from] use_version::UseError),
    #[error(transparent)]
    Scaffold(#[from] package::scaffold::answers::ScaffoldError),
    #[error(transparent)]
    Migrate(#[from] crate::migrate::directory::MigrateError),
    /// The runtime crate's: it has no hints of its own, so they are here.
    #[error(transparent)]
    Serve(#[from] orla_runtime::ServeError),
    /// The command line asks for something impossible.
    #[error("{message}")]
    Usage {
        message: String,
        hint: Option<String>,
    },
    #[error("{message}")]
    Other {
        message: String,
        hint: Option<String>,
    },
}

impl Error {
    pub fn other(message: impl Into<String>, hint: Option<String>) -> Error {
        Error::Other {
            message: message.into(),
            hint,
        }
    }

    pub fn usage(message: impl Into<String>, hint: Option<String>) -> Error {
        Error::Usage {
            message: message.into(),
            hint,
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage { .. }
            | Error::Spec(_)
            | Error::Publish(index::publish::PublishError::BadSpec { .. }) => 2,
            Error::Registries(e) if e.is_usage() => 2,
            Error::Client(e) if e.is_usage() => 2,
            Error::Scaffold(e) if e.is_usage() => 2,
            _ => 1,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Spec(e) => e.hint(),
            Error::Resolve(e) => e.hint(),
            Error::Index(e) => e.hint(),
            Error::Registries(e) => e.hint(),
            Error::Fetch(e) => e.hint(),
            Error::Cache(e) => e.hint(),
            Error::Package(e) => e.hint(),
            Error::Pack(e) => e.hint(),
            Error::Store(e) => e.hint(),
            Error::Capsule(e) => e.hint(),
            Error::Publish(e) => e.hint(),
            Error::Config(e) => e.hint(),
            Error::Install(e) => e.hint(),
            Error::Run(e) => e.hint(),
            Error::Export(e) => e.hint(),
            Error::Use(e) => e.hint(),
            Error::Client(e) => e.hint(),
            Error::Validate(e) => e.hint(),
            Error::Verify(e) => e.hint(),
            Error::Scaffold(e) => e.hint(),
            Error::Migrate(e) => e.hint(),
            Error::Project(e) => e.hint(),
            Error::Serve(orla_runtime::ServeError::Listen { .. }) => Some(
                "another program uses the port: pass --port N (0 picks a free one) or set `port` in orla.yaml".into(),
            ),
            // The manifest was just written by this orla; the rest are
            // failures of the system the message names.
            Error::Serve(_) => None,
            Error::Usage { hint, .. } | Error::Other { hint, .. } => hint.clone(),
        }
    }

    /// The lines printed on stderr. Errors quote what they refuse (an
    /// archive entry's name, a registry's text), so control characters are
    /// escaped: one error cannot draw other lines over itself.
    pub fn render(&self) -> String {
        let message = one_line(&self.to_string());
        let mut out = format!("error: {}", crate::progress::printable(&message));
        if let Some(hint) = self.hint() {
            let hint = one_line(&hint);
            out.push_str(&format!("\nhint: {}", crate::progress::printable(&hint)));
        }
        out
    }
}

impl From<InstallError> for Error {
    fn from(e: InstallError) -> Error {
        Error::Install(Box::new(e))
    }
}

impl Error {
    /// The final event of a failed command in the JSON stream: the same
    /// message and hint as `render`, as fields.
    pub fn to_event(&self) -> crate::progress::Event {
        crate::progress::Event::Error {
            message: one_line(&self.to_string()),
            hint: self.hint().map(|h| one_line(&h)),
            exit_code: self.exit_code(),
        }
    }
}

/// Keeps an error to one line even when a parser's message has several.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runtime crate's errors are worded there; the fix of a port in
    /// use is orla's to give.
    #[test]
    fn a_port_in_use_is_hinted() {
        let listen: Error = orla_runtime::ServeError::Listen {
            addr: "127.0.0.1:8080".parse().unwrap(),
            source: std::io::Error::from(std::io::ErrorKind::AddrInUse),
        }
        .into();
        let rendered = listen.render();
        assert!(
            rendered.starts_with("error: cannot listen on 127.0.0.1:8080: "),
            "{rendered}"
        );
        assert!(rendered.contains("\nhint: another program uses the port"));
        assert_eq!(listen.exit_code(), 1);
        let runtime: Error = orla_runtime::ServeError::Runtime(std::io::Error::from(
            std::io::ErrorKind::OutOfMemory,
        ))
        .into();
        assert_eq!(runtime.hint(), None);
    }
}
