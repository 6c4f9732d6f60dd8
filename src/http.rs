//! HTTP(S) downloads with reqwest's blocking client: the response body is a
//! `Read` that feeds the verifier directly.
//!
//! - Redirects are followed (up to 10, reqwest's default), except one to
//!   another host or port of this machine (a loopback or unspecified
//!   address, or `localhost`): a registry or mirror elsewhere must not make
//!   orla probe services that listen only locally. A redirect within the
//!   same host and port is followed.
//! - The timeout is one of inactivity: connecting, waiting for headers, or
//!   any single read may take at most `timeout` (default 30 s,
//!   `ORLA_HTTP_TIMEOUT`), so a large download on a slow link is fine but a
//!   stalled server is not.
//! - A server that keeps sending, but too slowly, is not stalled, so two
//!   more bounds hold (`HttpLimits`): a minimum transfer rate, averaged over
//!   each `timeout` window (default 10 bytes/s, `ORLA_HTTP_LOW_SPEED_LIMIT`,
//!   as cargo's `http.low-speed-limit` and curl's `--speed-limit`), and an
//!   overall deadline for one request, its body and resumes included
//!   (default 1 hour, `ORLA_HTTP_DEADLINE`). One byte every two seconds
//!   held an install, and its lock, for as long as the server liked. The
//!   deadline is checked between reads, so it is passed by at most
//!   `timeout`.
//! - A request that fails to connect or gets a 5xx answer is retried with
//!   exponential backoff (200 ms, 400 ms, 800 ms: four attempts); a 4xx
//!   answer is final, as retrying cannot change it.
//! - A body cut short (the connection drops, a read times out, or it ends
//!   before its Content-Length) is resumed with `Range: bytes=N-` from the
//!   byte where it stopped. A server that ignores ranges answers 200 with the
//!   whole body, whose first N bytes are skipped. The reader still yields
//!   each byte once, in order, so the single hashing pass is unchanged and
//!   the digest check still catches a mirror that changed the file between
//!   the two requests.
//! - One reqwest client per timeout serves the whole process (index files
//!   and archives alike), so requests to one host share its connection
//!   pool (and, over HTTP/2, one connection) instead of each building a
//!   client, a TLS configuration and a runtime thread of its own.
//! - HTTPS offers HTTP/2 and HTTP/1.1 by ALPN and speaks what the server
//!   picks: over HTTP/2 the requests to one host share one connection.
//!   Plain `http://` stays HTTP/1.1 (no prior-knowledge HTTP/2, which a
//!   plain server would not understand).
//! - At most `PER_HOST` requests to one host are in flight at once, index
//!   files and archive bodies counted together (a body holds its place until
//!   it is dropped): a parallel install of many tools otherwise opens a
//!   connection per tool at the same moment, and a small server's accept
//!   queue overflows (the dropped connections then wait for a retry).
//!   Browsers and package managers bound it likewise.

use std::collections::HashMap;
use std::io::{self, Read};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, Response};
use reqwest::StatusCode;

use crate::progress::{Event, Reporter, Warning};

/// `url` without the user name and password it may carry
/// (`https://user:token@host/a.tar.gz` gives `https://host/a.tar.gz`), for
/// everything orla writes down: receipts, the manifest and orla.lock are
/// read by others and committed to repositories. Anything that is not an
/// http(s) URL with credentials is returned as it is.
pub fn without_credentials(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed)
            if matches!(parsed.scheme(), "http" | "https")
                && (!parsed.username().is_empty() || parsed.password().is_some()) =>
        {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

/// The redirect policy: at most 10, and none to another address of this
/// machine than the one first asked.
fn redirect(attempt: reqwest::redirect::Attempt) -> reqwest::redirect::Action {
    if attempt.previous().len() > 10 {
        return attempt.error("too many redirects");
    }
    let origin = |u: &reqwest::Url| (u.host_str().map(str::to_string), u.port_or_known_default());
    let first = attempt.previous().first().map(origin);
    let next = attempt.url();
    if is_this_machine(next) && first.as_ref() != Some(&origin(next)) {
        let message = format!(
            "the server redirected to {}, another address of this machine, which orla does not follow",
            without_credentials(next.as_str())
        );
        return attempt.error(message);
    }
    attempt.follow()
}

/// A loopback or unspecified address, or `localhost`.
fn is_this_machine(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || ip
                    .to_ipv4_mapped()
                    .is_some_and(|v4| v4.is_loopback() || v4.is_unspecified())
        }
        Err(_) => {
            let name = host.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
    }
}

/// How many times a request is tried in all.
const ATTEMPTS: u32 = 4;
/// How many times one body may be resumed.
const RESUMES: u32 = 4;
const BACKOFF: Duration = Duration::from_millis(200);

/// How many requests to one host are in flight at once (see the module doc).
pub const PER_HOST: usize = 6;

pub struct HttpClient {
    limits: HttpLimits,
}

/// The process's reqwest clients, one per inactivity timeout (the only
/// setting they are built with), each made on first use: installs from the
/// built-in registry never pay for one.
fn shared_client(timeout: Duration) -> Result<Client, ClientBuildError> {
    static CLIENTS: OnceLock<Mutex<HashMap<Duration, Result<Client, ClientBuildError>>>> =
        OnceLock::new();
    let mut clients = CLIENTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    clients
        .entry(timeout)
        .or_insert_with(|| build_client(timeout, None))
        .clone()
}

/// A client with orla's settings; `root` is trusted besides the built-in
/// roots (tests only: orla has no setting for it).
fn build_client(
    timeout: Duration,
    root: Option<reqwest::Certificate>,
) -> Result<Client, ClientBuildError> {
    let mut builder = Client::builder()
        .user_agent(concat!("orla/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(timeout)
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::custom(redirect));
    if let Some(root) = root {
        builder = builder.add_root_certificate(root);
    }
    builder.build().map_err(|e| ClientBuildError(Arc::new(e)))
}

/// Requests in flight per host, for the whole process.
static HOSTS: OnceLock<(Mutex<HashMap<String, usize>>, Condvar)> = OnceLock::new();

/// A request's place among those to its host, released when dropped.
pub struct HostSlot {
    host: String,
}

/// The host a place is taken for: the URL's host and port, without user
/// name or password, in lower case.
fn host_key(url: &str) -> String {
    url.split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default()
        .rsplit('@')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Waits for a place among the requests to `url`'s host.
pub fn host_slot(url: &str) -> HostSlot {
    let host = host_key(url);
    let (lock, freed) = HOSTS.get_or_init(Default::default);
    let mut busy = lock.lock().unwrap_or_else(|e| e.into_inner());
    while busy.get(&host).copied().unwrap_or(0) >= PER_HOST {
        busy = freed.wait(busy).unwrap_or_else(|e| e.into_inner());
    }
    *busy.entry(host.clone()).or_insert(0) += 1;
    HostSlot { host }
}

impl Drop for HostSlot {
    fn drop(&mut self) {
        let (lock, freed) = HOSTS.get_or_init(Default::default);
        let mut busy = lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = busy.get_mut(&self.host) {
            *n -= 1;
            if *n == 0 {
                busy.remove(&self.host);
            }
        }
        freed.notify_all();
    }
}

/// How long and how slowly one download may run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HttpLimits {
    /// Inactivity: connecting, waiting for headers, or any single read.
    pub timeout: Duration,
    /// One request from its start to its last byte, resumes included.
    pub deadline: Duration,
    /// Bytes per second the body must average over each `timeout` window;
    /// 0 for no minimum.
    pub low_speed_limit: u64,
}

impl HttpLimits {
    pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(3600);
    pub const DEFAULT_LOW_SPEED_LIMIT: u64 = 10;
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            timeout: Duration::from_secs(30),
            deadline: HttpLimits::DEFAULT_DEADLINE,
            low_speed_limit: HttpLimits::DEFAULT_LOW_SPEED_LIMIT,
        }
    }
}

impl Default for HttpClient {
    fn default() -> Self {
        HttpClient::new()
    }
}

/// A download that failed for good (after its retries): `message` is
/// what [`RequestError`] says.
#[derive(Debug, thiserror::Error)]
#[error("download of {url} failed: {message}")]
pub struct HttpError {
    pub url: String,
    pub message: String,
}

/// The process's HTTP client could not be built (its TLS setup failed);
/// kept for the process, so it is shared.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct ClientBuildError(Arc<reqwest::Error>);

/// Why one attempt at a request failed.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// It could not be sent or no answer came (connecting, TLS, a redirect
    /// refused): what failed, then reqwest's innermost cause, on one line.
    #[error("{}", readable(.0))]
    Send(reqwest::Error),
    /// Connecting, or waiting for the answer, took longer than the
    /// inactivity timeout.
    #[error("{host} did not answer within {} s", .after.as_secs())]
    TimedOut { host: String, after: Duration },
    /// The server answered with an error status.
    #[error("the server answered HTTP {0}")]
    Status(StatusCode),
}

impl AttemptError {
    /// Whether another attempt may succeed: not for a request that cannot
    /// be built (a malformed URL) or a redirect loop, nor for a server that
    /// let the timeout pass (see `net`), nor for an answer other than 5xx
    /// and 429.
    fn retryable(&self) -> bool {
        match self {
            AttemptError::Send(e) => !(e.is_builder() || e.is_redirect()),
            AttemptError::TimedOut { .. } => false,
            AttemptError::Status(status) => {
                status.is_server_error() || *status == StatusCode::TOO_MANY_REQUESTS
            }
        }
    }
}

/// reqwest's error as one line a person reads: what failed (connecting to
/// the host, or the request) and the innermost cause, which says why
/// (`Connection refused (os error 111)`), without the layers between
/// (`error sending request for url (...): client error (Connect): tcp
/// connect error: ...`).
fn readable(e: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(source) = cause.source() {
        cause = source;
    }
    let host = e
        .url()
        .map(|u| host_key(u.as_str()))
        .unwrap_or_else(|| "the server".into());
    let why = cause.to_string();
    if e.is_connect() {
        format!("cannot connect to {host}: {why}")
    } else if e.is_redirect() || e.is_builder() || std::error::Error::source(e).is_none() {
        why
    } else {
        format!("the request to {host} failed: {why}")
    }
}

/// A request that failed for good.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error(transparent)]
    Client(#[from] ClientBuildError),
    /// The last of `attempts` attempts failed.
    #[error("{error}{}", after(*attempts))]
    Failed { error: AttemptError, attempts: u32 },
    /// The answer's body could not be read.
    #[error("{0}")]
    Body(#[source] io::Error),
    /// A small file is larger than `max` bytes.
    #[error("the file is larger than {} MiB, more than any index file should be", max >> 20)]
    TooLarge { max: u64 },
}

impl RequestError {
    /// How long the server let pass without an answer, when that is why
    /// the request failed: a captive portal or a stalled proxy more often
    /// than a registry that is down.
    pub fn timed_out(&self) -> Option<Duration> {
        match self {
            RequestError::Failed {
                error: AttemptError::TimedOut { after, .. },
                ..
            } => Some(*after),
            _ => None,
        }
    }
}

/// The hint for a network operation that had no answer within `timeout`.
pub fn timeout_hint(timeout: Duration) -> String {
    format!(
        "the server sent nothing for {} s: a captive portal or a stalled proxy does that; check your connection (sign in to the network), or raise ORLA_HTTP_TIMEOUT if the server is just slow",
        timeout.as_secs()
    )
}

/// ` (after N attempts)` when there were several.
fn after(attempts: u32) -> String {
    match attempts {
        0 | 1 => String::new(),
        n => format!(" (after {n} attempts)"),
    }
}

/// The answer to [`HttpClient::get_small`].
pub enum Small {
    /// The bytes, and the ETag the server gave them.
    Found(Vec<u8>, Option<String>),
    NotModified,
    Missing,
}

impl HttpClient {
    pub fn new() -> HttpClient {
        HttpClient::with_limits(HttpLimits::default())
    }

    pub fn with_timeout(timeout: Duration) -> HttpClient {
        HttpClient::with_limits(HttpLimits {
            timeout,
            ..HttpLimits::default()
        })
    }

    pub fn with_limits(limits: HttpLimits) -> HttpClient {
        HttpClient { limits }
    }

    /// The process's client for this timeout, built on first use.
    fn client(&self) -> Result<Client, ClientBuildError> {
        shared_client(self.limits.timeout)
    }

    /// A small file (a sparse index's file) of at most `max` bytes: its
    /// bytes, `Small::Missing` on 404 or 410, with the usual retries. `etag`
    /// makes the request conditional: a 304 answer gives `Small::NotModified`.
    pub fn get_small(
        &self,
        url: &str,
        etag: Option<&str>,
        max: u64,
    ) -> Result<Small, RequestError> {
        let client = self.client()?;
        // Held until the body is read (the end of this call).
        let _slot = host_slot(url);
        let response = with_retries(url, &crate::progress::Silent, || {
            let mut request = client.get(url);
            if let Some(tag) = etag {
                request = request.header(reqwest::header::IF_NONE_MATCH, tag);
            }
            let response = send(request, self.limits.timeout)?;
            let status = response.status();
            if status == StatusCode::NOT_MODIFIED
                || status == StatusCode::NOT_FOUND
                || status == StatusCode::GONE
            {
                return Ok(response);
            }
            classify(response)
        })?;
        match response.status() {
            StatusCode::NOT_MODIFIED => Ok(Small::NotModified),
            StatusCode::NOT_FOUND | StatusCode::GONE => Ok(Small::Missing),
            _ => {
                let etag = response
                    .headers()
                    .get(reqwest::header::ETAG)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                // Read at most one byte more than allowed: a hostile or broken
                // server must not make orla buffer an endless body.
                let mut bytes = Vec::new();
                response
                    .take(max + 1)
                    .read_to_end(&mut bytes)
                    .map_err(RequestError::Body)?;
                if bytes.len() as u64 > max {
                    return Err(RequestError::TooLarge { max });
                }
                Ok(Small::Found(bytes, etag))
            }
        }
    }

    /// Starts a GET; returns the body and its length when the server says it.
    pub fn get(&self, url: &str) -> Result<(Box<dyn Read + Send>, Option<u64>), HttpError> {
        self.get_reporting(url, &crate::progress::Silent)
    }

    /// As `get`, saying on `reporter` when it retries.
    pub fn get_reporting(
        &self,
        url: &str,
        reporter: &dyn Reporter,
    ) -> Result<(Box<dyn Read + Send>, Option<u64>), HttpError> {
        let fail = |e: RequestError| HttpError {
            url: url.to_string(),
            message: e.to_string(),
        };
        let client = self.client().map_err(|e| fail(e.into()))?;
        let slot = host_slot(url);
        let started = Instant::now();
        let timeout = self.limits.timeout;
        let shown = without_credentials(url);
        let response = crate::net::watched(reporter, &shown, timeout, |_| {
            with_retries(url, reporter, || attempt(&client, url, 0, timeout))
        })
        .map_err(fail)?;
        let len = response.content_length();
        let body = Resuming {
            client,
            url: url.to_string(),
            response,
            offset: 0,
            total: len,
            resumes: 0,
            pace: Pace::new(self.limits, started),
            _slot: slot,
        };
        Ok((Box::new(body), len))
    }
}

/// Runs `once` until it succeeds, fails for good, or the attempts run out.
fn with_retries(
    url: &str,
    reporter: &dyn Reporter,
    mut once: impl FnMut() -> Result<Response, AttemptError>,
) -> Result<Response, RequestError> {
    let mut n = 1;
    loop {
        match once() {
            Ok(r) => return Ok(r),
            Err(error) if !error.retryable() || n >= ATTEMPTS => {
                return Err(RequestError::Failed { error, attempts: n })
            }
            Err(error) => {
                let wait = BACKOFF * 2u32.pow(n - 1);
                reporter.report(Event::Warning(Warning::Retrying {
                    url: url.to_string(),
                    problem: error.to_string(),
                    delay_ms: wait.as_millis() as u64,
                }));
                std::thread::sleep(wait);
                n += 1;
            }
        }
    }
}

/// One GET, from byte `offset` on when it is not 0.
fn attempt(
    client: &Client,
    url: &str,
    offset: u64,
    timeout: Duration,
) -> Result<Response, AttemptError> {
    let mut request = client.get(url);
    if offset > 0 {
        request = request.header(reqwest::header::RANGE, format!("bytes={offset}-"));
    }
    classify(send(request, timeout)?)
}

/// Sends a request on a client whose inactivity timeout is `timeout`.
fn send(
    request: reqwest::blocking::RequestBuilder,
    timeout: Duration,
) -> Result<Response, AttemptError> {
    request.send().map_err(|e| {
        if e.is_timeout() {
            AttemptError::TimedOut {
                host: e.url().map_or_else(String::new, |u| host_key(u.as_str())),
                after: timeout,
            }
        } else {
            AttemptError::Send(e)
        }
    })
}

/// A success passes; any other status fails the attempt.
fn classify(response: Response) -> Result<Response, AttemptError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    Err(AttemptError::Status(status))
}

/// A response body that resumes itself where it was cut off.
struct Resuming {
    client: Client,
    url: String,
    response: Response,
    /// Bytes handed out so far.
    offset: u64,
    total: Option<u64>,
    resumes: u32,
    pace: Pace,
    /// The body's place among the requests to its host.
    _slot: HostSlot,
}

/// The deadline and the minimum rate of one download.
struct Pace {
    limits: HttpLimits,
    started: Instant,
    window_start: Instant,
    window_bytes: u64,
}

impl Pace {
    fn new(limits: HttpLimits, started: Instant) -> Pace {
        Pace {
            limits,
            started,
            window_start: Instant::now(),
            window_bytes: 0,
        }
    }

    /// An error once the download has run past its deadline.
    fn check_deadline(&self) -> io::Result<()> {
        if self.started.elapsed() > self.limits.deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the download took longer than {} s (ORLA_HTTP_DEADLINE)",
                    self.limits.deadline.as_secs_f64()
                ),
            ));
        }
        Ok(())
    }

    /// Counts `n` bytes; an error when a whole window averaged less than
    /// the minimum rate.
    fn arrived(&mut self, n: u64) -> io::Result<()> {
        self.window_bytes += n;
        let window = self.window_start.elapsed();
        if window < self.limits.timeout {
            return Ok(());
        }
        let needed = (self.limits.low_speed_limit as f64 * window.as_secs_f64()) as u64;
        if self.window_bytes < needed {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the server sent {} bytes in {:.0} s, slower than {} bytes/s (ORLA_HTTP_LOW_SPEED_LIMIT)",
                    self.window_bytes,
                    window.as_secs_f64(),
                    self.limits.low_speed_limit
                ),
            ));
        }
        self.window_start = Instant::now();
        self.window_bytes = 0;
        Ok(())
    }
}

impl Resuming {
    /// Replaces the response with one that continues at `offset`.
    fn resume(&mut self, why: String) -> io::Result<()> {
        if self.resumes >= RESUMES {
            return Err(io::Error::other(format!(
                "{why}; gave up after {} resumed requests",
                self.resumes
            )));
        }
        self.resumes += 1;
        std::thread::sleep(BACKOFF * self.resumes);
        self.pace.check_deadline()?;
        let response = with_retries(&self.url, &crate::progress::Silent, || {
            attempt(
                &self.client,
                &self.url,
                self.offset,
                self.pace.limits.timeout,
            )
        })
        .map_err(|e| {
            let m = match e {
                RequestError::Failed { error, .. } => error.to_string(),
                other => other.to_string(),
            };
            io::Error::other(format!("{why}; resuming failed: {m}"))
        })?;
        let mut response = response;
        if response.status() == StatusCode::PARTIAL_CONTENT {
            let start = content_range_start(&response);
            if start != Some(self.offset) {
                return Err(io::Error::other(format!(
                    "{why}; the server resumed at the wrong byte"
                )));
            }
        } else {
            // No range support: skip what was already handed out.
            let skipped = io::copy(&mut (&mut response).take(self.offset), &mut io::sink())?;
            if skipped != self.offset {
                return Err(io::Error::other(format!(
                    "{why}; the server's second answer is shorter than the first"
                )));
            }
        }
        self.response = response;
        Ok(())
    }
}

impl Read for Resuming {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            // Too slow or too long is final: resuming would not help.
            self.pace.check_deadline()?;
            match self.response.read(buf) {
                Ok(0) => match self.total {
                    Some(total) if self.offset < total => {
                        let why = format!("the body ended after {} of {total} bytes", self.offset);
                        self.resume(why)?;
                    }
                    _ => return Ok(0),
                },
                Ok(n) => {
                    self.offset += n as u64;
                    self.pace.arrived(n as u64)?;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let why = format!("the download broke off after {} bytes ({e})", self.offset);
                    self.resume(why)?;
                }
            }
        }
    }
}

fn content_range_start(response: &Response) -> Option<u64> {
    let value = response
        .headers()
        .get(reqwest::header::CONTENT_RANGE)?
        .to_str()
        .ok()?;
    let range = value.strip_prefix("bytes ")?;
    range.split('-').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_chain(e: &dyn std::error::Error) -> String {
        let mut out = e.to_string();
        let mut source = e.source();
        while let Some(s) = source {
            out.push_str(": ");
            out.push_str(&s.to_string());
            source = s.source();
        }
        out
    }

    #[test]
    fn credentials_are_not_written_down() {
        assert_eq!(
            without_credentials("https://user:s3cret@example.test:8443/a/b.tar.gz?x=1"),
            "https://example.test:8443/a/b.tar.gz?x=1"
        );
        assert_eq!(
            without_credentials("http://token@example.test/a.tar.gz"),
            "http://example.test/a.tar.gz"
        );
        for plain in [
            "https://example.test/a.tar.gz",
            "builtin:archives/a.tar.gz",
            "/srv/a.tar.gz",
        ] {
            assert_eq!(without_credentials(plain), plain);
        }
    }

    #[test]
    fn requests_to_one_host_are_bounded_for_the_whole_process() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        assert_eq!(
            host_key("http://user:pw@Bounded.example:80/a?b"),
            "bounded.example:80"
        );
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for i in 0..4 * PER_HOST {
                let (now, most) = (&now, &most);
                scope.spawn(move || {
                    // Credentials and case name the same host.
                    let url = if i % 2 == 0 {
                        format!("http://user@Bounded.example:80/a/{i}")
                    } else {
                        format!("http://bounded.example:80/b/{i}")
                    };
                    let _slot = host_slot(&url);
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(5));
                    now.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        assert!(most.load(Ordering::SeqCst) <= PER_HOST);
        assert!(
            most.load(Ordering::SeqCst) > 1,
            "the requests ran one by one"
        );
        // Places of one host do not hold up another, and come back when dropped.
        let held: Vec<_> = (0..PER_HOST)
            .map(|_| host_slot("http://held.example/x"))
            .collect();
        let _other = host_slot("https://other-host.example/y");
        drop(held);
        let _again = host_slot("http://held.example/z");
    }

    /// An HTTPS server on 127.0.0.1 (tests/tls/) that speaks HTTP/2 only:
    /// ALPN offers `h2` alone, so a client without HTTP/2 cannot even
    /// complete the handshake. It serves one connection, then stops.
    fn h2_only_server() -> std::net::SocketAddr {
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let file = |name: &str| {
            std::fs::read(format!("{}/tests/tls/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
        };
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(file("server.der"))],
                PrivateKeyDer::Pkcs8(file("server.key.der").into()),
            )
            .unwrap();
        config.alpn_protocols = vec![b"h2".to_vec()];
        let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut connection) = h2::server::handshake(tls).await else {
                    return;
                };
                while let Some(Ok((request, mut respond))) = connection.accept().await {
                    let body = format!("{} over h2", request.uri().path());
                    let response = http::Response::builder().status(200).body(()).unwrap();
                    if let Ok(mut stream) = respond.send_response(response, false) {
                        let _ = stream.send_data(bytes::Bytes::from(body), true);
                    }
                }
            });
        });
        addr
    }

    #[test]
    fn https_speaks_http2_where_the_server_offers_it() {
        let addr = h2_only_server();
        let ca = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tls/ca.der")).unwrap();
        let root = reqwest::Certificate::from_der(&ca).unwrap();
        let client = build_client(Duration::from_secs(30), Some(root)).unwrap();
        // Several requests share the one connection the server accepts.
        for path in ["/config.json", "/ab/cd/abcd"] {
            let response = client
                .get(format!("https://{addr}{path}"))
                .send()
                .unwrap_or_else(|e| panic!("{}", error_chain(&e)));
            assert_eq!(response.version(), reqwest::Version::HTTP_2);
            assert_eq!(response.text().unwrap(), format!("{path} over h2"));
        }
    }

    #[test]
    fn an_index_url_that_cannot_be_requested_is_not_retried() {
        let start = std::time::Instant::now();
        let err = match HttpClient::new().get_small("http://[::1/config.json", None, 1 << 20) {
            Err(e) => e,
            Ok(_) => panic!("a malformed URL was fetched"),
        };
        assert!(
            matches!(
                err,
                RequestError::Failed {
                    error: AttemptError::Send(_),
                    attempts: 1
                }
            ),
            "{err:?}"
        );
        assert!(!err.to_string().contains("attempts"), "{err}");
        assert!(start.elapsed() < BACKOFF, "it slept to retry");
    }
}
