//! Capsule supervision (RFC 2 sections 7-11, RFC 3 5.3.1): one process per
//! capsule, started when the manifest is loaded. The runtime waits for the
//! `orla.hello` notification (within `startup_timeout_ms`) before it sends
//! anything; then each call is one `tools/call` JSON-RPC request on a line of
//! the capsule's stdin, answered by the line with the same `id` on its
//! stdout. A capsule that exits is restarted after an exponential backoff;
//! after `MAX_FAILURES` failures in a row (no successful answer between
//! them) it is STOPPED and calls fail at once until the manifest changes.
//! With `hot_load`, a change under a watched path (debounced) restarts it.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};

use crate::errors::{ToolCode, ToolError};
use crate::exec::kill_group;
use crate::log::Logger;
use crate::manifest::Tool;

/// The longest message a capsule may write (one line); a longer one counts
/// as a crash, so a flooding capsule cannot exhaust the server's memory.
pub const MAX_LINE: usize = crate::server::DEFAULT_MAX_OUTPUT;
/// Failures in a row after which a capsule is stopped.
pub const MAX_FAILURES: u32 = 5;
/// The handshake timeout when the manifest gives none.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Starting,
    Ready,
    Reloading,
    Crashed,
    Stopped,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Starting => "starting",
            State::Ready => "ready",
            State::Reloading => "reloading",
            State::Crashed => "crashed",
            State::Stopped => "stopped",
        }
    }
}

struct Request {
    params: Value,
    reply: oneshot::Sender<Result<Value, ToolError>>,
}

enum Control {
    Restart,
}

struct Handle {
    tool: Tool,
    requests: mpsc::Sender<Request>,
    control: mpsc::Sender<Control>,
    state: watch::Receiver<State>,
    stop: watch::Sender<bool>,
}

/// Every capsule of the manifest.
pub struct Supervisor {
    capsules: Mutex<HashMap<String, Arc<Handle>>>,
    logger: Logger,
}

impl Supervisor {
    pub fn new(logger: Logger) -> Supervisor {
        Supervisor {
            capsules: Mutex::new(HashMap::new()),
            logger,
        }
    }

    /// Starts the capsules of `tools`, stops those no longer there, and
    /// restarts those whose entry changed. Must run inside the runtime.
    pub fn sync(&self, tools: &[Tool]) {
        let mut capsules = self.capsules.lock().expect("not poisoned");
        let wanted: HashMap<&str, &Tool> = tools
            .iter()
            .filter(|t| t.is_capsule())
            .map(|t| (t.name.as_str(), t))
            .collect();
        capsules.retain(|name, handle| {
            let keep = wanted
                .get(name.as_str())
                .is_some_and(|t| **t == handle.tool);
            if !keep {
                let _ = handle.stop.send(true);
            }
            keep
        });
        for (name, tool) in wanted {
            if !capsules.contains_key(name) {
                capsules.insert(name.to_string(), Arc::new(self.start(tool.clone())));
            }
        }
    }

    pub fn stop_all(&self) {
        for (_, handle) in self.capsules.lock().expect("not poisoned").drain() {
            let _ = handle.stop.send(true);
        }
    }

    pub fn state(&self, name: &str) -> Option<State> {
        let capsules = self.capsules.lock().expect("not poisoned");
        capsules.get(name).map(|h| *h.state.borrow())
    }

    /// Sends one request to the capsule and waits up to `timeout`.
    pub async fn call(
        &self,
        name: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let handle = self
            .capsules
            .lock()
            .expect("not poisoned")
            .get(name)
            .cloned();
        let Some(handle) = handle else {
            return Err(ToolError::new(
                ToolCode::CapsuleUnavailable,
                format!("capsule {name} is not running"),
                true,
            ));
        };
        if *handle.state.borrow() == State::Stopped {
            return Err(stopped(name));
        }
        let (reply, answer) = oneshot::channel();
        if handle
            .requests
            .send(Request { params, reply })
            .await
            .is_err()
        {
            return Err(stopped(name));
        }
        match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(ToolError::new(
                ToolCode::CapsuleUnavailable,
                format!("capsule {name} went away before answering"),
                true,
            )),
            Err(_) => Err(ToolError::new(
                ToolCode::Timeout,
                format!(
                    "capsule {name} did not answer within {} ms",
                    timeout.as_millis()
                ),
                true,
            )),
        }
    }

    fn start(&self, tool: Tool) -> Handle {
        let (requests, rx) = mpsc::channel(256);
        let (control, control_rx) = mpsc::channel(4);
        let (state_tx, state) = watch::channel(State::Starting);
        let (stop, stop_rx) = watch::channel(false);
        let logger = self.logger.clone();
        tokio::spawn(supervise(
            tool.clone(),
            rx,
            control_rx,
            state_tx,
            stop_rx.clone(),
            logger.clone(),
        ));
        if let Some(hot) = tool.hot_load.clone() {
            tokio::spawn(watch_files(
                hot.watch,
                hot.debounce_ms.unwrap_or(100),
                control.clone(),
                stop_rx,
            ));
        }
        Handle {
            tool,
            requests,
            control,
            state,
            stop,
        }
    }

    /// Restarts a capsule as a hot_load change would (for SIGHUP-less tests
    /// and tools).
    pub async fn restart(&self, name: &str) {
        let handle = self
            .capsules
            .lock()
            .expect("not poisoned")
            .get(name)
            .cloned();
        if let Some(h) = handle {
            let _ = h.control.send(Control::Restart).await;
        }
    }
}

fn stopped(name: &str) -> ToolError {
    ToolError::new(
        ToolCode::CapsuleUnavailable,
        format!("capsule {name} was stopped after {MAX_FAILURES} failures in a row; fix it and reinstall, or send SIGHUP to retry"),
        false,
    )
}

struct Running {
    child: Child,
    pid: Option<u32>,
    stdin: ChildStdin,
    lines: LineReader<tokio::process::ChildStdout>,
}

fn spawn(tool: &Tool) -> std::io::Result<Running> {
    let (program, rest) = tool
        .command
        .split_first()
        .ok_or_else(|| std::io::Error::other("the manifest gives no command"))?;
    let mut child = Command::new(program)
        .args(rest)
        .args(&tool.args)
        .current_dir(&tool.working_dir)
        .env_clear()
        .envs(crate::exec::environment(
            tool,
            |name| std::env::var(name).ok(),
            None,
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let pid = child.id();
    let stdin = child.stdin.take().expect("piped");
    let lines = LineReader::new(child.stdout.take().expect("piped"), MAX_LINE);
    Ok(Running {
        child,
        pid,
        stdin,
        lines,
    })
}

/// Why a capsule did not get through the `orla.hello` handshake.
#[derive(Debug, thiserror::Error)]
enum HandshakeError {
    #[error("it exited before the orla.hello handshake")]
    Exited,
    #[error("cannot read its output: {0}")]
    Read(#[source] std::io::Error),
    #[error("no orla.hello within {} ms", .0.as_millis())]
    Timeout(Duration),
}

/// Waits for `orla.hello`, ignoring other lines.
async fn handshake(running: &mut Running) -> Result<Value, HandshakeError> {
    loop {
        match running.lines.next_line().await {
            Ok(Some(line)) => {
                if let Ok(msg) = serde_json::from_str::<Value>(&line) {
                    if msg.get("method").and_then(Value::as_str) == Some("orla.hello") {
                        return Ok(msg.get("params").cloned().unwrap_or(Value::Null));
                    }
                }
            }
            Ok(None) => return Err(HandshakeError::Exited),
            Err(e) => return Err(HandshakeError::Read(e)),
        }
    }
}

async fn stop_process(mut running: Running) {
    // Graceful first (RFC 2 10): end of input and SIGTERM, then SIGKILL.
    drop(running.stdin);
    if let Some(pid) = running.pid.and_then(|p| i32::try_from(p).ok()) {
        // SAFETY: kill has no memory effects.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
    if tokio::time::timeout(Duration::from_secs(2), running.child.wait())
        .await
        .is_err()
    {
        kill_group(running.pid);
        let _ = running.child.wait().await;
    }
    kill_group(running.pid);
}

async fn supervise(
    tool: Tool,
    mut requests: mpsc::Receiver<Request>,
    mut control: mpsc::Receiver<Control>,
    state: watch::Sender<State>,
    mut stop: watch::Receiver<bool>,
    logger: Logger,
) {
    let name = tool.name.clone();
    let startup = tool
        .startup_timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_STARTUP_TIMEOUT);
    let mut failures = 0u32;
    let set = |s: State| {
        let _ = state.send(s);
    };
    'outer: loop {
        if *stop.borrow() {
            break;
        }
        if failures >= MAX_FAILURES {
            set(State::Stopped);
            logger.error(
                "capsule stopped",
                json!({"tool": name, "failures": failures}),
            );
            // Fail queued and new calls at once until stopped or restarted.
            loop {
                tokio::select! {
                    _ = stop.changed() => break 'outer,
                    Some(Control::Restart) = control.recv() => { failures = 0; continue 'outer; }
                    Some(req) = requests.recv() => { let _ = req.reply.send(Err(stopped(&name))); }
                }
            }
        }
        if failures > 0 {
            let delay = FIRST_BACKOFF
                .saturating_mul(1 << (failures - 1).min(10))
                .min(MAX_BACKOFF);
            tokio::select! {
                _ = stop.changed() => break,
                _ = tokio::time::sleep(delay) => {}
            }
        }
        set(State::Starting);
        let started = SystemTime::now();
        let mut running = match spawn(&tool) {
            Ok(r) => r,
            Err(e) => {
                failures += 1;
                set(State::Crashed);
                logger.error(
                    "capsule failed to start",
                    json!({"tool": name, "error": e.to_string(), "failures": failures}),
                );
                continue;
            }
        };
        let hello = tokio::select! {
            _ = stop.changed() => { stop_process(running).await; break; }
            r = tokio::time::timeout(startup, handshake(&mut running)) => r,
        };
        match hello.unwrap_or(Err(HandshakeError::Timeout(startup))) {
            Ok(params) => {
                set(State::Ready);
                logger.info(
                    "capsule ready",
                    json!({"tool": name, "pid": running.pid, "hello": params,
                           "startup_ms": started.elapsed().unwrap_or_default().as_millis() as u64}),
                );
            }
            Err(reason) => {
                failures += 1;
                set(State::Crashed);
                logger.error(
                    "capsule startup failed",
                    json!({"tool": name, "error": reason.to_string(), "failures": failures}),
                );
                stop_process(running).await;
                continue;
            }
        }
        let mut pending: HashMap<u64, oneshot::Sender<Result<Value, ToolError>>> = HashMap::new();
        let mut next_id = 1u64;
        let crashed = |why: String| {
            ToolError::new(
                ToolCode::CapsuleUnavailable,
                format!("capsule {name} {why}"),
                true,
            )
        };
        loop {
            tokio::select! {
                _ = stop.changed() => {
                    for (_, reply) in pending.drain() { let _ = reply.send(Err(crashed("was stopped".into()))); }
                    stop_process(running).await;
                    break 'outer;
                }
                Some(Control::Restart) = control.recv() => {
                    set(State::Reloading);
                    logger.info("capsule reloading", json!({"tool": name}));
                    for (_, reply) in pending.drain() { let _ = reply.send(Err(crashed("was restarted".into()))); }
                    stop_process(running).await;
                    failures = 0;
                    continue 'outer;
                }
                Some(req) = requests.recv() => {
                    let id = next_id;
                    next_id += 1;
                    let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": req.params}).to_string() + "\n";
                    if running.stdin.write_all(line.as_bytes()).await.is_err() || running.stdin.flush().await.is_err() {
                        let _ = req.reply.send(Err(crashed("closed its input".into())));
                    } else {
                        pending.insert(id, req.reply);
                    }
                }
                line = running.lines.next_line() => {
                    match line {
                        Ok(Some(line)) => {
                            let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                                logger.warn("capsule wrote a line that is not JSON", json!({"tool": name}));
                                continue;
                            };
                            let Some(id) = msg.get("id").and_then(Value::as_u64) else { continue };
                            let Some(reply) = pending.remove(&id) else { continue };
                            failures = 0;
                            let answer = match (msg.get("result"), msg.get("error")) {
                                (Some(result), _) => Ok(result.clone()),
                                (None, Some(error)) => Err(ToolError::new(
                                    ToolCode::CapsuleError,
                                    format!("capsule {name} answered with an error: {}",
                                        error.get("message").and_then(Value::as_str).unwrap_or("(no message)")),
                                    false,
                                )),
                                (None, None) => Err(ToolError::new(ToolCode::CapsuleError, format!("capsule {name} answered with neither result nor error"), false)),
                            };
                            let _ = reply.send(answer);
                        }
                        Ok(None) | Err(_) => {
                            let why = match &line { Err(e) => format!("crashed: {e}"), _ => "crashed".to_string() };
                            // The group first: a capsule that floods is still running.
                            kill_group(running.pid);
                            let status = running.child.wait().await.ok();
                            failures += 1;
                            set(State::Crashed);
                            logger.error(
                                "capsule crashed",
                                json!({"tool": name, "status": status.map(|s| s.to_string()), "error": why, "failures": failures}),
                            );
                            for (_, reply) in pending.drain() { let _ = reply.send(Err(crashed(why.clone()))); }
                            continue 'outer;
                        }
                    }
                }
            }
        }
    }
    set(State::Stopped);
}

/// Polls the watched paths; a change that then stays quiet for
/// `debounce_ms` restarts the capsule.
async fn watch_files(
    paths: Vec<String>,
    debounce_ms: u64,
    control: mpsc::Sender<Control>,
    mut stop: watch::Receiver<bool>,
) {
    let interval = Duration::from_millis(debounce_ms.clamp(50, 1000));
    let mut last = fingerprint(&paths);
    let mut changed_at: Option<std::time::Instant> = None;
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(interval) => {}
        }
        let paths2 = paths.clone();
        let now = tokio::task::spawn_blocking(move || fingerprint(&paths2))
            .await
            .unwrap_or_default();
        if now != last {
            last = now;
            changed_at = Some(std::time::Instant::now());
        } else if let Some(at) = changed_at {
            if at.elapsed() >= Duration::from_millis(debounce_ms) {
                changed_at = None;
                if control.send(Control::Restart).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Names, sizes and mtimes of every file under `paths`.
fn fingerprint(paths: &[String]) -> Vec<(String, u64, Option<SystemTime>)> {
    let mut out = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = paths.iter().map(Into::into).collect();
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                for e in entries.flatten() {
                    stack.push(e.path());
                }
            }
        } else {
            out.push((path.display().to_string(), meta.len(), meta.modified().ok()));
        }
        if out.len() > 10_000 {
            break;
        }
    }
    out.sort();
    out
}

/// Reads `\n`-terminated lines of at most `cap` bytes; cancel-safe, since
/// a partial line is kept in `self` between calls.
struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    cap: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(reader: R, cap: usize) -> Self {
        LineReader {
            inner: BufReader::new(reader),
            buf: Vec::new(),
            cap,
        }
    }

    async fn next_line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                let line = std::mem::take(&mut self.buf);
                return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
            }
            let (take, end) = match available.iter().position(|b| *b == b'\n') {
                Some(i) => (i, Some(i + 1)),
                None => (available.len(), None),
            };
            self.buf.extend_from_slice(&available[..take]);
            self.inner.consume(end.unwrap_or(take));
            if self.buf.len() > self.cap {
                self.buf.clear();
                return Err(std::io::Error::other(format!(
                    "it wrote a message longer than {} bytes",
                    self.cap
                )));
            }
            if end.is_some() {
                let line = std::mem::take(&mut self.buf);
                return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LineReader;

    #[tokio::test]
    async fn lines_are_split_and_capped() {
        let data: &[u8] = b"one\ntwo\n0123456789abcdef\nlast";
        let mut r = LineReader::new(data, 10);
        assert_eq!(r.next_line().await.unwrap().as_deref(), Some("one"));
        assert_eq!(r.next_line().await.unwrap().as_deref(), Some("two"));
        assert!(r.next_line().await.is_err());
    }
}
