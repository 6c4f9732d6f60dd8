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
    pub fn safety_tier(&self) -> SafetyTier {
        match &self.0 {
            None => SafetyTier::Exec,
            Some(list) => SafetyTier::derive(&parse_all(list)),
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

impl std::fmt::Display for RiskLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The openwop seed's safetyTier: what a tool may do, from doing nothing
/// outside its process (`pure`) to running other programs (`exec`).
/// Written in the manifest by its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SafetyTier {
    /// No permissions at all.
    Pure,
    /// Reads files or the network, changes nothing on this machine.
    Read,
    /// Writes files.
    Write,
    /// Runs programs, or holds a permission orla does not know.
    Exec,
}

impl SafetyTier {
    /// The tier of a set of permissions: an unknown one counts as `exec`.
    pub fn derive(permissions: &[Permission]) -> SafetyTier {
        if permissions
            .iter()
            .any(|p| matches!(p, Permission::ProcessExec | Permission::Unknown(_)))
        {
            SafetyTier::Exec
        } else if permissions.contains(&Permission::FilesystemWrite) {
            SafetyTier::Write
        } else if permissions.is_empty() {
            SafetyTier::Pure
        } else {
            SafetyTier::Read
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SafetyTier::Pure => "pure",
            SafetyTier::Read => "read",
            SafetyTier::Write => "write",
            SafetyTier::Exec => "exec",
        }
    }
}

impl std::fmt::Display for SafetyTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The manifest's tool entry still keeps the tier as text.
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
        assert_eq!(undeclared.safety_tier(), SafetyTier::Exec);
        assert_eq!(undeclared.describe(), "undeclared");
        assert!(undeclared.is_empty());
        let none = Permissions::declared(vec![]);
        assert_eq!(none.risk(), RiskLevel::Low);
        assert_eq!(none.safety_tier(), SafetyTier::Pure);
        assert_eq!(none.describe(), "none");
    }

    #[test]
    fn safety_tiers_follow_permissions() {
        let tier = |list: &[&str]| SafetyTier::derive(&perms(list));
        assert_eq!(tier(&[]), SafetyTier::Pure);
        assert_eq!(tier(&["filesystem:read"]), SafetyTier::Read);
        assert_eq!(tier(&["network"]), SafetyTier::Read);
        assert_eq!(tier(&["filesystem:write"]), SafetyTier::Write);
        assert_eq!(tier(&["process:exec"]), SafetyTier::Exec);
        assert_eq!(tier(&["filesystem:reed"]), SafetyTier::Exec);
    }

    /// The manifest's `safety_tier` and `risk_level` keep their names.
    #[test]
    fn tiers_and_levels_are_written_by_their_lowercase_names() {
        for tier in [
            SafetyTier::Pure,
            SafetyTier::Read,
            SafetyTier::Write,
            SafetyTier::Exec,
        ] {
            let json = serde_json::to_string(&tier).unwrap();
            assert_eq!(json, format!("\"{tier}\""));
            assert_eq!(serde_json::from_str::<SafetyTier>(&json).unwrap(), tier);
            assert_eq!(tier.to_string(), tier.as_str());
        }
        assert_eq!(
            serde_json::to_string(&RiskLevel::Critical).unwrap(),
            "\"critical\""
        );
    }
}
