//! The openwop tool catalog's `ToolDescriptor` (RFC 0078 §C), derived from
//! the manifest alone, so the runtime can serve it and `orla export
//! --format openwop` prints the same records. The mapping, field by field,
//! is in docs/export.md; the descriptor's JSON Schema, with the RFC's
//! cross-field rules, is docs/tool-descriptor.schema.json.
//!
//! - `toolId` is `mcp:<name>`, the name `tools/list` gives, except for an
//!   exec-tier tool: RFC 0078 §C-1 and §F-4 allow exec only to a
//!   host-extension, so such a tool is `source: "host-extension"` with the
//!   id `x-host-orla-<name>`. Tool names (`[a-z0-9][a-z0-9._-]*`, or a
//!   discovered executable's file stem) need no escaping in either form,
//!   and the two prefixes cannot collide, so ids are unique and stable for
//!   as long as a tool's permissions are.
//! - Nothing of the tool's environment, command line or paths is carried:
//!   the catalog is secret-free (§F-3).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::manifest::{Manifest, SafetyTier, Tool};

/// The vendor part of orla's host-extension scope (`x-host-orla-...`).
pub const HOST_EXTENSION_PREFIX: &str = "x-host-orla-";
/// The scope of every tool that is not exec-tier.
pub const MCP_PREFIX: &str = "mcp:";

/// One descriptor (RFC 0078 §C). Optional fields orla cannot fill truly
/// (`auth`, `costHint`, `latencyHint`) are left out rather than guessed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescriptor {
    pub tool_id: String,
    pub source: ToolSource,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    pub egress: Egress,
    pub approval: Approval,
    pub replay_policy: ReplayPolicy,
    pub safety_tier: SafetyTier,
}

/// Which surface backs the tool: orla's tools are MCP tools, except that
/// an exec-tier one must be presented as a host extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolSource {
    Mcp,
    HostExtension,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Egress {
    /// Permissions declared, and `network` not among them.
    None,
    /// The tool opens its own connections (the `network` permission, or
    /// permissions undeclared): no host proxy stands between.
    HostOwned,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    Never,
    Always,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayPolicy {
    /// What orla can say of any tool: nothing in tool.yaml declares a tool
    /// deterministic or idempotent, so a host replaying a run must cache
    /// its result (RFC 0078 §C, `replayPolicy`).
    NonDeterministic,
}

/// The descriptor of one manifest tool.
pub fn descriptor(tool: &Tool) -> ToolDescriptor {
    let exec = tool.safety_tier == SafetyTier::Exec;
    let network = !tool.permissions_declared || tool.has("network");
    ToolDescriptor {
        tool_id: tool_id(tool),
        source: if exec {
            ToolSource::HostExtension
        } else {
            ToolSource::Mcp
        },
        title: tool.name.clone(),
        description: Some(tool.description.clone()).filter(|d| !d.is_empty()),
        input_schema: Some(tool.input_schema.clone()).filter(Value::is_object),
        output_schema: tool.output_schema.clone().filter(Value::is_object),
        egress: if network {
            Egress::HostOwned
        } else {
            Egress::None
        },
        approval: if tool.approval_required {
            Approval::Always
        } else {
            Approval::Never
        },
        replay_policy: ReplayPolicy::NonDeterministic,
        safety_tier: tool.safety_tier,
    }
}

/// `mcp:<name>`, or `x-host-orla-<name>` for an exec-tier tool.
pub fn tool_id(tool: &Tool) -> String {
    if tool.safety_tier == SafetyTier::Exec {
        format!("{HOST_EXTENSION_PREFIX}{}", tool.name)
    } else {
        format!("{MCP_PREFIX}{}", tool.name)
    }
}

/// Every tool the manifest serves, in its order.
pub fn catalog(manifest: &Manifest) -> Vec<ToolDescriptor> {
    manifest.tools.iter().map(descriptor).collect()
}

/// The descriptor whose `toolId` is `id`, if the manifest serves it.
pub fn find(manifest: &Manifest, id: &str) -> Option<ToolDescriptor> {
    manifest
        .tools
        .iter()
        .find(|t| tool_id(t) == id)
        .map(descriptor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Risk;
    use serde_json::json;

    fn tool(permissions: Option<&[&str]>, risk: Risk, tier: SafetyTier) -> Tool {
        let mut t: Tool = serde_json::from_value(json!({
            "name": "fs-read", "version": "1.2.1", "description": "Read a file",
            "command": ["python3", "/t/bin/fs-read"], "arguments": "flags",
            "working_dir": "/t", "args": [], "env": {"TOKEN": "secret"}, "mode": "simple",
            "capsule": null, "timeout_ms": null, "startup_timeout_ms": null, "hot_load": null,
            "retry": null, "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "output_schema": null, "permissions": [], "source": {"kind": "registry"}
        }))
        .unwrap();
        match permissions {
            Some(p) => t.permissions = p.iter().map(|s| s.to_string()).collect(),
            None => t.permissions_declared = false,
        }
        t.risk_level = risk;
        t.safety_tier = tier;
        // As orla resolves it with no orla.yaml or config.yaml setting.
        t.approval_required = risk == Risk::Critical;
        t
    }

    #[test]
    fn a_read_tool_is_an_mcp_tool_named_as_tools_list_names_it() {
        let d = descriptor(&tool(
            Some(&["filesystem:read"]),
            Risk::Low,
            SafetyTier::Read,
        ));
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(
            v,
            json!({
                "toolId": "mcp:fs-read", "source": "mcp", "title": "fs-read",
                "description": "Read a file",
                "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "egress": "none", "approval": "never", "replayPolicy": "non-deterministic",
                "safetyTier": "read"
            })
        );
        assert!(!v.to_string().contains("secret"), "no environment: {v}");
    }

    #[test]
    fn an_exec_tool_is_a_host_extension_that_needs_approval() {
        let d = descriptor(&tool(
            Some(&["process:exec"]),
            Risk::Critical,
            SafetyTier::Exec,
        ));
        assert_eq!(d.tool_id, "x-host-orla-fs-read");
        assert_eq!(d.source, ToolSource::HostExtension);
        assert_eq!(d.approval, Approval::Always);
        assert_eq!(d.egress, Egress::None);
    }

    #[test]
    fn egress_follows_the_network_permission_and_undeclared_permissions() {
        let net = descriptor(&tool(Some(&["network"]), Risk::Medium, SafetyTier::Read));
        assert_eq!(net.egress, Egress::HostOwned);
        assert_eq!(net.approval, Approval::Never);
        let undeclared = descriptor(&tool(None, Risk::High, SafetyTier::Exec));
        assert_eq!(undeclared.egress, Egress::HostOwned);
        assert_eq!(undeclared.source, ToolSource::HostExtension);
    }

    #[test]
    fn an_author_raised_risk_needs_approval_whatever_the_tier() {
        let d = descriptor(&tool(
            Some(&["filesystem:read"]),
            Risk::Critical,
            SafetyTier::Read,
        ));
        assert_eq!(d.approval, Approval::Always);
        assert_eq!(d.tool_id, "mcp:fs-read");
    }

    #[test]
    fn empty_descriptions_and_boolean_schemas_are_left_out() {
        let mut t = tool(Some(&[]), Risk::Low, SafetyTier::Pure);
        t.description.clear();
        t.output_schema = Some(json!(true));
        let v = serde_json::to_value(descriptor(&t)).unwrap();
        assert!(v.get("description").is_none(), "{v}");
        assert!(v.get("outputSchema").is_none(), "{v}");
        t.output_schema = Some(json!({"type": "array"}));
        assert_eq!(descriptor(&t).output_schema, Some(json!({"type": "array"})));
    }

    #[test]
    fn find_knows_a_tool_only_by_its_current_id() {
        let manifest = Manifest {
            manifest_version: crate::manifest::MANIFEST_VERSION,
            settings: Default::default(),
            tools: vec![tool(
                Some(&["process:exec"]),
                Risk::Critical,
                SafetyTier::Exec,
            )],
        };
        assert!(find(&manifest, "x-host-orla-fs-read").is_some());
        assert!(find(&manifest, "mcp:fs-read").is_none());
        assert_eq!(catalog(&manifest).len(), 1);
    }
}
