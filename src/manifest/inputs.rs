//! Everything besides the installed packages that decides a root's manifest:
//! the version pins (`orla use`, and orla.lock in a project), a project's
//! RFC 1 settings and discovered executables, and the global tools a project
//! also serves.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Manifest, ToolEntry};
use crate::config::{RunSettings, UserConfig};
use crate::progress::{Event, Reporter, Warning};
use crate::project::discover::{self, Discovered};
use crate::project::lockfile::LockFile;
use crate::project::{Project, Settings};
use crate::root::pins::Pins;
use crate::root::{InstallRoot, RootKind};
use crate::verify::Digest;

#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Name -> the version to serve when it is installed: `orla use` pins
    /// first, then orla.lock.
    pub preferred: BTreeMap<String, semver::Version>,
    pub settings: Settings,
    pub discovered: Vec<Discovered>,
    /// Global tools a project serves where it has no tool of that name.
    pub global_tools: Vec<ToolEntry>,
    /// The global root's `installed`, for listing.
    pub global_installed: Vec<super::InstalledEntry>,
    /// See [`fingerprint`].
    pub fingerprint: Option<String>,
    /// Files of a project's tools_dir that look like tools but are not
    /// served, and why: reported by [`Inputs::report_unserved`].
    pub unserved: Vec<String>,
    /// `runtime:` of config.yaml with orla.yaml's over it.
    pub run: RunSettings,
}

/// The state file that remembers the `unserved` warnings already shown.
const UNSERVED_FILE: &str = "unserved-files.json";

impl Inputs {
    /// Reads the inputs of `root`. Problems (an unreadable lock, a damaged
    /// global manifest) are reported and leave that input out: the manifest
    /// must still be written.
    pub fn gather(root: &InstallRoot, reporter: &dyn Reporter) -> Inputs {
        let mut inputs = Inputs::default();
        let warn = |input: &str, problem: String| {
            reporter.report(Event::Warning(Warning::InputIgnored {
                input: input.to_string(),
                problem,
            }))
        };
        let home = root.global_state_dir.as_deref().unwrap_or(&root.state_dir);
        match UserConfig::load(home) {
            Ok(config) => inputs.run = config.runtime,
            Err(e) => warn("config.yaml", e.to_string()),
        }
        if let Some(dir) = &root.project_dir {
            match Project::load(dir) {
                Ok(project) => {
                    inputs.add_project(&project);
                    match LockFile::read(&project.lock_path()) {
                        Ok(Some(lock)) => {
                            for t in lock.tools {
                                inputs.preferred.insert(t.name, t.version);
                            }
                        }
                        Ok(None) => {}
                        Err(e) => warn("orla.lock", e.to_string()),
                    }
                }
                Err(e) => warn("orla.yaml", e.to_string()),
            }
            match discover::discover(&root.tools_dir) {
                Ok(found) => {
                    inputs.unserved = found.warnings;
                    inputs.discovered = found.tools;
                }
                Err(e) => warn("tools_dir", format!("{}: {e}", root.tools_dir.display())),
            }
        }
        match Pins::read(&root.state_dir) {
            Ok(pins) => inputs.preferred.extend(pins.tools),
            Err(e) => warn("pins", e.to_string()),
        }
        if root.kind == RootKind::Project {
            if let Some(home) = &root.global_state_dir {
                match Manifest::read(&InstallRoot::global(home)) {
                    Ok(global) => {
                        inputs.global_tools = global.tools;
                        inputs.global_installed = global.installed;
                    }
                    Err(e) => warn("global_manifest", e.to_string()),
                }
            }
        }
        inputs.fingerprint = Some(fingerprint(root));
        inputs
    }
}

impl Inputs {
    /// A project's own inputs to how its tools run: its RFC 1 settings,
    /// and its orla.yaml `runtime:` over config.yaml's.
    pub fn add_project(&mut self, project: &Project) {
        self.settings = project.settings();
        self.run = self.run.merged(&project.config.run);
    }

    /// Warns of the files of tools_dir that are not served, once per
    /// change: a warning shown by an earlier command (remembered in the
    /// state directory) is not repeated on every command, and one whose
    /// file was fixed and broken again is shown again.
    pub fn report_unserved(&self, root: &InstallRoot, reporter: &dyn Reporter) {
        let path = root.state_dir.join(UNSERVED_FILE);
        let shown: Vec<String> = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        for problem in self.unserved.iter().filter(|w| !shown.contains(w)) {
            reporter.report(Event::Warning(Warning::NotServed {
                problem: problem.clone(),
            }));
        }
        if shown != self.unserved && root.state_dir.is_dir() {
            let text = serde_json::to_vec(&self.unserved).expect("serialises");
            // Only advice is lost when it cannot be written: it is shown again.
            let _ = crate::fs::atomic_write(&path, &text);
        }
    }
}

/// A digest of every input of a manifest that can change without orla being
/// run on its root: config.yaml, and for a project orla.yaml, orla.lock, the state dir's
/// pins, the global manifest, and the loose files of tools_dir (by name,
/// size, time and mode). `orla list` compares it with the manifest's and
/// regenerates a stale manifest.
pub fn fingerprint(root: &InstallRoot) -> String {
    let mut hasher = blake3::Hasher::new();
    let mut file = |path: &Path| {
        hasher.update(path.as_os_str().as_encoded_bytes());
        hasher.update(b"\0");
        match std::fs::read(path) {
            Ok(bytes) => {
                hasher.update(&Digest::of(&bytes).to_hex().into_bytes());
            }
            Err(_) => {
                hasher.update(b"-");
            }
        }
        hasher.update(b"\n");
    };
    if let Some(dir) = &root.project_dir {
        file(&dir.join(crate::project::CONFIG_FILE));
        file(&dir.join(crate::project::LOCK_FILE));
    }
    let home = root.global_state_dir.as_deref().unwrap_or(&root.state_dir);
    file(&home.join(crate::config::CONFIG_FILE));
    file(&Pins::path(&root.state_dir));
    if let Some(home) = &root.global_state_dir {
        file(&InstallRoot::global(home).manifest_path());
    }
    hasher.update(discover::fingerprint(&root.tools_dir).as_bytes());
    hasher.finalize().to_hex().to_string()
}
