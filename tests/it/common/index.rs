//! One registry index served the three ways orla reads the fast format:
//! a plain directory, a git repository (a bare repository reached by a
//! `file://` URL, as a server would host it) and a sparse HTTP index on
//! 127.0.0.1. The files are the same in all three, written by
//! [`IndexBuilder`]; a scenario written once runs against each kind.

use std::path::{Path, PathBuf};

use orla::index::VersionRecord;

use super::server::{Behaviour, Server};
use super::{IndexBuilder, PackageBuilder, TestContext};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    Directory,
    Git,
    Sparse,
}

pub const INDEX_KINDS: [IndexKind; 3] = [IndexKind::Directory, IndexKind::Git, IndexKind::Sparse];

pub struct ServedIndex {
    pub kind: IndexKind,
    pub index: IndexBuilder,
    git: Option<(git2::Repository, PathBuf)>,
    server: Option<Server>,
}

impl ServedIndex {
    pub fn new(t: &TestContext, kind: IndexKind) -> ServedIndex {
        let root = t.dir.path().join(format!("{kind:?}-index").to_lowercase());
        let index = IndexBuilder::new(&root);
        let git = (kind == IndexKind::Git).then(|| {
            let work = git2::Repository::init(&root).unwrap();
            (work, t.dir.path().join("git-index.git"))
        });
        let server = (kind == IndexKind::Sparse).then(Server::start);
        let mut served = ServedIndex {
            kind,
            index,
            git,
            server,
        };
        served.sync();
        served
    }

    /// The `--registry` argument that reaches this index.
    pub fn location(&self) -> String {
        match self.kind {
            IndexKind::Directory => self.index.location(),
            IndexKind::Git => format!("file://{}", self.git.as_ref().unwrap().1.display()),
            IndexKind::Sparse => format!("sparse+{}", self.server().url("/index/")),
        }
    }

    pub fn server(&self) -> &Server {
        self.server.as_ref().expect("a sparse index has a server")
    }

    /// Packs and publishes `pkg`, then makes the change visible.
    pub fn publish(&mut self, pkg: &PackageBuilder) -> VersionRecord {
        let record = self.index.publish(pkg);
        self.sync();
        record
    }

    /// Rewrites every record of `name`, then makes the change visible.
    pub fn edit_records(&mut self, name: &str, edit: impl Fn(&mut VersionRecord)) {
        self.index.edit_records(name, edit);
        self.sync();
    }

    /// Overwrites a file of the index (an archive, say), then makes the
    /// change visible.
    pub fn write(&mut self, rel: &str, bytes: &[u8]) {
        std::fs::write(self.index.root.join(rel), bytes).unwrap();
        self.sync();
    }

    /// Publishes the working files: a commit pushed to the bare repository,
    /// or every file routed on the server. A directory index is read in
    /// place.
    pub fn sync(&mut self) {
        if let Some((work, bare)) = &self.git {
            let parent = work.refname_to_id("refs/heads/main").ok();
            super::git::commit_all(work, "index", Some("refs/heads/main"), parent.as_slice());
            super::git::push_to_bare(work, bare, "main");
        }
        if let Some(server) = &self.server {
            serve_index(server, &self.index.root);
        }
    }
}

/// Routes every file of the index at `root` as `/index/<path>` on `server`.
pub fn serve_index(server: &Server, root: &Path) {
    serve_index_with(server, root, &|_, bytes| Behaviour::Serve(bytes));
}

/// As [`serve_index`], each file answered as `behaviour(path, bytes)` says.
pub fn serve_index_with(
    server: &Server,
    root: &Path,
    behaviour: &dyn Fn(&str, Vec<u8>) -> Behaviour,
) {
    fn walk(
        server: &Server,
        root: &Path,
        dir: &Path,
        behaviour: &dyn Fn(&str, Vec<u8>) -> Behaviour,
    ) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                walk(server, root, &path, behaviour);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                let bytes = std::fs::read(&path).unwrap();
                server.route(&format!("/index/{rel}"), behaviour(&rel, bytes));
            }
        }
    }
    walk(server, root, root, behaviour);
}
