//! The facts a command reports while it works, as values: which version was
//! chosen, what was downloaded, installed, skipped and why. Stages build
//! events; they never write the English. Two renderers read them: the
//! terminal printer (`super::human`, where every sentence lives) and the
//! JSON lines stream (`super::json`, one object per event). The JSON
//! form is a public format, documented in docs/events.md: variants and
//! fields may be added, never renamed or removed without raising
//! [`SCHEMA_VERSION`].

use semver::Version;
use serde::Serialize;

/// The `"v"` of every JSON event line.
pub const SCHEMA_VERSION: u32 = 1;

/// One thing that happened. Serialised as `{"event": "<snake_case name>",
/// ...fields}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A version was chosen for a tool in a registry.
    Resolved {
        name: String,
        version: Version,
        registry: String,
    },
    /// A tool's permissions, shown before it is installed (`None`: its
    /// tool.yaml declares none, which is high risk).
    Permissions {
        tool: String,
        permissions: Option<Vec<String>>,
        risk: String,
    },
    /// An archive starts streaming (HTTP, a file, the built-in registry,
    /// a packed local directory) or a git registry starts its fetch.
    DownloadStarted {
        id: usize,
        label: String,
        size: Option<u64>,
    },
    /// The stream of `id` ended, after `bytes` bytes.
    DownloadFinished {
        id: usize,
        label: String,
        bytes: u64,
    },
    /// An archive's bytes matched the digest (and size) expected of them.
    Verified {
        label: String,
        blake3: String,
        size: Option<u64>,
    },
    /// A tag of a git-source tool is checked out.
    CheckingOut { repository: String, tag: String },
    /// A git registry's clone is older than the registry TTL (or
    /// `--refresh`): it is fetched. `registry` is its name, `url` where it
    /// is fetched from (the same when it has no name of its own).
    UpdatingRegistry { registry: String, url: String },
    /// The tags of a git-source tool's repository are fetched.
    FetchingTags { repository: String },
    /// A tool is left as it is.
    Skipped {
        name: String,
        version: Option<Version>,
        #[serde(flatten)]
        reason: SkipReason,
    },
    /// A package is in place. `served_version` is the version of `name`
    /// the root's manifest serves now (`active` when it is this one);
    /// `served_because` says why another one is served; `others_installed`
    /// when another version of `name` is installed beside it.
    Installed {
        name: String,
        version: Version,
        path: String,
        reinstalled: bool,
        active: bool,
        served_version: Option<Version>,
        served_because: Option<ServedBecause>,
        others_installed: bool,
    },
    /// `orla update` moved a tool to a newer version (the old one is removed).
    Updated {
        name: String,
        from: Version,
        to: Version,
    },
    /// `orla update`: nothing newer; `requirement` is orla.yaml's, when it
    /// is what holds the tool back.
    UpToDate {
        name: String,
        version: Version,
        requirement: Option<String>,
    },
    /// `orla update` with nothing installed.
    NothingToUpdate,
    /// A package was removed.
    Removed { name: String, version: Version },
    /// A project stopped requiring a tool (orla.yaml and orla.lock).
    Forgotten { name: String },
    /// orla.lock pins a tool at a version.
    Locked {
        name: String,
        version: Version,
        requirement: String,
    },
    /// `orla update` in a project rewrote orla.lock.
    Relocked { path: String },
    /// orla.lock dropped a pin orla.yaml no longer asks for.
    Unlocked { name: String },
    /// `orla use NAME` took out the pin that served `was`.
    Unpinned { name: String, was: Version },
    /// `orla use`: the root serves this version of the tool now.
    Using {
        name: String,
        version: Version,
        path: String,
    },
    /// `orla use` in a project changed the tool's requirement in orla.yaml.
    RequirementChanged {
        name: String,
        requirement: String,
        was: String,
    },
    /// A project's install changed nothing: `tools` tools, as pinned.
    ProjectUpToDate { tools: usize },
    /// Another orla holds a lock this command needs; it waits.
    LockWait { what: String, path: String },
    /// A network operation has had no answer for a few seconds: `what` it
    /// waits for (a registry and its URL, or a URL), and after how many
    /// seconds of silence it gives up.
    NetworkWait { what: String, timeout_secs: u64 },
    /// `orla init` wrote the orla.yaml at `path`.
    ProjectCreated { path: String },
    /// `orla init` made git ignore the installed packages and `.orla/`:
    /// `added` are the lines written to the `.gitignore` at `path`.
    GitignoreUpdated {
        path: String,
        created: bool,
        added: Vec<String>,
    },
    /// `orla tool scaffold` wrote a package into `path`.
    Scaffolded {
        name: String,
        version: String,
        language: String,
        mode: String,
        path: String,
    },
    /// `orla tool validate`: tool.yaml has no errors (`warnings` warnings).
    Valid {
        name: String,
        version: String,
        warnings: usize,
    },
    /// `orla tool pack` wrote the archive of `files` files to `path`.
    Packed {
        name: String,
        version: String,
        files: usize,
        path: String,
    },
    /// `orla tool publish` added a version to the index at `location`;
    /// `commit` when it committed it to the index's git repository, else
    /// `uncommitted_in`: the git work tree the index directory lies in,
    /// where the published files wait to be committed.
    Published {
        name: String,
        version: String,
        location: String,
        blake3: String,
        size: u64,
        archive: String,
        commit: Option<String>,
        uncommitted_in: Option<String>,
    },
    /// `orla tool publish`: the index has these very bytes already.
    AlreadyPublished {
        name: String,
        version: String,
        location: String,
    },
    /// `orla tool yank` marked a version yanked (or, with `--undo`, not).
    Yanked {
        name: String,
        version: String,
        location: String,
        yanked: bool,
        commit: Option<String>,
    },
    /// `orla tool yank`: the version was already marked so.
    AlreadyYanked {
        name: String,
        version: String,
        yanked: bool,
    },
    /// `orla verify`: every one of `packages` matches its receipt.
    ReceiptsMatch { packages: usize },
    /// `orla search` found nothing.
    NoMatch { query: String },
    /// `orla run` starts a tool without installing it; `cached` when its
    /// copy was in the cache already (a person is told only the first time).
    Running {
        name: String,
        version: Version,
        cached: bool,
    },
    /// `orla run`: a `json` tool's arguments are read from the terminal
    /// (one JSON object, ended by Ctrl-D) before it runs.
    ReadingArguments { name: String },
    /// `orla cache clear` or `prune`: the cache directory does not exist.
    CacheEmpty { path: String },
    /// `orla list`: nothing is installed in the root whose tools_dir is
    /// `path`.
    NothingInstalled { path: String },
    /// `orla cache clear` removed `bytes` bytes.
    CacheCleared { path: String, bytes: u64 },
    /// `orla cache prune` removed `entries` entries of `bytes` bytes, and
    /// `left` bytes remain.
    CachePruned {
        path: String,
        entries: usize,
        bytes: u64,
        left: u64,
    },
    /// `orla client add` or `remove`: what became of the entry `name` in
    /// the configuration file `path` of `client`.
    ClientEntry {
        client: String,
        name: String,
        path: String,
        change: ClientChange,
    },
    /// Something went wrong that did not stop the command.
    Warning(Warning),
    /// A status line of a command whose events are not typed yet.
    Status { verb: String, message: String },
    /// The command failed (JSON only: always the last line).
    Error {
        message: String,
        hint: Option<String>,
        exit_code: i32,
    },
}

/// Why a tool is skipped.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SkipReason {
    /// This version is installed (`--force` reinstalls it).
    AlreadyInstalled,
    /// Another orla installed it while this one waited for the lock.
    InstalledMeanwhile,
    /// A local package whose exact content is installed.
    SameContent,
    /// Its directory exists, but its receipt is not bound to this root.
    NotInstalledByOrla { path: String },
    /// Its directory exists, but its receipt cannot be read.
    DamagedReceipt { path: String },
    /// `orla update`: `orla use` pins another version.
    PinnedByUse { pinned: Version },
    /// `orla update`: installed with `--local`.
    LocalSource,
    /// `orla update`: the installed version is newer than `newest`, the
    /// newest the registry (or `requirement` of orla.yaml) allows.
    NewerThanAllowed {
        newest: Version,
        requirement: Option<String>,
    },
}

/// What `orla client add` or `remove` did to a client's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientChange {
    Added,
    Updated,
    Removed,
    Unchanged,
}

/// Why another version than the one just installed is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServedBecause {
    /// A pre-release is served only when `orla use` chooses it.
    PreRelease,
    /// The newest installed stable version (or the `orla use` pin) wins.
    NewestStable,
}

/// A warning, with its kind and facts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// A yanked version installed because it was asked for exactly.
    Yanked { name: String, version: Version },
    /// A git-source tool whose tool.yaml names it otherwise.
    Renamed {
        name: String,
        version: Version,
        tool_yaml_name: String,
    },
    /// A warning of tool.yaml validation.
    Package {
        name: String,
        version: Version,
        problem: String,
    },
    /// An installed tool lacks its interpreter or a declared dependency.
    Requirement {
        name: String,
        version: Version,
        problem: String,
    },
    /// A package directory orla did not install in this root is replaced.
    NotInstalledByOrla { path: String, why: String },
    /// A package the manifest served was deleted outside orla: it is no
    /// longer served (`served_instead`: the version of the tool served now).
    DeletedOutsideOrla {
        name: String,
        version: String,
        path: String,
        served_instead: Option<String>,
    },
    /// An interrupted install or removal was rolled back.
    RolledBack {
        name: String,
        version: Version,
        /// `install` or `removal`.
        what: String,
    },
    /// An HTTP request failed in a way another attempt may not; it is
    /// tried again after `delay_ms`.
    Retrying {
        url: String,
        problem: String,
        delay_ms: u64,
    },
    /// With `--offline`, a registry's cached copy is used although it is
    /// older than the registry TTL: fetched `age_secs` seconds ago.
    OfflineCopy { registry: String, age_secs: u64 },
    /// A registry (or, for a sparse index, its file `path`) could not be
    /// fetched; the copy cached `age_secs` seconds ago is used.
    UnreachableRegistry {
        registry: String,
        path: Option<String>,
        problem: String,
        age_secs: u64,
    },
    /// `--allow-rollback`: a git registry whose history no longer holds
    /// `seen`, the last commit fetched, is read at `found` anyway.
    RollbackAccepted {
        registry: String,
        seen: String,
        found: String,
    },
    /// A registry that cannot be opened is left out of a command that
    /// reads every registry (`fallback`: the public registry, which is
    /// asked only for what the others lack).
    RegistrySkipped {
        registry: String,
        problem: String,
        fallback: bool,
    },
    /// The tags of a git-source tool's repository could not be fetched;
    /// those cached earlier are used.
    CachedTags { repository: String, problem: String },
    /// The tags of a git-source tool's repository could not be read.
    UnreadableTags { repository: String, problem: String },
    /// A package directory of the root is not read: orla did not install
    /// it in this root, or its receipt or tool.yaml cannot be read.
    PackageIgnored { path: String, why: String },
    /// An installed package whose entrypoint was deleted outside orla is
    /// not served.
    EntrypointDeleted {
        name: String,
        version: Version,
        entrypoint: String,
    },
    /// A loose executable of a project's tools_dir is not served: an
    /// installed package has its name.
    ExecutableShadowed { path: String, name: String },
    /// A file of a project's tools_dir looks like a tool but is not served
    /// (`problem` says why); said once per change, not by every command.
    NotServed { problem: String },
    /// `orla init` made a project inside the project of `outer` (its
    /// orla.yaml): commands run inside the new one no longer reach it.
    NestedProject { outer: String },
    /// An input of the manifest cannot be read and is left out of it:
    /// `input` is `orla.yaml`, `orla.lock`, `pins`, `tools_dir` (its loose
    /// executables) or `global_manifest` (the global tools a project serves).
    InputIgnored { input: String, problem: String },
    /// The manifest cannot be read: it is written again from the store.
    ManifestRewritten { problem: String },
    /// A project's manifest is stale but the root cannot be written (a
    /// read-only checkout): what it would hold is listed.
    ManifestNotRefreshed { problem: String },
    /// A package of the download cache does not match its record (or has
    /// none this user's orla wrote): it is downloaded again.
    DamagedCacheEntry { label: String, why: String },
    /// A package the manifest lists was deleted outside orla since the
    /// manifest was written (`gone`: its directory or its entrypoint).
    PackageMissing {
        name: String,
        version: String,
        gone: String,
    },
    /// A tool `orla run` runs lacks its interpreter or a declared
    /// dependency.
    RunRequirement {
        name: String,
        version: Version,
        problem: String,
    },
    /// A tool `orla run` runs is not confined: `reason` says why (it
    /// declares no permissions, or the kernel cannot confine it and
    /// `isolation: best-effort` is set).
    RunUnconfined {
        name: String,
        version: Version,
        reason: String,
    },
    /// A warning of tool.yaml's validation while a package is authored
    /// (scaffold, validate, pack, publish, migrate): its `field`, the
    /// `problem` and its fix; `package` names the package when a command
    /// handles several.
    ToolYaml {
        package: Option<String>,
        field: String,
        problem: String,
        hint: Option<String>,
    },
    /// A scaffolded binary tool's executable at `path` (in the package) is
    /// a placeholder script.
    PlaceholderExecutable { path: String },
    /// `orla serve` starts with no tool to serve in the root whose
    /// tools_dir is `root`.
    NothingToServe { root: String },
    /// `orla cache prune` cannot tell which registry clones are configured,
    /// so it keeps them all.
    RegistriesUnread { problem: String },
    /// A warning of a command or stage whose warnings are not typed yet.
    Other { message: String },
}

impl Event {
    /// Whether `--quiet` drops it: everything but warnings, waits (for a
    /// lock, for the network) and the final error.
    pub fn is_status(&self) -> bool {
        !matches!(
            self,
            Event::Warning(_)
                | Event::LockWait { .. }
                | Event::NetworkWait { .. }
                | Event::Error { .. }
        )
    }
}
