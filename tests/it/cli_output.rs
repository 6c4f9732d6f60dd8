//! Snapshots of what users see: every `--help`, and the output of the main
//! job and its common errors, with paths redacted. Refresh them after an
//! intended change with `SNAPSHOTS=overwrite cargo test --test it cli_output::`.

use crate::common;

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use snapbox::{Assert, Data, Redactions};

use common::TestContext;

fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

fn assert_snapshot(actual: String, file: &Path, redactions: Redactions) {
    Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .redact_with(redactions)
        .eq(actual, Data::read_from(file, None));
}

/// Every command path: [], ["install"], ["tool", "scaffold"], ...
fn command_paths(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(prefix.clone());
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" || sub.is_hide_set() {
            continue;
        }
        let mut path = prefix.clone();
        path.push(sub.get_name().to_string());
        command_paths(sub, path, out);
    }
}

#[test]
fn every_help_page() {
    let t = TestContext::new();
    let mut paths = Vec::new();
    let mut cli = orla::cli::Cli::command();
    cli.build();
    command_paths(&cli, Vec::new(), &mut paths);
    assert!(paths.len() > 10);
    for path in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let run = t.run(&args);
        run.success();
        let name = if path.is_empty() {
            "orla".to_string()
        } else {
            format!("orla-{}", path.join("-"))
        };
        assert_snapshot(
            run.stdout.clone(),
            &snapshots().join(format!("help/{name}.txt")),
            Redactions::new(),
        );
    }
}

fn redactions(t: &TestContext) -> Redactions {
    let mut r = Redactions::new();
    r.insert("[ROOT]", t.dir.path().display().to_string())
        .unwrap();
    r
}

/// The command line, its exit code, stdout and stderr, as one document.
fn transcript(t: &TestContext, args: &[&str]) -> String {
    let run = t.run(args);
    format!(
        "$ orla {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        run.code,
        run.stdout,
        run.stderr
    )
}

#[test]
fn the_main_job_and_its_errors() {
    let t = TestContext::new();
    let mut out = String::new();
    for args in [
        &["install", "fs-read@1.2"][..],
        &["install", "fs-read@1.2"],
        &["list"],
        &["install", "fs-raed"],
        &["install", "fs-read@3"],
        &["install", "fs-read@@1"],
        &["install", "http-get"],
        &["uninstall", "json-query"],
        &["uninstall", "fs-read"],
        &["list"],
    ] {
        out.push_str(&transcript(&t, args));
        out.push('\n');
    }
    assert_snapshot(out, &snapshots().join("main-job.txt"), redactions(&t));
}

/// The README opens with a transcript of the main job: it is what orla
/// prints, word for word (the home directory aside).
#[test]
fn the_readme_transcript_is_real_output() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let block = readme
        .split("```console\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("README opens with a console block");
    let t = TestContext::new();
    let mut real = String::new();
    for command in ["install fs-read@1.2", "list"] {
        let args: Vec<&str> = command.split(' ').collect();
        let run = t.run(&args);
        run.success();
        real.push_str(&format!("$ orla {command}\n{}{}", run.stderr, run.stdout));
    }
    let real = real.replace(&t.home.display().to_string(), "/home/you/.orla");
    assert_eq!(block, real, "README.md's first transcript");
}

/// The errors a person meets first, one per command and kind of mistake:
/// each is one `error:` line with a `hint:` where there is a fix, exit 2 for
/// a usage error and 1 otherwise.
#[test]
fn the_common_errors_of_every_command() {
    let t = TestContext::new();
    let project = t.work.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("orla.yaml"), "prot: 8080\n").unwrap();
    let empty = t.work.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let mut out = String::new();
    for args in [
        &["install"][..],
        &["install", "./my-tool"],
        &["install", "fs-read@^9"],
        &["install", "--local", "missing-dir"],
        &["install", "--registry", "./no-such-index", "fs-read"],
        &["uninstall", "fs-read"],
        &["use", "fs-read@1.0.0"],
        &["info", "fs-raed"],
        &["tool", "validate", "empty"],
        &["tool", "yank", "fs-read@1.0.0", "--index", ""],
        &["migrate", "capsule", "missing-dir"],
        &["list", "--bogus"],
    ] {
        out.push_str(&transcript(&t, args));
        out.push('\n');
    }
    // A project whose orla.yaml has a typo.
    let run = t.run_in(&project, &["list"]);
    out.push_str(&format!(
        "$ orla list   (in a project whose orla.yaml says `prot: 8080`)\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    ));
    // Broken files, each named with the fix: the user's config.yaml, a
    // registry's index, a tool.yaml past its limits, a version to yank
    // that the index does not have.
    let described = |what: &str, args: &[&str]| {
        let run = t.run(args);
        format!(
            "\n$ orla {}   ({what})\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            args.join(" "),
            run.code,
            run.stdout,
            run.stderr
        )
    };
    std::fs::create_dir_all(&t.home).unwrap();
    let config = t.home.join("config.yaml");
    std::fs::write(
        &config,
        "registries:\n  - {name: company, location: ./a}\n  - {name: company, location: ./b}\n",
    )
    .unwrap();
    out.push_str(&described("config.yaml names a registry twice", &["list"]));
    std::fs::write(&config, "registry_ttl: soon\n").unwrap();
    out.push_str(&described(
        "config.yaml says `registry_ttl: soon`",
        &["list"],
    ));
    std::fs::write(&config, "registry_ttl: 10m\nregistires: []\n").unwrap();
    out.push_str(&described(
        "config.yaml misspells `registries` on its line 2",
        &["list"],
    ));
    std::fs::remove_file(&config).unwrap();

    let index = t.work.join("broken-index");
    std::fs::create_dir_all(index.join("fs/-r")).unwrap();
    std::fs::write(index.join("config.json"), "{\"format\": 1}\n").unwrap();
    std::fs::write(index.join("fs/-r/fs-read"), "{not json\n").unwrap();
    out.push_str(&described(
        "a registry whose record of fs-read is not JSON",
        &["install", "--registry", "./broken-index", "fs-read"],
    ));
    let empty_index = t.work.join("empty-index");
    std::fs::create_dir_all(&empty_index).unwrap();
    std::fs::write(empty_index.join("config.json"), "{\"format\": 1}\n").unwrap();
    out.push_str(&described(
        "the index has no fs-read 9.0.0",
        &["tool", "yank", "fs-read@9.0.0", "--index", "./empty-index"],
    ));

    let deep = t.work.join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(
        deep.join("tool.yaml"),
        format!("name: deep\nx: {}{}\n", "[".repeat(100), "]".repeat(100)),
    )
    .unwrap();
    out.push_str(&described(
        "tool.yaml nests 100 levels deep",
        &["tool", "validate", "deep"],
    ));
    out.push_str(&described(
        "a tool name with a capital letter",
        &["tool", "scaffold", "Bad", "--yes"],
    ));
    out.push_str(&described(
        "--binary without --language binary",
        &["tool", "scaffold", "good", "--binary", "./x", "--yes"],
    ));
    assert_snapshot(out, &snapshots().join("errors.txt"), redactions(&t));
}
