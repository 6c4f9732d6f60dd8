//! The approval gate: a tool whose calls need a person's approval (critical
//! risk, or `approval: required` in orla.yaml / config.yaml, unless
//! config.yaml pre-approves it) is asked about before each call through MCP
//! elicitation, when the client supports it. Without a way to ask, the call
//! fails closed (`approval_required`), naming the setting that pre-approves
//! the tool. Runloop's `requires_confirmation` and openwop's `approval` are
//! the same idea (docs/runtime.md, "Approval").

use rmcp::model::{ElicitRequestParams, ElicitationAction};
use rmcp::service::{ElicitationMode, Peer};
use rmcp::RoleServer;
use serde_json::{json, Map, Value};

use crate::errors::{ToolCode, ToolError};
use crate::manifest::Tool;

/// Asks the person behind `peer` whether `tool` may run with `args`.
pub async fn ask(
    peer: Option<&Peer<RoleServer>>,
    tool: &Tool,
    args: &Map<String, Value>,
) -> Result<(), ToolError> {
    let can_ask = peer.filter(|p| {
        p.supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
    });
    let Some(peer) = can_ask else {
        return Err(required(
            tool,
            "this MCP client cannot ask (it does not support elicitation)",
        ));
    };
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question(tool, args),
        // Nothing to fill in: accept or decline.
        requested_schema: serde_json::from_value(json!({"type": "object", "properties": {}}))
            .expect("an empty object schema"),
    };
    match peer.create_elicitation(params).await {
        Ok(answer) if answer.action == ElicitationAction::Accept => Ok(()),
        Ok(answer) => Err(ToolError::new(
            ToolCode::ApprovalDenied,
            format!(
                "the call of {} was not approved ({})",
                tool.name,
                match answer.action {
                    ElicitationAction::Decline => "declined",
                    _ => "cancelled",
                }
            ),
            false,
        )),
        Err(e) => Err(required(tool, &format!("asking failed: {e}"))),
    }
}

fn required(tool: &Tool, why: &str) -> ToolError {
    ToolError::new(
        ToolCode::ApprovalRequired,
        format!(
            "{} needs a person's approval for each call (risk: {}), and {why}; use an MCP client that supports elicitation, or pre-approve it in ~/.orla/config.yaml: `runtime: {{tools: {{{}: {{approval: pre-approved}}}}}}`",
            tool.name,
            tool.risk_level.as_str(),
            tool.name
        ),
        false,
    )
}

/// What the person is asked: the tool, what it may do, the arguments.
pub fn question(tool: &Tool, args: &Map<String, Value>) -> String {
    let permissions = if tool.permissions_declared {
        if tool.permissions.is_empty() {
            "none".to_string()
        } else {
            tool.permissions.join(", ")
        }
    } else {
        "undeclared".to_string()
    };
    let mut shown = Value::Object(args.clone()).to_string();
    if shown.len() > 1000 {
        let mut end = 1000;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push_str("...");
    }
    format!(
        "Allow {} {} (risk: {}; permissions: {permissions}) to run with {shown}?",
        tool.name,
        tool.version,
        tool.risk_level.as_str(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_names_the_tool_its_risk_and_the_arguments() {
        let tool = Tool {
            name: "deploy".into(),
            version: "1.0.0".into(),
            permissions: vec!["process:exec".into()],
            permissions_declared: true,
            risk_level: crate::manifest::Risk::Critical,
            ..Tool::default()
        };
        let args = json!({"target": "prod"}).as_object().unwrap().clone();
        assert_eq!(
            question(&tool, &args),
            "Allow deploy 1.0.0 (risk: critical; permissions: process:exec) to run with {\"target\":\"prod\"}?"
        );
        let long = json!({"x": "é".repeat(800)}).as_object().unwrap().clone();
        assert!(question(&tool, &long).contains("...?"));
    }
}
