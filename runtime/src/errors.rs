//! The error taxonomy of a failed call, as in the Orloj tool contract:
//! `tool_code` (machine-readable), `tool_reason` (one line for people) and
//! `retryable` (whether `runtime.retry` may try again). docs/runtime.md
//! lists the codes.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub code: ToolCode,
    pub reason: String,
    pub retryable: bool,
}

/// A `tool_code`, written by its snake_case name (`exit_nonzero`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCode {
    /// The tool is not in the manifest (a protocol error, not a tool result).
    UnsupportedTool,
    /// The call ran longer than its timeout; the process group was killed.
    Timeout,
    /// The tool exited with a non-zero status or was killed by a signal.
    ExitNonzero,
    /// The process could not be started.
    SpawnFailed,
    /// stdout or stderr passed the output cap; the process group was killed.
    OutputTooLarge,
    /// The capsule is not running (handshake failed, crashed, stopped).
    CapsuleUnavailable,
    /// The capsule answered the request with a JSON-RPC error.
    CapsuleError,
    /// The arguments break the tool's input schema; nothing ran.
    InvalidArguments,
    /// The tool's answer is not JSON its output schema accepts.
    InvalidOutput,
    /// The tool must run confined and the kernel cannot confine it.
    SandboxUnavailable,
    /// The tool needs a person's approval and the client cannot ask.
    ApprovalRequired,
    /// The person declined (or dismissed) the call.
    ApprovalDenied,
}

impl ToolCode {
    pub const ALL: [ToolCode; 12] = [
        ToolCode::UnsupportedTool,
        ToolCode::Timeout,
        ToolCode::ExitNonzero,
        ToolCode::SpawnFailed,
        ToolCode::OutputTooLarge,
        ToolCode::CapsuleUnavailable,
        ToolCode::CapsuleError,
        ToolCode::InvalidArguments,
        ToolCode::InvalidOutput,
        ToolCode::SandboxUnavailable,
        ToolCode::ApprovalRequired,
        ToolCode::ApprovalDenied,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolCode::UnsupportedTool => "unsupported_tool",
            ToolCode::Timeout => "timeout",
            ToolCode::ExitNonzero => "exit_nonzero",
            ToolCode::SpawnFailed => "spawn_failed",
            ToolCode::OutputTooLarge => "output_too_large",
            ToolCode::CapsuleUnavailable => "capsule_unavailable",
            ToolCode::CapsuleError => "capsule_error",
            ToolCode::InvalidArguments => "invalid_arguments",
            ToolCode::InvalidOutput => "invalid_output",
            ToolCode::SandboxUnavailable => "sandbox_unavailable",
            ToolCode::ApprovalRequired => "approval_required",
            ToolCode::ApprovalDenied => "approval_denied",
        }
    }
}

impl std::fmt::Display for ToolCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToolError {
    pub fn new(code: ToolCode, reason: impl Into<String>, retryable: bool) -> ToolError {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes are a public format (docs/runtime.md): each is written as
    /// its name there, and `as_str` agrees with serde.
    #[test]
    fn codes_keep_their_documented_names() {
        let docs = include_str!("../../docs/runtime.md");
        for code in ToolCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, json!(code.as_str()));
            assert_eq!(serde_json::from_value::<ToolCode>(json).unwrap(), code);
            assert!(
                docs.contains(&format!("| `{code}` |")),
                "{code} is not in docs/runtime.md's table"
            );
        }
        let error = ToolError::new(ToolCode::ExitNonzero, "t exited with status 1", false);
        assert_eq!(
            error.to_json(),
            json!({"tool_code": "exit_nonzero", "tool_reason": "t exited with status 1", "retryable": false})
        );
    }
}
