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

    /// Replaces `path` by this text, atomically and flushed: a temporary
    /// file of the same directory, written, flushed and renamed over it,
    /// then the directory flushed (as `crate::fs::atomic_write` does; its
    /// temporary files have the same prefix, which a killed command's
    /// leftovers are cleared by).
    pub fn write(&self, path: &Path, cache: &Cache) -> io::Result<()> {
        let dir = path.parent().expect("files have a parent");
        fs::create_dir_all(dir)?;
        let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
        let old = cache.manifest().map(|(file, _)| file);
        for piece in &self.pieces {
            match *piece {
                Piece::New(at, n) => tmp.write_all(&self.new.as_bytes()[at..at + n])?,
                Piece::Old(at, n) => {
                    let old = old.ok_or_else(|| io::Error::other("no manifest to copy from"))?;
                    copy_range(old, at as u64, tmp.as_file(), n)?;
                    if n >= WRITEBACK_FROM {
                        start_writeback(tmp.as_file());
                    }
                }
            }
        }
        // tempfile creates 0600; the manifest is for every local reader.
        crate::fs::set_mode(tmp.as_file(), 0o644)?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        crate::fs::sync_dir(dir);
        Ok(())
    }
}

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
