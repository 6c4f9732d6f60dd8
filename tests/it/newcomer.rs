//! What a newcomer trips on: state that lies, skips that look like success,
//! hints that are missing. Each test pins one of them, with a snapshot of
//! what the user sees. Refresh the snapshots after an intended change with
//! `SNAPSHOTS=overwrite cargo test --test it newcomer::`.

use crate::common;

use std::path::{Path, PathBuf};

use snapbox::{Assert, Data, Redactions};

use common::TestContext;

fn snapshot_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/newcomer")
        .join(format!("{name}.txt"))
}

fn assert_snapshot(t: &TestContext, name: &str, actual: String) {
    let mut r = Redactions::new();
    r.insert("[ROOT]", t.dir.path().display().to_string())
        .unwrap();
    Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .redact_with(r)
        .eq(actual, Data::read_from(&snapshot_file(name), None));
}

/// The command line, its exit code, stdout and stderr, as one document.
fn transcript(t: &TestContext, args: &[&str]) -> String {
    transcript_in(t, &t.work, args)
}

fn transcript_in(t: &TestContext, dir: &Path, args: &[&str]) -> String {
    shown(args, &t.run_in(dir, args))
}

fn shown(args: &[&str], run: &common::Run) -> String {
    format!(
        "$ orla {}\nexit: {}\n--- stdout\n{}--- stderr\n{}\n",
        args.join(" "),
        run.code,
        run.stdout,
        run.stderr
    )
}

#[test]
fn a_manifest_from_a_newer_orla_is_refused_by_every_command_that_writes_it() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@1.1"]).success();
    let path = t.home.join("manifest.json");
    let mut manifest = t.manifest();
    manifest["manifest_version"] = 99.into();
    let newer = serde_json::to_string_pretty(&manifest).unwrap();
    std::fs::write(&path, &newer).unwrap();

    let mut out = String::new();
    for args in [
        &["install", "json-query"][..],
        &["uninstall", "fs-read@1.1"],
        &["use", "fs-read@1.1.0"],
        &["update"],
        &["list"],
    ] {
        let run = t.run(args);
        run.failure(1).stderr_has("upgrade orla");
        out.push_str(&shown(args, &run));
        // Neither rewritten as this orla's version nor anything installed
        // or removed.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), newer, "{args:?}");
    }
    assert!(!t.tools_dir().join("json-query").exists());
    assert!(t.tools_dir().join("fs-read/1.1.0").exists());
    assert_snapshot(&t, "newer-manifest", out);
}

#[test]
fn a_package_deleted_behind_orlas_back_is_reported_marked_and_dropped() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@1.1"]).success();
    std::fs::remove_dir_all(t.tools_dir().join("fs-read/1.2.1")).unwrap();

    let mut out = String::new();
    // verify fails on it; list marks it and does not call it active.
    let verify = t.run(&["verify"]);
    verify.failure(1);
    out.push_str(&shown(&["verify"], &verify));
    let list = t.run(&["list"]);
    list.success();
    assert!(!list.stdout.contains("1.2.1    *"), "{}", list.stdout);
    out.push_str(&shown(&["list"], &list));
    let json = t.run(&["list", "--json"]).json();
    assert_eq!(json[1]["version"], "1.2.1");
    assert_eq!(json[1]["missing"], true);
    assert!(json[0].get("missing").is_none());
    // Uninstalling it, as verify's hint says, drops it, and says so.
    let uninstall = t.run(&["uninstall", "fs-read@1.2.1"]);
    uninstall
        .success()
        .stderr_has("fs-read 1.2.1 was deleted outside orla");
    out.push_str(&shown(&["uninstall", "fs-read@1.2.1"], &uninstall));
    let served: Vec<(String, String)> = common::name_versions(&t.manifest()["tools"]);
    assert!(served.contains(&("fs-read".into(), "1.1.0".into())));
    out.push_str(&transcript(&t, &["verify"]));
    assert_snapshot(&t, "deleted-package", out);
}

#[test]
fn a_changed_package_fails_verify_and_an_uninstall_does_not_count_as_deleted() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "json-query"]).success();
    let entry = t.tools_dir().join("json-query/1.0.0/bin/json-query");
    std::fs::write(&entry, "#!/bin/sh\necho changed\n").unwrap();
    t.run(&["verify"])
        .failure(1)
        .stdout_has("changed  bin/json-query");
    // A removal orla made itself is not reported as a deletion.
    let run = t.run(&["uninstall", "fs-read"]);
    run.success();
    assert!(
        !run.stderr.contains("deleted outside orla"),
        "{}",
        run.stderr
    );
}

#[test]
fn installing_over_a_damaged_package_directory_fails_instead_of_skipping() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    // A version directory that is not served: its receipt is damaged.
    let dir = t.tools_dir().join("fs-read/1.2.1");
    std::fs::write(dir.join(".orla-receipt.json"), "{").unwrap();
    let run = t.run(&["install", "fs-read@1.2"]);
    run.failure(1).stderr_has("--force");
    let mut out = shown(&["install", "fs-read@1.2"], &run);
    let force = ["install", "fs-read@1.2", "--force"];
    let run = t.run(&force);
    run.success();
    out.push_str(&shown(&force, &run));
    t.run(&["verify"]).success();
    assert_snapshot(&t, "damaged-package", out);
}

#[test]
fn a_local_package_whose_source_changed_is_installed_again() {
    let t = TestContext::new();
    let src = common::PackageBuilder::new("mine", "0.1.0").write(&t.work);
    let path = src.display().to_string();
    let local = ["install", "--local", path.as_str()];
    t.run(&local).success();
    // The same content again: skipped, and it says why.
    let mut out = transcript(&t, &local);
    let entry = src.join("bin/mine");
    common::write_file(&entry, "#!/bin/sh\necho edited\n", true);
    let run = t.run(&local);
    run.success().stderr_has("Reinstalled mine 0.1.0");
    out.push_str(&shown(&local, &run));
    let installed = t.tools_dir().join("mine/0.1.0/bin/mine");
    assert_eq!(
        std::fs::read_to_string(installed).unwrap(),
        "#!/bin/sh\necho edited\n"
    );
    t.run(&["verify"]).success();
    // An archive of the same content as the installed copy is skipped too.
    let archive = t.work.join("mine.tar.gz");
    t.run(&["tool", "pack", &path, "-o", &archive.display().to_string()])
        .success();
    t.run(&["install", "--local", &archive.display().to_string()])
        .success()
        .stderr_has("already installed from the same content");
    let out = out.replace(&path, "[SRC]");
    assert_snapshot(&t, "local-reinstall", out);
}

#[test]
fn every_install_says_which_version_is_served() {
    let t = TestContext::new();
    let mut out = String::new();
    for args in [
        &["install", "fs-read@1.2"][..],
        // An older version and a pre-release do not take over...
        &["install", "fs-read@1.1"],
        &["install", "fs-read@2.0.0-rc.1"],
        // ...until chosen.
        &["use", "fs-read@2.0.0-rc.1"],
    ] {
        let run = t.run(args);
        run.success();
        out.push_str(&shown(args, &run));
    }
    let served = &t.manifest()["tools"][0];
    assert_eq!(served["version"], "2.0.0-rc.1");
    // `orla use NAME` says it took the pin out.
    let run = t.run(&["use", "fs-read"]);
    run.success();
    out.push_str(&shown(&["use", "fs-read"], &run));
    assert_snapshot(&t, "active-version", out);
    assert_eq!(t.manifest()["tools"][0]["version"], "1.2.1");
    // With no pin to take out, nothing is said of one.
    let again = t.run(&["use", "fs-read"]);
    assert!(!again.stderr.contains("Unpinned"), "{}", again.stderr);
}

#[test]
fn a_pre_release_alone_is_served() {
    let t = TestContext::new();
    let run = t.run(&["install", "fs-read@2.0.0-rc.1"]);
    run.success();
    // The only version installed is the one served: two lines, no third.
    assert!(!run.stderr.contains("Active"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.stderr);
    assert_eq!(t.manifest()["tools"][0]["version"], "2.0.0-rc.1");
    // With another version beside it, the install says which is served.
    t.run(&["install", "fs-read@1.2"])
        .success()
        .stderr_has("Active fs-read 1.2.1 is the version served");
}

#[test]
fn a_spec_that_looks_like_a_path_or_an_archive_hints_at_local() {
    let t = TestContext::new();
    common::PackageBuilder::new("mine", "0.1.0").write(&t.work);
    let mut out = String::new();
    for args in [
        &["install", "./mine-0.1.0-src"][..],
        &["install", "mine-0.1.0.tar.gz"],
        &["install", "../elsewhere/my tool"],
    ] {
        let run = t.run(args);
        run.failure(2).stderr_has("--local");
        out.push_str(&shown(args, &run));
    }
    assert_snapshot(&t, "path-spec", out);
}

#[cfg(unix)]
#[test]
fn ctrl_c_at_the_consent_prompt_restores_the_cursor_and_exits_130() {
    use common::pty::{expect, finish_with, send, spawn};
    let t = TestContext::new();
    let mut s = spawn(&t, &["install", "http-get"]);
    expect(&mut s, "Install http-get 1.0.0 with network?");
    send(&mut s, "\x03");
    // The cursor the prompt hid is shown again.
    expect(&mut s, "\x1b[?25h");
    finish_with(s, 130);
    assert!(!t.tools_dir().join("http-get").exists());
}

#[cfg(unix)]
#[test]
fn ctrl_c_in_the_scaffold_wizard_restores_the_cursor_and_exits_130() {
    use common::pty::{expect, finish_with, send, spawn};
    let t = TestContext::new();
    let mut s = spawn(&t, &["tool", "scaffold", "wiz"]);
    expect(&mut s, "Description");
    send(&mut s, "\x03");
    expect(&mut s, "\x1b[?25h");
    finish_with(s, 130);
    assert!(!t.work.join("wiz").exists());
}

#[test]
fn an_unreachable_registry_stops_the_lookup_instead_of_falling_through() {
    let t = TestContext::new();
    // A company registry first (unreachable: nothing listens on port 9),
    // then builtin, which also has a tool called fs-read.
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        "registries:\n  - name: company\n    location: http://127.0.0.1:9/index.git\n  - name: builtin\n    location: builtin\n",
    )
    .unwrap();
    let run = t.run(&["install", "fs-read"]);
    run.failure(1).stderr_has("registry company cannot be read");
    assert!(!t.tools_dir().join("fs-read").exists());
    let mut out = shown(&["install", "fs-read"], &run);
    // Offline, what is cached is used, and the skip is said.
    let offline = ["install", "fs-read", "--offline"];
    let run = t.run(&offline);
    run.success().stderr_has("skipping registry company");
    out.push_str(&shown(&offline, &run));
    // Naming the registry explicitly is the other way out.
    t.run(&["uninstall", "fs-read"]).success();
    t.run(&["install", "fs-read", "--registry", "builtin"])
        .success();
    assert_snapshot(&t, "unreachable-registry", out);
}

/// `orla run` with `input` on stdin.
fn run_with_stdin(t: &TestContext, args: &[&str], input: &str) -> common::Run {
    common::to_run(common::output_with_stdin(
        &mut t.command(args),
        input.as_bytes(),
    ))
}

#[test]
fn run_runs_a_tool_from_the_verified_cache_without_installing_it() {
    // fs-read declares its permissions: `orla run` confines it.
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    std::fs::write(t.work.join("notes.txt"), "hello from notes\n").unwrap();
    let run = run_with_stdin(&t, &["run", "fs-read@1.2"], r#"{"path": "notes.txt"}"#);
    run.success()
        .stdout_has("hello from notes")
        .stderr_has("Running fs-read 1.2.1 (not installed)");
    // Nothing installed, no manifest written.
    assert!(!t.tools_dir().exists());
    assert!(!t.home.join("manifest.json").exists());
    let cached: Vec<_> = std::fs::read_dir(t.cache.join("run"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(cached.len(), 1);
    // Once cached, a low-risk tool runs without a word from orla, as uvx.
    let again = run_with_stdin(&t, &["run", "fs-read@1.2"], r#"{"path": "notes.txt"}"#);
    again.success().stdout_has("hello from notes");
    assert_eq!(again.stderr, "");
    // A cached copy that was changed is not run: it is fetched again.
    let entry = cached[0].join("bin/fs-read");
    std::fs::write(&entry, "#!/bin/sh\necho tampered\n").unwrap();
    let run = run_with_stdin(&t, &["run", "fs-read@1.2"], r#"{"path": "notes.txt"}"#);
    run.success().stdout_has("hello from notes");
    assert!(!run.stdout.contains("tampered"));
    // The tool's exit status is orla's.
    let run = run_with_stdin(&t, &["run", "fs-read@1.2"], "not json");
    assert_ne!(run.code, 0);
    // Consent is asked as for an install, every time, cached or not.
    t.run(&["run", "http-get"])
        .failure(1)
        .stderr_has("hint: pass --yes");
    t.run(&["run", "--yes", "http-get", "--", "--help"]);
    assert!(std::fs::read_dir(t.cache.join("run")).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("http-get-")));
    t.run(&["run", "http-get"])
        .failure(1)
        .stderr_has("Permissions http-get 1.0.0: network (risk: medium)")
        .stderr_has("hint: pass --yes");
}

#[test]
fn which_dir_and_the_short_aliases() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@1.1"]).success();
    let which = t.run(&["which", "fs-read"]);
    which.success();
    assert_eq!(
        which.stdout.trim(),
        t.tools_dir()
            .join("fs-read/1.2.1/bin/fs-read")
            .display()
            .to_string()
    );
    t.run(&["which", "json-query"])
        .failure(1)
        .stderr_has("json-query is not installed");
    let dir = t.run(&["dir"]);
    dir.success();
    assert_eq!(dir.stdout.trim(), t.tools_dir().display().to_string());
    t.run(&["ls"]).success().stdout_has("fs-read  1.2.1");
    t.run(&["rm", "fs-read@1.1"]).success();
    assert_eq!(t.list(), [("fs-read".to_string(), "1.2.1".to_string())]);
}

/// `orla ARGS` with the environment's colour variables set as given (the
/// harness sets NO_COLOR, which is removed first).
fn run_with_color_env(t: &TestContext, args: &[&str], env: &[(&str, &str)]) -> common::Run {
    let mut cmd = t.command(args);
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    common::to_run(cmd.output().unwrap())
}

#[test]
fn errors_are_red_and_color_follows_the_flag_and_the_environment() {
    let t = TestContext::new();
    let red = "\x1b[1;31merror\x1b[0m: no tool 'fs-raed'";
    let hint = "\x1b[1;36mhint\x1b[0m: did you mean";
    let colored = |run: &common::Run| run.stderr.contains(red) && run.stderr.contains(hint);
    let plain = |run: &common::Run| run.stderr.starts_with("error: no tool 'fs-raed'");
    // Not a terminal: no colours unless forced.
    assert!(plain(&run_with_color_env(&t, &["install", "fs-raed"], &[])));
    let always = ["--color", "always", "install", "fs-raed"];
    assert!(colored(&run_with_color_env(
        &t,
        &always,
        &[("NO_COLOR", "1")]
    )));
    for var in ["CLICOLOR_FORCE", "FORCE_COLOR"] {
        let run = run_with_color_env(&t, &["install", "fs-raed"], &[(var, "1")]);
        assert!(colored(&run), "{var}: {:?}", run.stderr);
        let off = run_with_color_env(&t, &["install", "fs-raed"], &[(var, "0")]);
        assert!(plain(&off), "{var}=0: {:?}", off.stderr);
        let no = run_with_color_env(
            &t,
            &["install", "fs-raed"],
            &[(var, "1"), ("NO_COLOR", "1")],
        );
        assert!(plain(&no), "NO_COLOR wins over {var}");
        let never = ["--color", "never", "install", "fs-raed"];
        assert!(plain(&run_with_color_env(&t, &never, &[(var, "1")])));
    }
    // Warnings stay yellow, status lines green.
    let run = run_with_color_env(&t, &["install", "fs-read"], &[("FORCE_COLOR", "1")]);
    run.success();
    assert!(
        run.stderr.contains("\x1b[1;32m   Installed\x1b[0m"),
        "{:?}",
        run.stderr
    );
}

/// A directory of fake commands: `fake-py --version` says `Python 3.6.9`.
fn fake_bin(t: &TestContext) -> std::path::PathBuf {
    let bin = t.dir.path().join("fake-bin");
    common::write_file(
        &bin.join("fake-py"),
        "#!/bin/sh\necho 'Python 3.6.9'\n",
        true,
    );
    bin
}

fn with_path(t: &TestContext, bin: &Path, args: &[&str]) -> common::Run {
    let path = format!("{}:/usr/bin:/bin", bin.display());
    common::to_run(t.command(args).env("PATH", path).output().unwrap())
}

#[test]
fn missing_dependencies_and_interpreters_are_warned_about_refused_with_strict_and_verified() {
    let t = TestContext::new();
    let bin = fake_bin(&t);
    let src = common::PackageBuilder::new("needy", "1.0.0")
        .yaml("dependencies: [\"fake-py>=3.8\", \"orla-no-such-command>=1\", \"libnothing\"]\n")
        .write(&t.work);
    let path = src.display().to_string();
    let mut out = String::new();

    // --strict: refused, nothing installed.
    let strict = ["install", "--local", path.as_str(), "--strict"];
    let run = with_path(&t, &bin, &strict);
    run.failure(1).stderr_has("--strict");
    assert!(!t.tools_dir().join("needy").exists());
    // Refused after it was committed: rolled back, staging included.
    assert!(!t.tools_dir().join(".orla-staging").exists());
    assert!(!t.home.join("manifest.json").exists() || t.list().is_empty());
    out.push_str(&shown(&strict, &run));
    // Without: installed, with a warning for each.
    let local = ["install", "--local", path.as_str()];
    let run = with_path(&t, &bin, &local);
    run.success()
        .stderr_has("fake-py is 3.6.9")
        .stderr_has("needs orla-no-such-command (tool.yaml dependencies), which is not on PATH");
    assert!(!run.stderr.contains("libnothing"), "{}", run.stderr);
    out.push_str(&shown(&local, &run));
    // verify reports them (exit 1), though the files are intact.
    let run = with_path(&t, &bin, &["verify"]);
    run.failure(1);
    out.push_str(&shown(&["verify"], &run));
    assert_snapshot(
        &t,
        "dependencies",
        out.replace(&path, "[SRC]")
            .replace(&bin.display().to_string(), "[BIN]"),
    );

    // A satisfied requirement is quiet.
    common::write_file(
        &bin.join("fake-py"),
        "#!/bin/sh\necho 'Python 3.11.2'\n",
        true,
    );
    common::write_file(
        &bin.join("orla-no-such-command"),
        "#!/bin/sh\necho 1.0\n",
        true,
    );
    with_path(&t, &bin, &["verify"]).success();
}

#[test]
fn a_missing_interpreter_is_reported_by_verify() {
    let t = TestContext::new();
    let src = common::PackageBuilder::new("interp", "1.0.0")
        .file(
            "bin/interp",
            "#!/usr/bin/env orla-no-such-interpreter\nprint('hi')\n",
            true,
        )
        .write(&t.work);
    let path = src.display().to_string();
    t.run(&["install", "--local", &path])
        .success()
        .stderr_has("interp 1.0.0 needs orla-no-such-interpreter (the entrypoint's #! line)");
    t.run(&["verify"])
        .failure(1)
        .stdout_has("interp 1.0.0: needs orla-no-such-interpreter (the entrypoint's #! line), which is not on PATH");
}

#[test]
fn info_shows_what_the_installed_tool_needs_and_whether_it_is_there() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    let only = |bin: &Path| {
        let run = common::to_run(
            t.command(&["info", "fs-read"])
                .env("PATH", bin)
                .output()
                .unwrap(),
        );
        run.success();
        run.stdout
    };
    let empty = t.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(only(&empty).contains("requires:    python3>=3.8 (not found)"));
    let old = t.dir.path().join("old-bin");
    common::write_file(
        &old.join("python3"),
        "#!/bin/sh\necho 'Python 3.6.9'\n",
        true,
    );
    assert!(only(&old).contains("requires:    python3>=3.8 (found 3.6.9: too old)"));
    common::write_file(
        &old.join("python3"),
        "#!/bin/sh\necho 'Python 3.12.1'\n",
        true,
    );
    assert!(only(&old).contains("requires:    python3>=3.8 (found 3.12.1)"));
}

#[test]
fn man_pages_keep_option_arguments_and_have_exit_status_environment_and_examples() {
    let pages = orla::cli::generate::man_pages();
    let page = |name: &str| {
        let (_, bytes) = pages.iter().find(|(n, _)| n == name).unwrap();
        String::from_utf8(bytes.clone()).unwrap()
    };
    let install = page("orla-install.1");
    assert!(
        install.contains(r"[\fB\-\-local\fR \fIPATH\fR]"),
        "{install}"
    );
    assert!(install.contains(r"[\fB\-\-registry\fR \fINAME|LOCATION\fR]"));
    for section in [".SH EXAMPLES", ".SH \"EXIT STATUS\"", ".SH ENVIRONMENT"] {
        assert!(install.contains(section), "{section} missing");
    }
    assert!(install.contains("\\fBORLA_HOME\\fR"));
    // Every page has the exit status and the environment.
    for (name, bytes) in &pages {
        let text = String::from_utf8_lossy(bytes);
        assert!(text.contains(".SH \"EXIT STATUS\"\n.TP\n"), "{name}");
        assert!(text.contains(".SH ENVIRONMENT\n"), "{name}");
    }
}

#[test]
fn install_frozen_needs_no_yes_for_permissions_orla_lock_records() {
    let t = TestContext::new();
    t.run(&["init"]).success();
    t.run(&["install", "http-get"])
        .failure(1)
        .stderr_has("pass --yes");
    t.run(&["install", "http-get", "--yes"]).success();
    let lock = std::fs::read_to_string(t.work.join("orla.lock")).unwrap();
    assert!(lock.contains("permissions = [\"network\"]"), "{lock}");

    // A fresh checkout: orla.yaml and orla.lock, nothing installed.
    let tools = t.work.join("tools");
    std::fs::remove_dir_all(&tools).unwrap();
    std::fs::remove_dir_all(t.work.join(".orla")).unwrap();
    let run = t.run(&["install", "--frozen"]);
    run.success().stderr_has("Installed http-get 1.0.0");
    let mut out = shown(&["install", "--frozen"], &run);

    // A pin without recorded consent still needs --yes.
    std::fs::remove_dir_all(&tools).unwrap();
    std::fs::remove_dir_all(t.work.join(".orla")).unwrap();
    let unrecorded = lock.replace("permissions = [\"network\"]\n", "");
    assert_ne!(unrecorded, lock);
    std::fs::write(t.work.join("orla.lock"), unrecorded).unwrap();
    let run = t.run(&["install", "--frozen"]);
    run.failure(1).stderr_has("pass --yes");
    out.push_str(&shown(&["install", "--frozen"], &run));
    assert_snapshot(&t, "frozen-consent", out);
}

#[test]
fn publishing_a_pre_release_keeps_the_stable_description_search_shows() {
    let t = TestContext::new();
    let index = t.work.join("index");
    let idx = index.display().to_string();
    let stable = common::PackageBuilder::new("desc-tool", "1.0.0")
        .yaml("keywords: [widget]\n")
        .write(&t.work.join("a"));
    let stable_yaml = std::fs::read_to_string(stable.join("tool.yaml"))
        .unwrap()
        .replace(
            "description: Test tool desc-tool",
            "description: The stable one",
        );
    std::fs::write(stable.join("tool.yaml"), stable_yaml).unwrap();
    t.run(&[
        "tool",
        "publish",
        &stable.display().to_string(),
        "--index",
        &idx,
        "--init",
    ])
    .success();
    let pre = common::PackageBuilder::new("desc-tool", "2.0.0-rc.1")
        .yaml("keywords: [widget]\n")
        .write(&t.work.join("b"));
    let pre_yaml = std::fs::read_to_string(pre.join("tool.yaml"))
        .unwrap()
        .replace(
            "description: Test tool desc-tool",
            "description: The experimental one",
        );
    std::fs::write(pre.join("tool.yaml"), pre_yaml).unwrap();
    t.run(&[
        "tool",
        "publish",
        &pre.display().to_string(),
        "--index",
        &idx,
    ])
    .success();
    let listing = std::fs::read_to_string(index.join("registry.yaml")).unwrap();
    assert!(listing.contains("The stable one"), "{listing}");
    let search = t.run(&["search", "widget", "--registry", &idx]);
    search.success();
    assert!(
        search.stdout.contains("1.0.0") && search.stdout.contains("The stable one"),
        "{}",
        search.stdout
    );
    // A newer stable version takes over.
    let next = common::PackageBuilder::new("desc-tool", "1.1.0").write(&t.work.join("c"));
    t.run(&[
        "tool",
        "publish",
        &next.display().to_string(),
        "--index",
        &idx,
    ])
    .success();
    let listing = std::fs::read_to_string(index.join("registry.yaml")).unwrap();
    assert!(listing.contains("Test tool desc-tool"), "{listing}");
}

#[cfg(unix)]
#[test]
fn list_and_search_fit_the_terminal_without_breaking_words() {
    use expectrl::{Eof, Session};
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    let on_terminal = |args: &[&str]| {
        let mut cmd = t.terminal_command(args);
        cmd.env("TERM", "xterm").env("COLUMNS", "70");
        let mut s = Session::spawn(cmd).expect("spawn on a pty");
        s.set_expect_timeout(Some(std::time::Duration::from_secs(30)));
        let found = s.expect(Eof).unwrap();
        String::from_utf8_lossy(&[found.before(), found.get(0).unwrap_or_default()].concat())
            .replace('\r', "")
    };
    let description = "Read a text file, optionally from a byte offset and up to a byte limit; invalid UTF-8 bytes are replaced";
    for args in [&["list"][..], &["search", "fs-read"]] {
        let out = on_terminal(args);
        assert!(out.lines().count() > 2, "{args:?} not wrapped:\n{out}");
        for line in out.lines() {
            assert!(line.chars().count() <= 70, "{args:?}: {line:?}");
        }
        // Every word of the description is there, whole.
        let words: Vec<&str> = out.split_whitespace().collect();
        for word in description.split(' ') {
            assert!(words.contains(&word), "{args:?}: {word:?} broken:\n{out}");
        }
        // Piped, the same command prints whole lines.
        let piped = t.run(args);
        assert!(piped.stdout.contains(description), "{}", piped.stdout);
    }
}

#[test]
fn completions_offer_installed_and_registry_tool_names() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    let installed = t.run(&["__complete", "installed"]);
    installed.success();
    assert_eq!(installed.stdout, "fs-read\n");
    assert!(installed.stderr.is_empty(), "{}", installed.stderr);
    let available = t.run(&["__complete", "available"]);
    available.success();
    for name in ["fs-read", "json-query", "http-get"] {
        assert!(
            available.stdout.lines().any(|l| l == name),
            "{}",
            available.stdout
        );
    }
    // The bash script, driven as bash drives it on TAB.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/orla.bash");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_orla")).parent().unwrap();
    let complete = |line: &str| {
        let words: Vec<&str> = line.split(' ').collect();
        let program = format!(
            "source {}; COMP_WORDS=({}); COMP_CWORD={}; _orla_dynamic orla; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display(),
            words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
            words.len() - 1
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(program)
            .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
            .env("ORLA_HOME", &t.home)
            .env("ORLA_CACHE_DIR", &t.cache)
            .env("HOME", t.dir.path().join("user"))
            .current_dir(&t.work)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(complete("orla uninstall f"), "fs-read\n");
    assert_eq!(complete("orla rm "), "fs-read\n");
    assert!(complete("orla install j").contains("json-query"));
    assert!(complete("orla install --l").contains("--local"));
}

/// The elvish script, driven as elvish drives it on TAB: its argument
/// completer called with the words of the line, in an interactive elvish
/// (the `edit:` module exists only there), given a terminal by `script`.
/// CI installs both and sets ORLA_TEST_STRICT, so there the test cannot be
/// skipped.
#[test]
fn the_elvish_completer_offers_tool_names_after_the_subcommand() {
    let have = |program: &str| {
        std::process::Command::new(program)
            .arg("--version")
            .output()
            .is_ok()
    };
    if !have("elvish") || !have("script") {
        common::skip_unless_strict("elvish or script (util-linux) is not installed");
        return;
    }
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/orla.elv");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_orla")).parent().unwrap();
    let lines = [
        "orla uninstall f",
        "orla rm fs-read x",
        "orla install j",
        "orla cache c",
        "orla nosuch x",
    ];
    let out = t.dir.path().join("elvish-out");
    let mut rc = format!("eval (slurp < '{}')\n", script.display());
    for line in lines {
        let words: Vec<String> = line.split(' ').map(|w| format!("'{w}'")).collect();
        rc.push_str(&format!(
            "echo '> {line}' >> '{out}'\n\
             try {{ $edit:completion:arg-completer[orla] {words} | each {{|c| \
             if (eq (kind-of $c) string) {{ echo $c }} }} >> '{out}' }} \
             catch e {{ echo error >> '{out}' }}\n",
            out = out.display(),
            words = words.join(" ")
        ));
    }
    rc.push_str("exit\n");
    let rc_file = t.dir.path().join("rc.elv");
    std::fs::write(&rc_file, rc).unwrap();
    let status = std::process::Command::new("script")
        .args(["-qec", &format!("elvish -rc '{}'", rc_file.display())])
        .arg("/dev/null")
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("ORLA_HOME", &t.home)
        .env("ORLA_CACHE_DIR", &t.cache)
        .env("HOME", t.dir.path().join("user"))
        .current_dir(&t.work)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    let names = |line: &str| -> Vec<String> {
        let start = text.find(&format!("> {line}\n")).expect(line) + line.len() + 3;
        text[start..]
            .lines()
            .take_while(|l| !l.starts_with("> "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(names("orla uninstall f"), ["fs-read"], "{text}");
    // After a first name, the next word is a name again.
    assert_eq!(names("orla rm fs-read x"), ["fs-read"], "{text}");
    let available = names("orla install j");
    assert!(available.iter().any(|n| n == "json-query"), "{text}");
    assert!(available.iter().any(|n| n == "fs-read"), "{text}");
    // A subcommand without tool names gets none, an unknown one nothing.
    assert!(names("orla cache c").is_empty(), "{text}");
    assert!(names("orla nosuch x").is_empty(), "{text}");
}

#[test]
fn run_warns_when_the_tools_interpreter_is_missing() {
    let t = TestContext::new();
    let empty = t.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let run = common::to_run(
        t.command(&["run", "fs-read@1.2"])
            .env("PATH", &empty)
            .output()
            .unwrap(),
    );
    run.stderr_has("fs-read 1.2.1 needs python3 (tool.yaml dependencies), which is not on PATH");
    assert_ne!(run.code, 0);
}

#[test]
fn a_package_whose_entrypoint_was_deleted_is_marked_and_not_served() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@1.1"]).success();
    std::fs::remove_file(t.tools_dir().join("fs-read/1.2.1/bin/fs-read")).unwrap();
    let list = t.run(&["list"]);
    list.success()
        .stderr_has("fs-read 1.2.1 is missing")
        .stdout_has("1.2.1    missing");
    t.run(&["install", "json-query"])
        .success()
        .stderr_has("fs-read 1.2.1 is not served: its entrypoint");
    let tools = t.manifest()["tools"].clone();
    let fs_read: Vec<&serde_json::Value> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "fs-read")
        .collect();
    assert_eq!(fs_read.len(), 1);
    assert_eq!(fs_read[0]["version"], "1.1.0");
    t.run(&["verify", "fs-read"])
        .failure(1)
        .stdout_has("removed  bin/fs-read");
    // The fix the messages name works.
    t.run(&["install", "fs-read@1.2.1", "--force"]).success();
    t.run(&["verify"]).success();
    assert_eq!(t.manifest()["tools"][0]["version"], "1.2.1");
}

#[test]
fn a_project_install_says_which_version_is_served_too() {
    let t = TestContext::new();
    t.run(&["init"]).success();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@1.1"])
        .success()
        .stderr_has("Active fs-read 1.1.0 is the version served");
}
