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
