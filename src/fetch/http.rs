//! HTTP(S) downloads with reqwest's blocking client: the response body is a
//! `Read` that feeds the verifier directly.

use std::io::Read;
use std::sync::OnceLock;
use std::time::Duration;

use super::FetchError;

pub struct HttpClient {
    client: OnceLock<Result<reqwest::blocking::Client, String>>,
}

impl Default for HttpClient {
    fn default() -> Self {
        HttpClient::new()
    }
}

impl HttpClient {
    pub fn new() -> HttpClient {
        HttpClient {
            client: OnceLock::new(),
        }
    }

    /// Built on first use: installs from the built-in registry never pay for it.
    fn client(&self) -> Result<&reqwest::blocking::Client, String> {
        self.client
            .get_or_init(|| {
                reqwest::blocking::Client::builder()
                    .user_agent(concat!("orla/", env!("CARGO_PKG_VERSION")))
                    .connect_timeout(Duration::from_secs(15))
                    .timeout(None)
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Starts a GET; returns the body and its length when the server says it.
    pub fn get(&self, url: &str) -> Result<(Box<dyn Read + Send>, Option<u64>), FetchError> {
        let fail = |message: String| FetchError::Http {
            url: url.to_string(),
            message,
        };
        let client = self.client().map_err(fail)?;
        let response = client.get(url).send().map_err(|e| fail(error_chain(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(fail(format!("the server answered HTTP {status}")));
        }
        let len = response.content_length();
        Ok((Box::new(response), len))
    }
}

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
