//! Streamable HTTP (MCP 2025-06-18 and later) at `/mcp`, through rmcp's
//! tower service on a small hyper server, and beside it the read-only
//! openwop tool catalog ([`crate::catalog`]). Bound to 127.0.0.1 unless
//! told otherwise; the `Host` header must name a loopback host (or the
//! address bound), and a request carrying an `Origin` must come from a
//! loopback origin or one allowed explicitly, against DNS rebinding from
//! web pages (rmcp checks `/mcp`, [`Bounds::misplaced`] the catalog).
//!
//! Bounded, so that a server left running holds up under floods: at most
//! `max_connections` connections are open (more wait in the kernel's
//! backlog), a request's headers and body must arrive within
//! `read_timeout` (else the connection is closed, or `408`), at most
//! `max_sessions` sessions live at once (an `initialize` beyond gets `503`
//! with `Retry-After`) and a session idle for `session_idle` is closed.
//! Accept errors (out of descriptors) back off instead of spinning. With a
//! token, every request must carry `Authorization: Bearer TOKEN` (compared
//! in constant time), else `401`; only the catalog's discovery document
//! is public.
//! Sockets get TCP_NODELAY: a response is one small write, and Nagle's
//! algorithm would hold it for the client's delayed ACK (about 40 ms).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::catalog;
use crate::server::{Handler, Shared};
use crate::{Options, ServeError};

/// The largest request body read (rmcp's own limit).
const MAX_BODY: usize = 4 * 1024 * 1024;

pub async fn serve(
    shared: Arc<Shared>,
    host: IpAddr,
    port: u16,
    options: &Options,
) -> Result<(), ServeError> {
    let extra_origins = &options.allowed_origins;
    let addr = SocketAddr::new(host, port);
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Listen { addr, source })?;
    let bound = listener.local_addr().map_err(ServeError::Bound)?;
    let cancel = CancellationToken::new();
    let mut origins: Vec<String> = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    origins.extend(extra_origins.iter().cloned());
    // The hosts a `Host` header may name: loopback's and the address bound;
    // bound to every interface, any (Origin is still checked).
    let hosts = (!host.is_unspecified()).then(|| {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if !host.is_loopback() {
            hosts.push(host.to_string());
        }
        hosts
    });
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins.clone())
        .with_cancellation_token(cancel.child_token());
    config = match &hosts {
        None => config.disable_allowed_hosts(),
        Some(hosts) => config.with_allowed_hosts(hosts.clone()),
    };
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_idle);
    let sessions = Arc::new(sessions);
    let service = {
        // A handler per session: each has its own logging level.
        let shared = shared.clone();
        StreamableHttpService::new(
            move || Ok(Handler::new(shared.clone())),
            sessions.clone(),
            config,
        )
    };
    let limits = Arc::new(Bounds {
        sessions,
        max_sessions: options.max_sessions,
        opening: Default::default(),
        read_timeout: options.read_timeout,
        token: options
            .token
            .as_ref()
            .map(|t| format!("Bearer {t}").into_bytes()),
        hosts,
        origins,
        shared: shared.clone(),
    });
    let connections = Arc::new(tokio::sync::Semaphore::new(options.max_connections.max(1)));
    let mut backoff = Duration::ZERO;
    shared.logger.info(
        "listening",
        json!({
            "url": format!("http://{bound}/mcp"),
            "catalog": format!("http://{bound}{}", catalog::TOOLS_PATH),
        }),
    );
    // The line tests and scripts wait for: the port actually bound.
    eprintln!("orla: serving MCP at http://{bound}/mcp");
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(ServeError::Signal)?;
    loop {
        // A connection slot first: beyond the cap, connections wait in the
        // kernel's backlog rather than cost descriptors and memory here.
        let permit = tokio::select! {
            p = connections.clone().acquire_owned() => p.expect("never closed"),
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        };
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => {
                backoff = Duration::ZERO;
                stream
            }
            Err(e) => {
                // Out of descriptors (EMFILE, ENFILE) or memory: retrying at
                // once would spin. Back off, 10 ms doubling up to 1 s.
                backoff = (backoff * 2).clamp(Duration::from_millis(10), Duration::from_secs(1));
                if backoff == Duration::from_millis(10) || backoff == Duration::from_secs(1) {
                    shared.logger.warn(
                        "cannot accept a connection; backing off",
                        json!({"error": e.to_string(), "delay_ms": backoff.as_millis() as u64}),
                    );
                }
                tokio::time::sleep(backoff).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let limits = limits.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let read_timeout = limits.read_timeout;
            let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                let mut service = service.clone();
                let limits = limits.clone();
                async move {
                    let path = req.uri().path();
                    if path == "/mcp" {
                        return Ok::<_, std::convert::Infallible>(
                            handle(&mut service, &limits, req).await,
                        );
                    }
                    Ok(match catalog::Route::of(path) {
                        Some(route) => catalog_request(&limits, route, &req),
                        None => not_found(),
                    })
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(read_timeout)
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
    cancel.cancel();
    Ok(())
}

type Body = BoxBody<Bytes, std::convert::Infallible>;

/// What a request without the token is told, on `/mcp` and the catalog.
const NO_TOKEN: &str = "this server requires Authorization: Bearer with its token";

/// What every connection checks against.
struct Bounds {
    sessions: Arc<LocalSessionManager>,
    max_sessions: usize,
    /// Held from the count of sessions until rmcp has opened the new one,
    /// so concurrent `initialize` requests cannot all pass one count.
    opening: tokio::sync::Mutex<()>,
    read_timeout: Duration,
    /// `Bearer TOKEN`, the whole `Authorization` header required.
    token: Option<Vec<u8>>,
    /// The hosts a `Host` header may name (None: any), and the origins an
    /// `Origin` header may name, as rmcp is told for `/mcp`: checked here
    /// for the catalog's routes.
    hosts: Option<Vec<String>>,
    origins: Vec<String>,
    /// The manifest the catalog describes: the one MCP serves.
    shared: Arc<Shared>,
}

impl Bounds {
    /// Whether the request carries the token, when there is one.
    fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let given = headers
            .get(hyper::header::AUTHORIZATION)
            .map_or(&b""[..], |v| v.as_bytes());
        same_secret(given, token)
    }

    /// Why a request comes from where it may not (DNS rebinding, a foreign
    /// web page): the checks rmcp makes of `/mcp`, made for the catalog.
    fn misplaced(&self, headers: &HeaderMap) -> Option<&'static str> {
        if let Some(hosts) = &self.hosts {
            let host = headers
                .get(hyper::header::HOST)
                .and_then(|h| h.to_str().ok())
                .and_then(|h| hyper::http::uri::Authority::try_from(h).ok())
                .map(|a| normal_host(a.host()));
            if !host.is_some_and(|h| hosts.iter().any(|a| normal_host(a) == h)) {
                return Some("the Host header is not allowed");
            }
        }
        match headers.get(hyper::header::ORIGIN) {
            None => None,
            Some(origin) => {
                let allowed = origin
                    .to_str()
                    .is_ok_and(|o| self.origins.iter().any(|a| origin_matches(o, a)));
                (!allowed).then_some("the Origin header is not allowed")
            }
        }
    }
}

fn normal_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// Whether `origin` is the one `allowed` names: scheme and host equal, and
/// the port too unless `allowed` ends in `:*` or has none (as rmcp reads
/// `--allow-origin`).
fn origin_matches(origin: &str, allowed: &str) -> bool {
    /// Scheme, host, and the port given (None when left out).
    fn parts(origin: &str) -> Option<(String, String, Option<u16>)> {
        let uri = hyper::Uri::try_from(origin.trim()).ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let authority = uri.authority()?;
        Some((scheme, normal_host(authority.host()), authority.port_u16()))
    }
    fn default_port(scheme: &str) -> Option<u16> {
        match scheme {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        }
    }
    if origin.trim().eq_ignore_ascii_case("null") {
        return allowed.trim().eq_ignore_ascii_case("null");
    }
    let (base, any_port) = match allowed.trim().strip_suffix(":*") {
        Some(base) => (base, true),
        None => (allowed, false),
    };
    let (Some((scheme, host, port)), Some((a_scheme, a_host, a_port))) =
        (parts(origin), parts(base))
    else {
        return false;
    };
    let port_matches =
        any_port || a_port.is_none_or(|a| port.or_else(|| default_port(&scheme)) == Some(a));
    scheme == a_scheme && host == a_host && port_matches
}

/// A request for the openwop tool catalog (docs/runtime.md, "The openwop
/// tool catalog"): from an allowed place, with the token unless the route
/// is public, then answered from the manifest served now. Without the
/// token nothing of the tools shows: `401` whatever the id.
fn catalog_request(
    limits: &Bounds,
    route: catalog::Route,
    req: &Request<Incoming>,
) -> Response<Body> {
    let answer = if let Some(why) = limits.misplaced(req.headers()) {
        catalog::Answer::error(StatusCode::FORBIDDEN, "forbidden", why)
    } else if !route.public() && !limits.authorized(req.headers()) {
        catalog::Answer::error(StatusCode::UNAUTHORIZED, "unauthenticated", NO_TOKEN)
    } else {
        catalog::answer(
            &route,
            req.method(),
            req.uri().query(),
            &limits.shared.manifest(),
        )
    };
    let mut response = Response::builder()
        .status(answer.status)
        .header(hyper::header::CONTENT_TYPE, "application/json");
    match answer.status {
        StatusCode::UNAUTHORIZED => {
            response = response.header(hyper::header::WWW_AUTHENTICATE, "Bearer");
        }
        StatusCode::METHOD_NOT_ALLOWED => {
            response = response.header(hyper::header::ALLOW, catalog::ALLOW);
        }
        _ => {}
    }
    // HEAD: hyper sends the headers of this answer and drops its body.
    response
        .body(Full::new(Bytes::from(answer.body.to_string())).boxed())
        .expect("a valid response")
}

/// Whether `given` equals `expected`, in a time that depends only on their
/// lengths: how much of a guess matched never shows in the answer's time.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != expected.len());
    for (i, e) in expected.iter().enumerate() {
        diff |= e ^ given.get(i).copied().unwrap_or(0);
    }
    std::hint::black_box(diff) == 0
}

/// One request: its body read whole within the read timeout, a new
/// session refused when there are too many, then rmcp.
async fn handle(
    service: &mut StreamableHttpService<Handler, LocalSessionManager>,
    limits: &Bounds,
    req: Request<Incoming>,
) -> Response<Body> {
    if !limits.authorized(req.headers()) {
        let mut response = refusal(StatusCode::UNAUTHORIZED, NO_TOKEN.into());
        response.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Bearer"),
        );
        return response;
    }
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(limits.read_timeout, Limited::new(body, MAX_BODY).collect());
    let body = match read.await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("a request body is at most {MAX_BODY} bytes"),
            )
        }
        Ok(Err(_)) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "the request body is incomplete".into(),
            )
        }
        Err(_) => {
            return refusal(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s",
                    limits.read_timeout.as_secs()
                ),
            )
        }
    };
    let new_session = parts.method == Method::POST && !parts.headers.contains_key("mcp-session-id");
    let _opening = if new_session {
        Some(limits.opening.lock().await)
    } else {
        None
    };
    if new_session && limits.sessions.sessions.read().await.len() >= limits.max_sessions {
        let mut response = refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the server has {} sessions open, its limit; try again later",
                limits.max_sessions
            ),
        );
        response.headers_mut().insert(
            hyper::header::RETRY_AFTER,
            hyper::header::HeaderValue::from_static("5"),
        );
        return response;
    }
    let delete = parts.method == Method::DELETE;
    let req = Request::from_parts(parts, Full::new(body));
    let mut response = match tower_service::Service::call(service, req).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    // A closed session: rmcp says 202, which the Python SDK logs as a
    // failure; the specification leaves the code open and the SDKs take
    // 200 (the TypeScript SDK's answer).
    if delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}

/// A JSON-RPC error for a request refused before MCP sees it.
fn refusal(status: StatusCode, message: String) -> Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": message}});
    Response::builder()
        .status(status)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .expect("a valid response")
}

fn not_found() -> Response<Body> {
    Response::builder()
        .status(StatusCode::NOT_FOUND)
        .body(
            Full::new(Bytes::from_static(
                b"not found; MCP is served at /mcp, the openwop tool catalog at /v1/tools\n",
            ))
            .boxed(),
        )
        .expect("a valid response")
}

#[cfg(test)]
mod tests {
    #[test]
    fn secrets_match_only_whole() {
        use super::same_secret;
        assert!(same_secret(b"Bearer abc", b"Bearer abc"));
        assert!(!same_secret(b"Bearer abd", b"Bearer abc"));
        assert!(!same_secret(b"Bearer ab", b"Bearer abc"));
        assert!(!same_secret(b"Bearer abcd", b"Bearer abc"));
        assert!(!same_secret(b"", b"Bearer abc"));
    }

    #[test]
    fn origins_match_as_rmcp_reads_them() {
        use super::origin_matches;
        assert!(origin_matches(
            "http://localhost:3000",
            "http://localhost:*"
        ));
        assert!(origin_matches("http://[::1]:9", "http://[::1]:*"));
        assert!(origin_matches("HTTP://LocalHost", "http://localhost:*"));
        assert!(!origin_matches(
            "http://localhost.evil.example",
            "http://localhost:*"
        ));
        assert!(!origin_matches(
            "https://localhost:3000",
            "http://localhost:*"
        ));
        assert!(origin_matches("https://app.example", "https://app.example"));
        assert!(origin_matches(
            "https://app.example:8443",
            "https://app.example"
        ));
        assert!(origin_matches(
            "https://app.example",
            "https://app.example:443"
        ));
        assert!(!origin_matches(
            "https://app.example:8443",
            "https://app.example:443"
        ));
        assert!(origin_matches("null", "null"));
        assert!(!origin_matches("null", "http://localhost:*"));
        assert!(!origin_matches("not a url", "http://localhost:*"));
    }
}
