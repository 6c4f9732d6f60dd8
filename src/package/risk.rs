//! The permission vocabulary and the risk levels derived from it.
//!
//! Permissions are what a tool declares in tool.yaml; the risk level is what
//! orla and the runtime act on: it decides whether an install needs
//! confirmation (ARCHITECTURE.md, invariant 7). An unknown permission is kept as
//! written and counted as high risk, so a typo can never lower the risk.
//!
//! Nothing a package writes can lower its risk either: a tool.yaml with no
//! `permissions` key has *undeclared* permissions (it may do anything, and
//! every tool written before permissions existed looks like this), which
//! counts as high, unlike `permissions: []`, which declares none; and an
//! author's `risk_level` can raise the level the permissions give, never
//! lower it (docs/tool-yaml.md, "Permissions and risk").

use serde::{Deserialize, Serialize};

/// tool.yaml's `permissions`: `None` when the key is absent (undeclared),
/// else the list as written, which may be empty (no permissions at all).
/// Reads as the list (empty when undeclared) wherever only the list matters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Permissions(Option<Vec<String>>);

impl Permissions {
    pub fn declared(list: Vec<String>) -> Permissions {
        Permissions(Some(list))
    }

    pub fn is_declared(&self) -> bool {
        self.0.is_some()
    }

    /// For `skip_serializing_if`: an undeclared list is not written at all.
    pub fn is_undeclared(&self) -> bool {
        self.0.is_none()
    }

    /// `undeclared`, `none`, or the permissions joined by commas: how they
    /// are shown to a person.
    pub fn describe(&self) -> String {
        match &self.0 {
            None => "undeclared".into(),
            Some(list) => describe(list),
        }
    }

    /// The risk the permissions give: undeclared is high.
    pub fn risk(&self) -> RiskLevel {
        match &self.0 {
            None => RiskLevel::High,
            Some(list) => RiskLevel::derive(&parse_all(list)),
        }
    }

    /// The openwop safetyTier: undeclared, like an unknown permission, may
    /// do anything.
    pub fn safety_tier(&self) -> &'static str {
        match &self.0 {
            None => "exec",
            Some(list) => safety_tier(&parse_all(list)),
        }
    }
}

impl std::ops::Deref for Permissions {
    type Target = [String];

    fn deref(&self) -> &[String] {
        self.0.as_deref().unwrap_or_default()
    }
}

fn parse_all(list: &[String]) -> Vec<Permission> {
    list.iter().map(|p| Permission::parse(p)).collect()
}

/// A declared list as shown to a person: `none`, or joined by commas.
pub fn describe(list: &[String]) -> String {
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

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
    fn undeclared_permissions_are_high_risk_and_none_are_low() {
        let undeclared: Permissions = serde_yaml::from_str::<Option<Permissions>>("null")
            .unwrap()
            .unwrap_or_default();
        assert!(!undeclared.is_declared());
        assert_eq!(undeclared.risk(), RiskLevel::High);
        assert_eq!(undeclared.safety_tier(), "exec");
        assert_eq!(undeclared.describe(), "undeclared");
        assert!(undeclared.is_empty());
        let none = Permissions::declared(vec![]);
        assert_eq!(none.risk(), RiskLevel::Low);
        assert_eq!(none.safety_tier(), "pure");
        assert_eq!(none.describe(), "none");
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
