//! The command line, defined once with clap's derive API. Commands live in
//! `crate::commands`; this module only describes arguments.

pub mod generate;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// The heading of the options every command takes, listed apart from a
/// command's own (as cargo does).
pub const GLOBAL: &str = "Global options";

/// The package manager for MCP tools.
#[derive(Debug, Parser)]
#[command(
    name = "orla",
    version,
    about = "The package manager for MCP tools",
    long_about = "orla installs MCP tool packages from registry indexes, verifies them with BLAKE3, \
unpacks them into ~/.orla/tools/<name>/<version>/ (or a project's tools_dir), and writes the \
runtime manifest that an MCP runtime loads.",
    after_help = "Environment: ORLA_HOME (install root, default ~/.orla), ORLA_CACHE_DIR (download cache), \
ORLA_REGISTRY (default registry, default builtin), ORLA_PUBLIC_REGISTRY (the Orla project's registry, \
asked for tools the default lacks; off drops it), ORLA_REGISTRY_TTL (how long a fetched registry is \
fresh, default 10m), ORLA_OFFLINE (1: as --offline), ORLA_HTTP_TIMEOUT (seconds, default 30), \
NO_COLOR, CLICOLOR_FORCE and FORCE_COLOR (see --color).\n\n\
Registries are named in ~/.orla/config.yaml and a project's orla.yaml (`registries:`); see \
docs/registries.md.",
    propagate_version = true
)]
pub struct Cli {
    /// Print only errors and warnings
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub quiet: bool,

    /// Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or
    /// FORCE_COLOR force it), always or never
    #[arg(long, value_name = "WHEN", global = true, help_heading = GLOBAL, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,

    /// Use no network: registries and archives come from the cache
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub offline: bool,

    /// Fetch git registries now, even if their cached copy is fresh
    #[arg(long, global = true, help_heading = GLOBAL, conflicts_with = "offline")]
    pub refresh: bool,

    /// Accept a git registry whose history was rewound or force-pushed since
    /// the last fetch (refused by default: see docs/security.md)
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub allow_rollback: bool,

    /// How status lines, warnings and errors are written on stderr: human,
    /// or json (one JSON object per line, see docs/events.md)
    #[arg(long, value_name = "FORMAT", global = true, help_heading = GLOBAL, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    #[command(subcommand)]
    pub command: Command,
}

/// How messages on stderr are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    Human,
    Json,
}

/// When messages are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// `Some` when the choice overrides the environment and the terminal.
    pub fn forced(self) -> Option<bool> {
        match self {
            ColorWhen::Auto => None,
            ColorWhen::Always => Some(true),
            ColorWhen::Never => Some(false),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install tools from a registry, or a local package
    Install(InstallArgs),
    /// Remove installed tools
    #[command(visible_aliases = ["rm", "remove"], alias = "un")]
    Uninstall(UninstallArgs),
    /// List installed tools
    #[command(visible_alias = "ls")]
    List(ListArgs),
    /// Make a directory an orla project: write a commented orla.yaml
    Init(InitArgs),
    /// Choose which installed version of a tool the manifest serves
    Use(UseArgs),
    /// Check installed tools against their install receipts
    Verify(VerifyArgs),
    /// Search the registries for tools
    Search(SearchArgs),
    /// Show a tool's versions, permissions and installs
    Info(InfoArgs),
    /// Move installed tools to their newest allowed version
    #[command(visible_alias = "upgrade")]
    Update(UpdateArgs),
    /// Run a registry tool once without installing it (as uvx and npx do)
    Run(RunArgs),
    /// Print the entrypoint the manifest serves for a tool
    Which(WhichArgs),
    /// Print the directory tools are installed into
    Dir(DirArgs),
    /// Manage the download and registry cache
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// Author tools: scaffold, validate, pack, publish, yank
    #[command(subcommand)]
    Tool(ToolCommand),
    /// Move old formats to tool.yaml
    #[command(subcommand)]
    Migrate(MigrateCommand),
    /// Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)
    Serve(ServeArgs),
    /// Describe the installed tools for another runtime: openwop, Runloop, Orloj
    Export(ExportArgs),
    /// Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`
    #[command(subcommand)]
    Client(ClientCommand),
}

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP
    Add(ClientArgs),
    /// Remove orla's entry from a client's configuration
    Remove(ClientArgs),
    /// Show which clients are configured to start orla
    List(ClientListArgs),
}

#[derive(Debug, Args)]
#[command(
    after_help = "Clients: claude-desktop, cursor, vscode, windsurf, goose. The entry serves the root `orla list` shows: in a project (an orla.yaml here or in a parent) that project, named orla-<directory> (orla-<directory>-<hash> when that name serves another project), else the global root, named orla. cursor and vscode get a project's entry in the project's own .cursor/mcp.json or .vscode/mcp.json, with `orla` and ${workspaceFolder} rather than paths of this machine, so the file can be committed. With --url the entry reaches an `orla serve` the user runs over HTTP instead (named orla-http, found by its URL), and with --token-env it sends `Authorization: Bearer ${env:NAME}`, which cursor, vscode and windsurf fill in from their environment, so the token is in no file. `remove` takes out the entry serving this root (or this URL). Other entries and comments in the file are kept; the file as it was before orla first changed it is saved next to it with the suffix .orla-backup. See docs/runtime.md."
)]
pub struct ClientArgs {
    /// The client to configure
    #[arg(value_name = "CLIENT", value_parser = ClientName)]
    pub client: String,

    /// Use the global root even inside a project
    #[arg(long)]
    pub global: bool,

    // As `help`, not a doc comment: rustdoc would read `<directory>` as HTML.
    #[arg(
        long,
        value_name = "NAME",
        help = "The entry's name [default: orla, or orla-<directory> for a project]"
    )]
    pub name: Option<String>,

    /// The client's configuration file [default: where the client reads it]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// The environment variable the client takes the server's bearer token from
    #[arg(long, value_name = "NAME", requires = "url")]
    pub token_env: Option<String>,

    /// Print the change without writing anything
    #[arg(long)]
    pub dry_run: bool,
}

/// A client's name: any text (`client::Client::parse` knows the names and
/// aliases, and hints on an unknown one), with the known names offered to
/// help and to the completion scripts.
#[derive(Debug, Clone, Copy)]
struct ClientName;

impl clap::builder::TypedValueParser for ClientName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            crate::client::CLIENTS
                .iter()
                .map(|c| clap::builder::PossibleValue::new(c.name())),
        ))
    }
}

#[derive(Debug, Args)]
pub struct ClientListArgs {
    /// Print a JSON array, one object per client
    #[arg(long)]
    pub json: bool,
}

/// What `orla export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// openwop's tool catalog: a JSON array of ToolDescriptors (RFC 0078)
    Openwop,
    /// A Runloop bundle's tools.json (version 1)
    Runloop,
    /// Orloj `kind: Tool` resources, one YAML document per tool
    Orloj,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Exports the tools the current root's manifest serves (those `orla serve` lists), \
as other runtimes read them. Nothing secret is written: a tool's environment stays out. \
A name a format cannot hold is refused, naming the tool and the rule. See docs/export.md."
)]
pub struct ExportArgs {
    /// The format to write
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: ExportFormat,

    /// Write to FILE instead of stdout
    #[arg(long, short = 'o', value_name = "FILE", conflicts_with = "bundle")]
    pub output: Option<PathBuf>,

    /// Runloop: write tools.json into the bundle in DIR and record its BLAKE3 in DIR/manifest.toml
    #[arg(long, value_name = "DIR")]
    pub bundle: Option<PathBuf>,

    /// Export the global root's tools (~/.orla or ORLA_HOME), even inside a project
    #[arg(long)]
    pub global: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Serves the tools of the current root's runtime manifest, the one `orla list` shows: the project's (an orla.yaml here or in a parent) or the global one. The manifest is reloaded when it changes (`orla install` while serving) and on SIGHUP; connected clients are told the tool list changed. Over HTTP it also answers openwop's read-only tool catalog beside /mcp (GET /v1/tools, GET /v1/tools/{toolId}, advertised in /.well-known/openwop), behind the same token. Logs are JSON lines on stderr (orla.yaml log_format/log_level). See docs/runtime.md."
)]
pub struct ServeArgs {
    /// Speak MCP on stdin and stdout, as an MCP client that starts orla expects
    #[arg(long, conflicts_with_all = ["port", "host", "allow_origin"])]
    pub stdio: bool,

    /// HTTP port [default: orla.yaml `port`, else 8080; 0 picks a free one]
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,

    /// Address to listen on; anything but loopback exposes the tools to the network
    #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,

    /// Also accept browser requests from this Origin (loopback origins always are)
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,

    /// Serve the global root (~/.orla or ORLA_HOME), even inside a project
    #[arg(long, conflicts_with = "project")]
    pub global: bool,

    /// Serve the project in DIR (its orla.yaml, or a parent's), wherever orla starts
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// Log format on stderr [default: orla.yaml `log_format`, else json]
    #[arg(long, value_name = "FORMAT", value_parser = ["json", "pretty"])]
    pub log_format: Option<String>,

    /// Log level [default: orla.yaml `log_level`, else info]
    #[arg(long, value_name = "LEVEL", value_parser = ["debug", "info", "warn", "error", "fatal"])]
    pub log_level: Option<String>,

    /// Tool calls run at once; more wait their turn
    #[arg(long, value_name = "N", default_value_t = orla_runtime::DEFAULT_MAX_CALLS, value_parser = clap::value_parser!(usize))]
    pub max_calls: usize,

    /// HTTP sessions open at once; a client beyond is told to retry later (503)
    #[arg(long, value_name = "N", default_value_t = orla_runtime::DEFAULT_MAX_SESSIONS, conflicts_with = "stdio")]
    pub max_sessions: usize,

    /// Require `Authorization: Bearer TOKEN` of HTTP clients, TOKEN read from FILE (or ORLA_SERVE_TOKEN)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["stdio", "generate_token"])]
    pub token_file: Option<PathBuf>,

    /// Make up a bearer token, print it once on stdout, and require it of HTTP clients
    #[arg(long, conflicts_with = "stdio")]
    pub generate_token: bool,

    /// Close an HTTP session after this many seconds without a request
    #[arg(long, value_name = "SECS", default_value_t = orla_runtime::DEFAULT_SESSION_IDLE.as_secs(), conflicts_with = "stdio")]
    pub session_idle: u64,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Versions: fs-read (newest stable), fs-read@1.2 (newest 1.2.x), fs-read@1.2.1 or \
fs-read@v1.2.1 (exactly), fs-read@^1.0, fs-read@~1.2, 'fs-read@>=1.0, <2' (requirements).\n\n\
In a project (an orla.yaml here or in a parent), `orla install NAME@REQ` also records the requirement \
in orla.yaml and the exact version in orla.lock; `orla install` with no SPEC installs exactly what \
orla.lock pins, resolving only the requirements orla.yaml changed."
)]
pub struct InstallArgs {
    /// Tools to install: NAME, NAME@VERSION or NAME@REQUIREMENT
    #[arg(value_name = "SPEC")]
    pub specs: Vec<String>,

    /// Install a local package directory or .tar.gz archive
    #[arg(long, value_name = "PATH")]
    pub local: Option<PathBuf>,

    /// Registry to install from: a name from config.yaml or orla.yaml, `builtin`, an
    /// index directory, a git URL or a sparse+https:// URL [default: every configured
    /// registry, in order]
    #[arg(long, value_name = "NAME|LOCATION")]
    pub registry: Option<String>,

    /// Reinstall even if the version is already installed
    #[arg(long)]
    pub force: bool,

    /// Accept the tools' permissions without asking
    #[arg(short, long)]
    pub yes: bool,

    /// In a project: fail instead of changing orla.lock (for CI)
    #[arg(long)]
    pub locked: bool,

    /// In a project: --locked, and no network: every archive must be local or cached
    #[arg(long)]
    pub frozen: bool,

    /// Refuse tools whose interpreter or tool.yaml `dependencies` are missing (a warning otherwise)
    #[arg(long)]
    pub strict: bool,

    /// Install into the global root (~/.orla or ORLA_HOME), even inside a project
    #[arg(long, conflicts_with_all = ["locked", "frozen"])]
    pub global: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Tools to remove: NAME (every version), NAME@VERSION, or NAME@REQUIREMENT
    /// (every installed version it matches: fs-read@1.2 is every 1.2.x)
    #[arg(value_name = "SPEC", required = true)]
    pub specs: Vec<String>,

    /// Remove from the global root (~/.orla or ORLA_HOME), even inside a project
    #[arg(long)]
    pub global: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Inside a project (an orla.yaml here or in a parent), the list shows what the \
project's manifest serves: the project's packages and discovered executables, then the global \
tools, a global tool being shadowed (not active) when the project has a tool of that name."
)]
pub struct ListArgs {
    /// Print a JSON array, one object per installed name and version
    #[arg(long)]
    pub json: bool,

    /// List the global root (~/.orla or ORLA_HOME), even inside a project
    #[arg(long, conflicts_with = "project")]
    pub global: bool,

    /// List only the project's own tools (an error outside a project)
    #[arg(long)]
    pub project: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Every installed file is hashed again with BLAKE3 and compared with the receipt \
written at install time; added, removed and changed files are listed. Exits 1 on any difference."
)]
pub struct VerifyArgs {
    /// Verify only this tool (every installed version)
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// Print a JSON array, one object per installed name and version
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to look for in names, descriptions and keywords
    #[arg(value_name = "QUERY", required = true)]
    pub query: Vec<String>,

    /// Search only this registry (a configured name or a location)
    #[arg(long, value_name = "NAME|LOCATION")]
    pub registry: Option<String>,

    /// Print a JSON array, best match first
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The tool's name, and a version to describe (NAME@VERSION) instead of the newest
    #[arg(value_name = "NAME[@VERSION]")]
    pub name: String,

    /// Look only in this registry (a configured name or a location)
    #[arg(long, value_name = "NAME|LOCATION")]
    pub registry: Option<String>,

    /// Print a JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Each tool moves to the newest version its project requirement allows (orla.yaml `tools:`), or else the newest stable version. The new version is installed before the old one is removed; other installed versions are kept."
)]
pub struct UpdateArgs {
    /// Tools to update [default: every installed tool]
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// Show what would change, and change nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Registry to update from (a configured name or a location)
    #[arg(long, value_name = "NAME|LOCATION")]
    pub registry: Option<String>,

    /// Accept the new versions' permissions without asking
    #[arg(short, long)]
    pub yes: bool,

    /// Update the global root's tools (~/.orla or ORLA_HOME), even inside a project
    #[arg(long)]
    pub global: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "The version is resolved, its permissions shown and confirmed, and its archive \
fetched and verified as `orla install` does, into the cache (`orla cache dir`), not into an install \
root: the manifest does not change. A later run of the same version re-checks the cached files and \
uses them. The tool runs as `orla serve` runs a call of it: a clean environment, confined to its \
permissions, its arguments checked against its input schema. ARGS are the options that schema \
declares (`orla run NAME -- --help` lists them); a tool whose tool.yaml says `arguments: json` reads \
one JSON object on stdin instead. It runs in the current directory with orla's terminal, stdin, \
stdout and stderr, and orla exits with its exit status.\n\nExample: echo '{\"path\": \"notes.txt\"}' | orla run fs-read@1.2"
)]
pub struct RunArgs {
    /// The tool: NAME, NAME@VERSION or NAME@REQUIREMENT
    #[arg(value_name = "SPEC")]
    pub spec: String,

    /// Arguments passed to the tool (after `--`)
    #[arg(value_name = "ARGS", last = true)]
    pub args: Vec<String>,

    /// Registry to take the tool from (a configured name or a location)
    #[arg(long, value_name = "NAME|LOCATION")]
    pub registry: Option<String>,

    /// Accept the tool's permissions without asking
    #[arg(short, long)]
    pub yes: bool,
}

/// `orla __complete KIND [WORD]`: what the completion scripts ask orla
/// for. It is parsed on its own, before `Cli` (see `commands::main`), and
/// is no subcommand of it: so it shows in no help, man page, completion
/// script or typo tip.
#[derive(Debug, Parser)]
#[command(name = "orla __complete")]
pub struct CompleteArgs {
    /// `installed` (the current root's tools) or `available` (what the
    /// registries list, from the cache only: completion never waits for the network)
    #[arg(value_parser = ["installed", "available"])]
    pub kind: String,

    /// The word being completed: with an `@`, the versions of the tool
    /// before it are listed (as `NAME@VERSION`), else tool names
    #[arg(value_name = "WORD", default_value = "")]
    pub word: String,
}

#[derive(Debug, Args)]
pub struct WhichArgs {
    /// An installed tool's name
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Look in the global root (~/.orla or ORLA_HOME), even inside a project
    #[arg(long)]
    pub global: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Inside a project (an orla.yaml here or in a parent) this is the project's tools_dir."
)]
pub struct DirArgs {
    /// The global root's directory (~/.orla/tools or ORLA_HOME/tools), even inside a project
    #[arg(long)]
    pub global: bool,
}

#[derive(Debug, Subcommand)]
#[command(
    after_help = "The cache holds verified packages (linked into install roots, so a reinstall \
writes no data), registry clones and git repositories: everything can be fetched again. \
Set `cache_max_size: 2G` in config.yaml (or ORLA_CACHE_MAX_SIZE=2G) to have installs trim \
the least recently used packages beyond it. Clear and prune wait for running installs (the cache's lock). See docs/cache.md."
)]
pub enum CacheCommand {
    /// Remove everything in the cache (it is fetched again when needed)
    Clear,
    /// Print the cache directory
    Dir,
    /// Remove what is old and unneeded: packages no install shares and archives,
    /// repositories and clones of registries not configured here, unused for --max-age
    Prune(CachePruneArgs),
}

#[derive(Debug, Args)]
#[command(
    after_help = "A package an installed tool shares files with (a hard link) is kept: it takes \
no space of its own. Last use is when a package was last installed from the cache, or a \
registry last fetched. With a size limit (cache_max_size, ORLA_CACHE_MAX_SIZE) or --max-size, \
the least recently used packages beyond the size are removed too."
)]
pub struct CachePruneArgs {
    /// Remove what was not used for this long: 30d, 12h, 90m, 0 for any age
    #[arg(long, value_name = "AGE", default_value = "30d")]
    pub max_age: String,
    /// Then remove the least recently used packages until the rest take at most this: 500M, 2G
    #[arg(long, value_name = "SIZE")]
    pub max_size: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "orla.yaml holds the RFC 1 options (tools_dir, port, timeout, log_format, log_level), \
each written with its default, and the project's `tools:` requirements. An existing orla.yaml is \
never overwritten."
)]
pub struct InitArgs {
    /// The project directory (created if missing)
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
#[command(
    after_help = "The version must be installed. In a project, a tool orla.yaml requires is switched \
in orla.lock (and its requirement in orla.yaml set to the exact version when the old one does not \
allow it), so the choice is shared; other tools are pinned in the root's state directory \
(pins.json). `orla use NAME` goes back to the default: the newest installed stable version (in a project, \
the newest one the requirement allows)."
)]
pub struct UseArgs {
    /// NAME@VERSION to serve that version, or NAME for the default
    #[arg(value_name = "NAME[@VERSION]")]
    pub spec: String,

    /// Act on the global root (~/.orla or ORLA_HOME), even inside a project
    #[arg(long)]
    pub global: bool,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Where each shell looks for the script (make the directory first if it is missing):\n",
    "  bash        orla completions bash > ~/.local/share/bash-completion/completions/orla\n",
    "  zsh         orla completions zsh > ~/.zfunc/_orla, and `fpath+=~/.zfunc` before `compinit` in ~/.zshrc\n",
    "  fish        orla completions fish > ~/.config/fish/completions/orla.fish\n",
    "  elvish      `eval (orla completions elvish | slurp)` in ~/.config/elvish/rc.elv\n",
    "  powershell  `orla completions powershell | Out-String | Invoke-Expression` in $PROFILE\n",
    "  nushell     orla completions nushell | save -f ~/.config/nushell/orla.nu, and `use orla.nu *` in config.nu\n",
    "\n",
    "A new shell then completes subcommands, flags and, except in nushell, tool names: installed ones ",
    "after uninstall, use, which, verify and update, the registries' after install, run, info and search ",
    "(read from the cache: completion never waits for the network), and a tool's versions after NAME@."
))]
pub struct CompletionsArgs {
    /// The shell to generate for
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// A shell `orla completions` writes a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    #[value(name = "powershell")]
    PowerShell,
    Nushell,
}

#[derive(Debug, Subcommand)]
pub enum ToolCommand {
    /// Create a new tool package: a wizard on a terminal, flags otherwise
    Scaffold(ScaffoldArgs),
    /// Check a tool package and report every problem at once
    Validate(ValidateArgs),
    /// Pack a tool package into a reproducible NAME-VERSION.tar.gz
    Pack(PackArgs),
    /// Publish a tool package into a registry index
    Publish(PublishArgs),
    /// Mark a published version as yanked (or, with --undo, not yanked)
    Yank(YankArgs),
}

/// The language of a scaffolded tool's entrypoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Language {
    Bash,
    Python,
    Node,
    /// A prebuilt executable (see --binary)
    Binary,
}

/// How a scaffolded simple tool takes its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ArgumentsArg {
    /// One JSON object on stdin
    Json,
    /// One `--name value` flag per argument, as the Orla runtime passes them
    Flags,
}

/// A scaffolded tool's runtime mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// Run once per request: JSON arguments on stdin, JSON answer on stdout
    Simple,
    /// A long-running process with the orla.hello handshake (RFC 3 5.3.1)
    Capsule,
}

#[derive(Debug, Args)]
#[command(
    after_help = "On a terminal, every answer not given as a flag is asked for. With --yes, or when \
stdin is not a terminal, nothing is asked: the flags and their defaults decide.\n\nExample: orla tool \
scaffold word-count --yes --language python --param text:string --param limit:integer? \
--permission filesystem:read --license MIT"
)]
pub struct ScaffoldArgs {
    /// The tool's name: lowercase letters, digits, '.', '_' and '-'
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// Directory to create [default: ./NAME]
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,

    /// One line saying what the tool does
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,

    /// Language of the entrypoint [default: bash]
    #[arg(long, value_enum)]
    pub language: Option<Language>,

    /// With --language binary: the executable to copy into bin/NAME
    #[arg(long, value_name = "FILE")]
    pub binary: Option<PathBuf>,

    /// simple (one process per request) or capsule (long-running) [default: simple]
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// How a simple tool takes its arguments (default json); capsules speak JSON-RPC
    #[arg(long, value_enum)]
    pub arguments: Option<ArgumentsArg>,

    /// A permission the tool needs: filesystem:read, filesystem:write, network, process:exec (repeatable)
    #[arg(long = "permission", value_name = "PERMISSION", value_delimiter = ',')]
    pub permissions: Vec<String>,

    /// An input parameter NAME:TYPE, TYPE one of string, number, integer, boolean, object, array;
    /// a trailing '?' makes it optional (repeatable) [default: message:string]
    #[arg(long = "param", value_name = "NAME:TYPE")]
    pub params: Vec<String>,

    /// The version to start at [default: 0.1.0]
    #[arg(long = "tool-version", value_name = "VERSION")]
    pub tool_version: Option<String>,

    /// Author or maintainer
    #[arg(long, value_name = "NAME")]
    pub author: Option<String>,

    /// SPDX license identifier, written to LICENSE (`none` for no license) [default: none]
    #[arg(long, value_name = "SPDX")]
    pub license: Option<String>,

    /// Ask nothing: take every answer from the flags and their defaults
    #[arg(short, long)]
    pub yes: bool,

    /// Write into an existing, non-empty directory, replacing the files scaffold writes
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The package directory
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,

    /// Print the problems as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PackArgs {
    /// The package directory
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,

    /// Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "LOCATION is an index directory (holding config.json), a git repository's working \
tree or a bare repository (a path or a file:// URL). In a git repository the change is committed."
)]
pub struct PublishArgs {
    /// The package directory
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,

    /// The registry index to publish into
    #[arg(long, value_name = "LOCATION")]
    pub index: String,

    /// Create the index (config.json, registry.yaml) if it has none
    #[arg(long)]
    pub init: bool,

    /// Print the published record as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct YankArgs {
    /// The version to yank: NAME@VERSION
    #[arg(value_name = "NAME@VERSION")]
    pub spec: String,

    /// The registry index
    #[arg(long, value_name = "LOCATION")]
    pub index: String,

    /// Un-yank: make the version installable by ranges again
    #[arg(long)]
    pub undo: bool,
}

#[derive(Debug, Subcommand)]
pub enum MigrateCommand {
    /// Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package
    Capsule(MigrateCapsuleArgs),
}

#[derive(Debug, Args)]
#[command(
    after_help = "The old orla-tool.json is kept as orla-tool.json.bak (or removed with \
--remove-legacy). Running it again on a migrated capsule changes nothing."
)]
pub struct MigrateCapsuleArgs {
    /// The capsule directory (or its orla-tool.json)
    #[arg(
        value_name = "PATH",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub path: Option<PathBuf>,

    /// Migrate every capsule under this tools directory
    #[arg(long, value_name = "DIR")]
    pub all: Option<PathBuf>,

    /// Only print the tool.yaml that would be written
    #[arg(long)]
    pub dry_run: bool,

    /// Delete orla-tool.json instead of keeping orla-tool.json.bak
    #[arg(long)]
    pub remove_legacy: bool,

    /// Replace an existing tool.yaml that differs from the migrated one
    #[arg(long)]
    pub force: bool,
}
