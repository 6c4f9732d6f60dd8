//! The checks a call passes through before and after the tool runs: its
//! arguments against the tool's input schema, and its structured answer
//! against the output schema (JSON Schema 2020-12 unless the schema names
//! another draft). Each tool's schemas are compiled once per manifest load,
//! at the tool's first call, and shared by every call after it.

use std::sync::{Arc, OnceLock};

use jsonschema::Validator;
use serde_json::{json, Value};

/// The most violations one error lists; a call far off its schema would
/// otherwise get a wall of text back.
const MAX_VIOLATIONS: usize = 8;

/// A tool's compiled schemas, compiled on first use and shared by clones of
/// the tool (a reloaded manifest makes new tools, so new ones).
#[derive(Clone, Default)]
pub struct Compiled(Arc<OnceLock<Schemas>>);

struct Schemas {
    input: Result<Validator, String>,
    output: Option<Result<Validator, String>>,
}

impl Compiled {
    fn get(&self, input: &Value, output: Option<&Value>) -> &Schemas {
        self.0.get_or_init(|| Schemas {
            input: compile(input),
            output: output.map(compile),
        })
    }

    /// The violations of `args` against `schema` (the tool's input schema).
    pub fn check_input(
        &self,
        input: &Value,
        output: Option<&Value>,
        args: &Value,
    ) -> Result<(), Violations> {
        match &self.get(input, output).input {
            Ok(validator) => check(validator, args),
            Err(e) => Err(Violations::schema(e)),
        }
    }

    /// The violations of `value` against the output schema; none without one.
    pub fn check_output(
        &self,
        input: &Value,
        output: Option<&Value>,
        value: &Value,
    ) -> Result<(), Violations> {
        match &self.get(input, output).output {
            None => Ok(()),
            Some(Ok(validator)) => check(validator, value),
            Some(Err(e)) => Err(Violations::schema(e)),
        }
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Compiled")
    }
}

/// Two tools are equal by their manifest fields, whatever was compiled.
impl PartialEq for Compiled {
    fn eq(&self, _: &Compiled) -> bool {
        true
    }
}

fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

fn check(validator: &Validator, instance: &Value) -> Result<(), Violations> {
    let list: Vec<Violation> = validator
        .iter_errors(instance)
        .take(MAX_VIOLATIONS)
        .map(|e| Violation {
            at: e.instance_path().to_string(),
            rule: e.kind().keyword().to_string(),
            message: e.to_string(),
        })
        .collect();
    if list.is_empty() {
        Ok(())
    } else {
        Err(Violations { list })
    }
}

/// One way an instance breaks its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// JSON Pointer to the failing value (`/id`); empty for the whole value.
    pub at: String,
    /// The JSON Schema keyword that failed (`type`, `required`, ...).
    pub rule: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Violations {
    pub list: Vec<Violation>,
}

impl Violations {
    /// The schema itself does not compile: every call fails, naming why.
    fn schema(error: &str) -> Violations {
        Violations {
            list: vec![Violation {
                at: String::new(),
                rule: "$schema".into(),
                message: format!("the tool's schema is not valid JSON Schema: {error}"),
            }],
        }
    }

    /// A CallToolResult without the structured content the schema wants.
    pub fn missing_structured_content() -> Violations {
        Violations {
            list: vec![Violation {
                at: String::new(),
                rule: "structuredContent".into(),
                message: "the answer has no structured content".into(),
            }],
        }
    }

    /// One line per violation, naming the argument (the first segment of
    /// the pointer) and the rule.
    pub fn describe(&self, what: &str) -> String {
        let parts: Vec<String> = self
            .list
            .iter()
            .map(|v| {
                let name =
                    v.at.strip_prefix('/')
                        .map(|p| p.replace("~1", "/").replace("~0", "~"));
                match name {
                    Some(name) => {
                        format!("{what} '{name}' breaks rule '{}': {}", v.rule, v.message)
                    }
                    None => format!("rule '{}': {}", v.rule, v.message),
                }
            })
            .collect();
        parts.join("; ")
    }

    pub fn to_json(&self) -> Value {
        Value::Array(
            self.list
                .iter()
                .map(|v| json!({"at": v.at, "rule": v.rule, "message": v.message}))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["id"],
            "additionalProperties": false
        })
    }

    #[test]
    fn a_wrong_type_names_the_argument_and_the_rule() {
        let c = Compiled::default();
        let err = c
            .check_input(&schema(), None, &json!({"id": "not-an-integer"}))
            .unwrap_err();
        assert_eq!(err.list.len(), 1);
        assert_eq!(err.list[0].at, "/id");
        assert_eq!(err.list[0].rule, "type");
        assert_eq!(
            err.describe("argument"),
            "argument 'id' breaks rule 'type': \"not-an-integer\" is not of type \"integer\""
        );
        assert!(c.check_input(&schema(), None, &json!({"id": 4})).is_ok());
    }

    #[test]
    fn missing_and_unknown_arguments_are_violations_of_the_whole_object() {
        let c = Compiled::default();
        let err = c
            .check_input(&schema(), None, &json!({"extra": 1}))
            .unwrap_err();
        let rules: Vec<&str> = err.list.iter().map(|v| v.rule.as_str()).collect();
        assert!(rules.contains(&"required"), "{rules:?}");
        assert!(rules.contains(&"additionalProperties"), "{rules:?}");
        assert!(err.describe("argument").contains("rule 'required'"));
    }

    #[test]
    fn nested_values_are_named_by_their_path() {
        let c = Compiled::default();
        let err = c
            .check_input(&schema(), None, &json!({"id": 1, "tags": ["a", 2]}))
            .unwrap_err();
        assert_eq!(err.list[0].at, "/tags/1");
        assert!(err.describe("argument").starts_with("argument 'tags/1'"));
    }

    #[test]
    fn a_schema_that_does_not_compile_fails_every_call() {
        let c = Compiled::default();
        let bad = json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}});
        let err = c.check_input(&bad, None, &json!({})).unwrap_err();
        assert_eq!(err.list[0].rule, "$schema");
    }

    #[test]
    fn output_is_checked_only_with_a_schema() {
        let c = Compiled::default();
        assert!(c.check_output(&schema(), None, &json!("anything")).is_ok());
        let c = Compiled::default();
        let out = json!({"type": "array"});
        assert!(c.check_output(&schema(), Some(&out), &json!([1])).is_ok());
        let err = c
            .check_output(&schema(), Some(&out), &json!({"a": 1}))
            .unwrap_err();
        assert_eq!(err.list[0].rule, "type");
    }
}
