//! The command line that runs an entrypoint, read from its `#!` line.
//!
//! A runtime executes `command` followed by the tool's arguments, so the
//! interpreter's own options survive: `#!/usr/bin/python3 -u` keeps `-u`.
//! The line is split on whitespace (as macOS does and as authors expect;
//! Linux would pass everything after the program as one word). `env` is
//! resolved as it would resolve itself: `#!/usr/bin/env python3 -u` and
//! `#!/usr/bin/env -S python3 -u` both give `python3 -u ENTRYPOINT`, the
//! program found on PATH. An `env` line that sets variables or passes other
//! options to `env` keeps `env` as the program, so nothing is lost.

/// The argv prefix that runs `entrypoint`: the interpreter and its options
/// from `shebang` (the text after `#!`), then the entrypoint; just the
/// entrypoint for a binary.
pub fn command_line(shebang: Option<&str>, entrypoint: &str) -> Vec<String> {
    let mut argv = shebang.map(interpreter_words).unwrap_or_default();
    argv.push(entrypoint.to_string());
    argv
}

fn interpreter_words(shebang: &str) -> Vec<String> {
    let words: Vec<&str> = shebang.split_whitespace().collect();
    let Some((program, rest)) = words.split_first() else {
        return Vec::new();
    };
    let base = program.rsplit('/').next().unwrap_or(program);
    if base != "env" {
        return words.iter().map(|w| w.to_string()).collect();
    }
    // `env [-S|--split-string] PROGRAM ARGS...`: the words were split already.
    let rest: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "-S" | "--split-string"))
        .collect();
    let plain = rest
        .first()
        .is_some_and(|w| !w.starts_with('-') && !w.contains('='));
    if plain {
        rest.iter().map(|w| w.to_string()).collect()
    } else {
        std::iter::once(*program)
            .chain(rest.iter().copied())
            .map(str::to_string)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::command_line;

    fn run(shebang: &str) -> Vec<String> {
        command_line(Some(shebang), "/t/bin/x")
    }

    #[test]
    fn interpreter_options_are_kept() {
        assert_eq!(
            run("/usr/bin/python3 -u"),
            ["/usr/bin/python3", "-u", "/t/bin/x"]
        );
        assert_eq!(run("/bin/bash"), ["/bin/bash", "/t/bin/x"]);
    }

    #[test]
    fn env_is_resolved_with_or_without_split_string() {
        assert_eq!(
            run("/usr/bin/env python3 -u"),
            ["python3", "-u", "/t/bin/x"]
        );
        assert_eq!(
            run("/usr/bin/env -S python3 -u -X dev"),
            ["python3", "-u", "-X", "dev", "/t/bin/x"]
        );
        assert_eq!(run("/usr/bin/env  node"), ["node", "/t/bin/x"]);
    }

    #[test]
    fn env_setting_variables_stays_the_program() {
        assert_eq!(
            run("/usr/bin/env -S PYTHONUNBUFFERED=1 python3"),
            ["/usr/bin/env", "PYTHONUNBUFFERED=1", "python3", "/t/bin/x"]
        );
        assert_eq!(
            run("/usr/bin/env -i python3"),
            ["/usr/bin/env", "-i", "python3", "/t/bin/x"]
        );
    }

    #[test]
    fn a_binary_runs_itself() {
        assert_eq!(command_line(None, "/t/bin/x"), ["/t/bin/x"]);
    }
}
