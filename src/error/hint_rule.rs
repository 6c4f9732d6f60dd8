//! The hint rule, checked: every variant of every stage error either has a
//! hint (a command to run, a flag, a file to fix) or is listed in `NO_FIX`
//! with the reason there is none. The variants are read from the enums'
//! source, so a new variant fails this test until someone decides which,
//! and a new stage enum (a type with a `hint` method) fails it until its
//! variants are listed here.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use crate::client::ClientError;
use crate::config::{ConfigError, SettingError};
use crate::error::export::ExportError;
use crate::error::run::RunError;
use crate::error::use_version::UseError;
use crate::error::verify::{Failed, Failure, VerifyError};
use crate::error::InstallError;
use crate::fetch::git::GitToolError;
use crate::fetch::{CacheError, FetchError};
use crate::index::publish::PublishError;
use crate::index::registries::RegistriesError;
use crate::index::IndexError;
use crate::migrate::capsule::CapsuleError;
use crate::migrate::directory::{MigrateError, Summary};
use crate::package::pack::PackError;
use crate::package::scaffold::answers::ScaffoldError;
use crate::package::validate::{Problem, Severity, ValidateError};
use crate::package::PackageError;
use crate::project::ProjectError;
use crate::resolve::{ResolveError, SpecError};
use crate::root::StoreError;

/// Each stage enum and the file that declares it.
const STAGE_ENUMS: &[(&str, &str)] = &[
    ("SpecError", "src/resolve/mod.rs"),
    ("ResolveError", "src/resolve/mod.rs"),
    ("IndexError", "src/index/mod.rs"),
    ("RegistriesError", "src/index/registries.rs"),
    ("FetchError", "src/fetch/mod.rs"),
    ("CacheError", "src/fetch/cache/manage.rs"),
    ("GitToolError", "src/fetch/git.rs"),
    ("PackageError", "src/package/mod.rs"),
    ("PackError", "src/package/pack.rs"),
    ("StoreError", "src/root/mod.rs"),
    ("ProjectError", "src/project/mod.rs"),
    ("CapsuleError", "src/migrate/capsule.rs"),
    ("PublishError", "src/index/publish/mod.rs"),
    ("ConfigError", "src/config.rs"),
    ("SettingError", "src/config.rs"),
    ("ClientError", "src/client/mod.rs"),
    ("MigrateError", "src/migrate/directory.rs"),
    ("InstallError", "src/error/install.rs"),
    ("RunError", "src/error/run.rs"),
    ("UseError", "src/error/use_version.rs"),
    ("ScaffoldError", "src/package/scaffold/answers.rs"),
    ("VerifyError", "src/error/verify.rs"),
    ("ExportError", "src/error/export.rs"),
    ("ValidateError", "src/package/validate.rs"),
];

/// Variants with no fix a person could apply, and why.
const NO_FIX: &[(&str, &str)] = &[
    (
        "RunError::Cancelled",
        "the person said no to running the tool: nothing ran, and nothing needs fixing",
    ),
    (
        "ResolveError::Empty",
        "the registry lists the tool without any version: nothing can be installed until its maintainers publish one",
    ),
    (
        "InstallError::Receipt",
        "a receipt orla has just written cannot be read back: a disk error the message names",
    ),
    (
        "ClientError::OwnPath",
        "the running orla executable cannot be found: nothing the user can change",
    ),
];

/// Variants whose hint is a value they carry, built only where the error
/// is raised (the entry to paste by hand), so no case can be made here.
const HINT_CARRIED: &[(&str, &str)] = &[
    (
        "ClientError::Unparsable",
        "the by-hand instructions it holds",
    ),
    (
        "ClientError::NotAMapping",
        "the by-hand instructions it holds",
    ),
    (
        "ClientError::ServersNotAnObject",
        "the by-hand instructions it holds",
    ),
];

struct Case {
    /// `Enum::Variant`.
    name: String,
    debug: String,
    message: String,
    hint: Option<String>,
}

/// One case per variant (more where the hint depends on the facts).
macro_rules! cases {
    ($ty:ident: $($variant:ident => $value:expr),* $(,)?) => {
        vec![$({
            let e: $ty = $value;
            Case {
                name: concat!(stringify!($ty), "::", stringify!($variant)).to_string(),
                debug: format!("{e:?}"),
                message: e.to_string(),
                hint: e.hint(),
            }
        }),*]
    };
}

fn denied() -> io::Error {
    io::Error::from(io::ErrorKind::PermissionDenied)
}

fn full() -> io::Error {
    io::Error::from_raw_os_error(28)
}

fn index_error() -> IndexError {
    IndexError::Git {
        registry: "company".into(),
        message: "connection refused".into(),
    }
}

fn all_cases() -> Vec<Case> {
    let v = |s: &str| semver::Version::parse(s).unwrap();
    let path = || PathBuf::from("/p/orla.yaml");
    let mut out = Vec::new();
    out.extend(cases!(SpecError:
        Invalid => SpecError::Invalid { spec: "a@@1".into(), reason: "bad".into() },
        VersionSeparator => SpecError::VersionSeparator { spec: "a==1".into(), suggestion: "a@1".into() },
    ));
    out.extend(cases!(ResolveError:
        NoMatch => ResolveError::NoMatch { name: "a".into(), requirement: "^9".into(), available: vec![v("1.0.0")], prerelease: None },
        AllYanked => ResolveError::AllYanked { name: "a".into() },
        Empty => ResolveError::Empty { name: "a".into() },
    ));
    out.extend(cases!(IndexError:
        UnknownTool => IndexError::UnknownTool { name: "a".into(), registry: "r".into(), suggestion: None },
        Malformed => IndexError::Malformed { registry: "r".into(), path: "a/a".into(), message: "line 1".into() },
        UnknownFormat => IndexError::UnknownFormat { registry: "r".into(), found: 9 },
        Io => IndexError::Io { registry: "r".into(), path: "a/a".into(), source: denied() },
        BadRepository => IndexError::BadRepository { registry: "r".into(), name: "a".into(), repository: "/x".into(), reason: "is a path" },
        BadLocation => IndexError::BadLocation { location: "./x".into(), reason: "does not exist".into() },
        BadArchive => IndexError::BadArchive { registry: "r".into(), name: "a".into(), version: "1.0.0".into(), archive: "../x".into(), reason: "leads outside" },
        Git => index_error(),
        NoAnswer => IndexError::NoAnswer { registry: "r".into(), message: "did not answer".into(), hint: crate::http::timeout_hint(std::time::Duration::from_secs(30)) },
        Sparse => IndexError::Sparse { registry: "r".into(), path: "config.json".into(), source: crate::index::sparse::SparseError::Offline { base: "https://r/".into() } },
        Sparse => IndexError::Sparse { registry: "r".into(), path: "a/a".into(), source: crate::http::RequestError::TooLarge { max: 1 << 20 }.into() },
        Offline => IndexError::Offline { registry: "r".into() },
        Rollback => IndexError::Rollback { registry: "r".into(), seen: "a".into(), found: "b".into() },
    ));
    out.extend(cases!(RegistriesError:
        UnknownName => RegistriesError::UnknownName { choice: "compnay".into(), near: "company".into() },
        ProjectConfig => RegistriesError::ProjectConfig { file: path(), message: "registries: bad".into() },
        Open => RegistriesError::Open(Arc::new(index_error())),
        FallbackNotFetched => RegistriesError::FallbackNotFetched { name: "a".into(), earlier: vec![], registry: "orla".into(), location: "x".into() },
        FallbackUnreachable => RegistriesError::FallbackUnreachable { name: "a".into(), earlier: vec![], registry: "orla".into(), location: "x".into(), cause: Arc::new(index_error()) },
        Unreadable => RegistriesError::Unreadable { registry: "company".into(), name: "a".into(), cause: Arc::new(index_error()) },
        Index => RegistriesError::Index(index_error()),
    ));
    out.extend(cases!(FetchError:
        File => FetchError::File { path: "/a.tar.gz".into(), source: io::Error::from(io::ErrorKind::NotFound) },
        Http => FetchError::Http(crate::http::HttpError { url: "http://x/a".into(), message: "500".into() }),
        Verify => FetchError::Verify { label: "a 1.0.0".into(), source: crate::verify::IntegrityError::SizeMismatch { what: "a".into(), expected: 1, actual: 2 } },
        Unpack => FetchError::Unpack { label: "a 1.0.0".into(), source: crate::unpack::UnpackError::Empty },
        Unpack => FetchError::Unpack { label: "a 1.0.0".into(), source: crate::unpack::UnpackError::Io { path: "x".into(), source: full() } },
        Offline => FetchError::Offline { label: "a 1.0.0".into(), url: "http://x/a".into() },
    ));
    let git = || git2::Error::from_str("object not found");
    out.extend(cases!(CacheError:
        Lock => CacheError::Lock { dir: "/c".into(), source: denied() },
        Read => CacheError::Read { dir: "/c".into(), source: denied() },
        Remove => CacheError::Remove { path: "/c/x".into(), source: denied() },
        Prune => CacheError::Prune { dir: "/c".into(), source: denied() },
    ));
    out.extend(cases!(GitToolError:
        Offline => GitToolError::Offline { url: "file:///r".into() },
        Lock => GitToolError::Lock { path: "/c/r.lock".into(), source: denied() },
        Fetch => GitToolError::Fetch { url: "file:///r".into(), source: crate::git::GitError::Git { source: git() } },
        Repository => GitToolError::Repository { dir: "/c/r".into(), source: git() },
        Tag => GitToolError::Tag { tag: "v1.0.0".into(), source: git() },
        FileTooLarge => GitToolError::FileTooLarge { tag: "v1.0.0".into(), path: "tool.yaml".into(), size: 2, max: 1 },
        TooLarge => GitToolError::TooLarge { max_bytes: 1, max_files: 1 },
        NonUtf8Name => GitToolError::NonUtf8Name { prefix: "bin/".into() },
        ForbiddenPath => GitToolError::ForbiddenPath { path: ".git".into() },
        ForbiddenEntry => GitToolError::ForbiddenEntry { path: "l".into(), kind: "symbolic link" },
        UnknownMode => GitToolError::UnknownMode { path: "x".into(), mode: 0o777 },
        Write => GitToolError::Write { path: "x".into(), source: full() },
    ));
    let package_error = || PackageError::Invalid {
        path: "/p".into(),
        dir: Some("/p".into()),
        problems: vec![Problem {
            severity: Severity::Error,
            field: "name".into(),
            message: "is required".into(),
            hint: None,
        }],
    };
    out.extend(cases!(PackageError:
        MissingToolYaml => PackageError::MissingToolYaml { path: "/p".into() },
        Io => PackageError::Io { path: "/p/tool.yaml".into(), source: denied() },
        Parse => PackageError::Parse { path: "/p/tool.yaml".into(), message: "bad".into() },
        Limit => PackageError::Limit { path: "/p/tool.yaml".into(), source: crate::package::limits::too_large() },
        Invalid => package_error(),
    ));
    out.extend(cases!(PackError:
        Package => PackError::Package(package_error()),
        Unsupported => PackError::Unsupported { path: "l".into(), kind: "symbolic link" },
        Io => PackError::Io { path: "x".into(), source: denied() },
        NonUtf8 => PackError::NonUtf8 { path: "x".into() },
        Write => PackError::Write { path: "/o/a-1.0.0.tar.gz".into(), source: denied() },
    ));
    out.extend(cases!(StoreError:
        AlreadyInstalled => StoreError::AlreadyInstalled { name: "a".into(), version: "1.0.0".into(), path: "/t/a/1.0.0".into() },
        NotInstalled => StoreError::NotInstalled { what: "a".into(), detail: String::new() },
        Io => StoreError::Io { action: "write", path: "/t".into(), source: denied() },
        Manifest => StoreError::Manifest { path: "/m.json".into(), message: "bad".into(), newer: false },
        Pins => StoreError::Pins { path: "/pins.json".into(), message: "bad".into() },
    ));
    out.extend(cases!(ProjectError:
        Io => ProjectError::Io { path: path(), source: denied() },
        Invalid => ProjectError::Invalid { path: path(), line: Some(1), message: "bad".into(), hint: None },
        UnsafeEdit => ProjectError::UnsafeEdit { path: path(), why: "bad".into(), hint: "by hand".into() },
        Write => ProjectError::Write { path: path(), source: denied() },
    ));
    out.extend(cases!(CapsuleError:
        InvalidJson => CapsuleError::InvalidJson { path: "c".into(), message: "bad".into() },
        NotAnObject => CapsuleError::NotAnObject { path: "c".into(), found: "an array" },
        Missing => CapsuleError::Missing { path: "c".into(), fields: vec!["name"] },
        BadField => CapsuleError::BadField { path: "c".into(), field: "version".into(), message: "bad".into() },
        EntrypointOutside => CapsuleError::EntrypointOutside { path: "c".into(), entrypoint: "../x".into() },
        UnknownHotLoadMode => CapsuleError::UnknownHotLoadMode { path: "c".into(), mode: "x".into() },
        Several => CapsuleError::Several { path: "c".into(), problems: vec![] },
    ));
    let at = || "/index".to_string();
    out.extend(cases!(PublishError:
        BadLocation => PublishError::BadLocation { location: at(), reason: "is empty".into() },
        NotAnIndex => PublishError::NotAnIndex { location: at() },
        Malformed => PublishError::Malformed { location: at(), path: "config.json".into(), message: "bad".into() },
        UnknownFormat => PublishError::UnknownFormat { location: at(), found: 9 },
        Republish => PublishError::Republish { location: at(), name: "a".into(), version: "1.0.0".into(), existing: "x".into(), new: "y".into() },
        StrayArchive => PublishError::StrayArchive { location: at(), path: "a.tar.gz".into() },
        ArchiveTemplate => PublishError::ArchiveTemplate { location: at(), template: "http://x".into(), reason: "is a URL" },
        NoSuchVersion => PublishError::NoSuchVersion { location: at(), name: "a".into(), version: "9.0.0".into() },
        BadSpec => PublishError::BadSpec { spec: "a".into(), reason: "no version".into() },
        Io => PublishError::Io { location: at(), action: "write", path: "a".into(), message: "denied".into() },
        Git => PublishError::Git { location: at(), message: "bad".into() },
    ));
    out.extend(cases!(ConfigError:
        Io => ConfigError::Io { path: "/h/config.yaml".into(), source: denied() },
        Invalid => ConfigError::Invalid { path: "/h/config.yaml".into(), line: Some(2), message: "unknown key 'registires'".into(), unknown: Some(("registires".into(), Some("registries"))) },
        Setting => ConfigError::Setting { path: "/h/config.yaml".into(), source: SettingError::TtlType },
    ));
    out.extend(cases!(SettingError:
        Incomplete => SettingError::Incomplete,
        ControlCharacter => SettingError::ControlCharacter { name: "a\x1b".into() },
        Duplicate => SettingError::Duplicate { name: "a".into() },
        ItemNotStrings => SettingError::ItemNotStrings,
        EntryNotStrings => SettingError::EntryNotStrings,
        NotAList => SettingError::NotAList,
        PublicRegistry => SettingError::PublicRegistry,
        TtlNotWhole => SettingError::TtlNotWhole,
        Duration => SettingError::Duration { text: "5y".into() },
        TtlType => SettingError::TtlType,
        Size => SettingError::Size { text: "lots".into() },
        EnvName => SettingError::EnvName { name: "1X".into() },
        Grant => SettingError::Grant { path: "~/x".into() },
    ));
    out.extend(cases!(ClientError:
        Unknown => ClientError::Unknown("x".into()),
        NoHome => ClientError::NoHome,
        BadUrl => ClientError::BadUrl("x".into()),
        BadVariable => ClientError::BadVariable("1".into()),
        NoHttp => ClientError::NoHttp { client: "claude-desktop" },
        NoTokenVariable => ClientError::NoTokenVariable { client: "goose" },
        OwnPath => ClientError::OwnPath(io::Error::from(io::ErrorKind::NotFound)),
        Read => ClientError::Read { path: "/c.json".into(), source: denied() },
        NoEntry => ClientError::NoEntry { path: "/c.json".into(), name: "orla".into(), others: vec![] },
        Write => ClientError::Write { what: "write", path: "/c.json".into(), source: denied() },
        ProjectLink => ClientError::ProjectLink { path: "/p/.vscode/mcp.json".into(), target: "/c.json".into() },
        BrokenLink => ClientError::BrokenLink { path: "/c.json".into(), target: "/d/c.json".into() },
        NotAFile => ClientError::NotAFile { path: "/c.json".into(), kind: "a FIFO" },
        TooLarge => ClientError::TooLarge { path: "/c.json".into(), limit: 1 },
        Lock => ClientError::Lock { path: "/h/.client.lock".into(), source: denied() },
        Taken => ClientError::Taken { path: "/c.json".into(), name: "orla-app".into(), serves: "another server".into() },
        NotOrla => ClientError::NotOrla { path: "/c.json".into(), name: "github".into() },
    ));
    let label = || "a 1.0.0".to_string();
    let name = || "a".to_string();
    out.extend(cases!(InstallError:
        Checkout => InstallError::Checkout { label: label(), tag: "v1.0.0".into(), url: "u".into(), source: GitToolError::TooLarge { max_bytes: 1, max_files: 1 } },
        TagMoved => InstallError::TagMoved { label: label(), pinned: "a".into(), pinned_tree: "b".into(), commit: "c".into(), tree: "d".into() },
        WrongArchive => InstallError::WrongArchive { name: name(), version: v("1.0.0"), found_name: "b".into(), found_version: v("1.0.0") },
        PermissionMismatch => InstallError::PermissionMismatch { label: label(), declared: vec![], asked: vec!["network".into()] },
        NoTerminal => InstallError::NoTerminal { label: label(), shown: "network".into(), risk: crate::package::RiskLevel::Medium, others: None },
        Prompt => InstallError::Prompt { reason: "r".into() },
        Cancelled => InstallError::Cancelled { label: label(), others: Some("orla install b".into()) },
        Unmet => InstallError::Unmet { unmet: vec!["a 1.0.0 needs python3".into()] },
        NotInstalledByOrla => InstallError::NotInstalledByOrla { name: name(), version: v("1.0.0"), path: "/t".into(), why: "w".into() },
        Damaged => InstallError::Damaged { name: name(), version: v("1.0.0"), path: "/t".into() },
        FetchTags => InstallError::FetchTags { name: name(), url: "u".into(), source: GitToolError::Offline { url: "u".into() } },
        ReadTags => InstallError::ReadTags { url: "u".into(), source: GitToolError::Repository { dir: "/c/r".into(), source: git() } },
        MissingTag => InstallError::MissingTag { registry: "r".into(), name: name(), version: v("1.0.0"), tag: "v1.0.0".into(), url: "u".into() },
        ListedTagMismatch => InstallError::ListedTagMismatch { registry: "r".into(), name: name(), version: v("1.0.0"), tag: "v2".into() },
        TagMismatch => InstallError::TagMismatch { tag: "v1.0.0".into(), repository: "u".into(), stated: "2.0.0".into(), name: name(), works: None },
        NoPinnedCommit => InstallError::NoPinnedCommit { name: name(), version: v("1.0.0") },
        ReadLocal => InstallError::ReadLocal { path: "./x".into(), reason: "r".into() },
        NotRegularFile => InstallError::NotRegularFile { path: "./x".into() },
        LockOutOfDate => InstallError::LockOutOfDate { flag: "--locked", drift: vec![] },
        FrozenMissing => InstallError::FrozenMissing { missing: vec!["a".into()] },
        Receipt => InstallError::Receipt { reason: "r".into() },
        BadRequirement => InstallError::BadRequirement { name: name(), requirement: "^^1".into(), reason: crate::resolve::RequirementError::Empty },
        Unlockable => InstallError::Unlockable { name: name(), version: v("1.0.0") },
        LocalPin => InstallError::LocalPin { name: name(), version: v("1.0.0"), reason: "r".into() },
        DigestChanged => InstallError::DigestChanged { name: name(), version: v("1.0.0"), actual: "a".into(), pinned: "b".into() },
    ));
    out.extend(cases!(RunError:
        Cache => RunError::Cache { what: "create", path: "/c/run".into(), source: denied() },
        Exec => RunError::Exec { program: "python3".into(), source: io::Error::from(io::ErrorKind::NotFound) },
        Options => RunError::Options(orla_runtime::invoke::ArgvError::Unknown { tool: "t".into(), given: "--x".into(), declared: vec!["--path".into()] }),
        Invalid => RunError::Invalid { tool: "t".into(), violations: "argument 'id' breaks rule 'type'".into() },
        ArgsToJsonTool => RunError::ArgsToJsonTool { tool: "t".into() },
        ReadInput => RunError::ReadInput { tool: "t".into(), source: denied() },
        NotAnObject => RunError::NotAnObject { tool: "t".into(), problem: "an array".into() },
        Cancelled => RunError::Cancelled { label: label() },
        Launch => RunError::Launch(orla_runtime::launch::LaunchError::Tmp { tool: "t".into(), source: denied() }),
    ));
    out.extend(cases!(UseError:
        NoInstalledMatch => UseError::NoInstalledMatch { name: name(), requirement: Some("2".into()), installed: vec!["1.0.0".into()] },
        LocalNotPinnable => UseError::LocalNotPinnable { name: name(), version: v("1.0.0") },
    ));
    out.extend(cases!(ScaffoldError:
        Name => ScaffoldError::Name(crate::package::names::NameError::Empty),
        Flag => ScaffoldError::Flag { flag: "tool-version", message: "bad".into() },
        UnknownPermission => ScaffoldError::UnknownPermission("x".into()),
        BadLicense => ScaffoldError::BadLicense("x".into()),
        BinaryWithoutLanguage => ScaffoldError::BinaryWithoutLanguage,
        ArgumentsForCapsule => ScaffoldError::ArgumentsForCapsule,
        ReadBinary => ScaffoldError::ReadBinary { path: "./b".into(), source: denied() },
        DirTaken => ScaffoldError::DirTaken { dir: "./a".into() },
        Create => ScaffoldError::Create { dir: "./a".into(), source: denied() },
        Prompt => ScaffoldError::Prompt { reason: "r".into() },
    ));
    let dir = || PathBuf::from("/caps/a");
    out.extend(cases!(MigrateError:
        NotADirectory => MigrateError::NotADirectory { path: dir(), exists: false, all: false },
        NoManifest => MigrateError::NoManifest { dir: dir(), capsules: 0 },
        Read => MigrateError::Read { path: dir(), source: denied() },
        Invalid => MigrateError::Invalid { path: dir(), problems: vec![] },
        ToolYamlDiffers => MigrateError::ToolYamlDiffers { dir: dir() },
        BackupDiffers => MigrateError::BackupDiffers { backup: dir() },
        Write => MigrateError::Write { path: dir(), source: denied() },
        MoveAside => MigrateError::MoveAside { path: dir(), source: denied() },
        SomeFailed => MigrateError::SomeFailed(Summary { root: dir(), total: 2, migrated: 1, failed: 1, already: 0, dry_run: false }),
        Capsule => MigrateError::Capsule(CapsuleError::Missing { path: "c".into(), fields: vec!["name"] }),
    ));
    let failed = |failure| {
        vec![Failed {
            name: name(),
            version: "1.0.0".into(),
            path: "/t/a/1.0.0".into(),
            failure,
        }]
    };
    out.extend(cases!(VerifyError:
        Unmet => VerifyError::Unmet { total: 2, failed: failed(Failure::Unmet) },
        Missing => VerifyError::Missing { total: 1, failed: failed(Failure::Missing) },
        Differ => VerifyError::Differ { total: 3, failed: failed(Failure::Unreadable) },
    ));
    let bundle = || PathBuf::from("/b/tools.json");
    out.extend(cases!(ExportError:
        Name => ExportError::Name { tool: "a-".into(), format: "orloj", rule: "a name ends with a letter or digit" },
        NotABundle => ExportError::NotABundle { dir: "/b".into() },
        Read => ExportError::Read { path: bundle(), source: denied() },
        Write => ExportError::Write { path: bundle(), source: full() },
        BundleManifest => ExportError::BundleManifest { path: "/b/manifest.toml".into(), message: "line 1".into() },
        ToolsJson => ExportError::ToolsJson { path: bundle(), message: "expected value".into() },
        ToolsJsonVersion => ExportError::ToolsJsonVersion { path: bundle(), found: "2".into() },
        DuplicateId => ExportError::DuplicateId { path: bundle(), id: "a".into() },
    ));
    out.extend(cases!(ValidateError:
        Failed => ValidateError::Failed { path: "/p/tool.yaml".into(), errors: 1, warnings: 2 },
    ));
    out
}

fn source_of(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The variant names of `pub enum NAME` in `source`: the lines of its body
/// indented by four spaces that start with a capital letter.
fn variants(source: &str, name: &str) -> BTreeSet<String> {
    let start = format!("pub enum {name} {{");
    let mut lines = source.lines().skip_while(|l| l.trim_end() != start);
    assert!(lines.next().is_some(), "no `{start}`");
    lines
        .take_while(|l| *l != "}")
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|l| {
            l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Every type in src/ with a `pub fn hint(&self) -> Option<String>`: the
/// `impl` it sits in.
fn types_with_hints(dir: &std::path::Path, out: &mut BTreeMap<String, PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            types_with_hints(&path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut current: Option<String> = None;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("impl ") {
                current = rest
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .next()
                    .map(str::to_string);
            }
            if line.trim() == "pub fn hint(&self) -> Option<String> {" {
                if let Some(ty) = &current {
                    out.insert(ty.clone(), path.clone());
                }
            }
        }
    }
}

#[test]
fn every_stage_error_has_a_hint_or_a_reason_for_none() {
    let cases = all_cases();
    let listed = |list: &[(&str, &str)], name: &str| list.iter().any(|(n, _)| *n == name);
    let mut problems = Vec::new();

    // Every stage enum is here, and every variant of each has cases.
    let mut with_hints = BTreeMap::new();
    types_with_hints(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut with_hints,
    );
    with_hints.remove("Error");
    for (ty, file) in &with_hints {
        if !STAGE_ENUMS.iter().any(|(name, _)| name == ty) {
            problems.push(format!(
                "{ty} ({}) has a hint method but is not in STAGE_ENUMS: add it, with a case per variant",
                file.display()
            ));
        }
    }
    for (ty, file) in STAGE_ENUMS {
        let declared = variants(&source_of(file), ty);
        for case in cases
            .iter()
            .filter(|c| c.name.starts_with(&format!("{ty}::")))
        {
            let variant = case.name.split("::").nth(1).unwrap();
            if !declared.contains(variant) {
                problems.push(format!("{} is not a variant of {ty} in {file}", case.name));
            }
        }
        for variant in declared {
            let name = format!("{ty}::{variant}");
            if !cases.iter().any(|c| c.name == name) && !listed(HINT_CARRIED, &name) {
                problems.push(format!(
                    "{name} has no case: give it a hint (or list it in NO_FIX with the reason there is no fix) and add a case"
                ));
            }
        }
    }

    // Each case is the variant it says, and the hints agree with the lists.
    let mut hinted: BTreeSet<&str> = BTreeSet::new();
    for case in &cases {
        let variant = case.name.split("::").nth(1).unwrap();
        let rest = case.debug.strip_prefix(variant).unwrap_or("?");
        if !rest.is_empty() && !rest.starts_with([' ', '(']) {
            problems.push(format!("the case labelled {} is {}", case.name, case.debug));
        }
        assert!(!case.message.is_empty(), "{}", case.name);
        if let Some(hint) = &case.hint {
            hinted.insert(&case.name);
            if listed(NO_FIX, &case.name) {
                problems.push(format!(
                    "{} has a hint ({hint}); take it out of NO_FIX",
                    case.name
                ));
            }
            if hint.trim().is_empty() || hint.contains('\n') {
                problems.push(format!("{}: a hint is one line: {hint:?}", case.name));
            }
        }
    }
    for case in &cases {
        if !hinted.contains(case.name.as_str()) && !listed(NO_FIX, &case.name) {
            problems.push(format!(
                "{} has no hint: add one (a command, a flag, a file to fix), or list it in NO_FIX with the reason there is no fix",
                case.name
            ));
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn variants_are_read_from_the_enum_body_only() {
    let source = r#"
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// A doc comment.
    #[error("a {name}")]
    Struct {
        name: String,
        #[source]
        Inner: Foo,
    },
    #[error("b")]
    Tuple(String),
    #[error("c")]
    Unit,
}

impl DemoError {
    Outside,
}
"#;
    let found: Vec<String> = variants(source, "DemoError").into_iter().collect();
    assert_eq!(found, ["Struct", "Tuple", "Unit"]);
}
