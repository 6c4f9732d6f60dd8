//! Writing a git index: a commit on HEAD holding exactly the published
//! files (HEAD's tree plus these files, whatever else is staged), made in the
//! object database so that bare repositories need no working tree.

use std::path::Path;

use super::Change;

/// One file of HEAD's tree; `None` when it (or HEAD) does not exist yet.
pub fn read_head_file(repo: &git2::Repository, rel: &str) -> Result<Option<Vec<u8>>, git2::Error> {
    let head = match repo.head() {
        Ok(h) => h,
        // An empty repository has no files yet.
        Err(e) if e.code() == git2::ErrorCode::UnbornBranch => return Ok(None),
        Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let tree = head.peel_to_tree()?;
    match tree.get_path(Path::new(rel)) {
        Ok(entry) => {
            let object = entry.to_object(repo)?;
            Ok(object.as_blob().map(|b| b.content().to_vec()))
        }
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Commits `changes` on HEAD (a first commit in an empty repository) and,
/// in a working tree, updates the index for those paths so that `git
/// status` stays clean. Returns the new commit.
pub fn commit(
    repo: &git2::Repository,
    changes: &[Change],
    message: &str,
) -> Result<git2::Oid, git2::Error> {
    let head_commit = match repo.head() {
        Ok(head) => Some(head.peel_to_commit()?),
        Err(e)
            if matches!(
                e.code(),
                git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound
            ) =>
        {
            None
        }
        Err(e) => return Err(e),
    };
    let base = match &head_commit {
        Some(c) => Some(c.tree()?),
        None => None,
    };
    let mut tree_id = base.as_ref().map(|t| t.id());
    for (rel, bytes) in changes {
        let blob = repo.blob(bytes)?;
        let parts: Vec<&str> = rel.split('/').collect();
        let current = match tree_id {
            Some(id) => Some(repo.find_tree(id)?),
            None => None,
        };
        tree_id = Some(upsert(repo, current.as_ref(), &parts, blob)?);
    }
    let tree = repo.find_tree(tree_id.expect("at least one change"))?;
    let signature = repo
        .signature()
        .or_else(|_| git2::Signature::now("orla", "orla@localhost"))?;
    let parents: Vec<&git2::Commit> = head_commit.iter().collect();
    let id = repo.commit(
        Some("HEAD"),
        &signature,
        &signature,
        message,
        &tree,
        &parents,
    )?;
    if !repo.is_bare() {
        // Keep `git status` clean for the files just committed.
        let mut index = repo.index()?;
        for (rel, _) in changes {
            index.add_path(Path::new(rel))?;
        }
        index.write()?;
    }
    Ok(id)
}

/// Returns the id of `base` with the blob at `path` set.
fn upsert(
    repo: &git2::Repository,
    base: Option<&git2::Tree>,
    path: &[&str],
    blob: git2::Oid,
) -> Result<git2::Oid, git2::Error> {
    let mut builder = repo.treebuilder(base)?;
    let (first, rest) = path.split_first().expect("paths are not empty");
    if rest.is_empty() {
        builder.insert(first, blob, 0o100644)?;
    } else {
        let sub = match base.and_then(|t| t.get_name(first)) {
            Some(entry) if entry.kind() == Some(git2::ObjectType::Tree) => {
                Some(repo.find_tree(entry.id())?)
            }
            _ => None,
        };
        let id = upsert(repo, sub.as_ref(), rest, blob)?;
        builder.insert(first, id, 0o040000)?;
    }
    builder.write()
}
