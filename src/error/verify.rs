//! `orla verify`'s own refusal: some installed packages are not as their
//! receipts say, or lack what they need to run. Here, beside the other
//! operations' errors, because `error` sits below the operations
//! (`ops::verify` makes it).

use std::path::PathBuf;

/// Some installed packages are not as their receipts say, or lack what they
/// need to run: `failed` of `total` checked. The message sums them up; the
/// hint gives the commands that fix every one of them.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Every failed package is intact but lacks what it needs to run.
    #[error(
        "{bad} of {total} installed package{} lack{} what {} to run",
        plural(*total), if .failed.len() == 1 { "s" } else { "" }, if .failed.len() == 1 { "it needs" } else { "they need" },
        bad = .failed.len()
    )]
    Unmet { total: usize, failed: Vec<Failed> },
    /// At least one failed package is gone.
    #[error(
        "{bad} of {total} installed package{} {} missing or changed",
        plural(*total), if .failed.len() == 1 { "is" } else { "are" },
        bad = .failed.len()
    )]
    Missing { total: usize, failed: Vec<Failed> },
    /// Their files differ from the receipts (or cannot be checked).
    #[error(
        "{bad} of {total} installed package{} differ{} from {} receipt{}",
        plural(*total), if .failed.len() == 1 { "s" } else { "" }, if .failed.len() == 1 { "its" } else { "their" }, plural(.failed.len()),
        bad = .failed.len()
    )]
    Differ { total: usize, failed: Vec<Failed> },
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A package that failed, and how.
#[derive(Debug)]
pub struct Failed {
    pub name: String,
    pub version: String,
    pub path: PathBuf,
    pub failure: Failure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    Unmet,
    Missing,
    /// No readable receipt: maybe not orla's at all.
    Unreadable,
    Changed,
}

impl VerifyError {
    /// One command per kind of failure, naming every package it fixes.
    pub fn hint(&self) -> Option<String> {
        let (VerifyError::Unmet { failed, .. }
        | VerifyError::Missing { failed, .. }
        | VerifyError::Differ { failed, .. }) = self;
        let specs = |kinds: &[Failure]| -> Vec<String> {
            failed
                .iter()
                .filter(|f| kinds.contains(&f.failure))
                .map(|f| crate::progress::shell_quote(&format!("{}@{}", f.name, f.version)))
                .collect()
        };
        let mut hints = Vec::new();
        let missing = specs(&[Failure::Missing]);
        if !missing.is_empty() {
            let specs = missing.join(" ");
            hints.push(format!(
                "`orla install {specs}` installs {them} again; `orla uninstall {specs}` drops {them} from the manifest",
                them = if missing.len() == 1 { "it" } else { "them" }
            ));
        }
        let changed = specs(&[Failure::Changed, Failure::Unreadable]);
        if !changed.is_empty() {
            let mut hint = format!(
                "reinstall to restore the published files: `orla install {} --force`",
                changed.join(" ")
            );
            let unreadable: Vec<String> = failed
                .iter()
                .filter(|f| f.failure == Failure::Unreadable)
                .map(|f| f.path.display().to_string())
                .collect();
            if !unreadable.is_empty() {
                hint.push_str(&format!(
                    " (remove {} instead if orla did not install {})",
                    unreadable.join(", "),
                    if unreadable.len() == 1 { "it" } else { "them" }
                ));
            }
            hints.push(hint);
        }
        let unmet: Vec<&str> = failed
            .iter()
            .filter(|f| f.failure == Failure::Unmet)
            .map(|f| f.name.as_str())
            .collect();
        match unmet[..] {
            [] => {}
            [name] => hints.push(format!(
                "install what {name} needs (its files are intact); `orla info {name}` lists its dependencies"
            )),
            _ => hints.push(format!(
                "install what {} need (their files are intact); `orla info NAME` lists a tool's dependencies",
                unmet.join(", ")
            )),
        }
        Some(hints.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(name: &str, failure: Failure) -> Failed {
        Failed {
            name: name.into(),
            version: "1.0.0".into(),
            path: format!("/t/{name}/1.0.0").into(),
            failure,
        }
    }

    #[test]
    fn the_hint_names_every_package_that_differs() {
        let error = VerifyError::Differ {
            total: 3,
            failed: vec![
                failed("fs-list", Failure::Changed),
                failed("json-query", Failure::Changed),
            ],
        };
        assert_eq!(
            error.to_string(),
            "2 of 3 installed packages differ from their receipts"
        );
        assert_eq!(
            error.hint().unwrap(),
            "reinstall to restore the published files: `orla install fs-list@1.0.0 json-query@1.0.0 --force`"
        );
    }

    #[test]
    fn each_kind_of_failure_gets_its_command() {
        let error = VerifyError::Missing {
            total: 4,
            failed: vec![
                failed("a", Failure::Missing),
                failed("b", Failure::Unreadable),
                failed("c", Failure::Unmet),
            ],
        };
        assert_eq!(
            error.hint().unwrap(),
            "`orla install a@1.0.0` installs it again; `orla uninstall a@1.0.0` drops it from the manifest; \
             reinstall to restore the published files: `orla install b@1.0.0 --force` (remove /t/b/1.0.0 instead if orla did not install it); \
             install what c needs (its files are intact); `orla info c` lists its dependencies"
        );
    }
}
