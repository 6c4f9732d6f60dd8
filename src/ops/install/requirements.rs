//! What a tool needs from the machine: the interpreter its entrypoint's
//! `#!` line names, and the commands tool.yaml `dependencies` lists
//! (`python3>=3.8`, `jq`, `node >= 18`). Without them the install succeeds
//! and the tool fails later with exit 127, far from the cause, so they are
//! checked when a tool is installed (a warning, or an error with
//! `--strict`), shown by `orla info`, and checked again by `orla verify`.
//!
//! A dependency is a name, optionally followed by a version requirement in
//! the syntax of the `semver` crate (`>=3.8`, `^18`; `==` is read as `=`).
//! One with a requirement names a command: it is looked up on `PATH` (or
//! taken as a path when it holds a `/`) and the requirement is checked
//! against the first version number `COMMAND --version` prints
//! (`Python 3.11.2`, `v18.19.0`), partial versions filled with zeros; a
//! version that cannot be read is not held against the tool. One without a
//! requirement may name a library or a distribution package (RFC 3 says
//! "interpreters, libraries"; `coreutils`), so it is looked up but its
//! absence is not a problem. The interpreter is always checked.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::package::validate::{interpreter_of, read_shebang};
use crate::package::ToolYaml;

/// How long `COMMAND --version` may take before its answer is ignored.
const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// One requirement and, if it is not met, why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    /// As written: `python3>=3.8`, or the interpreter (`python3`).
    pub requirement: String,
    /// Where it comes from: `dependencies` or `#!` (the entrypoint's line).
    pub from: &'static str,
    /// The command found, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<PathBuf>,
    /// The version it reported, if read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Set when the requirement is not met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Checks the interpreter and the declared dependencies of the package in
/// `dir`, looking commands up in `search_path` (the `PATH` directories).
pub fn check(dir: &Path, tool: &ToolYaml, search_path: &[PathBuf]) -> Vec<Check> {
    let mut checks: Vec<Check> = tool
        .dependencies
        .iter()
        .map(|raw| check_dependency(raw, search_path))
        .collect();
    let entrypoint = dir.join(tool.entrypoint.as_deref().unwrap_or_default());
    if let Some(shebang) = read_shebang(&entrypoint) {
        let program = shebang.split_whitespace().next().unwrap_or_default();
        let is_env = program.rsplit('/').next() == Some("env");
        let command = if is_env {
            interpreter_of(&shebang)
        } else {
            Some(program.to_string())
        };
        if let Some(command) = command {
            let name = command.rsplit('/').next().unwrap_or(&command).to_string();
            let declared = checks
                .iter()
                .any(|c| dependency_name(&c.requirement) == name || c.requirement == command);
            if !declared {
                let mut check = check_dependency(&command, search_path);
                check.from = "#!";
                if check.found.is_none() {
                    check.problem = Some(format!(
                        "needs {command} (the entrypoint's #! line), which is not {}",
                        if command.contains('/') {
                            "there"
                        } else {
                            "on PATH"
                        }
                    ));
                }
                checks.push(check);
            }
        }
    }
    checks
}

/// The problems of `checks`, one line each.
pub fn problems(checks: &[Check]) -> Vec<String> {
    checks.iter().filter_map(|c| c.problem.clone()).collect()
}

fn dependency_name(raw: &str) -> &str {
    let end = raw
        .find(|c: char| c.is_whitespace() || "<>=~^!".contains(c))
        .unwrap_or(raw.len());
    raw[..end].trim()
}

fn check_dependency(raw: &str, search_path: &[PathBuf]) -> Check {
    let name = dependency_name(raw);
    let rest = raw[name.len()..].trim();
    let mut check = Check {
        requirement: raw.trim().to_string(),
        from: "dependencies",
        found: None,
        version: None,
        problem: None,
    };
    let Some(found) = find_command(name, search_path) else {
        // Without a version requirement a dependency may name a library or
        // a distribution package (`coreutils`), not a command: only one
        // with a requirement is held to being a command on PATH.
        if !rest.is_empty() {
            check.problem = Some(format!(
                "needs {name} (tool.yaml dependencies), which is not on PATH"
            ));
        }
        return check;
    };
    check.found = Some(found.clone());
    if rest.is_empty() {
        return check;
    }
    let Ok(req) = semver::VersionReq::parse(&rest.replace("==", "=")) else {
        // Not semver syntax (`python3 (any)`): the command's presence is
        // all that can be checked.
        return check;
    };
    if let Some(version) = command_version(&found) {
        check.version = Some(version.to_string());
        if !req.matches(&version) {
            check.problem = Some(format!(
                "needs {name} {rest} (tool.yaml dependencies), but {} is {version}",
                found.display()
            ));
        }
    }
    check
}

fn find_command(name: &str, search_path: &[PathBuf]) -> Option<PathBuf> {
    if name.is_empty() {
        return None;
    }
    if name.contains('/') {
        let path = PathBuf::from(name);
        return is_executable_file(&path).then_some(path);
    }
    search_path
        .iter()
        .map(|dir| dir.join(name))
        .find(|p| is_executable_file(p))
}

fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path)
        .is_ok_and(|m| m.is_file() && crate::package::validate::is_executable(&m))
}

/// The first version number `COMMAND --version` prints (stdout, else
/// stderr, where Python 2 wrote it), if it answers in time.
fn command_version(command: &Path) -> Option<semver::Version> {
    let mut child = Command::new(command)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < VERSION_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(10))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.by_ref().take(4096).read_to_string(&mut text);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.by_ref().take(4096).read_to_string(&mut text);
    }
    first_version(&text)
}

/// `Python 3.11.2` -> 3.11.2, `v18.19.0` -> 18.19.0, `jq-1.6` -> 1.6.0.
fn first_version(text: &str) -> Option<semver::Version> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit()
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'v')
        {
            let end = text[i..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(text.len(), |n| i + n);
            let parts: Vec<u64> = text[i..end]
                .split('.')
                .take(3)
                .map_while(|p| p.parse().ok())
                .collect();
            if parts.len() >= 2 {
                return Some(semver::Version::new(
                    parts[0],
                    parts[1],
                    parts.get(2).copied().unwrap_or(0),
                ));
            }
            i = end;
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_what_commands_print() {
        let v = |t: &str| first_version(t).map(|v| v.to_string());
        assert_eq!(v("Python 3.11.2").as_deref(), Some("3.11.2"));
        assert_eq!(v("v18.19.0\n").as_deref(), Some("18.19.0"));
        assert_eq!(v("jq-1.6").as_deref(), Some("1.6.0"));
        assert_eq!(
            v("GNU bash, version 5.2.15(1)-release").as_deref(),
            Some("5.2.15")
        );
        assert_eq!(v("x86_64 build 7"), None);
    }

    #[test]
    fn a_dependency_is_a_command_and_an_optional_requirement() {
        assert_eq!(dependency_name("python3>=3.8"), "python3");
        assert_eq!(dependency_name("node >= 18"), "node");
        assert_eq!(dependency_name("jq"), "jq");
    }
}
