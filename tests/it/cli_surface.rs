//! The command line's surface as a newcomer meets it: typo tips and the
//! aliases other package managers taught them, `--global` inside a
//! project, specs written as another tool writes them, shell completion
//! and man pages. Refresh the snapshots after an intended change with
//! `SNAPSHOTS=overwrite cargo test --test it cli_surface::`.

use crate::common;

use std::path::{Path, PathBuf};

use snapbox::{Assert, Data, Redactions};

use common::TestContext;

fn assert_snapshot(t: &TestContext, name: &str, actual: String) {
    let file: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/cli_surface")
        .join(format!("{name}.txt"));
    let mut r = Redactions::new();
    r.insert("[ROOT]", t.dir.path().display().to_string())
        .unwrap();
    Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .redact_with(r)
        .eq(actual, Data::read_from(&file, None));
}

/// The command line, its exit code, stdout and stderr, as one document.
fn transcript(t: &TestContext, dir: &Path, args: &[&str]) -> String {
    let run = t.run_in(dir, args);
    format!(
        "$ orla {}\nexit: {}\n--- stdout\n{}--- stderr\n{}\n",
        args.join(" "),
        run.code,
        run.stdout,
        run.stderr
    )
}

#[test]
fn typo_tips_name_the_best_match_first() {
    let t = TestContext::new();
    let run = t.run(&["instal"]);
    run.failure(2);
    assert!(
        run.stderr
            .contains("similar subcommands exist: 'install', 'uninstall'"),
        "{}",
        run.stderr
    );
    // A hidden command is never offered.
    assert!(!t.run(&["__comp"]).stderr.contains("__complete"));
}

#[test]
fn remove_un_and_upgrade_are_aliases_as_npm_and_uv_users_expect() {
    let t = TestContext::new();
    t.run(&["install", "-q", "fs-read@1.1", "json-query"])
        .success();
    t.run(&["remove", "json-query"])
        .success()
        .stderr_has("Removed json-query 1.0.0");
    t.run(&["un", "fs-read"]).success();
    assert!(t.list().is_empty());
    t.run(&["install", "-q", "fs-read@1.1"]).success();
    t.run(&["upgrade", "fs-read"])
        .success()
        .stderr_has("Updated fs-read 1.1.0 -> 1.2.1");
    // The visible aliases are in the help, the short `un` is not.
    let help = t.run(&["--help"]).stdout;
    assert!(help.contains("[aliases: rm, remove]"), "{help}");
    assert!(help.contains("[alias: upgrade]"), "{help}");
}

#[test]
fn install_uninstall_and_update_take_global_inside_a_project() {
    let t = TestContext::new();
    let project = t.work.join("app");
    std::fs::create_dir_all(&project).unwrap();
    t.run_in(&project, &["init", "-q"]).success();
    t.run_in(&project, &["install", "-q", "--global", "fs-read@1.1"])
        .success();
    // Into the global root; the project's files are untouched.
    assert_eq!(t.list(), [("fs-read".to_string(), "1.1.0".to_string())]);
    assert!(!project.join("orla.lock").exists());
    let yaml = std::fs::read_to_string(project.join("orla.yaml")).unwrap();
    assert!(!yaml.contains("fs-read"), "{yaml}");
    assert!(!project.join("tools/fs-read").exists());
    t.run_in(&project, &["update", "--global", "-y"])
        .success()
        .stderr_has("Updated fs-read 1.1.0 -> 1.2.1");
    assert_eq!(t.list(), [("fs-read".to_string(), "1.2.1".to_string())]);
    // Without --global the project has no such tool, and the hint says
    // how to reach the global one.
    t.run_in(&project, &["uninstall", "fs-read"])
        .failure(1)
        .stderr_has("pass --global to act on it");
    t.run_in(&project, &["uninstall", "--global", "fs-read"])
        .success();
    assert!(t.list().is_empty());
    // --locked and --frozen install a project's lock: not with --global.
    t.run_in(&project, &["install", "--global", "--frozen"])
        .failure(2)
        .stderr_has("cannot be used with");
}

#[test]
fn a_version_written_as_pip_writes_it_or_a_url_gets_a_hint_that_works() {
    let t = TestContext::new();
    let mut out = String::new();
    for args in [
        &["install", "fs-read==1.2"][..],
        &["install", "fs-read>=1.0"],
        &["install", "https://example.com/x.tar.gz"],
        &["install", "https://example.com/index.git"],
    ] {
        let run = t.run(args);
        run.failure(2);
        out.push_str(&transcript(&t, &t.work, args));
    }
    assert_snapshot(&t, "foreign-specs", out);
    // What the hint proposes works.
    t.run(&["install", "-q", "fs-read@1.2"]).success();
    assert!(!t.home.join("https:").exists());
}

/// `orla __complete` is what the scripts run; it is no subcommand, so no
/// help, man page, script or typo tip shows it.
#[test]
fn the_completion_hook_is_in_no_script_help_or_man_page() {
    let t = TestContext::new();
    for (_, file) in orla::cli::generate::SHELLS {
        let script = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("completions")
                .join(file),
        )
        .unwrap();
        for line in script.lines() {
            // The hook calls it; nothing offers it as a word to type.
            if line.contains("__complete") {
                assert!(line.contains("orla __complete"), "{file}: {line}");
                assert!(!line.contains("-a \"__complete\""), "{file}: {line}");
            }
        }
        assert!(!script.contains("orla;__complete"), "{file}");
        assert!(!script.contains("orla____complete"), "{file}");
    }
    assert!(!t.run(&["--help"]).stdout.contains("__complete"));
    for (name, page) in orla::cli::generate::man_pages() {
        assert!(
            !String::from_utf8_lossy(&page).contains("__complete"),
            "{name}"
        );
    }
    // It still answers.
    t.run(&["__complete", "available"])
        .success()
        .stdout_has("fs-read\n");
    t.run(&["__complete", "nosuch"]).failure(2);
}

/// The bash script, driven as bash drives it on TAB: the line split into
/// COMP_WORDS at bash's word breaks (`@` is one), COMP_LINE and COMP_POINT.
fn bash_complete(t: &TestContext, line: &str) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/orla.bash");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_orla")).parent().unwrap();
    let mut words: Vec<String> = Vec::new();
    for word in line.split(' ') {
        let mut parts = word.split('@').peekable();
        while let Some(part) = parts.next() {
            if !part.is_empty() || parts.peek().is_none() {
                words.push(part.to_string());
            }
            if parts.peek().is_some() {
                words.push("@".into());
            }
        }
    }
    // `fs-read@1` is three words: fs-read, @ and 1.
    let words: Vec<String> = words
        .into_iter()
        .fold(Vec::new(), |mut acc: Vec<String>, w| {
            if acc.last().is_some_and(|l| l == "@") && w.is_empty() {
                return acc;
            }
            acc.push(w);
            acc
        });
    let program = format!(
        "source {}; COMP_LINE='{line}'; COMP_POINT={}; COMP_WORDS=({}); COMP_CWORD={}; \
         _orla_dynamic orla; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        line.len(),
        words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
        words.len() - 1
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(program)
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("ORLA_HOME", &t.home)
        .env("ORLA_CACHE_DIR", &t.cache)
        .env("ORLA_PUBLIC_REGISTRY", "off")
        .env("HOME", t.dir.path().join("user"))
        .current_dir(&t.work)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_versions_after_the_at_and_clients_but_never_the_hook() {
    let t = TestContext::new();
    t.run(&["install", "-q", "fs-read@1.1", "fs-read@1.2"])
        .success();
    // After `fs-read@` bash replaces what follows the @: the versions,
    // newest stable first, no host names.
    assert_eq!(
        bash_complete(&t, "orla install fs-read@"),
        ["@1.2.1", "@1.2.0", "@1.1.0", "@1.0.0", "@2.0.0-rc.1"]
    );
    assert_eq!(
        bash_complete(&t, "orla install fs-read@1.2"),
        ["1.2.1", "1.2.0"]
    );
    // The installed versions for the commands that take installed tools.
    assert_eq!(bash_complete(&t, "orla rm fs-read@"), ["@1.2.1", "@1.1.0"]);
    let clients = bash_complete(&t, "orla client add ");
    for client in ["claude-desktop", "cursor", "vscode", "windsurf", "goose"] {
        assert!(clients.iter().any(|c| c == client), "{clients:?}");
    }
    let commands = bash_complete(&t, "orla ");
    assert!(commands.iter().any(|c| c == "install"), "{commands:?}");
    assert!(
        !commands.iter().any(|c| c.contains("__complete")),
        "{commands:?}"
    );
}

#[test]
fn completions_say_where_each_script_goes_and_nushell_is_one_of_them() {
    let t = TestContext::new();
    let help = t.run(&["completions", "--help"]).stdout;
    for line in [
        "~/.local/share/bash-completion/completions/orla",
        "~/.zfunc/_orla",
        "~/.config/fish/completions/orla.fish",
        "rc.elv",
        "$PROFILE",
        "config.nu",
    ] {
        assert!(help.contains(line), "{line}: {help}");
    }
    let nu = t.run(&["completions", "nushell"]);
    nu.success();
    assert!(
        nu.stdout.contains("export extern \"orla install\""),
        "{}",
        nu.stdout
    );
    t.run(&["completions", "tcsh"])
        .failure(2)
        .stderr_has("possible values: bash, zsh, fish, elvish, powershell, nushell");
}

#[test]
fn man_pages_describe_more_than_their_name_and_keep_global_options_apart() {
    let pages = orla::cli::generate::man_pages();
    let page = |name: &str| {
        let (_, bytes) = pages.iter().find(|(n, _)| n == name).unwrap();
        String::from_utf8(bytes.clone()).unwrap()
    };
    let section = |text: &str, title: &str| -> Option<String> {
        let start = text.find(&format!(".SH {title}\n"))? + title.len() + 5;
        let end = text[start..]
            .find("\n.SH ")
            .map_or(text.len(), |n| start + n);
        Some(text[start..end].to_string())
    };
    for (name, bytes) in &pages {
        let text = String::from_utf8_lossy(bytes);
        let about = section(&text, "NAME").unwrap();
        let about = about.split(" \\- ").nth(1).unwrap_or_default().trim();
        if let Some(description) = section(&text, "DESCRIPTION") {
            assert_ne!(description.trim(), about, "{name}");
        }
        assert!(!text.contains(".SH EXTRA"), "{name}");
    }
    let top = page("orla.1");
    // The environment is listed once, in its own section.
    assert_eq!(top.matches("ORLA_CACHE_DIR").count(), 1, "{top}");
    let install = page("orla-install.1");
    let arguments = section(&install, "ARGUMENTS").unwrap();
    assert!(arguments.contains("[\\fISPEC\\fR...]"), "{arguments}");
    let options = section(&install, "OPTIONS").unwrap();
    assert!(options.contains("\\-\\-strict"), "{options}");
    assert!(!options.contains("\\-\\-quiet"), "{options}");
    assert!(!options.contains("SPEC"), "{options}");
    let global = section(&install, "\"GLOBAL OPTIONS\"").unwrap();
    assert!(global.contains("\\-\\-quiet"), "{global}");
    let completions = page("orla-completions.1");
    assert!(completions.contains("~/.config/fish/completions/orla.fish"));
}

/// Paths a user typed with `.` or `..` were printed, and written into the
/// manifest, as typed: `Published ... to /a/pkg/../idx`, `/a/./caps/./x`,
/// `"watch": [".../1.0.0/./src"]`.
#[test]
fn paths_are_shown_and_recorded_without_dot_or_dot_dot() {
    let t = TestContext::new();
    let pkg = common::PackageBuilder::new("dotty", "0.1.0")
        .yaml("runtime:\n  hot_load:\n    watch: [\"./src\", \"./\"]\n")
        .file("src/lib.txt", "x\n", false)
        .write(&t.work);
    let published = t.run_in(
        &pkg,
        &["tool", "publish", ".", "--index", "../idx", "--init"],
    );
    published.success();
    let idx = t.work.join("idx");
    assert!(
        published
            .stderr
            .contains(&format!("Published dotty 0.1.0 to {}", idx.display())),
        "{}",
        published.stderr
    );
    t.run_in(
        &pkg,
        &["install", "-q", "--local", "./../dotty-0.1.0-src/."],
    )
    .success();
    let tool = t.tools_dir().join("dotty/0.1.0");
    let watch = &t.manifest()["tools"][0]["hot_load"]["watch"];
    assert_eq!(
        watch,
        &serde_json::json!([
            tool.join("src").display().to_string(),
            tool.display().to_string()
        ]),
        "{watch}"
    );
    let receipt = std::fs::read_to_string(tool.join(".orla-receipt.json")).unwrap();
    assert!(
        !receipt.contains("/./") && !receipt.contains("/../"),
        "{receipt}"
    );
    for text in [&published.stderr, &receipt] {
        assert!(!text.contains("/./") && !text.contains("/../"), "{text}");
    }
}

/// What orla wrote on a terminal, as the lines a person sees: escape
/// sequences dropped, and a line redrawn in place (`\r`) counted as a line.
#[cfg(unix)]
fn screen_lines(raw: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters, then a final letter.
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain
        .split(['\r', '\n'])
        .map(str::to_owned)
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// `orla ARGS` on a pseudo-terminal `width` columns wide, until it ends;
/// `during` runs once `first` was shown.
#[cfg(unix)]
fn on_terminal(
    t: &TestContext,
    width: u16,
    args: &[&str],
    first: &str,
    during: impl FnOnce(),
) -> Vec<String> {
    use expectrl::{Eof, Session};
    let mut cmd = t.terminal_command(args);
    cmd.env("TERM", "xterm").env_remove("COLUMNS");
    let mut s = Session::spawn(cmd).expect("spawn on a pty");
    s.get_process_mut().set_window_size(width, 40).unwrap();
    s.set_expect_timeout(Some(std::time::Duration::from_secs(30)));
    let mut raw = Vec::new();
    let found = s
        .expect(first)
        .unwrap_or_else(|e| panic!("waiting for {first:?}: {e}"));
    raw.extend_from_slice(found.before());
    raw.extend_from_slice(found.get(0).unwrap_or_default());
    during();
    let found = s.expect(Eof).unwrap();
    raw.extend_from_slice(found.before());
    raw.extend_from_slice(found.get(0).unwrap_or_default());
    screen_lines(&raw)
}

/// At 60 columns the bar wrapped (`4.15 MiB/11.45 MiB` alone on the next
/// line) and `list` let the terminal cut words; wide, the bar showed no
/// rate or time left.
#[cfg(unix)]
#[test]
fn progress_bars_and_list_fit_a_narrow_terminal_and_wide_bars_show_rate_and_time_left() {
    use common::server::Server;
    for width in [60u16, 120] {
        let t = TestContext::new();
        let server = Server::start();
        let index = crate::install::stalling_index(&t, &server, "slow");
        let location = index.location();
        let args = ["install", "slow", "--registry", location.as_str()];
        let lines = on_terminal(&t, width, &args, "Fetching", || server.release());
        let bar: Vec<&String> = lines.iter().filter(|l| l.contains("Fetching")).collect();
        assert!(!bar.is_empty(), "{lines:#?}");
        // indicatif pads a bar's line with blanks to clear what was there.
        // (A status line naming a long path is wrapped by the terminal.)
        for line in &bar {
            let line = line.trim_end();
            assert!(
                line.chars().count() < usize::from(width),
                "{width}: {line:?}"
            );
        }
        if width == 120 {
            assert!(
                bar.iter()
                    .any(|l| l.contains("/s, ") && l.contains(" left)")),
                "{bar:#?}"
            );
        } else {
            // The bar shortened, the bytes kept, the rate left out.
            assert!(
                bar.iter().all(|l| l.contains("] ") && l.contains("B/")),
                "{bar:#?}"
            );
            assert!(bar.iter().all(|l| !l.contains("/s")), "{bar:#?}");
        }
    }
    let t = TestContext::new();
    t.run(&["install", "-q", "echo-capsule", "fs-read"])
        .success();
    let lines = on_terminal(&t, 60, &["list"], "NAME", || {});
    let text = lines.join("\n");
    for line in &lines {
        assert!(line.trim_end().chars().count() <= 60, "{line:?}\n{text}");
    }
    // In its own column, every word whole.
    let description = "A long-running capsule-mode tool that answers each JSON-RPC request with its params, for testing capsule supervision";
    let words: Vec<&str> = text.split_whitespace().collect();
    for word in description.split(' ') {
        assert!(words.contains(&word), "{word:?} broken:\n{text}");
    }
    let column = lines[0].find("DESCRIPTION").unwrap();
    assert!(lines[2].starts_with(&" ".repeat(column)), "{text}");
    assert!(!lines[2][column..].starts_with(' '), "{text}");
}
