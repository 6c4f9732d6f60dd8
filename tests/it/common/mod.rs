//! The test harness: a temporary ORLA_HOME, cache and work directory, the
//! real binary, directory indexes built with orla's own packer, and a real
//! HTTP server on 127.0.0.1.
#![allow(dead_code)]

pub mod archive;
pub mod git;
pub mod http_serve;
pub mod index;
#[cfg(unix)]
pub mod pty;
pub mod server;
pub mod tool_kinds;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use orla::index::{shard_path, IndexConfig, RegistryEntry, RegistryYaml, VersionRecord};
use orla::verify::Digest;

pub struct TestContext {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub cache: PathBuf,
    pub work: PathBuf,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    #[track_caller]
    pub fn success(&self) -> &Run {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn failure(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "panic: {}", self.stderr);
        assert!(
            !self.stderr.contains("RUST_BACKTRACE"),
            "backtrace: {}",
            self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stderr_has(&self, needle: &str) -> &Run {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}:\n{}",
            self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, needle: &str) -> &Run {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}:\n{}",
            self.stdout
        );
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

impl Default for TestContext {
    fn default() -> Self {
        Self::new()
    }
}

impl TestContext {
    pub fn new() -> TestContext {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("orla-home");
        let cache = dir.path().join("cache");
        let work = dir.path().join("cwd");
        std::fs::create_dir_all(&work).unwrap();
        TestContext {
            dir,
            home,
            cache,
            work,
        }
    }

    /// The binary with the test's environment and stdin closed, so nothing can prompt.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.terminal_command(args);
        cmd.stdin(Stdio::null());
        cmd
    }

    /// The binary with the test's environment and stdio left alone, for a
    /// pseudo-terminal to become its stdin, stdout and stderr.
    pub fn terminal_command(&self, args: &[&str]) -> Command {
        self.program_command(Path::new(env!("CARGO_BIN_EXE_orla")), args)
    }

    /// Another program (an MCP client that starts orla) with the test's
    /// environment, so that the orla it starts uses the test's roots.
    pub fn program_command(&self, program: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("ORLA_") {
                cmd.env_remove(key);
            }
        }
        cmd.args(args)
            .current_dir(&self.work)
            .env("HOME", self.dir.path().join("user"))
            .env("XDG_CACHE_HOME", self.dir.path().join("xdg-cache"))
            // MCP clients' configuration (`orla client`) lives here on Linux.
            .env("XDG_CONFIG_HOME", self.dir.path().join("user/.config"))
            .env("ORLA_HOME", &self.home)
            .env("ORLA_CACHE_DIR", &self.cache)
            // Tests never use the network: the Orla project's public
            // registry, the fallback for tools builtin lacks, is dropped
            // (a test that needs it names a 127.0.0.1 location instead).
            .env("ORLA_PUBLIC_REGISTRY", "off")
            .env("NO_COLOR", "1");
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.work, args)
    }

    pub fn run_in(&self, dir: &Path, args: &[&str]) -> Run {
        let out = self.command(args).current_dir(dir).output().unwrap();
        to_run(out)
    }

    pub fn tools_dir(&self) -> PathBuf {
        self.home.join("tools")
    }

    pub fn manifest(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.home.join("manifest.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    pub fn list(&self) -> Vec<(String, String)> {
        let run = self.run(&["list", "--json"]);
        run.success();
        name_versions(&run.json())
    }
}

/// (name, version) of every entry of a JSON array such as `list --json` or
/// the manifest's `installed`.
pub fn name_versions<C: FromIterator<(String, String)>>(entries: &serde_json::Value) -> C {
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["version"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Starts `cmd` with its output piped and `input` on its stdin, which is
/// then closed.
pub fn spawn_with_stdin(cmd: &mut Command, input: &[u8]) -> std::process::Child {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child
}

/// Runs `cmd` with `input` on its stdin and collects what it printed.
pub fn output_with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    spawn_with_stdin(cmd, input).wait_with_output().unwrap()
}

pub fn to_run(out: Output) -> Run {
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A child process whose stderr is read as it is written, so that a test
/// can wait for a line (another orla reaching a lock) instead of sleeping.
pub struct Watched {
    child: std::process::Child,
    stderr: std::sync::Arc<(std::sync::Mutex<String>, std::sync::Condvar)>,
    reader: std::thread::JoinHandle<()>,
}

impl Watched {
    /// Spawns `cmd` with stdout and stderr piped.
    pub fn spawn(cmd: &mut Command) -> Watched {
        Watched::of(
            cmd.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        )
    }

    /// Watches a child spawned with its stderr piped.
    pub fn of(mut child: std::process::Child) -> Watched {
        use std::io::Read;
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let stderr = std::sync::Arc::new((
            std::sync::Mutex::new(String::new()),
            std::sync::Condvar::new(),
        ));
        let shared = stderr.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                let (text, seen) = &*shared;
                if n > 0 {
                    text.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
                seen.notify_all();
                if n == 0 {
                    break;
                }
            }
        });
        Watched {
            child,
            stderr,
            reader,
        }
    }

    /// Waits until the child has written `needle` on stderr (at most a
    /// minute, then fails the test with what it wrote).
    #[track_caller]
    pub fn wait_for(&self, needle: &str) {
        let (text, seen) = &*self.stderr;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut written = text.lock().unwrap();
        while !written.contains(needle) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            assert!(!left.is_zero(), "stderr lacks {needle:?}:\n{written}");
            written = seen.wait_timeout(written, left).unwrap().0;
        }
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the child to exit: what it printed and its exit code.
    pub fn finish(self) -> Run {
        let out = self.child.wait_with_output().unwrap();
        self.reader.join().unwrap();
        let stderr = std::mem::take(&mut *self.stderr.0.lock().unwrap());
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr,
        }
    }
}

/// A test that cannot run here (a program or a device this machine lacks)
/// calls this and returns. It prints `skipped: <reason>`; under
/// `ORLA_TEST_STRICT=1`, which `.ci/run` sets after installing everything
/// such tests need, it fails with the reason instead, so CI never passes a
/// test that did not run.
#[track_caller]
pub fn skip_unless_strict(reason: &str) {
    if std::env::var_os("ORLA_TEST_STRICT").is_some_and(|v| v == "1") {
        panic!("cannot run: {reason} (ORLA_TEST_STRICT=1 turns this skip into a failure)");
    }
    eprintln!("skipped: {reason}");
}

/// Whether this kernel has Landlock, which confined tools need (`orla
/// serve`'s calls and `orla run`); when not, the test is skipped (a
/// failure under ORLA_TEST_STRICT=1).
pub fn landlock() -> bool {
    // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    let abi = unsafe { libc::syscall(444, std::ptr::null::<u8>(), 0usize, 1u32) };
    if abi < 1 {
        skip_unless_strict("this kernel has no Landlock");
        return false;
    }
    true
}

/// Every file below `dir` with its BLAKE3, to prove "nothing changed".
pub fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let e = e.unwrap();
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(format!("{rel}/"), String::new());
                walk(root, &path, out);
            } else {
                out.insert(rel, Digest::of(&std::fs::read(&path).unwrap()).to_hex());
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// A tool package directory written by a test.
pub struct PackageBuilder {
    pub name: String,
    pub version: String,
    pub permissions: Vec<String>,
    pub extra_yaml: String,
    pub files: Vec<(String, String, bool)>,
    /// No `permissions` key at all: the tool runs unconfined.
    pub undeclared: bool,
}

impl PackageBuilder {
    pub fn new(name: &str, version: &str) -> PackageBuilder {
        PackageBuilder {
            name: name.into(),
            version: version.into(),
            permissions: vec![],
            extra_yaml: String::new(),
            files: vec![],
            undeclared: false,
        }
    }

    /// Leaves `permissions` out: undeclared, high risk, run unconfined.
    pub fn undeclared(mut self) -> Self {
        self.undeclared = true;
        self
    }

    pub fn permissions(mut self, perms: &[&str]) -> Self {
        self.permissions = perms.iter().map(|s| s.to_string()).collect();
        self
    }

    pub fn yaml(mut self, extra: &str) -> Self {
        self.extra_yaml.push_str(extra);
        self
    }

    pub fn file(mut self, path: &str, content: &str, executable: bool) -> Self {
        self.files.push((path.into(), content.into(), executable));
        self
    }

    pub fn tool_yaml(&self) -> String {
        let mut y = format!(
            "name: {}\nversion: {}\ndescription: Test tool {}\nentrypoint: bin/{}\n",
            self.name, self.version, self.name, self.name
        );
        // Declared even when empty: a tool.yaml without the key has
        // undeclared permissions, which count as high risk.
        if self.undeclared {
            // No key at all.
        } else if self.permissions.is_empty() {
            y.push_str("permissions: []\n");
        } else {
            y.push_str("permissions:\n");
            for p in &self.permissions {
                y.push_str(&format!("  - {p}\n"));
            }
        }
        y.push_str(&self.extra_yaml);
        y
    }

    pub fn write(&self, dir: &Path) -> PathBuf {
        let root = dir.join(format!("{}-{}-src", self.name, self.version));
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("tool.yaml"), self.tool_yaml()).unwrap();
        std::fs::write(root.join("README.md"), format!("# {}\n", self.name)).unwrap();
        write_file(
            &root.join("bin").join(&self.name),
            &format!(
                "#!/bin/sh\necho '{{\"tool\":\"{}\",\"version\":\"{}\"}}'\n",
                self.name, self.version
            ),
            true,
        );
        for (path, content, exec) in &self.files {
            write_file(&root.join(path), content, *exec);
        }
        root
    }
}

/// Copies the directory `from` to `to`, files and subdirectories.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

pub fn write_file(path: &Path, content: &str, executable: bool) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A directory registry index, built the way `orla tool publish` lays it out.
pub struct IndexBuilder {
    pub root: PathBuf,
    pub config: IndexConfig,
    listing: RegistryYaml,
}

impl IndexBuilder {
    pub fn new(root: &Path) -> IndexBuilder {
        std::fs::create_dir_all(root).unwrap();
        let b = IndexBuilder {
            root: root.to_path_buf(),
            config: IndexConfig::default(),
            listing: RegistryYaml::default(),
        };
        b.write_meta();
        b
    }

    pub fn write_meta(&self) {
        std::fs::write(self.root.join("config.json"), self.config.to_json()).unwrap();
        std::fs::write(self.root.join("registry.yaml"), self.listing.to_yaml()).unwrap();
    }

    /// Packs `pkg` into the index and returns its record.
    pub fn publish(&mut self, pkg: &PackageBuilder) -> VersionRecord {
        let src = pkg.write(&self.root.join("..").join("sources"));
        let (_, bytes) = orla::package::pack::pack_to_vec(&src).unwrap();
        let rel = self.config.archive_for(&pkg.name, &pkg.version);
        self.publish_bytes(pkg, &bytes, &rel)
    }

    /// Publishes arbitrary archive bytes under `pkg`'s name and version, with
    /// a record that matches them (a hostile but honest-looking index).
    pub fn publish_bytes(
        &mut self,
        pkg: &PackageBuilder,
        bytes: &[u8],
        archive_rel: &str,
    ) -> VersionRecord {
        let dest = self.root.join(archive_rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(&dest, bytes).unwrap();
        let record = VersionRecord {
            name: pkg.name.clone(),
            version: pkg.version.parse().unwrap(),
            blake3: Digest::of(bytes),
            size: bytes.len() as u64,
            archive: None,
            sha256: None,
            yanked: false,
            description: format!("Test tool {}", pkg.name),
            keywords: vec![],
            permissions: pkg.permissions.clone(),
        };
        self.add_record(&record);
        record
    }

    pub fn add_record(&mut self, record: &VersionRecord) {
        let path = self.root.join(shard_path(&record.name));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str(&record.to_line());
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        if !self.listing.tools.iter().any(|t| t.name == record.name) {
            self.listing.tools.push(RegistryEntry {
                name: record.name.clone(),
                description: record.description.clone(),
                ..Default::default()
            });
        }
        self.write_meta();
    }

    /// Rewrites every record of `name` through `edit`.
    pub fn edit_records(&self, name: &str, edit: impl Fn(&mut VersionRecord)) {
        let path = self.root.join(shard_path(name));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        for line in text.lines() {
            let mut record: VersionRecord = serde_json::from_str(line).unwrap();
            edit(&mut record);
            out.push_str(&record.to_line());
            out.push('\n');
        }
        std::fs::write(&path, out).unwrap();
    }

    pub fn location(&self) -> String {
        self.root.display().to_string()
    }
}
