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
use std::path::PathBuf;

use crate::config::{parse_registries, NamedRegistry, PUBLIC_REGISTRY_NAME};
use crate::context::Context;
use crate::error::Error;
use crate::index::{IndexError, Lookup, Registry, RegistryLocation};

/// One registry of the list, opened on first use.
pub struct Slot {
    /// The configured name, if it has one.
    pub name: Option<String>,
    pub location: String,
    /// The public registry: consulted only for tools no earlier one has.
    pub fallback: bool,
    base: PathBuf,
    opened: OnceCell<Result<Registry, String>>,
}

pub struct Registries<'a> {
    ctx: &'a Context,
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
    pub fn new(ctx: &'a Context, choice: Option<&str>) -> Result<Registries<'a>, Error> {
        let configured = configured(ctx)?;
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
            base: ctx.cwd.clone(),
            opened: OnceCell::new(),
        };
        let public = |location: &str| Slot {
            name: Some(PUBLIC_REGISTRY_NAME.to_string()),
            location: location.to_string(),
            fallback: true,
            base: ctx.cwd.clone(),
            opened: OnceCell::new(),
        };
        let slots = match choice {
            Some(choice) => {
                // A misspelt configured name would otherwise be read as a
                // path: "registry location 'compny' does not exist".
                let looks_like_name = !choice.contains(['/', ':'])
                    && choice != "builtin"
                    && !ctx.cwd.join(choice).exists();
                let near = configured
                    .iter()
                    .map(|r| r.name.clone())
                    .find(|n| strsim::damerau_levenshtein(n, choice) <= 2);
                let public_location = ctx
                    .public_registry
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
                            return Err(Error::usage(
                                format!("no registry named '{choice}' is configured, and there is no directory '{choice}'"),
                                Some(format!("did you mean '{near}'?")),
                            ))
                        }
                        None => vec![unnamed(choice)],
                    },
                }
            }
            None => {
                let default = ctx.default_registry.as_deref().unwrap_or("builtin");
                let has_default = configured.iter().any(|r| r.location == default);
                let public_location = ctx.public_registry.as_deref().filter(|p| {
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
        Ok(Registries { ctx, slots })
    }

    /// Opens the registry of a slot (fetching a stale git clone).
    pub fn open<'s>(&self, slot: &'s Slot) -> Result<&'s Registry, Error> {
        let result = slot.opened.get_or_init(|| {
            open_slot(self.ctx, slot).map_err(|e| {
                let hint = e.hint();
                match hint {
                    Some(h) => format!("{e}\nhint: {h}"),
                    None => e.to_string(),
                }
            })
        });
        if let Ok(registry) = result {
            registry.flush_warnings(self.ctx.reporter.as_ref());
        }
        result.as_ref().map_err(|text| {
            let (message, hint) = match text.split_once("\nhint: ") {
                Some((m, h)) => (m.to_string(), Some(h.to_string())),
                None => (text.clone(), None),
            };
            Error::other(message, hint)
        })
    }

    /// Prints what the opened registries have to warn about so far.
    pub fn flush_warnings(&self) {
        for slot in &self.slots {
            if let Some(Ok(registry)) = slot.opened.get() {
                registry.flush_warnings(self.ctx.reporter.as_ref());
            }
        }
    }

    /// The registry of a slot if it has been opened already.
    pub fn opened<'s>(&self, slot: &'s Slot) -> Option<&'s Registry> {
        slot.opened.get().and_then(|r| r.as_ref().ok())
    }

    /// Every registry that opens; one that does not is reported and skipped
    /// (the public fallback silently when working offline).
    pub fn open_all(&self) -> Result<Vec<&Registry>, Error> {
        let mut out = Vec::new();
        let mut first_error = None;
        for slot in &self.slots {
            match self.open(slot) {
                Ok(r) => out.push(r),
                Err(_) if slot.fallback && self.ctx.offline => {}
                Err(e) if slot.fallback => {
                    self.ctx.reporter.warn(&format!(
                        "skipping registry {}: it could not be reached ({e}); --offline uses the cached copy once it has been fetched",
                        slot.shown()
                    ));
                }
                Err(e) if self.slots.len() > 1 => {
                    self.ctx
                        .reporter
                        .warn(&format!("skipping registry {}: {e}", slot.shown()));
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

    /// The first registry, in order, that knows `name`.
    pub fn find(&self, name: &str) -> Result<Found<'_>, Error> {
        let mut first_error: Option<Error> = None;
        let mut suggestion = None;
        for (i, slot) in self.slots.iter().enumerate() {
            let registry = match self.open(slot) {
                Ok(r) => r,
                // The public registry answers only for a tool the others
                // lack: its failure is the answer when they all lacked it.
                Err(e) if slot.fallback => {
                    // A typo of a tool an earlier registry has is better
                    // answered with "did you mean".
                    if first_error.is_some() || suggestion.is_some() {
                        continue;
                    }
                    let earlier: Vec<String> = self.slots[..i].iter().map(Slot::shown).collect();
                    let lacked = if earlier.is_empty() {
                        String::new()
                    } else {
                        format!("no tool '{name}' in registry {}, and ", earlier.join(", "))
                    };
                    let (message, hint) = if self.ctx.offline {
                        (
                            format!("{lacked}registry {} ({}) has not been fetched yet, and --offline forbids the network", slot.shown(), slot.location),
                            "run the command once without --offline; after that, --offline uses the cached copy".to_string(),
                        )
                    } else {
                        (
                            format!("{lacked}registry {} ({}) could not be reached: {e}", slot.shown(), slot.location),
                            "check your connection; --offline uses the cached copy of the registry once it has been fetched".to_string(),
                        )
                    };
                    return Err(Error::other(message, Some(hint)));
                }
                // Offline, the registries not cached are left out: the
                // user chose to work with what is on this machine.
                Err(e) if self.slots.len() > 1 && self.ctx.offline => {
                    self.ctx
                        .reporter
                        .warn(&format!("skipping registry {}: {e}", slot.shown()));
                    first_error.get_or_insert(e);
                    continue;
                }
                // A registry that cannot be read may hold the tool: taking
                // the name from a later one instead is how dependency
                // confusion happens (a public tool named like a private one).
                Err(e) if i + 1 < self.slots.len() => {
                    return Err(Error::other(
                        format!(
                            "registry {} cannot be read, and it may hold '{name}', so the registries after it are not asked for that name ({e})",
                            slot.shown()
                        ),
                        Some(
                            "fix the registry or the connection and run the command again; `--registry NAME` names the registry to use, --offline uses the cached registries only"
                                .to_string(),
                        ),
                    ));
                }
                Err(e) => return Err(e),
            };
            let lookup = registry.lookup(name);
            registry.flush_warnings(self.ctx.reporter.as_ref());
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

fn open_slot(ctx: &Context, slot: &Slot) -> Result<Registry, IndexError> {
    let location = RegistryLocation::parse(&slot.location, &slot.base)?;
    let access = ctx.git_access();
    Registry::open_with(
        &location,
        slot.name.as_deref(),
        Some(&access),
        ctx.reporter.as_ref(),
    )
}

/// The project's registries, then the user's, in file order.
pub fn configured(ctx: &Context) -> Result<Vec<NamedRegistry>, Error> {
    let mut out: Vec<NamedRegistry> = Vec::new();
    if let Some(project) = ctx.project()? {
        let listed = parse_registries(&project.config.registries, &project.dir).map_err(|m| {
            Error::other(
                format!(
                    "{} is not valid: {m}",
                    project.dir.join(crate::project::CONFIG_FILE).display()
                ),
                Some("see docs/registries.md".into()),
            )
        })?;
        out.extend(listed);
    }
    for r in &ctx.config.registries {
        // A project's registry of the same name wins over the user's.
        if !out.iter().any(|o| o.name == r.name) {
            out.push(r.clone());
        }
    }
    Ok(out)
}
