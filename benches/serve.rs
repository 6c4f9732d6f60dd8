//! Measures what `orla serve` adds to a tool call.
//!
//! Run with `cargo bench --bench serve`. It installs a trivial simple tool
//! (`#!/bin/sh` printing one line) and the echo-capsule starter tool into a
//! temporary ORLA_HOME, starts `orla serve --stdio` with rmcp's client, and
//! prints, over `CALLS` sequential calls each:
//!   - the baseline: running the same script directly (spawn, wait, read),
//!   - one tools/call of the script through the server (MCP over stdio,
//!     spawn per call, process group killed after),
//!   - one tools/call of the capsule (a request on its stdin, no spawn),
//!   - the same two calls over Streamable HTTP (`orla serve --port 0`, one
//!     session, a keep-alive connection from reqwest's blocking client).
//!
//! The overhead of the runtime is the difference of the first two medians;
//! what HTTP adds over stdio is the difference of the HTTP and stdio
//! medians of the same tool.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;

const CALLS: usize = 200;
const ORLA: &str = env!("CARGO_BIN_EXE_orla");

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let pkg = dir.path().join("trivial");
    std::fs::create_dir_all(pkg.join("bin")).unwrap();
    std::fs::write(
        pkg.join("tool.yaml"),
        "name: trivial\nversion: 1.0.0\ndescription: Prints ok\nentrypoint: bin/trivial\npermissions: []\n",
    )
    .unwrap();
    std::fs::write(pkg.join("README.md"), "# trivial\n").unwrap();
    let script = pkg.join("bin/trivial");
    std::fs::write(&script, "#!/bin/sh\necho ok\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let orla = |args: &[&str]| {
        let status = Command::new(ORLA)
            .args(args)
            .env("ORLA_HOME", &home)
            .env("ORLA_CACHE_DIR", dir.path().join("cache"))
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "orla {args:?}");
    };
    orla(&["install", "-q", "-y", "--local", pkg.to_str().unwrap()]);
    orla(&["install", "-q", "-y", "echo-capsule"]);

    let direct = time_each(|| {
        let out = Command::new(&script).output().unwrap();
        assert_eq!(out.stdout, b"ok\n");
    });
    report("direct: spawn the script", &direct);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (simple, capsule) = runtime.block_on(async {
        let mut cmd = tokio::process::Command::new(ORLA);
        cmd.args(["serve", "--stdio", "--log-level", "error"])
            .env("ORLA_HOME", &home)
            .stderr(Stdio::null());
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let client = ().serve(transport).await.unwrap();
        let mut simple = Vec::with_capacity(CALLS);
        let mut capsule = Vec::with_capacity(CALLS);
        // One call each first: the capsule's handshake is not a call's cost.
        for name in ["trivial", "echo-capsule"] {
            client
                .call_tool(CallToolRequestParams::new(name))
                .await
                .unwrap();
        }
        for _ in 0..CALLS {
            let t = Instant::now();
            let r = client
                .call_tool(CallToolRequestParams::new("trivial"))
                .await
                .unwrap();
            simple.push(t.elapsed());
            assert_eq!(r.is_error, Some(false));
            let t = Instant::now();
            client
                .call_tool(CallToolRequestParams::new("echo-capsule"))
                .await
                .unwrap();
            capsule.push(t.elapsed());
        }
        client.cancel().await.unwrap();
        (simple, capsule)
    });
    report("orla serve --stdio: tools/call of the script", &simple);
    report("orla serve --stdio: tools/call of a capsule", &capsule);
    let (http_simple, http_capsule) = over_http(&home);
    report("orla serve (HTTP): tools/call of the script", &http_simple);
    report("orla serve (HTTP): tools/call of a capsule", &http_capsule);
    let overhead = median(&simple).saturating_sub(median(&direct));
    println!(
        "overhead of one tools/call over running the script: {:.2} ms (median)",
        ms(overhead)
    );
    for (what, http, stdio) in [
        ("script", &http_simple, &simple),
        ("capsule", &http_capsule, &capsule),
    ] {
        println!(
            "HTTP minus stdio, tools/call of the {what}: {:+.2} ms (median)",
            ms(median(http)) - ms(median(stdio))
        );
    }
}

/// `CALLS` tools/call of each tool over Streamable HTTP, in one session.
fn over_http(home: &std::path::Path) -> (Vec<Duration>, Vec<Duration>) {
    use std::io::BufRead;
    let mut child = Command::new(ORLA)
        .args(["serve", "--port", "0", "--log-level", "error"])
        .env("ORLA_HOME", home)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut url = None;
    for line in stderr.lines() {
        if let Some(u) = line.unwrap().strip_prefix("orla: serving MCP at ") {
            url = Some(u.to_string());
            break;
        }
    }
    let url = url.expect("orla serve printed its URL");
    let client = reqwest::blocking::Client::new();
    let post = |session: Option<&str>, body: String| {
        let mut request = client
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Protocol-Version", "2025-06-18");
        if let Some(id) = session {
            request = request.header("Mcp-Session-Id", id);
        }
        let response = request.body(body).send().unwrap();
        let id = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_string());
        let text = response.text().unwrap();
        (id, text)
    };
    let (id, _) = post(
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#.into(),
    );
    let id = id.expect("a session id");
    post(
        Some(&id),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
    );
    let mut n = 0;
    let mut call = |name: &str| {
        n += 1;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"{name}","arguments":{{}}}}}}"#
        );
        let t = Instant::now();
        let (_, text) = post(Some(&id), body);
        let elapsed = t.elapsed();
        assert!(text.contains("\"isError\":false"), "{text}");
        elapsed
    };
    call("trivial");
    call("echo-capsule");
    let mut simple = Vec::with_capacity(CALLS);
    let mut capsule = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        simple.push(call("trivial"));
        capsule.push(call("echo-capsule"));
    }
    let _ = child.kill();
    let _ = child.wait();
    (simple, capsule)
}

fn time_each(mut f: impl FnMut()) -> Vec<Duration> {
    f();
    (0..CALLS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect()
}

fn median(samples: &[Duration]) -> Duration {
    let mut s = samples.to_vec();
    s.sort();
    s[s.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(what: &str, samples: &[Duration]) {
    let mut s = samples.to_vec();
    s.sort();
    let p = |q: f64| s[((s.len() - 1) as f64 * q) as usize];
    println!(
        "{what:<42} median {:>7.2} ms   p90 {:>7.2} ms   min {:>7.2} ms   ({} calls)",
        ms(p(0.5)),
        ms(p(0.9)),
        ms(s[0]),
        s.len()
    );
}
