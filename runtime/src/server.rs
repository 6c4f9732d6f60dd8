//! The MCP side: tools/list from the manifest and tools/call dispatched to
//! simple tools (one process per call) or capsules (one supervised process).

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::approval;
use crate::capsule::Supervisor;
use crate::errors::{self, ToolCode, ToolError};
use crate::exec::{self, Limits, Output, RunError, Spawn};
use crate::invoke;
use crate::launch::{self, LaunchError};
use crate::log::Logger;
use crate::manifest::{Manifest, Settings, Tool};
use crate::report;
use crate::report::{Reporter, SessionLevel, Severity};
use crate::schema::Violations;

/// Default bytes kept of a call's stdout (and, separately, stderr).
pub const DEFAULT_MAX_OUTPUT: usize = 4 * 1024 * 1024;

/// What every connection shares: the current manifest, the capsules, the
/// connected peers (for `notifications/tools/list_changed`).
pub struct Shared {
    pub manifest: RwLock<Arc<Manifest>>,
    pub logger: Logger,
    pub peers: Mutex<Vec<Peer<RoleServer>>>,
    pub capsules: Supervisor,
    pub max_output: usize,
    /// Overrides every tool's timeout (`orla serve --timeout`).
    pub timeout_override: Option<Duration>,
    /// One permit per call running; a call waits for one (`max_calls`).
    pub calls: tokio::sync::Semaphore,
}

impl Shared {
    pub fn manifest(&self) -> Arc<Manifest> {
        self.manifest.read().expect("not poisoned").clone()
    }

    /// Tells every connected client that the tool list changed.
    pub async fn notify_list_changed(&self) {
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self.peers.lock().expect("not poisoned");
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            let _ = peer.notify_tool_list_changed().await;
        }
    }

    fn timeout_of(&self, manifest: &Manifest, tool: &Tool) -> Duration {
        self.timeout_override.unwrap_or_else(|| {
            Duration::from_millis(
                tool.timeout_ms
                    .unwrap_or(manifest.settings.timeout_ms)
                    .max(1),
            )
        })
    }
}

/// One client session (one per HTTP session; stdio has one).
#[derive(Clone)]
pub struct Handler {
    pub shared: Arc<Shared>,
    /// What `logging/setLevel` asked for.
    level: SessionLevel,
}

impl Handler {
    pub fn new(shared: Arc<Shared>) -> Handler {
        Handler {
            shared,
            level: SessionLevel::default(),
        }
    }
}

impl ServerHandler for Handler {
    #[allow(deprecated)] // logging: deprecated from MCP 2026-07-28 on, still in 2025-11-25
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("orla", env!("CARGO_PKG_VERSION")))
    }

    /// `logging/setLevel`: the least severe level of the tool messages
    /// (stderr lines, see [`crate::report`]) this session gets.
    #[allow(deprecated)] // logging is deprecated from MCP 2026-07-28 on
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.level.set(Severity::from_mcp(request.level));
        self.shared.logger.debug(
            "logging level set by the client",
            json!({"level": request.level}),
        );
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self.shared.peers.lock().expect("not poisoned");
        // Sessions that ended (closed, or expired idle) leave.
        peers.retain(|p| !p.is_transport_closed());
        peers.push(context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let manifest = self.shared.manifest();
        let tools: Vec<Value> = manifest.tools.iter().map(mcp_tool).collect();
        serde_json::from_value(json!({ "tools": tools }))
            .map_err(|e| ErrorData::internal_error(format!("tool list: {e}"), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let reporter = Reporter::new(
            context.peer.clone(),
            self.level.clone(),
            &request.name,
            context.meta.get_progress_token(),
        );
        let result = tokio::select! {
            r = async {
                // At most max_calls run at once: each holds a process and
                // up to twice max_output of its output.
                let _slot = self.shared.calls.acquire().await.expect("never closed");
                call(&self.shared, &request.name, args, Some(&context.peer), Some(reporter)).await
            } => r?,
            _ = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the call was cancelled", None));
            }
        };
        serde_json::from_value::<CallToolResult>(result)
            .map(CallToolResponse::from)
            .map_err(|e| ErrorData::internal_error(format!("tool result: {e}"), None))
    }
}

/// The tools/list entry of a tool.
pub fn mcp_tool(tool: &Tool) -> Value {
    let mut entry = json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": input_schema(&tool.input_schema),
    });
    if let Some(schema) = &tool.output_schema {
        entry["outputSchema"] = output_schema(schema);
    }
    if let Some(annotations) = annotations(tool) {
        entry["annotations"] = annotations;
    }
    entry["_meta"] = json!({"orla/isolation": isolation(tool)});
    entry
}

/// How a tool runs: `unconfined` (it declared nothing, or it is a capsule,
/// which is not confined yet), else its isolation mode, `none` (confined to
/// its permissions) or `sandboxed` (and limited).
pub fn isolation(tool: &Tool) -> &'static str {
    if tool.is_capsule() || !tool.is_confined() {
        "unconfined"
    } else {
        tool.isolation_mode().as_str()
    }
}

/// Says which tools run unconfined, when serving starts.
pub fn log_unconfined(logger: &Logger, manifest: &Manifest) {
    for tool in manifest
        .tools
        .iter()
        .filter(|t| isolation(t) == "unconfined")
    {
        let why = launch::unconfined(tool).unwrap_or("capsules are not confined yet");
        logger.warn("runs unconfined", json!({"tool": tool.name, "why": why}));
    }
}

fn input_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("object") => {
            schema.clone()
        }
        _ => json!({"type": "object", "properties": {}}),
    }
}

/// MCP wants an object schema for structured output; any other schema is
/// wrapped as the `result` property (and so is the value, see `structured`).
fn output_schema(schema: &Value) -> Value {
    if is_object_schema(schema) {
        schema.clone()
    } else {
        json!({"type": "object", "properties": {"result": schema}, "required": ["result"]})
    }
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// MCP tool annotations from the declared permissions. A tool that
/// declares none at all (a discovered executable, a tool.yaml without
/// `permissions`) gets none: clients then assume the worst (not read-only,
/// destructive, open world).
pub fn annotations(tool: &Tool) -> Option<Value> {
    if tool.source.kind == "discovered" || !tool.permissions_declared {
        return None;
    }
    let known = [
        "filesystem:read",
        "filesystem:write",
        "network",
        "process:exec",
    ];
    let unknown = tool
        .permissions
        .iter()
        .any(|p| !known.contains(&p.as_str()));
    let read_only = !unknown && tool.permissions.iter().all(|p| p == "filesystem:read");
    let destructive = unknown || tool.has("filesystem:write") || tool.has("process:exec");
    let open_world = unknown || tool.has("network") || tool.has("process:exec");
    Some(json!({
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "openWorldHint": open_world,
    }))
}

/// Runs one tools/call; Err only for protocol errors (an unknown tool).
/// A simple tool's stderr lines go to `reporter` while it runs.
pub async fn call(
    shared: &Shared,
    name: &str,
    args: Map<String, Value>,
    peer: Option<&Peer<RoleServer>>,
    mut reporter: Option<Reporter>,
) -> Result<Value, ErrorData> {
    let manifest = shared.manifest();
    let Some(tool) = manifest.tool(name) else {
        let error = ToolError::new(
            ToolCode::UnsupportedTool,
            format!("no tool '{name}' is served here"),
            false,
        );
        shared.logger.info(
            "tool call",
            json!({"tool": name, "outcome": "error", "tool_code": error.code, "duration_ms": 0}),
        );
        return Err(ErrorData::invalid_params(
            format!("unknown tool '{name}'"),
            Some(error.to_json()),
        ));
    };
    let timeout = shared.timeout_of(&manifest, tool);
    let started = Instant::now();
    let max_attempts = tool.retry.as_ref().map_or(1, |r| r.max_attempts.max(1));
    let mut attempt = 1;
    let args = Value::Object(args);
    // MCP: servers validate inputs; a violation is a tool error the model
    // can correct, and nothing runs.
    let checked = tool
        .check_input(&args)
        .map_err(|v| invalid(ToolCode::InvalidArguments, tool, &v, None));
    let Value::Object(args) = args else {
        unreachable!("made from a map")
    };
    // A person approves each call of a tool that needs it, or it fails
    // closed; checked arguments are what they are asked about.
    let checked = match checked {
        Ok(()) if tool.approval_required => approval::ask(peer, tool, &args)
            .await
            .map_err(|error| failure(error, None)),
        other => other,
    };
    let result = match checked {
        Err(failed) => Err(failed),
        Ok(()) => loop {
            let outcome = if tool.is_capsule() {
                capsule_call(shared, tool, &args, timeout).await
            } else {
                simple_call(
                    shared,
                    &manifest.settings,
                    tool,
                    &args,
                    timeout,
                    reporter.as_mut(),
                )
                .await
            };
            match outcome {
                Err((error, _)) if error.retryable && attempt < max_attempts => {
                    let delay = backoff(tool.retry.as_ref().expect("max_attempts > 1"), attempt);
                    shared.logger.warn(
                        "retrying tool call",
                        json!({"tool": name, "attempt": attempt, "tool_code": error.code, "delay_ms": delay.as_millis() as u64}),
                    );
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
                other => break other,
            }
        },
    };
    let duration_ms = started.elapsed().as_millis() as u64;
    Ok(match result {
        Ok(value) => {
            shared.logger.info(
                "tool call",
                json!({"tool": name, "outcome": "ok", "duration_ms": duration_ms, "attempts": attempt}),
            );
            value
        }
        Err((error, value)) => {
            shared.logger.info(
                "tool call",
                json!({"tool": name, "outcome": "error", "duration_ms": duration_ms, "attempts": attempt,
                       "tool_code": error.code, "tool_reason": error.reason, "retryable": error.retryable}),
            );
            value
        }
    })
}

type Outcome = Result<Value, (ToolError, Value)>;

async fn simple_call(
    shared: &Shared,
    settings: &Settings,
    tool: &Tool,
    args: &Map<String, Value>,
    timeout: Duration,
    reporter: Option<&mut Reporter>,
) -> Outcome {
    let mut call = match invoke::invocation(tool, args) {
        Ok(call) => call,
        Err(unsafe_name) => {
            let error = ToolError::new(ToolCode::InvalidArguments, unsafe_name.to_string(), false);
            return Err(failure(error, None));
        }
    };
    let limits = Limits {
        timeout,
        max_output: shared.max_output,
    };
    let (spawn, _tmp) = match confine(shared, settings, tool) {
        Ok(ready) => ready,
        Err(error) => return Err(failure(error, None)),
    };
    // The interpreter the confinement allows, not a shim before it.
    launch::resolve_program(&spawn, &mut call.argv);
    match run_reporting(tool, call, limits, spawn, reporter).await {
        Ok(output) if output.code == Some(0) => success(tool, &output),
        Ok(output) => {
            let reason = match (output.code, output.signal) {
                (Some(code), _) => format!("{} exited with status {code}", tool.name),
                (None, Some(sig)) => format!("{} was killed by signal {sig}", tool.name),
                _ => format!("{} failed", tool.name),
            };
            let error = ToolError::new(ToolCode::ExitNonzero, with_stderr(reason, &output), false);
            Err(failure(error, Some(&output)))
        }
        Err(RunError::Spawn(e)) => {
            let error = ToolError::new(
                ToolCode::SpawnFailed,
                format!(
                    "cannot run {}: {e} (command: {})",
                    tool.name,
                    tool.command.join(" ")
                ),
                errors::spawn_retryable(&e),
            );
            Err(failure(error, None))
        }
        Err(RunError::Timeout { after, output }) => {
            let error = ToolError::new(
                ToolCode::Timeout,
                format!(
                    "{} timed out after {} ms and was stopped; raise runtime.timeout_ms in tool.yaml or timeout in orla.yaml",
                    tool.name,
                    after.as_millis()
                ),
                true,
            );
            Err(failure(error, Some(&output)))
        }
        Err(RunError::TooLarge { limit, output }) => {
            let error = ToolError::new(
                ToolCode::OutputTooLarge,
                format!(
                    "{} wrote more than {limit} bytes of output and was stopped",
                    tool.name
                ),
                false,
            );
            Err(failure(error, Some(&output)))
        }
    }
}

/// Runs the call, turning each stderr line into a notification while it
/// runs; every line read by the time the tool is done is sent before the
/// result.
async fn run_reporting(
    tool: &Tool,
    call: invoke::Invocation,
    limits: Limits,
    spawn: Spawn,
    reporter: Option<&mut Reporter>,
) -> Result<Output, RunError> {
    let Some(reporter) = reporter else {
        return exec::run(tool, call, limits, spawn).await;
    };
    let (lines, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (done, mut finished) = tokio::sync::oneshot::channel();
    let run = async {
        let ran = exec::run_streaming(tool, call, limits, spawn, Some(lines)).await;
        let _ = done.send(());
        ran
    };
    // Polled alongside the run, so a client slow to take notifications
    // never holds up the timeout.
    let forward = async {
        loop {
            tokio::select! {
                biased;
                Some(line) = rx.recv() => reporter.line(&line).await,
                _ = &mut finished => break,
            }
        }
        // A reader left behind (a process that escaped the group) may still
        // hold the sender: take only what is there.
        while let Ok(line) = rx.try_recv() {
            reporter.line(&line).await;
        }
    };
    tokio::join!(run, forward).0
}

/// The environment and confinement of a call of `tool` ([`launch::prepare`]),
/// and the private temporary directory that lives as long as the call.
fn confine(
    shared: &Shared,
    settings: &Settings,
    tool: &Tool,
) -> Result<(Spawn, Option<tempfile::TempDir>), ToolError> {
    let server = |name: &str| std::env::var(name).ok();
    let tmp = || tempfile::Builder::new().prefix("orla-call-").tempdir();
    let launch = launch::prepare(tool, settings, server, tmp).map_err(|e| match &e {
        LaunchError::Sandbox(sandbox) => ToolError::new(
            ToolCode::SandboxUnavailable,
            format!("{sandbox}; {}", sandbox.hint()),
            false,
        ),
        LaunchError::Tmp { .. } => ToolError::new(ToolCode::SpawnFailed, e.to_string(), true),
    })?;
    if let Some(e) = &launch.degraded {
        shared.logger.warn(
            "running unconfined (isolation: best-effort)",
            json!({"tool": tool.name, "reason": e.to_string()}),
        );
    }
    Ok((launch.spawn, launch.tmp))
}

fn with_stderr(reason: String, output: &Output) -> String {
    let stderr = report::without_progress(&String::from_utf8_lossy(&output.stderr));
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    match last {
        Some(line) => format!("{reason}: {}", line.trim()),
        None => reason,
    }
}

fn text(t: impl Into<String>) -> Value {
    json!({"type": "text", "text": t.into()})
}

fn success(tool: &Tool, output: &Output) -> Outcome {
    // stderr went to the client as notifications while the call ran.
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut result = json!({
        "content": [text(stdout.clone())],
        "isError": false,
        "_meta": {"orla/exit_code": output.code, "orla/duration_ms": output.duration.as_millis() as u64},
    });
    if let Some(schema) = &tool.output_schema {
        // A result without the structured content its schema promises makes
        // SDK clients fail the call as a protocol error: the answer is a
        // tool error instead, with the text kept.
        let value = match serde_json::from_str::<Value>(&stdout) {
            Ok(value) => value,
            Err(e) => {
                let error = ToolError::new(
                    ToolCode::InvalidOutput,
                    format!(
                        "{} declares an output schema, but its output is not JSON ({e})",
                        tool.name
                    ),
                    false,
                );
                return Err(failure(error, Some(output)));
            }
        };
        if let Err(v) = tool.check_output(&value) {
            return Err(invalid(ToolCode::InvalidOutput, tool, &v, Some(output)));
        }
        result["structuredContent"] = structured(schema, value);
    }
    Ok(result)
}

/// The failure of a call whose arguments (`invalid_arguments`) or answer
/// (`invalid_output`) break the tool's schema, each violation in
/// `_meta["orla/violations"]`.
fn invalid(
    code: ToolCode,
    tool: &Tool,
    violations: &Violations,
    output: Option<&Output>,
) -> (ToolError, Value) {
    let reason = match code {
        ToolCode::InvalidArguments => format!(
            "invalid arguments for {}: {}",
            tool.name,
            violations.describe("argument")
        ),
        _ => format!(
            "the output of {} breaks its output schema: {}",
            tool.name,
            violations.describe("value")
        ),
    };
    let (error, mut value) = failure(ToolError::new(code, reason, false), output);
    value["_meta"]["orla/violations"] = violations.to_json();
    (error, value)
}

fn structured(schema: &Value, value: Value) -> Value {
    if is_object_schema(schema) {
        value
    } else {
        json!({ "result": value })
    }
}

/// An `isError` result carrying the taxonomy in `_meta["orla/error"]`.
fn failure(error: ToolError, output: Option<&Output>) -> (ToolError, Value) {
    let mut content = vec![text(error.reason.clone())];
    let mut meta = json!({"orla/error": error.to_json()});
    if let Some(output) = output {
        if !output.stdout.is_empty() {
            content.push(text(format!(
                "stdout:\n{}",
                tail(&String::from_utf8_lossy(&output.stdout))
            )));
        }
        let stderr = report::without_progress(&String::from_utf8_lossy(&output.stderr));
        if !stderr.is_empty() {
            content.push(text(format!("stderr:\n{}", tail(&stderr))));
        }
        meta["orla/exit_code"] = json!(output.code);
        meta["orla/duration_ms"] = json!(output.duration.as_millis() as u64);
    }
    let value = json!({"content": content, "isError": true, "_meta": meta});
    (error, value)
}

/// Bytes of a failed call's stdout, and of its stderr, its result keeps.
const FAILED_OUTPUT: usize = 64 * 1024;

/// The end of a failed call's output, where the reason usually is: all of
/// it up to [`FAILED_OUTPUT`] bytes, else its last bytes after a line
/// saying how much was left out. A model gains nothing from megabytes of a
/// tool that was stopped, and each would be copied several times on its
/// way to the client.
fn tail(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= FAILED_OUTPUT {
        return text.into();
    }
    let mut start = text.len() - FAILED_OUTPUT;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("[{start} earlier bytes left out]\n{}", &text[start..]).into()
}

async fn capsule_call(
    shared: &Shared,
    tool: &Tool,
    args: &Map<String, Value>,
    timeout: Duration,
) -> Outcome {
    let params = json!({"name": tool.name, "arguments": args});
    match shared.capsules.call(&tool.name, params, timeout).await {
        Ok(result) => capsule_result(tool, result),
        Err(error) => Err(failure(error, None)),
    }
}

/// A capsule's answer: an MCP CallToolResult passes as it is; any other
/// value becomes text and, when the tool declares an output schema (or the
/// value is an object), structured content. Structured content must be
/// what the output schema accepts.
fn capsule_result(tool: &Tool, result: Value) -> Outcome {
    if result.get("content").is_some_and(Value::is_array) {
        let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
        if let (Some(schema), false) = (&tool.output_schema, failed) {
            let declared = match result.get("structuredContent") {
                Some(v) if is_object_schema(schema) => Some(v),
                Some(v) => v.get("result"),
                None => None,
            };
            let checked = match declared {
                Some(value) => tool.check_output(value),
                None => Err(Violations::missing_structured_content()),
            };
            if let Err(v) = checked {
                let (error, mut value) = invalid(ToolCode::InvalidOutput, tool, &v, None);
                keep_content(&mut value, &result);
                return Err((error, value));
            }
        }
        return Ok(result);
    }
    let mut out = json!({"content": [text(result.to_string())], "isError": false});
    if let Some(schema) = &tool.output_schema {
        if let Err(v) = tool.check_output(&result) {
            let (error, mut value) = invalid(ToolCode::InvalidOutput, tool, &v, None);
            keep_content(&mut value, &out);
            return Err((error, value));
        }
        out["structuredContent"] = structured(schema, result);
    } else if result.is_object() {
        out["structuredContent"] = result;
    }
    Ok(out)
}

/// Appends the content of the answer a check refused to the error result,
/// so the text the tool wrote is not lost.
fn keep_content(value: &mut Value, answer: &Value) {
    if let (Some(content), Some(kept)) = (
        value["content"].as_array_mut(),
        answer.get("content").and_then(Value::as_array),
    ) {
        content.extend(kept.iter().cloned());
    }
}

/// Capped exponential backoff with the policy's jitter (Orloj seed).
fn backoff(retry: &crate::manifest::Retry, attempt: u32) -> Duration {
    let base = retry
        .backoff_ms
        .saturating_mul(1u64 << (attempt - 1).min(20));
    let capped = retry.max_backoff_ms.map_or(base, |m| base.min(m));
    let ms = match retry.jitter.as_str() {
        "full" => random_below(capped + 1),
        "equal" => capped / 2 + random_below(capped / 2 + 1),
        _ => capped,
    };
    Duration::from_millis(ms)
}

fn random_below(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos() as u64;
    let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x % n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{Retry, Source};

    #[test]
    fn a_failed_calls_output_is_cut_to_its_end() {
        assert_eq!(tail("short"), "short");
        let b = "b".repeat(FAILED_OUTPUT - 1);
        // 10 bytes, a 2-byte character the cut falls inside, then the end.
        let long = format!("{}é{b}", "a".repeat(10));
        assert_eq!(tail(&long), format!("[12 earlier bytes left out]\n{b}"));
        let exact = "c".repeat(FAILED_OUTPUT);
        assert_eq!(tail(&exact), exact);
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let r = Retry {
            max_attempts: 5,
            backoff_ms: 100,
            max_backoff_ms: Some(250),
            jitter: "none".into(),
        };
        assert_eq!(backoff(&r, 1), Duration::from_millis(100));
        assert_eq!(backoff(&r, 2), Duration::from_millis(200));
        assert_eq!(backoff(&r, 3), Duration::from_millis(250));
    }

    fn tool_with(permissions: &[&str], kind: &str) -> Tool {
        let mut t: Tool = serde_json::from_value(json!({
            "name": "t", "version": "1", "description": "", "command": ["/t"], "arguments": "flags",
            "working_dir": "/", "args": [], "env": {}, "mode": "simple", "capsule": null,
            "timeout_ms": null, "startup_timeout_ms": null, "hot_load": null, "retry": null,
            "input_schema": {"type": "object"}, "output_schema": null, "permissions": [],
            "source": {"kind": "registry"}
        }))
        .unwrap();
        t.permissions = permissions.iter().map(|p| p.to_string()).collect();
        t.source = Source { kind: kind.into() };
        t
    }

    #[test]
    fn annotations_follow_permissions() {
        let a = |p: &[&str]| annotations(&tool_with(p, "registry")).unwrap();
        assert_eq!(a(&["filesystem:read"])["readOnlyHint"], true);
        assert_eq!(a(&[])["destructiveHint"], false);
        assert_eq!(a(&["network"])["openWorldHint"], true);
        assert_eq!(a(&["network"])["readOnlyHint"], false);
        assert_eq!(a(&["filesystem:write"])["destructiveHint"], true);
        assert_eq!(a(&["filesystem:write"])["openWorldHint"], false);
        assert_eq!(a(&["gpu"])["destructiveHint"], true);
        assert!(annotations(&tool_with(&[], "discovered")).is_none());
        let mut undeclared = tool_with(&[], "registry");
        undeclared.permissions_declared = false;
        assert!(annotations(&undeclared).is_none());
    }

    #[test]
    fn non_object_output_schemas_are_wrapped() {
        let s = json!({"type": "array"});
        assert_eq!(output_schema(&s)["properties"]["result"], s);
        assert_eq!(structured(&s, json!([1])), json!({"result": [1]}));
        let o = json!({"type": "object"});
        assert_eq!(output_schema(&o), o);
    }
}
