//! The install store: `<tools_dir>/<name>/<version>/`, changed only under the
//! root's lock and only by atomic renames (ARCHITECTURE.md, invariants 1, 3, 4, 5).
//!
//! An install unpacks into a fresh directory under `<tools_dir>/.orla-staging/`
//! (same filesystem, so the final `rename` is atomic), writes the receipt
//! there, and renames the whole directory into place. Before the rename a
//! marker file records that the manifest is about to change; it is removed
//! once the manifest is rewritten. A process killed in between leaves the
//! marker behind, and the next orla to open the root regenerates the manifest
//! from the store and empties the staging area. So after any crash the root
//! holds either the old state or the new one, and the manifest catches up
//! before anyone reads it.
//!
//! One command may make several changes (install two tools, or an update:
//! install the new version, remove the old one), and a reinstall takes two
//! renames, since a rename cannot replace a non-empty directory. So every
//! change is first appended to a journal (`.orla-staging/journal`, flushed
//! before the rename it announces), and packages replaced or removed are
//! moved into staging rather than deleted. Writing the new manifest is the
//! moment the command takes effect (the runtime reads nothing else); the
//! journal is deleted right after. A command that fails before that, or a
//! process killed before that, is rolled back from the journal (by the
//! failing command itself, or by the next orla to open the root): new
//! packages are moved out, old ones moved back. A process killed after the
//! manifest was written but before the journal went is finished forward.
//! So what the manifest says is always exactly the state before a command
//! or the state after it, never half of a multi-package install, and the
//! store matches it once the next command has run. The journal's first
//! step also keeps copies of the state files a command rewrites before its
//! manifest (a project's orla.yaml and orla.lock, and pins.json), which a
//! roll back restores with the packages.
//!
//! The packages one command installs are committed as one batch
//! (`commit_all`), so twenty tools do not wait for twenty rounds of
//! flushes: the pending marker is written once, and one journal write (one
//! `fsync`) names every new package before the first of them is renamed
//! into place. Reinstalls over an installed copy follow the batch one at a
//! time, as each moves its old copy aside first. Killed anywhere in
//! between, recovery finds every package of the batch in the journal and
//! moves out whichever of them is in place, so any subset of the renames
//! is undone alike (`tests/it/crash_and_concurrency.rs`).
//!
//! The packages' files and directories, and the directories they were
//! renamed into, are flushed in one parallel pass (`store::flush`) before
//! the manifest is written (`sync_manifest`): the manifest names nothing
//! that is not on disk. Until then the journal holds, and it is flushed
//! before the first rename, so a command killed, or a machine losing
//! power, before the manifest is rolled back whatever the packages' files
//! hold. The pending marker is not flushed: without the journal nothing
//! had moved.

mod flush;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::fs::{atomic_write, remove_temp_files, rename_exchange, sync_dir, write_synced};
use crate::lock::{FileLock, LockKind};
use crate::manifest::{self, Manifest};
use crate::package::names;
use crate::progress::{Event, Reporter, Warning};
use crate::root::pins;
pub use crate::root::StoreError;
use crate::root::{InstallRoot, LOCK};

/// The journal of the command in progress, in the staging area.
const JOURNAL: &str = "journal";
/// The moved-aside package inside a staging directory.
const OLD: &str = "old";
/// A reinstall's new copy inside its staging directory, before the swap.
const NEW: &str = "new";
/// Marks the new copy of a reinstall until the swap is complete, so that a
/// roll back can tell the two copies apart.
const NEW_MARKER: &str = ".orla-new";

/// An install root opened for change: holds its lock until dropped.
pub struct Store<'a> {
    pub root: &'a InstallRoot,
    /// Whether this command created tools_dir (so a failed first install
    /// can leave it as it found it).
    created_tools_dir: bool,
    /// What of the packages `commit_all` put in place is still to flush
    /// (files, directories): flushed before the manifest is written
    /// (`sync_manifest`).
    unflushed: std::sync::Mutex<(Vec<PathBuf>, Vec<PathBuf>)>,
    _lock: FileLock,
}

/// A verified package in staging, for [`Store::commit_all`].
pub struct Staged<'p> {
    /// The package's root in staging.
    pub dir: &'p Path,
    pub name: &'p str,
    pub version: &'p semver::Version,
}

fn already_installed(name: &str, version: &semver::Version, target: &Path) -> StoreError {
    StoreError::AlreadyInstalled {
        name: name.into(),
        version: version.to_string(),
        path: target.to_path_buf(),
    }
}

impl Drop for Store<'_> {
    fn drop(&mut self) {
        // A command that failed after changing the store undoes its changes.
        if self.journal_path().exists()
            && matches!(self.settle(&crate::progress::Silent), Ok(false))
        {
            let _ = fs::remove_file(self.root.pending_marker());
        }
        // Both only succeed when empty: a failed command leaves no trace.
        let _ = fs::remove_dir(self.root.staging_root());
        if self.created_tools_dir {
            let _ = fs::remove_dir(&self.root.tools_dir);
        }
    }
}

impl<'a> Store<'a> {
    /// Takes the root's lock (waiting for another orla if need be) and
    /// recovers from any interrupted command.
    pub fn open(root: &'a InstallRoot, reporter: &dyn Reporter) -> Result<Store<'a>, StoreError> {
        fs::create_dir_all(&root.state_dir)
            .map_err(StoreError::io("cannot create", &root.state_dir))?;
        let lock_path = root.state_dir.join(LOCK);
        let lock = FileLock::acquire(
            &lock_path,
            LockKind::Exclusive,
            "the install root",
            reporter,
        )
        .map_err(StoreError::io("cannot lock", &lock_path))?;
        let store = Store {
            root,
            created_tools_dir: !root.tools_dir.exists(),
            unflushed: Default::default(),
            _lock: lock,
        };
        refuse_newer_manifest(root)?;
        store.recover(reporter)?;
        Ok(store)
    }

    fn recover(&self, reporter: &dyn Reporter) -> Result<(), StoreError> {
        let staging = self.root.staging_root();
        // Every interrupted change left its staging area (the journal is in it).
        let interrupted = staging.exists();
        if self.journal_path().exists() {
            self.settle(reporter)?;
        }
        if staging.exists() {
            fs::remove_dir_all(&staging).map_err(StoreError::io("cannot clean", &staging))?;
        }
        remove_temp_files(&self.root.state_dir);
        // A name directory a killed install created but never filled; only
        // then, as a project's tools_dir may hold empty directories of its own.
        if let (true, Ok(names)) = (interrupted, fs::read_dir(&self.root.tools_dir)) {
            for entry in names.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if names::validate_name(&name).is_ok() {
                    let _ = fs::remove_dir(entry.path()); // only when empty
                }
            }
        }
        if self.root.pending_marker().exists() {
            self.sync_manifest(reporter)?;
        }
        Ok(())
    }

    fn journal_path(&self) -> PathBuf {
        self.root.staging_root().join(JOURNAL)
    }

    /// Appends one step to the journal and flushes it, before the step.
    fn journal(&self, step: &Step) -> Result<(), StoreError> {
        self.append_journal(std::slice::from_ref(step))
    }

    /// Starts the journal of a command that rewrites state files (a
    /// project's orla.yaml or orla.lock, pins.json) before its manifest, so
    /// that a failure or a kill before the manifest restores them. A
    /// package step starts it by itself; starting it twice is harmless.
    pub fn begin(&self) -> Result<(), StoreError> {
        if self.journal_path().exists() {
            return Ok(());
        }
        self.append_journal(&[])
    }

    /// Appends `steps` to the journal with one write and one flush, before
    /// any of them is taken.
    fn append_journal(&self, steps: &[Step]) -> Result<(), StoreError> {
        let staging = self.root.staging_root();
        fs::create_dir_all(&staging).map_err(StoreError::io("cannot create", &staging))?;
        let path = self.journal_path();
        let new = !path.exists();
        // The command's first step: keep copies of the state files it may
        // rewrite before its manifest (orla.yaml, orla.lock, pins), so that
        // a roll back restores them with the packages.
        let mut text = if new {
            self.back_up_state_files()?
        } else {
            String::new()
        };
        for step in steps {
            text.push_str(&step.to_line());
            text.push('\n');
        }
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(StoreError::io("cannot write", &path))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(StoreError::io("cannot write", &path))?;
        if new {
            sync_dir(&staging);
        }
        Ok(())
    }

    /// The state files a command may rewrite besides the packages, by the
    /// name the journal uses for them.
    fn state_files(&self) -> Vec<(&'static str, PathBuf)> {
        let mut files = vec![(pins::PINS_FILE, self.root.state_dir.join(pins::PINS_FILE))];
        if let Some(project) = &self.root.project_dir {
            for name in [crate::project::CONFIG_FILE, crate::project::LOCK_FILE] {
                files.push((name, project.join(name)));
            }
        }
        files
    }

    /// Copies the state files into a fresh staging directory (flushed) and
    /// returns the journal lines naming the copies: `file NAME ASIDE`, or
    /// `file NAME -` for a file that does not exist yet.
    fn back_up_state_files(&self) -> Result<String, StoreError> {
        let files = self.state_files();
        // No directory for copies when there is nothing to copy: making
        // and removing one costs a block allocated and freed (a discard
        // where the filesystem is mounted with it).
        if !files.iter().any(|(_, path)| path.is_file()) {
            return Ok(files
                .iter()
                .map(|(name, _)| format!("file {name} -\n"))
                .collect());
        }
        let aside = self.staging_dir()?.keep();
        let mut lines = String::new();
        for (name, path) in files {
            if path.is_file() {
                let copy = aside.join(name);
                fs::copy(&path, &copy)
                    .and_then(|_| fs::File::open(&copy)?.sync_all())
                    .map_err(StoreError::io("cannot back up", &path))?;
                lines.push_str(&format!("file {name} {}\n", file_name(&aside)));
            } else {
                lines.push_str(&format!("file {name} -\n"));
            }
        }
        if lines.contains(&file_name(&aside)) {
            sync_dir(&aside);
        } else {
            let _ = fs::remove_dir(&aside);
        }
        Ok(lines)
    }

    /// Puts the state files back as the journal's copies have them.
    fn restore_state_files(&self, journal: &str) -> Result<(), StoreError> {
        let staging = self.root.staging_root();
        let files = self.state_files();
        for line in journal.lines() {
            let mut words = line.split(' ');
            let (Some("file"), Some(name), Some(aside), None) =
                (words.next(), words.next(), words.next(), words.next())
            else {
                continue;
            };
            let Some((_, path)) = files.iter().find(|(n, _)| *n == name) else {
                continue;
            };
            if aside == "-" {
                match fs::remove_file(path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(StoreError::io("cannot roll back", path)(e)),
                }
            } else if is_stage_name(aside) {
                let copy = staging.join(aside).join(name);
                let bytes = fs::read(&copy).map_err(StoreError::io("cannot read", &copy))?;
                atomic_write(path, &bytes).map_err(StoreError::io("cannot roll back", path))?;
            }
        }
        Ok(())
    }

    /// Ends an interrupted command. Its manifest is its commit point: if the
    /// manifest on disk is already the one the store now gives, the command
    /// got that far and only its journal is left to drop (it is finished
    /// forward, so a runtime that loaded the new manifest keeps seeing the
    /// truth); otherwise it is rolled back. Returns whether it was finished.
    fn settle(&self, reporter: &dyn Reporter) -> Result<bool, StoreError> {
        let on_disk = fs::read(self.root.manifest_path()).ok();
        let steps = self.journal_steps();
        let finished = match on_disk {
            Some(bytes) => {
                self.render_manifest(&steps, &crate::progress::Silent)?
                    .to_json()
                    .as_bytes()
                    == bytes
            }
            None => false,
        };
        if finished {
            // The manifest no longer names what is leaving: move it out.
            self.finish_removals(&steps)?;
            let path = self.journal_path();
            let text = fs::read_to_string(&path).unwrap_or_default();
            // A reinstall by exchange killed after the swap leaves its marker
            // in the new copy; the copy stays, so the marker goes (before
            // the journal, which is what says where to look).
            for step in text.lines().filter_map(Step::parse) {
                let target = self.root.package_dir(&step.name, &step.version);
                if step.kind == StepKind::Commit && target.join(NEW_MARKER).exists() {
                    let marker = target.join(NEW_MARKER);
                    fs::remove_file(&marker).map_err(StoreError::io("cannot remove", &marker))?;
                    sync_dir(&target);
                }
            }
            fs::remove_file(&path).map_err(StoreError::io("cannot remove", &path))?;
            for aside in asides(&text) {
                let _ = fs::remove_dir_all(self.root.staging_root().join(aside));
            }
        } else {
            self.roll_back(reporter)?;
        }
        Ok(finished)
    }

    /// Undoes the journaled steps of an unfinished command, newest first.
    fn roll_back(&self, reporter: &dyn Reporter) -> Result<(), StoreError> {
        let path = self.journal_path();
        let text = fs::read_to_string(&path).map_err(StoreError::io("cannot read", &path))?;
        let staging = self.root.staging_root();
        // Lines that do not parse (a torn last write, or a hand edit) name
        // nothing to undo: the step they announce never started.
        let steps: Vec<Step> = text.lines().filter_map(Step::parse).collect();
        let mut discarded = Vec::new();
        for step in steps.iter().rev() {
            let target = self.root.package_dir(&step.name, &step.version);
            let parent = target.parent().expect("package dirs have a parent");
            let old = step.aside.as_ref().map(|a| staging.join(a).join(OLD));
            let new = step.aside.as_ref().map(|a| staging.join(a).join(NEW));
            if let Some(new) = new.as_ref().filter(|n| n.is_dir()) {
                // A reinstall by exchange, killed before its last rename:
                // either the new copy waits in staging (nothing to undo),
                // or the two were swapped and the old copy waits there.
                if target.join(NEW_MARKER).exists() {
                    // Swapped back in one step too; the new copy stays in staging.
                    rename_exchange(new, &target)
                        .map_err(StoreError::io("cannot roll back", &target))?;
                }
                reporter.report(rolled_back(step));
                continue;
            }
            let old_moved = old.as_ref().is_some_and(|o| o.is_dir());
            if let (Some(old), true, true) = (&old, old_moved, step.kind == StepKind::Commit) {
                // A replaced package: put the old copy back in one step
                // where the filesystem can, so the directory the manifest
                // names is never missing during the roll back either.
                let aside = old.parent().expect("inside its staging directory");
                if target.exists()
                    && exchange_supported(aside)
                    && rename_exchange(old, &target).is_ok()
                {
                    reporter.report(rolled_back(step));
                    continue;
                }
            }
            if step.kind == StepKind::Commit
                && target.exists()
                && (step.aside.is_none() || old_moved)
            {
                // The new copy is in place: move it out.
                let discard = self.staging_dir()?.keep();
                fs::rename(&target, discard.join(OLD))
                    .map_err(StoreError::io("cannot roll back", &target))?;
                discarded.push(discard);
            }
            if let (Some(old), true) = (&old, old_moved) {
                if !target.exists() {
                    fs::create_dir_all(parent).map_err(StoreError::io("cannot create", parent))?;
                    fs::rename(old, &target)
                        .map_err(StoreError::io("cannot roll back", &target))?;
                }
            }
            let _ = fs::remove_dir(parent); // a name directory left empty
            reporter.report(rolled_back(step));
        }
        sync_dir(&self.root.tools_dir);
        self.restore_state_files(&text)?;
        fs::remove_file(&path).map_err(StoreError::io("cannot remove", &path))?;
        // The moved-out copies: only journaled directories, never a staging
        // directory another thread of this process may still be using.
        for aside in asides(&text) {
            let _ = fs::remove_dir_all(staging.join(aside));
        }
        for dir in discarded {
            let _ = fs::remove_dir_all(dir);
        }
        Ok(())
    }

    /// A fresh, empty directory on the same filesystem as the store.
    pub fn staging_dir(&self) -> Result<tempfile::TempDir, StoreError> {
        let staging = self.root.staging_root();
        crate::fs::made_in(&staging, |staging| {
            tempfile::Builder::new()
                .prefix("stage-")
                .tempdir_in(staging)
        })
        .map_err(StoreError::io(
            "cannot create a staging directory in",
            &staging,
        ))
    }

    /// Not flushed: after a power cut the journal (flushed before any
    /// package moves) is what says a command was interrupted, and without
    /// it nothing had moved.
    fn mark_pending(&self) -> Result<(), StoreError> {
        let marker = self.root.pending_marker();
        fs::write(&marker, b"the manifest is being regenerated\n")
            .map_err(StoreError::io("cannot write", &marker))
    }

    /// Moves verified, unpacked packages into place, all of them or (on an
    /// error, once the store is dropped) none. `force`: a package already
    /// installed is replaced, else refused before anything changes.
    ///
    /// The packages not installed yet are journaled with one flushed
    /// write, then renamed into place one after another; what of them is
    /// not on disk yet is flushed, in one batch, by the next
    /// `sync_manifest`, before that manifest takes effect. A kill anywhere
    /// in between leaves some of the
    /// journaled renames done and the manifest unchanged: recovery moves
    /// out whichever journaled package is in place (`roll_back`), so any
    /// subset of them is undone alike. Replacements (and a second package
    /// for the same directory) follow, one step each, as they need the old
    /// copy moved aside first.
    pub fn commit_all(
        &self,
        packages: &[Staged<'_>],
        force: bool,
    ) -> Result<Vec<PathBuf>, StoreError> {
        let targets: Vec<PathBuf> = packages
            .iter()
            .map(|p| self.root.package_dir(p.name, p.version))
            .collect();
        for (package, target) in packages.iter().zip(&targets) {
            if target.exists() && !force {
                return Err(already_installed(package.name, package.version, target));
            }
        }
        if packages.is_empty() {
            return Ok(targets);
        }
        // What to flush, found while the packages are still in staging;
        // flushed once they are in place, while the manifest is written.
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        for (package, target) in packages.iter().zip(&targets) {
            flush::found_for(package.dir, target, &mut files, &mut dirs)
                .map_err(StoreError::io("cannot read", package.dir))?;
        }
        self.mark_pending()?;
        // New directories first, all journaled at once; a package whose
        // directory exists (or an earlier one of this batch will create)
        // is a replacement.
        let (fresh, replaced): (Vec<usize>, Vec<usize>) = (0..packages.len())
            .partition(|&i| !targets[i].exists() && !targets[..i].contains(&targets[i]));
        let steps: Vec<Step> = fresh
            .iter()
            .map(|&i| Step {
                kind: StepKind::Commit,
                name: packages[i].name.to_string(),
                version: packages[i].version.clone(),
                aside: None,
            })
            .collect();
        if !steps.is_empty() {
            self.append_journal(&steps)?;
        }
        let mut parents: Vec<PathBuf> = Vec::new();
        for &i in &fresh {
            let (staged, target) = (packages[i].dir, &targets[i]);
            let parent = target.parent().expect("package dirs have a parent");
            // Created once journaled: a command that fails before leaves no
            // empty name directory, and a killed one's is removed by recovery.
            if !parent.exists() {
                fs::create_dir_all(parent).map_err(StoreError::io("cannot create", parent))?;
                // The new name directory's own entry, in tools_dir.
                if !parents.contains(&self.root.tools_dir) {
                    parents.push(self.root.tools_dir.clone());
                }
            }
            fs::rename(staged, target).map_err(StoreError::io("cannot install into", target))?;
            if !parents.iter().any(|p| p == parent) {
                parents.push(parent.to_path_buf());
            }
        }
        for &i in &replaced {
            let package = &packages[i];
            self.replace(
                package.dir,
                package.name,
                package.version,
                &targets[i],
                force,
            )?;
        }
        // Before the manifest (the commit point) says they are there: their
        // files and directories, and the directories they were renamed into.
        dirs.extend(parents);
        let mut unflushed = self.unflushed.lock().unwrap_or_else(|e| e.into_inner());
        unflushed.0.append(&mut files);
        unflushed.1.append(&mut dirs);
        Ok(targets)
    }

    /// Replaces the installed package at `target` by `staged` (flushed),
    /// moving the old copy into staging, where a roll back finds it.
    fn replace(
        &self,
        staged: &Path,
        name: &str,
        version: &semver::Version,
        target: &Path,
        force: bool,
    ) -> Result<(), StoreError> {
        if !force {
            return Err(already_installed(name, version, target));
        }
        let parent = target.parent().expect("package dirs have a parent");
        // Move the old copy aside first: a rename cannot replace a
        // non-empty directory. The journal says where it went.
        let aside = self.staging_dir()?.keep();
        // Where the filesystem can, swap the two copies in one step, so
        // that the directory the manifest names is never missing, not even
        // between two renames.
        if self.exchange(staged, target, &aside, name, version)? {
            return Ok(());
        }
        self.journal(&Step {
            kind: StepKind::Commit,
            name: name.to_string(),
            version: version.clone(),
            aside: Some(file_name(&aside)),
        })?;
        fs::rename(target, aside.join(OLD)).map_err(StoreError::io("cannot move aside", target))?;
        fs::rename(staged, target).map_err(StoreError::io("cannot install into", target))?;
        sync_dir(parent);
        Ok(())
    }

    /// Replaces `target` by `staged` with one atomic exchange (renameat2
    /// RENAME_EXCHANGE), the old copy ending in `aside`; false, with
    /// nothing changed but the journal, where the filesystem or the system
    /// cannot, and the caller falls back to two renames.
    fn exchange(
        &self,
        staged: &Path,
        target: &Path,
        aside: &Path,
        name: &str,
        version: &semver::Version,
    ) -> Result<bool, StoreError> {
        if !exchange_supported(aside) {
            return Ok(false);
        }
        let new = aside.join(NEW);
        let marker = staged.join(NEW_MARKER);
        write_synced(&marker, b"").map_err(StoreError::io("cannot write", &marker))?;
        self.journal(&Step {
            kind: StepKind::Commit,
            name: name.to_string(),
            version: version.clone(),
            aside: Some(file_name(aside)),
        })?;
        fs::rename(staged, &new).map_err(StoreError::io("cannot stage", staged))?;
        sync_dir(aside);
        rename_exchange(&new, target).map_err(StoreError::io("cannot swap in", target))?;
        let parent = target.parent().expect("package dirs have a parent");
        sync_dir(parent);
        fs::rename(&new, aside.join(OLD)).map_err(StoreError::io("cannot move aside", &new))?;
        sync_dir(aside);
        let marker = target.join(NEW_MARKER);
        fs::remove_file(&marker).map_err(StoreError::io("cannot remove", &marker))?;
        sync_dir(target);
        Ok(true)
    }

    /// Removes an installed package directory. Only the journal changes
    /// now: the manifest written next no longer names the package, and only
    /// then is its directory moved into staging (`finish_removals`), so no
    /// manifest a runtime can read names a directory that is gone.
    pub fn remove(&self, name: &str, version: &semver::Version) -> Result<(), StoreError> {
        let target = self.root.package_dir(name, version);
        if !target.exists() {
            return Err(StoreError::NotInstalled {
                what: format!("{name} {version}"),
                detail: String::new(),
            });
        }
        self.mark_pending()?;
        let aside = self.staging_dir()?.keep();
        self.journal(&Step {
            kind: StepKind::Remove,
            name: name.to_string(),
            version: version.clone(),
            aside: Some(file_name(&aside)),
        })?;
        Ok(())
    }

    /// The steps of the command's journal (none without one).
    fn journal_steps(&self) -> Vec<Step> {
        let Ok(text) = fs::read_to_string(self.journal_path()) else {
            return Vec::new();
        };
        text.lines().filter_map(Step::parse).collect()
    }

    /// The removals among the journal's `steps` not yet done: their
    /// packages are still in place, and the manifest must not name them.
    fn pending_removals(&self, steps: &[Step]) -> Vec<(String, semver::Version, PathBuf)> {
        let staging = self.root.staging_root();
        steps
            .iter()
            .filter(|s| s.kind == StepKind::Remove)
            .filter_map(|s| {
                let aside = staging.join(s.aside.as_ref()?);
                let target = self.root.package_dir(&s.name, &s.version);
                (target.exists() && !aside.join(OLD).exists())
                    .then(|| (s.name.clone(), s.version.clone(), aside))
            })
            .collect()
    }

    /// Moves out the packages whose removal (among the journal's `steps`)
    /// the written manifest reflects.
    fn finish_removals(&self, steps: &[Step]) -> Result<(), StoreError> {
        let removals = self.pending_removals(steps);
        if removals.is_empty() {
            // Nothing moves: no directory to flush.
            return Ok(());
        }
        for (name, version, aside) in removals {
            let target = self.root.package_dir(&name, &version);
            fs::create_dir_all(&aside).map_err(StoreError::io("cannot create", &aside))?;
            fs::rename(&target, aside.join(OLD))
                .map_err(StoreError::io("cannot remove", &target))?;
            // Drop the name directory once its last version is gone.
            let _ = fs::remove_dir(self.root.tools_dir.join(&name));
        }
        sync_dir(&self.root.tools_dir);
        Ok(())
    }

    /// The manifest the store gives in its current state; `steps` are the
    /// command's journal.
    fn render_manifest(
        &self,
        steps: &[Step],
        reporter: &dyn Reporter,
    ) -> Result<Manifest, StoreError> {
        let mut packages = manifest::packages(self.root, reporter)?;
        // A package whose removal is journaled is gone for the manifest
        // already: its directory is moved out once a manifest without it
        // is written.
        let leaving = self.pending_removals(steps);
        packages.retain(|p| {
            !leaving
                .iter()
                .any(|(n, v, _)| *n == p.name && *v == p.version)
        });
        // Pins, orla.lock, discovered executables and global tools (projects).
        let inputs = manifest::Inputs::gather(self.root, reporter);
        inputs.report_unserved(self.root, reporter);
        Ok(Manifest::generate_with(
            self.root, &packages, &inputs, reporter,
        ))
    }

    /// Rewrites the runtime manifest from the store, then clears the
    /// pending marker and the staging area. The packages this command put
    /// in place are flushed first: the manifest names nothing that is not
    /// on disk.
    pub fn sync_manifest(&self, reporter: &dyn Reporter) -> Result<Manifest, StoreError> {
        let steps = self.journal_steps();
        let path = self.root.manifest_path();
        let (files, dirs) =
            std::mem::take(&mut *self.unflushed.lock().unwrap_or_else(|e| e.into_inner()));
        // Packages that cannot be flushed, or a manifest that cannot be
        // written (a full disk), fail the command while its journal still
        // exists, so the store is rolled back.
        flush::sync_found(&files, &dirs)
            .map_err(StoreError::io("cannot sync", &self.root.tools_dir))?;
        let manifest = self.render_manifest(&steps, reporter)?;
        let text = manifest.to_json();
        let old = fs::read(&path).ok();
        // Not rewritten when it says that already (a command that changed
        // nothing the runtime sees).
        if old.as_deref() != Some(text.as_bytes()) {
            atomic_write(&path, text.as_bytes()).map_err(StoreError::io("cannot write", &path))?;
        }
        // What earlier versions of orla kept beside the manifest (a cache of
        // it and a spare copy): neither is read any more.
        for stale in [".manifest-cache", ".manifest-spare"] {
            let _ = fs::remove_file(self.root.state_dir.join(stale));
        }
        if let Some(old) = old.and_then(|bytes| manifest::Listing::parse(&bytes).ok()) {
            self.report_vanished(old, &manifest, &steps, reporter);
        }
        // What it no longer names can go now.
        self.finish_removals(&steps)?;
        // The command has taken effect: the new manifest is its commit point
        // (see `settle`), and its journal can go. Its removal is not
        // flushed: a journal that comes back after a power cut names what
        // the manifest on disk already says, so `settle` finishes it forward.
        let journal = self.journal_path();
        match fs::remove_file(&journal) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("cannot remove", &journal)(e)),
        }
        let marker = self.root.pending_marker();
        match fs::remove_file(&marker) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("cannot remove", &marker)(e)),
        }
        let staging = self.root.staging_root();
        if staging.exists() {
            fs::remove_dir_all(&staging).map_err(StoreError::io("cannot clean", &staging))?;
        }
        Ok(manifest)
    }
}

/// Refuses a root whose manifest a newer orla wrote: rewriting it as this
/// orla's version would drop what it carries. Commands that change a root
/// call it before anything else, even when they find nothing to change.
pub fn refuse_newer_manifest(root: &InstallRoot) -> Result<(), StoreError> {
    Manifest::refuse_newer(root)
}

impl Store<'_> {
    /// Says which packages the old manifest served whose directory was
    /// deleted behind orla's back (not by a removal this command journaled):
    /// the new manifest drops them, and the user should know why a tool
    /// went away or another version is served now.
    fn report_vanished(
        &self,
        old: manifest::Listing,
        new: &Manifest,
        steps: &[Step],
        reporter: &dyn Reporter,
    ) {
        let own = manifest::RootKindName::from(self.root.kind);
        let kept: std::collections::HashSet<(&str, &str)> = new
            .installed
            .iter()
            .filter(|e| e.root == own)
            .map(|e| (e.name.as_str(), e.version.as_str()))
            .collect();
        let ours = old
            .installed
            .into_iter()
            .filter(|e| e.root == own && !e.version.is_empty())
            .map(|e| (e.name, e.version, e.active));
        for (name, version, active) in ours {
            if kept.contains(&(name.as_str(), version.as_str())) {
                continue;
            }
            let by_this_command = steps.iter().any(|s| {
                s.kind == StepKind::Remove && s.name == name && s.version.to_string() == version
            });
            let path = match semver::Version::parse(&version) {
                Ok(v) => self.root.package_dir(&name, &v),
                Err(_) => continue,
            };
            if by_this_command || path.exists() {
                continue;
            }
            let instead = new.served(&name).filter(|_| active).map(|v| v.to_string());
            reporter.report(Event::Warning(Warning::DeletedOutsideOrla {
                name,
                version,
                path: path.display().to_string(),
                served_instead: instead,
            }));
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StepKind {
    Commit,
    Remove,
}

/// One journal line: `commit NAME/VERSION [ASIDE]` or `remove NAME/VERSION
/// ASIDE`, where ASIDE is the staging directory the old copy is moved into.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    kind: StepKind,
    name: String,
    version: semver::Version,
    aside: Option<String>,
}

impl Step {
    fn to_line(&self) -> String {
        let kind = match self.kind {
            StepKind::Commit => "commit",
            StepKind::Remove => "remove",
        };
        match &self.aside {
            Some(a) => format!("{kind} {}/{} {a}", self.name, self.version),
            None => format!("{kind} {}/{}", self.name, self.version),
        }
    }

    /// Parses a line; names, versions and staging directories are checked
    /// again, so a damaged journal cannot point recovery outside the root.
    fn parse(line: &str) -> Option<Step> {
        let mut words = line.split(' ');
        let kind = match words.next()? {
            "commit" => StepKind::Commit,
            "remove" => StepKind::Remove,
            _ => return None,
        };
        let (name, version) = words.next()?.split_once('/')?;
        names::validate_name(name).ok()?;
        let version = names::parse_version(version).ok()?;
        let aside = match words.next() {
            Some(a) if is_stage_name(a) => Some(a.to_string()),
            Some(_) => return None,
            None => None,
        };
        if words.next().is_some() || (kind == StepKind::Remove && aside.is_none()) {
            return None;
        }
        Some(Step {
            kind,
            name: name.to_string(),
            version,
            aside,
        })
    }
}

/// Whether `renameat2(RENAME_EXCHANGE)` works on the filesystem of `dir`
/// (Linux 3.15+; not every filesystem has it): tried once per process on
/// two scratch directories, so a failure later means a real error.
fn exchange_supported(dir: &Path) -> bool {
    static SUPPORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SUPPORTED.get_or_init(|| {
        let Ok(scratch) = tempfile::Builder::new()
            .prefix(".orla-exchange-")
            .tempdir_in(dir)
        else {
            return false;
        };
        let (a, b) = (scratch.path().join("a"), scratch.path().join("b"));
        fs::create_dir(&a).is_ok() && fs::create_dir(&b).is_ok() && rename_exchange(&a, &b).is_ok()
    })
}

/// A staging directory name as the journal may use it.
fn is_stage_name(name: &str) -> bool {
    name.starts_with("stage-") && !name.contains(['/', '\\']) && name != ".."
}

/// Every staging directory a journal names (package and file copies).
fn asides(journal: &str) -> Vec<String> {
    let mut out: Vec<String> = journal
        .lines()
        .filter_map(Step::parse)
        .filter_map(|s| s.aside)
        .collect();
    for line in journal.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        if let ["file", _, aside] = words[..] {
            if is_stage_name(aside) {
                out.push(aside.to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("staging directories have a name")
        .to_string_lossy()
        .into_owned()
}

/// The warning of a journal step undone by recovery.
fn rolled_back(step: &Step) -> Event {
    Event::Warning(Warning::RolledBack {
        name: step.name.clone(),
        version: step.version.clone(),
        what: match step.kind {
            StepKind::Commit => "install",
            StepKind::Remove => "removal",
        }
        .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    fn staged_in(store: &Store<'_>) -> tempfile::TempDir {
        let dir = store.staging_dir().unwrap();
        fs::create_dir(dir.path().join("bin")).unwrap();
        fs::write(dir.path().join("tool.yaml"), "x").unwrap();
        fs::write(dir.path().join("bin/run"), "x").unwrap();
        dir
    }

    /// Tools a, b and c (as many as `dirs`) at `version`, staged in `dirs`.
    fn abc<'p>(dirs: &'p [tempfile::TempDir], version: &'p semver::Version) -> Vec<Staged<'p>> {
        ["a", "b", "c"]
            .iter()
            .zip(dirs)
            .map(|(name, dir)| Staged {
                dir: dir.path(),
                name,
                version,
            })
            .collect()
    }

    /// The new packages of a command are journaled at once, before the
    /// first of their renames, so a failure (or a kill) after some of the
    /// renames finds every one of them in the journal and undoes them all.
    #[test]
    fn a_batch_is_journaled_before_its_first_rename_and_undone_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        let store = Store::open(&root, &Silent).unwrap();
        let version = semver::Version::new(1, 0, 0);
        let dirs: Vec<_> = (0..3).map(|_| staged_in(&store)).collect();
        // b's name directory cannot be made: its rename fails after a's.
        fs::write(root.tools_dir.join("b"), "not a directory").unwrap();
        let staged = abc(&dirs, &version);
        assert!(store.commit_all(&staged, false).is_err());
        let journal = fs::read_to_string(store.journal_path()).unwrap();
        for name in ["a", "b", "c"] {
            assert!(
                journal.contains(&format!("commit {name}/1.0.0\n")),
                "{journal}"
            );
        }
        assert!(root.tools_dir.join("a/1.0.0/bin/run").is_file());
        // As in an install: its staging directories go, then the store.
        drop(staged);
        drop(dirs);
        drop(store);
        assert!(!root.tools_dir.join("a").exists(), "a was not rolled back");
        assert!(!root.staging_root().exists());
        assert!(!root.pending_marker().exists());
    }

    /// A batch of new packages and a replacement: all land, the journal
    /// names each, and an installed package is refused without `force`
    /// before anything changes.
    #[test]
    fn a_batch_installs_new_packages_and_replaces_installed_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        let version = semver::Version::new(1, 0, 0);
        let store = Store::open(&root, &Silent).unwrap();
        let first = staged_in(&store);
        let one = abc(std::slice::from_ref(&first), &version);
        store.commit_all(&one, false).unwrap();
        fs::remove_file(store.journal_path()).unwrap();
        let dirs: Vec<_> = (0..3).map(|_| staged_in(&store)).collect();
        fs::write(dirs[0].path().join("new"), "x").unwrap();
        let staged = abc(&dirs, &version);
        match store.commit_all(&staged, false) {
            Err(StoreError::AlreadyInstalled { name, .. }) => assert_eq!(name, "a"),
            other => panic!("{other:?}"),
        }
        assert!(!root.tools_dir.join("b").exists());
        let paths = store.commit_all(&staged, true).unwrap();
        assert_eq!(paths[2], root.tools_dir.join("c/1.0.0"));
        assert!(root.tools_dir.join("a/1.0.0/new").is_file());
        assert!(root.tools_dir.join("c/1.0.0/bin/run").is_file());
        let journal = fs::read_to_string(store.journal_path()).unwrap();
        let steps: Vec<Step> = journal.lines().filter_map(Step::parse).collect();
        assert_eq!(steps.len(), 3, "{journal}");
        assert!(steps[2].aside.is_some(), "the replacement comes last");
    }

    /// The packages a command put in place are flushed while its manifest
    /// is written, and before that manifest takes effect: one that cannot
    /// be flushed fails the command, which is rolled back, and the
    /// manifest stays as it was.
    #[test]
    fn a_package_that_cannot_be_flushed_is_never_committed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        let version = semver::Version::new(1, 0, 0);
        let store = Store::open(&root, &Silent).unwrap();
        let dir = staged_in(&store);
        let one = abc(std::slice::from_ref(&dir), &version);
        store.commit_all(&one, false).unwrap();
        // Not flushed yet: a file that is gone by then cannot be.
        fs::remove_file(root.tools_dir.join("a/1.0.0/bin/run")).unwrap();
        let failed = store.sync_manifest(&Silent).unwrap_err();
        assert!(failed.to_string().starts_with("cannot sync"), "{failed}");
        assert!(!root.manifest_path().exists());
        drop(dir);
        drop(store);
        assert!(!root.tools_dir.join("a").exists(), "a was not rolled back");
        assert!(!root.staging_root().exists());
    }
}
