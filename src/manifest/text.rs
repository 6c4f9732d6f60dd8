//! A manifest's text as it is written: new text (the head, the entries
//! read again, the brackets) and runs of bytes copied from the last
//! manifest (the entries of unchanged name directories, with the
//! separators between them). The runs are never read into memory: the
//! new file is written with `copy_file_range` from the old one (in the
//! kernel; a reflink of the blocks where the filesystem shares them), so
//! a root of a thousand tools costs an install a file-to-file copy of
//! its manifest, not a read, a copy in memory and a write of it.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use super::cache::{read_exact_at, Cache};

/// The manifest's bytes, in order.
#[derive(Debug, Default)]
pub struct Text {
    pieces: Vec<Piece>,
    /// The new text of every [`Piece::New`].
    new: String,
    len: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// `[start, len]` of [`Text::new`].
    New(usize, usize),
    /// `[start, len]` of the last manifest.
    Old(usize, usize),
}

impl Text {
    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends new text.
    pub fn push_str(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let start = self.new.len();
        self.new.push_str(text);
        self.len += text.len();
        match self.pieces.last_mut() {
            Some(Piece::New(at, n)) if *at + *n == start => *n += text.len(),
            _ => self.pieces.push(Piece::New(start, text.len())),
        }
    }

    /// Appends `len` bytes of the last manifest from `start`.
    pub fn push_old(&mut self, start: usize, len: usize) {
        self.len += len;
        match self.pieces.last_mut() {
            Some(Piece::Old(at, n)) if *at + *n == start => *n += len,
            _ => self.pieces.push(Piece::Old(start, len)),
        }
    }

    /// Where the last piece ends in the last manifest, if it was copied
    /// from it.
    pub fn old_end(&self) -> Option<usize> {
        match self.pieces.last() {
            Some(Piece::Old(at, n)) => Some(at + n),
            _ => None,
        }
    }

    /// The runs copied from the last manifest, `[start, len]`.
    #[cfg(test)]
    pub fn copied(&self) -> Vec<(usize, usize)> {
        self.pieces
            .iter()
            .filter_map(|p| match *p {
                Piece::Old(at, n) => Some((at, n)),
                Piece::New(..) => None,
            })
            .collect()
    }

    /// The whole text (the copied runs read from `cache`'s manifest).
    pub fn contents(&self, cache: &Cache) -> io::Result<String> {
        let mut out = Vec::with_capacity(self.len);
        for piece in &self.pieces {
            match *piece {
                Piece::New(at, n) => out.extend_from_slice(&self.new.as_bytes()[at..at + n]),
                Piece::Old(at, n) => out.extend(cache.read_at(at, n)?),
            }
        }
        String::from_utf8(out).map_err(io::Error::other)
    }

    /// Whether the manifest `cache` describes is this text already: the
    /// same length, every copied run at its own place, and the new text
    /// equal to what is there (read back, a few hundred bytes).
    pub fn is_on_disk(&self, cache: &Cache) -> bool {
        let Some((file, len)) = cache.manifest() else {
            return false;
        };
        if self.len as u64 != len {
            return false;
        }
        let mut at = 0;
        for piece in &self.pieces {
            match *piece {
                Piece::Old(start, _) if start != at => return false,
                Piece::Old(_, n) => at += n,
                Piece::New(start, n) => {
                    let mut there = vec![0; n];
                    if read_exact_at(file, &mut there, at as u64).is_err()
                        || there != self.new.as_bytes()[start..start + n]
                    {
                        return false;
                    }
                    at += n;
                }
            }
        }
        true
    }

    /// Replaces `path` by this text, atomically and flushed: a file of the
    /// same directory, written, flushed and swapped with it, then the
    /// directory flushed.
    ///
    /// The file written is the manifest before the one on disk, kept as
    /// [`SPARE`] by the last write, written over in place: its blocks are
    /// already allocated, so the flush writes the data alone, and the
    /// manifest it replaces is not freed but kept as the next spare (on
    /// ext4, a 1.9 MB manifest: 2.8 against 4.4 ms, half of that freeing
    /// the old file's blocks). Only while nobody else has it open
    /// ([`crate::fs::Unshared`]): a reader still reading it from when it
    /// was the manifest keeps its bytes. Otherwise, or without a spare, a
    /// new temporary file (whose name a killed command's leftovers are
    /// cleared by), swapped in the same way where the filesystem can swap
    /// two names, else renamed over the manifest.
    ///
    /// `before_swap` runs once the new text is flushed, before it takes the
    /// manifest's place; its error stops the write there.
    pub fn write(
        &self,
        path: &Path,
        cache: &Cache,
        before_swap: impl FnOnce() -> io::Result<()>,
    ) -> io::Result<()> {
        let dir = path.parent().expect("files have a parent");
        fs::create_dir_all(dir)?;
        let old = cache.manifest().map(|(file, _)| file);
        let spare = dir.join(SPARE);
        let mut before_swap = Some(before_swap);
        let mut ready = || before_swap.take().map_or(Ok(()), |f| f());
        if let Some(unshared) = crate::fs::Unshared::open(&spare) {
            let written = self.write_whole(&unshared.file, old);
            drop(unshared.release());
            written?;
            ready()?;
            if crate::fs::rename_exchange(&spare, path).is_ok() {
                crate::fs::sync_dir(dir);
                return Ok(());
            }
        }
        let tmp = tempfile::Builder::new()
            .prefix(crate::fs::TEMP_PREFIX)
            .tempfile_in(dir)?;
        self.write_whole(tmp.as_file(), old)?;
        ready()?;
        let tmp = tmp.into_temp_path();
        if crate::fs::rename_exchange(&tmp, path).is_ok() {
            // The replaced manifest is at the temporary name: the next spare.
            let kept = tmp.keep().map_err(|e| e.error)?;
            if fs::rename(&kept, &spare).is_err() {
                let _ = fs::remove_file(&kept);
            }
        } else {
            tmp.persist(path).map_err(|e| e.error)?;
        }
        crate::fs::sync_dir(dir);
        Ok(())
    }

    /// Makes `file` (at its start) this text and nothing more, readable by
    /// every local reader (tempfile creates 0600; a spare may have been
    /// longer), flushed.
    fn write_whole(&self, file: &fs::File, old: Option<&fs::File>) -> io::Result<()> {
        self.fill(file, old)?;
        file.set_len(self.len as u64)?;
        crate::fs::set_mode(file, 0o644)?;
        file.sync_all()
    }

    /// Writes the text into `file` from its position, the copied runs from
    /// `old`.
    fn fill(&self, file: &fs::File, old: Option<&fs::File>) -> io::Result<()> {
        let mut out = file;
        for piece in &self.pieces {
            match *piece {
                Piece::New(at, n) => out.write_all(&self.new.as_bytes()[at..at + n])?,
                Piece::Old(at, n) => {
                    let old = old.ok_or_else(|| io::Error::other("no manifest to copy from"))?;
                    copy_range(old, at as u64, file, n)?;
                    if n >= WRITEBACK_FROM {
                        start_writeback(file);
                    }
                }
            }
        }
        Ok(())
    }
}

/// The manifest before the current one, kept to be written over by the
/// next (see [`Text::write`]); in the manifest's directory.
pub const SPARE: &str = ".manifest-spare";

/// From how long a run copied the file's writeback is started at once, so
/// that the flush at the end waits for less.
const WRITEBACK_FROM: usize = 256 * 1024;

/// Starts writing back what `file` holds so far, without waiting.
fn start_writeback(file: &fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the call; the flag only starts
        // writeback. Failing is harmless: the flush at the end does it all.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Appends `len` bytes of `from` at `offset` to `to` (at its position):
/// `copy_file_range`, or reading and writing where the kernel cannot.
fn copy_range(from: &fs::File, offset: u64, to: &fs::File, len: usize) -> io::Result<()> {
    let mut offset = offset;
    let mut left = len;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        while left > 0 {
            let mut off = i64::try_from(offset).map_err(io::Error::other)?;
            // SAFETY: both descriptors are open for the call; `off` is a
            // valid i64 the kernel updates; a null output offset means the
            // output file's position, which the call advances.
            let copied = unsafe {
                libc::copy_file_range(
                    from.as_raw_fd(),
                    &mut off,
                    to.as_raw_fd(),
                    std::ptr::null_mut(),
                    left,
                    0,
                )
            };
            if copied > 0 {
                let copied = copied as usize;
                left -= copied;
                offset += copied as u64;
                continue;
            }
            if copied == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                // Not between these files (another filesystem, an old
                // kernel, a filesystem that does not offer it): by hand.
                Some(libc::EXDEV | libc::ENOSYS | libc::EOPNOTSUPP | libc::EINVAL) => break,
                _ => return Err(e),
            }
        }
    }
    let mut buf = vec![0; left.min(1 << 20)];
    let mut to = to;
    while left > 0 {
        let n = left.min(buf.len());
        read_exact_at(from, &mut buf[..n], offset)?;
        to.write_all(&buf[..n])?;
        left -= n;
        offset += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_the_old_file_merge_and_new_text_merges() {
        let mut text = Text::default();
        text.push_str("{");
        text.push_str("\n");
        text.push_old(10, 5);
        text.push_old(15, 5);
        text.push_old(30, 2);
        assert_eq!(
            text.pieces,
            [Piece::New(0, 2), Piece::Old(10, 10), Piece::Old(30, 2)]
        );
        assert_eq!(text.len(), 14);
        assert_eq!(text.old_end(), Some(32));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_manifest_before_is_written_over_unless_someone_still_reads_it() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        let spare = dir.path().join(SPARE);
        let cache = Cache::default();
        let write = |content: &str| {
            let mut text = Text::default();
            text.push_str(content);
            let before = std::fs::read_to_string(&path).ok();
            text.write(&path, &cache, || {
                // Not swapped in yet.
                assert_eq!(std::fs::read_to_string(&path).ok(), before);
                Ok(())
            })
            .unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
        };
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        write("first, and longer than the others\n");
        assert!(!spare.exists());
        write("second\n");
        // The first is kept, as it was, to be written over next.
        assert_eq!(
            std::fs::read_to_string(&spare).unwrap(),
            "first, and longer than the others\n"
        );
        let first = ino(&spare);
        write("third\n");
        assert_eq!(ino(&path), first, "written over in place, then swapped in");
        assert_eq!(std::fs::read_to_string(&spare).unwrap(), "second\n");
        // A reader that opened the second when it was the manifest, still
        // reading: not written over.
        let mut reader = std::fs::File::open(&spare).unwrap();
        let second = ino(&spare);
        write("fourth\n");
        assert_ne!(ino(&path), second);
        let mut seen = String::new();
        std::io::Read::read_to_string(&mut reader, &mut seen).unwrap();
        assert_eq!(seen, "second\n");
        assert_eq!(std::fs::read_to_string(&spare).unwrap(), "third\n");
        drop(reader);
        // A spare that is a link to something else is not written through.
        std::fs::remove_file(&spare).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, "not the manifest's").unwrap();
        std::os::unix::fs::symlink(&elsewhere, &spare).unwrap();
        write("fifth\n");
        assert_eq!(
            std::fs::read_to_string(&elsewhere).unwrap(),
            "not the manifest's"
        );
        // Nor one that is another name of another file.
        std::fs::remove_file(&spare).unwrap();
        std::fs::hard_link(&elsewhere, &spare).unwrap();
        write("sixth\n");
        assert_eq!(
            std::fs::read_to_string(&elsewhere).unwrap(),
            "not the manifest's"
        );
        // Stopped before the swap: the manifest stays as it was, whether
        // the spare was written over or a temporary file was written.
        let names = || {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        for reader in [false, true] {
            let _open = reader.then(|| std::fs::File::open(&spare).unwrap());
            let mut text = Text::default();
            text.push_str("never\n");
            let stopped = text.write(&path, &cache, || Err(io::Error::other("stop")));
            assert_eq!(stopped.unwrap_err().to_string(), "stop");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "sixth\n");
            assert_eq!(names(), [SPARE, "elsewhere", "manifest.json"]);
        }
    }

    #[test]
    fn a_range_is_copied_between_files_at_the_position() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        std::fs::write(&from, b"0123456789abcdef").unwrap();
        let from = fs::File::open(&from).unwrap();
        let to_path = dir.path().join("to");
        let mut to = fs::File::create(&to_path).unwrap();
        to.write_all(b"<").unwrap();
        copy_range(&from, 3, &to, 4).unwrap();
        copy_range(&from, 10, &to, 6).unwrap();
        to.write_all(b">").unwrap();
        drop(to);
        assert_eq!(std::fs::read(&to_path).unwrap(), b"<3456abcdef>");
        let mut to = fs::File::options().write(true).open(&to_path).unwrap();
        io::Seek::seek(&mut to, io::SeekFrom::End(0)).unwrap();
        let err = copy_range(&from, 14, &to, 4).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }
}
