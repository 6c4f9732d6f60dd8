//! How a simple tool's process is set up, the one way both `orla serve`'s
//! calls and `orla run` start a tool: the clean environment
//! ([`exec::environment`]), and for a tool that declared its permissions
//! the confinement of [`sandbox::policy`] with a private TMPDIR, or the
//! refusal when the kernel cannot confine it (unless `isolation:
//! best-effort`). The caller says where the private directory goes (a
//! temporary directory removed after a call; `orla run` keeps its own),
//! whether the process is a child (`orla serve`) or replaces the caller
//! (`orla run`), and what it tells about a tool that runs unconfined.

use std::path::{Path, PathBuf};

use crate::exec::{self, Spawn};
use crate::manifest::{Isolation, Settings, Tool};
use crate::sandbox::{self, SandboxError};

/// A tool's process, ready to start.
pub struct Launch<T> {
    pub spawn: Spawn,
    /// The private temporary directory of a confined tool (its TMPDIR).
    pub tmp: Option<T>,
    /// Why a tool that should be confined runs unconfined: the kernel
    /// cannot confine it and the user set `isolation: best-effort`.
    pub degraded: Option<SandboxError>,
}

/// Why a tool's process cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The kernel cannot confine it (`sandbox_unavailable`).
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error("cannot make a temporary directory for {tool}: {source}")]
    Tmp {
        tool: String,
        #[source]
        source: std::io::Error,
    },
}

/// The environment and confinement of `tool`'s process. `server` reads the
/// caller's environment (what `pass_env` and the base variables come
/// from); `make_tmp` makes the private temporary directory, only for a
/// tool that runs confined.
pub fn prepare<T: AsRef<Path>>(
    tool: &Tool,
    settings: &Settings,
    server: impl Fn(&str) -> Option<String>,
    make_tmp: impl FnOnce() -> std::io::Result<T>,
) -> Result<Launch<T>, LaunchError> {
    let unconfined = |degraded| Launch {
        spawn: Spawn {
            env: exec::environment(tool, &server, None),
            confinement: None,
        },
        tmp: None,
        degraded,
    };
    if !tool.is_confined() {
        return Ok(unconfined(None));
    }
    let abi = match sandbox::usable_abi(&tool.name, sandbox::kernel_abi()) {
        Ok(abi) => abi,
        Err(e) if settings.isolation == Isolation::BestEffort => return Ok(unconfined(Some(e))),
        Err(e) => return Err(e.into()),
    };
    let tmp = make_tmp().map_err(|source| LaunchError::Tmp {
        tool: tool.name.clone(),
        source,
    })?;
    let mut spawn = Spawn {
        env: exec::environment(tool, &server, Some(tmp.as_ref())),
        confinement: None,
    };
    let policy = sandbox::policy(
        tool,
        settings,
        workspace(settings).as_deref(),
        tmp.as_ref(),
        spawn.path(),
    );
    spawn.confinement = Some(sandbox::Confinement::prepare(&tool.name, &policy, abi)?);
    Ok(Launch {
        spawn,
        tmp: Some(tmp),
        degraded: None,
    })
}

/// Why `tool` runs unconfined whatever the kernel can do: it declares no
/// permissions. None for a tool that is confined.
pub fn unconfined(tool: &Tool) -> Option<&'static str> {
    if tool.is_confined() {
        None
    } else if tool.source.kind == "discovered" {
        Some("a discovered executable declares no permissions")
    } else {
        Some("its tool.yaml declares no permissions (set isolation_mode: sandboxed to confine it)")
    }
}

/// What `filesystem:read` and `:write` reach: the project directory, else
/// the directory the caller runs in, unless that is the whole system.
pub fn workspace(settings: &Settings) -> Option<PathBuf> {
    match &settings.workspace {
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::current_dir()
            .ok()
            .filter(|d| d.parent().is_some()),
    }
}

/// For a confined process, `argv[0]` as the program the confinement allows
/// (a bare interpreter name found on the process's PATH, past a version
/// manager's shim; [`sandbox::find_program`]).
pub fn resolve_program(spawn: &Spawn, argv: &mut [String]) {
    if spawn.confinement.is_none() {
        return;
    }
    if let Some(first) = argv.first_mut() {
        if let Some(program) = sandbox::find_program(first, spawn.path()) {
            *first = program.display().to_string();
        }
    }
}

/// The command that starts `argv` as `spawn` says: only its environment,
/// confined between fork and exec (or, with `CommandExt::exec`, just
/// before the caller's process becomes the tool's).
pub fn command(argv: &[String], spawn: Spawn) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    let (program, rest) = argv.split_first().map_or(("", &[][..]), |(p, r)| (p, r));
    let mut command = std::process::Command::new(program);
    command.args(rest).env_clear().envs(spawn.env);
    if let Some(confinement) = spawn.confinement {
        // SAFETY: `apply` only makes system calls (no allocation, no lock),
        // as is required between fork and exec.
        unsafe {
            command.pre_exec(move || confinement.apply());
        }
    }
    command
}
