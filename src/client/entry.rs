//! orla's entry in a client's file: the command that starts this orla,
//! what an entry found in a file serves, and the names entries go under.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::{Client, ClientError};

/// What a project's own editor file (`.vscode/mcp.json`,
/// `.cursor/mcp.json`) names the project by: VS Code and Cursor replace it
/// with the folder they opened, so the committed file works on every
/// checkout.
pub const WORKSPACE_FOLDER: &str = "${workspaceFolder}";

/// What an entry serves: a root whose `orla serve --stdio` the client
/// starts, or an `orla serve` over HTTP at a URL, which the user runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serves {
    Global,
    Project(PathBuf),
    Http(Remote),
}

/// How a client reaches an `orla serve` over HTTP: its URL, and the
/// environment variable the client reads the bearer token from, if the
/// server has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub url: String,
    pub token_env: Option<String>,
}

impl Remote {
    /// `--url` and `--token-env` checked: an http(s) URL whose path is
    /// `/mcp`, where `orla serve` answers, and a variable name a client
    /// can expand.
    pub fn new(url: &str, token_env: Option<&str>) -> Result<Remote, ClientError> {
        let parsed = reqwest::Url::parse(url).ok();
        let is_mcp = parsed.as_ref().is_some_and(|u| {
            matches!(u.scheme(), "http" | "https") && u.path().trim_end_matches('/') == "/mcp"
        });
        if !is_mcp {
            return Err(ClientError::BadUrl(url.to_string()));
        }
        if let Some(name) = token_env.filter(|n| !crate::config::is_env_name(n)) {
            return Err(ClientError::BadVariable(name.to_string()));
        }
        Ok(Remote {
            url: url.to_string(),
            token_env: token_env.map(str::to_string),
        })
    }
}

/// How a client starts this orla.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    /// The path orla was run by, absolute, its links left alone: the path a
    /// package manager keeps across upgrades (`/opt/homebrew/bin/orla`),
    /// not the versioned file it links to.
    pub path: PathBuf,
    /// The first `orla` on `PATH` is this same executable, so `orla` alone
    /// starts it wherever the user's `PATH` applies.
    pub on_path: bool,
}

impl Launcher {
    /// `argv0` is the name the process was started by: a path (relative to
    /// `cwd`), or a name the shell found on `search_path`. When it does not
    /// lead to this executable (a launcher that lies about it), the
    /// executable's own path is used.
    pub fn find(
        argv0: Option<&OsStr>,
        cwd: &Path,
        search_path: &[PathBuf],
    ) -> Result<Launcher, ClientError> {
        let exe = std::env::current_exe().map_err(ClientError::OwnPath)?;
        let real = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
        let is_this = |p: &Path| std::fs::canonicalize(p).is_ok_and(|c| c == real);
        let invoked = argv0
            .and_then(|name| invoked_path(name, cwd, search_path))
            .filter(|p| is_this(p));
        let on_path = on_path("orla", search_path).is_some_and(|p| is_this(&p));
        Ok(Launcher {
            path: invoked.unwrap_or(exe),
            on_path,
        })
    }
}

/// The file `argv0` names: a path, made absolute against `cwd` (its links
/// kept), or a bare name looked up on `search_path` as the shell did.
fn invoked_path(argv0: &OsStr, cwd: &Path, search_path: &[PathBuf]) -> Option<PathBuf> {
    let given = Path::new(argv0);
    if given.is_absolute() || given.components().count() > 1 {
        // `components` drops the `.` of `./orla`.
        return Some(cwd.join(given).components().collect());
    }
    on_path(argv0, search_path)
}

/// The first executable named `name` in the `search_path` directories.
fn on_path(name: impl AsRef<OsStr>, search_path: &[PathBuf]) -> Option<PathBuf> {
    let name = name.as_ref();
    let mut with_suffix = name.to_os_string();
    with_suffix.push(std::env::consts::EXE_SUFFIX);
    search_path
        .iter()
        .flat_map(|dir| [dir.join(name), dir.join(&with_suffix)])
        .find(|p| p.is_file())
}

impl Client {
    /// The server entry that starts `orla serve --stdio` for `serves`.
    ///
    /// `portable` is for a project's own editor file, which teams commit:
    /// the command is `orla` when this orla is the one on `PATH`, the
    /// project is `${workspaceFolder}`, and no `ORLA_HOME` is written (the
    /// editor's environment decides it). Otherwise the entry names the
    /// launcher's absolute path (desktop clients do not start servers with
    /// the user's shell `PATH`), the project's directory, and `ORLA_HOME`
    /// when `home` is not the default root.
    pub fn entry(self, serves: &Serves, home: &Path, launcher: &Launcher, portable: bool) -> Value {
        let command = if portable && launcher.on_path {
            "orla".to_string()
        } else {
            launcher.path.display().to_string()
        };
        let mut args = vec!["serve".to_string(), "--stdio".to_string()];
        match serves {
            Serves::Global => args.push("--global".into()),
            Serves::Project(dir) => {
                args.push("--project".into());
                args.push(match portable {
                    true => WORKSPACE_FOLDER.into(),
                    false => dir.display().to_string(),
                });
            }
            Serves::Http(remote) => return self.http_entry(remote),
        }
        let default_home = directories::BaseDirs::new().map(|d| d.home_dir().join(".orla"));
        let env = (!portable && default_home.as_deref() != Some(home))
            .then(|| json!({ "ORLA_HOME": home.display().to_string() }));
        let mut entry = Map::new();
        if self == Client::Goose {
            entry.insert("name".into(), json!(serves.default_name()));
            entry.insert("type".into(), json!("stdio"));
            entry.insert("cmd".into(), json!(command));
            entry.insert("args".into(), json!(args));
            entry.insert("enabled".into(), json!(true));
            entry.insert("envs".into(), env.unwrap_or_else(|| json!({})));
            entry.insert("timeout".into(), json!(300));
            return Value::Object(entry);
        }
        if self == Client::VsCode {
            entry.insert("type".into(), json!("stdio"));
        }
        entry.insert("command".into(), json!(command));
        entry.insert("args".into(), json!(args));
        if let Some(env) = env {
            entry.insert("env".into(), env);
        }
        Value::Object(entry)
    }
}

impl Client {
    /// Whether this client's file can hold an entry reaching `remote`.
    pub fn check_http(self, remote: &Remote) -> Result<(), ClientError> {
        match self {
            Client::ClaudeDesktop => Err(ClientError::NoHttp {
                client: self.name(),
            }),
            Client::Goose if remote.token_env.is_some() => Err(ClientError::NoTokenVariable {
                client: self.name(),
            }),
            _ => Ok(()),
        }
    }

    /// The entry that connects to an `orla serve` over HTTP, with
    /// `Authorization: Bearer ${env:NAME}` when the server has a token: the
    /// client puts the variable's value in, so the token is in no file.
    /// [`Client::check_http`] says first whether the client can.
    fn http_entry(self, remote: &Remote) -> Value {
        let url = json!(remote.url);
        let headers = remote
            .token_env
            .as_ref()
            .map(|name| json!({ "Authorization": format!("Bearer ${{env:{name}}}") }));
        let mut entry = Map::new();
        match self {
            Client::Goose => {
                entry.insert("name".into(), json!("orla-http"));
                entry.insert("type".into(), json!("streamable_http"));
                entry.insert("uri".into(), url);
                entry.insert("enabled".into(), json!(true));
                entry.insert("envs".into(), json!({}));
                entry.insert("timeout".into(), json!(300));
            }
            Client::VsCode => {
                entry.insert("type".into(), json!("http"));
                entry.insert("url".into(), url);
            }
            // Claude Desktop never gets one (`check_http`).
            Client::Cursor | Client::ClaudeDesktop => {
                entry.insert("url".into(), url);
            }
            Client::Windsurf => {
                entry.insert("serverUrl".into(), url);
            }
        }
        if let Some(headers) = headers {
            entry.insert("headers".into(), headers);
        }
        Value::Object(entry)
    }
}

/// What an entry found in a client's file serves, when it starts
/// `orla serve` or is one of orla's HTTP entries (named `orla…`, its URL's
/// path `/mcp`: nothing else in it says which server answers); `None` for
/// any other server. `workspace` is the project whose editor file holds
/// the entry (what `${workspaceFolder}` means).
pub fn served_by(name: &str, entry: &Value, workspace: Option<&Path>) -> Option<Serves> {
    if let Some(url) = ["url", "serverUrl", "uri"]
        .iter()
        .find_map(|k| entry.get(k).and_then(Value::as_str))
    {
        let path = reqwest::Url::parse(url).ok()?.path().to_string();
        let token_env = entry
            .pointer("/headers/Authorization")
            .and_then(Value::as_str)
            .and_then(|h| h.strip_prefix("Bearer ${env:")?.strip_suffix('}'))
            .map(str::to_string);
        return (name.starts_with("orla") && path.trim_end_matches('/') == "/mcp").then(|| {
            Serves::Http(Remote {
                url: url.to_string(),
                token_env,
            })
        });
    }
    let command = entry
        .get("command")
        .or_else(|| entry.get("cmd"))
        .and_then(Value::as_str)?;
    let is_orla = Path::new(command).file_stem().is_some_and(|s| s == "orla");
    let args: Vec<&str> = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !is_orla || args.first() != Some(&"serve") {
        return None;
    }
    Some(match args.iter().position(|a| *a == "--project") {
        None => Serves::Global,
        Some(i) => match args.get(i + 1).copied() {
            Some(WORKSPACE_FOLDER) => Serves::Project(workspace?.to_path_buf()),
            Some(dir) => Serves::Project(PathBuf::from(dir)),
            None => return None,
        },
    })
}

/// The project whose own editor file `config` is (`<dir>/.vscode/mcp.json`
/// or `<dir>/.cursor/mcp.json`): what `${workspaceFolder}` means there.
pub fn workspace_of(config: &Path) -> Option<&Path> {
    let dir = config.parent()?;
    let name = dir.file_name()?;
    (name == ".vscode" || name == ".cursor").then(|| dir.parent())?
}

impl Serves {
    /// The entry's name when none is given: `orla`, or `orla-DIR` for a project.
    pub fn default_name(&self) -> String {
        match self {
            Serves::Global => "orla".into(),
            Serves::Http(_) => "orla-http".into(),
            Serves::Project(dir) => {
                let base: String = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
                    .chars()
                    .map(
                        |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                            true => c,
                            false => '-',
                        },
                    )
                    .collect();
                match base.is_empty() {
                    true => "orla-project".into(),
                    false => format!("orla-{base}"),
                }
            }
        }
    }

    /// The name of a project's entry when its default name already serves
    /// another project (two checkouts called `app`): the default name and
    /// six hex digits of the BLAKE3 of the project's path, the same on
    /// every run. `None` for the global root, which has one name.
    pub fn distinct_name(&self) -> Option<String> {
        let hash = match self {
            Serves::Global => return None,
            Serves::Project(dir) => {
                let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
                blake3::hash(dir.as_os_str().as_encoded_bytes())
            }
            Serves::Http(remote) => blake3::hash(remote.url.as_bytes()),
        };
        Some(format!("{}-{}", self.default_name(), &hash.to_hex()[..6]))
    }

    /// Both serve the same root: the global one, or one project directory
    /// (compared by their real paths).
    pub fn same_root(&self, other: &Serves) -> bool {
        match (self, other) {
            (Serves::Global, Serves::Global) => true,
            (Serves::Project(a), Serves::Project(b)) => {
                let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
                a == b || real(a) == real(b)
            }
            (Serves::Http(a), Serves::Http(b)) => a.url == b.url,
            _ => false,
        }
    }

    /// How `orla client list` and messages name it: `global`, `project DIR`.
    pub fn describe(&self) -> String {
        match self {
            Serves::Global => "global".into(),
            Serves::Project(dir) => format!("project {}", dir.display()),
            Serves::Http(remote) => remote.url.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(Serves::Global.default_name(), "orla");
        assert_eq!(
            Serves::Project(PathBuf::from("/w/my app")).default_name(),
            "orla-my-app"
        );
        let a = Serves::Project(PathBuf::from("/nonexistent/a/app"));
        let b = Serves::Project(PathBuf::from("/nonexistent/b/app"));
        assert_eq!(a.default_name(), b.default_name());
        let (na, nb) = (a.distinct_name().unwrap(), b.distinct_name().unwrap());
        assert_ne!(na, nb, "distinct projects get distinct names");
        assert!(na.starts_with("orla-app-") && na.len() == "orla-app-".len() + 6);
        assert_eq!(a.distinct_name(), Some(na), "stable");
        assert_eq!(Serves::Global.distinct_name(), None);
    }

    #[test]
    fn what_an_entry_serves() {
        let ws = Path::new("/w/p");
        let entry = |command: &str, args: &[&str]| json!({"command": command, "args": args});
        assert_eq!(
            served_by(
                "orla",
                &entry("/x/orla", &["serve", "--stdio", "--global"]),
                None
            ),
            Some(Serves::Global)
        );
        assert_eq!(
            served_by(
                "orla",
                &entry("orla", &["serve", "--stdio", "--project", WORKSPACE_FOLDER]),
                Some(ws)
            ),
            Some(Serves::Project(ws.to_path_buf()))
        );
        assert_eq!(
            served_by(
                "orla",
                &entry("orla", &["serve", "--project", "/a"]),
                Some(ws)
            ),
            Some(Serves::Project("/a".into()))
        );
        // goose names its command `cmd`.
        assert_eq!(
            served_by("orla", &json!({"cmd": "orla", "args": ["serve"]}), None),
            Some(Serves::Global)
        );
        assert_eq!(served_by("orla", &entry("npx", &["serve"]), None), None);
        assert_eq!(served_by("orla", &entry("orla", &["run", "x"]), None), None);
        // An HTTP entry is orla's when it is named so and reaches /mcp.
        let remote = json!({"url": "http://127.0.0.1:8080/mcp",
                            "headers": {"Authorization": "Bearer ${env:T}"}});
        assert_eq!(
            served_by("orla-http", &remote, None),
            Some(Serves::Http(Remote {
                url: "http://127.0.0.1:8080/mcp".into(),
                token_env: Some("T".into())
            }))
        );
        assert_eq!(served_by("other", &remote, None), None);
        let windsurf = json!({"serverUrl": "https://h.example/mcp/"});
        assert!(matches!(
            served_by("orla-h", &windsurf, None),
            Some(Serves::Http(_))
        ));
        let elsewhere = json!({"uri": "https://h.example/api"});
        assert_eq!(served_by("orla-x", &elsewhere, None), None);
        // `${workspaceFolder}` outside a project's own file means nothing.
        assert_eq!(
            served_by(
                "orla",
                &entry("orla", &["serve", "--project", WORKSPACE_FOLDER]),
                None
            ),
            None
        );
    }

    #[test]
    fn a_project_file_is_the_workspace_of_its_parent() {
        assert_eq!(
            workspace_of(Path::new("/w/p/.vscode/mcp.json")),
            Some(Path::new("/w/p"))
        );
        assert_eq!(
            workspace_of(Path::new("/w/p/.cursor/mcp.json")),
            Some(Path::new("/w/p"))
        );
        assert_eq!(
            workspace_of(Path::new("/home/u/.config/Code/User/mcp.json")),
            None
        );
    }

    #[test]
    fn the_invoked_path_keeps_links_and_finds_bare_names_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("orla"), "").unwrap();
        let search = vec![dir.path().join("empty"), bin.clone()];
        assert_eq!(
            invoked_path(OsStr::new("orla"), Path::new("/cwd"), &search),
            Some(bin.join("orla"))
        );
        assert_eq!(
            invoked_path(OsStr::new("./x/orla"), Path::new("/cwd"), &search),
            Some(PathBuf::from("/cwd/x/orla"))
        );
        assert_eq!(
            invoked_path(OsStr::new("/opt/bin/orla"), Path::new("/cwd"), &search),
            Some(PathBuf::from("/opt/bin/orla"))
        );
        assert_eq!(
            invoked_path(OsStr::new("nothere"), Path::new("/cwd"), &search),
            None
        );
    }

    #[test]
    fn only_urls_of_an_orla_serve_and_variable_names_are_taken() {
        let ok = Remote::new("http://127.0.0.1:8080/mcp", Some("ORLA_SERVE_TOKEN")).unwrap();
        assert_eq!(ok.token_env.as_deref(), Some("ORLA_SERVE_TOKEN"));
        assert!(Remote::new("https://tools.example/mcp/", None).is_ok());
        for url in [
            "127.0.0.1:8080/mcp",
            "ftp://h/mcp",
            "http://h/",
            "http://h/v1/tools",
        ] {
            assert!(
                matches!(Remote::new(url, None), Err(ClientError::BadUrl(_))),
                "{url}"
            );
        }
        for name in ["", "1A", "A-B", "${env:X}", "A B"] {
            let err = Remote::new("http://h/mcp", Some(name)).unwrap_err();
            assert!(matches!(err, ClientError::BadVariable(_)), "{name}");
        }
    }
}
