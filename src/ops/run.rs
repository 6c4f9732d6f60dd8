//! Running a registry tool once without installing it into a root
//! (`orla run NAME[@REQ] -- ARGS`), as `uvx` and `npx` do.
//!
//! The version is resolved as `orla install` would, its permissions shown
//! and confirmed the same way, and the archive fetched, verified and
//! unpacked through the same pipeline, into `<cache>/run/NAME-VERSION-DIGEST/`
//! with a receipt bound to the copy's directory under the user's receipt
//! key, as an installed package's is. A later run of the same version
//! checks that binding and re-hashes the files against the receipt before
//! using them (a changed copy, or one whose receipt this user's orla did
//! not write, is fetched again), so nothing unverified runs.
//!
//! The tool then runs as `orla serve` would run a call of it: its entry is
//! made by the manifest's own code, as the current root's manifest would
//! list it, and the runtime crate reads its arguments, checks them against
//! the input schema, and sets up its environment and confinement
//! (`orla_runtime::launch`); see [`start`]. It replaces orla, in the
//! current directory, with the terminal, stdin, stdout, stderr and the exit
//! status its own. Nothing in the install root or its manifest changes.

use std::path::{Path, PathBuf};

use super::install::apply::check_identity;
use super::install::consent::confirm_run;
use super::install::plan::{plan_spec, Fetch, Plan};
use crate::context::Context;
use crate::error::run::RunError;
use crate::error::Error;
use crate::fetch::Fetcher;
use crate::manifest::{Inputs, Manifest};
use crate::package::Package;
use crate::progress::{Event, Warning};
use crate::resolve::Spec;
use crate::root::receipt::Receipt;
use crate::root::Installed;

/// A tool ready to run: its entry as the runtime reads it, and the
/// settings it runs under.
pub struct Ready {
    pub name: String,
    pub version: semver::Version,
    /// The copy was in the cache already: a later run of the same version
    /// says nothing of itself, as `uvx` does.
    pub cached: bool,
    pub tool: orla_runtime::manifest::Tool,
    pub settings: orla_runtime::manifest::Settings,
    /// tool.yaml declares an input schema (`mcp.input_schema`).
    pub schema_declared: bool,
    /// Where private temporary directories are made (see [`tmp`]).
    pub tmp_dir: PathBuf,
}

/// Resolves `spec` in `registry` (a `--registry` value) or the configured
/// registries, asks for consent as `install` does (`yes` gives it), and
/// makes a verified copy ready in the cache.
pub fn prepare(
    ctx: &Context,
    spec: &Spec,
    registry: Option<&str>,
    yes: bool,
) -> Result<Ready, Error> {
    let registries = ctx.registries(registry)?;
    let plan = plan_spec(ctx, &registries, spec)?;
    drop(registries);
    let (name, version) = plan
        .target
        .clone()
        .expect("registry plans know their target");
    let dir = ctx.cache_dir.join("run").join(format!(
        "{name}-{version}-{}",
        &plan.source.blake3().to_hex()[..16]
    ));
    // Run before: its permissions were shown then, and are shown again only
    // to ask for consent (a damaged copy is fetched again, visibly). As
    // `orla serve` asks before each call of a critical tool, or of one
    // whose settings say `approval: required`, each run of it asks (medium
    // risk and up asks anyway, as an install does).
    let cached = dir.exists();
    let inputs = inputs(ctx)?;
    if let Some(perms) = &plan.declared {
        let parsed: Vec<crate::package::Permission> = perms
            .iter()
            .map(|p| crate::package::Permission::parse(p))
            .collect();
        let required = inputs.run.tools.get(&name).and_then(|t| t.approval)
            == Some(crate::config::Approval::Required);
        let asks = !yes && crate::package::RiskLevel::derive(&parsed).needs_confirmation();
        if !cached || asks || required {
            confirm_run(ctx, &plan.label, perms, yes, required)?;
        }
    }
    // Held while the copy is checked or fetched, so `orla cache clear` and
    // `prune` wait; the tool itself runs after it is let go.
    let cache = ctx.cache();
    let _lock = cache
        .lock(crate::lock::LockKind::Shared, ctx.reporter.as_ref())
        .map_err(|source| crate::fetch::CacheError::Lock {
            dir: ctx.cache_dir.clone(),
            source,
        })?;
    let key_path = ctx.global_root().state_dir;
    let key = ctx
        .global_root()
        .receipt_key_or_create()
        .map_err(|source| RunError::Cache {
            what: "create the receipt key in",
            path: key_path,
            source,
        })?;
    let receipt = match verified(&dir, &key) {
        Some(receipt) => receipt,
        None => fetch(ctx, &plan, &dir, &key)?,
    };
    let package = Package::load(&dir)?;
    // A missing interpreter would only show as the tool failing to start.
    let checks = super::install::requirements::check(&dir, &package.tool, &ctx.search_path);
    for problem in super::install::requirements::problems(&checks) {
        ctx.reporter.report(Event::Warning(Warning::RunRequirement {
            name: name.clone(),
            version: version.clone(),
            problem,
        }));
    }
    let schema_declared = package
        .tool
        .mcp
        .as_ref()
        .is_some_and(|m| m.input_schema.is_some());
    let installed = Installed {
        dir,
        receipt,
        tool: package.tool,
    };
    let (tool, settings) = served(ctx, &installed, &inputs)?;
    Ok(Ready {
        name,
        version,
        cached,
        tool,
        settings,
        schema_declared,
        tmp_dir: ctx.cache_dir.join(TMP_DIR),
    })
}

/// What decides how a tool runs here: config.yaml's `runtime:`, and in a
/// project orla.yaml's settings and `runtime:` over it.
fn inputs(ctx: &Context) -> Result<Inputs, Error> {
    let mut inputs = Inputs {
        run: ctx.config.runtime.clone(),
        ..Inputs::default()
    };
    if let Some(project) = ctx.project()? {
        inputs.add_project(&project);
    }
    Ok(inputs)
}

/// A tool's entry and settings as the runtime reads them.
type Served = (
    orla_runtime::manifest::Tool,
    orla_runtime::manifest::Settings,
);

/// The entry and settings the runtime would serve the package with in the
/// current root (the project's, else the global one): made by the
/// manifest's own code from config.yaml's and orla.yaml's `runtime:`, and
/// read back by the runtime crate as `orla serve` reads a manifest. orla's
/// cache, which holds the copy, is protected as orla's state is.
fn served(ctx: &Context, installed: &Installed, inputs: &Inputs) -> Result<Served, Error> {
    let root = ctx.root()?;
    let entry = crate::manifest::package_entry(installed, &root);
    let manifest = Manifest::generate_with(&root, &[entry], inputs, &crate::progress::Silent);
    let mut served = orla_runtime::manifest::Manifest::parse(manifest.to_json().as_bytes())
        .expect("the runtime reads the manifest orla writes");
    served
        .settings
        .protect
        .push(ctx.cache_dir.display().to_string());
    let tool = served.tools.pop().expect("the manifest serves its package");
    Ok((tool, served.settings))
}

/// A cached copy is used only when its receipt is bound to it under this
/// user's key and its files still match that receipt.
fn verified(dir: &Path, key: &[u8; 32]) -> Option<Receipt> {
    let receipt = Receipt::read(dir).ok()?;
    let good = crate::root::binding::is_bound(&receipt, key, dir)
        && crate::ops::verify::verify_package(dir, &receipt.files).is_ok_and(|d| d.is_empty());
    good.then_some(receipt)
}

/// Fetches, verifies and unpacks the plan into `dir` (replacing whatever
/// is there), checking the package is the one the registry described;
/// returns its receipt.
fn fetch(ctx: &Context, plan: &Plan, dir: &Path, key: &[u8; 32]) -> Result<Receipt, Error> {
    let parent = dir.parent().expect("run dirs have a parent");
    let io = |what: &'static str, path: &Path, source: std::io::Error| RunError::Cache {
        what,
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".stage-")
        .tempdir_in(parent)
        .map_err(|e| io("create a directory in", parent, e))?;
    let reporter = ctx.reporter.as_ref();
    let unpacked = match &plan.fetch {
        Fetch::Archive(job) => {
            let fetcher =
                Fetcher::new(ctx.cache(), ctx.offline).with_http_limits(ctx.http_limits());
            let unpacked = fetcher.fetch_unpack(job, staging.path(), reporter)?;
            fetcher.keep_downloads();
            unpacked
        }
        Fetch::Git { repo, tag } => {
            reporter.report(crate::progress::Event::CheckingOut {
                repository: repo.url.clone(),
                tag: tag.clone(),
            });
            repo.checkout(tag, staging.path())
                .map_err(|source| {
                    Error::from(crate::error::InstallError::Checkout {
                        label: plan.label.clone(),
                        tag: tag.clone(),
                        url: repo.url.clone(),
                        source,
                    })
                })?
                .unpacked
        }
    };
    let package = Package::load(&unpacked.root)?;
    check_identity(plan, &package)?;
    let mut receipt = Receipt::new(
        package.name.clone(),
        package.version.clone(),
        plan.source.clone(),
        unpacked.files,
    );
    crate::root::binding::bind(&mut receipt, key, dir);
    receipt
        .write(&unpacked.root)
        .map_err(|e| io("write a receipt in", &unpacked.root, e))?;
    // Another run may have put the same copy there meanwhile; a damaged
    // one is replaced.
    if dir.exists() {
        if let Some(theirs) = verified(dir, key) {
            return Ok(theirs);
        }
        std::fs::remove_dir_all(dir).map_err(|e| io("remove", dir, e))?;
    }
    let root: PathBuf = unpacked.root;
    match std::fs::rename(&root, dir) {
        Ok(()) => Ok(receipt),
        Err(e) => verified(dir, key).ok_or_else(|| io("move into place", dir, e).into()),
    }
}

/// The directory of the cache that holds `orla run`'s private temporary
/// directories (see [`tmp`]).
const TMP_DIR: &str = "run-tmp";

/// The most bytes of arguments a `json` tool is given on stdin.
const MAX_INPUT: u64 = 64 * 1024 * 1024;

/// What `orla run` does with a tool made ready.
pub enum Start {
    /// `--help` to a tool with an input schema: its arguments described,
    /// nothing run.
    Help(Help),
    /// The process that replaces orla.
    Exec(Exec),
}

/// The tool's process: confined, if it is, as soon as it is executed.
pub struct Exec {
    pub command: std::process::Command,
    pub program: String,
    /// Held (and inherited by the tool) while it runs.
    _tmp: Option<tmp::Private>,
}

/// Reads ARGS (and, for a `json` tool, stdin) as the call `orla serve`
/// would get, checks it against the input schema, and sets the tool's
/// process up as the runtime sets up a call's: the same argv, the clean
/// environment, the confinement of its permissions. A tool that runs
/// unconfined is said to.
pub fn start(ctx: &Context, ready: Ready, args: &[String]) -> Result<Start, Error> {
    use orla_runtime::launch;
    if let Some(help) = help(&ready, args) {
        return Ok(Start::Help(help));
    }
    let tool = &ready.tool;
    let (mut argv, stdin) = call(ctx, &ready, args)?;
    let server = |name: &str| ctx.passed_variable(name);
    let launched = launch::prepare(tool, &ready.settings, server, || tmp::make(&ready.tmp_dir))
        .map_err(RunError::from)?;
    let reason = match &launched.degraded {
        Some(e) => Some(format!("{e} (isolation: best-effort)")),
        None => launch::unconfined(tool).map(str::to_string),
    };
    if let Some(reason) = reason {
        ctx.reporter.report(Event::Warning(Warning::RunUnconfined {
            name: ready.name.clone(),
            version: ready.version.clone(),
            reason,
        }));
    }
    launch::resolve_program(&launched.spawn, &mut argv);
    let program = argv.first().cloned().unwrap_or_default();
    let mut command = launch::command(&argv, launched.spawn);
    if let Some(bytes) = stdin {
        command.stdin(input_file(&bytes).map_err(|source| RunError::ReadInput {
            tool: tool.name.clone(),
            source,
        })?);
    }
    Ok(Start::Exec(Exec {
        command,
        program,
        _tmp: launched.tmp,
    }))
}

/// The argv of the call ARGS make, and what the tool reads on stdin
/// instead of orla's (None: orla's stdin, the terminal).
fn call(
    ctx: &Context,
    ready: &Ready,
    args: &[String],
) -> Result<(Vec<String>, Option<Vec<u8>>), Error> {
    use orla_runtime::invoke;
    use orla_runtime::manifest::Arguments;
    let tool = &ready.tool;
    let arguments = match tool.arguments {
        // Nothing declared to read ARGS by: they pass as they are.
        Arguments::Flags if !ready.schema_declared => {
            let argv = tool.command.iter().chain(&tool.args).chain(args);
            return Ok((argv.cloned().collect(), None));
        }
        Arguments::Flags => invoke::arguments(tool, args).map_err(RunError::from)?,
        Arguments::Json if !args.is_empty() => {
            return Err(RunError::ArgsToJsonTool {
                tool: tool.name.clone(),
            }
            .into())
        }
        Arguments::Json => read_input(ctx, &tool.name)?,
    };
    tool.check_input(&serde_json::Value::Object(arguments.clone()))
        .map_err(|v| RunError::Invalid {
            tool: tool.name.clone(),
            violations: v.describe("argument"),
        })?;
    let call = invoke::invocation(tool, &arguments).expect("only option names are read back");
    let stdin = match tool.arguments {
        Arguments::Flags if call.stdin.is_empty() => None,
        _ => Some(call.stdin),
    };
    Ok((call.argv, stdin))
}

/// The arguments object of a `json` tool: stdin, read whole (nothing, or
/// only white space, is `{}`); from a terminal, saying so first.
fn read_input(
    ctx: &Context,
    tool: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, Error> {
    use std::io::{IsTerminal, Read};
    if std::io::stdin().is_terminal() {
        ctx.reporter.report(Event::ReadingArguments {
            name: tool.to_string(),
        });
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| RunError::ReadInput {
            tool: tool.to_string(),
            source,
        })?;
    let not = |problem: String| RunError::NotAnObject {
        tool: tool.to_string(),
        problem,
    };
    if bytes.len() as u64 > MAX_INPUT {
        return Err(not(format!("it is larger than {} MiB", MAX_INPUT >> 20)).into());
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Map::new());
    }
    match serde_json::from_slice(&bytes) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(other) => Err(not(format!("it is {}", crate::package::json_kind(&other))).into()),
        Err(e) => Err(not(e.to_string()).into()),
    }
}

/// `bytes` in an unlinked temporary file, read from its start: the tool's
/// stdin.
fn input_file(bytes: &[u8]) -> std::io::Result<std::fs::File> {
    use std::io::{Seek, Write};
    let mut file = tempfile::tempfile()?;
    file.write_all(bytes)?;
    file.rewind()?;
    Ok(file)
}

/// A tool's arguments as its input schema declares them (`--help`).
pub struct Help {
    /// `NAME VERSION: description`.
    pub title: String,
    pub usage: String,
    /// `OPTION` (flags) or `PROPERTY` (json).
    pub column: &'static str,
    /// The option or property with its type, and its description
    /// (`(required)` first when it is).
    pub rows: Vec<[String; 2]>,
}

/// `--help` (or `-h`) to a tool whose input schema orla reads the call
/// by: the arguments that schema declares, instead of running the tool
/// (whose own help may list options `orla run` does not pass). A tool
/// without a schema gets ARGS as they are, `--help` included.
fn help(ready: &Ready, args: &[String]) -> Option<Help> {
    use orla_runtime::manifest::Arguments;
    use serde_json::Value;
    let tool = &ready.tool;
    let flags = orla_runtime::invoke::flags(tool);
    let asked = args.iter().any(|a| a == "--help" || a == "-h");
    let own = flags.iter().any(|f| f.flag == "--help");
    let json = tool.arguments == Arguments::Json;
    if !asked || own || !(json || ready.schema_declared) {
        return None;
    }
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let text = |property: &str, description: Option<&str>| {
        let required = required.contains(&property).then_some("(required)");
        let words: Vec<&str> = required.into_iter().chain(description).collect();
        words.join(" ")
    };
    let mut title = format!("{} {}", tool.name, tool.version);
    if !tool.description.is_empty() {
        title.push_str(&format!(": {}", tool.description));
    }
    Some(if json {
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object);
        let rows = properties
            .into_iter()
            .flatten()
            .map(|(name, schema)| {
                let head = match schema.get("type") {
                    Some(Value::String(kind)) => format!("{name} <{kind}>"),
                    Some(kinds) => format!("{name} <{kinds}>"),
                    None => name.clone(),
                };
                let description = schema.get("description").and_then(Value::as_str);
                [head, text(name, description)]
            })
            .collect();
        Help {
            title,
            usage: format!(
                "Usage: orla run {} < ARGUMENTS.json (one JSON object, with these properties)",
                tool.name
            ),
            column: "PROPERTY",
            rows,
        }
    } else {
        let rows = flags
            .iter()
            .map(|flag| {
                let head = match flag.kind.as_deref() {
                    Some("boolean") => flag.flag.clone(),
                    Some(kind) => format!("{} <{kind}>", flag.flag),
                    None => format!("{} <value>", flag.flag),
                };
                [head, text(&flag.property, flag.description.as_deref())]
            })
            .collect();
        Help {
            title,
            usage: format!("Usage: orla run {} -- [OPTIONS]", tool.name),
            column: "OPTION",
            rows,
        }
    })
}

/// `orla run`'s private temporary directories: a confined tool's TMPDIR
/// cannot be removed once orla has become the tool, so each is made in
/// `<cache>/run-tmp/`, locked (`File::lock`, flock(2) here) through a descriptor the tool
/// inherits, and removed by a later `orla run` once nothing holds that
/// lock: the tool and every process it started have exited.
mod tmp {
    use std::os::fd::AsRawFd;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    /// A directory no cleaner takes until this long after its last
    /// change (between its creation and its lock, another run could).
    const SETTLE: Duration = Duration::from_secs(60);

    pub struct Private {
        path: PathBuf,
        _lock: std::fs::File,
    }

    impl AsRef<Path> for Private {
        fn as_ref(&self) -> &Path {
            &self.path
        }
    }

    pub fn make(parent: &Path) -> std::io::Result<Private> {
        std::fs::create_dir_all(parent)?;
        clean(parent);
        let path = tempfile::Builder::new()
            .prefix("tmp-")
            .tempdir_in(parent)?
            .keep();
        let lock = std::fs::File::open(&path)?;
        lock.lock()?;
        // Inherited through exec: the lock lasts as long as the tool.
        // SAFETY: fcntl on a descriptor this function owns.
        if unsafe { libc::fcntl(lock.as_raw_fd(), libc::F_SETFD, 0) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Private { path, _lock: lock })
    }

    /// Removes the directories no running tool holds.
    fn clean(parent: &Path) {
        let Ok(entries) = std::fs::read_dir(parent) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let settled = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age >= SETTLE));
            if !settled || !path.is_dir() {
                continue;
            }
            let Ok(dir) = std::fs::File::open(&path) else {
                continue;
            };
            if dir.try_lock().is_ok() {
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }
}
