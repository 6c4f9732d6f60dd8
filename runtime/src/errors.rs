//! The error taxonomy of a failed call, as in the Orloj tool contract:
//! `tool_code` (machine-readable), `tool_reason` (one line for people) and
//! `retryable` (whether `runtime.retry` may try again). docs/runtime.md
//! lists the codes.

use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub code: &'static str,
    pub reason: String,
    pub retryable: bool,
}

impl ToolError {
    pub fn new(code: &'static str, reason: impl Into<String>, retryable: bool) -> ToolError {
        ToolError {
            code,
            reason: reason.into(),
            retryable,
        }
    }

    pub fn to_json(&self) -> Value {
        json!({"tool_code": self.code, "tool_reason": self.reason, "retryable": self.retryable})
    }
}

/// The tool is not in the manifest (a protocol error, not a tool result).
pub const UNKNOWN_TOOL: &str = "unsupported_tool";
/// The call ran longer than its timeout; the process group was killed.
pub const TIMEOUT: &str = "timeout";
/// The tool exited with a non-zero status or was killed by a signal.
pub const EXIT_NONZERO: &str = "exit_nonzero";
/// The process could not be started.
pub const SPAWN_FAILED: &str = "spawn_failed";
/// stdout or stderr passed the output cap; the process group was killed.
pub const OUTPUT_TOO_LARGE: &str = "output_too_large";
/// The capsule is not running (handshake failed, crashed, stopped).
pub const CAPSULE_UNAVAILABLE: &str = "capsule_unavailable";
/// The capsule answered the request with a JSON-RPC error.
pub const CAPSULE_ERROR: &str = "capsule_error";

/// Whether a failure to start a process may pass on its own.
pub fn spawn_retryable(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        WouldBlock | Interrupted | OutOfMemory | ResourceBusy | TimedOut
    ) || e.raw_os_error() == Some(libc::EAGAIN)
        || e.raw_os_error() == Some(libc::EMFILE)
        || e.raw_os_error() == Some(libc::ENFILE)
}
