//! orla-runtime: a thin MCP server for the tools of one orla runtime
//! manifest (docs/manifest.md, manifest_version 2).
//!
//! It reads the manifest and nothing else of orla (its own serde types in
//! [`manifest`]), so any other runtime could take its place. MCP goes
//! through the official Rust SDK (rmcp): stdio, or Streamable HTTP on
//! 127.0.0.1, where openwop's tool catalog is answered too ([`openwop`]). The manifest is watched, and SIGHUP forces a reload; either
//! way connected clients get `notifications/tools/list_changed` and no
//! connection is dropped. What is served comes through a
//! [`ManifestSource`], which may check it first (`orla serve` serves only
//! what orla wrote from its store). docs/runtime.md describes the behaviour.

pub mod approval;
pub mod capsule;
mod catalog;
pub mod errors;
pub mod exec;
mod http;
pub mod invoke;
pub mod launch;
pub mod log;
pub mod manifest;
pub mod openwop;
pub mod report;
pub mod sandbox;
pub mod schema;
pub mod server;
mod source;
mod stdio;

pub use source::{LoadError, Loaded, ManifestFile, ManifestSource};

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::json;

use crate::log::{Level, Logger};
use crate::manifest::{Manifest, ManifestError};
use crate::server::{Handler, Shared};

#[derive(Debug, Clone)]
pub enum Transport {
    Stdio,
    Http { host: IpAddr, port: Option<u16> },
}

#[derive(Clone)]
pub struct Options {
    /// Where the manifest comes from, and what checks it.
    pub source: Arc<dyn ManifestSource>,
    pub transport: Transport,
    /// Overrides the manifest's `settings.log_format` (`json` or `pretty`).
    pub log_format: Option<String>,
    pub log_level: Option<String>,
    /// Overrides every tool's timeout.
    pub timeout: Option<Duration>,
    /// Extra allowed browser origins for HTTP (loopback origins always are).
    pub allowed_origins: Vec<String>,
    pub max_output: usize,
    /// Tool calls run at once; more wait for a slot.
    pub max_calls: usize,
    /// HTTP: sessions open at once; an `initialize` beyond gets `503`.
    pub max_sessions: usize,
    /// HTTP: a session with no request for this long is closed.
    pub session_idle: Duration,
    /// HTTP: connections open at once; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// HTTP: how long a request's headers, and then its body, may take.
    pub read_timeout: Duration,
    /// HTTP: the bearer token every request must carry
    /// (`Authorization: Bearer TOKEN`); None lets every request in.
    pub token: Option<String>,
}

/// A bearer token: 32 random bytes from the kernel, in hex.
pub fn generate_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Defaults of the bounds in [`Options`] (docs/runtime.md, "Bounds").
pub const DEFAULT_MAX_CALLS: usize = 4;
pub const DEFAULT_MAX_SESSIONS: usize = 256;
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(600);
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(10);

impl Options {
    pub fn new(source: Arc<dyn ManifestSource>, transport: Transport) -> Options {
        Options {
            source,
            transport,
            log_format: None,
            log_level: None,
            timeout: None,
            allowed_origins: Vec::new(),
            max_output: server::DEFAULT_MAX_OUTPUT,
            max_calls: DEFAULT_MAX_CALLS,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle: DEFAULT_SESSION_IDLE,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            read_timeout: DEFAULT_READ_TIMEOUT,
            token: None,
        }
    }
}

/// Why serving stopped, or never started.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The source would not give a manifest to serve.
    #[error("cannot load {}: {source}", path.display())]
    Load {
        path: PathBuf,
        #[source]
        source: LoadError,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// Boxed: it holds the message the client sent instead.
    #[error("MCP initialisation failed: {0}")]
    Initialise(#[source] Box<rmcp::service::ServerInitializeError>),
    #[error("stdio transport: {0}")]
    Stdio(#[source] tokio::task::JoinError),
    /// The HTTP port cannot be bound (another program has it, say).
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the address the HTTP server is bound to: {0}")]
    Bound(#[source] std::io::Error),
    #[error("cannot watch for SIGTERM: {0}")]
    Signal(#[source] std::io::Error),
}

/// Serves until stdin closes (stdio) or SIGINT/SIGTERM (HTTP). Blocks.
pub fn serve(options: Options) -> Result<(), ServeError> {
    let path = options.source.path().to_path_buf();
    let loaded = options.source.load().map_err(|source| ServeError::Load {
        path: path.clone(),
        source,
    })?;
    let manifest =
        Manifest::parse(&loaded.bytes).map_err(|source| ManifestError::Invalid { path, source })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(run(options, manifest, loaded))
}

fn logging(options: &Options, manifest: &Manifest) -> (Level, bool) {
    let level = options
        .log_level
        .as_deref()
        .or(Some(manifest.settings.log_level.as_str()))
        .and_then(Level::parse)
        .unwrap_or(Level::Info);
    let pretty = options
        .log_format
        .as_deref()
        .unwrap_or(&manifest.settings.log_format)
        == "pretty";
    (level, pretty)
}

async fn run(options: Options, manifest: Manifest, loaded: Loaded) -> Result<(), ServeError> {
    let (level, pretty) = logging(&options, &manifest);
    let logger = Logger::new(level, pretty);
    let path = options.source.path().display().to_string();
    for warning in &loaded.warnings {
        logger.warn(warning, json!({"manifest": path}));
    }
    let shared = Arc::new(Shared {
        manifest: RwLock::new(Arc::new(manifest.clone())),
        logger: logger.clone(),
        peers: Mutex::new(Vec::new()),
        capsules: capsule::Supervisor::new(logger.clone()),
        max_output: options.max_output,
        timeout_override: options.timeout,
        calls: tokio::sync::Semaphore::new(options.max_calls.max(1)),
    });
    shared.capsules.sync(&manifest.tools);
    logger.info(
        "serving",
        json!({"manifest": path, "tools": manifest.tools.len(),
               "transport": match options.transport { Transport::Stdio => "stdio", Transport::Http { .. } => "http" }}),
    );
    server::log_unconfined(&logger, &manifest);
    tokio::spawn(reloader(shared.clone(), options.clone(), loaded.bytes));
    let result = match options.transport.clone() {
        Transport::Stdio => {
            let handler = Handler::new(shared.clone());
            let transport = stdio::Stdio::new(logger.clone());
            match handler.serve(transport).await {
                Ok(service) => service
                    .waiting()
                    .await
                    .map(|_| ())
                    .map_err(ServeError::Stdio),
                Err(e) => Err(ServeError::Initialise(Box::new(e))),
            }
        }
        Transport::Http { host, port } => {
            let port = port.unwrap_or(manifest.settings.port);
            http::serve(shared.clone(), host, port, &options).await
        }
    };
    shared.capsules.stop_all();
    logger.info("stopped", json!({}));
    result
}

/// Reloads on SIGHUP and when the manifest file changes (polled: orla
/// replaces it by rename, which no inotify watch on the old file sees).
/// What is served is what the source loads, never the file as read here:
/// the file's bytes only say when to ask.
async fn reloader(shared: Arc<Shared>, options: Options, mut served: Vec<u8>) {
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    let path = options.source.path().to_path_buf();
    // The file as it was when the source was last asked; at first, what it
    // gave (the file is not read here: it may have changed already).
    let mut seen = Some(served.clone());
    let mut ticks = 0u32;
    loop {
        let forced = tokio::select! {
            _ = async { match hup.as_mut() { Some(h) => { h.recv().await; } None => std::future::pending().await } } => true,
            _ = tokio::time::sleep(Duration::from_millis(300)) => false,
        };
        ticks = ticks.wrapping_add(1);
        let now = std::fs::read(&path).ok();
        // Unchanged, or changed to what is served already (the source wrote
        // it again from what it checked).
        let unchanged = now == seen || now.as_deref() == Some(&served[..]);
        let stale = unchanged && !forced && ticks.is_multiple_of(3) && {
            let source = options.source.clone();
            tokio::task::spawn_blocking(move || source.stale())
                .await
                .unwrap_or(false)
        };
        if !forced && unchanged && !stale {
            continue;
        }
        seen = now;
        let source = options.source.clone();
        let loaded = match tokio::task::spawn_blocking(move || source.load()).await {
            Ok(loaded) => loaded,
            Err(e) => Err(e.into()),
        };
        let loaded = match loaded {
            Ok(loaded) => loaded,
            Err(e) => {
                shared.logger.error(
                    "manifest refused; keeping the tools already loaded",
                    json!({"manifest": path.display().to_string(), "error": e.to_string()}),
                );
                continue;
            }
        };
        for warning in &loaded.warnings {
            shared
                .logger
                .warn(warning, json!({"manifest": path.display().to_string()}));
        }
        if !forced && loaded.bytes == served {
            continue;
        }
        match Manifest::parse(&loaded.bytes) {
            Ok(manifest) => {
                served = loaded.bytes;
                let (level, pretty) = logging(&options, &manifest);
                shared.logger.configure(level, pretty);
                shared.capsules.sync(&manifest.tools);
                if forced {
                    // SIGHUP also retries stopped capsules.
                    for tool in manifest.tools.iter().filter(|t| t.is_capsule()) {
                        if shared.capsules.state(&tool.name) == Some(capsule::State::Stopped) {
                            shared.capsules.restart(&tool.name).await;
                        }
                    }
                }
                let count = manifest.tools.len();
                *shared.manifest.write().expect("not poisoned") = Arc::new(manifest);
                shared.logger.info(
                    "reloaded",
                    json!({"tools": count, "reason": if forced { "SIGHUP" } else { "manifest changed" }}),
                );
                shared.notify_list_changed().await;
            }
            Err(e) => shared.logger.error(
                "cannot reload; keeping the tools already loaded",
                json!({"error": e.to_string()}),
            ),
        }
    }
}
