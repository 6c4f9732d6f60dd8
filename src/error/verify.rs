//! `orla verify`'s own refusal: some installed packages are not as their
//! receipts say, or lack what they need to run. Here, beside the other
//! operations' errors, because `error` sits below the operations
//! (`ops::verify` makes it).

use std::path::PathBuf;

/// Some installed packages are not as their receipts say, or lack what they
/// need to run: `bad` of `total` checked. The message sums them up; the
/// hint fixes the first.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Every failed package is intact but lacks what it needs to run.
    #[error(
        "{bad} of {total} installed package{} lack{} what {} to run",
        plural(*total), if *bad == 1 { "s" } else { "" }, if *bad == 1 { "it needs" } else { "they need" }
    )]
    Unmet {
        bad: usize,
        total: usize,
        first: First,
    },
    /// At least one failed package is gone.
    #[error(
        "{bad} of {total} installed package{} {} missing or changed",
        plural(*total), if *bad == 1 { "is" } else { "are" }
    )]
    Missing {
        bad: usize,
        total: usize,
        first: First,
    },
    /// Their files differ from the receipts (or cannot be checked).
    #[error(
        "{bad} of {total} installed package{} differ{} from {} receipt{}",
        plural(*total), if *bad == 1 { "s" } else { "" }, if *bad == 1 { "its" } else { "their" }, plural(*bad)
    )]
    Differ {
        bad: usize,
        total: usize,
        first: First,
    },
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The first package that failed.
#[derive(Debug)]
pub struct First {
    pub name: String,
    pub version: String,
    pub path: PathBuf,
    pub failure: FirstFailure,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstFailure {
    Unmet,
    Missing,
    /// No readable receipt: maybe not orla's at all.
    Unreadable,
    Changed,
}

impl VerifyError {
    pub fn hint(&self) -> Option<String> {
        let (VerifyError::Unmet { first, .. }
        | VerifyError::Missing { first, .. }
        | VerifyError::Differ { first, .. }) = self;
        let First {
            name,
            version,
            path,
            failure,
        } = first;
        Some(match failure {
            FirstFailure::Unmet => "install what the tool needs (its files are intact); `orla info NAME` lists its dependencies".to_string(),
            FirstFailure::Missing => format!(
                "`orla install {name}@{version}` installs it again; `orla uninstall {name}@{version}` drops it from the manifest"
            ),
            FirstFailure::Unreadable => format!(
                "if orla installed {}, `orla install {name}@{version} --force` restores it; if not, remove the directory",
                path.display()
            ),
            FirstFailure::Changed => format!(
                "reinstall to restore the published files: `orla install {name}@{version} --force`"
            ),
        })
    }
}
