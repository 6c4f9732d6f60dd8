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

/// git's own smart-HTTP server (`git http-backend`, run as CGI) on
/// 127.0.0.1, serving the repositories under `root`: the transport of
/// `https://` git registries without TLS. `None` when git is not installed.
pub struct GitHttp {
    pub addr: String,
    pub requests: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl GitHttp {
    pub fn start(root: &std::path::Path) -> Option<GitHttp> {
        use std::io::{BufRead, BufReader, Read, Write};
        let exec = std::process::Command::new("git")
            .arg("--exec-path")
            .output()
            .ok()?;
        let backend = std::path::PathBuf::from(String::from_utf8_lossy(&exec.stdout).trim())
            .join("git-http-backend");
        if !backend.is_file() {
            return None;
        }
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = format!("http://{}", listener.local_addr().unwrap());
        let root = root.to_path_buf();
        let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let (root, backend) = (root.clone(), backend.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    let mut parts = line.split_whitespace();
                    let method = parts.next().unwrap_or("GET").to_string();
                    let target = parts.next().unwrap_or("/").to_string();
                    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
                    let (mut length, mut chunked, mut content_type) =
                        (0usize, false, String::new());
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        let (k, v) = header.split_once(':').unwrap_or((header, ""));
                        match k.to_ascii_lowercase().as_str() {
                            "content-length" => length = v.trim().parse().unwrap_or(0),
                            "transfer-encoding" => {
                                chunked = v.to_ascii_lowercase().contains("chunked")
                            }
                            "content-type" => content_type = v.trim().to_string(),
                            _ => {}
                        }
                    }
                    let mut body = Vec::new();
                    if chunked {
                        loop {
                            let mut size = String::new();
                            reader.read_line(&mut size).unwrap();
                            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
                            let mut chunk = vec![0; n + 2];
                            reader.read_exact(&mut chunk).unwrap();
                            if n == 0 {
                                break;
                            }
                            body.extend_from_slice(&chunk[..n]);
                        }
                    } else {
                        body.resize(length, 0);
                        reader.read_exact(&mut body).unwrap();
                    }
                    let mut child = std::process::Command::new(&backend)
                        .env_clear()
                        .env("GIT_PROJECT_ROOT", &root)
                        .env("GIT_HTTP_EXPORT_ALL", "1")
                        .env("REQUEST_METHOD", &method)
                        .env("PATH_INFO", path)
                        .env("QUERY_STRING", query)
                        .env("CONTENT_TYPE", &content_type)
                        .env("CONTENT_LENGTH", body.len().to_string())
                        .stdin(std::process::Stdio::piped())
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::null())
                        .spawn()
                        .unwrap();
                    child.stdin.take().unwrap().write_all(&body).unwrap();
                    let out = child.wait_with_output().unwrap().stdout;
                    let split = out
                        .windows(4)
                        .position(|w| w == b"\r\n\r\n")
                        .map(|i| (i, 4))
                        .or_else(|| out.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)))
                        .unwrap_or((out.len(), 0));
                    let head = String::from_utf8_lossy(&out[..split.0]).to_string();
                    let payload = &out[(split.0 + split.1).min(out.len())..];
                    let mut status = "200 OK".to_string();
                    let mut headers = String::new();
                    for h in head.lines() {
                        match h.split_once(':') {
                            Some((k, v)) if k.eq_ignore_ascii_case("status") => {
                                status = v.trim().to_string()
                            }
                            Some(_) => headers.push_str(&format!("{h}\r\n")),
                            None => {}
                        }
                    }
                    let mut stream = stream;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
                        payload.len()
                    );
                    let _ = stream.write_all(payload);
                });
            }
        });
        Some(GitHttp { addr, requests })
    }
}

/// A tool's own git repository, as the Orla project keeps them (RFC 3 6.4):
/// tool.yaml at the root and one `vX.Y.Z` tag per release.
pub struct ToolRepository {
    pub dir: std::path::PathBuf,
    pub repo: git2::Repository,
}

impl ToolRepository {
    pub fn new(dir: &std::path::Path) -> ToolRepository {
        let repo = git2::Repository::init(dir).unwrap();
        repo.set_head("refs/heads/main").unwrap();
        ToolRepository {
            dir: dir.to_path_buf(),
            repo,
        }
    }

    pub fn url(&self) -> String {
        format!("file://{}", self.dir.display())
    }

    /// Replaces the work tree with `files` (path, bytes, executable) and
    /// commits it on `main`.
    pub fn commit(&self, files: &[(&str, &[u8], bool)], message: &str) -> git2::Oid {
        use std::os::unix::fs::PermissionsExt;
        for entry in std::fs::read_dir(&self.dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap() == ".git" {
                continue;
            }
            if path.is_dir() {
                std::fs::remove_dir_all(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        }
        for (path, bytes, executable) in files {
            let full = self.dir.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, bytes).unwrap();
            let mode = if *executable { 0o755 } else { 0o644 };
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let mut idx = self.repo.index().unwrap();
        idx.clear().unwrap();
        idx.add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        idx.write().unwrap();
        let tree = self.repo.find_tree(idx.write_tree().unwrap()).unwrap();
        let sig =
            git2::Signature::new("t", "t@example.com", &git2::Time::new(1_700_000_000, 0)).unwrap();
        let parent = self
            .repo
            .refname_to_id("refs/heads/main")
            .ok()
            .map(|id| self.repo.find_commit(id).unwrap());
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        self.repo
            .commit(
                Some("refs/heads/main"),
                &sig,
                &sig,
                message,
                &tree,
                &parents,
            )
            .unwrap()
    }

    /// Tags `commit` as `name`, annotated (a tag object) or lightweight.
    pub fn tag(&self, name: &str, commit: git2::Oid, annotated: bool) {
        let object = self.repo.find_object(commit, None).unwrap();
        if annotated {
            let sig =
                git2::Signature::new("t", "t@example.com", &git2::Time::new(1_700_000_000, 0))
                    .unwrap();
            self.repo
                .tag(name, &object, &sig, &format!("Release {name}"), true)
                .unwrap();
        } else {
            self.repo.tag_lightweight(name, &object, true).unwrap();
        }
    }

    /// Commits `files` and tags the commit `tag`.
    pub fn release(&self, tag: &str, files: &[(&str, &[u8], bool)], annotated: bool) -> git2::Oid {
        let oid = self.commit(files, &format!("release {tag}"));
        self.tag(tag, oid, annotated);
        oid
    }
}

/// An RFC 3 registry as the Orla project's (6.3): a git repository holding
/// only registry.yaml, hosted as a bare repository.
pub struct Rfc3Registry {
    pub bare: std::path::PathBuf,
    pub work_dir: std::path::PathBuf,
    work: git2::Repository,
}

impl Rfc3Registry {
    pub fn new(base: &std::path::Path, name: &str) -> Rfc3Registry {
        let work_dir = base.join(format!("{name}-work"));
        std::fs::create_dir_all(&work_dir).unwrap();
        let work = git2::Repository::init(&work_dir).unwrap();
        work.set_head("refs/heads/main").unwrap();
        Rfc3Registry {
            bare: base.join(format!("{name}.git")),
            work_dir,
            work,
        }
    }

    /// Commits `registry_yaml` as the registry's only file and pushes it.
    pub fn publish(&self, registry_yaml: &str) -> git2::Oid {
        std::fs::write(self.work_dir.join("registry.yaml"), registry_yaml).unwrap();
        let parent = self.work.refname_to_id("refs/heads/main").ok();
        let oid = commit_all(
            &self.work,
            "update registry.yaml",
            Some("refs/heads/main"),
            parent.as_slice(),
        );
        push_to_bare(&self.work, &self.bare, "main");
        oid
    }

    pub fn url(&self) -> String {
        format!("file://{}", self.bare.display())
    }
}
