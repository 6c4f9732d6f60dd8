//! What `orla init` adds to a project's `.gitignore`, as `cargo init` adds
//! `/target`: the packages orla installs into tools_dir and its state
//! directory `.orla/`, which `orla install` recreates from orla.lock. The
//! project's own files (orla.yaml, orla.lock, loose executables at the top
//! of tools_dir) stay committed. Lines already there, in any of the usual
//! spellings, are not added again.

use std::io;
use std::path::{Path, PathBuf};

/// The `.gitignore` lines of a project whose tools_dir is `tools_dir`
/// (relative, as orla.yaml writes it): the directories in tools_dir (its
/// packages), and `.orla/`.
pub fn lines(tools_dir: &str) -> Vec<String> {
    let tools = tools_dir.trim_start_matches("./").trim_end_matches('/');
    vec![format!("/{tools}/*/"), "/.orla/".to_string()]
}

/// What `ignore_installed` did to `.gitignore`.
#[derive(Debug, PartialEq)]
pub struct Change {
    pub path: PathBuf,
    pub created: bool,
    pub added: Vec<String>,
}

/// Adds the missing `lines` to `dir/.gitignore`, creating it if needed;
/// `None` when every line is there already.
pub fn ignore_installed(dir: &Path, lines: &[String]) -> io::Result<Option<Change>> {
    let path = dir.join(".gitignore");
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let text = existing.clone().unwrap_or_default();
    let added: Vec<String> = lines
        .iter()
        .filter(|line| !text.lines().any(|have| same_pattern(have, line)))
        .cloned()
        .collect();
    if added.is_empty() {
        return Ok(None);
    }
    let mut out = text;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str("# orla: installed packages and machine state (`orla install` recreates them)\n");
    for line in &added {
        out.push_str(line);
        out.push('\n');
    }
    crate::fs::atomic_write(&path, out.as_bytes())?;
    Ok(Some(Change {
        path,
        created: existing.is_none(),
        added,
    }))
}

/// Whether a `.gitignore` line already ignores what `wanted` does: the same
/// pattern with or without its leading or trailing slash, or `/*/` for
/// the whole directory.
fn same_pattern(have: &str, wanted: &str) -> bool {
    let bare = |s: &str| {
        s.trim()
            .trim_start_matches('/')
            .trim_end_matches("/*/")
            .trim_end_matches('/')
            .to_string()
    };
    !have.trim_start().starts_with('#') && bare(have) == bare(wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_extends_and_never_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let lines = lines("./tools");
        assert_eq!(lines, ["/tools/*/", "/.orla/"]);
        let created = ignore_installed(dir.path(), &lines).unwrap().unwrap();
        assert!(created.created);
        assert_eq!(created.added, lines);
        assert_eq!(ignore_installed(dir.path(), &lines).unwrap(), None);

        // An existing file keeps its lines; only what is missing is added.
        std::fs::write(dir.path().join(".gitignore"), "target\n.orla").unwrap();
        let extended = ignore_installed(dir.path(), &lines).unwrap().unwrap();
        assert!(!extended.created);
        assert_eq!(extended.added, ["/tools/*/"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".gitignore")).unwrap(),
            "target\n.orla\n\n# orla: installed packages and machine state (`orla install` recreates them)\n/tools/*/\n"
        );
    }

    #[test]
    fn usual_spellings_count_and_comments_do_not() {
        assert!(same_pattern("tools/", "/tools/*/"));
        assert!(same_pattern("/tools", "/tools/*/"));
        assert!(same_pattern(" .orla/ ", "/.orla/"));
        assert!(!same_pattern("# /tools/*/", "/tools/*/"));
        assert!(!same_pattern("/tools/x/", "/tools/*/"));
    }
}
