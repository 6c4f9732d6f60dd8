//! The `orla tool scaffold` wizard on a real pseudo-terminal (expectrl):
//! keys are typed as a person would, and the result is checked on disk,
//! validated and installed.

#![cfg(unix)]

use crate::common;

use common::pty::{expect, finish, finish_with, send, spawn, spawn_sized, Recorded};
use common::TestContext;

const DOWN: &str = "\x1b[B";
const ENTER: &str = "\r";

#[test]
fn the_wizard_asks_every_question_and_writes_a_working_package() {
    let ctx = TestContext::new();
    let mut s = spawn(&ctx, &["tool", "scaffold"]);

    expect(&mut s, "Tool name");
    // An invalid name is refused and asked again.
    send(&mut s, "Bad Name");
    send(&mut s, ENTER);
    expect(&mut s, "must start with a lowercase letter");
    send(&mut s, "wiz-tool");
    send(&mut s, ENTER);

    expect(&mut s, "Description");
    send(&mut s, "Counts the words in a text");
    send(&mut s, ENTER);

    expect(&mut s, "Language");
    send(&mut s, DOWN); // bash -> python
    send(&mut s, ENTER);

    expect(&mut s, "Mode");
    send(&mut s, DOWN); // simple -> capsule
    send(&mut s, ENTER);

    expect(&mut s, "Permissions");
    send(&mut s, " "); // filesystem:read
    send(&mut s, DOWN);
    send(&mut s, DOWN);
    send(&mut s, " "); // network
    send(&mut s, ENTER);

    expect(&mut s, "Input parameter");
    send(&mut s, "text:strng");
    send(&mut s, ENTER);
    expect(&mut s, "unknown type 'strng'");
    send(&mut s, "text:string");
    send(&mut s, ENTER);
    expect(&mut s, "Input parameter");
    send(&mut s, "limit:integer?");
    send(&mut s, ENTER);
    expect(&mut s, "Input parameter");
    send(&mut s, ENTER); // empty: done

    expect(&mut s, "Author");
    send(&mut s, "Ada Lovelace");
    send(&mut s, ENTER);

    expect(&mut s, "License");
    send(&mut s, DOWN); // none -> MIT
    send(&mut s, ENTER);

    expect(&mut s, "Created wiz-tool 0.1.0 (python, capsule mode)");
    finish(s);

    let dir = ctx.work.join("wiz-tool");
    let tool = orla::package::ToolYaml::read(&dir).unwrap();
    assert_eq!(
        tool.description.as_deref(),
        Some("Counts the words in a text")
    );
    assert_eq!(tool.mode(), orla::package::Mode::Capsule);
    assert_eq!(tool.permissions.to_vec(), ["filesystem:read", "network"]);
    assert_eq!(tool.author.as_deref(), Some("Ada Lovelace"));
    assert_eq!(tool.license.as_deref(), Some("MIT"));
    let schema = orla::package::schema::to_json_schema(
        tool.mcp.as_ref().unwrap().input_schema.as_ref().unwrap(),
    )
    .unwrap();
    assert_eq!(schema["required"], serde_json::json!(["text"]));
    assert_eq!(schema["properties"]["limit"]["type"], "integer");
    assert!(std::fs::read_to_string(dir.join("bin/wiz-tool"))
        .unwrap()
        .starts_with("#!/usr/bin/env python3"));
    assert!(std::fs::read_to_string(dir.join("LICENSE"))
        .unwrap()
        .contains("Ada Lovelace"));

    ctx.run(&["tool", "validate", "wiz-tool"]).success();
    ctx.run(&["install", "--local", "wiz-tool", "--yes"])
        .success();
    assert_eq!(ctx.list(), [("wiz-tool".to_string(), "0.1.0".to_string())]);
}

#[test]
fn flags_answer_their_questions_and_defaults_take_enter() {
    let ctx = TestContext::new();
    // Name, language and license come from flags; the rest are asked and
    // each default is taken with Enter. The author defaults to git's user.name.
    let user = ctx.dir.path().join("user");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join(".gitconfig"), "[user]\n\tname = Grace Hopper\n").unwrap();
    let mut s = spawn(
        &ctx,
        &[
            "tool",
            "scaffold",
            "quick",
            "--language",
            "bash",
            "--license",
            "none",
        ],
    );
    expect(&mut s, "Description");
    send(&mut s, ENTER);
    expect(&mut s, "Mode");
    send(&mut s, ENTER);
    // A simple tool: how it takes its arguments (json -> flags).
    expect(&mut s, "Arguments");
    send(&mut s, DOWN);
    send(&mut s, ENTER);
    expect(&mut s, "Permissions");
    send(&mut s, ENTER);
    expect(&mut s, "Input parameter");
    send(&mut s, ENTER);
    expect(&mut s, "Author");
    send(&mut s, ENTER);
    expect(&mut s, "Created quick 0.1.0 (bash, simple mode)");
    finish(s);
    let dir = ctx.work.join("quick");
    assert!(!dir.join("LICENSE").exists());
    let tool = orla::package::ToolYaml::read(&dir).unwrap();
    assert_eq!(tool.author.as_deref(), Some("Grace Hopper"));
    assert_eq!(tool.arguments(), orla::package::Arguments::Flags);
    ctx.run(&["tool", "validate", "quick"]).success();
}

#[test]
fn yes_on_a_terminal_asks_nothing() {
    let ctx = TestContext::new();
    let mut s = spawn(&ctx, &["tool", "scaffold", "silent", "--yes"]);
    expect(&mut s, "Created silent 0.1.0 (bash, simple mode)");
    finish(s);
    assert!(ctx.work.join("silent/tool.yaml").is_file());
}

/// A name whose directory was taken ended the wizard
/// ("already exists and is not empty"), although an invalid answer is
/// explained and asked again.
#[test]
fn a_name_whose_directory_is_taken_is_explained_and_asked_again() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.work.join("taken")).unwrap();
    std::fs::write(ctx.work.join("taken/file"), "x").unwrap();
    let mut s = spawn(
        &ctx,
        &["tool", "scaffold", "--language", "bash", "--mode", "simple"],
    );
    expect(&mut s, "Tool name");
    send(&mut s, "taken");
    send(&mut s, ENTER);
    expect(
        &mut s,
        "./taken already exists and is not empty; choose another name",
    );
    send(&mut s, "free");
    send(&mut s, ENTER);
    expect(&mut s, "Description");
    send(&mut s, ENTER);
    expect(&mut s, "Arguments");
    send(&mut s, ENTER);
    expect(&mut s, "Permissions");
    send(&mut s, ENTER);
    expect(&mut s, "Input parameter");
    send(&mut s, ENTER);
    expect(&mut s, "Author");
    send(&mut s, "-");
    send(&mut s, ENTER);
    expect(&mut s, "License");
    send(&mut s, ENTER);
    expect(&mut s, "Created free 0.1.0");
    finish(s);
    assert_eq!(
        std::fs::read_to_string(ctx.work.join("taken/file")).unwrap(),
        "x"
    );
}

#[test]
fn an_existing_directory_is_refused_before_any_question() {
    let ctx = TestContext::new();
    std::fs::create_dir_all(ctx.work.join("taken")).unwrap();
    std::fs::write(ctx.work.join("taken/file"), "x").unwrap();
    let mut s = spawn(&ctx, &["tool", "scaffold", "taken"]);
    expect(&mut s, "already exists and is not empty");
    finish_with(s, 1);
}

/// At 80 and 60 columns the wizard left stale lines behind (an answer
/// longer than its line, a refusal the terminal wrapped, a Mode choice
/// wider than the screen) and lines the terminal broke mid-word (the
/// parameter help). What is left on the screen at the end is one line (or
/// a few, broken between words) per answered question, and nothing else.
#[test]
fn the_wizard_leaves_a_clean_screen_on_a_narrow_terminal() {
    for columns in [80u16, 60] {
        let rows = 60;
        let ctx = TestContext::new();
        let session = spawn_sized(&ctx, &["tool", "scaffold"], columns, rows);
        let mut s = Recorded {
            session,
            output: Vec::new(),
        };
        s.expect("Tool name");
        s.send("weather-now");
        s.send(ENTER);
        s.expect("Description");
        s.send("Current weather for a city, from the public weather service of the country");
        s.send(ENTER);
        s.expect("Language");
        s.send(ENTER);
        s.expect("Mode");
        s.send(ENTER);
        s.expect("Arguments");
        s.send(DOWN);
        s.send(ENTER);
        s.expect("Permissions");
        s.send(DOWN);
        s.send(DOWN);
        s.send(" ");
        s.send(ENTER);
        s.expect("Input parameter (empty to finish)");
        s.send("city:str");
        s.send(ENTER);
        s.expect("unknown type 'str'");
        s.send("city:string");
        s.send(ENTER);
        s.expect("Input parameter (empty to finish)");
        s.send(ENTER);
        s.expect("Author");
        s.send("-");
        s.send(ENTER);
        s.expect("License");
        s.send(ENTER);
        s.expect("Created weather-now 0.1.0");
        let screen = s.screen(0, columns, rows);
        let text: Vec<&str> = screen
            .iter()
            .map(|r| r.trim_end())
            .filter(|r| !r.is_empty())
            .collect();
        let all = text.join("\n");
        // No prompt is left open, no refusal, no choice list.
        for stale in ["?", "›", "❯", "✘"] {
            assert!(
                !text
                    .iter()
                    .any(|r| r.starts_with(stale) || r.contains(&format!("{stale} "))),
                "{columns} columns: '{stale}' left on screen:\n{all}"
            );
        }
        // Each question answered is recorded once.
        for question in [
            "Tool name",
            "Description",
            "Language",
            "Mode",
            "Arguments",
            "Permissions",
            "Author",
            "License",
        ] {
            let found = text
                .iter()
                .filter(|r| {
                    r.contains(&format!("✔ {question}")) || r.starts_with(&format!("{question}:"))
                })
                .count();
            assert_eq!(found, 1, "{columns} columns: {question}:\n{all}");
        }
        // Lines are broken between words: the help and the description
        // read whole once the lines are joined.
        let joined = text.iter().map(|r| r.trim()).collect::<Vec<_>>().join(" ");
        assert!(
            joined.contains("TYPE one of string, number, integer, boolean, object, array;"),
            "{columns} columns:\n{all}"
        );
        assert!(
            joined.contains(
                "Current weather for a city, from the public weather service of the country"
            ),
            "{columns} columns:\n{all}"
        );
        assert!(
            joined.contains("simple: one process per call, JSON out on stdout"),
            "{columns} columns:\n{all}"
        );
    }
}
