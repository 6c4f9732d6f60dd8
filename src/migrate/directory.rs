//! Migrating a capsule directory on disk: convert (`capsule::migrate`),
//! validate the result as it would be written, and only then write
//! tool.yaml and set the old manifest aside (`orla-tool.json.bak`, or
//! delete it). Any error leaves the capsule exactly as it was. A capsule
//! already migrated (tool.yaml present, no orla-tool.json) is left alone,
//! so migrating twice is harmless.

use std::path::{Path, PathBuf};

use super::capsule::{self, Migration, BACKUP_FILE, LEGACY_FILE};
use crate::fs::atomic_write;
use crate::package::validate::{self, Problem};
use crate::package::{Severity, TOOL_YAML};

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// A capsule (or, with `--all`, a tools directory) that is not a directory.
    #[error("{} {}", path.display(), if *exists { "is not a directory" } else { "does not exist" })]
    NotADirectory {
        path: PathBuf,
        exists: bool,
        /// Named by `--all`: a directory holding capsules.
        all: bool,
    },
    /// `capsules`: how many capsules lie below `dir`, which `--all` would
    /// migrate.
    #[error("{} has no orla-tool.json", dir.display())]
    NoManifest { dir: PathBuf, capsules: usize },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The tool.yaml the migration gives would not validate.
    #[error("{} cannot be migrated: the tool.yaml would be invalid: {}", path.display(), crate::package::error_summary(problems))]
    Invalid {
        path: PathBuf,
        problems: Vec<Problem>,
    },
    #[error("{} already has a tool.yaml that differs from the migrated one", dir.display())]
    ToolYamlDiffers { dir: PathBuf },
    #[error("{} exists and differs from orla-tool.json", backup.display())]
    BackupDiffers { backup: PathBuf },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot move {} aside: {source}", path.display())]
    MoveAside {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `--all`: some capsules failed (each was reported as it failed).
    #[error("{0}")]
    SomeFailed(Summary),
    #[error(transparent)]
    Capsule(#[from] capsule::CapsuleError),
}

impl MigrateError {
    pub fn hint(&self) -> Option<String> {
        let hint = match self {
            MigrateError::NotADirectory { all: true, .. } => {
                "--all takes a tools directory holding capsules"
            }
            MigrateError::NotADirectory { all: false, .. } => {
                "name a capsule directory holding orla-tool.json"
            }
            MigrateError::NoManifest { dir, capsules } if *capsules > 0 => {
                let dir = dir.display();
                return Some(if *capsules == 1 {
                    format!("a capsule lies in a subdirectory: name it, or `orla migrate capsule --all {dir}` migrates it")
                } else {
                    format!("{capsules} capsules lie in its subdirectories; `orla migrate capsule --all {dir}` migrates them all")
                });
            }
            MigrateError::NoManifest { .. } => {
                "an RFC 2 capsule is a directory with orla-tool.json at its root"
            }
            MigrateError::Read { .. } => "orla-tool.json must be a readable UTF-8 text file",
            MigrateError::Invalid { .. } => {
                "fix the capsule (see above), then run the migration again; nothing was changed"
            }
            MigrateError::ToolYamlDiffers { .. } => {
                "compare with --dry-run, then remove tool.yaml or pass --force"
            }
            MigrateError::BackupDiffers { .. } => {
                "move the old backup away, or pass --remove-legacy"
            }
            MigrateError::Write { .. } => {
                "check that you may write to the capsule's directory; nothing was changed"
            }
            MigrateError::MoveAside { .. } => {
                "check that you may rename files in the capsule's directory, then run the migration again"
            }
            MigrateError::Capsule(e) => return e.hint(),
            MigrateError::SomeFailed(_) => {
                "the failed capsules are unchanged; fix the errors above and run again"
            }
        };
        Some(hint.to_string())
    }
}

/// How a migration may change the directory.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Replace a tool.yaml that differs from the migrated one.
    pub force: bool,
    /// Delete orla-tool.json instead of keeping it as orla-tool.json.bak.
    pub remove_legacy: bool,
}

/// A capsule converted in memory, valid, and checked against what is on
/// disk; nothing is written before [`Prepared::write`].
pub struct Prepared {
    pub dir: PathBuf,
    pub migration: Migration,
    /// The tool.yaml to write.
    pub yaml: String,
    /// What validation warns about (it found no error).
    pub warnings: Vec<Problem>,
    legacy_text: String,
}

/// What `prepare` found.
pub enum Step {
    /// tool.yaml and no orla-tool.json: migrated before.
    AlreadyDone,
    Ready(Box<Prepared>),
}

/// What became of orla-tool.json.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegacyFate {
    Removed,
    Kept,
}

impl std::fmt::Display for LegacyFate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LegacyFate::Removed => write!(f, "removed orla-tool.json"),
            LegacyFate::Kept => write!(f, "kept the old manifest as {BACKUP_FILE}"),
        }
    }
}

/// Reads and converts the capsule in `dir`, refusing an invalid result.
pub fn prepare(dir: &Path) -> Result<Step, MigrateError> {
    if !dir.is_dir() {
        return Err(MigrateError::NotADirectory {
            path: dir.to_path_buf(),
            exists: dir.exists(),
            all: false,
        });
    }
    let legacy = dir.join(LEGACY_FILE);
    let tool_yaml = dir.join(TOOL_YAML);
    if !legacy.exists() {
        if tool_yaml.is_file() {
            return Ok(Step::AlreadyDone);
        }
        return Err(MigrateError::NoManifest {
            dir: dir.to_path_buf(),
            capsules: find_all(dir).map_or(0, |found| found.len()),
        });
    }
    let origin = legacy.display().to_string();
    let text = std::fs::read_to_string(&legacy).map_err(|source| MigrateError::Read {
        path: legacy.clone(),
        source,
    })?;
    let readme = [
        "README.md",
        "README",
        "readme.md",
        "Readme.md",
        "README.txt",
    ]
    .iter()
    .find_map(|n| std::fs::read_to_string(dir.join(n)).ok());
    let migration = capsule::migrate(&text, &origin, readme.as_deref())?;
    let yaml = migration.to_yaml();

    // Validate what would be written, against the files really there.
    let problems = validate::validate(&migration.tool, Some(dir));
    if problems.iter().any(|p| p.severity == Severity::Error) {
        return Err(MigrateError::Invalid {
            path: legacy,
            problems,
        });
    }
    Ok(Step::Ready(Box::new(Prepared {
        dir: dir.to_path_buf(),
        migration,
        yaml,
        warnings: problems,
        legacy_text: text,
    })))
}

impl Prepared {
    /// Refuses a tool.yaml or a backup already there that the migration
    /// would replace.
    fn refuse(&self, options: Options) -> Result<(), MigrateError> {
        if let Ok(existing) = std::fs::read_to_string(self.dir.join(TOOL_YAML)) {
            if existing != self.yaml && !options.force {
                return Err(MigrateError::ToolYamlDiffers {
                    dir: self.dir.clone(),
                });
            }
        }
        let backup = self.dir.join(BACKUP_FILE);
        if !options.remove_legacy {
            if let Ok(old) = std::fs::read_to_string(&backup) {
                if old != self.legacy_text {
                    return Err(MigrateError::BackupDiffers { backup });
                }
            }
        }
        Ok(())
    }

    /// Writes tool.yaml, then removes or renames orla-tool.json; when that
    /// fails, tool.yaml is taken out again. A tool.yaml that differs
    /// (unless `force`) or a backup that differs (unless `remove_legacy`)
    /// is refused first.
    pub fn write(&self, options: Options) -> Result<LegacyFate, MigrateError> {
        self.refuse(options)?;
        let tool_yaml = self.dir.join(TOOL_YAML);
        let legacy = self.dir.join(LEGACY_FILE);
        atomic_write(&tool_yaml, self.yaml.as_bytes()).map_err(|source| MigrateError::Write {
            path: tool_yaml.clone(),
            source,
        })?;
        let (done, fate) = if options.remove_legacy {
            (std::fs::remove_file(&legacy), LegacyFate::Removed)
        } else {
            (
                std::fs::rename(&legacy, self.dir.join(BACKUP_FILE)),
                LegacyFate::Kept,
            )
        };
        if let Err(source) = done {
            // Put things back as they were: the capsule stays an RFC 2 capsule.
            let _ = std::fs::remove_file(&tool_yaml);
            return Err(MigrateError::MoveAside {
                path: legacy,
                source,
            });
        }
        Ok(fate)
    }
}

/// The capsule directories below `root` (`--all`), sorted.
pub fn find_all(root: &Path) -> Result<Vec<PathBuf>, MigrateError> {
    if !root.is_dir() {
        return Err(MigrateError::NotADirectory {
            path: root.to_path_buf(),
            exists: root.exists(),
            all: true,
        });
    }
    let mut capsules = Vec::new();
    find(root, &mut capsules);
    capsules.sort();
    Ok(capsules)
}

/// Capsule directories below `dir`: those holding orla-tool.json, and
/// migrated ones (tool.yaml with orla-tool.json.bak) so they are reported.
/// Hidden directories are skipped and a capsule's insides are not searched.
fn find(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join(LEGACY_FILE).is_file()
        || (dir.join(TOOL_YAML).is_file() && dir.join(BACKUP_FILE).is_file())
    {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if is_dir && !entry.file_name().to_string_lossy().starts_with('.') {
            find(&entry.path(), out);
        }
    }
}

/// The outcome of `--all`.
#[derive(Debug)]
pub struct Summary {
    pub root: PathBuf,
    pub total: usize,
    pub migrated: usize,
    pub failed: usize,
    pub already: usize,
    pub dry_run: bool,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.dry_run {
            "to migrate"
        } else {
            "migrated"
        };
        write!(
            f,
            "{} capsule(s) under {}: {} {verb}, {} failed, {} already migrated",
            self.total,
            self.root.display(),
            self.migrated,
            self.failed,
            self.already
        )
    }
}
