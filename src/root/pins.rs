//! `<state_dir>/pins.json`: which installed version of a tool the manifest
//! serves when it is not the newest (`orla use NAME@VERSION`).
//!
//! ```json
//! {"pins_version": 1, "tools": {"fs-read": "1.1.0"}}
//! ```
//!
//! A pin whose version is no longer installed is ignored (the newest is
//! served) and dropped by the next `orla use` or uninstall. In a project,
//! tools pinned by orla.lock are not pinned here: `orla use` moves the lock
//! instead, so the choice is shared with everyone who installs the project.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::StoreError;

pub const PINS_FILE: &str = "pins.json";
pub const PINS_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pins {
    pub pins_version: u32,
    #[serde(default)]
    pub tools: BTreeMap<String, semver::Version>,
    /// Fields written by a newer orla, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Default for Pins {
    fn default() -> Self {
        Pins {
            pins_version: PINS_VERSION,
            tools: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }
}

impl Pins {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(PINS_FILE)
    }

    /// Reads the pins; none when the file does not exist.
    pub fn read(state_dir: &Path) -> Result<Pins, StoreError> {
        let path = Pins::path(state_dir);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Pins::default()),
            Err(e) => return Err(StoreError::io("cannot read", &path)(e)),
        };
        serde_json::from_slice(&bytes).map_err(|e| StoreError::Pins {
            path,
            message: format!("not a pins file: {e}"),
        })
    }

    /// Writes the pins atomically; an empty set removes the file.
    pub fn write(&self, state_dir: &Path) -> Result<(), StoreError> {
        let path = Pins::path(state_dir);
        if self.tools.is_empty() && self.extra.is_empty() {
            return match std::fs::remove_file(&path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(StoreError::io("cannot remove", &path)(e)),
            };
        }
        let text = serde_json::to_string_pretty(self).expect("pins serialise") + "\n";
        crate::fs::atomic_write(&path, text.as_bytes())
            .map_err(StoreError::io("cannot write", &path))
    }
}
