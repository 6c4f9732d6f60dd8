//! `orla serve` over Streamable HTTP as a child process, on a free port of
//! 127.0.0.1, and raw HTTP/1.1 requests to it.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use super::TestContext;

/// `orla serve --port 0`: the URL it serves, read from its stderr.
pub struct HttpServe {
    pub child: Child,
    pub url: String,
    /// Everything the server wrote on stderr so far.
    pub log: std::sync::Arc<std::sync::Mutex<String>>,
}

/// One HTTP answer: its status, its header lines, its body.
pub struct Reply {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

impl Reply {
    /// The value of the header `name` (case-insensitive), if it came.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }

    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {} {}", self.status, self.body))
    }
}

impl HttpServe {
    /// `orla serve --port 0 EXTRA...` in the test's work directory.
    pub fn start(t: &TestContext, extra: &[&str]) -> HttpServe {
        let mut args = vec!["serve", "--port", "0"];
        args.extend_from_slice(extra);
        HttpServe::spawn(t.command(&args))
    }

    /// `cmd`, an `orla serve` over HTTP on a port the URL it prints names.
    pub fn spawn(mut cmd: Command) -> HttpServe {
        let mut child = cmd
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut url = None;
        let mut seen = String::new();
        for line in (&mut stderr).lines() {
            let line = line.unwrap();
            seen.push_str(&line);
            seen.push('\n');
            if let Some(u) = line.strip_prefix("orla: serving MCP at ") {
                url = Some(u.to_string());
                break;
            }
        }
        let url = url.unwrap_or_else(|| panic!("no URL in orla serve's stderr:\n{seen}"));
        // Keep draining stderr so the server never blocks on a full pipe.
        let log = std::sync::Arc::new(std::sync::Mutex::new(seen));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in stderr.lines() {
                let Ok(line) = line else { break };
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        HttpServe { child, url, log }
    }

    /// Waits until the server's log has `count` lines containing `needle`
    /// (a generous deadline only stops a broken server from hanging the test).
    pub fn wait_for_log(&self, needle: &str, count: usize) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let log = self.log.lock().unwrap().clone();
            if log.matches(needle).count() >= count {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no {needle} x{count} in:\n{log}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    pub fn addr(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string()
    }

    /// A raw HTTP POST of an initialize request, with extra headers; the status.
    pub fn post_initialize(&self, headers: &str) -> u16 {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        .to_string();
        let mut stream = std::net::TcpStream::connect(self.addr()).unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr(),
            body.len()
        )
        .unwrap();
        let mut status = String::new();
        BufReader::new(stream).read_line(&mut status).unwrap();
        status.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// A raw HTTP/1.1 request without a body (`headers` are extra lines,
    /// each ending in CRLF), read to the end.
    pub fn request(&self, method: &str, target: &str, headers: &str) -> Reply {
        let addr = self.addr();
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "{method} {target} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        let response = String::from_utf8_lossy(&response).into_owned();
        let (head, body) = response
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no end of headers in {response:.200}"));
        let (status_line, headers) = head.split_once("\r\n").unwrap_or((head, ""));
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status in {response:.200}"));
        Reply {
            status,
            headers: headers.to_string(),
            body: body.to_string(),
        }
    }

    /// `GET target` with extra `headers`.
    pub fn get(&self, target: &str, headers: &str) -> Reply {
        self.request("GET", target, headers)
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
