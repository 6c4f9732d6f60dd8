//! RFC 3 git-source tools (sections 6.3, 7.1-7.3): a registry.yaml entry
//! with a `repository` and no version records. Its versions are the
//! repository's `v`-prefixed semver tags; a version is installed by writing
//! the tagged commit's tree into a fresh staging directory.
//!
//! The repository's tags are fetched into a bare repository in the cache,
//! `<cache>/git-tools/<name>-<hash>/` (named like registry clones), so a
//! second install needs no network and `--offline` works once it is there.
//! The tags are a tool's list of versions, so they are refreshed as a
//! registry is: fetched again when older than the registry TTL (or with
//! `--refresh`), the time of the last fetch kept in
//! `<name>-<hash>.state.json` beside the repository.
//! Files come straight out of git objects, never through a working tree or
//! checkout filters: only regular files (mode 644 or 755) and directories
//! are accepted; symlinks and submodules are refused as in archives
//! (ARCHITECTURE.md, invariant 2).
//!
//! The install receipt records the tag's commit and the tree digest: BLAKE3
//! over one line per file, sorted by path, `"<644|755> <blake3 hex> <path>\n"`.
//! The same files give the same digest on every machine, so `orla verify`
//! can check an installed tree without the repository.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::index::GitAccess;
use crate::package::RECEIPT_FILE;
use crate::progress::{Event, Reporter, Warning};
use crate::unpack::FileRecord;
use crate::unpack::Unpacked;
use crate::verify::Digest;

/// A `vX.Y.Z` tag of a tool repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub name: String,
    pub version: semver::Version,
    /// The commit the tag points at (an annotated tag peeled).
    pub commit: String,
}

impl crate::resolve::Candidate for Tag {
    fn version(&self) -> &semver::Version {
        &self.version
    }
}

/// A tool repository fetched into the cache.
pub struct ToolRepo {
    pub url: String,
    dir: std::path::PathBuf,
    /// True when this run fetched it (rather than reading the cache).
    pub fetched: bool,
}

/// What is kept beside a cached tool repository.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct RepoState {
    url: String,
    /// Seconds since the Unix epoch of the last successful fetch.
    fetched_at: u64,
}

/// What a checkout produced.
#[derive(Debug)]
pub struct Checkout {
    pub unpacked: Unpacked,
    pub commit: String,
    pub tree_digest: Digest,
    pub size: u64,
}

const MAX_FILES: usize = 10_000;
const MAX_BYTES: u64 = 512 * 1024 * 1024;
/// The largest single file `read_file` returns (a tool.yaml), as for index files.
const MAX_FILE_READ: u64 = 16 << 20;

/// What went wrong fetching or reading a tool repository. The messages
/// name the repository's file, tag or path; the URL is added by the caller,
/// which knows which tool it was installing.
#[derive(Debug, thiserror::Error)]
pub enum GitToolError {
    #[error("{url} is not in the cache and --offline forbids the network")]
    Offline { url: String },
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The tags could not be fetched and no copy is cached.
    #[error("{source}")]
    Fetch {
        url: String,
        #[source]
        source: crate::git::GitError,
    },
    /// The cached repository cannot be read.
    #[error("{}", source.message())]
    Repository {
        dir: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("tag {tag}: {}", source.message())]
    Tag {
        tag: String,
        #[source]
        source: git2::Error,
    },
    #[error("{path} of tag {tag} is {size} bytes, more than the {max} allowed")]
    FileTooLarge {
        tag: String,
        path: String,
        size: u64,
        max: u64,
    },
    #[error(
        "the repository is too large to install (more than {max_files} files or {max_bytes} bytes)"
    )]
    TooLarge { max_bytes: u64, max_files: usize },
    #[error("{prefix}: a file name that is not UTF-8")]
    NonUtf8Name { prefix: String },
    #[error("'{path}' is not an allowed path")]
    ForbiddenPath { path: String },
    /// A symbolic link or a submodule: refused as in archives.
    #[error("'{path}' is a {kind}, which orla refuses")]
    ForbiddenEntry { path: String, kind: &'static str },
    #[error("'{path}' has an unknown git mode {mode:o}")]
    UnknownMode { path: String, mode: i32 },
    #[error("{path}: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
}

impl GitToolError {
    pub fn hint(&self) -> Option<String> {
        match self {
            GitToolError::Offline { .. } => {
                Some("run the command once without --offline to fetch the tool's tags".into())
            }
            GitToolError::Lock { .. } => Some(
                "check that you may write to the cache directory (`orla cache dir` prints it), or set ORLA_CACHE_DIR".into(),
            ),
            GitToolError::Fetch { source, .. } => source.network_hint().or_else(|| Some(
                "check the repository URL in the registry's registry.yaml and your connection".into(),
            )),
            GitToolError::Repository { .. } => Some(
                "the cached copy of the repository is damaged: `orla cache clear` removes it, and the next command fetches it again".into(),
            ),
            GitToolError::Tag { .. }
            | GitToolError::FileTooLarge { .. }
            | GitToolError::TooLarge { .. }
            | GitToolError::NonUtf8Name { .. }
            | GitToolError::ForbiddenPath { .. }
            | GitToolError::ForbiddenEntry { .. }
            | GitToolError::UnknownMode { .. } => Some(
                "nothing was installed; report it to the tool's maintainers".into(),
            ),
            GitToolError::Write { source, .. } if crate::fs::is_out_of_space(source) => Some(
                "free some disk space (or raise the quota) and run the command again; nothing was installed".into(),
            ),
            GitToolError::Write { .. } => Some(
                "check that you may write to the install root, or set ORLA_HOME; nothing was installed".into(),
            ),
        }
    }
}

impl ToolRepo {
    /// Fetches the tags of `url` into the cache unless the cached copy is
    /// younger than `access.ttl` (and `access.refresh` is not set), or
    /// `access.offline`; a failed fetch falls back to a cached copy with a
    /// warning.
    pub fn open(
        url: &str,
        access: &GitAccess,
        reporter: &dyn Reporter,
    ) -> Result<ToolRepo, GitToolError> {
        let offline = access.offline;
        // Named as registry clones are, but under `git-tools/`.
        let dir = access
            .cache_dir
            .join("git-tools")
            .join(crate::git::cache_name(url));
        let state_path = dir.with_extension("state.json");
        let not_cached = || GitToolError::Offline {
            url: url.to_string(),
        };
        if offline && !dir.exists() {
            // Nothing to read, and nothing (not even a lock file) to create.
            return Err(not_cached());
        }
        let lock_path = dir.with_extension("lock");
        let _lock = crate::lock::FileLock::acquire(
            &lock_path,
            crate::lock::LockKind::Exclusive,
            "the git cache",
            reporter,
        )
        .map_err(|source| GitToolError::Lock {
            path: lock_path.clone(),
            source,
        })?;
        let cached = git2::Repository::open_bare(&dir).is_ok();
        let fresh = cached
            && !access.refresh
            && std::fs::read(&state_path)
                .ok()
                .and_then(|b| serde_json::from_slice::<RepoState>(&b).ok())
                .filter(|s| s.url == url)
                .is_some_and(|s| {
                    std::time::Duration::from_secs(crate::git::now().saturating_sub(s.fetched_at))
                        < access.ttl
                });
        let mut fetched = false;
        if offline {
            if !cached {
                return Err(not_cached());
            }
        } else if !fresh {
            let existed = dir.exists();
            reporter.report(Event::FetchingTags {
                repository: url.to_string(),
            });
            match fetch_tags(&dir, url, access, reporter) {
                Ok(()) => {
                    fetched = true;
                    let state = RepoState {
                        url: url.to_string(),
                        fetched_at: crate::git::now(),
                    };
                    let text = serde_json::to_string_pretty(&state).expect("state serialises");
                    // A state that cannot be written only costs a fetch next time.
                    let _ = crate::fs::atomic_write(&state_path, text.as_bytes());
                }
                Err(e) if cached => {
                    reporter.report(Event::Warning(Warning::CachedTags {
                        repository: url.to_string(),
                        problem: e.to_string(),
                    }));
                }
                Err(e) => {
                    if !existed {
                        let _ = std::fs::remove_dir_all(&dir);
                    }
                    return Err(GitToolError::Fetch {
                        url: url.to_string(),
                        source: e,
                    });
                }
            }
        }
        Ok(ToolRepo {
            url: url.to_string(),
            dir,
            fetched,
        })
    }

    /// True when the cached objects hold `commit`.
    pub fn has_commit(&self, commit: &str) -> bool {
        let Ok(repo) = git2::Repository::open_bare(&self.dir) else {
            return false;
        };
        git2::Oid::from_str(commit).is_ok_and(|oid| repo.find_commit(oid).is_ok())
    }

    /// The tree digest (see the module documentation) of `commit`, computed
    /// from the cached objects without writing a file; `None` when the
    /// cache does not hold it.
    pub fn commit_tree_digest(&self, commit: &str) -> Option<Digest> {
        let repo = git2::Repository::open_bare(&self.dir).ok()?;
        let oid = git2::Oid::from_str(commit).ok()?;
        let tree = repo.find_commit(oid).ok()?.tree().ok()?;
        let mut files = BTreeMap::new();
        let mut failed = false;
        tree.walk(git2::TreeWalkMode::PreOrder, |prefix, entry| {
            let executable = match entry.filemode() {
                0o100755 => true,
                0o100644 | 0o100664 => false,
                _ => return git2::TreeWalkResult::Ok,
            };
            match repo.find_blob(entry.id()) {
                Ok(blob) => {
                    let path = format!("{prefix}{}", entry.name().unwrap_or_default());
                    files.insert(
                        path,
                        FileRecord {
                            blake3: Digest::of(blob.content()),
                            size: blob.size() as u64,
                            executable,
                        },
                    );
                    git2::TreeWalkResult::Ok
                }
                Err(_) => {
                    failed = true;
                    git2::TreeWalkResult::Abort
                }
            }
        })
        .ok()?;
        (!failed).then(|| tree_digest(&files))
    }

    /// Every `v`-prefixed semver tag, newest first.
    pub fn tags(&self) -> Result<Vec<Tag>, GitToolError> {
        let repo = self.repository()?;
        let names = repo
            .tag_names(Some("v*"))
            .map_err(|e| self.repository_error(e))?;
        let mut tags: Vec<Tag> = names
            .iter()
            .flatten()
            .filter_map(|name| {
                let version = semver::Version::parse(name.strip_prefix('v')?).ok()?;
                let commit = repo
                    .revparse_single(&format!("refs/tags/{name}"))
                    .and_then(|o| o.peel_to_commit())
                    .ok()?;
                Some(Tag {
                    name: name.to_string(),
                    version,
                    commit: commit.id().to_string(),
                })
            })
            .collect();
        tags.sort_by(|a, b| b.version.cmp(&a.version));
        Ok(tags)
    }

    /// One file of the tree of `tag` (e.g. its tool.yaml, for `orla info`),
    /// read from the cached objects without a checkout.
    pub fn read_file(&self, tag: &str, path: &str) -> Result<Option<Vec<u8>>, GitToolError> {
        let repo = self.repository()?;
        let tag_err = |source| GitToolError::Tag {
            tag: tag.to_string(),
            source,
        };
        let tree = repo
            .revparse_single(&format!("refs/tags/{tag}"))
            .and_then(|o| o.peel_to_tree())
            .map_err(tag_err)?;
        let entry = match tree.get_path(Path::new(path)) {
            Ok(entry) => entry,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(tag_err(e)),
        };
        // Refused by its header before it is loaded: a hostile repository
        // must not make orla inflate a huge blob into memory.
        let size = blob_size(&repo, entry.id()).map_err(tag_err)?;
        if size > MAX_FILE_READ {
            return Err(GitToolError::FileTooLarge {
                tag: tag.to_string(),
                path: path.to_string(),
                size,
                max: MAX_FILE_READ,
            });
        }
        let object = entry.to_object(&repo).map_err(tag_err)?;
        Ok(object.as_blob().map(|b| b.content().to_vec()))
    }

    fn repository(&self) -> Result<git2::Repository, GitToolError> {
        git2::Repository::open_bare(&self.dir).map_err(|e| self.repository_error(e))
    }

    fn repository_error(&self, source: git2::Error) -> GitToolError {
        GitToolError::Repository {
            dir: self.dir.clone(),
            source,
        }
    }

    /// Writes the tree of `tag` into the empty directory `dest`.
    pub fn checkout(&self, tag: &str, dest: &Path) -> Result<Checkout, GitToolError> {
        let repo = self.repository()?;
        let tag_err = |source| GitToolError::Tag {
            tag: tag.to_string(),
            source,
        };
        let commit = repo
            .revparse_single(&format!("refs/tags/{tag}"))
            .and_then(|o| o.peel_to_commit())
            .map_err(tag_err)?;
        let tree = commit.tree().map_err(tag_err)?;
        let mut files = BTreeMap::new();
        let mut size = 0u64;
        write_tree(&repo, &tree, dest, "", &mut files, &mut size, MAX_BYTES).map_err(
            |e| match e {
                TreeError::Git(source) => tag_err(source),
                TreeError::Refused(e) => e,
            },
        )?;
        Ok(Checkout {
            tree_digest: tree_digest(&files),
            unpacked: Unpacked {
                root: dest.to_path_buf(),
                files,
            },
            commit: commit.id().to_string(),
            size,
        })
    }
}

fn fetch_tags(
    dir: &Path,
    url: &str,
    access: &GitAccess,
    reporter: &dyn Reporter,
) -> Result<(), crate::git::GitError> {
    let repo = crate::git::open_or_init_bare(dir)?;
    let fetch = |depth: Option<i32>| {
        let configure = |options: &mut git2::FetchOptions<'_>| {
            options.download_tags(git2::AutotagOption::None);
            // Tags are pruned so that a tag deleted upstream is not installed from the cache.
            options.prune(git2::FetchPrune::On);
            if let Some(depth) = depth {
                options.depth(depth);
            }
        };
        crate::git::fetch(
            &repo,
            url,
            &["+refs/tags/*:refs/tags/*".to_string()],
            configure,
            access.http,
            url,
            None,
            reporter,
        )
    };
    // Only the tagged trees are needed, not their history: shallow where the
    // transport allows it, else a full fetch. A server that did not answer
    // in time is not asked twice.
    match fetch(Some(1)) {
        Err(crate::git::GitError::Git { .. }) => fetch(None),
        other => other,
    }
}

/// Writing a tree: a git2 failure (the tag's error) or a refused entry.
#[derive(Debug)]
enum TreeError {
    Git(git2::Error),
    Refused(GitToolError),
}

impl From<git2::Error> for TreeError {
    fn from(e: git2::Error) -> TreeError {
        TreeError::Git(e)
    }
}

impl From<GitToolError> for TreeError {
    fn from(e: GitToolError) -> TreeError {
        TreeError::Refused(e)
    }
}

fn write_tree(
    repo: &git2::Repository,
    tree: &git2::Tree<'_>,
    dir: &Path,
    prefix: &str,
    files: &mut BTreeMap<String, FileRecord>,
    size: &mut u64,
    max_bytes: u64,
) -> Result<(), TreeError> {
    let write_err = |rel: &str| {
        let path = rel.to_string();
        move |source| GitToolError::Write { path, source }
    };
    for entry in tree.iter() {
        let name = entry.name().ok_or_else(|| GitToolError::NonUtf8Name {
            prefix: prefix.to_string(),
        })?;
        let rel = format!("{prefix}{name}");
        if name.is_empty()
            || name == "."
            || name == ".."
            || name.contains(['/', '\\'])
            || name.eq_ignore_ascii_case(".git")
            || rel == RECEIPT_FILE
        {
            return Err(GitToolError::ForbiddenPath { path: rel }.into());
        }
        let target = dir.join(name);
        match entry.filemode() {
            0o040000 => {
                std::fs::create_dir(&target).map_err(write_err(&rel))?;
                let sub = repo.find_tree(entry.id())?;
                write_tree(
                    repo,
                    &sub,
                    &target,
                    &format!("{rel}/"),
                    files,
                    size,
                    max_bytes,
                )?;
            }
            mode @ (0o100644 | 0o100755 | 0o100664) => {
                // Counted by the object's header, before the blob is loaded.
                *size = size.saturating_add(blob_size(repo, entry.id())?);
                if *size > max_bytes || files.len() >= MAX_FILES {
                    return Err(GitToolError::TooLarge {
                        max_bytes,
                        max_files: MAX_FILES,
                    }
                    .into());
                }
                let blob = repo.find_blob(entry.id())?;
                let bytes = blob.content();
                let executable = mode == 0o100755;
                let mode = if executable { 0o755 } else { 0o644 };
                let mut file = crate::fs::create_new(&target, mode).map_err(write_err(&rel))?;
                file.write_all(bytes).map_err(write_err(&rel))?;
                crate::fs::set_mode(&file, mode).map_err(write_err(&rel))?;
                files.insert(
                    rel,
                    FileRecord {
                        blake3: Digest::of(bytes),
                        size: bytes.len() as u64,
                        executable,
                    },
                );
            }
            0o120000 => {
                let kind = "symbolic link";
                return Err(GitToolError::ForbiddenEntry { path: rel, kind }.into());
            }
            0o160000 => {
                let kind = "submodule";
                return Err(GitToolError::ForbiddenEntry { path: rel, kind }.into());
            }
            mode => return Err(GitToolError::UnknownMode { path: rel, mode }.into()),
        }
    }
    Ok(())
}

/// The size of a git object, read from its header without loading it.
fn blob_size(repo: &git2::Repository, id: git2::Oid) -> Result<u64, git2::Error> {
    let (len, _) = repo.odb().and_then(|odb| odb.read_header(id))?;
    Ok(len as u64)
}

/// The digest of an installed tree (see the module documentation).
pub fn tree_digest(files: &BTreeMap<String, FileRecord>) -> Digest {
    let mut hasher = blake3::Hasher::new();
    for (path, record) in files {
        let mode = if record.executable { "755" } else { "644" };
        hasher.update(format!("{mode} {} {path}\n", record.blake3).as_bytes());
    }
    Digest::from_hasher(&hasher)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bare repository whose tag v1.0.0 holds `tool.yaml` with `body`.
    fn repo_with(dir: &Path, body: &[u8]) -> ToolRepo {
        let repo = git2::Repository::init_bare(dir).unwrap();
        let blob = repo.blob(body).unwrap();
        let mut tree = repo.treebuilder(None).unwrap();
        tree.insert("tool.yaml", blob, 0o100644).unwrap();
        let tree = repo.find_tree(tree.write().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let commit = repo.commit(None, &sig, &sig, "v1", &tree, &[]).unwrap();
        repo.reference("refs/tags/v1.0.0", commit, false, "tag")
            .unwrap();
        ToolRepo {
            url: "file:///nowhere".into(),
            dir: dir.to_path_buf(),
            fetched: false,
        }
    }

    #[test]
    fn a_tree_larger_than_allowed_is_refused_by_its_object_sizes() {
        let tmp = tempfile::tempdir().unwrap();
        let tool = repo_with(&tmp.path().join("r.git"), &[b'a'; 100]);
        let repo = git2::Repository::open_bare(&tool.dir).unwrap();
        let tree = repo
            .revparse_single("refs/tags/v1.0.0")
            .and_then(|o| o.peel_to_tree())
            .unwrap();
        let dest = tmp.path().join("out");
        std::fs::create_dir(&dest).unwrap();
        let (mut files, mut size) = (BTreeMap::new(), 0);
        let err = match write_tree(&repo, &tree, &dest, "", &mut files, &mut size, 99) {
            Err(TreeError::Refused(e)) => e,
            other => panic!("{other:?}"),
        };
        assert!(
            matches!(err, GitToolError::TooLarge { max_bytes: 99, .. }),
            "{err}"
        );
        assert!(!dest.join("tool.yaml").exists(), "refused before writing");
        assert_eq!(
            tool.read_file("v1.0.0", "tool.yaml").unwrap().unwrap(),
            [b'a'; 100]
        );
    }

    #[test]
    fn read_file_refuses_a_file_larger_than_an_index_file_may_be() {
        let tmp = tempfile::tempdir().unwrap();
        let big = vec![b'#'; MAX_FILE_READ as usize + 1];
        let tool = repo_with(&tmp.path().join("r.git"), &big);
        let err = tool.read_file("v1.0.0", "tool.yaml").unwrap_err();
        assert!(
            matches!(&err, GitToolError::FileTooLarge { path, .. } if path == "tool.yaml"),
            "{err}"
        );
        assert!(err.to_string().contains("more than"), "{err}");
    }

    #[test]
    fn tree_digest_depends_on_content_mode_and_path() {
        let rec = |b: &[u8], x| FileRecord {
            blake3: Digest::of(b),
            size: b.len() as u64,
            executable: x,
        };
        let mut a = BTreeMap::new();
        a.insert("bin/t".to_string(), rec(b"x", true));
        let base = tree_digest(&a);
        let mut b = a.clone();
        b.insert("bin/t".into(), rec(b"x", false));
        assert_ne!(tree_digest(&b), base);
        let mut c = BTreeMap::new();
        c.insert("bin/u".to_string(), rec(b"x", true));
        assert_ne!(tree_digest(&c), base);
        assert_eq!(tree_digest(&a.clone()), base);
    }
}
