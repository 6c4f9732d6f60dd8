//! `orla tool scaffold | validate | pack`, driven through the real binary
//! without a terminal (the wizard on a pseudo-terminal is in
//! tests/it/scaffold_wizard.rs).

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{snapshot, write_file, TestContext};

/// Is `program` runnable here? When not, the case is skipped with the
/// reason (a failure under ORLA_TEST_STRICT=1, as in CI).
pub(crate) fn have(program: &str) -> bool {
    let ok = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        common::skip_unless_strict(&format!(
            "`{program} --version` does not run on this machine"
        ));
    }
    ok
}

fn scaffold(ctx: &TestContext, name: &str, extra: &[&str]) -> PathBuf {
    let mut args = vec!["tool", "scaffold", name, "--yes"];
    args.extend_from_slice(extra);
    ctx.run(&args).success();
    ctx.work.join(name)
}

/// The manifest entry of `name`.
fn manifest_tool(ctx: &TestContext, name: &str) -> serde_json::Value {
    ctx.manifest()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in the manifest"))
        .clone()
}

/// Runs a simple-mode tool as the runtime would: the manifest's entrypoint,
/// JSON arguments on stdin.
fn call_simple(entry: &serde_json::Value, input: &str) -> (i32, String, String) {
    let out = common::output_with_stdin(
        Command::new(entry["entrypoint"].as_str().unwrap())
            .current_dir(entry["path"].as_str().unwrap()),
        input.as_bytes(),
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Starts a capsule, checks its orla.hello, sends one tools/call and
/// returns the response.
fn call_capsule(entry: &serde_json::Value, name: &str, args: &str) -> serde_json::Value {
    let mut child = Command::new(entry["entrypoint"].as_str().unwrap())
        .current_dir(entry["path"].as_str().unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let hello: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(hello["method"], "orla.hello");
    assert_eq!(hello["params"]["name"], name);
    // A notification gets no answer; the request after it does.
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
    )
    .unwrap();
    drop(stdin);
    let response: serde_json::Value =
        serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(response["id"], 7, "{response}");
    response
}

fn language_available(language: &str) -> bool {
    match language {
        "bash" => have("bash"),
        "python" => have("python3"),
        "node" => have("node"),
        _ => true,
    }
}

#[test]
fn scaffolded_simple_tools_validate_install_and_run_in_every_language() {
    for language in ["bash", "python", "node"] {
        if !language_available(language) {
            continue;
        }
        let ctx = TestContext::new();
        let name = format!("hello-{language}");
        let dir = scaffold(
            &ctx,
            &name,
            &[
                "--language",
                language,
                "--param",
                "text:string",
                "--param",
                "count:integer?",
            ],
        );
        ctx.run(&["tool", "validate", dir.to_str().unwrap()])
            .success()
            .stderr_has(&format!("Valid {name} 0.1.0"));
        ctx.run(&["install", "--local", dir.to_str().unwrap()])
            .success();
        let entry = manifest_tool(&ctx, &name);
        assert_eq!(entry["mode"], "simple");
        assert_eq!(
            entry["input_schema"]["required"],
            serde_json::json!(["text"])
        );
        let (code, stdout, stderr) = call_simple(&entry, r#"{"text":"hi","count":2}"#);
        assert_eq!(code, 0, "{language}: {stderr}");
        let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(answer["tool"], name.as_str());
        assert_eq!(answer["arguments"]["text"], "hi");
        reports_on_stderr(&stderr, language);
        if language != "bash" {
            // The interpreted templates check the declared parameters.
            let (code, _, stderr) = call_simple(&entry, r#"{"count":"x"}"#);
            assert_eq!(code, 2, "{language}");
            assert!(stderr.contains("missing parameter 'text'"), "{stderr}");
            assert!(
                stderr.contains("'count' must be of type integer"),
                "{stderr}"
            );
        }
    }
}

/// A scaffolded simple tool shows the stderr line formats `orla serve`
/// turns into notifications: a log line and increasing progress.
fn reports_on_stderr(stderr: &str, language: &str) {
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines[0].starts_with("info: "), "{language}: {stderr}");
    assert_eq!(
        lines[1..],
        ["progress: 0/1 started", "progress: 1/1 done"],
        "{language}: {stderr}"
    );
}

/// Runs a simple-mode tool of the `flags` convention as the Orla runtime
/// does: the manifest's command line, then one `--name value` per argument.
fn call_flags(entry: &serde_json::Value, flags: &[&str]) -> (i32, String, String) {
    assert_eq!(entry["arguments"], "flags", "{entry}");
    let command: Vec<&str> = entry["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let out = Command::new(command[0])
        .args(&command[1..])
        .args(flags)
        .current_dir(entry["working_dir"].as_str().unwrap())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn scaffolded_flags_tools_read_their_arguments_as_the_orla_runtime_passes_them() {
    for language in ["bash", "python", "node"] {
        if !language_available(language) {
            continue;
        }
        let ctx = TestContext::new();
        let name = format!("flags-{language}");
        let dir = scaffold(
            &ctx,
            &name,
            &[
                "--language",
                language,
                "--arguments",
                "flags",
                "--param",
                "file_path:string",
                "--param",
                "count:integer?",
            ],
        );
        let tool_yaml = std::fs::read_to_string(dir.join("tool.yaml")).unwrap();
        assert!(tool_yaml.contains("arguments: flags"), "{tool_yaml}");
        ctx.run(&["tool", "validate", dir.to_str().unwrap()])
            .success();
        ctx.run(&["install", "--local", dir.to_str().unwrap()])
            .success();
        let entry = manifest_tool(&ctx, &name);
        let (code, stdout, stderr) =
            call_flags(&entry, &["--file-path", "a \"b\"\nc", "--count", "2"]);
        assert_eq!(code, 0, "{language}: {stderr}");
        let answer: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{language}: {e}: {stdout}"));
        assert_eq!(answer["tool"], name.as_str());
        assert_eq!(answer["arguments"]["file_path"], "a \"b\"\nc", "{language}");
        reports_on_stderr(&stderr, language);
        if language != "bash" {
            // The interpreted templates read typed values as JSON text and
            // check the declared parameters.
            assert_eq!(answer["arguments"]["count"], 2, "{language}");
            let (code, _, stderr) = call_flags(&entry, &["--count", "\"x\""]);
            assert_eq!(code, 2, "{language}");
            assert!(stderr.contains("missing parameter 'file_path'"), "{stderr}");
        }
    }
}

#[test]
fn scaffolded_capsules_say_hello_and_answer_in_every_language() {
    // "binary" without --binary gets a placeholder capsule that works too.
    for language in ["bash", "python", "node", "binary"] {
        if !language_available(language) {
            continue;
        }
        let ctx = TestContext::new();
        let name = format!("cap-{language}");
        let dir = scaffold(&ctx, &name, &["--language", language, "--mode", "capsule"]);
        ctx.run(&["tool", "validate", dir.to_str().unwrap()])
            .success();
        ctx.run(&["install", "--local", dir.to_str().unwrap()])
            .success();
        let entry = manifest_tool(&ctx, &name);
        assert_eq!(entry["mode"], "capsule");
        assert_eq!(entry["startup_timeout_ms"], 5000);
        // Every template answers alike: the bash one returned the whole
        // request where python and node return the arguments.
        let args = r#"{"message":"a } \" [b","n":{"list":[1,{"x":"]"}]}}"#;
        let response = call_capsule(&entry, &name, args);
        assert_eq!(
            response["result"],
            serde_json::json!({"tool": name, "arguments": serde_json::from_str::<serde_json::Value>(args).unwrap()}),
            "{language}"
        );
    }
}

#[test]
fn binary_tools_copy_the_executable() {
    let ctx = TestContext::new();
    // `cat` is a fine JSON echo tool: a native executable, no #! line.
    let cat = ["/bin/cat", "/usr/bin/cat"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("cat exists");
    let dir = scaffold(&ctx, "echo-bin", &["--language", "binary", "--binary", cat]);
    assert_eq!(
        std::fs::read(dir.join("bin/echo-bin")).unwrap(),
        std::fs::read(cat).unwrap()
    );
    let run = ctx.run(&["tool", "validate", dir.to_str().unwrap()]);
    run.success();
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
    ctx.run(&["install", "--local", dir.to_str().unwrap()])
        .success();
    let entry = manifest_tool(&ctx, "echo-bin");
    assert!(entry["interpreter"].is_null());
    let (code, stdout, _) = call_simple(&entry, r#"{"message":"hi"}"#);
    assert_eq!((code, stdout.as_str()), (0, r#"{"message":"hi"}"#));

    // Without --binary, a placeholder that still runs, and a warning.
    let run = ctx.run(&[
        "tool",
        "scaffold",
        "later-bin",
        "--yes",
        "--language",
        "binary",
    ]);
    run.success().stderr_has("placeholder");
}

#[test]
fn scaffold_writes_every_file_and_takes_every_answer_from_flags() {
    let ctx = TestContext::new();
    let dir = scaffold(
        &ctx,
        "word-count",
        &[
            "--description",
            "Count the words in a text",
            "--language",
            "python",
            "--permission",
            "filesystem:read,network",
            "--param",
            "text",
            "--author",
            "Ada Lovelace",
            "--license",
            "mit",
            "--tool-version",
            "1.2.3",
        ],
    );
    let mut files: Vec<String> = snapshot(&dir).into_keys().collect();
    files.sort();
    assert_eq!(
        files,
        [
            ".gitignore",
            "LICENSE",
            "README.md",
            "bin/",
            "bin/word-count",
            "tool.yaml"
        ]
    );
    let tool = orla::package::ToolYaml::read(&dir).unwrap();
    assert_eq!(tool.version.as_deref(), Some("1.2.3"));
    assert_eq!(
        tool.description.as_deref(),
        Some("Count the words in a text")
    );
    assert_eq!(tool.author.as_deref(), Some("Ada Lovelace"));
    assert_eq!(tool.license.as_deref(), Some("MIT"));
    assert_eq!(tool.permissions.to_vec(), ["filesystem:read", "network"]);
    let license = std::fs::read_to_string(dir.join("LICENSE")).unwrap();
    assert!(license.starts_with("MIT License") && license.contains("Ada Lovelace"));
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(readme.contains("| `text` | string | yes |"), "{readme}");
    assert!(std::fs::read_to_string(dir.join(".gitignore"))
        .unwrap()
        .contains("*.tar.gz"));

    // Defaults: no license file, bash, simple, one string parameter.
    let dir = scaffold(&ctx, "plain", &[]);
    assert!(!dir.join("LICENSE").exists());
    let tool = orla::package::ToolYaml::read(&dir).unwrap();
    assert_eq!(tool.mode(), orla::package::Mode::Simple);
    assert!(std::fs::read_to_string(dir.join("bin/plain"))
        .unwrap()
        .starts_with("#!/usr/bin/env bash"));
    // No terminal and no --yes: nothing is asked, the defaults apply.
    ctx.run(&["tool", "scaffold", "quiet-one"]).success();
    assert!(ctx.work.join("quiet-one/tool.yaml").is_file());
}

#[test]
fn scaffold_refuses_to_overwrite_unless_forced() {
    let ctx = TestContext::new();
    let dir = scaffold(&ctx, "taken", &[]);
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::fs::write(dir.join("README.md"), "my own readme").unwrap();
    let before = snapshot(&dir);
    ctx.run(&["tool", "scaffold", "taken", "--yes"])
        .failure(1)
        .stderr_has("already exists and is not empty")
        .stderr_has("--force");
    assert_eq!(snapshot(&dir), before);
    ctx.run(&["tool", "scaffold", "taken", "--yes", "--force"])
        .success();
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(std::fs::read_to_string(dir.join("README.md"))
        .unwrap()
        .starts_with("# taken"));
}

/// The "Next cd DIR && ..." line is meant to be pasted into a shell: a
/// directory with a space in it was printed bare, so the paste failed.
#[test]
fn scaffold_next_step_quotes_a_path_with_spaces() {
    let ctx = TestContext::new();
    let parent = ctx.work.join("my tools");
    std::fs::create_dir_all(&parent).unwrap();
    let run = ctx.run_in(&parent, &["tool", "scaffold", "spaced", "--yes"]);
    run.success().stderr_has(&format!(
        "Next cd '{}' && orla tool validate",
        parent.join("spaced").display()
    ));
    let plain = ctx.run(&["tool", "scaffold", "plain", "--yes"]);
    plain.success().stderr_has(&format!(
        "Next cd {} && orla tool validate",
        ctx.work.join("plain").display()
    ));
}

/// An empty or non-mapping tool.yaml said "expected struct ToolYaml" and
/// gave no hint.
#[test]
fn unparsable_tool_yaml_names_its_shape_and_a_fix() {
    let ctx = TestContext::new();
    let dir = ctx.work.join("broken");
    std::fs::create_dir_all(&dir).unwrap();
    for text in ["", "- a list\n", "just text\n"] {
        std::fs::write(dir.join("tool.yaml"), text).unwrap();
        let run = ctx.run(&["tool", "validate", "broken"]);
        run.failure(1)
            .stderr_has("is not valid tool.yaml")
            .stderr_has("hint: tool.yaml holds `field: value` lines");
        assert!(!run.stderr.contains("struct"), "{}", run.stderr);
    }
}

/// `orla tool pack` in a directory without tool.yaml said
/// "/home/you/. has no tool.yaml".
#[test]
fn package_paths_are_shown_without_a_dot_component() {
    let ctx = TestContext::new();
    for command in ["validate", "pack"] {
        let run = ctx.run(&["tool", command]);
        run.failure(1).stderr_has(&format!(
            "error: {} has no tool.yaml at its root",
            ctx.work.display()
        ));
        assert!(!run.stderr.contains("cwd/."), "{}", run.stderr);
    }
}

#[test]
fn scaffold_rejects_bad_flags_with_usage_errors() {
    let ctx = TestContext::new();
    for (args, needle) in [
        (vec!["Bad_Name"], "must start with a lowercase"),
        (vec!["ok", "--param", "x:str"], "unknown type 'str'"),
        (
            vec!["ok", "--permission", "filesystem:reed"],
            "unknown permission",
        ),
        (
            vec!["ok", "--tool-version", "1.0"],
            "not a semantic version",
        ),
        (vec!["ok", "--license", "MIT OR Apache"], "SPDX"),
        (
            vec!["ok", "--binary", "/bin/sh"],
            "--binary only goes with --language binary",
        ),
    ] {
        let mut full = vec!["tool", "scaffold", "--yes"];
        full.extend(args);
        ctx.run(&full).failure(2).stderr_has(needle);
    }
    assert!(!ctx.work.join("ok").exists());
    // NAME is positional; the error named a --name flag that does not exist.
    let run = ctx.run(&["tool", "scaffold", "--yes", "Bad_Name"]);
    assert!(!run.stderr.contains("--name"), "{}", run.stderr);
}

/// The `field` of each problem `orla tool validate --json` reports.
fn problem_fields(json: &serde_json::Value) -> Vec<&str> {
    json["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap())
        .collect()
}

#[test]
fn validate_reports_every_problem_with_field_and_fix() {
    let ctx = TestContext::new();
    let dir = ctx.work.join("broken");
    write_file(
        &dir.join("tool.yaml"),
        "version: one\nentrypoint: ../outside\npermissions: [filesystem:reed]\nruntime:\n  hot_load:\n    mode: reload\n",
        false,
    );
    let run = ctx.run(&["tool", "validate", "broken"]);
    run.failure(1)
        .stderr_has("error: name: is required")
        .stderr_has("hint: add `name: my-tool`")
        .stderr_has("error: version:")
        .stderr_has("error: description: is required")
        .stderr_has("error: entrypoint: '../outside' is outside the package")
        .stderr_has("error: runtime.hot_load.mode")
        .stderr_has("permissions[0]")
        .stderr_has("README.md")
        .stderr_has("has 5 errors and 2 warnings");

    let run = ctx.run(&["tool", "validate", "broken", "--json"]);
    run.failure(1);
    let json = run.json();
    assert_eq!(json["valid"], false);
    assert_eq!(json["errors"], 5);
    let fields = problem_fields(&json);
    assert_eq!(
        fields,
        [
            "name",
            "version",
            "description",
            "entrypoint",
            "runtime.hot_load.mode",
            "permissions[0]",
            "README.md"
        ]
    );
    assert!(json["problems"][0]["hint"].is_string());

    // Warnings alone pass: no shebang and no execute bit is legal but unwise.
    let dir = ctx.work.join("unwise");
    write_file(
        &dir.join("tool.yaml"),
        "name: unwise\nversion: 1.0.0\ndescription: TODO\nentrypoint: run.sh\npermissions: []\n",
        false,
    );
    write_file(&dir.join("run.sh"), "#!/bin/sh\necho '{}'\n", false);
    let run = ctx.run(&["tool", "validate", "unwise", "--json"]);
    run.success();
    let json = run.json();
    assert_eq!(json["valid"], true);
    let fields = problem_fields(&json);
    assert_eq!(fields, ["description", "entrypoint", "README.md"]);

    ctx.run(&["tool", "validate", "nowhere"])
        .failure(1)
        .stderr_has("has no tool.yaml");
}

/// A wrong type or enum value (`runtime.arguments: yaml`, `permissions:
/// network` as a scalar) stopped validation at the first one, with a hint
/// about YAML in general, and `--json` lost the name and version.
#[test]
fn validate_reports_every_wrong_type_and_value_with_its_own_fix() {
    let ctx = TestContext::new();
    let dir = ctx.work.join("v1");
    write_file(
        &dir.join("tool.yaml"),
        "name: v1\nversion: latest\ndescription: d\nentrypoint: ../x\npermissions: network\nkeywords: [a, [b]]\nrisk_level: huge\nruntime:\n  arguments: yaml\n  mode: caps\n  timeout_ms: soon\n",
        false,
    );
    let run = ctx.run(&["tool", "validate", "v1"]);
    run.failure(1)
        .stderr_has("error: permissions: is 'network', but a list is expected\n    hint: write a list: `permissions: [network]`")
        .stderr_has("error: keywords[1]: is a list, but text is expected")
        .stderr_has("error: risk_level: is 'huge', which is not one of low, medium, high, critical\n    hint: write one of them, e.g. `risk_level: low`")
        .stderr_has("error: runtime.arguments: is 'yaml', which is not one of flags, json\n    hint: write one of them, e.g. `arguments: flags`")
        .stderr_has("error: runtime.mode: is 'caps', which is not one of simple, capsule")
        .stderr_has("error: runtime.timeout_ms: is 'soon', but a whole number is expected\n    hint: write a number of milliseconds, e.g. `timeout_ms: 5000`")
        .stderr_has("error: version: 'latest' is not a semantic version")
        .stderr_has("error: entrypoint: '../x' is outside the package")
        .stderr_has("has 8 errors and 1 warning");
    // A field left out for its shape is not also reported missing.
    assert!(!run.stderr.contains("undeclared"), "{}", run.stderr);

    let run = ctx.run(&["tool", "validate", "v1", "--json"]);
    run.failure(1);
    let json = run.json();
    assert_eq!(json["name"], "v1");
    assert_eq!(json["version"], "latest");
    assert_eq!(json["errors"], 8);
    let fields = problem_fields(&json);
    assert_eq!(
        fields,
        [
            "permissions",
            "keywords[1]",
            "risk_level",
            "runtime.arguments",
            "runtime.mode",
            "runtime.timeout_ms",
            "version",
            "entrypoint",
            "README.md"
        ]
    );

    // Numbers and booleans where text goes read as their text, as before.
    write_file(
        &dir.join("tool.yaml"),
        "name: v1\nversion: 1.0.0\ndescription: d\nentrypoint: run.sh\npermissions: []\nruntime:\n  env: {PORT: 8080, DEBUG: true}\n",
        false,
    );
    write_file(&dir.join("run.sh"), "#!/bin/sh\necho '{}'\n", true);
    ctx.run(&["tool", "validate", "v1"]).success();
}

/// `orla install --local broken` joined four problems on one line, with
/// the hint of the first only.
#[test]
fn installing_a_broken_package_names_the_first_problem_and_points_at_validate() {
    let ctx = TestContext::new();
    let dir = ctx.work.join("broken");
    write_file(
        &dir.join("tool.yaml"),
        "version: x\nentrypoint: ../outside\npermissions: network\n",
        false,
    );
    let run = ctx.run(&["install", "--local", "broken"]);
    run.failure(1).stderr_has(&format!(
        "error: {}/tool.yaml is invalid: permissions: is 'network', but a list is expected (and 4 more errors)\nhint: `orla tool validate {}` lists all 5 with the fix for each\n",
        dir.display(),
        dir.display()
    ));
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.stderr);

    // One problem: its own fix.
    write_file(
        &dir.join("tool.yaml"),
        "name: broken\nversion: 1.0.0\ndescription: d\nentrypoint: ../outside\npermissions: []\n",
        false,
    );
    ctx.run(&["install", "--local", "broken"])
        .failure(1)
        .stderr_has("is invalid: entrypoint: '../outside' is outside the package\nhint: the entrypoint is a relative path inside the package");

    // pack and publish list every problem, then one summary.
    let run = ctx.run(&["tool", "pack", "broken"]);
    run.failure(1)
        .stderr_has("error: entrypoint: '../outside' is outside the package\n")
        .stderr_has("tool.yaml has 1 error and 0 warnings\nhint: fix the errors above");
    assert!(!run.stderr.contains("is invalid"), "{}", run.stderr);
}

/// The first `sh` block of `text`: its commands, comments left out.
fn commands_of(text: &str) -> Vec<Vec<String>> {
    let block = text
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    block
        .lines()
        .map(|line| line.split('#').next().unwrap())
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// The authoring flows of docs/authoring.md and the README ran into
/// "has no config.json ... pass --init" at their publish line: each runs
/// as written, on a fresh machine, into a new index.
#[test]
fn the_documented_authoring_flows_run_as_written() {
    for (doc, heading) in [
        ("docs/authoring.md", "# Authoring tools"),
        ("README.md", "## Writing tools"),
    ] {
        let ctx = TestContext::new();
        let mut cwd = ctx.work.clone();
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(doc)).unwrap();
        assert!(text.contains(heading), "{doc}");
        let commands = commands_of(text.split(heading).nth(1).unwrap());
        assert!(
            commands.iter().any(|c| c.iter().any(|w| w == "publish")),
            "{doc}"
        );
        for command in commands {
            let words: Vec<&str> = command.iter().map(String::as_str).collect();
            match words.as_slice() {
                ["cd", dir] => cwd = cwd.join(dir),
                ["orla", "tool", "scaffold", rest @ ..] => {
                    // No terminal here: the wizard's defaults.
                    let mut args = vec!["tool", "scaffold", "--yes"];
                    args.extend_from_slice(rest);
                    ctx.run_in(&cwd, &args).success();
                }
                ["orla", args @ ..] => {
                    let run = ctx.run_in(&cwd, args);
                    assert_eq!(
                        run.code,
                        0,
                        "{doc}: orla {}\n{}",
                        args.join(" "),
                        run.stderr
                    );
                }
                other => panic!("{doc}: unexpected command {other:?}"),
            }
        }
    }
}

/// `orla tool list` tipped 'validate' and `orla tool install fs-read` (as
/// `uv tool install` is typed) gave a bare usage error: both name the
/// top-level command meant.
#[test]
fn user_commands_typed_under_tool_name_the_command_meant() {
    let ctx = TestContext::new();
    ctx.run(&["tool", "list"]).failure(2).stderr_has(
        "error: `orla tool` has no 'list': it holds the commands for writing tools (scaffold, validate, pack, publish, yank)\nhint: `orla list` is the command; run `orla list`\n",
    );
    ctx.run(&["-q", "tool", "install", "fs-read@1.2", "--yes"])
        .failure(2)
        .stderr_has("hint: `orla install` is the command; run `orla -q install fs-read@1.2 --yes`");
    ctx.run(&["tool", "rm", "x"])
        .failure(2)
        .stderr_has("run `orla rm x`");
    let run = ctx.run(&["--message-format", "json", "tool", "search", "fs"]);
    run.failure(2);
    let event: serde_json::Value =
        serde_json::from_str(run.stderr.lines().last().unwrap()).unwrap();
    assert_eq!(event["event"], "error");
    assert_eq!(
        event["hint"],
        "`orla search` is the command; run `orla --message-format json search fs`"
    );
    // Not a command anywhere: clap's own tip stays.
    ctx.run(&["tool", "valdate"])
        .failure(2)
        .stderr_has("validate");
    assert!(ctx.list().is_empty());
}

/// The scaffold's `.gitignore` went into every published archive: it
/// belongs to the source repository, not to the tool.
#[test]
fn pack_leaves_the_repository_files_out() {
    let ctx = TestContext::new();
    let dir = scaffold(&ctx, "tidy", &[]);
    assert!(dir.join(".gitignore").is_file());
    write_file(&dir.join("docs/.gitignore"), "x\n", false);
    let run = ctx.run(&["tool", "pack", "tidy", "--json"]);
    run.success();
    let files: Vec<String> = run.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert!(!files.iter().any(|f| f == ".gitignore"), "{files:?}");
    // Only the package root's: a .gitignore deeper in is the tool's own file.
    assert!(files.iter().any(|f| f == "docs/.gitignore"), "{files:?}");
    assert!(files.iter().any(|f| f == "tool.yaml"), "{files:?}");
}

/// Copies `src` to `dst` with `cp -r` under `umask`, so the copy's modes
/// differ, then sets every mtime to `mtime`.
fn copy_with(src: &Path, dst: &Path, umask: &str, mtime: std::time::SystemTime) {
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && cp -r \"$0\" \"$1\""))
        .arg(src)
        .arg(dst)
        .status()
        .unwrap();
    assert!(status.success());
    fn touch(path: &Path, mtime: std::time::SystemTime) {
        if path.is_dir() {
            for e in std::fs::read_dir(path).unwrap() {
                touch(&e.unwrap().path(), mtime);
            }
        }
        let f = std::fs::File::open(path).unwrap();
        f.set_modified(mtime).unwrap();
    }
    touch(dst, mtime);
}

#[test]
fn pack_is_byte_identical_across_mtimes_and_umasks() {
    let ctx = TestContext::new();
    let src = scaffold(&ctx, "same", &["--language", "python", "--license", "MIT"]);
    let a = ctx.work.join("a");
    let b = ctx.work.join("b");
    copy_with(
        &src,
        &a,
        "022",
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000),
    );
    copy_with(&src, &b, "077", std::time::SystemTime::now());
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_ne!(mode(&a.join("tool.yaml")), mode(&b.join("tool.yaml")));

    let pack = |dir: &Path, out: &str, umask: &str| {
        let run = common::to_run(
            Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "umask {umask} && exec \"$0\" tool pack \"$1\" -o \"$2\" --json"
                ))
                .arg(env!("CARGO_BIN_EXE_orla"))
                .arg(dir)
                .arg(out)
                .current_dir(&ctx.work)
                .env("ORLA_HOME", &ctx.home)
                .env("ORLA_CACHE_DIR", &ctx.cache)
                .stdin(Stdio::null())
                .output()
                .unwrap(),
        );
        run.success();
        run.json()
    };
    let ja = pack(&a, "a.tar.gz", "022");
    let jb = pack(&b, "b.tar.gz", "077");
    let bytes_a = std::fs::read(ctx.work.join("a.tar.gz")).unwrap();
    let bytes_b = std::fs::read(ctx.work.join("b.tar.gz")).unwrap();
    assert!(bytes_a == bytes_b, "archives differ");
    assert_eq!(ja["blake3"], jb["blake3"]);
    assert_eq!(ja["size"].as_u64().unwrap(), bytes_a.len() as u64);
    assert_eq!(
        ja["blake3"].as_str().unwrap(),
        orla::verify::Digest::of(&bytes_a).to_hex()
    );
    assert_eq!(
        ja["files"],
        serde_json::json!(["LICENSE", "README.md", "bin/same", "tool.yaml"])
    );
}

#[test]
fn pack_prints_digest_and_size_and_skips_its_own_archives() {
    let ctx = TestContext::new();
    let dir = scaffold(&ctx, "packme", &[]);
    // Packing inside the package puts the archive there; packing again
    // must not swallow it.
    let first = ctx.run_in(&dir, &["tool", "pack"]);
    first
        .success()
        .stdout_has("blake3: ")
        .stdout_has("size:   ");
    let archive = dir.join("packme-0.1.0.tar.gz");
    assert!(archive.is_file());
    let bytes = std::fs::read(&archive).unwrap();
    assert!(first
        .stdout
        .contains(&orla::verify::Digest::of(&bytes).to_hex()));
    ctx.run_in(&dir, &["tool", "pack"]).success();
    assert_eq!(std::fs::read(&archive).unwrap(), bytes);

    // -o into a directory names the file NAME-VERSION.tar.gz.
    std::fs::create_dir(ctx.work.join("dist")).unwrap();
    ctx.run(&["tool", "pack", "packme", "-o", "dist"]).success();
    assert_eq!(
        std::fs::read(ctx.work.join("dist/packme-0.1.0.tar.gz")).unwrap(),
        bytes
    );
    // An invalid package packs nothing.
    std::fs::write(dir.join("tool.yaml"), "name: packme\n").unwrap();
    ctx.run(&["tool", "pack", "packme", "-o", "dist/x.tar.gz"])
        .failure(1)
        .stderr_has("description: is required");
    assert!(!ctx.work.join("dist/x.tar.gz").exists());
}
