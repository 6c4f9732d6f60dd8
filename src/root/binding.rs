//! Receipts bound to their root: a package directory orla did not create in
//! this root is not trusted, whatever its receipt says.
//!
//! A receipt is a file in the package directory, so anyone who can write a
//! directory (a cloned repository shipping `tools/NAME/VERSION/`) can write
//! one that matches their own files. Each receipt orla writes therefore
//! carries a `binding`: a keyed BLAKE3 of the package directory's path and
//! of the receipt's canonical bytes (the receipt without its binding, as
//! compact JSON), under a per-user secret key kept at
//! `<ORLA_HOME>/receipt.key` (created with mode 0600 on the first install),
//! outside every tools_dir. A receipt copied from another root, another
//! user, or edited after the install does not match.
//!
//! Receipts written before bindings existed have none: in the global root
//! they are accepted as they are (the global root is the user's own); in a
//! project root an unbound package is not trusted, since project
//! directories travel with repositories. See docs/security.md.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::receipt::Receipt;
use super::{InstallRoot, RootKind};

/// The receipt field that holds the binding.
pub const BINDING_FIELD: &str = "binding";
/// The key's file name, in the global root's state directory (ORLA_HOME).
pub const KEY_FILE: &str = "receipt.key";

/// The key's length in bytes.
pub const KEY_LEN: usize = 32;

/// What to do about a package directory that is not trusted in its root.
pub fn untrusted_hint(name: &str, version: &semver::Version) -> String {
    format!("if you trust it, reinstall it with `orla install --force {name}@{version}`")
}

impl InstallRoot {
    /// Where the receipt key of this root is: the global root's state
    /// directory, for a project too. None for a project root that does not
    /// know the global root (then nothing in it is trusted).
    pub fn receipt_key_path(&self) -> Option<PathBuf> {
        match self.kind {
            RootKind::Global => Some(self.state_dir.join(KEY_FILE)),
            RootKind::Project => self.global_state_dir.as_ref().map(|h| h.join(KEY_FILE)),
        }
    }

    /// The key: `Ok(None)` when there is none yet (or the project root
    /// does not know the global root).
    pub fn receipt_key(&self) -> io::Result<Option<[u8; KEY_LEN]>> {
        let Some(path) = self.receipt_key_path() else {
            return Ok(None);
        };
        match read_key(&path) {
            Ok(key) => Ok(Some(key)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The key, created (mode 0600) when there is none yet.
    pub fn receipt_key_or_create(&self) -> io::Result<[u8; KEY_LEN]> {
        let path = self.receipt_key_path().ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, "this root has no receipt key")
        })?;
        key_or_create(&path)
    }

    /// Whether the package at `dir` with `receipt` was installed by orla in
    /// this root; the reason when not.
    pub fn check_binding(&self, dir: &Path, receipt: &Receipt) -> Result<(), BindingError> {
        if !receipt.extra.contains_key(BINDING_FIELD) {
            return self.check_binding_with(&KeyState::Missing, dir, receipt);
        }
        self.check_binding_with(&self.key_state(), dir, receipt)
    }

    /// The receipt key as one check needs it, read once for a whole scan.
    pub fn key_state(&self) -> KeyState {
        match self.receipt_key() {
            Ok(Some(key)) => KeyState::Key(key),
            Ok(None) => KeyState::Missing,
            // A global root this user may read but whose key is another
            // user's (a shared, read-only root): its receipts cannot be
            // checked, and are taken as receipts from before bindings.
            Err(e)
                if self.kind == RootKind::Global && e.kind() == io::ErrorKind::PermissionDenied =>
            {
                KeyState::NotChecked
            }
            Err(e) => KeyState::Unreadable(e),
        }
    }

    /// [`check_binding`](Self::check_binding) with the key already read.
    pub fn check_binding_with(
        &self,
        key: &KeyState,
        dir: &Path,
        receipt: &Receipt,
    ) -> Result<(), BindingError> {
        let Some(found) = receipt.extra.get(BINDING_FIELD) else {
            return match self.kind {
                RootKind::Global => Ok(()),
                RootKind::Project => Err(BindingError::Unbound),
            };
        };
        let key = match key {
            KeyState::Key(key) => key,
            KeyState::Missing => return Err(BindingError::NoKey),
            KeyState::NotChecked => return Ok(()),
            KeyState::Unreadable(e) => {
                return Err(BindingError::KeyUnreadable {
                    key_path: self.receipt_key_path().unwrap_or_default(),
                    source: io::Error::new(e.kind(), e.to_string()),
                })
            }
        };
        if found.as_str() == Some(binding(key, dir, receipt).as_str()) {
            Ok(())
        } else {
            Err(BindingError::Mismatch)
        }
    }
}

/// A root's receipt key, as read for checking bindings.
#[derive(Debug)]
pub enum KeyState {
    Key([u8; KEY_LEN]),
    /// No key yet, or a project root that does not know the global root.
    Missing,
    /// The global root's key is another user's: bound receipts are taken
    /// as receipts from before bindings.
    NotChecked,
    Unreadable(io::Error),
}

/// Why a package directory's receipt does not show that orla installed it
/// in this root; the callers add the package and `untrusted_hint`.
#[derive(Debug, thiserror::Error)]
pub enum BindingError {
    #[error("its receipt is not bound to this root, so orla did not install it here")]
    Unbound,
    #[error("its receipt is bound to a key this user does not have")]
    NoKey,
    #[error("its binding cannot be checked: {}: {source}", key_path.display())]
    KeyUnreadable {
        key_path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("its receipt was not written by orla for this directory of this root")]
    Mismatch,
}

/// Sets the receipt's binding to the package directory `dir` of the root
/// whose key is `key`.
pub fn bind(receipt: &mut Receipt, key: &[u8; KEY_LEN], dir: &Path) {
    let value = binding(key, dir, receipt);
    receipt
        .extra
        .insert(BINDING_FIELD.into(), serde_json::Value::String(value));
}

/// Whether the receipt is bound, under `key`, to the directory `dir`.
pub fn is_bound(receipt: &Receipt, key: &[u8; KEY_LEN], dir: &Path) -> bool {
    receipt.extra.get(BINDING_FIELD).and_then(|v| v.as_str())
        == Some(binding(key, dir, receipt).as_str())
}

fn binding(key: &[u8; KEY_LEN], dir: &Path, receipt: &Receipt) -> String {
    let mut unbound = receipt.clone();
    unbound.extra.remove(BINDING_FIELD);
    let canonical = serde_json::to_vec(&unbound).expect("receipt serialises");
    let mut hasher = blake3::Hasher::new_keyed(key);
    hasher.update(b"orla receipt binding v1\0");
    let path = dir.as_os_str().as_encoded_bytes();
    hasher.update(&(path.len() as u64).to_le_bytes());
    hasher.update(path);
    hasher.update(&canonical);
    hasher.finalize().to_hex().to_string()
}

/// The receipt key at `path`, created (mode 0600) when there is none yet.
pub fn key_or_create(path: &Path) -> io::Result<[u8; KEY_LEN]> {
    match read_key(path) {
        Ok(key) => return Ok(key),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut key = [0u8; KEY_LEN];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    // Written under a temporary name and linked into place: a reader
    // never sees half a key, and of two orlas creating it at once one
    // key wins and both use it.
    let tmp = path.with_extension(format!("key.{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let _ = std::fs::remove_file(&tmp);
    let mut file = options.open(&tmp)?;
    file.write_all(&key)?;
    file.sync_all()?;
    drop(file);
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(key),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => read_key(path),
        Err(e) => Err(e),
    }
}

fn read_key(path: &Path) -> io::Result<[u8; KEY_LEN]> {
    let bytes = std::fs::read(path)?;
    bytes.try_into().map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a receipt key", path.display()),
        )
    })
}
