//! An install root: where packages live (`<tools_dir>/<name>/<version>/`),
//! where its state lives (the manifest, pins, the lock), and what is
//! installed in it. Reading a root needs only this module; changing one goes
//! through [`crate::store::Store`], which keeps the invariants.

pub mod binding;
pub mod pins;
pub mod receipt;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::lock::{FileLock, LockKind};
use crate::package::{names, ToolYaml};
use crate::progress::{Event, Reporter, Warning};
use receipt::Receipt;

/// The staging area under tools_dir: packages are unpacked here, on the same
/// filesystem, so that moving one into place is one atomic rename.
pub(crate) const STAGING: &str = ".orla-staging";
/// In the state directory while a command changes the store and its manifest.
pub(crate) const PENDING: &str = ".manifest-pending";
/// The root's lock file, in the state directory.
pub(crate) const LOCK: &str = ".lock";
/// The runtime manifest's file name, in the state directory.
pub const MANIFEST_FILE: &str = "manifest.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RootKind {
    Global,
    Project,
}

/// Where packages are installed and where the root's state lives.
#[derive(Debug, Clone)]
pub struct InstallRoot {
    pub kind: RootKind,
    pub tools_dir: PathBuf,
    /// `~/.orla` for the global root, `<project>/.orla` for a project.
    pub state_dir: PathBuf,
    pub project_dir: Option<PathBuf>,
    /// For a project: the global root's state directory, whose tools the
    /// project's manifest also serves where no project tool shadows them
    /// (RFC 3 9.1). Set by `Context::root`.
    pub global_state_dir: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{name} {version} is already installed at {}", path.display())]
    AlreadyInstalled {
        name: String,
        version: String,
        path: PathBuf,
    },
    /// `detail` follows the message: where, or which versions are.
    #[error("{what} is not installed{detail}")]
    NotInstalled { what: String, detail: String },
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// `newer`: its manifest_version is one a newer orla writes.
    #[error("the runtime manifest {} is unreadable: {message}", path.display())]
    Manifest {
        path: PathBuf,
        message: String,
        newer: bool,
    },
    #[error("the version pins {} are unreadable: {message}", path.display())]
    Pins { path: PathBuf, message: String },
}

impl StoreError {
    pub fn io(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> StoreError {
        let path = path.to_path_buf();
        move |source| StoreError::Io {
            action,
            path,
            source,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            StoreError::AlreadyInstalled { .. } => Some("pass --force to reinstall it".into()),
            StoreError::NotInstalled { .. } => Some("`orla list` shows what is installed".into()),
            StoreError::Io { source, .. } if source.kind() == io::ErrorKind::PermissionDenied => {
                Some("check that you may write to the install root, or set ORLA_HOME".into())
            }
            // ENOSPC, EDQUOT, EFBIG: the disk, a quota or a file size limit is full.
            StoreError::Io { source, .. } if crate::fs::is_out_of_space(source) => Some(
                "free some disk space (or raise the quota) and run the command again; nothing was changed"
                    .into(),
            ),
            StoreError::Io { source, .. } if source.raw_os_error() == Some(30) => {
                Some("the install root is on a read-only filesystem; set ORLA_HOME to a writable directory".into())
            }
            // `ORLA_HOME=/proc/nope`: a root that cannot be made at all.
            StoreError::Io {
                action: "cannot create",
                ..
            } => Some("set ORLA_HOME to a directory you can write to".into()),
            StoreError::Manifest { newer: true, .. } => {
                Some("a newer orla wrote it: upgrade orla to use this root".into())
            }
            StoreError::Manifest { .. } => {
                Some("`orla list` rewrites it from the installed packages".into())
            }
            StoreError::Pins { path, .. } => Some(format!(
                "delete {}: each tool then serves its newest installed version, and `orla use NAME@VERSION` pins one again",
                path.display()
            )),
            _ => None,
        }
    }
}

/// An installed package, as found in the store.
#[derive(Debug, Clone)]
pub struct Installed {
    pub dir: PathBuf,
    pub receipt: Receipt,
    pub tool: ToolYaml,
}

impl InstallRoot {
    /// Fails when the root could not be written, checked without changing
    /// anything: the nearest existing directory on the way to its state
    /// directory must take a file (made and removed at once). Commands
    /// check it before they ask anything, so that a root that cannot be
    /// written fails before the permissions are shown.
    pub fn check_writable(&self) -> Result<(), StoreError> {
        let cannot = StoreError::io("cannot create", &self.state_dir);
        let Some(existing) = self.state_dir.ancestors().find(|a| a.exists()) else {
            return Err(cannot(io::ErrorKind::NotFound.into()));
        };
        if !existing.is_dir() {
            return Err(cannot(io::Error::from_raw_os_error(libc::ENOTDIR)));
        }
        tempfile::tempfile_in(existing).map(drop).map_err(cannot)
    }

    pub fn global(home: &Path) -> InstallRoot {
        InstallRoot {
            kind: RootKind::Global,
            tools_dir: home.join("tools"),
            state_dir: home.to_path_buf(),
            project_dir: None,
            global_state_dir: None,
        }
    }

    pub fn project(project_dir: &Path, tools_dir: &Path) -> InstallRoot {
        // `./tools` joined as written would put `/./` in every manifest path.
        let tools_dir: PathBuf = project_dir
            .join(tools_dir)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect();
        InstallRoot {
            kind: RootKind::Project,
            tools_dir,
            state_dir: project_dir.join(".orla"),
            project_dir: Some(project_dir.to_path_buf()),
            global_state_dir: None,
        }
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.state_dir.join(MANIFEST_FILE)
    }

    pub fn package_dir(&self, name: &str, version: &semver::Version) -> PathBuf {
        self.tools_dir.join(name).join(version.to_string())
    }

    pub(crate) fn staging_root(&self) -> PathBuf {
        self.tools_dir.join(STAGING)
    }

    pub(crate) fn pending_marker(&self) -> PathBuf {
        self.state_dir.join(PENDING)
    }

    /// Takes the root's lock shared, for commands that only read the store
    /// (`orla verify`): they wait for a change in progress, not for each other.
    pub fn read_lock(&self, reporter: &dyn Reporter) -> Result<FileLock, StoreError> {
        let path = self.state_dir.join(LOCK);
        FileLock::acquire(&path, LockKind::Shared, "the install root", reporter)
            .map_err(StoreError::io("cannot lock", &path))
    }

    /// True when an interrupted command left the manifest behind the store.
    pub fn needs_recovery(&self) -> bool {
        self.pending_marker().exists() || self.staging_root().exists()
    }

    /// Every `<tools_dir>/<name>/<version>/` directory whose name and
    /// version are valid, as `(name, version, dir)`, sorted by name and
    /// version; staging and other dot entries are skipped. What `scan`
    /// serves and what `orla verify` checks.
    pub fn package_dirs(&self) -> Result<Vec<(String, semver::Version, PathBuf)>, StoreError> {
        let mut out = Vec::new();
        for name in self.name_dirs()? {
            for (version, dir) in name.versions()? {
                out.push((name.name.clone(), version, dir));
            }
        }
        Ok(out)
    }

    /// Every `<tools_dir>/<name>/` directory whose name is valid, sorted by
    /// name; staging and other dot entries are skipped.
    pub fn name_dirs(&self) -> Result<Vec<NameDir>, StoreError> {
        let mut out = Vec::new();
        let names = match fs::read_dir(&self.tools_dir) {
            Ok(d) => d,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(StoreError::io("cannot read", &self.tools_dir)(e)),
        };
        for entry in names {
            let entry = entry.map_err(StoreError::io("cannot read", &self.tools_dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || names::validate_name(&name).is_err() || !is_dir(&entry) {
                continue;
            }
            out.push(NameDir {
                name,
                found: Found::Listed(entry),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Every package in the store with a readable receipt bound to this root
    /// (see [`binding`]), sorted by name and version. Directories orla did
    /// not install here are reported and skipped: they are never served.
    pub fn scan(&self, reporter: &dyn Reporter) -> Result<Vec<Installed>, StoreError> {
        let dirs = self.package_dirs()?.into_iter().map(|(_, _, dir)| dir);
        Ok(self.load_all(dirs, reporter))
    }

    /// The packages at `dirs` that load, sorted by name and version; the
    /// others are reported and skipped.
    fn load_all(
        &self,
        dirs: impl IntoIterator<Item = PathBuf>,
        reporter: &dyn Reporter,
    ) -> Vec<Installed> {
        let key = self.key_state();
        let mut out = Vec::new();
        for dir in dirs {
            match self.load(dir, &key) {
                Ok(pkg) => out.push(pkg),
                Err((dir, why)) => reporter.report(Event::Warning(ignored(&dir, why))),
            }
        }
        out.sort_by(|a, b| {
            (&a.receipt.name, &a.receipt.version).cmp(&(&b.receipt.name, &b.receipt.version))
        });
        out
    }

    /// The packages of the tools `names` alone, as [`scan`](Self::scan)
    /// gives them: what a command about some tools (uninstall, use, info)
    /// reads of a root of a thousand.
    pub fn scan_names(
        &self,
        names: &[&str],
        reporter: &dyn Reporter,
    ) -> Result<Vec<Installed>, StoreError> {
        let mut names: Vec<&str> = names.to_vec();
        names.sort_unstable();
        names.dedup();
        let mut dirs = Vec::new();
        for name in names {
            if names::validate_name(name).is_err() {
                continue;
            }
            let dir = self.tools_dir.join(name);
            if !dir.is_dir() {
                continue;
            }
            dirs.extend(versions_in(&dir)?.into_iter().map(|(_, dir)| dir));
        }
        Ok(self.load_all(dirs, reporter))
    }

    /// Reads the package at `dir` (one of [`package_dirs`](Self::package_dirs))
    /// if it has a readable receipt and tool.yaml and the receipt is bound to
    /// this root; else the directory and why not (for [`ignored`]).
    pub fn load(
        &self,
        dir: PathBuf,
        key: &binding::KeyState,
    ) -> Result<Installed, (PathBuf, String)> {
        let receipt = match Receipt::read(&dir) {
            Ok(receipt) => receipt,
            Err(e) => return Err((dir, e.to_string())),
        };
        let tool = match ToolYaml::read(&dir) {
            Ok(tool) => tool,
            Err(e) => return Err((dir, e.to_string())),
        };
        if let Err(why) = self.check_binding_with(key, &dir, &receipt) {
            let hint = binding::untrusted_hint(&receipt.name, &receipt.version);
            return Err((dir, format!("{why}; {hint}")));
        }
        Ok(Installed { dir, receipt, tool })
    }
}

/// One `<tools_dir>/<name>/` directory, as a listing of tools_dir found it
/// (see [`InstallRoot::name_dirs`]) or named without one.
pub struct NameDir {
    pub name: String,
    found: Found,
}

enum Found {
    Listed(fs::DirEntry),
    Named(PathBuf),
}

impl NameDir {
    /// `<tools_dir>/<name>/`, which may not exist.
    pub fn named(root: &InstallRoot, name: &str) -> NameDir {
        NameDir {
            name: name.to_string(),
            found: Found::Named(root.tools_dir.join(name)),
        }
    }

    pub fn path(&self) -> PathBuf {
        match &self.found {
            Found::Listed(entry) => entry.path(),
            Found::Named(path) => path.clone(),
        }
    }

    /// The directory's metadata (a symbolic link followed). Read relative
    /// to tools_dir when a listing found it: no path walk.
    pub fn metadata(&self) -> io::Result<fs::Metadata> {
        match &self.found {
            Found::Listed(entry) => match entry.file_type() {
                Ok(t) if t.is_symlink() => fs::metadata(entry.path()),
                _ => entry.metadata(),
            },
            Found::Named(path) => fs::metadata(path),
        }
    }

    /// Its `<version>/` directories whose version is valid, sorted by version.
    pub fn versions(&self) -> Result<Vec<(semver::Version, PathBuf)>, StoreError> {
        versions_in(&self.path())
    }
}

/// The `<version>/` directories of the name directory `path` whose version
/// is valid, sorted by version.
fn versions_in(path: &Path) -> Result<Vec<(semver::Version, PathBuf)>, StoreError> {
    let versions = fs::read_dir(path).map_err(StoreError::io("cannot read", path))?;
    let mut out = Vec::new();
    for v in versions {
        let v = v.map_err(StoreError::io("cannot read", path))?;
        let text = v.file_name().to_string_lossy().into_owned();
        let Ok(version) = names::parse_version(&text) else {
            continue;
        };
        if !text.starts_with('.') && is_dir(&v) {
            out.push((version, v.path()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The warning for a package directory [`InstallRoot::load`] refused.
pub fn ignored(dir: &Path, why: String) -> Warning {
    Warning::PackageIgnored {
        path: dir.display().to_string(),
        why,
    }
}

/// Whether a directory entry is a directory, following a symbolic link:
/// the entry's own type when the filesystem reports it (no `stat` each).
fn is_dir(entry: &fs::DirEntry) -> bool {
    match entry.file_type() {
        Ok(t) if t.is_dir() => true,
        Ok(t) if !t.is_symlink() => false,
        _ => entry.path().is_dir(),
    }
}
