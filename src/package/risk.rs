//! The permission vocabulary and the risk levels derived from it.
//!
//! Permissions are what a tool declares in tool.yaml; the risk level is what
//! orla and the runtime act on: it decides whether an install needs
//! confirmation (ARCHITECTURE.md, invariant 7). An unknown permission is kept as
//! written and counted as high risk, so a typo can never lower the risk.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    FilesystemRead,
    FilesystemWrite,
    Network,
    ProcessExec,
    Unknown(String),
}

impl Permission {
    pub fn parse(text: &str) -> Permission {
        match text {
            "filesystem:read" => Permission::FilesystemRead,
            "filesystem:write" => Permission::FilesystemWrite,
            "network" => Permission::Network,
            "process:exec" => Permission::ProcessExec,
            other => Permission::Unknown(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Permission::FilesystemRead => "filesystem:read",
            Permission::FilesystemWrite => "filesystem:write",
            Permission::Network => "network",
            Permission::ProcessExec => "process:exec",
            Permission::Unknown(s) => s,
        }
    }

    pub fn risk(&self) -> RiskLevel {
        match self {
            Permission::FilesystemRead => RiskLevel::Low,
            Permission::Network => RiskLevel::Medium,
            Permission::FilesystemWrite | Permission::Unknown(_) => RiskLevel::High,
            Permission::ProcessExec => RiskLevel::Critical,
        }
    }

    pub fn is_known(&self) -> bool {
        !matches!(self, Permission::Unknown(_))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
    Critical,
}

impl RiskLevel {
    /// The highest risk among the permissions; none at all is low.
    pub fn derive(permissions: &[Permission]) -> RiskLevel {
        permissions
            .iter()
            .map(Permission::risk)
            .max()
            .unwrap_or(RiskLevel::Low)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
            RiskLevel::Critical => "critical",
        }
    }

    /// Medium risk or more needs the user's consent before install.
    pub fn needs_confirmation(self) -> bool {
        self >= RiskLevel::Medium
    }
}

/// The openwop seed's safetyTier for a set of permissions.
pub fn safety_tier(permissions: &[Permission]) -> &'static str {
    if permissions
        .iter()
        .any(|p| matches!(p, Permission::ProcessExec | Permission::Unknown(_)))
    {
        "exec"
    } else if permissions.contains(&Permission::FilesystemWrite) {
        "write"
    } else if permissions.is_empty() {
        "pure"
    } else {
        "read"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perms(list: &[&str]) -> Vec<Permission> {
        list.iter().map(|p| Permission::parse(p)).collect()
    }

    #[test]
    fn highest_permission_wins() {
        assert_eq!(RiskLevel::derive(&perms(&[])), RiskLevel::Low);
        assert_eq!(
            RiskLevel::derive(&perms(&["filesystem:read"])),
            RiskLevel::Low
        );
        assert_eq!(
            RiskLevel::derive(&perms(&["filesystem:read", "network"])),
            RiskLevel::Medium
        );
        assert_eq!(
            RiskLevel::derive(&perms(&["network", "filesystem:write"])),
            RiskLevel::High
        );
        assert_eq!(
            RiskLevel::derive(&perms(&["process:exec", "network"])),
            RiskLevel::Critical
        );
    }

    #[test]
    fn unknown_permission_is_high_risk() {
        assert_eq!(
            RiskLevel::derive(&perms(&["filesystem:reed"])),
            RiskLevel::High
        );
    }

    #[test]
    fn safety_tiers_follow_permissions() {
        assert_eq!(safety_tier(&perms(&[])), "pure");
        assert_eq!(safety_tier(&perms(&["filesystem:read"])), "read");
        assert_eq!(safety_tier(&perms(&["network"])), "read");
        assert_eq!(safety_tier(&perms(&["filesystem:write"])), "write");
        assert_eq!(safety_tier(&perms(&["process:exec"])), "exec");
    }
}
