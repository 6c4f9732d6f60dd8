//! Tool names and versions. Both end up as path components
//! (`tools/<name>/<version>/`), so these checks are part of the path-safety
//! guarantee: a name or version that passes cannot climb out of a directory.

pub const MAX_NAME_LEN: usize = 64;

/// Why a tool name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a tool name cannot be empty")]
    Empty,
    /// `start` is the name's first 16 characters.
    #[error("tool name '{start}…' is {chars} characters long; the limit is {MAX_NAME_LEN}")]
    TooLong { start: String, chars: usize },
    #[error("tool name '{}' must start with a lowercase letter or digit", name.escape_debug())]
    BadStart { name: String },
    #[error(
        "tool name '{}' contains '{}'; use lowercase letters, digits, '.', '_' and '-'",
        name.escape_debug(),
        found.escape_debug()
    )]
    BadChar { name: String, found: char },
}

/// For callers that put the reason into a message of their own.
impl From<NameError> for String {
    fn from(e: NameError) -> String {
        e.to_string()
    }
}

/// A version that is not SemVer 2.0.
#[derive(Debug, thiserror::Error)]
#[error(
    "'{}' is not a semantic version ({source}); write MAJOR.MINOR.PATCH, e.g. 1.0.0",
    text.escape_debug()
)]
pub struct VersionError {
    pub text: String,
    #[source]
    pub source: semver::Error,
}

/// Checks a tool name: `[a-z0-9][a-z0-9._-]*`, at most 64 characters.
pub fn validate_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > MAX_NAME_LEN {
        return Err(NameError::TooLong {
            start: name[..name.char_indices().nth(16).map_or(name.len(), |(i, _)| i)].to_string(),
            chars: name.chars().count(),
        });
    }
    let mut chars = name.chars();
    let first = chars.next().expect("not empty");
    if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
        return Err(NameError::BadStart {
            name: name.to_string(),
        });
    }
    if let Some(found) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-')))
    {
        return Err(NameError::BadChar {
            name: name.to_string(),
            found,
        });
    }
    Ok(())
}

/// Parses a SemVer 2.0 version as written in tool.yaml and index records
/// (no `v` prefix there: that form belongs to specs and git tags).
pub fn parse_version(text: &str) -> Result<semver::Version, VersionError> {
    semver::Version::parse(text).map_err(|source| VersionError {
        text: text.to_string(),
        source,
    })
}

pub fn validate_version(text: &str) -> Result<semver::Version, VersionError> {
    parse_version(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_names() {
        for n in ["fs-read", "a", "0", "json.query", "x_y", "a..b"] {
            assert!(validate_name(n).is_ok(), "{n}");
        }
    }

    #[test]
    fn refuses_names_that_could_form_paths() {
        for n in [
            "", ".", "..", "../x", "a/b", "a\\b", "/abs", "-flag", "_x", "Upper", "a b", "é",
            "a\0b",
        ] {
            assert!(validate_name(n).is_err(), "{n:?}");
        }
        assert!(validate_name(&"a".repeat(65)).is_err());
        // The length said is in characters, not bytes.
        let long = format!("{}é", "a".repeat(70));
        assert!(validate_name(&long)
            .unwrap_err()
            .to_string()
            .contains("is 71 characters long"));
        assert!(validate_name(&"a".repeat(64)).is_ok());
    }

    #[test]
    fn versions_are_strict_semver() {
        assert!(parse_version("1.2.3").is_ok());
        assert!(parse_version("2.0.0-rc.1").is_ok());
        for v in ["v1.2.3", "1.2", "../1.0.0", "1.0.0/x", ""] {
            assert!(parse_version(v).is_err(), "{v}");
        }
    }
}
