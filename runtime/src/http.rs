//! Streamable HTTP (MCP 2025-06-18 and later) at `/mcp`, through rmcp's
//! tower service on a small hyper server. Bound to 127.0.0.1 unless told
//! otherwise; the `Host` header must name a loopback host (or the address
//! bound), and a request carrying an `Origin` must come from a loopback
//! origin or one allowed explicitly, against DNS rebinding from web pages.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::server::{Handler, Shared};
use crate::ServeError;

pub async fn serve(
    shared: Arc<Shared>,
    host: IpAddr,
    port: u16,
    extra_origins: &[String],
) -> Result<(), ServeError> {
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
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins)
        .with_cancellation_token(cancel.child_token());
    if host.is_unspecified() {
        // Bound to every interface: any Host may arrive; Origin is still checked.
        config = config.disable_allowed_hosts();
    } else if !host.is_loopback() {
        config = config.with_allowed_hosts([
            "localhost".to_string(),
            "127.0.0.1".into(),
            "::1".into(),
            host.to_string(),
        ]);
    }
    let handler = Handler {
        shared: shared.clone(),
    };
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    shared
        .logger
        .info("listening", json!({"url": format!("http://{bound}/mcp")}));
    // The line tests and scripts wait for: the port actually bound.
    eprintln!("orla: serving MCP at http://{bound}/mcp");
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(ServeError::Signal)?;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
        };
        let Ok((stream, _)) = accepted else { continue };
        let service = service.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                let mut service = service.clone();
                async move {
                    if req.uri().path() != "/mcp" {
                        return Ok::<_, std::convert::Infallible>(not_found());
                    }
                    Ok(tower_call(&mut service, req).await)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
    cancel.cancel();
    Ok(())
}

type Body = BoxBody<Bytes, std::convert::Infallible>;

async fn tower_call(
    service: &mut StreamableHttpService<Handler, LocalSessionManager>,
    req: Request<Incoming>,
) -> Response<Body> {
    match tower_service::Service::call(service, req).await {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

fn not_found() -> Response<Body> {
    Response::builder()
        .status(StatusCode::NOT_FOUND)
        .body(Full::new(Bytes::from_static(b"not found; MCP is served at /mcp\n")).boxed())
        .expect("a valid response")
}
