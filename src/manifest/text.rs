//! A manifest's text as it is written: new text (the head, the entries
//! read again, the brackets) and runs of bytes copied from the last
//! manifest (the entries of unchanged name directories, with the
//! separators between them). The runs are never read into memory: the
//! new file is written with `copy_file_range` from the old one (in the
//! kernel; a reflink of the blocks where the filesystem shares them), so
//! a root of a thousand tools costs an install a file-to-file copy of
//! its manifest, not a read, a copy in memory and a write of it.

use std::fs;
use std::io;
use std::path::Path;

use super::cache::{read_exact_at, Cache, Spare, Stamp};

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

    /// The ranges (`[start, len]`, sorted) where this text may differ from
    /// the last manifest: its new text, and what it copies from the last
    /// manifest to another place.
    pub fn changed(&self) -> Vec<(usize, usize)> {
        let mut changed: Vec<(usize, usize)> = Vec::new();
        let mut at = 0;
        for piece in &self.pieces {
            let (n, moved) = match *piece {
                Piece::New(_, n) => (n, true),
                Piece::Old(start, n) => (n, start != at),
            };
            if moved {
                match changed.last_mut() {
                    Some((start, len)) if *start + *len == at => *len += n,
                    _ => changed.push((at, n)),
                }
            }
            at += n;
        }
        changed
    }

    /// Replaces `path` by this text, atomically and flushed: a file of the
    /// same directory, written, flushed and swapped with it, then the
    /// directory flushed. Returns whether the manifest it replaced is the
    /// spare now (below).
    ///
    /// The file written is the manifest before the one on disk, kept as
    /// `SPARE` by the last write, written over in place: its blocks are
    /// already allocated, so the flush writes the data alone, and the
    /// manifest it replaces is not freed but kept as the next spare (on
    /// ext4, a 1.9 MB manifest: 2.8 against 4.4 ms, half of that freeing
    /// the old file's blocks). Where `spare` says what it holds (its stamp
    /// is checked), only what it lacks is written: the ranges where it
    /// differs from the last manifest, and what this text does not copy
    /// from the last manifest to the same place. A large manifest keeps its
    /// entries in place (see `render`), so an install writes and flushes a
    /// few pages of it, not all of it. Only while nobody else has it open
    /// ([`crate::fs::Unshared`]): a reader still reading it from when it
    /// was the manifest keeps its bytes. Otherwise, or without a spare, a
    /// new temporary file (whose name a killed command's leftovers are
    /// cleared by), swapped in the same way where the filesystem can swap
    /// two names, else renamed over the manifest.
    ///
    /// `spare` is to be trusted only by a command whose journal is on disk:
    /// killed, or stopped by a power cut, while the spare is half written,
    /// it leaves its journal, and the command that recovers writes the
    /// whole text.
    ///
    /// `before_swap` runs once the new text is flushed, before it takes the
    /// manifest's place; its error stops the write there.
    pub fn write(
        &self,
        path: &Path,
        cache: &Cache,
        spare: Option<&Spare>,
        before_swap: impl FnOnce() -> io::Result<()>,
    ) -> io::Result<bool> {
        let dir = path.parent().expect("files have a parent");
        fs::create_dir_all(dir)?;
        let old = cache.manifest().map(|(file, _)| file);
        let spare_path = dir.join(SPARE);
        let mut before_swap = Some(before_swap);
        let mut ready = || before_swap.take().map_or(Ok(()), |f| f());
        if let Some(unshared) = crate::fs::Unshared::open(&spare_path) {
            let stamp = unshared
                .file
                .metadata()
                .ok()
                .and_then(|m| Stamp::from_metadata(&m));
            let known = spare
                .filter(|spare| stamp == Some(spare.stamp))
                .map(|spare| spare.changed.as_slice());
            let written = self.write_over(&unshared.file, old, known);
            drop(unshared.release());
            written?;
            ready()?;
            if crate::fs::rename_exchange(&spare_path, path).is_ok() {
                crate::fs::sync_dir(dir);
                return Ok(true);
            }
        }
        let tmp = tempfile::Builder::new()
            .prefix(crate::fs::TEMP_PREFIX)
            .tempfile_in(dir)?;
        self.write_over(tmp.as_file(), old, None)?;
        ready()?;
        let tmp = tmp.into_temp_path();
        let kept = if crate::fs::rename_exchange(&tmp, path).is_ok() {
            // The replaced manifest is at the temporary name: the next spare.
            let kept = tmp.keep().map_err(|e| e.error)?;
            let renamed = fs::rename(&kept, &spare_path).is_ok();
            if !renamed {
                let _ = fs::remove_file(&kept);
            }
            renamed
        } else {
            tmp.persist(path).map_err(|e| e.error)?;
            false
        };
        crate::fs::sync_dir(dir);
        Ok(kept)
    }

    /// Makes `file` this text and nothing more, readable by every local
    /// reader (tempfile creates 0600; a spare may have been longer),
    /// flushed. `known`: `file` holds the last manifest but at these
    /// ranges, so only those and what this text changes are written.
    fn write_over(
        &self,
        file: &fs::File,
        old: Option<&fs::File>,
        known: Option<&[(usize, usize)]>,
    ) -> io::Result<()> {
        let mut at = 0;
        for piece in &self.pieces {
            match *piece {
                Piece::New(start, n) => {
                    write_all_at(file, &self.new.as_bytes()[start..start + n], at)?;
                    at += n;
                }
                Piece::Old(start, n) => {
                    let old = old.ok_or_else(|| io::Error::other("no manifest to copy from"))?;
                    match known {
                        Some(changed) if start == at => {
                            for (from, len) in overlaps(changed, start, n) {
                                copy_range(old, from as u64, file, from as u64, len)?;
                            }
                        }
                        _ => {
                            copy_range(old, start as u64, file, at as u64, n)?;
                            if n >= WRITEBACK_FROM {
                                start_writeback(file);
                            }
                        }
                    }
                    at += n;
                }
            }
        }
        if file.metadata()?.len() != self.len as u64 {
            file.set_len(self.len as u64)?;
        }
        crate::fs::set_mode(file, 0o644)?;
        file.sync_all()
    }
}

/// The parts of `changed` (sorted `[start, len]` ranges) within `[start,
/// start + len)`, clipped to it.
fn overlaps(
    changed: &[(usize, usize)],
    start: usize,
    len: usize,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let end = start + len;
    let first = changed.partition_point(|&(s, n)| s + n <= start);
    changed[first..]
        .iter()
        .take_while(move |&&(s, _)| s < end)
        .map(move |&(s, n)| {
            let from = s.max(start);
            (from, (s + n).min(end) - from)
        })
}

/// Writes `bytes` into `file` at `offset`.
fn write_all_at(file: &fs::File, bytes: &[u8], offset: usize) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(file, bytes, offset as u64)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, Write};
        let mut file = file;
        file.seek(io::SeekFrom::Start(offset as u64))?;
        file.write_all(bytes)
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

/// Copies `len` bytes of `from` at `offset` into `to` at `to_offset`:
/// `copy_file_range`, or reading and writing where the kernel cannot.
fn copy_range(
    from: &fs::File,
    offset: u64,
    to: &fs::File,
    to_offset: u64,
    len: usize,
) -> io::Result<()> {
    let (mut offset, mut to_offset) = (offset, to_offset);
    let mut left = len;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        while left > 0 {
            let mut off_in = i64::try_from(offset).map_err(io::Error::other)?;
            let mut off_out = i64::try_from(to_offset).map_err(io::Error::other)?;
            // SAFETY: both descriptors are open for the call; the offsets
            // are valid i64s the kernel updates.
            let copied = unsafe {
                libc::copy_file_range(
                    from.as_raw_fd(),
                    &mut off_in,
                    to.as_raw_fd(),
                    &mut off_out,
                    left,
                    0,
                )
            };
            if copied > 0 {
                let copied = copied as usize;
                left -= copied;
                offset += copied as u64;
                to_offset += copied as u64;
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
    while left > 0 {
        let n = left.min(buf.len());
        read_exact_at(from, &mut buf[..n], offset)?;
        write_all_at(to, &buf[..n], to_offset as usize)?;
        left -= n;
        offset += n as u64;
        to_offset += n as u64;
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
            text.write(&path, &cache, None, || {
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
            let stopped = text.write(&path, &cache, None, || Err(io::Error::other("stop")));
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
        let to = fs::File::create(&to_path).unwrap();
        write_all_at(&to, b"<", 0).unwrap();
        copy_range(&from, 10, &to, 5, 6).unwrap();
        copy_range(&from, 3, &to, 1, 4).unwrap();
        write_all_at(&to, b">", 11).unwrap();
        assert_eq!(std::fs::read(&to_path).unwrap(), b"<3456abcdef>");
        let err = copy_range(&from, 14, &to, 12, 4).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn overlaps_are_clipped_to_the_run() {
        let changed = [(0, 10), (20, 5), (30, 10), (50, 1)];
        let of = |start, len| overlaps(&changed, start, len).collect::<Vec<_>>();
        assert_eq!(of(5, 30), [(5, 5), (20, 5), (30, 5)]);
        assert_eq!(of(10, 10), []);
        assert_eq!(of(24, 7), [(24, 1), (30, 1)]);
        assert_eq!(of(45, 100), [(50, 1)]);
        assert_eq!(of(60, 5), []);
    }

    /// Generations of a manifest, each made of new text and runs of the
    /// last (moved or not), written over the spare where what it holds is
    /// known (only what it lacks written), and where it is not: each is
    /// exactly its text, and the spare is left what the cache is told.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_spare_written_in_part_is_the_whole_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        let spare_path = dir.path().join(SPARE);
        // xorshift64: the same generations every run.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let mut spare: Option<Spare> = None;
        let mut last = String::new();
        for generation in 0..300 {
            let cache = if last.is_empty() {
                Cache::default()
            } else {
                Cache::remembering(&[], None, fs::File::open(&path).unwrap())
            };
            // The next text: runs of the last (most in place, some moved,
            // some left out), and new text between them.
            let mut text = Text::default();
            let mut at = 0;
            while at < last.len() {
                let n = 1 + next((last.len() - at).min(9000));
                match next(10) {
                    0 => text.push_str(&"x".repeat(1 + next(300))),
                    1 => {} // left out
                    _ => {
                        if text.len() < at && next(5) > 0 {
                            text.push_str(&" ".repeat(at - text.len()));
                        }
                        text.push_old(at, n);
                    }
                }
                at += n;
            }
            let tail: String = (0..next(2000))
                .map(|i| char::from(b'a' + ((i + generation) % 26) as u8))
                .collect();
            text.push_str(&tail);
            let want = text.contents(&cache).unwrap();
            // The spare believed only some of the time.
            let believed = spare.as_ref().filter(|_| next(10) > 0);
            let kept = text.write(&path, &cache, believed, || Ok(())).unwrap();
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                want,
                "{generation}"
            );
            assert_eq!(kept, !last.is_empty());
            if kept {
                assert_eq!(std::fs::read_to_string(&spare_path).unwrap(), last);
                let meta = std::fs::metadata(&spare_path).unwrap();
                spare = Some(Spare {
                    stamp: Stamp::from_metadata(&meta).unwrap(),
                    changed: text.changed(),
                });
            }
            last = want;
        }
    }
}
