//! What refuses an install, update or a project's install (the `install`
//! operation), with the facts: one variant per refusal, its message and its
//! `hint`. Errors of the stages below (index, fetch, package, store, project
//! files) keep their own enums in their stage. This one lives here, beside
//! the top-level error, because `install` sits above `context`, which
//! returns the top-level error: an enum inside `install` would make an
//! import cycle.

/// How `--local` is used, the hint of a local path that cannot be read.
const LOCAL_HINT: &str = "--local takes a package directory (with tool.yaml) or a .tar.gz archive";

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A git-source tool's tag could not be checked out.
    #[error("{label}: cannot check out {tag} of {url}: {source}")]
    Checkout {
        label: String,
        tag: String,
        url: String,
        #[source]
        source: crate::fetch::git::GitToolError,
    },
    /// orla.lock pins a commit (and tree) the tag no longer gives.
    #[error("{label}: orla.lock pins commit {pinned} (tree {pinned_tree}), but the tag now gives commit {commit} (tree {tree})")]
    TagMoved {
        label: String,
        pinned: String,
        pinned_tree: String,
        commit: String,
        tree: String,
    },
    /// The archive holds another package than the record promised.
    #[error("the archive for {name} {version} contains {found_name} {found_version}")]
    WrongArchive {
        name: String,
        version: semver::Version,
        found_name: String,
        found_version: semver::Version,
    },
    /// tool.yaml asks for other permissions than the registry declared.
    #[error(
        "{label}: the registry declares permissions [{}] but its tool.yaml asks for [{}]",
        .declared.join(", "),
        .asked.join(", ")
    )]
    PermissionMismatch {
        label: String,
        declared: Vec<String>,
        asked: Vec<String>,
    },
    /// Consent is needed and nobody can be asked.
    #[error("{label} asks for {shown} (risk: {risk}) and there is no terminal to confirm it")]
    NoTerminal {
        label: String,
        shown: String,
        risk: crate::package::RiskLevel,
        /// The command that installs the other tools the command named.
        others: Option<String>,
    },
    #[error("cannot ask for confirmation: {reason}")]
    Prompt { reason: String },
    /// The person said no.
    #[error("installation of {label} cancelled: nothing was installed")]
    Cancelled {
        label: String,
        /// The command that installs the other tools the command named.
        others: Option<String>,
    },
    /// `--strict`, and installed tools lack what they need (each `NAME
    /// VERSION problem`).
    #[error("{} (--strict)", .unmet.join("; "))]
    Unmet { unmet: Vec<String> },
    /// A version directory whose receipt is not bound to this root.
    #[error("{name} {version} is not installed: {path} was not installed by orla in this root ({why}), so nothing is served from it")]
    NotInstalledByOrla {
        name: String,
        version: semver::Version,
        path: String,
        why: String,
    },
    /// A version directory whose receipt or tool.yaml cannot be read.
    #[error("{name} {version} is not installed: {path} exists but is damaged (its install receipt or tool.yaml cannot be read), so nothing is served from it")]
    Damaged {
        name: String,
        version: semver::Version,
        path: String,
    },
    /// The tags of a git-source tool's repository cannot be fetched.
    #[error("cannot fetch the tags of {name} from {url}: {source}")]
    FetchTags {
        name: String,
        url: String,
        #[source]
        source: crate::fetch::git::GitToolError,
    },
    /// The fetched tags cannot be read.
    #[error("{url}: {source}")]
    ReadTags {
        url: String,
        #[source]
        source: crate::fetch::git::GitToolError,
    },
    /// A registry's `versions:` list names a tag the repository lacks.
    #[error("registry {registry} lists {name} {version} at tag {tag}, but the repository {url} has no tag {tag}")]
    MissingTag {
        registry: String,
        name: String,
        version: semver::Version,
        tag: String,
        url: String,
    },
    /// A registry's `versions:` list pairs a version with another tag.
    #[error("registry {registry} lists {name} {version} at tag {tag}; the tag and the version must match")]
    ListedTagMismatch {
        registry: String,
        name: String,
        version: semver::Version,
        tag: String,
    },
    /// A tag whose tool.yaml states another version (RFC 3 7.1 step 6).
    #[error("tag {tag} of {repository} holds tool.yaml version {stated}; the tag and the version must match")]
    /// `works`: the newest version whose tag and tool.yaml agree.
    TagMismatch {
        tag: String,
        repository: String,
        stated: String,
        name: String,
        works: Option<semver::Version>,
    },
    /// A git pin of orla.lock without its commit.
    #[error("{name} {version}: orla.lock does not pin a git commit")]
    NoPinnedCommit {
        name: String,
        version: semver::Version,
    },
    /// `--local PATH` cannot be read.
    #[error("cannot read {path}: {reason}")]
    ReadLocal { path: String, reason: String },
    /// `--local PATH` is a device, a fifo, a socket.
    #[error("{path} is not a regular file")]
    NotRegularFile { path: String },
    /// `--locked`/`--frozen`, and orla.yaml and orla.lock disagree (each
    /// difference, none when there is no orla.lock).
    #[error(
        "orla.lock is out of date and {flag} forbids changing it: {}",
        if .drift.is_empty() { "there is no orla.lock".to_string() } else { .drift.join("; ") }
    )]
    LockOutOfDate {
        flag: &'static str,
        drift: Vec<String>,
    },
    /// `--frozen`, and pinned archives are not in the download cache.
    #[error("--frozen forbids the network, and {}", .missing.join("; "))]
    FrozenMissing { missing: Vec<String> },
    /// The receipt of a package just installed cannot be read.
    #[error("{reason}")]
    Receipt { reason: String },
    /// orla.yaml's requirement of a tool `orla update` moves is not one.
    #[error("orla.yaml: the requirement '{requirement}' of {name} is invalid: {reason}")]
    BadRequirement {
        name: String,
        requirement: String,
        #[source]
        reason: crate::resolve::RequirementError,
    },
    /// A tool installed with `--local` cannot be pinned in orla.lock.
    #[error("{name} {version} was installed from a local path and cannot be locked")]
    Unlockable {
        name: String,
        version: semver::Version,
    },
    /// A pin of orla.lock names a file its registry may not name.
    #[error("orla.lock: {reason}")]
    LocalPin {
        name: String,
        version: semver::Version,
        reason: String,
    },
    /// A registry now gives other bytes than orla.lock pins.
    #[error("{name} {version}: the registry now gives an archive with digest {actual}, but orla.lock pins {pinned}")]
    DigestChanged {
        name: String,
        version: semver::Version,
        actual: String,
        pinned: String,
    },
}

impl InstallError {
    /// The fix, when there is one.
    pub fn hint(&self) -> Option<String> {
        use InstallError::*;
        let hint = match self {
            // A refused tree is for the tool's maintainers; a full disk or
            // a damaged cache is for the user.
            Checkout { source, .. } => return source.hint(),
            TagMoved { .. } => "nothing was installed; if the new tag is trusted, run `orla install NAME@VERSION` to lock it again".into(),
            WrongArchive { .. } => "the registry's record points at the wrong archive; report it to its maintainers".into(),
            PermissionMismatch { .. } => {
                "nothing was installed; report the mismatch to the registry's maintainers".into()
            }
            NoTerminal { others, .. } => match others {
                Some(command) => format!("pass --yes to accept these permissions; nothing was installed, and `{command}` installs the others"),
                None => "pass --yes to accept these permissions".into(),
            },
            Cancelled { others: Some(command), .. } => format!("`{command}` installs the others"),
            Unmet { .. } => "install what it needs and run the command again, or drop --strict to install it anyway".into(),
            NotInstalledByOrla { name, version, .. } => format!(
                "if you trust it, `orla install {name}@{version} --force` replaces it with a fresh copy"
            ),
            Damaged { name, version, .. } => {
                format!("`orla install {name}@{version} --force` replaces it with a fresh copy")
            }
            FetchTags { source, .. } | ReadTags { source, .. } => return source.hint(),
            MissingTag { .. } | ListedTagMismatch { .. } => {
                "nothing was installed; report it to the registry's or the tool's maintainers"
                    .into()
            }
            TagMismatch {
                name,
                works: Some(works),
                ..
            } => format!(
                "nothing was installed; `orla install {name}@{works}` installs a version whose tag and tool.yaml agree (the tool's maintainers should retag or fix tool.yaml)"
            ),
            TagMismatch { .. } => {
                "nothing was installed; the tool's maintainers should retag or fix tool.yaml".into()
            }
            ReadLocal { .. } | NotRegularFile { .. } => LOCAL_HINT.into(),
            LockOutOfDate { flag, .. } => {
                format!("run `orla install` without {flag} to update orla.lock, and commit it")
            }
            FrozenMissing { .. } => {
                "run `orla install --locked` once with network to fill the download cache".into()
            }
            Unlockable { name, version } => format!(
                "uninstall it (`orla uninstall {name}@{version}`) and run the command again"
            ),
            LocalPin { name, version, .. } => format!(
                "nothing was read; if the project is yours, run `orla install {name}@{version}` to lock it again from its registry"
            ),
            DigestChanged { .. } => "nothing was installed; if the registry's new archive is trusted, run `orla install NAME@VERSION` to lock it again".into(),
            BadRequirement { .. } => "write a version or requirement, e.g. \"^1.2\"".into(),
            Prompt { .. } => "pass --yes to accept the permissions without a question".into(),
            NoPinnedCommit { name, version } => format!(
                "run `orla install {name}@{version}` to lock it again from its registry"
            ),
            // The person said no; a receipt just written cannot be read
            // (the message names the disk error).
            Cancelled { others: None, .. } | Receipt { .. } => return None,
        };
        Some(hint)
    }
}
