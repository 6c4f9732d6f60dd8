//! The command line, defined once with clap's derive API. Commands live in
//! `crate::commands`; this module only describes arguments.

pub mod generate;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

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
ORLA_REGISTRY (default registry, default builtin).",
    propagate_version = true
)]
pub struct Cli {
    /// Print only errors and warnings
    #[arg(short, long, global = true)]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install tools from a registry, or a local package
    Install(InstallArgs),
    /// Remove installed tools
    Uninstall(UninstallArgs),
    /// List installed tools
    List(ListArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
#[command(
    after_help = "Versions: fs-read (newest stable), fs-read@1.2 (newest 1.2.x), fs-read@1.2.1 or \
fs-read@v1.2.1 (exactly), fs-read@^1.0, fs-read@~1.2, 'fs-read@>=1.0, <2' (requirements)."
)]
pub struct InstallArgs {
    /// Tools to install: NAME, NAME@VERSION or NAME@REQUIREMENT
    #[arg(value_name = "SPEC")]
    pub specs: Vec<String>,

    /// Install a local package directory or .tar.gz archive
    #[arg(long, value_name = "PATH")]
    pub local: Option<PathBuf>,

    /// Registry to install from: `builtin` or an index directory
    #[arg(long, value_name = "LOCATION")]
    pub registry: Option<String>,

    /// Reinstall even if the version is already installed
    #[arg(long)]
    pub force: bool,

    /// Accept the tools' permissions without asking
    #[arg(short, long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Tools to remove: NAME (every version) or NAME@VERSION
    #[arg(value_name = "SPEC", required = true)]
    pub specs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print a JSON array, one object per installed name and version
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
