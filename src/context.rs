//! Settings resolved once per run from arguments and the environment.
//! Every `ORLA_*` variable orla reads is named here and nowhere else.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::fetch::Cache;
use crate::progress::{Printer, Reporter};
use crate::project::Project;
use crate::store::InstallRoot;

/// Overrides the global install root (default `~/.orla`).
pub const ENV_HOME: &str = "ORLA_HOME";
/// Overrides the cache directory (default: the platform cache dir, `~/.cache/orla`).
pub const ENV_CACHE_DIR: &str = "ORLA_CACHE_DIR";
/// The registry used when `--registry` is not given (default `builtin`).
pub const ENV_REGISTRY: &str = "ORLA_REGISTRY";

pub struct Context {
    pub home: PathBuf,
    pub cache_dir: PathBuf,
    pub cwd: PathBuf,
    pub default_registry: Option<String>,
    /// stdin and stderr are both terminals: questions may be asked.
    pub interactive: bool,
    pub reporter: Box<dyn Reporter>,
}

impl Context {
    pub fn from_env(quiet: bool) -> Result<Context, Error> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::other(format!("cannot read the current directory: {e}"), None))?;
        let home = match non_empty(ENV_HOME) {
            Some(dir) => cwd.join(dir),
            None => directories::BaseDirs::new()
                .map(|d| d.home_dir().join(".orla"))
                .ok_or_else(|| {
                    Error::other(
                        "cannot find your home directory",
                        Some(format!("set {ENV_HOME}")),
                    )
                })?,
        };
        let cache_dir = match non_empty(ENV_CACHE_DIR) {
            Some(dir) => cwd.join(dir),
            None => directories::ProjectDirs::from("", "", "orla")
                .map(|d| d.cache_dir().to_path_buf())
                .unwrap_or_else(|| home.join("cache")),
        };
        Ok(Context {
            home,
            cache_dir,
            default_registry: non_empty(ENV_REGISTRY),
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
            reporter: Box::new(Printer::new(quiet)),
            cwd,
        })
    }

    pub fn cache(&self) -> Cache {
        Cache::new(&self.cache_dir)
    }

    pub fn global_root(&self) -> InstallRoot {
        InstallRoot::global(&self.home)
    }

    /// The project whose orla.yaml is in the working directory or a parent.
    pub fn project(&self) -> Result<Option<Project>, Error> {
        Ok(Project::find(&self.cwd)?)
    }

    /// The root commands act on: the project's when there is one (RFC 3 7.2),
    /// else the global one.
    pub fn root(&self) -> Result<InstallRoot, Error> {
        Ok(match self.project()? {
            Some(project) => project.root(),
            None => self.global_root(),
        })
    }

    pub fn display_path(&self, path: &Path) -> String {
        path.display().to_string()
    }
}

fn non_empty(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.is_empty())
}
