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
use std::io::Write;
use std::path::Path;

use crate::index::GitAccess;
use crate::package::RECEIPT_FILE;
use crate::progress::Reporter;
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

fn msg(e: git2::Error) -> String {
    e.message().to_string()
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
    ) -> Result<ToolRepo, String> {
        let offline = access.offline;
        // Named as registry clones are, but under `git-tools/`.
        let dir = access
            .cache_dir
            .join("git-tools")
            .join(crate::git::cache_name(url));
        let state_path = dir.with_extension("state.json");
        let not_cached = || format!("{url} is not in the cache and --offline forbids the network");
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
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
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
            reporter.status("Fetching", &format!("the tags of {url}"));
            match fetch_tags(&dir, url) {
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
                    reporter.warn(&format!(
                        "cannot fetch {url} ({e}); using the tags cached earlier"
                    ));
                }
                Err(e) => {
                    if !existed {
                        let _ = std::fs::remove_dir_all(&dir);
                    }
                    return Err(e);
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
    pub fn tags(&self) -> Result<Vec<Tag>, String> {
        let repo = git2::Repository::open_bare(&self.dir).map_err(msg)?;
        let names = repo.tag_names(Some("v*")).map_err(msg)?;
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
    pub fn read_file(&self, tag: &str, path: &str) -> Result<Option<Vec<u8>>, String> {
        let repo = git2::Repository::open_bare(&self.dir).map_err(msg)?;
        let tree = repo
            .revparse_single(&format!("refs/tags/{tag}"))
            .and_then(|o| o.peel_to_tree())
            .map_err(|e| format!("tag {tag}: {}", e.message()))?;
        let entry = match tree.get_path(Path::new(path)) {
            Ok(entry) => entry,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(msg(e)),
        };
        // Refused by its header before it is loaded: a hostile repository
        // must not make orla inflate a huge blob into memory.
        let len = blob_size(&repo, entry.id())?;
        if len > MAX_FILE_READ {
            return Err(format!(
                "{path} of tag {tag} is {len} bytes, more than the {MAX_FILE_READ} allowed"
            ));
        }
        let object = entry.to_object(&repo).map_err(msg)?;
        Ok(object.as_blob().map(|b| b.content().to_vec()))
    }

    /// Writes the tree of `tag` into the empty directory `dest`.
    pub fn checkout(&self, tag: &str, dest: &Path) -> Result<Checkout, String> {
        let repo = git2::Repository::open_bare(&self.dir).map_err(msg)?;
        let commit = repo
            .revparse_single(&format!("refs/tags/{tag}"))
            .and_then(|o| o.peel_to_commit())
            .map_err(|e| format!("tag {tag}: {}", e.message()))?;
        let tree = commit.tree().map_err(msg)?;
        let mut files = BTreeMap::new();
        let mut size = 0u64;
        write_tree(&repo, &tree, dest, "", &mut files, &mut size, MAX_BYTES)?;
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

fn fetch_tags(dir: &Path, url: &str) -> Result<(), String> {
    let repo = crate::git::open_or_init_bare(dir)?;
    let fetch = |depth: Option<i32>| {
        let mut options = git2::FetchOptions::new();
        options.download_tags(git2::AutotagOption::None);
        // Tags are pruned so that a tag deleted upstream is not installed from the cache.
        options.prune(git2::FetchPrune::On);
        if let Some(depth) = depth {
            options.depth(depth);
        }
        remote_fetch(&repo, url, options)
    };
    // Only the tagged trees are needed, not their history: shallow where the
    // transport allows it, else a full fetch.
    fetch(Some(1)).or_else(|_| fetch(None))
}

fn remote_fetch(
    repo: &git2::Repository,
    url: &str,
    mut options: git2::FetchOptions<'_>,
) -> Result<(), String> {
    let mut remote = repo.remote_anonymous(url).map_err(msg)?;
    remote
        .fetch(&["+refs/tags/*:refs/tags/*"], Some(&mut options), None)
        .map_err(msg)
}

fn write_tree(
    repo: &git2::Repository,
    tree: &git2::Tree<'_>,
    dir: &Path,
    prefix: &str,
    files: &mut BTreeMap<String, FileRecord>,
    size: &mut u64,
    max_bytes: u64,
) -> Result<(), String> {
    for entry in tree.iter() {
        let name = entry
            .name()
            .ok_or_else(|| format!("{prefix}: a file name that is not UTF-8"))?;
        let rel = format!("{prefix}{name}");
        if name.is_empty()
            || name == "."
            || name == ".."
            || name.contains(['/', '\\'])
            || name.eq_ignore_ascii_case(".git")
            || rel == RECEIPT_FILE
        {
            return Err(format!("'{rel}' is not an allowed path"));
        }
        let target = dir.join(name);
        match entry.filemode() {
            0o040000 => {
                std::fs::create_dir(&target).map_err(|e| format!("{rel}: {e}"))?;
                let sub = repo.find_tree(entry.id()).map_err(msg)?;
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
                    return Err("the repository is too large to install".into());
                }
                let blob = repo.find_blob(entry.id()).map_err(msg)?;
                let bytes = blob.content();
                let executable = mode == 0o100755;
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .map_err(|e| format!("{rel}: {e}"))?;
                file.write_all(bytes).map_err(|e| format!("{rel}: {e}"))?;
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = if executable { 0o755 } else { 0o644 };
                    file.set_permissions(std::fs::Permissions::from_mode(mode))
                        .map_err(|e| format!("{rel}: {e}"))?;
                }
                files.insert(
                    rel,
                    FileRecord {
                        blake3: Digest::of(bytes),
                        size: bytes.len() as u64,
                        executable,
                    },
                );
            }
            0o120000 => return Err(format!("'{rel}' is a symbolic link, which orla refuses")),
            0o160000 => return Err(format!("'{rel}' is a submodule, which orla refuses")),
            other => return Err(format!("'{rel}' has an unknown git mode {other:o}")),
        }
    }
    Ok(())
}

/// The size of a git object, read from its header without loading it.
fn blob_size(repo: &git2::Repository, id: git2::Oid) -> Result<u64, String> {
    let (len, _) = repo
        .odb()
        .and_then(|odb| odb.read_header(id))
        .map_err(msg)?;
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
        let err = write_tree(&repo, &tree, &dest, "", &mut files, &mut size, 99).unwrap_err();
        assert!(err.contains("too large"), "{err}");
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
        assert!(err.contains("more than"), "{err}");
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
