//! Real git repositories for registry tests, made with git2.

/// Stages every file of `repo`'s work tree and commits it on `parents`,
/// moving `update_ref` to the new commit when given. The author and time are
/// fixed, so the same tree gives the same commit id on every run.
pub fn commit_all(
    repo: &git2::Repository,
    message: &str,
    update_ref: Option<&str>,
    parents: &[git2::Oid],
) -> git2::Oid {
    let mut idx = repo.index().unwrap();
    idx.add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    idx.write().unwrap();
    let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
    let sig =
        git2::Signature::new("t", "t@example.com", &git2::Time::new(1_700_000_000, 0)).unwrap();
    let parents: Vec<git2::Commit> = parents
        .iter()
        .map(|id| repo.find_commit(*id).unwrap())
        .collect();
    let parents: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(update_ref, &sig, &sig, message, &tree, &parents)
        .unwrap()
}

/// Pushes `branch` of `work` into the bare repository `bare` (made if it is
/// not there yet), points the bare repository's HEAD at it, and returns its
/// `file://` URL: a git registry as a server would host it.
pub fn push_to_bare(work: &git2::Repository, bare: &std::path::Path, branch: &str) -> String {
    let hosted = git2::Repository::init_bare(bare).unwrap();
    let refspec = format!("+refs/heads/{branch}:refs/heads/{branch}");
    work.remote_anonymous(&bare.display().to_string())
        .unwrap()
        .push(&[refspec.as_str()], None)
        .unwrap();
    hosted.set_head(&format!("refs/heads/{branch}")).unwrap();
    format!("file://{}", bare.display())
}
