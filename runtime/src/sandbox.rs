//! Confinement of a tool's process to what it declared, with the kernel's
//! own mechanisms and no privilege (docs/security.md, "Run-time
//! confinement"):
//!
//! - Landlock for the filesystem: the system's programs and libraries
//!   readable, the package readable, a private temporary directory
//!   writable, and the workspace (the project, or the directory the server
//!   runs in) and the paths granted in orla.yaml / config.yaml readable with
//!   `filesystem:read`, writable with `filesystem:write`. Execution only of
//!   the tool's own command line (interpreter, entrypoint, the ELF loader)
//!   unless it declares `process:exec`.
//! - seccomp for the network: without `network`, `socket(2)` (every family,
//!   Unix sockets included) and io_uring fail with EACCES; `socketpair(2)`
//!   stays (it reaches nothing outside the tool).
//! - `no_new_privs`, so no setuid program can lift any of it.
//! - In `sandboxed` isolation mode (the default for high and critical
//!   risk), rlimits for memory and CPU time, and no new processes (threads
//!   only) unless the tool declares `process:exec`.
//!
//! Everything is built before the fork ([`Confinement::prepare`]); between
//! fork and exec the child only makes system calls ([`Confinement::apply`]).

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use crate::manifest::{IsolationMode, Settings, Tool};
use landlock::{
    Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// Directories of the system's programs and libraries: readable by every
/// confined tool (executable only with `process:exec`).
const SYSTEM_DIRS: [&str; 8] = [
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/nix/store",
];

/// Files of /etc that programs and their libraries read to start, resolve
/// names and check certificates; the rest of /etc (shadow, keys) is not
/// readable.
const ETC_FILES: [&str; 22] = [
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/mime.types",
    "/etc/alternatives",
    "/etc/python3",
    "/etc/locale.alias",
    "/etc/os-release",
];

/// The ELF loaders the kernel opens for execution with a dynamic program.
const LOADERS: [&str; 6] = [
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/ld-linux-x86-64.so.2",
    "/lib/ld-linux-aarch64.so.1",
    "/lib/ld-linux.so.2",
    "/lib/ld-musl-x86_64.so.1",
    "/lib/ld-musl-aarch64.so.1",
];

/// The oldest Landlock ABI confinement works with (filesystem rules).
pub const MIN_ABI: u32 = 1;

/// What one call of a tool may do.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    /// Readable trees (files and directories).
    pub read: Vec<PathBuf>,
    /// Readable and writable trees.
    pub write: Vec<PathBuf>,
    /// Files (or trees) that may be executed.
    pub exec: Vec<PathBuf>,
    /// Character devices that may be read and written (/dev/null).
    pub devices: Vec<PathBuf>,
    pub network: bool,
    /// Only threads, no new processes.
    pub no_fork: bool,
    pub limits: Option<ResourceLimits>,
}

/// rlimits of a sandboxed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceLimits {
    /// RLIMIT_DATA: private writable memory, in bytes.
    pub memory_bytes: u64,
    /// RLIMIT_CPU: CPU time, in seconds.
    pub cpu_seconds: u64,
}

/// Why a tool that must be confined cannot be.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("this kernel has no Landlock (the confinement of {tool} needs it: {why})")]
    NoLandlock { tool: String, why: String },
    #[error("cannot confine {tool}: {message}")]
    Build { tool: String, message: String },
}

/// The kernel's answer to "which Landlock ABI?".
pub fn kernel_abi() -> Result<u32, std::io::Error> {
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    // reads no memory and returns the ABI version or -1 with errno.
    let answer = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    if answer < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(answer as u32)
    }
}

/// The ABI to confine with, from the kernel's answer; a kernel without
/// Landlock (not built in: ENOSYS; not enabled at boot: EOPNOTSUPP) is
/// named, for a refusal or, under `isolation: best-effort`, a warning.
pub fn usable_abi(tool: &str, answer: Result<u32, std::io::Error>) -> Result<u32, SandboxError> {
    match answer {
        Ok(abi) if abi >= MIN_ABI => Ok(abi),
        Ok(abi) => Err(SandboxError::NoLandlock {
            tool: tool.into(),
            why: format!("ABI {abi}"),
        }),
        Err(e) => Err(SandboxError::NoLandlock {
            tool: tool.into(),
            why: match e.raw_os_error() {
                Some(libc::ENOSYS) => "the kernel is built without it".into(),
                Some(libc::EOPNOTSUPP) => {
                    "it is built in but not enabled (add landlock to the lsm= boot parameter)"
                        .into()
                }
                _ => e.to_string(),
            },
        }),
    }
}

impl SandboxError {
    pub fn hint(&self) -> &'static str {
        match self {
            SandboxError::NoLandlock { .. } => {
                "run on Linux 5.13 or later with Landlock enabled, or set `isolation: best-effort` in orla.yaml or config.yaml to run such tools unconfined (with a warning)"
            }
            SandboxError::Build { .. } => {
                "check that the paths granted in orla.yaml and config.yaml exist"
            }
        }
    }
}

/// A policy turned into kernel objects, ready for the child.
pub struct Confinement {
    ruleset: OwnedFd,
    filters: Vec<Filter>,
    rlimits: Vec<(libc::__rlimit_resource_t, libc::rlimit)>,
}

/// A seccomp program and the header the kernel reads it through; kept
/// together so the pointer stays valid.
struct Filter {
    _program: BpfProgram,
    header: libc::sock_fprog,
}

// SAFETY: the header points into the program owned by the same value, which
// is never changed after it is built.
unsafe impl Send for Filter {}
unsafe impl Sync for Filter {}

fn build_error(tool: &str, message: impl std::fmt::Display) -> SandboxError {
    SandboxError::Build {
        tool: tool.into(),
        message: message.to_string(),
    }
}

impl Confinement {
    /// Builds the Landlock ruleset and the seccomp programs of `policy`
    /// for a kernel of Landlock ABI `abi`. Paths that do not exist are left
    /// out (a system without /lib64).
    pub fn prepare(tool: &str, policy: &Policy, abi: u32) -> Result<Confinement, SandboxError> {
        let abi = to_abi(abi);
        let all = AccessFs::from_all(abi);
        let read = AccessFs::ReadFile | AccessFs::ReadDir;
        let write = all & !AccessFs::Execute;
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(all)
            .map_err(|e| build_error(tool, e))?;
        if abi as u32 >= ABI::V6 as u32 {
            ruleset = ruleset
                .scope(Scope::Signal | Scope::AbstractUnixSocket)
                .map_err(|e| build_error(tool, e))?;
        }
        let mut created = ruleset.create().map_err(|e| build_error(tool, e))?;
        // One rule per inode: the rights of a path given twice are merged.
        let mut rules: BTreeMap<PathBuf, landlock::BitFlags<AccessFs>> = BTreeMap::new();
        let mut add = |path: &Path, access: landlock::BitFlags<AccessFs>| {
            if path.exists() {
                *rules.entry(path.to_path_buf()).or_default() |= access;
            }
        };
        for path in &policy.read {
            add(path, read);
        }
        for path in &policy.write {
            add(path, read | write);
        }
        for path in &policy.exec {
            add(path, read | AccessFs::Execute);
        }
        for path in &policy.devices {
            add(path, read | AccessFs::WriteFile);
        }
        for (path, access) in rules {
            let fd = PathFd::new(&path).map_err(|e| build_error(tool, e))?;
            // A file takes only the rights a file can have.
            let access = if path.is_dir() {
                access
            } else {
                access & AccessFs::from_file(abi)
            };
            created = created
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| build_error(tool, e))?;
        }
        let ruleset = Option::<OwnedFd>::from(created)
            .ok_or_else(|| build_error(tool, "the kernel made no ruleset"))?;
        let mut filters = Vec::new();
        if !policy.network {
            filters.push(filter(tool, no_network(), libc::EACCES)?);
        }
        if policy.no_fork {
            filters.push(filter(tool, no_fork(), libc::EACCES)?);
            // glibc falls back to clone(2) only when clone3 is missing.
            filters.push(filter(
                tool,
                BTreeMap::from([(libc::SYS_clone3, vec![])]),
                libc::ENOSYS,
            )?);
        }
        let rlimits = policy
            .limits
            .map(|l| {
                vec![
                    (libc::RLIMIT_DATA, both(l.memory_bytes)),
                    (libc::RLIMIT_CPU, both(l.cpu_seconds)),
                ]
            })
            .unwrap_or_default();
        Ok(Confinement {
            ruleset,
            filters,
            rlimits,
        })
    }

    /// Confines the calling process: rlimits, no_new_privs, Landlock,
    /// seccomp. Runs in the child between fork and exec: system calls only.
    pub fn apply(&self) -> std::io::Result<()> {
        let check = |r: libc::c_long| {
            if r < 0 {
                Err(std::io::Error::last_os_error())
            } else {
                Ok(())
            }
        };
        for (resource, limit) in &self.rlimits {
            // SAFETY: setrlimit reads the limit it is given.
            check(unsafe { libc::setrlimit(*resource, limit) } as libc::c_long)?;
        }
        // SAFETY: prctl(PR_SET_NO_NEW_PRIVS, 1) touches no memory of ours.
        check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } as libc::c_long)?;
        // SAFETY: landlock_restrict_self(fd, 0) reads no memory.
        check(unsafe {
            libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset.as_raw_fd(),
                0u32,
            )
        })?;
        for filter in &self.filters {
            // SAFETY: the header points to a program that lives as long as
            // `self`; seccomp copies it.
            check(unsafe {
                libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0u32,
                    &filter.header as *const libc::sock_fprog,
                )
            })?;
        }
        Ok(())
    }
}

fn both(value: u64) -> libc::rlimit {
    libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    }
}

fn to_abi(abi: u32) -> ABI {
    match abi {
        0 | 1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        _ => ABI::V6,
    }
}

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn no_network() -> Rules {
    BTreeMap::from([
        (libc::SYS_socket, vec![]),
        (libc::SYS_io_uring_setup, vec![]),
    ])
}

/// fork, vfork, and clone without CLONE_THREAD (a new process, not a thread).
fn no_fork() -> Rules {
    let process = SeccompRule::new(vec![SeccompCondition::new(
        0,
        SeccompCmpArgLen::Qword,
        SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
        0,
    )
    .expect("a valid condition")])
    .expect("a valid rule");
    #[allow(unused_mut)]
    let mut rules = BTreeMap::from([(libc::SYS_clone, vec![process])]);
    #[cfg(target_arch = "x86_64")]
    {
        rules.insert(libc::SYS_fork, vec![]);
        rules.insert(libc::SYS_vfork, vec![]);
    }
    rules
}

fn filter(tool: &str, rules: Rules, errno: i32) -> Result<Filter, SandboxError> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e| build_error(tool, format!("seccomp: {e:?}")))?;
    let program: BpfProgram = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .and_then(BpfProgram::try_from)
    .map_err(|e| build_error(tool, format!("seccomp: {e}")))?;
    let header = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr() as *mut libc::sock_filter,
    };
    Ok(Filter {
        _program: program,
        header,
    })
}

/// The system part of every policy: programs and libraries readable, the
/// start-up files of /etc, the harmless devices.
pub fn system_read() -> Vec<PathBuf> {
    SYSTEM_DIRS
        .iter()
        .chain(ETC_FILES.iter())
        .chain(["/dev/urandom", "/dev/random"].iter())
        .map(PathBuf::from)
        .collect()
}

pub fn system_devices() -> Vec<PathBuf> {
    ["/dev/null", "/dev/zero", "/dev/full"]
        .iter()
        .map(PathBuf::from)
        .collect()
}

pub fn system_exec() -> Vec<PathBuf> {
    SYSTEM_DIRS.iter().map(PathBuf::from).collect()
}

pub fn loaders() -> Vec<PathBuf> {
    LOADERS
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect()
}

/// The policy of one call of `tool`: what it declared, mapped onto the
/// filesystem of this machine. `workspace` is the project directory, or
/// the directory the server runs in; `tmp` the call's private directory;
/// `path` the PATH the tool gets (to find `env NAME`'s program).
pub fn policy(
    tool: &Tool,
    settings: &Settings,
    workspace: Option<&Path>,
    tmp: &Path,
    path: &str,
) -> Policy {
    let protect: Vec<PathBuf> = settings.protect.iter().map(PathBuf::from).collect();
    let mut p = Policy {
        read: system_read(),
        devices: system_devices(),
        network: tool.has("network"),
        ..Policy::default()
    };
    p.read.push(PathBuf::from(&tool.working_dir));
    p.write.push(tmp.to_path_buf());
    let granted = |list: &[String]| -> Vec<PathBuf> {
        list.iter()
            .map(PathBuf::from)
            .chain(workspace.map(Path::to_path_buf))
            .collect()
    };
    if tool.has("filesystem:write") {
        for dir in granted(&settings.allow_write) {
            p.write.extend(without(&dir, &protect));
        }
        for dir in &settings.allow_read {
            p.read.extend(without(Path::new(dir), &protect));
        }
    } else if tool.has("filesystem:read") {
        for dir in granted(&settings.allow_read)
            .into_iter()
            .chain(settings.allow_write.iter().map(PathBuf::from))
        {
            p.read.extend(without(&dir, &protect));
        }
    }
    // The programs of its own command line, and where an interpreter outside
    // the system directories lives (its prefix: `bin/..`).
    let programs = command_programs(&tool.command, path);
    for program in &programs {
        if let Some(prefix) = program
            .parent()
            .and_then(Path::parent)
            .filter(|prefix| !SYSTEM_DIRS.iter().any(|d| prefix.starts_with(d)))
        {
            p.read.push(prefix.to_path_buf());
        }
    }
    // A shell script's instructions are programs (`stat`, `cp`): a tool a
    // shell runs may run the system's, which inherit its confinement.
    let shell = programs.first().is_some_and(|p| is_shell(p));
    p.exec.extend(programs);
    p.exec.extend(loaders());
    if tool.has("process:exec") || shell {
        p.exec.extend(system_exec());
    }
    if tool.has("process:exec") {
        p.exec.push(PathBuf::from(&tool.working_dir));
    }
    if tool.isolation_mode() == IsolationMode::Sandboxed {
        p.no_fork = !tool.has("process:exec") && !shell;
        p.limits = Some(ResourceLimits {
            memory_bytes: settings.sandbox_memory_mb.saturating_mul(1024 * 1024),
            cpu_seconds: settings.sandbox_cpu_seconds,
        });
    }
    p
}

/// The programs a command line runs before the tool's own code, links
/// resolved: its first word (found on `path` when it is a bare name, see
/// [`find_program`]), for `env ... NAME` that NAME too, and the entrypoint
/// (the last word that is a file).
pub fn command_programs(command: &[String], path: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Some(first) = command.first() else {
        return out;
    };
    out.extend(find_program(first, path));
    let is_env = Path::new(first).file_name().is_some_and(|n| n == "env");
    if is_env {
        if let Some(name) = command[1..]
            .iter()
            .find(|w| !w.starts_with('-') && !w.contains('='))
        {
            out.extend(find_program(name, path));
        }
    }
    if let Some(entry) = command
        .iter()
        .skip(1)
        .rev()
        .find(|w| Path::new(w).is_file())
    {
        if let Ok(real) = std::fs::canonicalize(entry) {
            out.push(real);
        }
    }
    out
}

/// Whether `program` is a POSIX shell (by its name, links resolved:
/// `/bin/sh` is often dash or bash).
fn is_shell(program: &Path) -> bool {
    program
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| {
            matches!(
                n,
                "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "busybox"
            )
        })
}

/// The first `name` on `path` that is a program rather than a `#!` script
/// (a version manager's shim, such as pyenv's, runs other programs before
/// the interpreter, which a confined tool may not), links resolved. A
/// confined tool's bare interpreter name is replaced by this path.
pub fn find_program(name: &str, path: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return std::fs::canonicalize(name).ok();
    }
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(name))
        .filter(|p| p.is_file())
        .find(|p| !is_script(p))
        .and_then(|p| std::fs::canonicalize(p).ok())
}

fn is_script(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut start))
        .is_ok_and(|_| &start == b"#!")
}

/// `dir`, or when it holds a protected path, its entries but the ones
/// leading to that path, recursively: Landlock grants whole trees, so a
/// tree with a hole is granted as the trees around the hole.
pub fn without(dir: &Path, protect: &[PathBuf]) -> Vec<PathBuf> {
    let inside: Vec<&PathBuf> = protect.iter().filter(|p| p.starts_with(dir)).collect();
    if inside.is_empty() {
        return vec![dir.to_path_buf()];
    }
    if inside.iter().any(|p| p.as_path() == dir) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        out.extend(without(&entry.path(), protect));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_without_landlock_is_named_with_the_reason() {
        let enosys = usable_abi("t", Err(std::io::Error::from_raw_os_error(libc::ENOSYS)));
        let err = enosys.unwrap_err();
        assert!(matches!(err, SandboxError::NoLandlock { .. }));
        assert_eq!(
            err.to_string(),
            "this kernel has no Landlock (the confinement of t needs it: the kernel is built without it)"
        );
        assert!(err.hint().contains("isolation: best-effort"));
        let disabled = usable_abi(
            "t",
            Err(std::io::Error::from_raw_os_error(libc::EOPNOTSUPP)),
        )
        .unwrap_err();
        assert!(disabled.to_string().contains("lsm="), "{disabled}");
        assert_eq!(usable_abi("t", Ok(7)).unwrap(), 7);
        assert!(usable_abi("t", Ok(0)).is_err());
    }

    #[test]
    fn a_grant_holding_orlas_state_is_granted_around_it() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        for d in ["code/p", ".orla/tools", ".cache"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::write(home.join(".orla/receipt.key"), "k").unwrap();
        let mut got = without(home, &[home.join(".orla")]);
        got.sort();
        assert_eq!(got, [home.join(".cache"), home.join("code")]);
        assert_eq!(
            without(&home.join("code"), &[home.join(".orla")]),
            [home.join("code")]
        );
        assert!(without(&home.join(".orla"), &[home.join(".orla")]).is_empty());
    }

    #[test]
    fn env_finds_a_program_not_a_shim() {
        let dir = tempfile::tempdir().unwrap();
        let shims = dir.path().join("shims");
        std::fs::create_dir_all(&shims).unwrap();
        std::fs::write(shims.join("sh"), "#!/bin/bash\nexec real\n").unwrap();
        let path = format!("{}:/bin:/usr/bin", shims.display());
        let found = find_program("sh", &path).unwrap();
        assert!(!found.starts_with(&shims), "{found:?}");
        let command = ["sh".to_string()];
        let programs = command_programs(&command, &path);
        assert!(programs.contains(&found), "{programs:?}");
    }

    #[test]
    fn every_abi_maps_to_one_the_crate_knows() {
        assert_eq!(to_abi(1), ABI::V1);
        assert_eq!(to_abi(4), ABI::V4);
        assert_eq!(to_abi(7), ABI::V6);
    }
}
