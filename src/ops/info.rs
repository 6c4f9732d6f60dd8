//! What the registries know of a tool and what of it is installed
//! (`orla info`). The registry that answers is the first configured one
//! that has the tool (the one `orla install` uses); others that also have
//! it are listed as `also_in`.

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, InfoError};
use crate::fetch::git::ToolRepo;
use crate::index::registries::RegistriesError;
use crate::index::{IndexError, Lookup};
use crate::package::{Permission, RiskLevel};
use crate::progress::{Event, Warning};
use crate::resolve::{self, Requirement, Spec};

#[derive(Debug, Serialize)]
pub struct Info {
    pub name: String,
    pub description: String,
    pub keywords: Vec<String>,
    /// The registry `orla install NAME` uses.
    pub registry: String,
    pub registry_location: String,
    /// For a git registry: the commit of the index that answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry_commit: Option<String>,
    /// Later registries that also have the tool.
    pub also_in: Vec<String>,
    /// `index` (version records) or `git` (RFC 3 git-source tool).
    pub source: &'static str,
    pub repository: Option<String>,
    /// What `orla install NAME` would install.
    pub latest: Option<String>,
    pub permissions: Vec<String>,
    /// False when the tool's tool.yaml has no `permissions` key.
    #[serde(skip_serializing_if = "is_true")]
    pub permissions_declared: bool,
    pub risk_level: Option<RiskLevel>,
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

/// What `orla info NAME` shows, from `registry` (a `--registry` value) or
/// the configured registries.
pub fn info(ctx: &Context, name: &str, registry: Option<&str>) -> Result<Info, Error> {
    let name = name.to_string();
    let spec = Spec::parse(&name)?;
    let root = ctx.root()?;
    let mut installed: Vec<semver::Version> = root
        .scan_names(&[name.as_str()], ctx.reporter.as_ref())?
        .into_iter()
        .filter(|p| p.receipt.name == name)
        .map(|p| p.receipt.version)
        .collect();
    installed.sort();

    let registries = ctx.registries(registry)?;
    let found = match registries.find(&name) {
        Ok(found) => found,
        // Installed from a local path: the registries do not know it, but
        // the user is not wrong about its name.
        Err(e @ RegistriesError::Index(IndexError::UnknownTool { .. }))
            if !installed.is_empty() =>
        {
            return Err(InfoError::OnlyInstalled {
                source: Box::new(e),
                name,
                installed,
            }
            .into());
        }
        Err(e) => return Err(e.into()),
    };
    let registry = found.registry;
    let listing = registry.listing()?;
    let entry = listing.tools.iter().find(|t| t.name == name);

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
    let is_installed = |v: &semver::Version| installed.contains(v);
    let is_active = |v: &semver::Version| active.as_ref() == Some(v);

    let mut info = Info {
        name: name.clone(),
        description: entry.map(|e| e.description.clone()).unwrap_or_default(),
        keywords: entry.map(|e| e.keywords.clone()).unwrap_or_default(),
        registry: registry.name.clone(),
        registry_location: registry.location(),
        registry_commit: registry.git_commit().map(str::to_string),
        also_in: Vec::new(),
        source: "index",
        repository: entry.and_then(|e| e.repository.clone()),
        latest: None,
        permissions: Vec::new(),
        permissions_declared: true,
        risk_level: None,
        versions: Vec::new(),
        installed: installed.iter().map(ToString::to_string).collect(),
        active: active.as_ref().map(ToString::to_string),
        requires: Vec::new(),
    };
    if let Some(version) = &active {
        let dir = root.package_dir(&name, version);
        if let Ok(tool) = crate::package::ToolYaml::read(&dir) {
            info.requires = crate::ops::install::requirements::check(&dir, &tool, &ctx.search_path);
        }
    }
    match &found.lookup {
        Lookup::Records(records) => {
            let mut records = records.clone();
            records.sort_by(|a, b| b.version.cmp(&a.version));
            if let Ok(selected) = resolve::select(&spec, &records) {
                let r = selected.record;
                info.latest = Some(r.version.to_string());
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
            let repo = ToolRepo::open(&url, &ctx.git_access(), ctx.reporter.as_ref());
            match repo
                .as_ref()
                .map_err(ToString::to_string)
                .and_then(|repo| repo.tags().map_err(|e| e.to_string()))
            {
                Ok(tags) => {
                    let offered = crate::ops::install::plan::offered(source_entry, &tags);
                    let latest = Spec {
                        name: name.clone(),
                        requirement: Requirement::Latest,
                        raw: None,
                    };
                    let chosen = resolve::select(&latest, &offered).ok().map(|s| s.record);
                    info.latest = chosen.map(|o| o.version.to_string());
                    // The permissions of the version `install` would pick,
                    // from its tool.yaml in the cached tag.
                    let tool = chosen.filter(|o| o.commit.is_some()).and_then(|o| {
                        crate::ops::install::plan::tag_tool_yaml(repo.as_ref().ok()?, &o.tag)
                    });
                    if let Some(tool) = tool {
                        info.risk_level = Some(tool.risk());
                        info.permissions_declared = tool.permissions.is_declared();
                        info.permissions = tool.permissions.to_vec();
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

fn is_true(value: &bool) -> bool {
    *value
}
