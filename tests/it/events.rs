//! `--message-format json`: every line on stderr is one JSON event with
//! `"v": 1`, in the order things happened; stdout keeps the command's data;
//! a warning is a `warning` event with its kind; a failure ends the stream
//! with an `error` event. The schema is docs/events.md.

use serde_json::Value;

use crate::common::server::{Behaviour, Server};
use crate::common::{IndexBuilder, PackageBuilder, Run, TestContext};

/// Every stderr line, parsed; each must be a JSON object of version 1.
#[track_caller]
fn events(run: &Run) -> Vec<Value> {
    run.stderr
        .lines()
        .map(|line| {
            let event: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {line}\nstderr:\n{}", run.stderr));
            assert_eq!(event["v"], 1, "{line}");
            assert!(event["event"].is_string(), "{line}");
            event
        })
        .collect()
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect()
}

/// Whether `expected` appears in `actual` in this order (other events may
/// come between).
fn in_order(actual: &[&str], expected: &[&str]) -> bool {
    let mut rest = actual.iter();
    expected.iter().all(|want| rest.any(|got| got == want))
}

#[track_caller]
fn one<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<_> = events.iter().filter(|e| e["event"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} event expected: {events:#?}");
    found[0]
}

/// An index whose archives are served over HTTP, so installs download.
fn served(t: &TestContext, server: &Server, tools: &[(&str, &str)]) -> IndexBuilder {
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    for (name, version) in tools {
        publish(&mut index, server, name, version);
    }
    index
}

fn publish(index: &mut IndexBuilder, server: &Server, name: &str, version: &str) {
    index.publish(&PackageBuilder::new(name, version).permissions(&["filesystem:read"]));
    let file = format!("{name}-{version}.tar.gz");
    let bytes = std::fs::read(index.root.join(format!("archives/{name}/{file}"))).unwrap();
    server.route(&format!("/{file}"), Behaviour::Serve(bytes));
    let url = server.url(&format!("/{file}"));
    let version = version.to_string();
    index.edit_records(name, |r| {
        if r.version.to_string() == version {
            r.archive = Some(url.clone());
        }
    });
}

#[test]
fn install_update_and_uninstall_stream_their_events_in_order() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = served(&t, &server, &[("alpha", "1.0.0")]);
    let registry = index.location();

    let run = t.run(&[
        "install",
        "alpha",
        "--registry",
        &registry,
        "--message-format",
        "json",
    ]);
    run.success();
    assert_eq!(run.stdout, "", "events go to stderr; stdout is for data");
    let got = events(&run);
    assert!(
        in_order(
            &kinds(&got),
            &[
                "resolved",
                "permissions",
                "download_started",
                "download_finished",
                "verified",
                "installed"
            ]
        ),
        "{got:#?}"
    );
    let resolved = one(&got, "resolved");
    assert_eq!(resolved["name"], "alpha");
    assert_eq!(resolved["version"], "1.0.0");
    assert_eq!(resolved["registry"], registry.as_str());
    let permissions = one(&got, "permissions");
    assert_eq!(permissions["tool"], "alpha 1.0.0");
    assert_eq!(permissions["risk"], "low");
    let started = &got[kinds(&got)
        .iter()
        .position(|k| *k == "download_started")
        .unwrap()];
    let finished = one(&got, "download_finished");
    assert_eq!(started["id"], finished["id"]);
    assert_eq!(started["label"], "alpha 1.0.0");
    let size = started["size"].as_u64().expect("the record gives the size");
    assert_eq!(finished["bytes"].as_u64(), Some(size));
    let verified = one(&got, "verified");
    assert_eq!(verified["size"].as_u64(), Some(size));
    assert_eq!(verified["blake3"].as_str().unwrap().len(), 64);
    let installed = one(&got, "installed");
    assert_eq!(installed["name"], "alpha");
    assert_eq!(installed["version"], "1.0.0");
    assert_eq!(installed["reinstalled"], false);
    assert_eq!(installed["active"], true);
    assert_eq!(installed["served_version"], "1.0.0");
    let path = std::path::Path::new(installed["path"].as_str().unwrap());
    assert_eq!(path, t.tools_dir().join("alpha/1.0.0"));
    assert!(path.join("tool.yaml").is_file());

    // Again: skipped, with its reason as a field.
    let run = t.run(&[
        "install",
        "alpha",
        "--registry",
        &registry,
        "--message-format",
        "json",
    ]);
    let got = events(run.success());
    let skipped = one(&got, "skipped");
    assert_eq!(skipped["reason"], "already_installed");
    assert_eq!(skipped["version"], "1.0.0");
    assert!(!kinds(&got).contains(&"installed"));

    publish(&mut index, &server, "alpha", "1.1.0");
    let run = t.run(&[
        "update",
        "alpha",
        "--registry",
        &registry,
        "--message-format=json",
    ]);
    let got = events(run.success());
    assert!(
        in_order(
            &kinds(&got),
            &["resolved", "download_started", "verified", "updated"]
        ),
        "{got:#?}"
    );
    let updated = one(&got, "updated");
    assert_eq!(
        (&updated["name"], &updated["from"], &updated["to"]),
        (&"alpha".into(), &"1.0.0".into(), &"1.1.0".into())
    );

    let run = t.run(&["uninstall", "alpha", "--message-format", "json"]);
    let got = events(run.success());
    let removed = one(&got, "removed");
    assert_eq!(removed["name"], "alpha");
    assert_eq!(removed["version"], "1.1.0");
    assert!(t.list().is_empty());
}

#[test]
fn the_human_format_is_unchanged_by_the_events() {
    let t = TestContext::new();
    let server = Server::start();
    let index = served(&t, &server, &[("alpha", "1.0.0")]);
    let registry = index.location();
    let run = t.run(&["install", "alpha", "--registry", &registry]);
    run.success();
    let path = t.tools_dir().join("alpha/1.0.0");
    assert_eq!(
        run.stderr,
        format!(
            " Permissions alpha 1.0.0: filesystem:read (risk: low)\n   Installed alpha 1.0.0 to {}\n",
            path.display()
        )
    );
}

#[test]
fn a_warning_is_an_event_with_its_kind_and_message() {
    let t = TestContext::new();
    let server = Server::start();
    let index = served(&t, &server, &[("alpha", "1.0.0")]);
    index.edit_records("alpha", |r| r.yanked = true);
    let run = t.run(&[
        "install",
        "alpha@1.0.0",
        "--registry",
        &index.location(),
        "--message-format",
        "json",
    ]);
    let got = events(run.success());
    let warning = one(&got, "warning");
    assert_eq!(warning["kind"], "yanked");
    assert_eq!(warning["name"], "alpha");
    assert_eq!(warning["version"], "1.0.0");
    assert_eq!(
        warning["message"],
        "alpha 1.0.0 is yanked; installing it because it was asked for exactly"
    );
    assert!(in_order(
        &kinds(&got),
        &["resolved", "warning", "installed"]
    ));

    // --quiet keeps warnings (and errors) only, as in the human format.
    let run = t.run(&[
        "install",
        "alpha@1.0.0",
        "--force",
        "--quiet",
        "--registry",
        &index.location(),
        "--message-format",
        "json",
    ]);
    assert_eq!(kinds(&events(run.success())), ["warning"]);
}

/// The stages shared by every command report typed warnings too: a
/// download tried again names its URL, what went wrong and the wait.
#[test]
fn a_retried_download_is_a_retrying_warning() {
    let t = TestContext::new();
    let server = Server::start();
    let index = served(&t, &server, &[("alpha", "1.0.0")]);
    let bytes = std::fs::read(index.root.join("archives/alpha/alpha-1.0.0.tar.gz")).unwrap();
    server.route("/alpha-1.0.0.tar.gz", Behaviour::FailTimes(1, 503, bytes));
    let run = t.run(&[
        "install",
        "alpha",
        "--registry",
        &index.location(),
        "--message-format",
        "json",
    ]);
    let got = events(run.success());
    let warning = one(&got, "warning");
    assert_eq!(warning["kind"], "retrying");
    assert_eq!(warning["url"], server.url("/alpha-1.0.0.tar.gz"));
    assert_eq!(warning["delay_ms"], 200);
    assert_eq!(
        warning["problem"],
        "the server answered HTTP 503 Service Unavailable"
    );
    assert_eq!(
        warning["message"],
        format!(
            "download of {} failed (the server answered HTTP 503 Service Unavailable); retrying in 200 ms",
            server.url("/alpha-1.0.0.tar.gz")
        )
    );
    assert!(in_order(
        &kinds(&got),
        &["resolved", "warning", "installed"]
    ));
}

/// The commands' own outcomes are typed events too; a tool.yaml warning
/// carries its field and fix, and a person reads the fix on a line of its
/// own (it once showed as `\u000a    hint: ...` on the warning's line).
#[test]
fn a_tool_yaml_warning_carries_its_fix() {
    let t = TestContext::new();
    let dir = PackageBuilder::new("alpha", "1.0.0").write(t.dir.path());
    std::fs::remove_file(dir.join("README.md")).unwrap();
    let dir = dir.display().to_string();
    let run = t.run(&["tool", "validate", &dir, "--message-format", "json"]);
    let got = events(run.success());
    assert_eq!(kinds(&got), ["warning", "valid"]);
    let warning = one(&got, "warning");
    assert_eq!(warning["kind"], "tool_yaml");
    assert_eq!(warning["field"], "README.md");
    assert_eq!(
        warning["message"],
        "README.md: the package has no README.md"
    );
    assert!(warning["hint"]
        .as_str()
        .unwrap()
        .starts_with("add a README.md"));
    let valid = one(&got, "valid");
    assert_eq!(valid["name"], "alpha");
    assert_eq!(valid["warnings"], 1);

    let run = t.run(&["tool", "validate", &dir]);
    assert_eq!(
        run.success().stderr.lines().collect::<Vec<_>>(),
        [
            "warning: README.md: the package has no README.md",
            "    hint: add a README.md saying what the tool does and how to call it",
            "       Valid alpha 1.0.0 (1 warning)",
        ]
    );
}

#[test]
fn a_failure_ends_the_stream_with_an_error_event() {
    let t = TestContext::new();
    let server = Server::start();
    let index = served(&t, &server, &[("alpha", "1.0.0")]);

    // An error of the install operation, with its hint.
    let run = t.run(&[
        "install",
        "--local",
        "/dev/null",
        "--message-format",
        "json",
    ]);
    let got = events(run.failure(1));
    let last = got.last().unwrap();
    assert_eq!(last["event"], "error");
    assert_eq!(last["message"], "/dev/null is not a regular file");
    assert_eq!(
        last["hint"],
        "--local takes a package directory (with tool.yaml) or a .tar.gz archive"
    );
    assert_eq!(last["exit_code"], 1);

    // After other events: the error is the last line.
    let run = t.run(&[
        "install",
        "alpha",
        "nosuch",
        "--registry",
        &index.location(),
        "--message-format",
        "json",
    ]);
    let got = events(run.failure(1));
    assert_eq!(kinds(&got), ["resolved", "error"]);
    assert!(got[1]["message"].as_str().unwrap().contains("nosuch"));
    assert!(t.list().is_empty(), "nothing installed");

    // A usage error clap finds, before the flag itself is read.
    let run = t.run(&["install", "--message-format", "json", "--no-such-flag"]);
    let got = events(run.failure(2));
    assert_eq!(kinds(&got), ["error"]);
    assert_eq!(got[0]["exit_code"], 2);
    assert!(got[0]["message"]
        .as_str()
        .unwrap()
        .contains("--no-such-flag"));
}

#[test]
fn a_project_install_reports_its_pins() {
    let t = TestContext::new();
    let server = Server::start();
    let index = served(&t, &server, &[("alpha", "1.0.0")]);
    t.run(&["init"]).success();
    let run = t.run(&[
        "install",
        "alpha",
        "--registry",
        &index.location(),
        "--message-format",
        "json",
    ]);
    let got = events(run.success());
    assert!(
        in_order(&kinds(&got), &["resolved", "installed", "locked"]),
        "{got:#?}"
    );
    let locked = one(&got, "locked");
    assert_eq!(locked["name"], "alpha");
    assert_eq!(locked["version"], "1.0.0");
    assert_eq!(locked["requirement"], "^1.0.0");

    let run = t.run(&["install", "--message-format", "json"]);
    let got = events(run.success());
    assert_eq!(kinds(&got), ["project_up_to_date"]);
    assert_eq!(got[0]["tools"], 1);
}

#[test]
fn a_rolled_back_install_is_a_typed_warning_beside_the_data_on_stdout() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    index.publish(&PackageBuilder::new("alpha", "1.0.0"));
    t.run(&["install", "alpha", "--registry", &index.location()])
        .success();
    // What a killed `install alpha --force` leaves once the old copy is
    // moved aside: the journal, the pending marker, no alpha in the store.
    let staging = t.tools_dir().join(".orla-staging");
    std::fs::create_dir_all(staging.join("stage-aside")).unwrap();
    std::fs::rename(
        t.tools_dir().join("alpha/1.0.0"),
        staging.join("stage-aside/old"),
    )
    .unwrap();
    std::fs::write(staging.join("journal"), "commit alpha/1.0.0 stage-aside\n").unwrap();
    std::fs::write(t.home.join(".manifest-pending"), "").unwrap();

    let run = t.run(&["list", "--json", "--message-format", "json"]);
    let got = events(run.success());
    let warning = one(&got, "warning");
    assert_eq!(warning["kind"], "rolled_back");
    assert_eq!(warning["what"], "install");
    assert_eq!(warning["name"], "alpha");
    assert_eq!(warning["version"], "1.0.0");
    assert_eq!(
        warning["message"],
        "undid the unfinished install of alpha 1.0.0"
    );
    // The listing is on stdout, whole.
    let listed = run.json();
    assert!(listed.to_string().contains("alpha"), "{listed}");
}

#[test]
fn waiting_for_a_lock_is_an_event() {
    use std::io::BufRead;
    let t = TestContext::new();
    t.run(&["list"]).success();
    // Another orla holding the root's lock.
    let held = orla::lock::FileLock::acquire(
        &t.home.join(".lock"),
        orla::lock::LockKind::Exclusive,
        "the install root",
        &orla::progress::Silent,
    )
    .unwrap();
    let mut child = t
        .command(&["install", "fs-read", "--message-format", "json"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    // Released only once the waiting orla said so.
    loop {
        let mut line = String::new();
        assert_ne!(stderr.read_line(&mut line).unwrap(), 0, "{seen:#?}");
        let event: Value = serde_json::from_str(&line).unwrap();
        seen.push(event.clone());
        if event["event"] == "lock_wait" {
            assert_eq!(event["what"], "the install root");
            assert_eq!(
                event["path"].as_str(),
                Some(t.home.join(".lock").to_str().unwrap())
            );
            break;
        }
    }
    drop(held);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{rest}");
    let installed: Vec<Value> = rest
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &Value| e["event"] == "installed")
        .collect();
    assert_eq!(installed.len(), 1, "{rest}");
}

#[test]
fn a_package_deleted_outside_orla_is_a_typed_warning_of_the_next_install() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1.0", "fs-read@1.2.1"])
        .success();
    let gone = t.tools_dir().join("fs-read/1.2.1");
    std::fs::remove_dir_all(&gone).unwrap();
    let run = t.run(&["install", "json-query", "--message-format", "json"]);
    let got = events(run.success());
    let warning = one(&got, "warning");
    assert_eq!(warning["kind"], "deleted_outside_orla");
    assert_eq!(warning["name"], "fs-read");
    assert_eq!(warning["version"], "1.2.1");
    assert_eq!(warning["path"], gone.to_str().unwrap());
    assert_eq!(warning["served_instead"], "1.1.0");
    assert!(in_order(
        &kinds(&got),
        &["permissions", "warning", "installed"]
    ));
}

#[test]
fn orla_use_reports_the_version_it_serves() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1.0", "fs-read@1.2.1"])
        .success();
    let run = t.run(&["use", "fs-read@1.1.0", "--message-format", "json"]);
    let got = events(run.success());
    let using = one(&got, "using");
    assert_eq!(using["name"], "fs-read");
    assert_eq!(using["version"], "1.1.0");
    assert_eq!(
        using["path"],
        t.tools_dir().join("fs-read/1.1.0").to_str().unwrap()
    );
}
