//! One command's change to a project's orla.yaml and orla.lock.
//!
//! Every command that changes what a project requires (install, update,
//! uninstall, use) reads both files, edits them, and writes them back in
//! the same order: orla.yaml first, then orla.lock, each only when it
//! changed and each atomically. A [`Transaction`] is that sequence, once.
//!
//! orla.yaml is the user's file: each requirement is changed by a surgical
//! text edit (see [`super::edit`]) that is parsed again and must differ from
//! the original in exactly that entry, or the edit is refused with a hint to
//! make it by hand. Nothing is written before [`Transaction::commit`], so a
//! refused edit changes nothing.
//!
//! The caller journals the change first (`Store::begin`), so that a failure
//! or a kill before the manifest is written restores both files with the
//! packages.

use std::collections::BTreeMap;

use super::lockfile::{LockFile, LockedTool};
use super::{edit, parse, Project, ProjectError};

/// orla.yaml and orla.lock of one project, being edited.
pub struct Transaction<'a> {
    project: &'a Project,
    yaml: String,
    yaml_on_disk: String,
    lock: LockFile,
    lock_on_disk: Option<String>,
    /// Write orla.lock even when it would be empty and there is none yet.
    create_lock: bool,
}

/// What [`Transaction::commit`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub yaml: bool,
    pub lock: bool,
}

impl<'a> Transaction<'a> {
    /// Reads both files as they are now: call it under the root's lock, so
    /// that pins another orla made meanwhile survive this command.
    pub fn begin(project: &'a Project) -> Result<Transaction<'a>, ProjectError> {
        let path = project.config_path();
        let yaml = std::fs::read_to_string(&path).map_err(|source| ProjectError::Io {
            path: path.clone(),
            source,
        })?;
        let lock_path = project.lock_path();
        let lock_on_disk = match std::fs::read_to_string(&lock_path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(ProjectError::Io {
                    path: lock_path,
                    source,
                })
            }
        };
        let lock = LockFile::read(&lock_path)?.unwrap_or_default();
        Ok(Transaction {
            project,
            yaml_on_disk: yaml.clone(),
            yaml,
            lock,
            lock_on_disk,
            create_lock: false,
        })
    }

    /// The requirement orla.yaml holds for `name`, as edited so far.
    pub fn requirement(&self, name: &str) -> Option<String> {
        parse(&self.yaml, &self.project.dir)
            .ok()
            .and_then(|config| config.tools.get(name).map(|r| r.trim().to_string()))
    }

    /// Records `requirement` for `name` in orla.yaml (unless it already
    /// holds exactly that).
    pub fn require(&mut self, name: &str, requirement: &str) -> Result<(), ProjectError> {
        if self.requirement(name).as_deref() == Some(requirement.trim()) {
            return Ok(());
        }
        self.yaml = edit_yaml(self.project, &self.yaml, name, Some(requirement))?;
        Ok(())
    }

    /// Takes `name` out of orla.yaml's `tools:` and out of orla.lock.
    pub fn forget(&mut self, name: &str) -> Result<(), ProjectError> {
        if self.requirement(name).is_some() {
            self.yaml = edit_yaml(self.project, &self.yaml, name, None)?;
        }
        self.lock.remove(name);
        Ok(())
    }

    /// The lock as edited so far.
    pub fn lock(&self) -> &LockFile {
        &self.lock
    }

    /// Pins `tool` in orla.lock; returns whether that changed the pin.
    pub fn pin(&mut self, tool: LockedTool) -> bool {
        let changed = self.lock.get(&tool.name) != Some(&tool);
        self.lock.set(tool);
        changed
    }

    /// Drops `name`'s pin from orla.lock; returns whether there was one.
    pub fn unpin(&mut self, name: &str) -> bool {
        self.lock.remove(name)
    }

    /// Makes `commit` write orla.lock even when it pins nothing: after
    /// `orla install` a project always has one to commit.
    pub fn create_lock(&mut self) {
        self.create_lock = true;
    }

    /// Writes orla.yaml, then orla.lock, each only if it changed.
    pub fn commit(self) -> Result<Written, ProjectError> {
        let write = |path: std::path::PathBuf, text: &str| {
            crate::fs::atomic_write(&path, text.as_bytes())
                .map_err(|source| ProjectError::Write { path, source })
        };
        let yaml = self.yaml != self.yaml_on_disk;
        if yaml {
            write(self.project.config_path(), &self.yaml)?;
        }
        let text = self.lock.to_toml();
        // An empty lock that was never written stays unwritten, unless asked.
        let lock = match &self.lock_on_disk {
            Some(old) => *old != text,
            None => self.create_lock || !self.lock.tools.is_empty(),
        };
        if lock {
            write(self.project.lock_path(), &text)?;
        }
        Ok(Written { yaml, lock })
    }
}

/// Rewrites one `tools:` entry of orla.yaml's text and checks that the
/// result parses to exactly the intended change.
pub fn edit_yaml(
    project: &Project,
    text: &str,
    name: &str,
    requirement: Option<&str>,
) -> Result<String, ProjectError> {
    let edited = match requirement {
        Some(r) => edit::set_tool(text, name, r),
        None => edit::remove_tool(text, name),
    };
    let refuse = |why: String| ProjectError::UnsafeEdit {
        path: project.config_path(),
        why,
        hint: match requirement {
            Some(r) => {
                format!("add `{name}: \"{r}\"` under `tools:` by hand and run `orla install`")
            }
            None => format!("remove `{name}` from `tools:` by hand"),
        },
    };
    let edited = edited.map_err(|e| refuse(e.to_string()))?;
    let before = parse(text, &project.dir).map_err(|e| refuse(e.message))?;
    let after = parse(&edited, &project.dir).map_err(|e| refuse(e.message))?;
    let mut expected: BTreeMap<String, String> = before.tools.clone();
    match requirement {
        Some(r) => expected.insert(name.to_string(), r.to_string()),
        None => expected.remove(name),
    };
    let same_rest = before.port == after.port
        && before.timeout == after.timeout
        && before.tools_dir == after.tools_dir
        && before.log_format == after.log_format
        && before.log_level == after.log_level
        && before.registries == after.registries;
    if after.tools != expected || !same_rest {
        return Err(refuse("the edit would change more than that entry".into()));
    }
    Ok(edited)
}
