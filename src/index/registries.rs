//! The configured registries of a run, in the order they are searched:
//!
//! 1. the project's orla.yaml `registries:` (relative locations from the project),
//! 2. `~/.orla/config.yaml` `registries:` (relative locations from `~/.orla`),
//! 3. the default: `ORLA_REGISTRY`, else `builtin`, unless a configured
//!    registry already has that location;
//! 4. the Orla project's public registry (`orla`, an RFC 3 git registry),
//!    unless dropped (`public_registry: false` in config.yaml,
//!    `ORLA_PUBLIC_REGISTRY=off`) or configured already. It is a fallback:
//!    only `install`, `info` and `update` of a tool no earlier registry
//!    has fetch it, so the common case needs no network; `search` reads it
//!    when it is cached or reachable and says nothing when offline.
//!
//! `--registry NAME|LOCATION` replaces the list with one registry: the
//! configured one called NAME, else LOCATION. A tool found in several
//! registries is taken from the first (cargo and uv behave the same way
//! with their default index); `orla info` says which one answered.
//! Registries are opened lazily, so a git registry that does not have the
//! tool is only fetched when an earlier one did not have it. A registry
//! that cannot be opened stops the lookup (unless `--offline`): a later
//! registry must not answer for a name the unreadable one may hold.
//!
//! The list is built from settings passed in ([`Settings`]: `Context`
//! resolves them from the environment, config.yaml and orla.yaml), so the
//! index knows nothing of how a run is configured.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{shard_path, Backend, GitAccess, IndexError, Lookup, Registry, RegistryLocation};
use crate::config::{parse_registries, NamedRegistry, PUBLIC_REGISTRY_NAME};
use crate::package::names;
use crate::progress::{Event, Reporter, Warning};

#[derive(Debug, thiserror::Error)]
pub enum RegistriesError {
    /// `--registry NAME` names no configured registry but resembles one.
    #[error("no registry named '{choice}' is configured, and there is no directory '{choice}'")]
    UnknownName { choice: String, near: String },
    /// orla.yaml's `registries:` cannot be read.
    #[error("{} is not valid: {message}", file.display())]
    ProjectConfig { file: PathBuf, message: String },
    /// A registry that cannot be opened (every use of it says so again).
    #[error("{0}")]
    Open(Arc<IndexError>),
    /// The public fallback was needed but is not cached, and the run is offline.
    #[error("{}registry {registry} ({location}) has not been fetched yet, and --offline forbids the network", lacked(name, earlier))]
    FallbackNotFetched {
        name: String,
        earlier: Vec<String>,
        registry: String,
        location: String,
    },
    /// The public fallback was needed and could not be opened.
    #[error(
        "{}registry {registry} ({location}) could not be reached: {cause}",
        lacked(name, earlier)
    )]
    FallbackUnreachable {
        name: String,
        earlier: Vec<String>,
        registry: String,
        location: String,
        cause: Arc<IndexError>,
    },
    /// A registry before others cannot be read: a later one must not answer
    /// for a name it may hold.
    #[error("registry {registry} cannot be read, and it may hold '{name}', so the registries after it are not asked for that name ({cause})")]
    Unreadable {
        registry: String,
        name: String,
        cause: Arc<IndexError>,
    },
    #[error(transparent)]
    Index(#[from] IndexError),
}

impl RegistriesError {
    pub fn hint(&self) -> Option<String> {
        match self {
            RegistriesError::UnknownName { near, .. } => Some(format!("did you mean '{near}'?")),
            RegistriesError::ProjectConfig { .. } => Some("see docs/registries.md".into()),
            RegistriesError::Open(e) => e.hint(),
            RegistriesError::FallbackNotFetched { .. } => Some(
                "run the command once without --offline; after that, --offline uses the cached copy".into(),
            ),
            RegistriesError::FallbackUnreachable { cause, .. } => match cause.as_ref() {
                IndexError::NoAnswer { hint, .. } => Some(hint.clone()),
                _ => Some(
                    "check your connection; --offline uses the cached copy of the registry once it has been fetched".into(),
                ),
            },
            RegistriesError::Unreadable { .. } => Some(
                "fix the registry or the connection and run the command again; `--registry NAME` names the registry to use, --offline uses the cached registries only".into(),
            ),
            RegistriesError::Index(e) => e.hint(),
        }
    }

    /// The command line asked for something impossible (exit 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, RegistriesError::UnknownName { .. })
    }
}

/// "no tool 'x' in registry a, b, and " when earlier registries lacked it.
fn lacked(name: &str, earlier: &[String]) -> String {
    if earlier.is_empty() {
        String::new()
    } else {
        format!("no tool '{name}' in registry {}, and ", earlier.join(", "))
    }
}

/// What the list of a run is made of, resolved by the caller.
pub struct Settings {
    /// Where unnamed relative locations (`--registry ./dir`) start.
    pub cwd: PathBuf,
    /// The project's registries, then the user's (see [`configured`]).
    pub configured: Vec<NamedRegistry>,
    /// `ORLA_REGISTRY`; `None` is `builtin`.
    pub default: Option<String>,
    /// The public registry's location; `None` when it is dropped.
    pub public: Option<String>,
    /// How git registries are fetched (and whether the run is offline).
    pub access: GitAccess,
}

/// One registry of the list, opened on first use.
pub struct Slot {
    /// The configured name, if it has one.
    pub name: Option<String>,
    pub location: String,
    /// The public registry: consulted only for tools no earlier one has.
    pub fallback: bool,
    base: PathBuf,
    opened: OnceCell<Result<Registry, Arc<IndexError>>>,
}

pub struct Registries<'a> {
    reporter: &'a dyn Reporter,
    access: GitAccess,
    pub slots: Vec<Slot>,
}

/// A tool found in a registry.
pub struct Found<'r> {
    pub registry: &'r Registry,
    pub lookup: Lookup,
}

impl<'a> Registries<'a> {
    /// The registries `choice` (a `--registry` value) selects, or every
    /// configured one.
    pub fn new(
        settings: Settings,
        reporter: &'a dyn Reporter,
        choice: Option<&str>,
    ) -> Result<Registries<'a>, RegistriesError> {
        let Settings {
            cwd,
            configured,
            default,
            public: public_registry,
            access,
        } = settings;
        let slot = |r: NamedRegistry| Slot {
            name: Some(r.name),
            location: r.location,
            fallback: false,
            base: r.base,
            opened: OnceCell::new(),
        };
        let unnamed = |location: &str| Slot {
            name: None,
            location: location.to_string(),
            fallback: false,
            base: cwd.clone(),
            opened: OnceCell::new(),
        };
        let public = |location: &str| Slot {
            name: Some(PUBLIC_REGISTRY_NAME.to_string()),
            location: location.to_string(),
            fallback: true,
            base: cwd.clone(),
            opened: OnceCell::new(),
        };
        let slots = match choice {
            Some(choice) => {
                // A misspelt configured name would otherwise be read as a
                // path: "registry location 'compny' does not exist".
                let looks_like_name = !choice.contains(['/', ':'])
                    && choice != "builtin"
                    && !cwd.join(choice).exists();
                let near = configured
                    .iter()
                    .map(|r| r.name.clone())
                    .find(|n| strsim::damerau_levenshtein(n, choice) <= 2);
                let public_location = public_registry
                    .as_deref()
                    .filter(|_| choice == PUBLIC_REGISTRY_NAME);
                match configured.into_iter().find(|r| r.name == choice) {
                    Some(r) => vec![slot(r)],
                    // `--registry orla`, and `update` of a tool installed from it.
                    None if public_location.is_some() => {
                        let mut s = public(public_location.unwrap_or_default());
                        s.fallback = false;
                        vec![s]
                    }
                    None => match near.filter(|_| looks_like_name) {
                        Some(near) => {
                            return Err(RegistriesError::UnknownName {
                                choice: choice.to_string(),
                                near,
                            })
                        }
                        None => vec![unnamed(choice)],
                    },
                }
            }
            None => {
                let default = default.as_deref().unwrap_or("builtin");
                let has_default = configured.iter().any(|r| r.location == default);
                let public_location = public_registry.as_deref().filter(|p| {
                    *p != default
                        && !configured
                            .iter()
                            .any(|r| r.location == *p || r.name == PUBLIC_REGISTRY_NAME)
                });
                let mut slots: Vec<Slot> = configured.into_iter().map(slot).collect();
                if !has_default {
                    slots.push(unnamed(default));
                }
                if let Some(location) = public_location {
                    slots.push(public(location));
                }
                slots
            }
        };
        Ok(Registries {
            reporter,
            access,
            slots,
        })
    }

    /// Opens the registry of a slot (fetching a stale git clone).
    pub fn open<'s>(&self, slot: &'s Slot) -> Result<&'s Registry, RegistriesError> {
        self.open_ahead(slot, &[])
    }

    /// [`Registries::open`]; when this opens the slot, the tools `ahead`
    /// are read ahead with the registry's own files (`Registry::open_ahead`).
    fn open_ahead<'s>(
        &self,
        slot: &'s Slot,
        ahead: &[&str],
    ) -> Result<&'s Registry, RegistriesError> {
        let result = slot
            .opened
            .get_or_init(|| self.open_slot(slot, ahead).map_err(Arc::new));
        if let Ok(registry) = result {
            registry.flush_warnings(self.reporter);
        }
        result
            .as_ref()
            .map_err(|e| RegistriesError::Open(Arc::clone(e)))
    }

    fn open_slot(&self, slot: &Slot, ahead: &[&str]) -> Result<Registry, IndexError> {
        let location = RegistryLocation::parse(&slot.location, &slot.base)?;
        Registry::open_ahead(
            &location,
            slot.name.as_deref(),
            Some(&self.access),
            self.reporter,
            ahead,
        )
    }

    /// Prints what the opened registries have to warn about so far.
    pub fn flush_warnings(&self) {
        for slot in &self.slots {
            if let Some(Ok(registry)) = slot.opened.get() {
                registry.flush_warnings(self.reporter);
            }
        }
    }

    /// The registry of a slot if it has been opened already.
    pub fn opened<'s>(&self, slot: &'s Slot) -> Option<&'s Registry> {
        slot.opened.get().and_then(|r| r.as_ref().ok())
    }

    /// Says that `slot` is left out because of `problem`.
    fn skipped(&self, slot: &Slot, problem: &RegistriesError) {
        self.reporter
            .report(Event::Warning(Warning::RegistrySkipped {
                registry: slot.shown(),
                problem: problem.to_string(),
                fallback: slot.fallback,
            }));
    }

    /// Every registry that opens; one that does not is reported and skipped
    /// (the public fallback silently when working offline).
    pub fn open_all(&self) -> Result<Vec<&Registry>, RegistriesError> {
        let mut out = Vec::new();
        let mut first_error = None;
        for slot in &self.slots {
            match self.open(slot) {
                Ok(r) => out.push(r),
                Err(_) if slot.fallback && self.access.offline => {}
                Err(e) if slot.fallback => self.skipped(slot, &e),
                Err(e) if self.slots.len() > 1 => {
                    self.skipped(slot, &e);
                    first_error.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        match (out.is_empty(), first_error) {
            (true, Some(e)) => Err(e),
            _ => Ok(out),
        }
    }

    /// Reads ahead what [`Registries::find`] will read for each of `names`:
    /// in parallel for a sparse index. The first registry is asked for
    /// every name; each later one, up to the public fallback, for the names
    /// that no registry before it has, as `find` would ask it, so a sparse
    /// index second in the list is asked for its tools at once too. A
    /// registry is opened here only when `find` would open it. Errors,
    /// opening a registry included, are left for `find` to report in the
    /// order the names are looked up.
    pub fn prefetch(&self, names: &[&str]) {
        let mut wanted: Vec<&str> = names
            .iter()
            .copied()
            .filter(|name| names::validate_name(name).is_ok())
            .collect();
        for (i, slot) in self.slots.iter().enumerate() {
            if wanted.is_empty() || slot.fallback {
                return;
            }
            // A sparse index opened here fetches the files with its
            // config.json, even for one name: one round trip, not two.
            let Ok(registry) = self.open_ahead(slot, &wanted) else {
                return;
            };
            // Nothing for one name or for files fetched with the opening.
            registry.prefetch(&wanted);
            // Only worth knowing when a sparse index comes later.
            let sparse_later = self.slots[i + 1..]
                .iter()
                .any(|s| !s.fallback && s.location.starts_with("sparse+"));
            if !sparse_later {
                return;
            }
            wanted = lacking(registry, &wanted);
        }
    }

    /// The first registry, in order, that knows `name`.
    pub fn find(&self, name: &str) -> Result<Found<'_>, RegistriesError> {
        let mut first_error: Option<RegistriesError> = None;
        let mut suggestion = None;
        for (i, slot) in self.slots.iter().enumerate() {
            let registry = match self.open(slot) {
                Ok(r) => r,
                Err(e) => match self.refusal(i, slot, name, e, &mut first_error, &suggestion) {
                    Some(e) => return Err(e),
                    None => continue,
                },
            };
            let lookup = registry.lookup_watched(name, self.access.http.timeout, self.reporter);
            registry.flush_warnings(self.reporter);
            if let Some(lookup) = lookup? {
                return Ok(Found { registry, lookup });
            }
            if suggestion.is_none() {
                suggestion = registry.suggest(name);
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        let registry = match self.slots.as_slice() {
            [only] => only.shown(),
            [init @ .., last] => format!(
                "{} or {}",
                init.iter().map(Slot::shown).collect::<Vec<_>>().join(", "),
                last.shown()
            ),
            [] => "(none configured)".to_string(),
        };
        Err(IndexError::UnknownTool {
            name: name.to_string(),
            registry,
            suggestion,
        }
        .into())
    }

    /// What `find` does when the registry of slot `i` cannot be opened:
    /// the error to stop with, or `None` to go on with the next one.
    fn refusal(
        &self,
        i: usize,
        slot: &Slot,
        name: &str,
        e: RegistriesError,
        first_error: &mut Option<RegistriesError>,
        suggestion: &Option<String>,
    ) -> Option<RegistriesError> {
        let cause = match &e {
            RegistriesError::Open(cause) => Arc::clone(cause),
            _ => return Some(e),
        };
        // The public registry answers only for a tool the others
        // lack: its failure is the answer when they all lacked it.
        if slot.fallback {
            // A typo of a tool an earlier registry has is better
            // answered with "did you mean".
            if first_error.is_some() || suggestion.is_some() {
                return None;
            }
            let earlier: Vec<String> = self.slots[..i].iter().map(Slot::shown).collect();
            let (name, registry, location) =
                (name.to_string(), slot.shown(), slot.location.clone());
            return Some(if self.access.offline {
                RegistriesError::FallbackNotFetched {
                    name,
                    earlier,
                    registry,
                    location,
                }
            } else {
                RegistriesError::FallbackUnreachable {
                    name,
                    earlier,
                    registry,
                    location,
                    cause,
                }
            });
        }
        // Offline, the registries not cached are left out: the
        // user chose to work with what is on this machine.
        if self.slots.len() > 1 && self.access.offline {
            self.skipped(slot, &e);
            first_error.get_or_insert(e);
            return None;
        }
        // A registry that cannot be read may hold the tool: taking
        // the name from a later one instead is how dependency
        // confusion happens (a public tool named like a private one).
        if i + 1 < self.slots.len() {
            return Some(RegistriesError::Unreadable {
                registry: slot.shown(),
                name: name.to_string(),
                cause,
            });
        }
        Some(e)
    }
}

/// The names of `names` that `registry` has no tool for, as its lookup
/// would say; a name whose lookup fails is not among them (`find` stops
/// there). A sparse index answers from what `prefetch` fetched, without
/// taking it, and from its registry.yaml (git-source tools) when a tool
/// has no file.
fn lacking<'n>(registry: &Registry, names: &[&'n str]) -> Vec<&'n str> {
    let Backend::Sparse(index) = &registry.backend else {
        return names
            .iter()
            .copied()
            .filter(|name| matches!(registry.lookup(name), Ok(None)))
            .collect();
    };
    let unfound: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| index.prefetched(&shard_path(name)) == Some(false))
        .collect();
    if unfound.is_empty() {
        return unfound;
    }
    let Ok(sources) = registry.git_sources() else {
        return Vec::new();
    };
    unfound
        .into_iter()
        .filter(|name| {
            !sources
                .iter()
                .any(|t| t.entry.name == *name && t.entry.repository.is_some())
        })
        .collect()
}

impl Drop for Registries<'_> {
    fn drop(&mut self) {
        self.flush_warnings();
    }
}

impl Slot {
    /// How the registry is called in messages.
    pub fn shown(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.location.clone())
    }
}

/// A project's `registries:` as its orla.yaml holds them.
pub struct ProjectRegistries<'a> {
    /// The project's directory: relative locations start there.
    pub dir: &'a Path,
    /// orla.yaml, named in errors.
    pub file: PathBuf,
    pub value: &'a serde_yaml::Value,
}

/// The project's registries, then the user's, in file order.
pub fn configured(
    project: Option<ProjectRegistries<'_>>,
    user: &[NamedRegistry],
) -> Result<Vec<NamedRegistry>, RegistriesError> {
    let mut out: Vec<NamedRegistry> = Vec::new();
    if let Some(project) = project {
        let listed = parse_registries(project.value, project.dir).map_err(|message| {
            RegistriesError::ProjectConfig {
                file: project.file,
                message: message.to_string(),
            }
        })?;
        out.extend(listed);
    }
    for r in user {
        // A project's registry of the same name wins over the user's.
        if !out.iter().any(|o| o.name == r.name) {
            out.push(r.clone());
        }
    }
    Ok(out)
}
