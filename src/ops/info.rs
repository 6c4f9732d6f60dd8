//! What the registries know of a tool and what of it is installed
//! (`orla info NAME[@VERSION]`). The registry that answers is the first
//! configured one that has the tool (the one `orla install` uses); others
//! that also have it are listed as `also_in`.
//!
//! The version described is the one `orla install NAME[@VERSION]` would
//! pick. What only its tool.yaml says (author, license, homepage,
//! repository, mode, input and output schemas) is read from the installed
//! copy when it is installed, else from its archive, fetched and verified
//! into the download cache as `orla install` would (so a later install
//! needs no download), as `cargo info` downloads a crate; a git-source
//! tool's from its tag. A tool only installed (from a local package, or a
//! registry no longer configured) is described from what is installed.

use serde::Serialize;
use serde_json::Value;

use crate::context::Context;
use crate::error::Error;
use crate::fetch::git::ToolRepo;
use crate::fetch::Fetcher;
use crate::index::registries::RegistriesError;
use crate::index::{IndexError, Lookup};
use crate::package::{Permission, RiskLevel, ToolYaml};
use crate::progress::{Event, Warning};
use crate::resolve::{self, Requirement, Spec};
use crate::root::receipt::Source;
use crate::root::{InstallRoot, Installed};

#[derive(Debug, Default, Serialize)]
pub struct Info {
    pub name: String,
    pub description: String,
    pub keywords: Vec<String>,
    /// The registry `orla install NAME` uses; `local` for a tool only
    /// installed from a local package.
    pub registry: String,
    pub registry_location: String,
    /// For a git registry: the commit of the index that answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry_commit: Option<String>,
    /// Later registries that also have the tool.
    pub also_in: Vec<String>,
    /// `index` (version records), `git` (RFC 3 git-source tool) or
    /// `installed` (known only from what is installed).
    pub source: &'static str,
    /// The tool's source repository (a URL), from its tool.yaml or the
    /// registry's listing; never where the registry keeps its archives.
    pub repository: Option<String>,
    /// What `orla install NAME` would install.
    pub latest: Option<String>,
    /// The version described: `NAME@VERSION`'s, else `latest`.
    pub version: Option<String>,
    pub permissions: Vec<String>,
    /// False when the tool's tool.yaml has no `permissions` key.
    #[serde(skip_serializing_if = "is_true")]
    pub permissions_declared: bool,
    pub risk_level: Option<RiskLevel>,
    /// From the described version's tool.yaml (`null` when it could not be
    /// read, `details_unavailable` then says why).
    pub author: Option<String>,
    pub license: Option<String>,
    pub homepage: Option<String>,
    /// `simple` or `capsule`.
    pub mode: Option<&'static str>,
    /// How a simple tool receives its arguments: `flags` or `json`.
    pub arguments: Option<&'static str>,
    /// JSON Schema, as the manifest carries it.
    pub input_schema: Option<Value>,
    pub output_schema: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details_unavailable: Option<String>,
    pub versions: Vec<VersionInfo>,
    pub installed: Vec<String>,
    pub active: Option<String>,
    /// What the active installed version needs from this machine (its
    /// interpreter, tool.yaml `dependencies`) and whether it is there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<crate::ops::install::requirements::Check>,
}

#[derive(Debug, Serialize)]
pub struct VersionInfo {
    pub version: String,
    pub yanked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blake3: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Git sources: the commit the tag points at; `null` for a version the
    /// registry's `versions:` list names but the repository has no tag for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<Option<String>>,
    /// Git sources: the version the tag's tool.yaml states, when it is
    /// not the tag's (RFC 3 7.1 step 6: such a tag cannot be installed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_yaml_version: Option<String>,
    pub installed: bool,
    pub active: bool,
}

/// What `orla info NAME[@VERSION]` shows (`spec`), from `registry` (a
/// `--registry` value) or the configured registries.
pub fn info(ctx: &Context, spec: &Spec, registry: Option<&str>) -> Result<Info, Error> {
    let name = spec.name.clone();
    let root = ctx.root()?;
    let packages: Vec<Installed> = root
        .scan_names(&[name.as_str()], ctx.reporter.as_ref())?
        .into_iter()
        .filter(|p| p.receipt.name == name)
        .collect();
    let mut installed: Vec<semver::Version> =
        packages.iter().map(|p| p.receipt.version.clone()).collect();
    installed.sort();

    // As the manifest chooses: the version `orla use` or orla.lock prefers
    // when it is installed, else the newest.
    let preferred = crate::manifest::Inputs::gather(&root, &crate::progress::Silent)
        .preferred
        .remove(&name);
    let active = preferred.filter(|v| installed.contains(v)).or_else(|| {
        // The newest stable version, else the newest pre-release.
        installed
            .iter()
            .max_by_key(|v| (v.pre.is_empty(), (*v).clone()))
            .cloned()
    });

    let registries = ctx.registries(registry)?;
    let found = match registries.find(&name) {
        Ok(found) => found,
        // Installed from a local path (or a registry no longer configured):
        // the registries do not know it, what is installed says it all.
        Err(RegistriesError::Index(IndexError::UnknownTool { .. })) if !packages.is_empty() => {
            return only_installed(ctx, spec, &packages, active);
        }
        Err(e) => return Err(e.into()),
    };
    let registry = found.registry;
    let listing = registry.listing()?;
    let entry = listing.tools.iter().find(|t| t.name == name);
    let is_installed = |v: &semver::Version| installed.contains(v);
    let is_active = |v: &semver::Version| active.as_ref() == Some(v);

    let mut info = Info {
        name: name.clone(),
        description: entry.map(|e| e.description.clone()).unwrap_or_default(),
        keywords: entry.map(|e| e.keywords.clone()).unwrap_or_default(),
        registry: registry.name.clone(),
        registry_location: registry.location(),
        registry_commit: registry.git_commit().map(str::to_string),
        source: "index",
        // registry.yaml's `repository` of a fast-format index may be where
        // its archives are (RFC 3 6.3 allows it): only a URL is the tool's.
        repository: entry
            .and_then(|e| e.repository.clone())
            .filter(|r| is_url(r)),
        permissions_declared: true,
        installed: installed.iter().map(ToString::to_string).collect(),
        active: active.as_ref().map(ToString::to_string),
        ..Info::default()
    };
    if let Some(version) = &active {
        let dir = root.package_dir(&name, version);
        if let Ok(tool) = ToolYaml::read(&dir) {
            info.requires = crate::ops::install::requirements::check(&dir, &tool, &ctx.search_path);
        }
    }
    let latest_spec = Spec {
        name: name.clone(),
        requirement: Requirement::Latest,
        raw: None,
    };
    match &found.lookup {
        Lookup::Records(records) => {
            let mut records = records.clone();
            records.sort_by(|a, b| b.version.cmp(&a.version));
            info.latest = resolve::select(&latest_spec, &records)
                .ok()
                .map(|s| s.record.version.to_string());
            // A version that does not exist is an error, as for install.
            let selected = match resolve::select(spec, &records) {
                Ok(s) => Some(s.record.clone()),
                Err(e) if spec.raw.is_some() => return Err(e.into()),
                Err(_) => None,
            };
            if let Some(r) = &selected {
                info.version = Some(r.version.to_string());
                info.permissions = r.permissions.clone();
                let parsed: Vec<Permission> =
                    r.permissions.iter().map(|p| Permission::parse(p)).collect();
                info.risk_level = Some(RiskLevel::derive(&parsed));
                // The version shown describes the tool: registry.yaml
                // describes the newest published one, maybe a pre-release.
                if !r.description.is_empty() {
                    info.description = r.description.clone();
                }
                if !r.keywords.is_empty() {
                    info.keywords = r.keywords.clone();
                }
                let tool = match root_tool(&root, &name, &r.version) {
                    Some(tool) => Ok(tool),
                    None => fetched_tool(ctx, registry, r),
                };
                match tool {
                    Ok(tool) => describe(&mut info, &tool),
                    Err(why) => info.details_unavailable = Some(why),
                }
            }
            info.versions = records
                .iter()
                .map(|r| VersionInfo {
                    version: r.version.to_string(),
                    yanked: r.yanked,
                    blake3: Some(r.blake3.to_string()),
                    size: Some(r.size),
                    tag: None,
                    commit: None,
                    tool_yaml_version: None,
                    installed: is_installed(&r.version),
                    active: is_active(&r.version),
                })
                .collect();
        }
        Lookup::GitSource(source_entry) => {
            info.source = "git";
            let url = registry.tool_repository(&source_entry.entry)?;
            if info.repository.is_none() {
                info.repository = Some(url.clone());
            }
            let repo = ToolRepo::open(&url, &ctx.git_access(), ctx.reporter.as_ref());
            match repo
                .as_ref()
                .map_err(ToString::to_string)
                .and_then(|repo| repo.tags().map_err(|e| e.to_string()))
            {
                Ok(tags) => {
                    let offered = crate::ops::install::plan::offered(source_entry, &tags);
                    info.latest = resolve::select(&latest_spec, &offered)
                        .ok()
                        .map(|s| s.record.version.to_string());
                    let chosen = match resolve::select(spec, &offered) {
                        Ok(s) => Some(s.record),
                        Err(e) if spec.raw.is_some() => return Err(e.into()),
                        Err(_) => None,
                    };
                    info.version = chosen.map(|o| o.version.to_string());
                    // The permissions of the version described, from its
                    // tool.yaml in the cached tag (or the installed copy).
                    let tool = chosen.and_then(|o| {
                        root_tool(&root, &name, &o.version).or_else(|| {
                            o.commit.as_ref()?;
                            crate::ops::install::plan::tag_tool_yaml(repo.as_ref().ok()?, &o.tag)
                        })
                    });
                    if let Some(tool) = tool {
                        info.risk_level = Some(tool.risk());
                        info.permissions_declared = tool.permissions.is_declared();
                        info.permissions = tool.permissions.to_vec();
                        describe(&mut info, &tool);
                    }
                    info.versions = offered
                        .iter()
                        .map(|o| VersionInfo {
                            version: o.version.to_string(),
                            yanked: false,
                            blake3: None,
                            size: None,
                            tag: Some(o.tag.clone()),
                            commit: Some(o.commit.clone()),
                            tool_yaml_version: o
                                .commit
                                .as_ref()
                                .and_then(|_| {
                                    let repo = repo.as_ref().ok()?;
                                    crate::ops::install::plan::tag_tool_yaml(repo, &o.tag)?.version
                                })
                                .filter(|stated| {
                                    !crate::ops::install::plan::states(stated, &o.version)
                                }),
                            installed: is_installed(&o.version),
                            active: is_active(&o.version),
                        })
                        .collect();
                }
                Err(e) => ctx.reporter.report(Event::Warning(Warning::UnreadableTags {
                    repository: url.to_string(),
                    problem: e.to_string(),
                })),
            }
        }
    }
    for slot in &registries.slots {
        // The public registry is fetched only for tools the others lack.
        let other = match slot.fallback {
            true => registries.opened(slot).ok_or(()),
            false => registries.open(slot).map_err(|_| ()),
        };
        let Ok(other) = other else {
            continue;
        };
        if other.name != registry.name && matches!(other.lookup(&name), Ok(Some(_))) {
            info.also_in.push(other.name.clone());
        }
    }

    Ok(info)
}

/// A tool no registry knows, described from what is installed: the version
/// `spec` names (the active one when it names none).
fn only_installed(
    ctx: &Context,
    spec: &Spec,
    packages: &[Installed],
    active: Option<semver::Version>,
) -> Result<Info, Error> {
    let mut versions: Vec<&Installed> = packages.iter().collect();
    versions.sort_by(|a, b| b.receipt.version.cmp(&a.receipt.version));
    let package = match &spec.raw {
        None => versions
            .iter()
            .copied()
            .find(|p| Some(&p.receipt.version) == active.as_ref())
            .unwrap_or(versions[0]),
        Some(_) => resolve::select(spec, packages)?.record,
    };
    let tool = &package.tool;
    let (registry, location) = match &package.receipt.source {
        Source::Local { path, .. } => ("local".to_string(), path.clone()),
        Source::Registry {
            registry, archive, ..
        } => (registry.clone(), archive.clone()),
        Source::Git {
            registry,
            repository,
            ..
        } => (registry.clone(), repository.clone()),
        Source::Discovered { .. } => ("local".to_string(), String::new()),
    };
    let mut info = Info {
        name: spec.name.clone(),
        description: tool.description.clone().unwrap_or_default(),
        keywords: tool.keywords.clone(),
        registry,
        registry_location: location,
        source: "installed",
        version: Some(package.receipt.version.to_string()),
        permissions: tool.permissions.to_vec(),
        permissions_declared: tool.permissions.is_declared(),
        risk_level: Some(tool.risk()),
        versions: versions
            .iter()
            .map(|p| VersionInfo {
                version: p.receipt.version.to_string(),
                yanked: false,
                blake3: Some(p.receipt.source.blake3().to_string()),
                size: Some(p.receipt.source.size()),
                tag: None,
                commit: None,
                tool_yaml_version: None,
                installed: true,
                active: active.as_ref() == Some(&p.receipt.version),
            })
            .collect(),
        installed: {
            let mut all: Vec<String> = versions
                .iter()
                .rev()
                .map(|p| p.receipt.version.to_string())
                .collect();
            all.dedup();
            all
        },
        active: active.as_ref().map(ToString::to_string),
        requires: crate::ops::install::requirements::check(&package.dir, tool, &ctx.search_path),
        ..Info::default()
    };
    describe(&mut info, tool);
    Ok(info)
}

impl resolve::Candidate for Installed {
    fn version(&self) -> &semver::Version {
        &self.receipt.version
    }
}

/// The tool.yaml of `name version` as installed in `root`, if it is.
fn root_tool(root: &InstallRoot, name: &str, version: &semver::Version) -> Option<ToolYaml> {
    ToolYaml::read(&root.package_dir(name, version)).ok()
}

/// The tool.yaml of a registry record's archive, fetched, verified and
/// unpacked as `orla install` does (through the download cache, which
/// keeps it); why not, when it cannot be (offline and not cached, say).
fn fetched_tool(
    ctx: &Context,
    registry: &crate::index::Registry,
    record: &crate::index::VersionRecord,
) -> Result<ToolYaml, String> {
    let job =
        crate::ops::install::plan::archive_job(registry, record).map_err(|e| e.to_string())?;
    let cache = ctx.cache();
    // Held while the archive is fetched, so `orla cache clear` waits.
    let _lock = cache
        .lock(crate::lock::LockKind::Shared, ctx.reporter.as_ref())
        .map_err(|e| e.to_string())?;
    let staging = tempfile::tempdir().map_err(|e| e.to_string())?;
    let fetcher = Fetcher::new(cache, ctx.offline).with_http_limits(ctx.http_limits());
    let unpacked = fetcher
        .fetch_unpack(&job, staging.path(), ctx.reporter.as_ref())
        .map_err(|e| e.to_string())?;
    fetcher.keep_downloads();
    ToolYaml::read(&unpacked.root).map_err(|e| e.to_string())
}

/// Fills in what only tool.yaml says.
fn describe(info: &mut Info, tool: &ToolYaml) {
    info.author = tool.author.clone();
    info.license = tool.license.clone();
    info.homepage = tool.homepage.clone();
    // A git-source tool's is the repository its versions come from.
    if info.repository.is_none() {
        info.repository = tool.repository.clone().filter(|r| is_url(r));
    }
    let runtime = tool.runtime.clone().unwrap_or_default();
    let mode = runtime.mode.unwrap_or_default();
    info.mode = Some(mode.as_str());
    info.arguments = (mode == crate::package::Mode::Simple)
        .then(|| runtime.arguments.unwrap_or_default().as_str());
    let schema = |value: Option<&serde_yaml::Value>| {
        value.and_then(|v| crate::package::schema::to_json_schema(v).ok())
    };
    let mcp = tool.mcp.as_ref();
    info.input_schema = schema(mcp.and_then(|m| m.input_schema.as_ref()));
    info.output_schema = schema(mcp.and_then(|m| m.output_schema.as_ref()));
}

/// Whether `text` is a URL (`https://...`, `git+ssh://...`, `git@host:path`)
/// rather than a path.
fn is_url(text: &str) -> bool {
    text.contains("://") || (text.contains('@') && text.contains(':') && !text.starts_with('/'))
}

fn is_true(value: &bool) -> bool {
    *value
}
