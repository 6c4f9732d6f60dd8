//! The openwop tool catalog `orla serve` answers over HTTP beside MCP:
//! the discovery document, `GET /v1/tools` and `GET /v1/tools/{toolId}`,
//! valid against the schemas in docs/ for every kind of tool, the same
//! descriptors `orla export --format openwop` prints, read-only, scoped by
//! the server's token, following the manifest as it changes, and without
//! the secrets a tool's environment holds.

use crate::common;

use serde_json::{json, Value};

use common::http_serve::HttpServe;
use common::tool_kinds::{
    assert_no_secrets, assert_valid, project, schema, NAMES, PASSED_SECRET, PASSED_VARIABLE,
};
use common::TestContext;

/// The path of one descriptor, its id percent-encoded as HTTP clients send
/// it (`:` as `%3A`).
fn path_of(id: &str) -> String {
    format!("/v1/tools/{}", id.replace(':', "%3A"))
}

#[test]
fn the_catalog_serves_valid_descriptors_of_every_kind_as_export_prints_them() {
    let t = TestContext::new();
    let dir = project(&t);
    let exported = t
        .run_in(&dir, &["export", "--format", "openwop"])
        .success()
        .json();
    let mut cmd = t.command(&["serve", "--port", "0"]);
    cmd.current_dir(&dir).env(PASSED_VARIABLE, PASSED_SECRET);
    let serve = HttpServe::spawn(cmd);
    serve.wait_for_log(
        &format!("\"catalog\":\"http://{}/v1/tools\"", serve.addr()),
        1,
    );

    let discovery = serve.get("/.well-known/openwop", "");
    assert_eq!(discovery.status, 200, "{}", discovery.body);
    assert_eq!(
        discovery.header("content-type").as_deref(),
        Some("application/json")
    );
    let discovery = discovery.json();
    assert_valid(&schema("openwop-discovery.schema.json"), &discovery);
    assert_eq!(
        discovery["toolCatalog"],
        json!({"supported": true, "sources": ["mcp", "host-extension"], "sessionLifecycle": false})
    );

    let list = serve.get("/v1/tools", "");
    assert_eq!(list.status, 200, "{}", list.body);
    assert_no_secrets(&list.body);
    let list = list.json();
    let tools = list["tools"].as_array().unwrap();
    let validator = schema("tool-descriptor.schema.json");
    for d in tools {
        assert_valid(&validator, d);
    }
    let mut titles: Vec<&str> = tools.iter().map(|d| d["title"].as_str().unwrap()).collect();
    titles.sort();
    assert_eq!(titles, NAMES);
    // What `orla export --format openwop` prints, and the same on every read.
    assert_eq!(list["tools"], exported);
    assert_eq!(serve.get("/v1/tools", "").json(), list);

    for d in tools {
        let id = d["toolId"].as_str().unwrap();
        for target in [path_of(id), format!("/v1/tools/{id}")] {
            let one = serve.get(&target, "");
            assert_eq!(one.status, 200, "{target}: {}", one.body);
            assert_no_secrets(&one.body);
            assert_eq!(&one.json(), d, "{target}");
        }
    }
    let by_id = |id: &str| serve.get(&path_of(id), "").json();
    assert_eq!(by_id("x-host-orla-shell")["source"], "host-extension");
    assert_eq!(by_id("x-host-orla-convert")["safetyTier"], "exec");
    assert_eq!(by_id("mcp:echo-capsule")["source"], "mcp");
    assert_eq!(by_id("mcp:slow-net")["egress"], "host-owned");

    // `?source=` keeps the tools of one source.
    let hosted = serve.get("/v1/tools?source=host-extension", "").json();
    let ids: Vec<&str> = hosted["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["toolId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids.len(),
        3,
        "shell, anything and convert are exec-tier: {ids:?}"
    );
    assert!(
        ids.iter().all(|id| id.starts_with("x-host-orla-")),
        "{ids:?}"
    );
    assert_eq!(serve.get("/v1/tools?source=bogus", "").status, 400);
}

#[test]
fn unknown_ids_are_404_and_the_catalog_is_read_only() {
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let serve = HttpServe::start(&t, &[]);
    for target in [
        path_of("mcp:nope"),
        path_of("fs-read"),
        path_of("x-host-orla-fs-read"),
        "/v1/tools/mcp%3".to_string(),
    ] {
        let reply = serve.get(&target, "");
        assert_eq!(reply.status, 404, "{target}");
        assert_eq!(reply.json()["error"], "not_found", "{target}");
    }
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        for target in [
            "/v1/tools",
            "/v1/tools/mcp%3Afs-read",
            "/.well-known/openwop",
        ] {
            let reply = serve.request(method, target, "");
            assert_eq!(reply.status, 405, "{method} {target}");
            assert_eq!(reply.header("allow").as_deref(), Some("GET, HEAD"));
            assert_eq!(reply.json()["error"], "method_not_allowed");
        }
    }
    let head = serve.request("HEAD", "/v1/tools/mcp%3Afs-read", "");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty(), "{}", head.body);
    // Still served as before.
    assert_eq!(serve.get(&path_of("mcp:fs-read"), "").status, 200);
}

#[test]
fn with_a_token_a_request_without_it_sees_no_tool() {
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let token = "0123456789abcdef0123456789abcdef";
    std::fs::write(t.work.join("token"), format!("{token}\n")).unwrap();
    let serve = HttpServe::start(&t, &["--token-file", "token"]);
    let wrong = "Authorization: Bearer 0123456789abcdef0123456789abcdeX\r\n";
    let right = format!("Authorization: Bearer {token}\r\n");

    // Without the token, or with another: 401 whatever the id, the same
    // answer for a tool that exists and for one that does not.
    for headers in ["", wrong] {
        let answers: Vec<(u16, Option<String>, String)> = [
            "/v1/tools".to_string(),
            path_of("mcp:fs-read"),
            path_of("mcp:nope"),
        ]
        .iter()
        .map(|target| {
            let r = serve.get(target, headers);
            (r.status, r.header("www-authenticate"), r.body)
        })
        .collect();
        for answer in &answers {
            assert_eq!(answer.0, 401, "{answer:?}");
            assert_eq!(answer.1.as_deref(), Some("Bearer"), "{answer:?}");
            assert!(!answer.2.contains("fs-read"), "{answer:?}");
        }
        assert_eq!(answers[1], answers[2]);
        assert_eq!(serve.request("POST", "/v1/tools", headers).status, 401);
    }

    // With it: the tool, and 404 for an id it does not serve.
    let list = serve.get("/v1/tools", &right);
    assert_eq!(list.status, 200);
    assert_eq!(list.json()["tools"][0]["toolId"], "mcp:fs-read");
    assert_eq!(serve.get(&path_of("mcp:fs-read"), &right).status, 200);
    assert_eq!(serve.get(&path_of("mcp:nope"), &right).status, 404);

    // The discovery document is public, and says nothing of the tools.
    let discovery = serve.get("/.well-known/openwop", "");
    assert_eq!(discovery.status, 200);
    assert!(!discovery.body.contains("fs-read"), "{}", discovery.body);
}

#[test]
fn a_web_page_of_another_origin_or_host_gets_no_catalog() {
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let serve = HttpServe::start(&t, &[]);
    assert_eq!(
        serve
            .get("/v1/tools", "Origin: http://localhost:3000\r\n")
            .status,
        200
    );
    for (target, headers) in [
        ("/v1/tools", "Origin: https://evil.example\r\n"),
        ("/.well-known/openwop", "Origin: https://evil.example\r\n"),
        (
            "/v1/tools/mcp%3Afs-read",
            "Origin: http://localhost.evil.example\r\n",
        ),
    ] {
        let reply = serve.get(target, headers);
        assert_eq!(reply.status, 403, "{target} {headers}");
        assert!(!reply.body.contains("fs-read"), "{}", reply.body);
    }
    // A rebound DNS name: the request names another host.
    let addr = serve.addr();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(
        &mut stream,
        b"GET /v1/tools HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let mut response = String::new();
    std::io::Read::read_to_string(&mut stream, &mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 403"), "{response}");

    let allowed = HttpServe::start(&t, &["--allow-origin", "https://app.example"]);
    assert_eq!(
        allowed
            .get("/v1/tools", "Origin: https://app.example\r\n")
            .status,
        200
    );
}

#[test]
fn an_install_or_uninstall_while_serving_shows_in_the_catalog() {
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let serve = HttpServe::start(&t, &[]);
    let ids = || -> Vec<Value> {
        serve.get("/v1/tools", "").json()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["toolId"].clone())
            .collect()
    };
    assert_eq!(ids(), [json!("mcp:fs-read")]);
    assert_eq!(serve.get(&path_of("mcp:fs-list"), "").status, 404);

    t.run(&["install", "fs-list"]).success();
    serve.wait_for_log("\"msg\":\"reloaded\"", 1);
    assert_eq!(ids(), [json!("mcp:fs-list"), json!("mcp:fs-read")]);
    assert_eq!(serve.get(&path_of("mcp:fs-list"), "").status, 200);

    t.run(&["uninstall", "fs-read"]).success();
    serve.wait_for_log("\"msg\":\"reloaded\"", 2);
    assert_eq!(ids(), [json!("mcp:fs-list")]);
    assert_eq!(serve.get(&path_of("mcp:fs-read"), "").status, 404);
}
