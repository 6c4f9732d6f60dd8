//! Hardened extraction of package archives (ARCHITECTURE.md, invariant 2).
//!
//! An archive may hold only regular files and directories: links, devices and
//! fifos are refused outright, because link checks have a long history of
//! bypasses (cargo and uv made the same choice). Absolute paths, `..`, a path
//! that appears twice, non-UTF-8 names, names holding control characters
//! (which a terminal would obey when an error shows them) and orla's
//! reserved receipt name are refused; setuid, setgid and sticky bits and group/world write are dropped;
//! the unpacked size is capped, and so is the number of files and
//! directories created, counting the parent directories an entry such as
//! `a/b/c/f` creates without naming them, and the depth of every path: a
//! kilobyte of long names could otherwise create a hundred thousand nested
//! directories that no size cap sees. Extraction always goes
//! into a fresh, empty staging directory, and each file is created with
//! `create_new`, so nothing that already exists is ever written through.
//!
//! The size cap follows cargo (the larger of 512 MiB and 20 times the
//! compressed size), but orla unpacks while it downloads, before the digest
//! is known, so the compressed size it scales with is the number of bytes
//! actually read so far, never the size an index or a server claims: a
//! record that lies about the size cannot buy a small bomb a large budget.
//! An entry whose header alone declares more than the cap is refused before
//! any of its bytes are decompressed. Long names and PAX records, which the
//! tar reader holds in memory whole, are capped at 1 MiB between entries.
//!
//! Reading and inflating run on the caller's thread, the tar on a second
//! one, with at most 1 MiB of inflated data between them. The tar thread
//! writes each file and computes its BLAKE3 from the bytes as it writes
//! them (for the install receipt that `orla verify` checks later, and for
//! the cache), so nothing is read back. Files are not flushed here: each
//! one's writeback is only started as it is closed, and the store flushes
//! the package, in one parallel pass, before its manifest names it.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use crate::package::RECEIPT_FILE;
use crate::verify::Digest;

/// One unpacked file: its digest, size and whether it is executable. A
/// package's files are recorded in its install receipt and checked again by
/// `orla verify`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct FileRecord {
    pub blake3: Digest,
    pub size: u64,
    pub executable: bool,
}

/// Caps on what one archive may expand to.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_unpacked_bytes: u64,
    /// Files and directories created on disk, implicit parents included.
    pub max_entries: u64,
}

impl Limits {
    pub const MIN_UNPACKED_BYTES: u64 = 512 * 1024 * 1024;
    pub const MAX_ENTRIES: u64 = 10_000;
    /// How many path components an entry may have (`a/b/c` has three).
    pub const MAX_DEPTH: usize = 32;
    /// How many times its compressed size an archive may expand to, beyond
    /// `MIN_UNPACKED_BYTES`.
    pub const MAX_RATIO: u64 = 20;

    /// The cap once `compressed` bytes of the archive have been read: never
    /// more than `max_unpacked_bytes`, and beyond the 512 MiB floor only as
    /// far as the bytes really read justify.
    pub fn budget(&self, compressed: u64) -> u64 {
        let earned = compressed
            .saturating_mul(Self::MAX_RATIO)
            .max(Self::MIN_UNPACKED_BYTES);
        self.max_unpacked_bytes.min(earned)
    }

    /// As cargo does: the larger of 512 MiB and 20 times the compressed size.
    pub fn for_archive(compressed_size: Option<u64>) -> Limits {
        let scaled = compressed_size.unwrap_or(0).saturating_mul(20);
        Limits {
            max_unpacked_bytes: scaled.max(Self::MIN_UNPACKED_BYTES),
            max_entries: Self::MAX_ENTRIES,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("the archive is not a valid gzip tar: {0}")]
    Corrupt(String),
    #[error("the archive entry '{path}' is a {kind}; packages may hold only regular files and directories")]
    ForbiddenEntry { path: String, kind: String },
    #[error("the archive entry '{path}' {reason}")]
    UnsafePath { path: String, reason: &'static str },
    #[error("the archive holds '{path}' twice")]
    Duplicate { path: String },
    #[error("the archive expands to more than {limit} bytes (a decompression bomb, or a package too large to install)")]
    TooLarge { limit: u64 },
    #[error("the archive holds more than {limit} files and directories (counting the parent directories its paths create)")]
    TooManyEntries { limit: u64 },
    #[error("the archive entry '{path}' is nested more than {limit} directories deep")]
    TooDeep { path: String, limit: usize },
    #[error("the archive is empty")]
    Empty,
    #[error("the archive has a long name or PAX header record of more than {limit} bytes")]
    ExtensionTooLarge { limit: u64 },
    #[error(
        "the archive holds data {place}; a package archive is one gzip stream holding one tar"
    )]
    TrailingData { place: &'static str },
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// What was unpacked.
#[derive(Debug)]
pub struct Unpacked {
    /// The package root inside the staging directory: the staging directory
    /// itself, or the single top-level directory the archive wrapped it in.
    pub root: PathBuf,
    /// Every regular file, relative to `root`, with its digest.
    pub files: BTreeMap<String, FileRecord>,
}

/// Unpacks the gzip tar `reader` into `dest`, which must be an empty directory.
///
/// The caller's thread reads the archive (and whatever `reader` does, such
/// as hashing it) and inflates it; a second one parses the tar and writes
/// and hashes its files. Inflated bytes pass between the two through a
/// queue of `QUEUE_CHUNKS` chunks of `CHUNK` bytes, so memory stays bounded
/// whatever the archive's size, and inflating runs ahead of the writes by
/// at most that much.
pub fn unpack(reader: impl Read, dest: &Path, limits: Limits) -> Result<Unpacked, UnpackError> {
    let consumed = AtomicU64::new(0);
    let (full, full_rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(QUEUE_CHUNKS);
    let (empty, empty_rx) = mpsc::sync_channel::<Vec<u8>>(QUEUE_CHUNKS + 2);
    let files = std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let inflated = Inflated {
                chunks: full_rx,
                spent: empty,
                current: Vec::new(),
                pos: 0,
            };
            unpack_tar(inflated, dest, limits, &consumed)
        });
        let inflated = inflate(reader, &consumed, &full, &empty_rx);
        drop(full); // the writer sees the end of the stream
        let files = match writer.join() {
            Ok(files) => files?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        inflated?;
        Ok(files)
    })?;
    Ok(strip_wrapper(dest, files))
}

/// Bytes per chunk of inflated data handed to the writing thread (below
/// the allocator's threshold for mapping memory, and the buffers are reused).
const CHUNK: usize = 64 * 1024;
/// Chunks in flight between the two threads: 1 MiB.
const QUEUE_CHUNKS: usize = 16;

/// The inflating side: reads `reader` through gunzip into chunks for the
/// writer, until the gzip stream ends or the writer stops listening. Then
/// refuses anything after the gzip member: a second member or appended
/// bytes are content orla would not install but another tool might read.
/// Read and gzip errors go to the writer, which reports them where the tar
/// reader meets them.
///
/// Inflating is zlib-rs (its gzip mode checks the header, the CRC-32 and
/// the length), faster than flate2's default backend on this thread, the
/// pipeline's busiest.
fn inflate(
    reader: impl Read,
    consumed: &AtomicU64,
    full: &mpsc::SyncSender<io::Result<Vec<u8>>>,
    empty: &mpsc::Receiver<Vec<u8>>,
) -> Result<(), UnpackError> {
    let counted = Counted {
        inner: reader,
        count: consumed,
    };
    let mut input = BufReader::with_capacity(64 * 1024, counted);
    let mut gunzip = Gunzip::new();
    loop {
        let mut chunk = empty.try_recv().unwrap_or_else(|_| vec![0u8; CHUNK]);
        chunk.resize(CHUNK, 0);
        let (n, ended) = match gunzip.fill(&mut input, &mut chunk) {
            Ok(filled) => filled,
            Err(e) => {
                let _ = full.send(Err(e));
                return Ok(());
            }
        };
        chunk.truncate(n);
        if n > 0 && full.send(Ok(chunk)).is_err() {
            return Ok(()); // the writer stopped: its error is the one to report
        }
        if ended {
            break;
        }
    }
    // The decoder took only its own member from the buffer, so bytes
    // after it can be seen (and refused) here.
    let more = input
        .fill_buf()
        .map_err(|e| UnpackError::Corrupt(io_message(&e)))?;
    if !more.is_empty() {
        return Err(UnpackError::TrailingData {
            place: "after the gzip stream",
        });
    }
    Ok(())
}

/// One gzip member, inflated.
struct Gunzip {
    state: zlib_rs::Inflate,
}

impl Gunzip {
    fn new() -> Gunzip {
        // 16 + 15: a gzip header and trailer around a deflate stream with
        // a window of up to 32 KiB.
        Gunzip {
            state: zlib_rs::Inflate::new(true, 16 + 15),
        }
    }

    /// Inflates from `input` into `out` until it is full or the member
    /// ends: the bytes written, and whether the member (its trailer
    /// checked) ended. Takes from `input` only the member's own bytes.
    fn fill(&mut self, input: &mut impl BufRead, out: &mut [u8]) -> io::Result<(usize, bool)> {
        let mut filled = 0;
        while filled < out.len() {
            let available = input.fill_buf()?;
            let at_end = available.is_empty();
            let flush = if at_end {
                zlib_rs::InflateFlush::Finish
            } else {
                zlib_rs::InflateFlush::NoFlush
            };
            let (before_in, before_out) = (self.state.total_in(), self.state.total_out());
            let status = self.state.decompress(available, &mut out[filled..], flush);
            let used = (self.state.total_in() - before_in) as usize;
            let made = (self.state.total_out() - before_out) as usize;
            input.consume(used);
            filled += made;
            match status {
                Ok(zlib_rs::Status::StreamEnd) => return Ok((filled, true)),
                Ok(_) if used == 0 && made == 0 => {
                    let e = if at_end {
                        io::Error::new(io::ErrorKind::UnexpectedEof, "the gzip stream is cut short")
                    } else {
                        io::Error::other("the gzip decoder made no progress")
                    };
                    return Err(e);
                }
                Ok(_) => {}
                Err(e) => {
                    let message = self.state.error_message().unwrap_or(e.as_str());
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("gzip: {message}"),
                    ));
                }
            }
        }
        Ok((filled, false))
    }
}

/// The writing side's view of the inflated stream.
struct Inflated {
    chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
    spent: mpsc::SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
}

impl Read for Inflated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            match self.chunks.recv() {
                Ok(Ok(chunk)) => {
                    let done = std::mem::replace(&mut self.current, chunk);
                    self.pos = 0;
                    if done.capacity() > 0 {
                        let _ = self.spent.try_send(done);
                    }
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => return Ok(0), // the gzip stream ended
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The writing side: parses the inflated tar and writes its files.
fn unpack_tar(
    inflated: Inflated,
    dest: &Path,
    limits: Limits,
    consumed: &AtomicU64,
) -> Result<BTreeMap<String, FileRecord>, UnpackError> {
    let allowance = Cell::new(MAX_EXTENSION_BYTES);
    let exceeded = Cell::new(false);
    let mut archive = tar::Archive::new(Allowance {
        inner: inflated,
        left: &allowance,
        exceeded: &exceeded,
    });
    let corrupt = |e: io::Error| {
        if exceeded.get() {
            UnpackError::ExtensionTooLarge {
                limit: MAX_EXTENSION_BYTES,
            }
        } else {
            UnpackError::Corrupt(io_message(&e))
        }
    };
    let entries = archive.entries().map_err(corrupt)?;
    let mut seen = std::collections::HashSet::new();
    let mut files = BTreeMap::new();
    let mut total: u64 = 0;
    // One buffer for every file's bytes on their way from the tar to disk.
    let mut buf = vec![0u8; 64 * 1024];
    let mut dirs = Dirs {
        root: dest,
        made: std::collections::HashSet::new(),
        created: 0,
        limit: limits.max_entries,
    };

    for entry in entries {
        let mut entry = entry.map_err(corrupt)?;
        // This entry's data (and padding), then the next header and any
        // long name or PAX record before it: nothing more.
        allowance.set(
            entry
                .size()
                .saturating_add(511)
                .saturating_add(MAX_EXTENSION_BYTES),
        );
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() {
            continue; // metadata only, e.g. the commit id `git archive` records
        }
        let raw = entry.path_bytes().into_owned();
        let rel = safe_path(&raw)?;
        if rel.split('/').count() > Limits::MAX_DEPTH {
            return Err(UnpackError::TooDeep {
                path: abbreviate(&rel),
                limit: Limits::MAX_DEPTH,
            });
        }
        let is_dir = kind.is_dir();
        if !(is_dir || kind.is_file() || kind == tar::EntryType::Continuous) {
            return Err(UnpackError::ForbiddenEntry {
                path: rel,
                kind: entry_kind(kind),
            });
        }
        if rel.is_empty() {
            if is_dir {
                continue; // "./" names the staging directory itself
            }
            return Err(UnpackError::UnsafePath {
                path: String::from_utf8_lossy(&raw).into_owned(),
                reason: "has no file name",
            });
        }
        if !seen.insert(rel.clone()) {
            return Err(UnpackError::Duplicate { path: rel });
        }
        let target = dest.join(&rel);
        if is_dir {
            dirs.make(&rel)?;
            continue;
        }
        if let Some((parent, _)) = rel.rsplit_once('/') {
            dirs.make(parent)?;
        }
        dirs.count_one()?;
        let executable = entry
            .header()
            .mode()
            .map(|m| m & 0o111 != 0)
            .unwrap_or(false);
        // Refuse a bomb by its header, before inflating any of it.
        if total.saturating_add(entry.size()) > limits.max_unpacked_bytes {
            return Err(UnpackError::TooLarge {
                limit: limits.max_unpacked_bytes,
            });
        }
        let read = || consumed.load(Ordering::Relaxed);
        let budget = || limits.budget(read()).saturating_sub(total);
        let written = write_file(&mut entry, &target, executable, budget, &mut buf);
        let (size, blake3) = written.map_err(|e| match e {
            WriteError::TooLarge => UnpackError::TooLarge {
                limit: limits.budget(read()),
            },
            WriteError::Read(e) => UnpackError::Corrupt(io_message(&e)),
            WriteError::Write(source) => UnpackError::Io {
                path: target.display().to_string(),
                source,
            },
        })?;
        total += size;
        files.insert(
            rel,
            FileRecord {
                blake3,
                size,
                executable,
            },
        );
    }

    if seen.is_empty() {
        return Err(UnpackError::Empty);
    }
    allowance.set(u64::MAX); // the padding check has its own bound
    refuse_trailing_padding(archive.into_inner().inner)?;
    Ok(files)
}

/// After the tar end marker only zero padding may follow (the inflating
/// side refuses anything after the gzip member): other content is content
/// orla would not install but another tool might read, so the archive would
/// not mean one thing.
fn refuse_trailing_padding(mut inflated: impl Read) -> Result<(), UnpackError> {
    // tar pads to its record size (10 KiB by default, 1 MiB at most in
    // practice); more than that is not padding, and is not inflated.
    const MAX_PADDING: u64 = 1 << 20;
    let mut buf = [0u8; 8192];
    let mut padding = 0u64;
    loop {
        let n = inflated
            .read(&mut buf)
            .map_err(|e| UnpackError::Corrupt(io_message(&e)))?;
        if n == 0 {
            break;
        }
        padding += n as u64;
        if padding > MAX_PADDING || buf[..n].iter().any(|b| *b != 0) {
            return Err(UnpackError::TrailingData {
                place: "after the tar end marker",
            });
        }
    }
    Ok(())
}

/// If everything sits under one top-level directory and there is no
/// tool.yaml beside it, that directory is the package root.
fn strip_wrapper(dest: &Path, files: BTreeMap<String, FileRecord>) -> Unpacked {
    let mut tops = files.keys().map(|k| k.split('/').next().unwrap_or(k));
    let first = tops.next().map(str::to_string);
    let single_dir = match &first {
        Some(top) => {
            files.keys().all(|k| k.starts_with(&format!("{top}/")))
                && fs::read_dir(dest).map(|d| d.count() == 1).unwrap_or(false)
        }
        None => false,
    };
    match first {
        Some(top) if single_dir && !files.contains_key(crate::package::TOOL_YAML) => {
            let prefix = format!("{top}/");
            let files = files
                .into_iter()
                .map(|(k, v)| (k[prefix.len()..].to_string(), v))
                .collect();
            Unpacked {
                root: dest.join(top),
                files,
            }
        }
        _ => Unpacked {
            root: dest.to_path_buf(),
            files,
        },
    }
}

/// Normalises an archive path to `a/b/c`, refusing anything that could
/// leave the destination or confuse it.
pub fn safe_path(raw: &[u8]) -> Result<String, UnpackError> {
    let shown = || String::from_utf8_lossy(raw).into_owned();
    let text = std::str::from_utf8(raw).map_err(|_| UnpackError::UnsafePath {
        path: shown(),
        reason: "is not valid UTF-8",
    })?;
    if text.starts_with('/') || text.starts_with('\\') {
        return Err(UnpackError::UnsafePath {
            path: shown(),
            reason: "is an absolute path",
        });
    }
    let mut parts = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => continue,
            ".." => {
                return Err(UnpackError::UnsafePath {
                    path: shown(),
                    reason: "climbs out of the package with '..'",
                })
            }
            p if p.contains('\\')
                || p.contains('\0')
                || (p.len() >= 2 && p.as_bytes()[1] == b':') =>
            {
                return Err(UnpackError::UnsafePath {
                    path: shown(),
                    reason: "contains a backslash, NUL or drive prefix",
                })
            }
            p if p.chars().any(char::is_control) => {
                return Err(UnpackError::UnsafePath {
                    path: shown(),
                    reason: "contains a control character",
                })
            }
            p if p == RECEIPT_FILE => {
                return Err(UnpackError::UnsafePath {
                    path: shown(),
                    reason: "uses a name orla reserves for its install receipt",
                })
            }
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

fn entry_kind(kind: tar::EntryType) -> String {
    match kind {
        tar::EntryType::Symlink => "symbolic link".into(),
        tar::EntryType::Link => "hard link".into(),
        tar::EntryType::Char => "character device".into(),
        tar::EntryType::Block => "block device".into(),
        tar::EntryType::Fifo => "fifo".into(),
        tar::EntryType::GNUSparse => "sparse file".into(),
        other => format!("entry of type {:?}", other.as_byte() as char),
    }
}

/// The directories created so far, and the count of everything created
/// (files and directories) against the cap. Each directory is made with
/// `create_dir`, never `create_dir_all`, so none is made uncounted.
struct Dirs<'a> {
    root: &'a Path,
    made: std::collections::HashSet<String>,
    created: u64,
    limit: u64,
}

impl Dirs<'_> {
    fn count_one(&mut self) -> Result<(), UnpackError> {
        self.created += 1;
        if self.created > self.limit {
            return Err(UnpackError::TooManyEntries { limit: self.limit });
        }
        Ok(())
    }

    /// Creates `rel` (a normalised relative path) and each missing parent.
    fn make(&mut self, rel: &str) -> Result<(), UnpackError> {
        let mut end = 0;
        for part in rel.split('/') {
            end += part.len();
            let prefix = &rel[..end];
            end += 1; // the '/' after this component
            if self.made.contains(prefix) {
                continue;
            }
            self.count_one()?;
            let path = self.root.join(prefix);
            fs::create_dir(&path).map_err(|source| UnpackError::Io {
                path: path.display().to_string(),
                source,
            })?;
            self.made.insert(prefix.to_string());
        }
        Ok(())
    }
}

/// A path short enough for a one-line error.
fn abbreviate(path: &str) -> String {
    const SHOWN: usize = 80;
    if path.len() <= SHOWN {
        return path.to_string();
    }
    let mut cut = SHOWN;
    while !path.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &path[..cut])
}

enum WriteError {
    TooLarge,
    Read(io::Error),
    Write(io::Error),
}

/// The mode an unpacked file gets: only the executable bit of the archive
/// is kept.
fn file_mode(executable: bool) -> u32 {
    if executable {
        0o755
    } else {
        0o644
    }
}

/// Writes the entry's bytes to a new file at `target`, hashing them on the
/// way: its size and digest.
fn write_file(
    src: &mut impl Read,
    target: &Path,
    executable: bool,
    budget: impl Fn() -> u64,
    buf: &mut [u8],
) -> Result<(u64, Digest), WriteError> {
    let mode = file_mode(executable);
    let mut file = crate::fs::create_new(target, mode).map_err(WriteError::Write)?;
    let mut hasher = blake3::Hasher::new();
    let mut size: u64 = 0;
    loop {
        let n = src.read(buf).map_err(WriteError::Read)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        if size > budget() {
            return Err(WriteError::TooLarge);
        }
        hasher.update(&buf[..n]);
        file.write_all(&buf[..n]).map_err(WriteError::Write)?;
    }
    crate::fs::set_mode(&file, mode).map_err(WriteError::Write)?;
    crate::fs::start_writeback(&file);
    Ok((size, Digest::from_hasher(&hasher)))
}

/// How many bytes of tar headers, long names and PAX records may come
/// between two entries' data. tar-rs reads a long name or PAX record whole
/// into memory before it yields the entry, so without this bound a 1 MiB
/// download could declare a 2 GiB file name and exhaust memory.
const MAX_EXTENSION_BYTES: u64 = 1 << 20;

/// Stops the tar reader once it has read more than `left` bytes: set per
/// entry to its data plus `MAX_EXTENSION_BYTES`.
struct Allowance<'a, R> {
    inner: R,
    left: &'a Cell<u64>,
    exceeded: &'a Cell<bool>,
}

impl<R: Read> Read for Allowance<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.left.get();
        if left == 0 && !buf.is_empty() {
            self.exceeded.set(true);
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a tar header extension is too large",
            ));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left.set(left - n as u64);
        Ok(n)
    }
}

/// Counts the compressed bytes the gzip decoder has pulled.
struct Counted<'a, R> {
    inner: R,
    count: &'a AtomicU64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

fn io_message(e: &io::Error) -> String {
    match e.get_ref() {
        Some(inner) => inner.to_string(),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip_tar(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        for (path, body) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, path, &body[..]).unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap()
    }

    fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn many_chunks_pass_between_the_threads_intact() {
        // Several times the queue between the inflating and writing threads.
        let big = noise(3 * QUEUE_CHUNKS * CHUNK + 12_345, 7);
        let small = b"x".to_vec();
        let bytes = gzip_tar(&[("a/big", big.clone()), ("a/small", small.clone())]);
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::for_archive(Some(bytes.len() as u64));
        let unpacked = unpack(&bytes[..], dir.path(), limits).unwrap();
        assert_eq!(std::fs::read(unpacked.root.join("big")).unwrap(), big);
        assert_eq!(unpacked.files["big"].blake3, Digest::of(&big));
        assert_eq!(unpacked.files["small"].size, 1);
    }

    #[test]
    fn small_and_large_files_get_their_bytes_modes_and_digests() {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        let mut bodies = Vec::new();
        for i in 0..50u64 {
            let len = if i == 7 {
                (1 << 20) + 1
            } else {
                (i * 997) as usize
            };
            let body = noise(len, i + 1);
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(if i % 3 == 0 { 0o755 } else { 0o644 });
            header.set_cksum();
            let path = format!("d{}/f{i}", i % 4);
            tar.append_data(&mut header, &path, &body[..]).unwrap();
            bodies.push((path, body, i % 3 == 0));
        }
        let bytes = tar.into_inner().unwrap().finish().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::for_archive(Some(bytes.len() as u64));
        let unpacked = unpack(&bytes[..], dir.path(), limits).unwrap();
        assert_eq!(unpacked.files.len(), bodies.len());
        for (path, body, executable) in bodies {
            let record = &unpacked.files[&path];
            assert_eq!(record.blake3, Digest::of(&body), "{path}");
            assert_eq!(record.size, body.len() as u64);
            assert_eq!(record.executable, executable);
            let on_disk = unpacked.root.join(&path);
            assert_eq!(std::fs::read(&on_disk).unwrap(), body, "{path}");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&on_disk).unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, if executable { 0o755 } else { 0o644 }, "{path}");
            }
        }
    }

    /// Fails after `left` bytes, like a connection that drops.
    struct Broken<'a> {
        bytes: &'a [u8],
        left: usize,
    }

    impl Read for Broken<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("connection reset"));
            }
            let n = buf.len().min(self.left).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            self.left -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_midway_reaches_the_writer_and_both_threads_stop() {
        let bytes = gzip_tar(&[("big", noise(4 << 20, 3))]);
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::for_archive(None);
        let source = Broken {
            bytes: &bytes,
            left: bytes.len() / 2,
        };
        match unpack(source, dir.path(), limits) {
            Err(UnpackError::Corrupt(message)) => assert!(message.contains("connection reset")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_refused_entry_stops_the_inflating_thread_too() {
        // The writer refuses the first entry while megabytes are still to be
        // inflated: the reader must not block on a queue nobody empties.
        let bytes = gzip_tar(&[(RECEIPT_FILE, b"x".to_vec()), ("big", noise(8 << 20, 5))]);
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::for_archive(None);
        assert!(matches!(
            unpack(&bytes[..], dir.path(), limits),
            Err(UnpackError::UnsafePath { .. })
        ));
    }

    #[test]
    fn safe_paths_are_normalised() {
        assert_eq!(safe_path(b"a/b").unwrap(), "a/b");
        assert_eq!(safe_path(b"./a//b/").unwrap(), "a/b");
        assert_eq!(safe_path(b"./").unwrap(), "");
    }

    #[test]
    fn escaping_paths_are_refused() {
        for p in [
            &b"../x"[..],
            b"a/../../x",
            b"/etc/passwd",
            b"\\x",
            b"a\\..\\b",
            b"C:/x",
            b"\xff",
            b"pkg/.orla-receipt.json",
        ] {
            assert!(safe_path(p).is_err(), "{}", String::from_utf8_lossy(p));
        }
    }

    #[test]
    fn limits_scale_with_archive_size() {
        assert_eq!(
            Limits::for_archive(None).max_unpacked_bytes,
            512 * 1024 * 1024
        );
        assert_eq!(
            Limits::for_archive(Some(100 * 1024 * 1024)).max_unpacked_bytes,
            2000 * 1024 * 1024
        );
    }

    #[test]
    fn budget_grows_only_with_bytes_really_read() {
        // A record claiming 1 GiB does not let the first bytes expand 20 GiB.
        let limits = Limits::for_archive(Some(1 << 30));
        assert_eq!(limits.budget(0), Limits::MIN_UNPACKED_BYTES);
        assert_eq!(limits.budget(100 << 20), 2000 << 20);
        assert_eq!(limits.budget(u64::MAX), 20 << 30);
        let tiny = Limits {
            max_unpacked_bytes: 10,
            max_entries: 1,
        };
        assert_eq!(tiny.budget(1 << 40), 10);
    }
}
