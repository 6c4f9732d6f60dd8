//! `orla client add|remove|list`: orla's entry in MCP clients' real
//! configuration files, under the test's HOME and XDG_CONFIG_HOME. That the
//! entry serves is proved in serve.rs (an MCP client starts exactly what it
//! says).

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use common::{to_run, Run, TestContext};

const ORLA: &str = env!("CARGO_BIN_EXE_orla");

fn user(t: &TestContext, path: &str) -> PathBuf {
    t.dir.path().join("user").join(path)
}

fn claude(t: &TestContext) -> PathBuf {
    user(t, ".config/Claude/claude_desktop_config.json")
}

fn windsurf(t: &TestContext) -> PathBuf {
    user(t, ".codeium/windsurf/mcp_config.json")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn project(t: &TestContext, rel: &str) -> PathBuf {
    let dir = t.work.join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    t.run_in(&dir, &["init", "-q"]).success();
    dir
}

/// The entries `orla client list --json` shows in `client`'s user file.
fn listed(t: &TestContext, client: &str) -> Value {
    let run = t.run(&["client", "list", "--json"]);
    run.success();
    let places = run.json();
    let place = places
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client"] == client);
    place.unwrap()["entries"].clone()
}

/// orla run by `program` (a link to it, or `orla` found on `path`) in `dir`.
fn run_as(t: &TestContext, program: &Path, path: &Path, dir: &Path, args: &[&str]) -> Run {
    let mut cmd = t.program_command(program, args);
    cmd.env("PATH", path).current_dir(dir);
    to_run(cmd.output().unwrap())
}

#[test]
fn two_projects_with_one_directory_name_keep_their_own_entries() {
    let t = TestContext::new();
    let a = project(&t, "a/app");
    let b = project(&t, "b/app");
    t.run_in(&a, &["client", "add", "windsurf"])
        .success()
        .stderr_has("Added orla-app in");
    t.run_in(&b, &["client", "add", "windsurf"])
        .success()
        .stderr_has("Added orla-app-");
    let servers = read_json(&windsurf(&t))["mcpServers"].clone();
    let names: Vec<&String> = servers.as_object().unwrap().keys().collect();
    assert_eq!(names.len(), 2, "{servers}");
    let b_name = names[1].clone();
    assert_eq!(servers["orla-app"]["args"][3], a.display().to_string());
    assert_eq!(servers[&b_name]["args"][3], b.display().to_string());
    // Each project finds its own entry again, whatever its name.
    t.run_in(&b, &["client", "add", "windsurf"])
        .success()
        .stderr_has(&format!("Unchanged {b_name}"));

    // `remove` in a takes out a's entry only.
    t.run_in(&a, &["client", "remove", "windsurf"])
        .success()
        .stderr_has("Removed orla-app from");
    let servers = read_json(&windsurf(&t))["mcpServers"].clone();
    assert!(servers.get("orla-app").is_none());
    assert_eq!(servers[&b_name]["args"][3], b.display().to_string());
    t.run_in(&a, &["client", "remove", "windsurf"])
        .failure(1)
        .stderr_has("has no entry \"orla-app\"")
        .stderr_has(&format!("serve other roots: {b_name}"));

    // An entry of another server is never replaced.
    let c = project(&t, "c/tool");
    write(
        &windsurf(&t),
        "{\"mcpServers\": {\"x\": {\"command\": \"npx\", \"args\": [\"x\"]}}}",
    );
    t.run_in(&c, &["client", "add", "windsurf", "--name", "x"])
        .failure(1)
        .stderr_has("\"x\" in")
        .stderr_has("already serves another server")
        .stderr_has("hint: pass --name NAME");
    t.run_in(&c, &["client", "remove", "windsurf", "--name", "x"])
        .failure(1)
        .stderr_has("does not start `orla serve`");
    assert_eq!(
        read_json(&windsurf(&t))["mcpServers"]["x"]["command"],
        "npx"
    );
}

/// A link named `orla` to the binary, in a directory of its own.
fn linked_orla(t: &TestContext) -> (PathBuf, PathBuf) {
    let bin = t.dir.path().join("np/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("orla");
    std::os::unix::fs::symlink(ORLA, &link).unwrap();
    (bin, link)
}

#[test]
fn the_entry_names_orla_by_the_path_it_was_run_by_not_the_file_its_link_leads_to() {
    let t = TestContext::new();
    let (bin, link) = linked_orla(&t);
    let config = t.work.join("x.json");
    let path = std::env::join_paths([&bin, Path::new("/usr/bin"), Path::new("/bin")]).unwrap();
    // By its path, and by its name found on PATH.
    for program in [link.clone(), PathBuf::from("orla")] {
        let run = run_as(
            &t,
            &program,
            Path::new(&path),
            &t.work,
            &["client", "add", "cursor", "--config", "x.json", "--dry-run"],
        );
        run.success();
        let wanted = format!("+   \"command\": \"{}\",", link.display());
        assert!(run.stdout.contains(&wanted), "{}", run.stdout);
    }
    assert!(!config.exists(), "a dry run writes nothing");
}

#[test]
fn a_projects_editor_files_hold_portable_commands_and_no_machine_paths() {
    let t = TestContext::new();
    let (bin, link) = linked_orla(&t);
    let dir = project(&t, "my app");
    let path = std::env::join_paths([&bin, Path::new("/usr/bin"), Path::new("/bin")]).unwrap();
    let path = Path::new(&path);
    run_as(&t, &link, path, &dir, &["client", "add", "cursor"]).success();
    let entry = read_json(&dir.join(".cursor/mcp.json"))["mcpServers"]["orla-my-app"].clone();
    assert_eq!(
        entry,
        json!({"command": "orla", "args": ["serve", "--stdio", "--project", "${workspaceFolder}"]}),
        "no absolute path and no ORLA_HOME in a file teams commit"
    );

    // An entry an older orla wrote with absolute paths is found and made portable.
    let old = json!({"servers": {"orla-my-app": {"type": "stdio", "command": ORLA,
        "args": ["serve", "--stdio", "--project", dir.display().to_string()],
        "env": {"ORLA_HOME": t.home.display().to_string()}}}});
    write(&dir.join(".vscode/mcp.json"), &old.to_string());
    run_as(&t, &link, path, &dir, &["client", "add", "vscode"])
        .success()
        .stderr_has("Updated orla-my-app")
        .stderr_has("Next VS Code picks the entry up without a restart");
    let entry = read_json(&dir.join(".vscode/mcp.json"))["servers"]["orla-my-app"].clone();
    assert_eq!(
        entry,
        json!({"type": "stdio", "command": "orla", "args": ["serve", "--stdio", "--project", "${workspaceFolder}"]})
    );
    let listed = t.run_in(&dir, &["client", "list", "--json"]);
    listed.success();
    let vscode: Vec<Value> = listed
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["client"] == "vscode")
        .cloned()
        .collect();
    assert_eq!(
        vscode[1]["entries"],
        json!([{"name": "orla-my-app", "serves": format!("project {}", dir.display())}])
    );
    t.run_in(&dir, &["client", "remove", "vscode"])
        .success()
        .stderr_has("Removed orla-my-app from");

    // With no orla on PATH the entry names the binary, and says so.
    t.run_in(&dir, &["client", "add", "vscode"])
        .success()
        .stderr_has("warning: orla is not on PATH");
    let entry = read_json(&dir.join(".vscode/mcp.json"))["servers"]["orla-my-app"].clone();
    assert_eq!(entry["command"], ORLA);
    assert_eq!(entry["args"][3], "${workspaceFolder}");
    assert!(entry.get("env").is_none());
}

#[test]
fn a_jsonc_file_is_edited_and_its_comments_kept() {
    let t = TestContext::new();
    let config = user(&t, ".config/Code/User/mcp.json");
    let original = "// My servers\n{\n  \"servers\": {\n    // the one I use\n    \"github\": {\"command\": \"gh\", \"args\": [\"mcp\"]}, // keep\n  },\n  \"inputs\": [],\n}\n";
    write(&config, original);
    t.run(&["client", "add", "vscode"])
        .success()
        .stderr_has("Added orla in");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with("// My servers\n{\n  \"servers\": {\n    // the one I use\n    \"github\": {\"command\": \"gh\", \"args\": [\"mcp\"]}, // keep\n    \"orla\": {\n"),
        "{text}"
    );
    assert!(text.contains(&format!("\"command\": \"{ORLA}\"")), "{text}");
    let listed = t.run(&["client", "list"]);
    listed.success().stdout_has("vscode");
    assert!(listed.stdout.contains("orla") && listed.stdout.contains("global"));
    t.run(&["client", "remove", "vscode"]).success();
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    // What is not JSONC either is left alone, with the entry to paste.
    write(&config, "{'servers': {}}");
    t.run(&["client", "add", "vscode"])
        .failure(1)
        .stderr_has("is not JSON orla can edit")
        .stderr_has("hint: add this under \"servers\" by hand");
}

#[test]
fn the_rewrite_keeps_the_mode_and_the_first_backup_is_private_and_kept() {
    let t = TestContext::new();
    let config = claude(&t);
    let original =
        "{\"mcpServers\": {\"secret\": {\"command\": \"x\", \"env\": {\"TOKEN\": \"t0k3n\"}}}}\n";
    write(&config, original);
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    t.run(&["client", "add", "claude-desktop"]).success();
    assert_eq!(mode(&config), 0o600);
    let backup = config.with_file_name("claude_desktop_config.json.orla-backup");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
    assert_eq!(mode(&backup), 0o600);
    // The next change leaves the first backup alone.
    t.run(&["client", "remove", "claude-desktop"]).success();
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
    // A readable file stays readable; its backup is still private.
    std::fs::remove_file(&backup).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    t.run(&["client", "add", "claude-desktop"]).success();
    assert_eq!(mode(&config), 0o644);
    assert_eq!(mode(&backup), 0o600);
    // A file orla creates in the user's configuration is private.
    t.run(&["client", "add", "windsurf"]).success();
    assert_eq!(mode(&windsurf(&t)), 0o600);
}

#[test]
fn a_linked_project_file_is_refused_and_nothing_is_copied() {
    let t = TestContext::new();
    let dir = project(&t, "cloned");
    let config = claude(&t);
    let original = "{\"mcpServers\": {\"secret\": {\"command\": \"x\"}}}";
    write(&config, original);
    std::fs::create_dir_all(dir.join(".vscode")).unwrap();
    std::os::unix::fs::symlink(&config, dir.join(".vscode/mcp.json")).unwrap();
    t.run_in(&dir, &["client", "add", "vscode"])
        .failure(1)
        .stderr_has("is a symbolic link to")
        .stderr_has("orla does not follow links in a project's files")
        .stderr_has("hint: check where it leads; remove");
    assert!(std::fs::symlink_metadata(dir.join(".vscode/mcp.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    let left: Vec<_> = std::fs::read_dir(dir.join(".vscode")).unwrap().collect();
    assert_eq!(left.len(), 1, "no backup, no copy");
    // A `.cursor` directory that leads out of the project is refused too.
    std::os::unix::fs::symlink(config.parent().unwrap(), dir.join(".cursor")).unwrap();
    t.run_in(&dir, &["client", "add", "cursor"])
        .failure(1)
        .stderr_has("orla does not follow links in a project's files");
    assert!(!config.with_file_name("mcp.json").exists());
}

#[test]
fn a_fifo_a_device_or_a_huge_file_is_refused_without_hanging() {
    let t = TestContext::new();
    let config = claude(&t);
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let made = Command::new("mkfifo").arg(&config).status().unwrap();
    assert!(made.success());
    t.run(&["client", "add", "claude-desktop"])
        .failure(1)
        .stderr_has("is a FIFO, not a regular file")
        .stderr_has("hint: move it out of the way");
    // `list` does not hang on it either.
    t.run(&["client", "list"]).success().stdout_has("a FIFO");

    let zero = windsurf(&t);
    std::fs::create_dir_all(zero.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    t.run(&["client", "add", "windsurf"])
        .failure(1)
        .stderr_has("is a device, not a regular file");

    let big = t.work.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(64 * 1024 * 1024)
        .unwrap();
    t.run(&["client", "add", "cursor", "--config", "big.json"])
        .failure(1)
        .stderr_has("is larger than");
}

#[test]
fn a_linked_user_file_is_edited_in_place() {
    let t = TestContext::new();
    let real = t.dir.path().join("dotfiles/goose.yaml");
    write(&real, "GOOSE_PROVIDER: openai\n");
    let config = user(&t, ".config/goose/config.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &config).unwrap();
    t.run(&["client", "add", "goose"]).success();
    assert!(std::fs::symlink_metadata(&config)
        .unwrap()
        .file_type()
        .is_symlink());
    let written: Value = serde_yaml::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(written["GOOSE_PROVIDER"], "openai");
    assert_eq!(written["extensions"]["orla"]["cmd"], ORLA);
    assert!(real.with_file_name("goose.yaml.orla-backup").exists());
}

#[test]
fn concurrent_adds_lose_no_entry() {
    let t = TestContext::new();
    write(&claude(&t), "{}");
    let names: Vec<String> = (0..8).map(|i| format!("orla-{i}")).collect();
    let children: Vec<_> = names
        .iter()
        .map(|name| {
            t.command(&["client", "add", "claude-desktop", "--name", name])
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let servers = read_json(&claude(&t))["mcpServers"].clone();
    for name in &names {
        assert!(servers.get(name).is_some(), "{name} lost: {servers}");
    }
}

#[test]
fn client_add_goose_writes_an_extension_in_its_yaml_and_keeps_its_comments() {
    let t = TestContext::new();
    let config = user(&t, ".config/goose/config.yaml");
    let original = "# my goose\nGOOSE_PROVIDER: openai # for now\nextensions:\n  developer:\n    enabled: true\n    name: developer\n    type: builtin\n";
    write(&config, original);
    // The dry run shows YAML, as the file is.
    let dry = t.run(&["client", "add", "goose", "--dry-run"]);
    dry.success()
        .stdout_has("+ orla:\n+   name: orla\n+   type: stdio\n")
        .stdout_has(&format!("+   cmd: {ORLA}\n"));
    t.run(&["client", "add", "goose"])
        .success()
        .stderr_has("Next restart goose to start orla");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.starts_with(original),
        "comments and lines kept: {text}"
    );
    let written: Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(written["GOOSE_PROVIDER"], "openai");
    assert_eq!(written["extensions"]["developer"]["type"], "builtin");
    let orla = &written["extensions"]["orla"];
    assert_eq!(orla["cmd"], ORLA);
    assert_eq!(orla["type"], "stdio");
    assert_eq!(orla["enabled"], true);
    assert_eq!(orla["args"], json!(["serve", "--stdio", "--global"]));
    assert_eq!(
        listed(&t, "goose"),
        json!([{"name": "orla", "serves": "global"}])
    );
    t.run(&["client", "remove", "goose"])
        .success()
        .stderr_has("Removed orla from");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
}

#[test]
fn unknown_clients_are_a_usage_error() {
    let t = TestContext::new();
    t.run(&["client", "add", "zed"])
        .failure(2)
        .stderr_has("unknown MCP client 'zed'")
        .stderr_has("hint: orla configures: claude-desktop, cursor, vscode, windsurf, goose");
}

#[test]
fn an_entry_reaching_orla_serve_over_http_names_the_token_variable_not_the_token() {
    let t = TestContext::new();
    let cursor = user(&t, ".cursor/mcp.json");
    let theirs = json!({"url": "https://tools.example/mcp"});
    write(
        &cursor,
        &json!({"mcpServers": {"remote": theirs}}).to_string(),
    );
    let url = "http://127.0.0.1:8080/mcp";
    let add = [
        "client",
        "add",
        "cursor",
        "--url",
        url,
        "--token-env",
        "ORLA_SERVE_TOKEN",
    ];
    t.run(&["client", "add", "cursor"]).success();
    t.run(&add)
        .success()
        .stderr_has("Added orla-http in")
        .stderr_has(&format!("Next cursor connects to the `orla serve` running at {url}; `orla client remove cursor --url {url}` undoes this"));
    let servers = &read_json(&cursor)["mcpServers"];
    assert_eq!(
        servers["orla-http"],
        json!({"url": url, "headers": {"Authorization": "Bearer ${env:ORLA_SERVE_TOKEN}"}})
    );
    assert_eq!(
        servers["orla"]["args"],
        json!(["serve", "--stdio", "--global"])
    );
    assert_eq!(servers["remote"], theirs);
    // Found again by its URL.
    t.run(&add).success().stderr_has("Unchanged orla-http in");
    assert_eq!(
        listed(&t, "cursor"),
        json!([{"name": "orla", "serves": "global"}, {"name": "orla-http", "serves": url}])
    );

    // Each editor's own shape.
    t.run(&["client", "add", "vscode", "--url", url, "--token-env", "T"])
        .success();
    assert_eq!(
        read_json(&user(&t, ".config/Code/User/mcp.json"))["servers"]["orla-http"],
        json!({"type": "http", "url": url, "headers": {"Authorization": "Bearer ${env:T}"}})
    );
    t.run(&["client", "add", "windsurf", "--url", url])
        .success();
    assert_eq!(
        read_json(&windsurf(&t))["mcpServers"]["orla-http"],
        json!({"serverUrl": url})
    );
    t.run(&["client", "add", "goose", "--url", url]).success();
    let goose: Value = serde_yaml::from_str(
        &std::fs::read_to_string(user(&t, ".config/goose/config.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(goose["extensions"]["orla-http"]["type"], "streamable_http");
    assert_eq!(goose["extensions"]["orla-http"]["uri"], url);

    // What a client cannot hold is refused, with nothing written.
    t.run(&["client", "add", "claude-desktop", "--url", url])
        .failure(2)
        .stderr_has("holds only servers it starts")
        .stderr_has("hint: leave out --url");
    assert!(!claude(&t).exists());
    t.run(&["client", "add", "goose", "--url", url, "--token-env", "T"])
        .failure(2)
        .stderr_has("no way to make goose read the token from a variable");
    t.run(&["client", "add", "cursor", "--url", "http://127.0.0.1:8080/"])
        .failure(2)
        .stderr_has("is not the URL of an `orla serve` over HTTP");
    t.run(&[
        "client",
        "add",
        "cursor",
        "--url",
        url,
        "--token-env",
        "A-B",
    ])
    .failure(2)
    .stderr_has("'A-B' is not the name of an environment variable");
    t.run(&["client", "add", "cursor", "--token-env", "T"])
        .failure(2);

    // Removing by URL takes out that entry only.
    t.run(&["client", "remove", "cursor", "--url", url])
        .success()
        .stderr_has("Removed orla-http from");
    let servers = &read_json(&cursor)["mcpServers"];
    assert!(servers.get("orla-http").is_none());
    assert_eq!(servers["remote"], theirs);
    assert!(servers.get("orla").is_some());
}
