//! `mcp.input_schema` / `mcp.output_schema` to JSON Schema.
//!
//! RFC 3 writes schemas as a shorthand (`path: string`); MCP clients want JSON
//! Schema. The runtime manifest always carries JSON Schema, so the conversion
//! happens once, here. A mapping is taken as full JSON Schema when it has
//! `$schema`, `properties`, `items`, `$ref`, `anyOf`, `oneOf`, `allOf`, or a
//! `type` of `object`, `array` or a list of types; otherwise every key is a
//! property and every value a JSON type name. Shorthand properties are
//! required unless the type ends in `?` (`offset: integer?`), an orla
//! extension documented in docs/tool-yaml.md.

use serde_json::{json, Map, Value};

/// Keys that only a JSON Schema has; a shorthand property by one of these
/// names would be ambiguous, so they mark the mapping as full JSON Schema.
const FULL_SCHEMA_KEYS: [&str; 7] = [
    "$schema",
    "properties",
    "items",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
];

const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Why a schema in tool.yaml cannot be converted.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("cannot be expressed as JSON: {source}")]
    NotJson {
        #[source]
        source: serde_json::Error,
    },
    #[error("must be a mapping (property: type) or a JSON Schema object")]
    NotAMapping,
    #[error(
        "property '{property}' must name a type ({}) in the shorthand form, or write a full JSON Schema with 'type: object' and 'properties'",
        TYPES.join(", ")
    )]
    NotATypeName { property: String },
    #[error(
        "property '{property}' has unknown type '{ty}'; expected one of {}",
        TYPES.join(", ")
    )]
    UnknownType { property: String, ty: String },
}

/// Converts a schema as written in tool.yaml to JSON Schema.
pub fn to_json_schema(value: &serde_yaml::Value) -> Result<Value, SchemaError> {
    let json: Value =
        serde_json::to_value(value).map_err(|source| SchemaError::NotJson { source })?;
    let Value::Object(map) = json else {
        return Err(SchemaError::NotAMapping);
    };
    let is_full = FULL_SCHEMA_KEYS.iter().any(|k| map.contains_key(*k))
        || match map.get("type") {
            Some(Value::String(t)) => t == "object" || t == "array",
            Some(Value::Array(_)) => true,
            _ => false,
        };
    if is_full {
        return Ok(Value::Object(map));
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (key, ty) in &map {
        let Some(ty) = ty.as_str() else {
            return Err(SchemaError::NotATypeName {
                property: key.clone(),
            });
        };
        let (base, optional) = match ty.strip_suffix('?') {
            Some(base) => (base, true),
            None => (ty, false),
        };
        if !TYPES.contains(&base) {
            return Err(SchemaError::UnknownType {
                property: key.clone(),
                ty: ty.to_string(),
            });
        }
        properties.insert(key.clone(), json!({ "type": base }));
        if !optional {
            required.push(Value::String(key.clone()));
        }
    }
    Ok(json!({
        "type": "object",
        "properties": properties,
        "required": required,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> serde_yaml::Value {
        serde_yaml::from_str(text).unwrap()
    }

    #[test]
    fn shorthand_becomes_json_schema() {
        let schema = to_json_schema(&yaml("path: string\noffset: integer?\n")).unwrap();
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
                "required": ["path"],
            })
        );
    }

    #[test]
    fn full_schema_is_kept() {
        let text = "type: object\nproperties:\n  path:\n    type: string\nrequired: [path]\n";
        let schema = to_json_schema(&yaml(text)).unwrap();
        assert_eq!(schema["properties"]["path"]["type"], "string");
        assert_eq!(schema["required"], json!(["path"]));
    }

    #[test]
    fn a_property_named_type_stays_shorthand() {
        let schema = to_json_schema(&yaml("type: string\n")).unwrap();
        assert_eq!(schema["properties"]["type"]["type"], "string");
    }

    #[test]
    fn array_schemas_are_full_schemas() {
        let schema = to_json_schema(&yaml("type: array\nitems:\n  type: string\n")).unwrap();
        assert_eq!(schema["type"], "array");
        let schema = to_json_schema(&yaml("type: [object, \"null\"]\n")).unwrap();
        assert_eq!(schema["type"], json!(["object", "null"]));
    }

    #[test]
    fn unknown_types_are_errors() {
        let err = to_json_schema(&yaml("path: str\n")).unwrap_err();
        assert!(err.to_string().contains("unknown type 'str'"), "{err}");
        assert!(to_json_schema(&yaml("- a\n- b\n")).is_err());
    }
}
