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

/// The option a property is passed as: `--` and its name, `_` written `-`.
fn option_of(property: &str) -> String {
    format!("--{}", property.replace('_', "-"))
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
                let flag = option_of(key);
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

/// What keeps a command line from being read back as a call's arguments
/// ([`arguments`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArgvError {
    /// Not an option the input schema declares (or no option at all).
    #[error("{tool} has no option '{}' (its options: {})", given.escape_debug(), list(declared))]
    Unknown {
        tool: String,
        given: String,
        declared: Vec<String>,
    },
    #[error("option '{option}' of {tool} needs a value")]
    MissingValue { tool: String, option: String },
    #[error("option '{option}' of {tool} is given twice")]
    Repeated { tool: String, option: String },
}

fn list(declared: &[String]) -> String {
    if declared.is_empty() {
        "none".into()
    } else {
        declared.join(", ")
    }
}

/// One option of a `flags` tool: `--name` and the property it sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    /// `--name`, as [`invocation`] writes it.
    pub flag: String,
    pub property: String,
    /// The property's JSON Schema type (the first that is not `null`).
    pub kind: Option<String>,
    pub description: Option<String>,
}

/// The options a `flags` tool takes: the properties its input schema
/// declares whose names can be options, in the schema's order; `stdin`
/// is one too (its value is piped). A name two properties share (`a_b`
/// and `a-b`) is the first one's.
pub fn flags(tool: &Tool) -> Vec<Flag> {
    let mut out: Vec<Flag> = Vec::new();
    let properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    for (name, schema) in properties.into_iter().flatten() {
        if name != "stdin" && !is_flag_name(name) {
            continue;
        }
        let flag = option_of(name);
        if out.iter().any(|f| f.flag == flag) {
            continue;
        }
        let kind = match schema.get("type") {
            Some(Value::String(t)) => Some(t.clone()),
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .map(str::to_string),
            _ => None,
        };
        out.push(Flag {
            flag,
            property: name.clone(),
            kind,
            description: schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
    out
}

/// A command line read back as the arguments object of a call of a
/// `flags` tool: the inverse of [`invocation`]. `--name value` and
/// `--name=value` set the property `--name` stands for (`_` or `-` in it
/// alike); a boolean is a bare switch (or `--name=true|false`); a number
/// or an integer is read as JSON, an array or an object as JSON text, and
/// a value that does not read as its type stays a string, for the schema
/// check to name. Anything else (an option the schema does not declare,
/// a short option, a word that is no option) is refused, naming it.
pub fn arguments(tool: &Tool, argv: &[String]) -> Result<Map<String, Value>, ArgvError> {
    let flags = flags(tool);
    let unknown = |given: &str| ArgvError::Unknown {
        tool: tool.name.clone(),
        given: given.to_string(),
        declared: flags.iter().map(|f| f.flag.clone()).collect(),
    };
    let mut args = Map::new();
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        let Some(option) = word.strip_prefix("--").filter(|o| !o.is_empty()) else {
            return Err(unknown(word));
        };
        let (name, inline) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (option, None),
        };
        let wanted = option_of(name);
        let Some(flag) = flags.iter().find(|f| f.flag == wanted) else {
            return Err(unknown(word));
        };
        if args.contains_key(&flag.property) {
            return Err(ArgvError::Repeated {
                tool: tool.name.clone(),
                option: flag.flag.clone(),
            });
        }
        let boolean = flag.kind.as_deref() == Some("boolean");
        let text = match (inline, boolean) {
            (Some(value), _) => value.to_string(),
            (None, true) => "true".into(),
            (None, false) => words
                .next()
                .cloned()
                .ok_or_else(|| ArgvError::MissingValue {
                    tool: tool.name.clone(),
                    option: flag.flag.clone(),
                })?,
        };
        args.insert(flag.property.clone(), typed(flag.kind.as_deref(), text));
    }
    Ok(args)
}

/// `text` as a value of JSON Schema type `kind`, or as a string when it is
/// not one.
fn typed(kind: Option<&str>, text: String) -> Value {
    let parsed = match kind {
        Some("boolean") => match text.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Some("integer" | "number") => serde_json::from_str::<Value>(&text)
            .ok()
            .filter(Value::is_number),
        Some("array") => serde_json::from_str::<Value>(&text)
            .ok()
            .filter(Value::is_array),
        Some("object") => serde_json::from_str::<Value>(&text)
            .ok()
            .filter(Value::is_object),
        Some("null") => (text == "null").then_some(Value::Null),
        _ => None,
    };
    parsed.unwrap_or(Value::String(text))
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

    fn typed_tool() -> Tool {
        let mut t = tool(Arguments::Flags);
        t.input_schema = json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "where"}, "max_bytes": {"type": "integer"},
            "ratio": {"type": ["number", "null"]}, "all": {"type": "boolean"},
            "tags": {"type": "array"}, "opts": {"type": "object"}, "a=b": {}, "stdin": {}
        }});
        t
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_command_line_reads_back_as_the_arguments_the_runtime_passes() {
        let t = typed_tool();
        let call = args(json!({
            "path": "a b", "max_bytes": 10, "ratio": 0.5, "all": true,
            "tags": [1, "a"], "opts": {"a": 1}, "stdin": "hi"
        }));
        let invoked = invocation(&t, &call).unwrap();
        let mut line = invoked.argv[4..].to_vec();
        line.extend(["--stdin".to_string(), "hi".to_string()]);
        assert_eq!(arguments(&t, &line).unwrap(), call);
        // `=`, underscores and explicit booleans are read too.
        let got = arguments(
            &t,
            &argv(&[
                "--max_bytes=7",
                "--path=x=y",
                "--all=false",
                "--ratio",
                "-1e3",
            ]),
        )
        .unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"max_bytes": 7, "path": "x=y", "all": false, "ratio": -1e3})
        );
        // A value that is not of its type stays text, for the schema check.
        let got = arguments(&t, &argv(&["--max-bytes", "ten", "--tags", "[1"])).unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"max_bytes": "ten", "tags": "[1"})
        );
    }

    #[test]
    fn what_the_schema_does_not_declare_is_refused_by_name() {
        let t = typed_tool();
        for bad in [
            &["--write-to", "x"][..],
            &["-p", "x"],
            &["x"],
            &["--"],
            &["--a=b", "x"],
            &["--path", "x", "--pat", "y"],
        ] {
            let err = arguments(&t, &argv(bad)).unwrap_err();
            let ArgvError::Unknown {
                given, declared, ..
            } = &err
            else {
                panic!("{err:?}")
            };
            assert!(bad.contains(&given.as_str()), "{given}");
            assert_eq!(declared[0], "--path");
            assert!(!declared.iter().any(|d| d.contains('=')), "{declared:?}");
        }
        let err = arguments(&t, &argv(&["--all", "--path"])).unwrap_err();
        assert!(matches!(err, ArgvError::MissingValue { ref option, .. } if option == "--path"));
        let err = arguments(&t, &argv(&["--path", "a", "--path=b"])).unwrap_err();
        assert!(matches!(err, ArgvError::Repeated { .. }), "{err:?}");
        assert_eq!(err.to_string(), "option '--path' of t is given twice");
        let err = arguments(&t, &argv(&["--nope"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t has no option '--nope' (its options: --path, --max-bytes, --ratio, --all, --tags, --opts, --stdin)"
        );
    }
}
