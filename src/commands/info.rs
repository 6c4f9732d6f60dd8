//! `orla info NAME [--json]`: what the registries know of a tool and what
//! of it is installed. The registry that answers is the first configured
//! one that has the tool (the one `orla install` uses); others that also
//! have it are listed as `also_in`.

use serde::Serialize;

use crate::cli::InfoArgs;
use crate::context::Context;
use crate::error::Error;
use crate::fetch::git::ToolRepo;
use crate::index::registries::RegistriesError;
use crate::index::IndexError;
use crate::index::Lookup;
use crate::package::{Permission, RiskLevel};
use crate::resolve::{self, Requirement, Spec};

#[derive(Debug, Serialize)]
struct Info {
    name: String,
    description: String,
    keywords: Vec<String>,
    /// The registry `orla install NAME` uses.
    registry: String,
    registry_location: String,
    /// For a git registry: the commit of the index that answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    registry_commit: Option<String>,
    /// Later registries that also have the tool.
    also_in: Vec<String>,
    /// `index` (version records) or `git` (RFC 3 git-source tool).
    source: &'static str,
    repository: Option<String>,
    /// What `orla install NAME` would install.
    latest: Option<String>,
    permissions: Vec<String>,
    /// False when the tool's tool.yaml has no `permissions` key.
    #[serde(skip_serializing_if = "is_true")]
    permissions_declared: bool,
    risk_level: Option<String>,
    versions: Vec<VersionInfo>,
    installed: Vec<String>,
    active: Option<String>,
    /// What the active installed version needs from this machine (its
    /// interpreter, tool.yaml `dependencies`) and whether it is there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    requires: Vec<crate::install::requirements::Check>,
}

#[derive(Debug, Serialize)]
struct VersionInfo {
    version: String,
    yanked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    blake3: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tag: Option<String>,
    /// Git sources: the commit the tag points at; `null` for a version the
    /// registry's `versions:` list names but the repository has no tag for.
    #[serde(skip_serializing_if = "Option::is_none")]
    commit: Option<Option<String>>,
    installed: bool,
    active: bool,
}

pub fn run(ctx: &Context, args: &InfoArgs) -> Result<(), Error> {
    let name = super::tool_name("info", &args.name)?;
    let spec = Spec::parse(&name)?;
    let root = ctx.root()?;
    let mut installed: Vec<semver::Version> = root
        .scan(ctx.reporter.as_ref())?
        .into_iter()
        .filter(|p| p.receipt.name == name)
        .map(|p| p.receipt.version)
        .collect();
    installed.sort();

    let registries = ctx.registries(args.registry.as_deref())?;
    let found = match registries.find(&name) {
        Ok(found) => found,
        // Installed from a local path: the registries do not know it, but
        // the user is not wrong about its name.
        Err(e @ RegistriesError::Index(IndexError::UnknownTool { .. }))
            if !installed.is_empty() =>
        {
            let versions: Vec<String> = installed.iter().map(ToString::to_string).collect();
            return Err(Error::other(
                e.to_string(),
                Some(format!(
                    "{name} {} is installed (from a local package, or a registry no longer configured); `orla list` shows it",
                    versions.join(", ")
                )),
            ));
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
            info.requires = crate::install::requirements::check(&dir, &tool, &ctx.search_path);
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
                info.risk_level = Some(RiskLevel::derive(&parsed).as_str().to_string());
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
                    let offered = crate::install::plan::offered(source_entry, &tags);
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
                        let bytes = repo.as_ref().ok()?.read_file(&o.tag, "tool.yaml").ok()??;
                        let text = String::from_utf8(bytes).ok()?;
                        crate::package::ToolYaml::parse(&text, "tool.yaml").ok()
                    });
                    if let Some(tool) = tool {
                        info.risk_level = Some(tool.risk().as_str().to_string());
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
                            installed: is_installed(&o.version),
                            active: is_active(&o.version),
                        })
                        .collect();
                }
                Err(e) => ctx
                    .reporter
                    .warn(&format!("cannot read the tags of {url}: {e}")),
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

    if args.json {
        let text = serde_json::to_string_pretty(&info).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    super::write_stdout(render(&info).as_bytes())
}

fn is_true(value: &bool) -> bool {
    *value
}

fn render(info: &Info) -> String {
    use crate::progress::printable;
    let mut out = format!(
        "{} {}\n",
        printable(&info.name),
        printable(info.latest.as_deref().unwrap_or("(no installable version)"))
    );
    if !info.description.is_empty() {
        out.push_str(&format!("{}\n", printable(&info.description)));
    }
    out.push('\n');
    let mut field = |k: &str, v: String| out.push_str(&format!("{k:<13}{}\n", printable(&v)));
    if info.registry == info.registry_location {
        field("registry:", info.registry.clone());
    } else {
        field(
            "registry:",
            format!("{} ({})", info.registry, info.registry_location),
        );
    }
    if let Some(commit) = &info.registry_commit {
        field("index at:", format!("commit {commit}"));
    }
    if !info.also_in.is_empty() {
        field("also in:", info.also_in.join(", "));
    }
    if let Some(repo) = &info.repository {
        field("repository:", repo.clone());
    }
    if !info.keywords.is_empty() {
        field("keywords:", info.keywords.join(", "));
    }
    if let Some(risk) = &info.risk_level {
        let perms = if !info.permissions_declared {
            "undeclared".to_string()
        } else if info.permissions.is_empty() {
            "none".to_string()
        } else {
            info.permissions.join(", ")
        };
        field("permissions:", format!("{perms} (risk: {risk})"));
    }
    field(
        "installed:",
        if info.installed.is_empty() {
            "no".to_string()
        } else {
            format!(
                "{} (active: {})",
                info.installed.join(", "),
                info.active.as_deref().unwrap_or("-")
            )
        },
    );
    if !info.requires.is_empty() {
        let shown: Vec<String> = info
            .requires
            .iter()
            .map(|c| match (&c.problem, &c.version) {
                (Some(_), _) if c.found.is_none() => format!("{} (not found)", c.requirement),
                (Some(_), Some(v)) => format!("{} (found {v}: too old)", c.requirement),
                (None, Some(v)) => format!("{} (found {v})", c.requirement),
                (None, None) if c.found.is_none() => {
                    format!("{} (not a command on PATH; not checked)", c.requirement)
                }
                _ => format!("{} (found)", c.requirement),
            })
            .collect();
        field("requires:", shown.join(", "));
    }
    out.push_str("versions:\n");
    for v in &info.versions {
        let mut notes = Vec::new();
        if v.yanked {
            notes.push("yanked");
        }
        if v.active {
            notes.push("active");
        } else if v.installed {
            notes.push("installed");
        }
        let id = match (&v.blake3, &v.tag, &v.commit) {
            (Some(d), _, _) => format!("blake3:{d}"),
            (None, Some(t), Some(Some(c))) => format!("tag {t}, commit {c}"),
            (None, Some(t), Some(None)) => format!("tag {t} (not in the repository)"),
            (None, Some(t), None) => format!("tag {t}"),
            _ => String::new(),
        };
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join(", "))
        };
        out.push_str(&format!(
            "  {:<12} {}{notes}\n",
            printable(&v.version),
            printable(&id)
        ));
    }
    out
}
