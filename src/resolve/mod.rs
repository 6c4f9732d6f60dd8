//! Version specs and version selection (the rules are in docs/install.md).
//!
//! The resolver is a pure function over candidates (anything with a version
//! and a yanked flag: an index's version records, a repository's tags): no
//! I/O, so every rule is tested directly.
//!
//! - `name`, `name@latest`: newest non-yanked stable; if none is stable, the
//!   newest pre-release.
//! - `name@1.2`, `name@1`: a partial version is a range, as in npm (newest 1.2.x, 1.x).
//! - `name@1.2.3`, `name@v1.2.3`: exactly that version (even if yanked, with a warning).
//! - `name@^1.2`, `~1.2`, `>=1.0, <2`: requirements in the semver crate's syntax.
//! - Pre-releases only when an exact version or a requirement names one.

use std::fmt;

use semver::{Version, VersionReq};

use crate::package::names;

#[derive(Debug, Clone, PartialEq)]
pub enum Requirement {
    Latest,
    Exact(Version),
    Range(VersionReq),
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Latest => f.write_str("latest"),
            Requirement::Exact(v) => write!(f, "={v}"),
            Requirement::Range(r) => write!(f, "{r}"),
        }
    }
}

/// `NAME[@VERSION]` as typed by a user.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub name: String,
    pub requirement: Requirement,
    /// The version part as typed, for messages.
    pub raw: Option<String>,
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.raw {
            Some(raw) => write!(f, "{}@{raw}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SpecError {
    #[error("invalid tool spec '{spec}': {reason}")]
    Invalid { spec: String, reason: String },
    /// A version written as another package manager writes it
    /// (`fs-read==1.2`, pip; `fs-read>=1.0`); `suggestion` is orla's way.
    #[error("invalid tool spec '{spec}': orla writes the version after '@'")]
    VersionSeparator { spec: String, suggestion: String },
}

impl SpecError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            SpecError::Invalid { .. } => "write NAME, NAME@VERSION or NAME@REQUIREMENT, e.g. fs-read, fs-read@1.2, fs-read@1.2.1, fs-read@^1.0".into(),
            SpecError::VersionSeparator { suggestion, .. } => {
                let quoted = if suggestion.contains(['<', '>', ' ']) {
                    format!("'{suggestion}'")
                } else {
                    suggestion.clone()
                };
                format!("did you mean {quoted}?")
            }
        })
    }
}

/// `fs-read==1.2` as orla writes it (`fs-read@1.2`), when `text` is a tool
/// name followed by a version the way pip, or a requirement file, writes
/// it: `==`, `=`, `>=`, `<=`, `>`, `<`, `~=`.
fn version_separator(text: &str) -> Option<String> {
    let at = text.find(['=', '<', '>', '~'])?;
    let (name, rest) = text.split_at(at);
    let name = name.trim_end();
    names::validate_name(name).ok()?;
    let version = match rest {
        _ if rest.starts_with("==") => rest[2..].trim().to_string(),
        // pip's compatible release: ~=1.2 is >=1.2, <2, as ^1.2.
        _ if rest.starts_with("~=") => format!("^{}", rest[2..].trim()),
        _ if rest.starts_with(['>', '<']) => rest.trim().to_string(),
        _ if rest.starts_with('=') => rest[1..].trim().to_string(),
        _ => return None,
    };
    parse_requirement(&version).ok()?;
    Some(format!("{name}@{version}"))
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ResolveError {
    #[error(
        "no version of {name} matches '{requirement}'; available: {}",
        list(available)
    )]
    NoMatch {
        name: String,
        requirement: String,
        available: Vec<Version>,
        /// The newest pre-release the requirement would match were it not
        /// a pre-release (`2.0.0-rc.1` for `@2`): only naming it installs it.
        prerelease: Option<Version>,
    },
    #[error("every version of {name} is yanked")]
    AllYanked { name: String },
    #[error("{name} has no published versions")]
    Empty { name: String },
}

impl ResolveError {
    pub fn hint(&self) -> Option<String> {
        match self {
            ResolveError::AllYanked { name } => Some(format!(
                "a yanked version is installed only when named exactly, e.g. `orla install {name}@VERSION`; `orla info {name}` lists them"
            )),
            ResolveError::NoMatch {
                name,
                available,
                prerelease,
                ..
            } => {
                // The newest stable version, else the newest pre-release.
                let newest = available
                    .iter()
                    .filter(|v| v.pre.is_empty())
                    .max()
                    .or_else(|| available.iter().max())?;
                let mut hint = format!(
                    "ask for one of the available versions, e.g. `orla install {name}@{newest}`"
                );
                if let Some(pre) = prerelease.as_ref().filter(|p| *p != newest) {
                    hint.push_str(&format!(
                        "; a range never picks a pre-release, so name {pre} exactly: `orla install {name}@{pre}`"
                    ));
                }
                Some(hint)
            }
            ResolveError::Empty { .. } => None,
        }
    }
}

fn list(versions: &[Version]) -> String {
    if versions.is_empty() {
        return "none".into();
    }
    versions
        .iter()
        .map(Version::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let invalid = |reason: String| SpecError::Invalid {
            spec: text.to_string(),
            reason,
        };
        let (name, version) = match text.split_once('@') {
            Some((n, v)) => (n, Some(v)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(invalid("the tool name is missing".into()));
        }
        if version.is_none() {
            if let Some(suggestion) = version_separator(text) {
                return Err(SpecError::VersionSeparator {
                    spec: text.to_string(),
                    suggestion,
                });
            }
        }
        if name.chars().any(|c| c.is_ascii_uppercase()) {
            return Err(invalid(format!(
                "tool names are lowercase; did you mean '{}'?",
                text.replacen(name, &name.to_ascii_lowercase(), 1)
            )));
        }
        names::validate_name(name).map_err(|e| invalid(e.to_string()))?;
        let Some(raw) = version else {
            return Ok(Spec {
                name: name.to_string(),
                requirement: Requirement::Latest,
                raw: None,
            });
        };
        let requirement = parse_requirement(raw.trim()).map_err(|e| invalid(e.to_string()))?;
        Ok(Spec {
            name: name.to_string(),
            requirement,
            raw: Some(raw.to_string()),
        })
    }
}

/// Why the part after `@` (or a requirement in orla.yaml) is not one.
#[derive(Debug, thiserror::Error)]
pub enum RequirementError {
    #[error("the version after '@' is empty")]
    Empty,
    #[error("'{raw}' is neither a version nor a requirement ({source})")]
    Invalid {
        raw: String,
        #[source]
        source: semver::Error,
    },
}

/// Parses the part after `@`.
pub fn parse_requirement(raw: &str) -> Result<Requirement, RequirementError> {
    let invalid = |source| RequirementError::Invalid {
        raw: raw.to_string(),
        source,
    };
    if raw.is_empty() {
        return Err(RequirementError::Empty);
    }
    if raw == "latest" {
        return Ok(Requirement::Latest);
    }
    let bare = match raw.strip_prefix('v') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
        _ => raw,
    };
    let is_partial = !bare.is_empty()
        && bare.split('.').count() <= 2
        && bare
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if is_partial {
        // `=1.2` in the semver crate is >=1.2.0, <1.3.0: npm's partial version.
        let req = VersionReq::parse(&format!("={bare}")).map_err(invalid)?;
        return Ok(Requirement::Range(req));
    }
    if let Ok(version) = Version::parse(bare) {
        return Ok(Requirement::Exact(version));
    }
    VersionReq::parse(raw)
        .map(Requirement::Range)
        .map_err(invalid)
}

/// Whether two versions are the same version: build metadata does not
/// distinguish versions (SemVer 10), as the index format says.
pub fn same_version(a: &Version, b: &Version) -> bool {
    a.cmp_precedence(b) == std::cmp::Ordering::Equal
}

/// The chosen record, and whether choosing it deserves a warning.
/// What the resolver chooses from.
pub trait Candidate {
    fn version(&self) -> &Version;
    /// Yanked candidates are chosen only by an exact version.
    fn yanked(&self) -> bool {
        false
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Selected<'a, C> {
    pub record: &'a C,
    pub yanked: bool,
}

pub fn select<'a, C: Candidate>(
    spec: &Spec,
    records: &'a [C],
) -> Result<Selected<'a, C>, ResolveError> {
    let name = spec.name.as_str();
    let requirement = &spec.requirement;
    if records.is_empty() {
        return Err(ResolveError::Empty { name: name.into() });
    }
    let live = || records.iter().filter(|r| !r.yanked());
    let chosen = match requirement {
        Requirement::Exact(v) => records.iter().find(|r| same_version(r.version(), v)),
        Requirement::Latest => {
            if live().next().is_none() {
                return Err(ResolveError::AllYanked { name: name.into() });
            }
            live()
                .filter(|r| r.version().pre.is_empty())
                .max_by(|a, b| a.version().cmp(b.version()))
                .or_else(|| live().max_by(|a, b| a.version().cmp(b.version())))
        }
        Requirement::Range(req) => live()
            .filter(|r| req.matches(r.version()))
            .max_by(|a, b| a.version().cmp(b.version())),
    };
    match chosen {
        Some(record) => Ok(Selected {
            record,
            yanked: record.yanked(),
        }),
        None => {
            let mut available: Vec<Version> = live().map(|r| r.version().clone()).collect();
            available.sort();
            let released = |v: &Version| Version::new(v.major, v.minor, v.patch);
            let prerelease = available
                .iter()
                .filter(|v| !v.pre.is_empty())
                .filter(|v| match requirement {
                    Requirement::Range(req) => req.matches(&released(v)),
                    Requirement::Exact(exact) => same_version(&released(v), exact),
                    Requirement::Latest => false,
                })
                .max()
                .cloned();
            Err(ResolveError::NoMatch {
                name: name.into(),
                requirement: spec.raw.clone().unwrap_or_else(|| requirement.to_string()),
                available,
                prerelease,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::VersionRecord;
    use crate::verify::Digest;

    #[test]
    fn a_version_written_as_pip_writes_it_is_suggested_with_an_at() {
        let suggested = |text: &str| match Spec::parse(text) {
            Err(SpecError::VersionSeparator { suggestion, .. }) => Some(suggestion),
            _ => None,
        };
        assert_eq!(suggested("fs-read==1.2").as_deref(), Some("fs-read@1.2"));
        assert_eq!(suggested("fs-read=1.2.1").as_deref(), Some("fs-read@1.2.1"));
        assert_eq!(suggested("fs-read>=1.0").as_deref(), Some("fs-read@>=1.0"));
        assert_eq!(suggested("fs-read~=1.2").as_deref(), Some("fs-read@^1.2"));
        // Not a version after it, or not a name before it: the usual error.
        assert_eq!(suggested("fs-read==banana"), None);
        assert_eq!(suggested("Fs==1.2"), None);
        assert!(Spec::parse("fs-read@1.2").is_ok());
    }

    fn records(versions: &[(&str, bool)]) -> Vec<VersionRecord> {
        versions
            .iter()
            .map(|(v, yanked)| VersionRecord {
                name: "fs-read".into(),
                version: v.parse().unwrap(),
                blake3: Digest::of(v.as_bytes()),
                size: 1,
                archive: None,
                sha256: None,
                yanked: *yanked,
                description: String::new(),
                keywords: vec![],
                permissions: vec![],
            })
            .collect()
    }

    fn fs_read() -> Vec<VersionRecord> {
        records(&[
            ("1.0.0", false),
            ("1.1.0", false),
            ("1.2.0", false),
            ("1.2.1", false),
            ("2.0.0-rc.1", false),
        ])
    }

    fn pick(spec: &str, recs: &[VersionRecord]) -> Result<String, ResolveError> {
        let spec = Spec::parse(spec).unwrap();
        select(&spec, recs).map(|s| s.record.version.to_string())
    }

    #[test]
    fn design_version_rules() {
        let r = fs_read();
        assert_eq!(pick("fs-read@1.2", &r).unwrap(), "1.2.1");
        assert_eq!(pick("fs-read@1", &r).unwrap(), "1.2.1");
        assert_eq!(pick("fs-read", &r).unwrap(), "1.2.1");
        assert_eq!(pick("fs-read@latest", &r).unwrap(), "1.2.1");
        assert_eq!(pick("fs-read@2.0.0-rc.1", &r).unwrap(), "2.0.0-rc.1");
        assert_eq!(pick("fs-read@v1.1.0", &r).unwrap(), "1.1.0");
        assert_eq!(pick("fs-read@1.1.0", &r).unwrap(), "1.1.0");
        assert_eq!(pick("fs-read@^1.0", &r).unwrap(), "1.2.1");
        assert_eq!(pick("fs-read@~1.1", &r).unwrap(), "1.1.0");
        assert_eq!(pick("fs-read@>=1.0, <1.2", &r).unwrap(), "1.1.0");
        assert_eq!(pick("fs-read@>=2.0.0-rc.1", &r).unwrap(), "2.0.0-rc.1");
    }

    #[test]
    fn an_exact_version_ignores_build_metadata() {
        // SemVer 10: 1.0.0 and 1.0.0+b are one version, as the index says.
        let r = records(&[("1.0.0+build.7", false), ("1.1.0", false)]);
        assert_eq!(pick("fs-read@1.0.0", &r).unwrap(), "1.0.0+build.7");
        assert_eq!(pick("fs-read@1.0.0+other", &r).unwrap(), "1.0.0+build.7");
        assert!(same_version(
            &"1.0.0+a".parse().unwrap(),
            &"1.0.0".parse().unwrap()
        ));
        assert!(!same_version(
            &"1.0.0-rc.1".parse().unwrap(),
            &"1.0.0".parse().unwrap()
        ));
    }

    #[test]
    fn prereleases_only_when_named() {
        let r = fs_read();
        assert_eq!(
            pick("fs-read@2", &r).unwrap_err(),
            ResolveError::NoMatch {
                name: "fs-read".into(),
                requirement: "2".into(),
                available: r.iter().map(|r| r.version.clone()).collect(),
                prerelease: Some("2.0.0-rc.1".parse().unwrap()),
            }
        );
        assert_eq!(pick("fs-read@>=1.0", &r).unwrap(), "1.2.1");
    }

    #[test]
    fn a_no_match_hint_suggests_the_newest_stable_version_not_a_prerelease() {
        let r = fs_read();
        let hint = |spec: &str| pick(spec, &r).unwrap_err().hint().unwrap();
        assert_eq!(
            hint("fs-read@9"),
            "ask for one of the available versions, e.g. `orla install fs-read@1.2.1`"
        );
        // The pre-release the range would match: say it must be named.
        assert_eq!(
            hint("fs-read@2"),
            "ask for one of the available versions, e.g. `orla install fs-read@1.2.1`; \
             a range never picks a pre-release, so name 2.0.0-rc.1 exactly: \
             `orla install fs-read@2.0.0-rc.1`"
        );
        assert!(hint("fs-read@2.0.0").contains("name 2.0.0-rc.1 exactly"));
        // Only pre-releases: the newest is the one to ask for.
        let pre = records(&[("0.1.0-alpha.1", false), ("0.1.0-beta.1", false)]);
        let err = pick("fs-read@1", &pre).unwrap_err();
        assert_eq!(
            err.hint().unwrap(),
            "ask for one of the available versions, e.g. `orla install fs-read@0.1.0-beta.1`"
        );
    }

    #[test]
    fn latest_falls_back_to_prerelease_when_nothing_is_stable() {
        let r = records(&[("0.1.0-alpha.1", false), ("0.1.0-beta.1", false)]);
        assert_eq!(pick("fs-read", &r).unwrap(), "0.1.0-beta.1");
    }

    #[test]
    fn yanked_versions_are_skipped_by_ranges_but_not_by_pins() {
        let r = records(&[("1.0.0", false), ("1.1.0", true)]);
        assert_eq!(pick("fs-read", &r).unwrap(), "1.0.0");
        assert_eq!(pick("fs-read@1", &r).unwrap(), "1.0.0");
        let spec = Spec::parse("fs-read@1.1.0").unwrap();
        let selected = select(&spec, &r).unwrap();
        assert!(selected.yanked);
        let all_yanked = records(&[("1.0.0", true)]);
        assert_eq!(
            pick("fs-read", &all_yanked).unwrap_err(),
            ResolveError::AllYanked {
                name: "fs-read".into()
            }
        );
    }

    #[test]
    fn unknown_version_lists_available() {
        let err = pick("fs-read@3", &fs_read()).unwrap_err().to_string();
        assert_eq!(
            err,
            "no version of fs-read matches '3'; available: 1.0.0, 1.1.0, 1.2.0, 1.2.1, 2.0.0-rc.1"
        );
    }

    #[test]
    fn malformed_specs_say_what_is_expected() {
        for bad in [
            "",
            "@1.0",
            "fs-read@",
            "fs-read@@1",
            "fs read",
            "../x",
            "fs-read@one",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad}");
        }
        let err = Spec::parse("FS-read").unwrap_err().to_string();
        assert!(err.contains("did you mean 'fs-read'"), "{err}");
    }
}
