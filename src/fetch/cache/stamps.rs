//! The stamps of an unpacked entry: what each of its files looked like
//! (device, inode, size, modification and change times, mode, link count)
//! when it was last read back and found to hold the bytes its record
//! names. A reinstall that finds a file unchanged links it without reading
//! it again; any other file is read and hashed as before.
//!
//! # Format
//!
//! `unpacked/<digest>/stamps`: one line `orla cache stamps 1 <MAC>`, then
//! JSON: `record`, the BLAKE3 of the entry's `files.json` as it was, and
//! `stamps`, one per file in the record's order, each
//! `[dev, ino, size, mtime_ns, ctime_ns, mode, nlink]` or `null` (not
//! stamped: read it). The MAC is a keyed BLAKE3, under the user's receipt
//! key (`root::binding`, never in the cache), of the entry's path and the
//! JSON: stamps written by anyone without the key, copied from another
//! entry, or left from another record are ignored, and every file is read.
//!
//! # When a stamp vouches for a file
//!
//! Its device, inode, size, modification time (to the nanosecond) and
//! mode are as stamped, and so is its change time unless its link count
//! changed. Writing a file's bytes sets its modification time to the
//! present; the file's modification time was at least [`SETTLE_NS`] old
//! when it was stamped (else it is not stamped), so an edit after the
//! stamp, even within the same tick of the filesystem's clock, gives it
//! another one. Replacing the file gives another inode. A chmod changes
//! the mode. The change time also catches a modification time set back
//! by hand after an edit, but only while the link count is unchanged:
//! every install and uninstall adds or removes a link, which sets the
//! change time too, and that must not cost a full read. What is not
//! caught: an edit in place that keeps the size and puts the modification
//! time back to the nanosecond while links come and go; `orla verify`
//! still hashes installed files against their receipt.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The stamps file, in the entry's directory.
const STAMPS: &str = "stamps";
const SEAL: crate::verify::seal::Seal = crate::verify::seal::Seal {
    header: "orla cache stamps 1 ",
    purpose: b"orla cache stamps v1\0",
};
/// How old a file's modification time must be for the file to be stamped:
/// longer than any filesystem's timestamp tick.
pub const SETTLE_NS: i64 = 2_000_000_000;

/// `[dev, ino, size, mtime_ns, ctime_ns, mode, nlink]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp(u64, u64, u64, i64, i64, u32, u64);

impl Stamp {
    /// None where the platform has no inode numbers and change times.
    #[cfg(unix)]
    pub fn of(meta: &fs::Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        meta.is_file().then(|| {
            Stamp(
                meta.dev(),
                meta.ino(),
                meta.size(),
                ns(meta.mtime(), meta.mtime_nsec()),
                ns(meta.ctime(), meta.ctime_nsec()),
                meta.mode() & 0o7777,
                meta.nlink(),
            )
        })
    }

    #[cfg(not(unix))]
    pub fn of(_: &fs::Metadata) -> Option<Stamp> {
        None
    }

    /// The stamp of a regular file as `fstatat` describes it.
    #[cfg(target_os = "linux")]
    #[allow(clippy::unnecessary_cast)] // the field types differ between targets
    pub fn of_stat(st: &libc::stat) -> Option<Stamp> {
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        (st.st_mode & libc::S_IFMT == libc::S_IFREG).then(|| {
            Stamp(
                st.st_dev as u64,
                st.st_ino as u64,
                st.st_size as u64,
                ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
                ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
                (st.st_mode & 0o7777) as u32,
                st.st_nlink as u64,
            )
        })
    }

    /// Whether its file was last written long enough before `now_ns`.
    pub fn settled(&self, now_ns: i64) -> bool {
        self.3 < now_ns.saturating_sub(SETTLE_NS)
    }

    /// Whether the file stamped `now` is the file stamped, unchanged, with
    /// the size and executable bit `want` records.
    pub fn vouches_for(&self, now: &Stamp, want: &crate::unpack::FileRecord) -> bool {
        let same = (self.0, self.1, self.2, self.3, self.5) == (now.0, now.1, now.2, now.3, now.5);
        // A link added or removed (an install, an uninstall) sets the
        // change time too: only an unchanged link count makes it telling.
        let ctime = self.6 != now.6 || self.4 == now.4;
        same && ctime && self.2 == want.size && (self.5 & 0o111 != 0) == want.executable
    }
}

#[derive(Serialize, Deserialize)]
struct File {
    record: String,
    stamps: Vec<Option<Stamp>>,
}

/// The stamps of the entry at `entry` whose record is `record`, if it has
/// any that this key wrote for this entry and this record.
pub fn read(key: &[u8; 32], entry: &Path, record: &[u8]) -> Option<Vec<Option<Stamp>>> {
    let bytes = fs::read(entry.join(STAMPS)).ok()?;
    let json = SEAL.open(key, entry, &bytes)?;
    let file: File = serde_json::from_slice(json).ok()?;
    (file.record == blake3::hash(record).to_hex().as_str()).then_some(file.stamps)
}

/// Replaces the entry's stamps (a temporary file and a rename, not
/// flushed: stamps lost in a crash cost one reinstall that reads every
/// file).
pub fn write(
    key: &[u8; 32],
    entry: &Path,
    record: &[u8],
    stamps: &[Option<Stamp>],
) -> io::Result<()> {
    let file = File {
        record: blake3::hash(record).to_hex().to_string(),
        stamps: stamps.to_vec(),
    };
    let json = serde_json::to_vec(&file).map_err(io::Error::other)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".stamps-")
        .tempfile_in(entry)?;
    tmp.write_all(SEAL.head(key, entry, &json).as_bytes())?;
    tmp.write_all(&json)?;
    tmp.persist(entry.join(STAMPS)).map_err(|e| e.error)?;
    Ok(())
}
