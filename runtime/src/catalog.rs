//! The openwop tool catalog over HTTP (RFC 0078 sections A, B and F),
//! served beside MCP by the Streamable HTTP transport from the manifest
//! the MCP side serves, so a reload shows in both at once:
//!
//! - `GET /.well-known/openwop`: the discovery document, public as openwop
//!   has it, advertising `toolCatalog` at its root (section A) and nothing
//!   of the tools.
//! - `GET /v1/tools`: `{"tools": ToolDescriptor[]}` (section B's
//!   normative shape), optionally `?source=mcp|host-extension|...`.
//! - `GET /v1/tools/{toolId}`: one descriptor, or `404`; the id
//!   percent-decoded, as clients send `mcp%3Afs-read`.
//!
//! Read-only (section F-1): `GET` and `HEAD`, else `405` with `Allow`.
//! Errors are openwop's envelope, `{"error": code, "message": text}`.
//! Whether a request may see the tools at all (the token) is decided
//! before, by the HTTP layer; [`Route::public`] says which routes need it.

use hyper::{Method, StatusCode};
use serde_json::{json, Value};

use crate::manifest::Manifest;
use crate::openwop;

pub const DISCOVERY_PATH: &str = "/.well-known/openwop";
pub const TOOLS_PATH: &str = "/v1/tools";

/// The sources orla's descriptors can have (`openwop::ToolSource`).
const SOURCES: [&str; 2] = ["mcp", "host-extension"];

/// Every source RFC 0078 names: `?source=` takes one of these.
const RFC_SOURCES: [&str; 5] = [
    "node-pack",
    "workflow",
    "mcp",
    "connector",
    "host-extension",
];

/// The methods every catalog route answers.
pub const ALLOW: &str = "GET, HEAD";

/// A path the catalog answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Discovery,
    List,
    /// The id as it came in the path, still percent-encoded.
    One(String),
}

impl Route {
    pub fn of(path: &str) -> Option<Route> {
        if path == DISCOVERY_PATH {
            return Some(Route::Discovery);
        }
        if path == TOOLS_PATH {
            return Some(Route::List);
        }
        path.strip_prefix(TOOLS_PATH)
            .and_then(|rest| rest.strip_prefix('/'))
            .map(|id| Route::One(id.to_string()))
    }

    /// Whether anyone may read it: the discovery document says nothing
    /// of the tools, and openwop clients read it before they authenticate.
    pub fn public(&self) -> bool {
        *self == Route::Discovery
    }
}

/// What a catalog request gets: a status and a JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: StatusCode,
    pub body: Value,
}

impl Answer {
    fn ok(body: Value) -> Answer {
        Answer {
            status: StatusCode::OK,
            body,
        }
    }

    /// openwop's error envelope (`error`, `message`).
    pub fn error(status: StatusCode, code: &str, message: &str) -> Answer {
        Answer {
            status,
            body: json!({"error": code, "message": message}),
        }
    }
}

/// The answer to `method` on `route` (`query` is the URL's, undecoded),
/// from `manifest`, for a request allowed to see the tools.
pub fn answer(route: &Route, method: &Method, query: Option<&str>, manifest: &Manifest) -> Answer {
    if method != Method::GET && method != Method::HEAD {
        return Answer::error(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "the tool catalog is read-only: GET or HEAD",
        );
    }
    match route {
        Route::Discovery => Answer::ok(discovery()),
        Route::List => list(query, manifest),
        Route::One(raw) => {
            let found = percent_encoding::percent_decode_str(raw)
                .decode_utf8()
                .ok()
                .and_then(|id| openwop::find(manifest, &id));
            match found {
                Some(d) => Answer::ok(serde_json::to_value(d).expect("a descriptor is JSON")),
                None => not_found(),
            }
        }
    }
}

/// The `404` of an id no one may see: unknown and unauthorized alike.
pub fn not_found() -> Answer {
    Answer::error(StatusCode::NOT_FOUND, "not_found", "no such tool")
}

fn list(query: Option<&str>, manifest: &Manifest) -> Answer {
    let wanted = form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .filter(|(k, _)| k == "source")
        .map(|(_, v)| v.into_owned())
        .last();
    if let Some(source) = &wanted {
        if !RFC_SOURCES.contains(&source.as_str()) {
            return Answer::error(
                StatusCode::BAD_REQUEST,
                "validation_error",
                &format!("source must be one of {}", RFC_SOURCES.join(", ")),
            );
        }
    }
    let tools: Vec<Value> = openwop::catalog(manifest)
        .into_iter()
        .map(|d| serde_json::to_value(d).expect("a descriptor is JSON"))
        .filter(|d| wanted.as_deref().is_none_or(|s| d["source"] == s))
        .collect();
    Answer::ok(json!({ "tools": tools }))
}

/// The discovery document: what openwop's capabilities schema requires of
/// every host (orla takes no AI envelopes, so none are listed and their
/// limits are 0), and `toolCatalog`. orla emits none of section D's
/// `tool.session.*` events, so `sessionLifecycle` is false.
pub fn discovery() -> Value {
    json!({
        "protocolVersion": "1.0",
        "supportedEnvelopes": [],
        "schemaVersions": {},
        "limits": {"clarificationRounds": 0, "schemaRounds": 0, "envelopesPerTurn": 0},
        "toolCatalog": {"supported": true, "sources": SOURCES, "sessionLifecycle": false}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        let tool = |name: &str, permissions: &[&str], tier: &str| {
            json!({
                "name": name, "version": "1.0.0", "description": "d",
                "command": ["/t/bin/x"], "arguments": "flags", "working_dir": "/t",
                "args": [], "env": {}, "mode": "simple", "capsule": null, "timeout_ms": null,
                "startup_timeout_ms": null, "hot_load": null, "retry": null,
                "input_schema": {"type": "object"}, "output_schema": null,
                "permissions": permissions, "safety_tier": tier, "source": {"kind": "registry"}
            })
        };
        serde_json::from_value(json!({
            "manifest_version": crate::manifest::MANIFEST_VERSION,
            "tools": [tool("fs-read", &["filesystem:read"], "read"),
                      tool("shell", &["process:exec"], "exec")]
        }))
        .unwrap()
    }

    #[test]
    fn routes_are_the_catalogs_paths_only() {
        assert_eq!(Route::of("/.well-known/openwop"), Some(Route::Discovery));
        assert_eq!(Route::of("/v1/tools"), Some(Route::List));
        assert_eq!(
            Route::of("/v1/tools/mcp%3Afs-read"),
            Some(Route::One("mcp%3Afs-read".into()))
        );
        assert_eq!(Route::of("/v1/toolsx"), None);
        assert_eq!(Route::of("/mcp"), None);
        assert!(Route::Discovery.public());
        assert!(!Route::List.public() && !Route::One("x".into()).public());
    }

    #[test]
    fn an_id_is_found_encoded_or_not() {
        let m = manifest();
        for raw in ["mcp:fs-read", "mcp%3Afs-read", "mcp%3afs-read"] {
            let a = answer(&Route::One(raw.into()), &Method::GET, None, &m);
            assert_eq!(a.status, StatusCode::OK, "{raw}");
            assert_eq!(a.body["toolId"], "mcp:fs-read");
        }
        for raw in ["mcp:nope", "mcp%3", "mcp%FFfs-read", "", "mcp:shell"] {
            let a = answer(&Route::One(raw.into()), &Method::GET, None, &m);
            assert_eq!(a, not_found(), "{raw}");
        }
    }

    #[test]
    fn the_list_filters_by_source_and_refuses_an_unknown_one() {
        let m = manifest();
        let ids = |q: Option<&str>| -> Vec<Value> {
            let a = answer(&Route::List, &Method::GET, q, &m);
            assert_eq!(a.status, StatusCode::OK);
            a.body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["toolId"].clone())
                .collect()
        };
        assert_eq!(
            ids(None),
            [json!("mcp:fs-read"), json!("x-host-orla-shell")]
        );
        assert_eq!(ids(Some("source=mcp")), [json!("mcp:fs-read")]);
        assert_eq!(
            ids(Some("source=host-extension")),
            [json!("x-host-orla-shell")]
        );
        assert!(ids(Some("source=node-pack")).is_empty());
        let bad = answer(&Route::List, &Method::GET, Some("source=mpc"), &m);
        assert_eq!(bad.status, StatusCode::BAD_REQUEST);
        assert_eq!(bad.body["error"], "validation_error");
    }

    #[test]
    fn only_reads_are_answered() {
        let m = manifest();
        for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
            let a = answer(&Route::List, &method, None, &m);
            assert_eq!(a.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        }
        let head = answer(&Route::Discovery, &Method::HEAD, None, &m);
        assert_eq!(head.status, StatusCode::OK);
    }
}
