//! How a call's arguments become a process: the `flags` and `json`
//! conventions (docs/tool-yaml.md, "Arguments").
//!
//! Under `flags` only the properties the input schema declares become
//! options, and only when their names are plain words
//! ([`is_flag_name`]): an argument a client invents (an empty name, one
//! holding `=`, the abbreviation of an option the tool hides) never reaches
//! the tool's option parser. A schema that allows other properties passes
//! them only under `json`, where they are data, not options.

use serde_json::{Map, Value};

use crate::manifest::{Arguments, Tool};

/// The argv and the bytes for stdin of one call of a simple tool.
#[derive(Debug, PartialEq)]
pub struct Invocation {
    pub argv: Vec<String>,
    pub stdin: Vec<u8>,
}

/// A declared property that cannot be passed as an option.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("'{}' cannot be passed as an option (a name has letters, digits, '_' and '-', starting with a letter or digit)", name.escape_debug())]
pub struct UnsafeName {
    pub name: String,
}

/// The longest option name passed (without `--`).
const MAX_NAME: usize = 64;

/// Whether `name` may become `--name`: ASCII letters, digits, `_` and `-`,
/// starting with a letter or digit, at most 64 bytes. No `=` (it would set
/// another option's value), no leading `-` (a short option or `---`).
pub fn is_flag_name(name: &str) -> bool {
    name.len() <= MAX_NAME
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

pub fn invocation(tool: &Tool, args: &Map<String, Value>) -> Result<Invocation, UnsafeName> {
    let mut argv: Vec<String> = tool.command.iter().chain(&tool.args).cloned().collect();
    match tool.arguments {
        Arguments::Json => {
            let mut stdin = serde_json::to_vec(args).expect("a JSON object serialises");
            stdin.push(b'\n');
            Ok(Invocation { argv, stdin })
        }
        Arguments::Flags => {
            let mut stdin = Vec::new();
            for (key, value) in declared(tool, args) {
                if key == "stdin" {
                    stdin = match value {
                        Value::String(s) => s.clone().into_bytes(),
                        Value::Null => Vec::new(),
                        other => other.to_string().into_bytes(),
                    };
                    continue;
                }
                if !is_flag_name(key) {
                    return Err(UnsafeName { name: key.clone() });
                }
                let flag = format!("--{}", key.replace('_', "-"));
                match value {
                    Value::Null | Value::Bool(false) => {}
                    Value::Bool(true) => argv.push(flag),
                    Value::String(s) => argv.extend([flag, s.clone()]),
                    other => argv.extend([flag, other.to_string()]),
                }
            }
            Ok(Invocation { argv, stdin })
        }
    }
}

/// The arguments the input schema declares, in the order of its
/// `properties`; the others are left out. A discovered executable (RFC 1)
/// has no schema to declare them in: it gets them all, as the Orla runtime
/// passes them, in the order the client sent them.
fn declared<'a>(tool: &Tool, args: &'a Map<String, Value>) -> Vec<(&'a String, &'a Value)> {
    if tool.source.kind == "discovered" {
        return args.iter().collect();
    }
    tool.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.keys()
                .filter_map(|name| args.get_key_value(name.as_str()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{Mode, Source};
    use serde_json::json;

    fn tool(arguments: Arguments) -> Tool {
        Tool {
            name: "t".into(),
            version: "1.0.0".into(),
            description: String::new(),
            command: vec!["python3".into(), "-u".into(), "/t/bin/t".into()],
            arguments,
            working_dir: "/t".into(),
            args: vec!["--fast".into()],
            env: Default::default(),
            mode: Mode::Simple,
            capsule: None,
            timeout_ms: None,
            startup_timeout_ms: None,
            hot_load: None,
            retry: None,
            input_schema: json!({"type": "object", "properties": {
                "path": {}, "max_bytes": {}, "all": {}, "quiet": {}, "extra": {}, "opts": {}, "gone": {}, "stdin": {}
            }}),
            output_schema: None,
            permissions: vec![],
            permissions_declared: true,
            risk_level: Default::default(),
            safety_tier: Default::default(),
            source: Source {
                kind: "registry".into(),
            },
            ..Tool::default()
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn flags_follow_the_schema_order_with_hyphens_and_typed_values() {
        let call = invocation(
            &tool(Arguments::Flags),
            &args(json!({
                "opts": {"a": 1}, "extra": [1, "a"], "max_bytes": 10, "gone": null,
                "path": "a b", "all": true, "quiet": false
            })),
        )
        .unwrap();
        assert_eq!(
            call.argv,
            [
                "python3",
                "-u",
                "/t/bin/t",
                "--fast",
                "--path",
                "a b",
                "--max-bytes",
                "10",
                "--all",
                "--extra",
                "[1,\"a\"]",
                "--opts",
                "{\"a\":1}",
            ]
        );
        assert!(call.stdin.is_empty());
    }

    #[test]
    fn undeclared_arguments_never_become_options() {
        let call = invocation(
            &tool(Arguments::Flags),
            &args(json!({"": "x", "path=/etc": "x", "rec": true, "verbose": true, "path": "p"})),
        )
        .unwrap();
        assert_eq!(call.argv[4..], ["--path", "p"]);
    }

    #[test]
    fn a_discovered_executable_gets_every_argument_with_an_option_name() {
        let mut t = tool(Arguments::Flags);
        t.source.kind = "discovered".into();
        let call = invocation(&t, &args(json!({"zeta": 1, "alpha": true}))).unwrap();
        assert_eq!(call.argv[4..], ["--zeta", "1", "--alpha"]);
        let err = invocation(&t, &args(json!({"a=b": 1}))).unwrap_err();
        assert_eq!(err.name, "a=b");
    }

    #[test]
    fn a_declared_name_that_is_no_option_name_is_refused() {
        for bad in ["", "a=b", "-v", "_x", "a b", "é", &"a".repeat(65)] {
            let mut t = tool(Arguments::Flags);
            t.input_schema = json!({"type": "object", "properties": {bad: {}}});
            let err = invocation(&t, &args(json!({bad: "x"}))).unwrap_err();
            assert_eq!(err.name, bad);
        }
        for good in ["a", "max_bytes", "dry-run", "x2", "9"] {
            assert!(is_flag_name(good), "{good}");
        }
    }

    #[test]
    fn an_argument_named_stdin_is_piped() {
        let call = invocation(
            &tool(Arguments::Flags),
            &args(json!({"stdin": "hello\n", "path": "x"})),
        )
        .unwrap();
        assert_eq!(call.argv[4..], ["--path", "x"]);
        assert_eq!(call.stdin, b"hello\n");
    }

    #[test]
    fn json_sends_the_whole_object_on_stdin() {
        let call = invocation(
            &tool(Arguments::Json),
            &args(json!({"path": "x", "stdin": 1, "undeclared": true})),
        )
        .unwrap();
        assert_eq!(call.argv, ["python3", "-u", "/t/bin/t", "--fast"]);
        assert_eq!(
            call.stdin,
            b"{\"path\":\"x\",\"stdin\":1,\"undeclared\":true}\n"
        );
    }
}
