//! Planning: what each requested package is and where its bytes come from,
//! decided before the root is locked or anything is fetched, so that a typo
//! or an unknown version fails before any download.

use std::path::Path;
use std::sync::Arc;

use crate::context::Context;
use crate::error::Error;
use crate::error::InstallError;
use crate::fetch::git::ToolRepo;
use crate::fetch::Job;
use crate::index::registries::Registries;
use crate::index::{ArchiveLocation, GitSourceEntry, Lookup, Registry, VersionRecord};
use crate::package::{Permission, RiskLevel, ToolYaml};
use crate::progress::{Event, Warning};
use crate::resolve::{self, Requirement, Spec};
use crate::root::receipt::Source;
use crate::verify::{Digest, Expected};

/// One package to install.
pub(crate) struct Plan {
    pub label: String,
    /// Known before fetching for registry installs; for a local archive only
    /// once it is unpacked.
    pub target: Option<(String, semver::Version)>,
    /// The permissions the index declared, checked against tool.yaml.
    pub declared: Option<Vec<String>>,
    /// The permissions orla.lock records as accepted for this exact
    /// archive: asking again for the same ones is not needed.
    pub consented: Option<Vec<String>>,
    pub(crate) fetch: Fetch,
    pub(crate) source: Source,
}

/// How a plan's files are obtained.
pub(crate) enum Fetch {
    /// An archive, streamed through the verifier.
    Archive(Job),
    /// A tag of an RFC 3 git-source tool.
    Git { repo: ToolRepo, tag: String },
}

/// Resolves a spec against the configured registries: the first registry
/// that knows the tool answers.
pub(crate) fn plan_spec(
    ctx: &Context,
    registries: &Registries<'_>,
    spec: &Spec,
) -> Result<Plan, Error> {
    let found = registries.find(&spec.name)?;
    match &found.lookup {
        Lookup::Records(records) => {
            registry_plan(found.registry, spec, records, ctx.reporter.as_ref())
        }
        Lookup::GitSource(entry) => git_plan(ctx, found.registry, entry, spec),
    }
}

/// A version an RFC 3 entry offers: a `v`-tag of its repository, or, when
/// the entry has a `versions:` list, each version of that list (which may
/// name a tag the repository does not have: `commit` is then `None`).
#[derive(Debug, Clone)]
pub(crate) struct Offered {
    pub version: semver::Version,
    pub tag: String,
    pub commit: Option<String>,
}

impl resolve::Candidate for Offered {
    fn version(&self) -> &semver::Version {
        &self.version
    }
}

/// The versions `entry` offers from the repository's `tags`, newest first:
/// every tag, or only those its `versions:` list allows.
pub(crate) fn offered(entry: &GitSourceEntry, tags: &[crate::fetch::git::Tag]) -> Vec<Offered> {
    let mut out: Vec<Offered> = match &entry.versions {
        None => tags
            .iter()
            .map(|t| Offered {
                version: t.version.clone(),
                tag: t.name.clone(),
                commit: Some(t.commit.clone()),
            })
            .collect(),
        Some(listed) => listed
            .iter()
            .map(|l| Offered {
                version: l.version.clone(),
                tag: l.tag.clone(),
                commit: tags
                    .iter()
                    .find(|t| t.name == l.tag)
                    .map(|t| t.commit.clone()),
            })
            .collect(),
    };
    out.sort_by(|a, b| b.version.cmp(&a.version));
    out
}

/// Opens the repository of a git-source entry, its tags fetched as the
/// registry TTL allows.
fn open_repo(ctx: &Context, url: &str, name: &str, refresh: bool) -> Result<ToolRepo, Error> {
    let mut access = ctx.git_access();
    access.refresh |= refresh;
    ToolRepo::open(url, &access, ctx.reporter.as_ref()).map_err(|e| {
        InstallError::FetchTags {
            name: name.to_string(),
            url: url.to_string(),
            source: e,
        }
        .into()
    })
}

/// Resolves an RFC 3 git-source tool: tags from the repository (7.3).
/// The tool is installed under the registry's name for it, whatever its
/// tool.yaml calls it (a tool renamed between releases stays one tool).
fn git_plan(
    ctx: &Context,
    registry: &Registry,
    source_entry: &GitSourceEntry,
    spec: &Spec,
) -> Result<Plan, Error> {
    let entry = &source_entry.entry;
    let url = registry.tool_repository(entry)?;
    let mut repo = open_repo(ctx, &url, &entry.name, false)?;
    let tags_of = |repo: &ToolRepo| {
        repo.tags()
            .map(|tags| offered(source_entry, &tags))
            .map_err(|e| {
                Error::from(InstallError::ReadTags {
                    url: url.clone(),
                    source: e,
                })
            })
    };
    let mut candidates = tags_of(&repo)?;
    // A tag pushed since the cached fetch: look again before saying no.
    if resolve::select(spec, &candidates).is_err() && !repo.fetched && !ctx.offline {
        repo = open_repo(ctx, &url, &entry.name, true)?;
        candidates = tags_of(&repo)?;
    }
    let selected = resolve::select(spec, &candidates)?.record.clone();
    let (version, tag) = (selected.version.clone(), selected.tag.clone());
    if selected.commit.is_none() {
        return Err(InstallError::MissingTag {
            registry: registry.name.clone(),
            name: entry.name.clone(),
            version,
            tag,
            url,
        }
        .into());
    }
    if tag.strip_prefix('v') != Some(version.to_string().as_str()) {
        return Err(InstallError::ListedTagMismatch {
            registry: registry.name.clone(),
            name: entry.name.clone(),
            version,
            tag,
        }
        .into());
    }
    // The tag's tool.yaml, read from the fetched objects, declares the
    // permissions, so consent comes before anything is written (as for
    // index records); the checkout is then held to the same list. Its
    // version is checked now too (RFC 3 7.1 step 6), before any checkout.
    let tool = tag_tool_yaml(&repo, &tag);
    if let Some(stated) = tool.as_ref().and_then(|t| t.version.as_deref()) {
        if !states(stated, &version) {
            return Err(InstallError::TagMismatch {
                tag,
                repository: url,
                stated: stated.to_string(),
                name: entry.name.clone(),
                works: newest_agreeing(&repo, &candidates, spec, stated),
            }
            .into());
        }
    }
    // A tool.yaml without `permissions` (as the Orla project's are), or
    // whose risk_level is above what its permissions give, is confirmed
    // once, on the checked-out package and with its real risk, as a local
    // package is: consenting here to its list alone would show it as lower.
    let declared = tool
        .filter(|tool| {
            tool.permissions.is_declared()
                && tool.risk() == crate::package::RiskLevel::derive(&tool.permissions())
        })
        .map(|tool| tool.permissions.to_vec());
    let label = format!("{} {version}", entry.name);
    ctx.reporter.report(Event::Resolved {
        name: entry.name.clone(),
        version: version.clone(),
        registry: registry.name.clone(),
    });
    Ok(Plan {
        label,
        target: Some((entry.name.clone(), version)),
        declared,
        consented: None,
        // The commit, tree digest and size are known after checkout: empty
        // until then (a plan from orla.lock names them, and they must match).
        source: Source::Git {
            registry: registry.name.clone(),
            blake3: Digest::of(b""),
            size: 0,
            repository: url,
            tag: tag.clone(),
            commit: String::new(),
            extra: Default::default(),
        },
        fetch: Fetch::Git { repo, tag },
    })
}

/// A tag's tool.yaml, read from the fetched objects (no checkout); `None`
/// when it cannot be read.
pub(crate) fn tag_tool_yaml(repo: &ToolRepo, tag: &str) -> Option<ToolYaml> {
    let bytes = repo.read_file(tag, "tool.yaml").ok()??;
    let text = String::from_utf8(bytes).ok()?;
    crate::package::ToolYaml::parse(&text, "tool.yaml").ok()
}

/// Whether tool.yaml's `stated` version is `version` (RFC 3 7.1 step 6:
/// the tag and the version must match).
pub(crate) fn states(stated: &str, version: &semver::Version) -> bool {
    crate::package::names::parse_version(stated).ok().as_ref() == Some(version)
}

/// What installs when the version chosen does not: the version its
/// tool.yaml `stated` (what the tag holds) when that version's own tag
/// agrees, else the newest stable version among `candidates` (newest
/// first) whose tag's tool.yaml states it, within `spec` when one is. A
/// few tags are read, from the fetched objects.
fn newest_agreeing(
    repo: &ToolRepo,
    candidates: &[Offered],
    spec: &Spec,
    stated: &str,
) -> Option<semver::Version> {
    let stated = crate::package::names::parse_version(stated).ok();
    let agreeing: Vec<&semver::Version> = candidates
        .iter()
        .filter(|o| o.commit.is_some() && o.version.pre.is_empty())
        .take(16)
        .chain(
            candidates
                .iter()
                .filter(|o| o.commit.is_some() && Some(&o.version) == stated.as_ref()),
        )
        .filter(|o| {
            tag_tool_yaml(repo, &o.tag)
                .and_then(|t| t.version)
                .is_some_and(|stated| states(&stated, &o.version))
        })
        .map(|o| &o.version)
        .collect();
    let within = |v: &&&semver::Version| match &spec.requirement {
        Requirement::Range(req) => req.matches(v),
        Requirement::Latest => true,
        Requirement::Exact(_) => false,
    };
    agreeing
        .iter()
        .find(|v| Some(**v) == stated.as_ref())
        .or_else(|| agreeing.iter().find(within))
        .or_else(|| agreeing.first())
        .map(|v| (*v).clone())
}

/// A tag whose tool.yaml states another version (RFC 3 7.1 step 6), found
/// once checked out.
pub(crate) fn tag_mismatch(tag: &str, repository: &str, stated: &str, name: &str) -> Error {
    InstallError::TagMismatch {
        tag: tag.to_string(),
        repository: repository.to_string(),
        stated: stated.to_string(),
        name: name.to_string(),
        works: None,
    }
    .into()
}

fn registry_plan(
    registry: &Registry,
    spec: &Spec,
    records: &[VersionRecord],
    reporter: &dyn crate::progress::Reporter,
) -> Result<Plan, Error> {
    let selected = resolve::select(spec, records)?;
    let record = selected.record;
    reporter.report(Event::Resolved {
        name: record.name.clone(),
        version: record.version.clone(),
        registry: registry.name.clone(),
    });
    if selected.yanked {
        reporter.report(Event::Warning(Warning::Yanked {
            name: record.name.clone(),
            version: record.version.clone(),
        }));
    }
    let job = archive_job(registry, record)?;
    Ok(Plan {
        label: format!("{} {}", record.name, record.version),
        target: Some((record.name.clone(), record.version.clone())),
        declared: Some(record.permissions.clone()),
        consented: None,
        source: Source::Registry {
            registry: registry.name.clone(),
            // Credentials in the URL are used to download, never written down.
            archive: crate::http::without_credentials(&job.location.to_string()),
            blake3: record.blake3,
            size: record.size,
            extra: Default::default(),
        },
        fetch: Fetch::Archive(job),
    })
}

/// The fetch of a version record's archive: where it is, and the digest
/// and size its bytes must have.
pub(crate) fn archive_job(registry: &Registry, record: &VersionRecord) -> Result<Job, Error> {
    Ok(Job {
        label: format!("{} {}", record.name, record.version),
        location: registry.archive_location(record)?,
        expected: Expected {
            blake3: record.blake3,
            size: Some(record.size),
            sha256: record
                .sha256
                .as_deref()
                .and_then(crate::verify::parse_sha256),
        },
    })
}

impl Plan {
    /// Where the package comes from, as its receipt will say (for git
    /// sources the commit and tree are only known after checkout).
    pub(crate) fn source(&self) -> &Source {
        &self.source
    }

    /// Whether orla.lock records consent to exactly `permissions`.
    pub(crate) fn consented_to(&self, permissions: &[String]) -> bool {
        let parsed = |list: &[String]| {
            let mut v: Vec<Permission> = list.iter().map(|p| Permission::parse(p)).collect();
            v.sort();
            v
        };
        self.consented
            .as_deref()
            .is_some_and(|recorded| parsed(recorded) == parsed(permissions))
    }

    /// Whether orla.lock records consent to what `tool` asks for: the same
    /// permissions, and no higher risk than they give.
    pub(crate) fn consent_recorded(&self, tool: &ToolYaml) -> bool {
        let Some(recorded) = self.consented.as_deref() else {
            return false;
        };
        let mut recorded: Vec<Permission> = recorded.iter().map(|p| Permission::parse(p)).collect();
        let mut asked = tool.permissions();
        recorded.sort();
        asked.sort();
        recorded == asked && tool.risk() <= RiskLevel::derive(&recorded)
    }
}

/// A plan that installs exactly the archive orla.lock pins: no index is
/// read, and the bytes must have the pinned digest and size.
pub(crate) fn pinned_archive_plan(
    name: &str,
    version: &semver::Version,
    location: ArchiveLocation,
    source: Source,
) -> Plan {
    let label = format!("{name} {version}");
    Plan {
        label: label.clone(),
        target: Some((name.to_string(), version.clone())),
        declared: None,
        consented: None,
        fetch: Fetch::Archive(Job {
            label,
            location,
            expected: Expected {
                blake3: source.blake3(),
                size: Some(source.size()),
                sha256: None,
            },
        }),
        source,
    }
}

/// A plan that checks out the tag orla.lock pins for an RFC 3 git-source
/// tool; `apply` refuses it unless the tag still gives the pinned commit.
pub(crate) fn pinned_git_plan(
    ctx: &Context,
    name: &str,
    version: &semver::Version,
    source: Source,
) -> Result<Plan, Error> {
    // `apply` holds the checkout to a non-empty pinned commit.
    let (url, tag, pinned) = match &source {
        Source::Git {
            repository,
            tag,
            commit,
            ..
        } if !commit.is_empty() => (repository, tag, commit),
        _ => {
            return Err(InstallError::NoPinnedCommit {
                name: name.to_string(),
                version: version.clone(),
            }
            .into())
        }
    };
    let (url, tag) = (url.clone(), tag.clone());
    let mut repo = open_repo(ctx, &url, name, false)?;
    // The pinned commit may be newer than the cached tags.
    if !repo.has_commit(pinned) && !repo.fetched && !ctx.offline {
        repo = open_repo(ctx, &url, name, true)?;
    }
    Ok(Plan {
        label: format!("{name} {version}"),
        target: Some((name.to_string(), version.clone())),
        declared: None,
        consented: None,
        fetch: Fetch::Git { repo, tag },
        source,
    })
}

/// A package directory is packed in memory, exactly as `orla tool pack`
/// would; an archive is read once. Either then takes the same hardened path
/// as a registry download.
pub(crate) fn local_plan(path: &Path) -> Result<Plan, Error> {
    let shown = path.display().to_string();
    let (bytes, target) = if path.is_dir() {
        let (packed, bytes) = crate::package::pack::pack_to_vec(path)?;
        (bytes, Some((packed.name, packed.version)))
    } else {
        let cannot = |e: std::io::Error| InstallError::ReadLocal {
            path: shown.clone(),
            reason: e.to_string(),
        };
        // A device (`/dev/zero`) would be read into memory without end, and
        // opening a fifo blocks: judged before opening, and again on the
        // opened file, which is the one read.
        let refuse = || InstallError::NotRegularFile {
            path: shown.clone(),
        };
        if !std::fs::metadata(path).map_err(cannot)?.is_file() {
            return Err(refuse().into());
        }
        let mut file = std::fs::File::open(path).map_err(cannot)?;
        if !file.metadata().map_err(cannot)?.is_file() {
            return Err(refuse().into());
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).map_err(cannot)?;
        (bytes, None)
    };
    let digest = Digest::of(&bytes);
    let size = bytes.len() as u64;
    let label = match &target {
        Some((n, v)) => format!("{n} {v}"),
        None => shown.clone(),
    };
    Ok(Plan {
        label: label.clone(),
        target,
        declared: None,
        consented: None,
        source: Source::Local {
            path: shown.clone(),
            blake3: digest,
            size,
            extra: Default::default(),
        },
        fetch: Fetch::Archive(Job {
            label,
            location: ArchiveLocation::Memory {
                origin: shown,
                bytes: Arc::new(bytes),
            },
            expected: Expected {
                blake3: digest,
                size: Some(size),
                sha256: None,
            },
        }),
    })
}
