//! A real HTTP server on 127.0.0.1 for archive downloads. Each path has a
//! behaviour: serve bytes, fail with a status, cut the body short, or stall
//! mid-body until released; fail a few times before serving, cut only the
//! first answer short, or redirect. `Serve` (and the behaviours that end in
//! serving) honour `Range: bytes=N-` with a 206. Every request is counted,
//! and logged with its path and Range header. `Gather` shows whether a
//! client asks for several files at once.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

#[derive(Clone)]
pub enum Behaviour {
    Serve(Vec<u8>),
    Status(u16),
    /// Announce the full length but send only the first N bytes, then close.
    Truncate(Vec<u8>, usize),
    /// Send the first N bytes, then wait until `release` is called.
    Stall(Vec<u8>, usize),
    /// Answer the first N requests with the status, then serve the bytes.
    FailTimes(usize, u16, Vec<u8>),
    /// Cut the first answer after N bytes; serve later requests (with ranges).
    TruncateOnce(Vec<u8>, usize),
    /// Answer 302 with this Location (a path on this server or a URL).
    Redirect(String),
    /// Like `Serve`, but ignore Range headers (always 200 with everything).
    ServeNoRanges(Vec<u8>),
    /// `TruncateOnce` from a server that ignores Range headers.
    TruncateOnceNoRanges(Vec<u8>, usize),
    /// Announce the full length, then send one byte per interval, at most
    /// N bytes per answer (then close), until `release` is called.
    Trickle(Vec<u8>, Duration, usize),
    /// Like `Serve`, but the first answers wait (at most 3 s) until two
    /// `Gather` requests are waiting at once; `most_gathered` says how many
    /// ever were. A client that asks one at a time sees 1.
    Gather(Vec<u8>),
}

struct State {
    routes: Mutex<HashMap<String, Behaviour>>,
    /// Requests per path, for the behaviours that change over time.
    hits: Mutex<HashMap<String, usize>>,
    /// (path, Range header) of every request.
    log: Mutex<Vec<(String, Option<String>)>>,
    requests: AtomicUsize,
    /// `Gather` requests waiting now, and the most there ever were.
    gathered: AtomicUsize,
    most_gathered: AtomicUsize,
    released: AtomicBool,
    stop: AtomicBool,
}

pub struct Server {
    pub addr: String,
    state: Arc<State>,
    handle: Option<JoinHandle<()>>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(State {
            routes: Mutex::new(HashMap::new()),
            hits: Mutex::new(HashMap::new()),
            log: Mutex::new(Vec::new()),
            requests: AtomicUsize::new(0),
            gathered: AtomicUsize::new(0),
            most_gathered: AtomicUsize::new(0),
            released: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        });
        let st = state.clone();
        let handle = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if st.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let st = st.clone();
                std::thread::spawn(move || handle(stream, &st));
            }
        });
        Server {
            addr,
            state,
            handle: Some(handle),
        }
    }

    pub fn route(&self, path: &str, behaviour: Behaviour) {
        self.state
            .routes
            .lock()
            .unwrap()
            .insert(path.to_string(), behaviour);
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.addr)
    }

    pub fn requests(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }

    /// Every request so far: its path and its Range header.
    pub fn log(&self) -> Vec<(String, Option<String>)> {
        self.state.log.lock().unwrap().clone()
    }

    /// The `Range` header of every request for `path`, in order (`None`
    /// for a request without one).
    pub fn ranges_for(&self, path: &str) -> Vec<Option<String>> {
        self.log()
            .into_iter()
            .filter(|(p, _)| p == path)
            .map(|(_, range)| range)
            .collect()
    }

    /// The most `Gather` requests that were waiting at once.
    pub fn most_gathered(&self) -> usize {
        self.state.most_gathered.load(Ordering::SeqCst)
    }

    /// Counts `Gather` requests from zero again.
    pub fn reset_gathered(&self) {
        self.state.most_gathered.store(0, Ordering::SeqCst);
    }

    pub fn release(&self) {
        self.state.released.store(true, Ordering::SeqCst);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.release();
        self.state.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees `stop`.
        let _ = TcpStream::connect(self.addr.trim_start_matches("http://"));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn handle(mut stream: TcpStream, state: &State) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let request = String::from_utf8_lossy(&buf);
    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
    if state.stop.load(Ordering::SeqCst) {
        return;
    }
    let range = request
        .lines()
        .find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.trim().eq_ignore_ascii_case("range"))
        })
        .map(|(_, v)| v.trim().to_string());
    state
        .log
        .lock()
        .unwrap()
        .push((path.clone(), range.clone()));
    let hit = {
        let mut hits = state.hits.lock().unwrap();
        let n = hits.entry(path.clone()).or_insert(0);
        *n += 1;
        *n
    };
    state.requests.fetch_add(1, Ordering::SeqCst);
    let behaviour = state.routes.lock().unwrap().get(&path).cloned();
    let header = |status: &str, len: usize| {
        format!("HTTP/1.1 {status}\r\nContent-Length: {len}\r\nContent-Type: application/gzip\r\nConnection: close\r\n\r\n")
    };
    // Serves `bytes`, from the start of a `bytes=N-` range when there is one.
    let serve = |stream: &mut TcpStream, bytes: &[u8], ranges: bool| {
        let start = range
            .as_deref()
            .filter(|_| ranges)
            .and_then(|r| r.strip_prefix("bytes="))
            .and_then(|r| r.strip_suffix('-'))
            .and_then(|n| n.parse::<usize>().ok());
        match start {
            Some(start) if start < bytes.len() => {
                let part = &bytes[start..];
                let _ = stream.write_all(
                    format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{}/{}\r\nConnection: close\r\n\r\n",
                        part.len(),
                        bytes.len() - 1,
                        bytes.len()
                    )
                    .as_bytes(),
                );
                let _ = stream.write_all(part);
            }
            _ => {
                let _ = stream.write_all(header("200 OK", bytes.len()).as_bytes());
                let _ = stream.write_all(bytes);
            }
        }
    };
    match behaviour {
        None => {
            let _ = stream.write_all(header("404 Not Found", 0).as_bytes());
        }
        Some(Behaviour::Serve(bytes)) => serve(&mut stream, &bytes, true),
        Some(Behaviour::ServeNoRanges(bytes)) => serve(&mut stream, &bytes, false),
        Some(Behaviour::Gather(bytes)) => {
            let now = state.gathered.fetch_add(1, Ordering::SeqCst) + 1;
            state.most_gathered.fetch_max(now, Ordering::SeqCst);
            let waited = std::time::Instant::now();
            while state.most_gathered.load(Ordering::SeqCst) < 2
                && waited.elapsed() < Duration::from_secs(3)
                && !state.released.load(Ordering::SeqCst)
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            // Before answering: the client may ask again once it has the answer.
            state.gathered.fetch_sub(1, Ordering::SeqCst);
            serve(&mut stream, &bytes, true);
        }
        Some(Behaviour::FailTimes(n, code, bytes)) => {
            if hit <= n {
                let _ = stream.write_all(header(&format!("{code} Error"), 0).as_bytes());
            } else {
                serve(&mut stream, &bytes, true);
            }
        }
        Some(Behaviour::TruncateOnce(bytes, n)) => {
            if hit == 1 {
                let _ = stream.write_all(header("200 OK", bytes.len()).as_bytes());
                let _ = stream.write_all(&bytes[..n]);
            } else {
                serve(&mut stream, &bytes, true);
            }
        }
        Some(Behaviour::TruncateOnceNoRanges(bytes, n)) => {
            if hit == 1 {
                let _ = stream.write_all(header("200 OK", bytes.len()).as_bytes());
                let _ = stream.write_all(&bytes[..n]);
            } else {
                serve(&mut stream, &bytes, false);
            }
        }
        Some(Behaviour::Redirect(location)) => {
            let _ = stream.write_all(
                format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").as_bytes(),
            );
        }
        Some(Behaviour::Status(code)) => {
            let _ = stream.write_all(header(&format!("{code} Error"), 0).as_bytes());
        }
        Some(Behaviour::Truncate(bytes, n)) => {
            let _ = stream.write_all(header("200 OK", bytes.len()).as_bytes());
            let _ = stream.write_all(&bytes[..n]);
        }
        Some(Behaviour::Trickle(bytes, every, most)) => {
            let _ = stream.write_all(header("200 OK", bytes.len()).as_bytes());
            for byte in bytes.iter().take(most) {
                if state.released.load(Ordering::SeqCst) || stream.write_all(&[*byte]).is_err() {
                    break;
                }
                let _ = stream.flush();
                std::thread::sleep(every);
            }
        }
        Some(Behaviour::Stall(bytes, n)) => {
            let _ = stream.write_all(header("200 OK", bytes.len()).as_bytes());
            let _ = stream.write_all(&bytes[..n]);
            let _ = stream.flush();
            while !state.released.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = stream.write_all(&bytes[n..]);
        }
    }
    let _ = stream.flush();
}
