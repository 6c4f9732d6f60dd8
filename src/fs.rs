//! File writes that survive a crash or a power loss: synced writes, atomic
//! replacement (temporary file, flush, rename), and the recognition of a
//! full disk. Every state file orla writes goes through here.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The prefix `atomic_write` (and the manifest's writer) gives its
/// temporary files, by which `remove_temp_files` knows them.
pub const TEMP_PREFIX: &str = ".tmp-";

/// Nanoseconds since the Unix epoch: the clock file times are compared
/// with (the stamps of the manifest cache and of cached files).
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The cores this process may run on, asked once: the standard library
/// asks the system every time (on Linux it reads the process's cgroup
/// files, about fifteen system calls), and the unpack's tar thread asked
/// it for every file it handed over, 2,000 times for a large package.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// True for the errors a full disk, an exhausted quota or a file size limit give.
pub fn is_out_of_space(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::StorageFull
        || e.kind() == io::ErrorKind::QuotaExceeded
        || e.kind() == io::ErrorKind::FileTooLarge
}

/// Writes a file and flushes it to disk.
pub fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Files whose data is on disk already, by path. Kept as the paths' bytes:
/// a `Path` hashes component by component, which was a sixth of the
/// instructions of a warm reinstall of 2,000 files. A path spelled another
/// way is not found, and its file is only flushed once more.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Durable(std::collections::HashSet<std::ffi::OsString>);

impl Durable {
    pub fn insert(&mut self, path: std::path::PathBuf) -> bool {
        self.0.insert(path.into_os_string())
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.0.contains(path.as_os_str())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<std::path::PathBuf> for Durable {
    fn from_iter<I: IntoIterator<Item = std::path::PathBuf>>(paths: I) -> Durable {
        Durable(paths.into_iter().map(|p| p.into_os_string()).collect())
    }
}

/// Replaces `path` by `bytes` as `atomic_write` does, without flushing
/// anything: for a cache whose reader can tell a file a crash left torn or
/// empty, and fetches it again.
pub fn replace_unflushed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, |_| Ok(()))
}

/// Writes `path` so that readers see either the old or the new content:
/// a temporary file in the same directory, flushed, then renamed over it.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, |file| {
        // tempfile creates 0600; state files are for every local reader.
        set_mode(file, 0o644)?;
        file.sync_all()
    })?;
    sync_dir(path.parent().expect("files have a parent"));
    Ok(())
}

/// `bytes` written to a temporary file of `path`'s directory, `finish`ed,
/// then renamed over `path`.
fn replace(
    path: &Path,
    bytes: &[u8],
    finish: impl FnOnce(&fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path.parent().expect("files have a parent");
    let mut tmp = made_in(dir, |dir| {
        tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir)
    })?;
    tmp.write_all(bytes)?;
    finish(tmp.as_file())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// What `make` makes in `dir`, which is created (with its parents) only
/// when `make` finds it missing: where it exists, as it mostly does, that
/// saves a `mkdir` that fails.
pub fn made_in<T>(dir: &Path, make: impl Fn(&Path) -> io::Result<T>) -> io::Result<T> {
    match make(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir)?;
            make(dir)
        }
        made => made,
    }
}

/// Flushes a directory entry change (a rename) to disk, where the platform allows.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Atomically swaps two paths (`renameat2(RENAME_EXCHANGE)`; Linux 3.15+,
/// and not every filesystem has it).
#[cfg(target_os = "linux")]
pub fn rename_exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let b = CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: both are valid NUL-terminated paths that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
pub fn rename_exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no atomic exchange here",
    ))
}

/// Removes the temporary files of `atomic_write` calls that a killed
/// process left in `dir`. Only call it under the lock of whatever owns `dir`.
pub fn remove_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// How many files `sync_files` flushes at once. Threads spend their time
/// waiting for the disk, not computing, so more than the number of cores
/// helps: the disk gets many requests in flight and the filesystem can
/// merge their journal commits (figures in `store::flush`).
const FLUSH_THREADS: usize = 8;

/// Flushes the data of every file in `paths` (`fsync`), several at once.
/// The first error is returned, after which the rest are skipped.
pub fn sync_files(paths: &[std::path::PathBuf]) -> io::Result<()> {
    for_each_parallel(paths, |path| fs::File::open(path)?.sync_all())
}

/// Flushes the entries of every directory in `dirs`, several at once,
/// where the platform allows (as `sync_dir`). Nothing depends on their
/// order: the caller's next step (a rename) waits for all of them.
pub fn sync_dirs(dirs: &[std::path::PathBuf]) {
    let _ = for_each_parallel(dirs, |dir| {
        sync_dir(dir);
        Ok(())
    });
}

/// Runs `action` once on every item from up to `FLUSH_THREADS` threads,
/// each taking the next item not yet taken; stops early after an error and
/// returns the first one.
fn for_each_parallel<T: Sync>(
    items: &[T],
    action: impl Fn(&T) -> io::Result<()> + Sync,
) -> io::Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<io::Error>> = Mutex::new(None);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else {
            break;
        };
        if let Err(e) = action(item) {
            failed.lock().expect("flush error lock").get_or_insert(e);
            next.store(items.len(), Ordering::Relaxed);
            break;
        }
    };
    // The calling thread takes its share: one thread fewer to start.
    let threads = FLUSH_THREADS.min(items.len());
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });
    match failed.into_inner().expect("flush error lock") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Flushes files (`fsync`) on background threads as they are handed over,
/// so that the waits for the disk overlap whatever the caller does
/// meanwhile (unpacking the rest of an archive) instead of coming after it.
/// Files may also be handed over as bytes in memory
/// ([`Flusher::write_hashed`]): then other background threads, one per
/// core, create, write and hash them before they are flushed. The threads
/// are the process's (`Pool`), shared by all its flushers: a command
/// unpacking twenty packages at once starts them once, not once for each.
/// `finish` waits for the last file of this flusher and returns the first
/// error, with the path of the file that failed: after a failed `fsync` the
/// data may be lost even if a later `fsync` succeeds, so the caller must
/// give up.
pub struct Flusher {
    state: std::sync::Arc<FlushState>,
    /// Where each flushed file is linked too, if anywhere.
    links: Option<std::sync::Arc<Links>>,
}

/// Where [`Flusher::flush_hashed`] leaves a file's BLAKE3, once flushed.
pub type HashSlot = std::sync::Arc<std::sync::OnceLock<blake3::Hash>>;

/// A file to flush, and where its digest goes when it is to be hashed too.
struct Job {
    file: fs::File,
    path: PathBuf,
    hash: Option<HashSlot>,
    links: Option<std::sync::Arc<Links>>,
}

impl Job {
    /// Hashes the file (from the start, as the page cache holds it) when
    /// asked to, then flushes it, then links it into the second tree of
    /// `links`, if any. Linked after the flush, not before: the flushes
    /// are what an unpack waits for, and a link made first holds each one
    /// up (measured in docs/benchmarks.md).
    fn run(self) -> Result<(), (PathBuf, io::Error)> {
        let Job {
            file,
            path,
            hash,
            links,
        } = self;
        let done = (|| {
            if let Some(slot) = hash {
                use std::io::Seek;
                let mut file = &file;
                file.seek(io::SeekFrom::Start(0))?;
                let mut hasher = blake3::Hasher::new();
                hasher.update_reader(file)?;
                let _ = slot.set(hasher.finalize());
            }
            file.sync_all()
        })();
        done.map_err(|e| (path.clone(), e))?;
        if let Some(links) = links {
            links.link(&path);
        }
        Ok(())
    }
}

/// A second tree that every file a [`Flusher`] flushes under `from` is
/// hard-linked into, at the same place under `to`, by the thread that
/// flushed it, once flushed: two names for each file, made while the
/// unpack still runs rather than one by one afterwards. Best effort: a file or directory that
/// cannot be linked or made only marks the second tree incomplete
/// ([`Links::complete`]); the flushes and the first tree are unaffected.
/// What the links add to a directory of `to` is not flushed here.
#[derive(Debug)]
pub struct Links {
    from: PathBuf,
    to: PathBuf,
    failed: std::sync::atomic::AtomicBool,
    /// The directories made under `to`, relative, in order.
    dirs: std::sync::Mutex<Vec<String>>,
}

impl Links {
    /// `to` must exist.
    pub fn new(from: &Path, to: &Path) -> std::sync::Arc<Links> {
        std::sync::Arc::new(Links {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
            failed: Default::default(),
            dirs: Default::default(),
        })
    }

    /// Makes the directory `rel` (relative, its parent made already) under
    /// `to`, as it is made under `from`.
    pub fn make_dir(&self, rel: &str) {
        if self.failed() {
            return;
        }
        match fs::create_dir(self.to.join(rel)) {
            Ok(()) => self.dirs.lock().expect("links lock").push(rel.to_string()),
            Err(_) => self.fail(),
        }
    }

    fn link(&self, path: &Path) {
        if self.failed() {
            return;
        }
        let linked = match path.strip_prefix(&self.from) {
            Ok(rel) => fs::hard_link(path, self.to.join(rel)).is_ok(),
            Err(_) => false,
        };
        if !linked {
            self.fail();
        }
    }

    fn fail(&self) {
        self.failed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn failed(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether every file flushed and every directory made so far has its
    /// name under `to` too.
    pub fn complete(&self) -> bool {
        !self.failed()
    }

    /// The directories made under `to` (relative, parents first).
    pub fn dirs(&self) -> Vec<String> {
        self.dirs.lock().expect("links lock").clone()
    }
}

/// A file to create from bytes in memory.
struct WriteJob {
    path: PathBuf,
    data: Buffer,
    mode: u32,
    hash: HashSlot,
    links: Option<std::sync::Arc<Links>>,
}

impl WriteJob {
    /// Creates the file (it must not exist) with the bytes and mode, and
    /// hashes the bytes: the file, open, to be flushed.
    fn run(self) -> Result<Job, (PathBuf, io::Error)> {
        let WriteJob {
            path,
            data,
            mode,
            hash,
            links,
        } = self;
        let written = (|| {
            let mut file = create_new(&path, mode, false)?;
            file.write_all(&data)?;
            set_mode(&file, mode)?;
            Ok(file)
        })();
        match written {
            Ok(file) => {
                let _ = hash.set(blake3::hash(&data));
                Ok(Job {
                    file,
                    path,
                    hash: None,
                    links,
                })
            }
            Err(e) => Err((path, e)),
        }
    }
}

/// Creates the file `path`, which must not exist (nothing already there
/// is ever written through), with `mode` where the platform has modes,
/// open for writing, and for reading too with `read`.
pub fn create_new(path: &Path, mode: u32, read: bool) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(read).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    options.open(path)
}

/// Gives `file` exactly `mode` (the umask may have narrowed the mode it
/// was created with); nothing where the platform has no modes.
pub fn set_mode(file: &fs::File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, mode);
        Ok(())
    }
}

/// Bytes of files handed to a `Flusher` and not yet written
/// ([`Flusher::buffer`]): past this the caller waits for them.
const MAX_IN_FLIGHT: usize = 2 << 20;

/// A buffer for a file's bytes from [`Flusher::buffer`]; its room in the
/// flusher's budget is given back when it is dropped.
pub struct Buffer {
    data: Vec<u8>,
    reserved: usize,
    state: std::sync::Arc<FlushState>,
}

impl std::ops::Deref for Buffer {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.data
    }
}

impl std::ops::DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let mut memory = self.state.memory.lock().expect("flush memory lock");
        memory.in_flight -= self.reserved;
        // Kept for the next files while small: at most 4 MiB in all.
        if memory.free.len() < 16 && self.data.capacity() <= 256 << 10 {
            memory.free.push(std::mem::take(&mut self.data));
        }
        drop(memory);
        self.state.room.notify_all();
    }
}

#[derive(Default)]
struct Memory {
    in_flight: usize,
    /// Buffers given back, kept for the next files (their pages are
    /// mapped already).
    free: Vec<Vec<u8>>,
}

#[derive(Default)]
struct FlushState {
    failed: std::sync::Mutex<Option<(PathBuf, io::Error)>>,
    /// Set when the caller gave up: what is still queued is dropped unflushed.
    abandoned: std::sync::atomic::AtomicBool,
    memory: std::sync::Mutex<Memory>,
    room: std::sync::Condvar,
    files: std::sync::Mutex<Files>,
    /// Signalled as files are flushed (or fail).
    progress: std::sync::Condvar,
}

/// The files of one flusher on their way.
#[derive(Default)]
struct Files {
    /// Handed over and not yet flushed or failed.
    outstanding: usize,
    /// In the flushing threads' queue, not started yet.
    queued: usize,
}

impl FlushState {
    fn fail(&self, failed: (PathBuf, io::Error)) {
        self.failed
            .lock()
            .expect("flush error lock")
            .get_or_insert(failed);
    }

    fn abandoned(&self) -> bool {
        self.abandoned.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn files(&self) -> std::sync::MutexGuard<'_, Files> {
        self.files.lock().expect("flush files lock")
    }

    /// One file handed over is flushed, or failed.
    fn settled(&self) {
        self.files().outstanding -= 1;
        self.progress.notify_all();
    }
}

/// One file of a flusher on its way, settled when dropped: whatever ends
/// the task that holds it, a panic included (then recorded as that file's
/// failure), the flusher's `finish` does not wait for it forever.
struct Pending {
    state: std::sync::Arc<FlushState>,
    path: PathBuf,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let panicked = io::Error::other("the thread flushing it panicked");
            self.state.fail((self.path.clone(), panicked));
        }
        self.state.settled();
    }
}

/// How many files the process flushes at once (its flushing threads):
/// enough for the disk to have several requests in flight. Each `fsync`
/// mostly waits (for the data, the inode, the parent directory, the disk's
/// cache), so threads beyond the cores pay. 8 measured best when these
/// threads also read each file back to hash it; with the files handed over
/// as bytes they only wait, and 16 took the 2,000-file install to 309 ms
/// of CPU against 327 with 8 (median of 20 interleaved runs). With the
/// disk's flushes slower (3.9 ms for a lone one), 32 took it from 355-391
/// ms to 312-364 ms in three interleaved runs, and 64 gained nothing more
/// (docs/benchmarks.md).
const BACKGROUND_FLUSHES: usize = 32;
/// How many more files of one flusher may wait for a flushing thread (each
/// holds an open descriptor): past it the writer waits, so that a slow
/// disk holds up the writer rather than piling up descriptors.
const FLUSH_QUEUE: usize = 64;
/// Files waiting in the queues of all of a process's flushers together: a
/// command unpacking many packages at once must not run out of descriptors
/// (1,024 by default on many systems). Past it a file is flushed on the
/// thread that hands it over instead.
const MAX_QUEUED: usize = 256;
static QUEUED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Threads that create and write the files handed over as bytes: at most
/// one per core, as they compute rather than wait.
const MAX_WRITERS: usize = 4;

/// Background threads of the process, started as work arrives (one for
/// each task queued beyond those waiting for work), up to `max`, and kept
/// for the process's life: starting and ending a thread costs tens of
/// microseconds, which twenty small packages of four files each, flushed
/// by threads of their own, paid more than a hundred times.
struct Pool {
    max: usize,
    tasks: std::sync::Mutex<PoolTasks>,
    work: std::sync::Condvar,
}

type Task = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct PoolTasks {
    queue: std::collections::VecDeque<Task>,
    threads: usize,
    /// Threads waiting for a task.
    idle: usize,
}

impl Pool {
    fn new(max: usize) -> Pool {
        Pool {
            max,
            tasks: Default::default(),
            work: Default::default(),
        }
    }

    /// Runs `task` on one of the pool's threads, starting one if every
    /// thread is busy and there are fewer than `max`; right here when
    /// there is no thread and none can be started.
    fn run(&'static self, task: Task) {
        let mut tasks = self.tasks.lock().expect("pool lock");
        tasks.queue.push_back(task);
        if tasks.queue.len() > tasks.idle && tasks.threads < self.max {
            match std::thread::Builder::new().spawn(move || self.serve()) {
                Ok(_) => tasks.threads += 1,
                Err(_) if tasks.threads == 0 => {
                    let task = tasks.queue.pop_back().expect("queued above");
                    drop(tasks);
                    return task();
                }
                // Another thread of the pool takes it.
                Err(_) => {}
            }
        }
        drop(tasks);
        self.work.notify_one();
    }

    fn serve(&self) {
        let mut tasks = self.tasks.lock().expect("pool lock");
        loop {
            if let Some(task) = tasks.queue.pop_front() {
                drop(tasks);
                // A task that panics (its file recorded as failed) does
                // not take the thread with it.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
                tasks = self.tasks.lock().expect("pool lock");
                continue;
            }
            tasks.idle += 1;
            tasks = self.work.wait(tasks).expect("pool lock");
            tasks.idle -= 1;
        }
    }
}

/// The process's flushing threads.
fn flushing() -> &'static Pool {
    static POOL: std::sync::OnceLock<Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| Pool::new(BACKGROUND_FLUSHES))
}

/// The process's writing threads.
fn writing() -> &'static Pool {
    static POOL: std::sync::OnceLock<Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| Pool::new(cores().min(MAX_WRITERS)))
}

/// A file `queue` could not flush on the caller's thread: why, and the
/// file, still to settle.
type FailedHere = ((PathBuf, io::Error), Pending);

/// Queues `job`, the file `pending` of a flusher, for the flushing
/// threads; waits only while that flusher has `FLUSH_QUEUE` files queued
/// already, and flushes it right here when the process has `MAX_QUEUED`
/// files queued or no thread can be started. A failure in the
/// background is recorded before the file is settled; one here is
/// returned with the file, for the caller to settle once it has dealt
/// with the failure.
fn queue(pending: Pending, job: Job) -> Result<(), Box<FailedHere>> {
    use std::sync::atomic::Ordering;
    if QUEUED.fetch_add(1, Ordering::Relaxed) >= MAX_QUEUED {
        QUEUED.fetch_sub(1, Ordering::Relaxed);
        return job.run().map_err(|failed| Box::new((failed, pending)));
    }
    let state = pending.state.clone();
    let mut files = state.files();
    while files.queued >= FLUSH_QUEUE {
        files = state.progress.wait(files).expect("flush files lock");
    }
    files.queued += 1;
    drop(files);
    flushing().run(Box::new(move || {
        let state = &pending.state;
        state.files().queued -= 1;
        state.progress.notify_all();
        QUEUED.fetch_sub(1, Ordering::Relaxed);
        if !state.abandoned() {
            if let Err(failed) = job.run() {
                state.fail(failed);
            }
        }
        drop(pending);
    }));
    Ok(())
}

impl Flusher {
    pub fn new() -> Flusher {
        Flusher {
            state: std::sync::Arc::new(FlushState::default()),
            links: None,
        }
    }

    /// Each file handed over is also hard-linked into the second tree of
    /// `links`, by the thread that flushed it, once flushed.
    pub fn with_links(mut self, links: Option<std::sync::Arc<Links>>) -> Flusher {
        self.links = links;
        self
    }

    /// Fails when an earlier file failed; else counts one more file
    /// handed over, `path`.
    fn hand_over(&self, path: &Path) -> Result<Pending, (PathBuf, io::Error)> {
        if let Some(failed) = self.take_failure() {
            return Err(failed);
        }
        self.state.files().outstanding += 1;
        Ok(Pending {
            state: self.state.clone(),
            path: path.to_path_buf(),
        })
    }

    /// Queues `file` (written in full, found at `path`) to be flushed;
    /// waits only while the queue is full, and flushes it right here when
    /// the process has `MAX_QUEUED` files waiting already. Fails early when
    /// an earlier flush failed.
    pub fn flush(&self, file: fs::File, path: PathBuf) -> Result<(), (PathBuf, io::Error)> {
        self.queue_flush(file, path, None)
    }

    /// Hands `file` over to be flushed (and hashed into `hash`, if given).
    fn queue_flush(
        &self,
        file: fs::File,
        path: PathBuf,
        hash: Option<HashSlot>,
    ) -> Result<(), (PathBuf, io::Error)> {
        let pending = self.hand_over(&path)?;
        let job = Job {
            file,
            path,
            hash,
            links: self.links.clone(),
        };
        queue(pending, job).map_err(|failed| failed.0)
    }

    /// [`Flusher::flush`], hashing the file first on the same thread: the
    /// digest is in the returned slot once [`Flusher::finish`] succeeded.
    /// The writer then need not hash what it writes: the flush threads
    /// mostly wait for the disk, and read the file back from the page
    /// cache. `file` must be open for reading too.
    pub fn flush_hashed(
        &self,
        file: fs::File,
        path: PathBuf,
    ) -> Result<HashSlot, (PathBuf, io::Error)> {
        let slot = HashSlot::default();
        self.queue_flush(file, path, Some(slot.clone()))?;
        Ok(slot)
    }

    /// A buffer of `len` bytes for a file to hand over with
    /// [`Flusher::write_hashed`], for the caller to overwrite: a reused
    /// buffer still holds an earlier file's bytes (zeros past them), as
    /// clearing it only to fill it again cost the tar thread 2% of the
    /// large install's samples. Waits while the bytes handed over and not
    /// yet written would be more than `MAX_IN_FLIGHT` with these, so
    /// memory stays bounded whatever the files' sizes.
    pub fn buffer(&self, len: usize) -> Buffer {
        let mut memory = self.state.memory.lock().expect("flush memory lock");
        while memory.in_flight > 0 && memory.in_flight + len > MAX_IN_FLIGHT {
            memory = self.state.room.wait(memory).expect("flush memory lock");
        }
        memory.in_flight += len;
        let mut data = memory.free.pop().unwrap_or_default();
        drop(memory);
        data.truncate(len);
        data.resize(len, 0);
        Buffer {
            data,
            reserved: len,
            state: self.state.clone(),
        }
    }

    /// Has the file `path` (which must not exist yet) created with `data`
    /// and `mode`, hashed and flushed on background threads: the digest of
    /// `data` is in the returned slot once [`Flusher::finish`] succeeded,
    /// and a file that could not be created, written or flushed fails it
    /// with its path. The caller's thread neither writes nor hashes it,
    /// and nothing is read back. Fails early when an earlier file failed.
    pub fn write_hashed(
        &self,
        path: PathBuf,
        data: Buffer,
        mode: u32,
    ) -> Result<HashSlot, (PathBuf, io::Error)> {
        let pending = self.hand_over(&path)?;
        let slot = HashSlot::default();
        let write = WriteJob {
            path,
            data,
            mode,
            hash: slot.clone(),
            links: self.links.clone(),
        };
        writing().run(Box::new(move || {
            let state = pending.state.clone();
            if state.abandoned() {
                return;
            }
            let written = write.run();
            match written {
                // Settled by `queue` once flushed, or failed.
                Ok(job) => {
                    if let Err(failed) = queue(pending, job) {
                        let (failed, pending) = *failed;
                        state.fail(failed);
                        drop(pending);
                    }
                }
                Err(failed) => state.fail(failed),
            }
        }));
        Ok(slot)
    }

    /// Waits until every file handed over was written and flushed; the
    /// first error.
    pub fn finish(self) -> Result<(), (PathBuf, io::Error)> {
        self.wait();
        match self.take_failure() {
            Some(failed) => Err(failed),
            None => Ok(()),
        }
    }

    fn take_failure(&self) -> Option<(PathBuf, io::Error)> {
        self.state.failed.lock().expect("flush error lock").take()
    }

    /// Waits until no file handed over is still on its way.
    fn wait(&self) {
        let mut files = self.state.files();
        while files.outstanding > 0 {
            files = self.state.progress.wait(files).expect("flush files lock");
        }
    }
}

impl Default for Flusher {
    fn default() -> Flusher {
        Flusher::new()
    }
}

impl Drop for Flusher {
    /// Dropped without `finish` (the caller failed): the files still
    /// queued are not worth a flush, and nothing is left running. (After
    /// `finish` nothing is left to abandon.)
    fn drop(&mut self) {
        self.state
            .abandoned
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.wait();
    }
}

/// The regular files and the directories of a tree (`dir` first), by the
/// entries' own types: symbolic links and other kinds are left out.
pub fn walk(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> io::Result<()> {
    dirs.push(dir.to_path_buf());
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&entry.path(), files, dirs)?;
        } else if ft.is_file() {
            files.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_visited_once_and_the_first_error_returned() {
        let items: Vec<usize> = (0..200).collect();
        let seen = std::sync::Mutex::new(Vec::new());
        for_each_parallel(&items, |i| {
            seen.lock().unwrap().push(*i);
            Ok(())
        })
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, items);

        let err = for_each_parallel(&items, |i| {
            if *i == 37 {
                Err(io::Error::other("disk on fire"))
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
        let missing = tempfile::tempdir().unwrap().path().join("gone");
        assert!(sync_files(&[missing]).is_err());
    }

    #[test]
    fn a_hashed_flush_gives_the_file_s_digest_or_names_the_file_it_could_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let flusher = Flusher::new();
        let mut slots = Vec::new();
        for i in 0..20 {
            let path = dir.path().join(format!("f{i}"));
            let body = vec![i as u8; 100_000 + i];
            let mut file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
                .unwrap();
            file.write_all(&body).unwrap();
            // Where the writer left the file's position does not matter.
            slots.push((flusher.flush_hashed(file, path).unwrap(), body));
        }
        flusher.finish().unwrap();
        for (slot, body) in slots {
            assert_eq!(slot.get(), Some(&blake3::hash(&body)));
        }

        // A file that cannot be read back fails the flush, by its path.
        let path = dir.path().join("write-only");
        let file = fs::File::create(&path).unwrap();
        let flusher = Flusher::new();
        let slot = flusher.flush_hashed(file, path.clone()).unwrap();
        let (failed, _) = flusher.finish().unwrap_err();
        assert_eq!(failed, path);
        assert!(slot.get().is_none());
    }

    #[test]
    fn files_handed_over_as_bytes_are_created_with_their_mode_and_digest() {
        let dir = tempfile::tempdir().unwrap();
        let flusher = Flusher::new();
        let mut slots = Vec::new();
        // More bytes than MAX_IN_FLIGHT in all: buffers wait for room.
        for i in 0..40 {
            let path = dir.path().join(format!("f{i}"));
            let body = vec![i as u8; 200_000 + i];
            let mut data = flusher.buffer(body.len());
            data.copy_from_slice(&body);
            let mode = if i % 2 == 0 { 0o755 } else { 0o644 };
            let slot = flusher.write_hashed(path.clone(), data, mode).unwrap();
            slots.push((slot, path, body, mode));
        }
        flusher.finish().unwrap();
        for (slot, path, body, mode) in slots {
            assert_eq!(slot.get(), Some(&blake3::hash(&body)));
            assert_eq!(fs::read(&path).unwrap(), body);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let got = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
                assert_eq!(got, mode);
            }
        }

        // A file that exists already is not written through: the flusher
        // fails, naming it.
        let path = dir.path().join("f3");
        let flusher = Flusher::new();
        let mut data = flusher.buffer(1);
        data[0] = b'x';
        flusher.write_hashed(path.clone(), data, 0o644).unwrap();
        let (failed, e) = flusher.finish().unwrap_err();
        assert_eq!(failed, path);
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&path).unwrap(), vec![3u8; 200_003]);
    }

    #[cfg(unix)]
    #[test]
    fn past_the_process_wide_cap_a_file_is_flushed_at_once() {
        use std::sync::atomic::Ordering;
        let flusher = Flusher::new();
        // As if other unpacks held MAX_QUEUED descriptors in their queues.
        QUEUED.fetch_add(MAX_QUEUED, Ordering::Relaxed);
        let (reader, _writer) = io::pipe().unwrap();
        let pipe = fs::File::from(std::os::fd::OwnedFd::from(reader));
        let now = flusher.flush(pipe, PathBuf::from("the pipe"));
        QUEUED.fetch_sub(MAX_QUEUED, Ordering::Relaxed);
        let (path, _) = now.unwrap_err();
        assert_eq!(
            path,
            PathBuf::from("the pipe"),
            "flushed (and failed) at once"
        );
        flusher.finish().unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn flushers_sharing_the_process_s_threads_each_wait_for_and_report_only_their_own_files() {
        let tmp = tempfile::tempdir().unwrap();
        let (good, bad) = (Flusher::new(), Flusher::new());
        let (reader, _writer) = io::pipe().unwrap();
        let pipe = fs::File::from(std::os::fd::OwnedFd::from(reader));
        bad.flush(pipe, PathBuf::from("the pipe")).unwrap();
        let mut slots = Vec::new();
        for i in 0..(BACKGROUND_FLUSHES + FLUSH_QUEUE) * 2 {
            let path = tmp.path().join(format!("f{i}"));
            let mut data = good.buffer(1);
            data[0] = i as u8;
            slots.push(good.write_hashed(path, data, 0o644).unwrap());
        }
        good.finish().unwrap();
        for (i, slot) in slots.iter().enumerate() {
            assert_eq!(slot.get(), Some(&blake3::hash(&[i as u8])), "f{i}");
        }
        let (path, _) = bad.finish().unwrap_err();
        assert_eq!(path, PathBuf::from("the pipe"));
        let tasks = flushing().tasks.lock().unwrap();
        assert!(tasks.threads <= BACKGROUND_FLUSHES);
    }

    #[test]
    fn a_file_whose_task_panicked_fails_its_flusher_and_the_pool_goes_on() {
        let flusher = Flusher::new();
        let pending = flusher.hand_over(Path::new("the file")).unwrap();
        flushing().run(Box::new(move || {
            let _held = pending;
            panic!("a task of this test panics on purpose");
        }));
        let (path, e) = flusher.finish().unwrap_err();
        assert_eq!(path, PathBuf::from("the file"));
        assert!(e.to_string().contains("panicked"), "{e}");
        // The thread that ran it still serves the pool.
        let tmp = tempfile::tempdir().unwrap();
        let flusher = Flusher::new();
        for i in 0..BACKGROUND_FLUSHES * 2 {
            let path = tmp.path().join(format!("f{i}"));
            fs::write(&path, b"x").unwrap();
            flusher.flush(fs::File::open(&path).unwrap(), path).unwrap();
        }
        flusher.finish().unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_background_flush_that_fails_is_reported_with_its_path() {
        let tmp = tempfile::tempdir().unwrap();
        let flusher = Flusher::new();
        for i in 0..100 {
            let path = tmp.path().join(format!("f{i}"));
            fs::write(&path, b"x").unwrap();
            flusher.flush(fs::File::open(&path).unwrap(), path).unwrap();
        }
        Flusher::new().finish().unwrap();
        // A pipe cannot be flushed (EINVAL), as a file on a failing disk
        // cannot: the install must fail, not carry on.
        let (reader, _writer) = io::pipe().unwrap();
        let pipe = fs::File::from(std::os::fd::OwnedFd::from(reader));
        flusher.flush(pipe, PathBuf::from("the pipe")).unwrap();
        let (path, _) = flusher.finish().unwrap_err();
        assert_eq!(path, PathBuf::from("the pipe"));
    }
}
