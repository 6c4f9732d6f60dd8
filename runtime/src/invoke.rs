//! How a call's arguments become a process: the `flags` and `json`
//! conventions (docs/tool-yaml.md, "Arguments").

use serde_json::{Map, Value};

use crate::manifest::{Arguments, Tool};

/// The argv and the bytes for stdin of one call of a simple tool.
#[derive(Debug, PartialEq)]
pub struct Invocation {
    pub argv: Vec<String>,
    pub stdin: Vec<u8>,
}

pub fn invocation(tool: &Tool, args: &Map<String, Value>) -> Invocation {
    let mut argv: Vec<String> = tool.command.iter().chain(&tool.args).cloned().collect();
    match tool.arguments {
        Arguments::Json => {
            let mut stdin = serde_json::to_vec(args).expect("a JSON object serialises");
            stdin.push(b'\n');
            Invocation { argv, stdin }
        }
        Arguments::Flags => {
            let mut stdin = Vec::new();
            for (key, value) in ordered(tool, args) {
                if key == "stdin" {
                    stdin = match value {
                        Value::String(s) => s.clone().into_bytes(),
                        Value::Null => Vec::new(),
                        other => other.to_string().into_bytes(),
                    };
                    continue;
                }
                if value.is_null() {
                    continue;
                }
                argv.push(format!("--{}", key.replace('_', "-")));
                argv.push(match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            }
            Invocation { argv, stdin }
        }
    }
}

/// The arguments in the order of the input schema's properties, then the
/// others in the order the client sent them.
fn ordered<'a>(tool: &Tool, args: &'a Map<String, Value>) -> Vec<(&'a String, &'a Value)> {
    let declared: Vec<&str> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut out: Vec<(&String, &Value)> = Vec::with_capacity(args.len());
    for name in &declared {
        if let Some((k, v)) = args.get_key_value(*name) {
            out.push((k, v));
        }
    }
    for (k, v) in args {
        if !declared.contains(&k.as_str()) {
            out.push((k, v));
        }
    }
    out
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
            input_schema: json!({"type": "object", "properties": {"path": {}, "max_bytes": {}}}),
            output_schema: None,
            permissions: vec![],
            permissions_declared: true,
            source: Source {
                kind: "registry".into(),
            },
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn flags_follow_the_schema_order_with_hyphens_and_text_values() {
        let call = invocation(
            &tool(Arguments::Flags),
            &args(
                json!({"extra": [1, "a"], "max_bytes": 10, "gone": null, "path": "a b", "all": true}),
            ),
        );
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
                "--extra",
                "[1,\"a\"]",
                "--all",
                "true"
            ]
        );
        assert!(call.stdin.is_empty());
    }

    #[test]
    fn an_argument_named_stdin_is_piped() {
        let call = invocation(
            &tool(Arguments::Flags),
            &args(json!({"stdin": "hello\n", "path": "x"})),
        );
        assert_eq!(call.argv[4..], ["--path", "x"]);
        assert_eq!(call.stdin, b"hello\n");
    }

    #[test]
    fn json_sends_the_whole_object_on_stdin() {
        let call = invocation(
            &tool(Arguments::Json),
            &args(json!({"path": "x", "stdin": 1})),
        );
        assert_eq!(call.argv, ["python3", "-u", "/t/bin/t", "--fast"]);
        assert_eq!(call.stdin, b"{\"path\":\"x\",\"stdin\":1}\n");
    }
}
