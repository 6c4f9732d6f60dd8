//! Settings resolved once per run from arguments and the environment.
//! Every `ORLA_*` variable orla reads is named here and nowhere else.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::UserConfig;
use crate::error::Error;
use crate::fetch::Cache;
use crate::index::registries::{self, ProjectRegistries, Registries};
use crate::index::GitAccess;
use crate::progress::{Printer, Reporter};
use crate::project::Project;
use crate::root::InstallRoot;

/// Overrides the global install root (default `~/.orla`).
pub const ENV_HOME: &str = "ORLA_HOME";
/// Overrides the cache directory (default: the platform cache dir, `~/.cache/orla`).
pub const ENV_CACHE_DIR: &str = "ORLA_CACHE_DIR";
/// The most the cache's packages may take (`500M`, `2G`): after an install,
/// the least recently used are removed beyond it (docs/cache.md).
pub const ENV_CACHE_MAX_SIZE: &str = "ORLA_CACHE_MAX_SIZE";
/// The registry used when `--registry` is not given (default `builtin`).
pub const ENV_REGISTRY: &str = "ORLA_REGISTRY";
/// The registry consulted after the default one for a tool it lacks: `off`
/// drops it, anything else is its location (default: the Orla project's
/// public registry); overrides `public_registry` in config.yaml.
pub const ENV_PUBLIC_REGISTRY: &str = "ORLA_PUBLIC_REGISTRY";
/// How long a cloned git registry is used before it is fetched again
/// (`90`, `90s`, `10m`, `2h`); overrides `registry_ttl` in config.yaml.
pub const ENV_REGISTRY_TTL: &str = "ORLA_REGISTRY_TTL";
/// `1` or `true`: behave as if `--offline` were given.
pub const ENV_OFFLINE: &str = "ORLA_OFFLINE";
/// Seconds a network operation (HTTP, or a git fetch) may wait for the
/// server to connect or to send before it fails (default 30).
pub const ENV_HTTP_TIMEOUT: &str = "ORLA_HTTP_TIMEOUT";
/// Seconds one HTTP download or git fetch may take in all, resumes
/// included (default 3600).
pub const ENV_HTTP_DEADLINE: &str = "ORLA_HTTP_DEADLINE";
/// Bytes per second an HTTP download must average over each
/// `ORLA_HTTP_TIMEOUT` window (default 10; 0 for no minimum).
pub const ENV_HTTP_LOW_SPEED_LIMIT: &str = "ORLA_HTTP_LOW_SPEED_LIMIT";
/// The bearer token `orla serve` requires over HTTP (as `--token-file`).
pub const ENV_SERVE_TOKEN: &str = "ORLA_SERVE_TOKEN";
/// Set (to anything but the empty string): no colours in messages
/// (<https://no-color.org>), unless `--color always`.
pub const ENV_NO_COLOR: &str = "NO_COLOR";
/// Set (to anything but `0` or the empty string): colours even when stderr
/// is not a terminal (a CI log), unless `NO_COLOR` or `--color never`.
pub const ENV_CLICOLOR_FORCE: &str = "CLICOLOR_FORCE";
/// As `CLICOLOR_FORCE` (the name Node tools and many CI systems use).
pub const ENV_FORCE_COLOR: &str = "FORCE_COLOR";

/// The width `list` and `search` fit their tables to when stdout is a
/// terminal (default: the terminal's own width); ignored when piped.
pub const ENV_COLUMNS: &str = "COLUMNS";

/// Where commands are looked up: a tool's interpreter and the commands its
/// tool.yaml `dependencies` name (see `install::requirements`).
pub const ENV_PATH: &str = "PATH";

/// Every variable orla reads, with what it does: the man pages' ENVIRONMENT
/// section (a test checks that no `ENV_*` constant is missing).
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (ENV_HOME, "The global install root (default ~/.orla)."),
    (ENV_CACHE_DIR, "The download and registry cache (default: the platform cache directory, ~/.cache/orla)."),
    (ENV_CACHE_MAX_SIZE, "The most the cached packages may take, e.g. 500M or 2G: after an install the least recently used beyond it are removed (default: `cache_max_size` in config.yaml, else no limit)."),
    (ENV_REGISTRY, "The default registry when --registry is not given (default builtin)."),
    (ENV_PUBLIC_REGISTRY, "The public registry asked for tools no earlier registry has: off drops it, anything else is its location."),
    (ENV_REGISTRY_TTL, "How long a fetched git registry is fresh: 90, 90s, 10m, 2h (default 10m)."),
    (ENV_OFFLINE, "1, true, yes or on: as --offline; 0, false, no or off: online."),
    (ENV_HTTP_TIMEOUT, "Seconds a network operation (HTTP or git) may wait for the server to connect or to send; a timeout is not retried (default 30)."),
    (ENV_HTTP_DEADLINE, "Seconds one HTTP download or git fetch may take in all, resumes included (default 3600)."),
    (ENV_HTTP_LOW_SPEED_LIMIT, "Bytes per second an HTTP download must average over each ORLA_HTTP_TIMEOUT window (default 10; 0: no minimum)."),
    (ENV_SERVE_TOKEN, "The bearer token orla serve requires of HTTP clients, as --token-file gives it."),
    (ENV_NO_COLOR, "Set and not empty: no colours (unless --color always)."),
    (ENV_CLICOLOR_FORCE, "Set and not 0: colours even when stderr is not a terminal (unless NO_COLOR or --color never)."),
    (ENV_FORCE_COLOR, "As CLICOLOR_FORCE."),
    (ENV_COLUMNS, "On a terminal, the width list and search fit their tables to (default: the width of the terminal)."),
    (ENV_PATH, "Where a tool's interpreter and the commands its tool.yaml dependencies name are looked up."),
];

/// Whether messages on stderr are coloured. `forced` is `--color always`
/// (`Some(true)`) or `never` (`Some(false)`); with `auto` (`None`),
/// `NO_COLOR` turns colours off, else `CLICOLOR_FORCE` or `FORCE_COLOR`
/// turn them on, else they are on when stderr is a terminal.
pub fn stderr_color(forced: Option<bool>) -> bool {
    if let Some(forced) = forced {
        return forced;
    }
    if non_empty(ENV_NO_COLOR).is_some() {
        return false;
    }
    let force = |var: &str| non_empty(var).is_some_and(|v| v != "0");
    if force(ENV_CLICOLOR_FORCE) || force(ENV_FORCE_COLOR) {
        return true;
    }
    std::io::stderr().is_terminal()
}

pub struct Context {
    pub home: PathBuf,
    pub cache_dir: PathBuf,
    cache: Cache,
    /// `ORLA_CACHE_MAX_SIZE`, else config.yaml's `cache_max_size`, in bytes.
    pub cache_max_size: Option<u64>,
    pub cwd: PathBuf,
    pub default_registry: Option<String>,
    /// The Orla project's public registry (or the location replacing it),
    /// consulted when the default registry lacks a tool; `None` when dropped.
    pub public_registry: Option<String>,
    /// `<home>/config.yaml`.
    pub config: UserConfig,
    /// Never use the network: registries and archives come from the cache.
    pub offline: bool,
    /// Fetch git registries even when their clone is younger than the TTL.
    pub refresh: bool,
    /// Act on the global root even inside a project (`--global`): no
    /// project is looked for, so its orla.yaml (requirements, registries)
    /// plays no part, as if orla ran outside it.
    pub global: bool,
    /// Accept a git registry whose history went back (`--allow-rollback`).
    pub allow_rollback: bool,
    /// How long a cloned git registry is fresh.
    pub registry_ttl: Duration,
    /// Inactivity timeout of HTTP downloads.
    pub http_timeout: Duration,
    /// How long one HTTP download may take in all.
    pub http_deadline: Duration,
    /// The minimum rate of an HTTP download, in bytes per second.
    pub http_low_speed_limit: u64,
    /// `ORLA_SERVE_TOKEN`: the bearer token `orla serve` requires over HTTP.
    pub serve_token: Option<String>,
    /// stdin and stderr are both terminals: questions may be asked.
    pub interactive: bool,
    /// The `PATH` directories, in order.
    pub search_path: Vec<PathBuf>,
    /// When stdout is a terminal, its width (or `COLUMNS`): tables are
    /// wrapped to it. `None` when piped: scripts get whole lines.
    pub stdout_width: Option<usize>,
    pub reporter: Box<dyn Reporter>,
}

impl Context {
    /// `color`: `--color always` (`Some(true)`), `never` (`Some(false)`)
    /// or `auto` (`None`, see `stderr_color`).
    pub fn from_env(quiet: bool, color: Option<bool>) -> Result<Context, Error> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::other(format!("cannot read the current directory: {e}"), None))?;
        let home = match non_empty(ENV_HOME) {
            Some(dir) => crate::fs::normalize(&cwd.join(dir)),
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
            Some(dir) => crate::fs::normalize(&cwd.join(dir)),
            None => directories::ProjectDirs::from("", "", "orla")
                .map(|d| d.cache_dir().to_path_buf())
                .unwrap_or_else(|| home.join("cache")),
        };
        let cache_max_size = match non_empty(ENV_CACHE_MAX_SIZE) {
            Some(text) => Some(crate::fetch::parse_size(&text).map_err(|m| {
                Error::usage(
                    format!("{ENV_CACHE_MAX_SIZE}: {m}"),
                    Some(format!(
                        "write bytes or a size with a unit, e.g. {ENV_CACHE_MAX_SIZE}=2G, or unset it for no limit"
                    )),
                )
            })?),
            None => None,
        };
        let config = UserConfig::load(&home)?;
        let cache_max_size = cache_max_size.or(config.cache_max_size);
        let registry_ttl = match non_empty(ENV_REGISTRY_TTL) {
            Some(text) => crate::config::parse_ttl(&text).map_err(|m| {
                Error::usage(
                    format!("{ENV_REGISTRY_TTL}: {m}"),
                    Some("write seconds or a duration such as 10m".into()),
                )
            })?,
            None => config.registry_ttl.unwrap_or(crate::config::DEFAULT_TTL),
        };
        let http_timeout = seconds(ENV_HTTP_TIMEOUT, Duration::from_secs(30), 30)?;
        let http_deadline = seconds(
            ENV_HTTP_DEADLINE,
            crate::http::HttpLimits::DEFAULT_DEADLINE,
            600,
        )?;
        // Process-wide in libgit2: set now, while orla has one thread.
        crate::git::set_timeouts(http_timeout);
        let http_low_speed_limit = match non_empty(ENV_HTTP_LOW_SPEED_LIMIT) {
            Some(text) => text.parse::<u64>().map_err(|_| {
                Error::usage(
                    format!("{ENV_HTTP_LOW_SPEED_LIMIT}: '{text}' is not a number of bytes per second"),
                    Some(format!(
                        "set it to a whole number, e.g. {ENV_HTTP_LOW_SPEED_LIMIT}=10, 0 for no minimum, or unset it for 10"
                    )),
                )
            })?,
            None => crate::http::HttpLimits::DEFAULT_LOW_SPEED_LIMIT,
        };
        // A value that is neither yes nor no is refused: taking `ORLA_OFFLINE=yes`
        // as "online" would use the network after being told not to.
        let offline = match non_empty(ENV_OFFLINE).map(|v| v.to_ascii_lowercase()) {
            None => false,
            Some(v) if ["1", "true", "yes", "on"].contains(&v.as_str()) => true,
            Some(v) if ["0", "false", "no", "off"].contains(&v.as_str()) => false,
            Some(v) => {
                return Err(Error::usage(
                    format!("{ENV_OFFLINE}: '{v}' is neither yes nor no"),
                    Some(format!("set {ENV_OFFLINE}=1 to work offline, or unset it")),
                ))
            }
        };
        let public_registry = match non_empty(ENV_PUBLIC_REGISTRY) {
            Some(text) => crate::config::parse_public_registry(&serde_yaml::Value::String(text))
                .map_err(|m| Error::usage(format!("{ENV_PUBLIC_REGISTRY}: {m}"), None))?,
            None => config
                .public_registry
                .clone()
                .unwrap_or_else(|| Some(crate::config::PUBLIC_REGISTRY.to_string())),
        };
        // The receipt key seals the records of the cache's entries, so that
        // only this user's orla vouches for a cached package (fetch::cache).
        let cache = Cache::new(&cache_dir).with_key_file(home.join(crate::root::binding::KEY_FILE));
        Ok(Context {
            public_registry,
            home,
            cache,
            cache_dir,
            cache_max_size,
            config,
            offline,
            refresh: false,
            global: false,
            allow_rollback: false,
            registry_ttl,
            http_timeout,
            http_deadline,
            http_low_speed_limit,
            serve_token: non_empty(ENV_SERVE_TOKEN),
            default_registry: non_empty(ENV_REGISTRY),
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
            stdout_width: std::io::stdout()
                .is_terminal()
                .then(|| {
                    non_empty(ENV_COLUMNS)
                        .and_then(|c| c.parse::<usize>().ok())
                        .filter(|c| *c > 0)
                        .or_else(|| terminal_width(1))
                })
                .flatten(),
            search_path: std::env::var_os(ENV_PATH)
                .map(|p| std::env::split_paths(&p).collect())
                .unwrap_or_default(),
            reporter: Box::new(Printer::new(quiet, stderr_color(color), || {
                terminal_width(2)
            })),
            cwd,
        })
    }

    /// The bounds of HTTP downloads in this run.
    pub fn http_limits(&self) -> crate::http::HttpLimits {
        crate::http::HttpLimits {
            timeout: self.http_timeout,
            deadline: self.http_deadline,
            low_speed_limit: self.http_low_speed_limit,
        }
    }

    /// The download cache: one for the whole command, so that what one
    /// stage put in it (and knows about it) the next stage sees.
    pub fn cache(&self) -> Cache {
        self.cache.clone()
    }

    /// How git registries may be fetched in this run.
    pub fn git_access(&self) -> GitAccess {
        GitAccess {
            cache_dir: self.cache_dir.clone(),
            ttl: self.registry_ttl,
            offline: self.offline,
            refresh: self.refresh,
            allow_rollback: self.allow_rollback,
            http: self.http_limits(),
        }
    }

    /// The registries `choice` (a `--registry` value) selects, or every
    /// configured one: the project's, the user's, the default and the
    /// public fallback (see `index::registries`).
    pub fn registries(&self, choice: Option<&str>) -> Result<Registries<'_>, Error> {
        let project = self.project()?;
        let configured = registries::configured(
            project.as_ref().map(|p| ProjectRegistries {
                dir: &p.dir,
                file: p.dir.join(crate::project::CONFIG_FILE),
                value: &p.config.registries,
            }),
            &self.config.registries,
        )?;
        let settings = registries::Settings {
            cwd: self.cwd.clone(),
            configured,
            default: self.default_registry.clone(),
            public: self.public_registry.clone(),
            access: self.git_access(),
        };
        Ok(Registries::new(settings, self.reporter.as_ref(), choice)?)
    }

    pub fn global_root(&self) -> InstallRoot {
        InstallRoot::global(&self.home)
    }

    /// A variable of orla's own environment, as a tool `orla run` starts
    /// gets it: only the base variables and those `runtime.pass_env` names
    /// are asked for (`orla_runtime::exec::environment`).
    pub fn passed_variable(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    /// The project whose orla.yaml is in the working directory or a parent.
    /// None with `--global`.
    pub fn project(&self) -> Result<Option<Project>, Error> {
        if self.global {
            return Ok(None);
        }
        Ok(Project::find(&self.cwd)?)
    }

    /// The root commands act on: the project's when there is one (RFC 3 7.2),
    /// else the global one.
    pub fn root(&self) -> Result<InstallRoot, Error> {
        Ok(match self.project()? {
            Some(project) => self.project_root(&project),
            None => self.global_root(),
        })
    }

    /// A project's root, which also serves the global root's tools.
    pub fn project_root(&self, project: &Project) -> InstallRoot {
        let mut root = project.root();
        root.global_state_dir = Some(self.home.clone());
        root
    }

    /// `path` (as a user typed it) from the working directory, without
    /// `.` or `..` (see `fs::normalize`).
    pub fn absolute(&self, path: &Path) -> PathBuf {
        crate::fs::normalize(&self.cwd.join(path))
    }

    pub fn display_path(&self, path: &Path) -> String {
        path.display().to_string()
    }
}

/// The width of the terminal on file descriptor `fd` (1: stdout, 2: stderr).
#[cfg(unix)]
fn terminal_width(fd: libc::c_int) -> Option<usize> {
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ fills the winsize it is given.
    let ok = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

#[cfg(not(unix))]
fn terminal_width(_fd: i32) -> Option<usize> {
    None
}

/// A number of seconds above 0 from the environment variable `var`
/// (fractions allowed), else `default`; `example` is suggested when the
/// value is not one.
fn seconds(var: &str, default: Duration, example: u32) -> Result<Duration, Error> {
    let Some(text) = non_empty(var) else {
        return Ok(default);
    };
    text.parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        // try_: a value too large for a Duration is refused, not a panic.
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| {
            Error::usage(
                format!("{var}: '{text}' is not a number of seconds"),
                Some(format!(
                    "set it to a number of seconds above 0, e.g. {var}={example}, or unset it for {}",
                    default.as_secs()
                )),
            )
        })
}

fn non_empty(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    /// The man pages list every variable this file reads.
    #[test]
    fn every_variable_is_documented() {
        let source = include_str!("context.rs");
        for line in source.lines() {
            let Some(rest) = line.strip_prefix("pub const ENV_") else {
                continue;
            };
            let Some(name) = rest.split('"').nth(1) else {
                continue;
            };
            assert!(
                super::ENVIRONMENT.iter().any(|(n, _)| *n == name),
                "{name} is missing from ENVIRONMENT"
            );
        }
    }

    /// Settings are resolved here once: no other file reads the environment.
    #[test]
    fn only_context_reads_the_environment() {
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !path.ends_with("src/context.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if text.contains(concat!("env::", "var")) {
                        out.push(path.display().to_string());
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(
            found.is_empty(),
            "environment read outside context.rs: {found:?}"
        );
    }
}
